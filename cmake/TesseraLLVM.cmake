# Find LLVM/MLIR 22 and arrange a fully static link of the pieces Tessera uses.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so every exported MLIR and
# lld target names the shared `LLVM` target in its interface.  We turn that off
# and substitute an interface target holding the LLVM component archives, so
# that libtessera.so carries MLIR and LLVM inside it and needs only libc,
# libstdc++, libz and libzstd at run time.

find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/mlir)
message(STATUS "Using MLIR from ${MLIR_DIR}, LLVM ${LLVM_PACKAGE_VERSION}")
if(NOT LLVM_PACKAGE_VERSION VERSION_GREATER_EQUAL 22 OR LLVM_PACKAGE_VERSION VERSION_GREATER_EQUAL 23)
  message(FATAL_ERROR "Tessera needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
list(APPEND CMAKE_MODULE_PATH ${MLIR_CMAKE_DIR} ${LLVM_CMAKE_DIR})
set(LLVM_LINK_LLVM_DYLIB OFF)
set(LLVM_ENABLE_EH OFF)
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(_tessera_llvm_defs UNIX_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${_tessera_llvm_defs})

set(TESSERA_LLVM_COMPONENTS
  Core Support Passes IRReader IRPrinter Option Analysis TransformUtils
  BitReader BitWriter Linker MC MCParser Target TargetParser
  FrontendOpenMP FrontendOffloading FrontendHLSL FrontendAtomic)
# A vendor backend adds its LLVM target and MLIR dialect libraries with
# set_property(GLOBAL APPEND PROPERTY TESSERA_VENDOR_LIBS ...).
llvm_map_components_to_libnames(TESSERA_LLVM_LIBS ${TESSERA_LLVM_COMPONENTS})

add_library(TesseraLLVMStatic INTERFACE)
target_link_libraries(TesseraLLVMStatic INTERFACE ${TESSERA_LLVM_LIBS})

get_property(_mlir_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
foreach(_lib IN LISTS _mlir_libs)
  if(TARGET ${_lib})
    get_target_property(_iface ${_lib} INTERFACE_LINK_LIBRARIES)
    if(_iface)
      list(TRANSFORM _iface REPLACE "^LLVM$" "TesseraLLVMStatic")
      set_target_properties(${_lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${_iface}")
    endif()
  endif()
endforeach()

# Compile flags shared by every Tessera translation unit that sees LLVM.
set(TESSERA_CXX_FLAGS -fno-exceptions -fvisibility-inlines-hidden
    -ffunction-sections -fdata-sections -Wno-unused-parameter)

# One object library per area (a dialect's IR, a pass family, the API …); the
# shared library libtessera is made of all of them (lib/CMakeLists.txt).
# Areas may live anywhere (lib/, third_party/<vendor>/lib) but must be added
# before lib/ so that the library sees them.
function(tessera_area name)
  add_library(${name} OBJECT ${ARGN})
  target_compile_options(${name} PRIVATE ${TESSERA_CXX_FLAGS} -fvisibility=hidden)
  target_compile_definitions(${name} PRIVATE TESSERA_VERSION="${TESSERA_VERSION}")
  # Any area may include any core dialect's headers; a vendor area adds its
  # own dialects' generated headers as dependencies.
  add_dependencies(${name} TesseraTTIncGen TesseraTTGIncGen
                   TesseraTTToTTGPassIncGen TesseraTTGToLLVMPassIncGen
                   TesseraTTTransformsPassIncGen TesseraTTGTransformsPassIncGen
                   TesseraProfIncGen TesseraProfTransformsPassIncGen)
  set_property(GLOBAL APPEND PROPERTY TESSERA_AREAS ${name})
endfunction()
