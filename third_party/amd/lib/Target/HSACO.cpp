//===- HSACO.cpp - LLVM IR -> AMDGCN assembly and code object ----------------===//
//
// In process: the ROCm device libraries the module calls (ocml, ockl and the
// oclc_* control libraries for the architecture) are linked in, the module
// is optimized at O3 for amdgcn-amd-amdhsa and emitted twice by LLVM's
// AMDGPU target -- as assembly and as a relocatable object -- and lld links
// the object into the code object a HIP runtime loads (an ELF shared
// object). lld runs as a program (ld.lld: TESSERA_LLD, then ld.lld-22 or
// ld.lld on PATH, then LLVM's bin directory); linked in, its ELF driver
// would pull every LLVM target in for LTO. The object and the code object go
// through a private temporary directory.
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/Target/HSACO.h"

#include "tessera/AMD/TTGToLLVM/TargetInfo.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
}

using namespace llvm;

namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";

void initializeAMDGPU() {
  static std::once_flag init;
  std::call_once(init, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    // Inline assembly (tl.inline_asm_elementwise) is parsed when objects are emitted.
    LLVMInitializeAMDGPUAsmParser();
  });
}

std::unique_ptr<TargetMachine> targetMachine(StringRef arch, bool fpFusion, std::string &error) {
  initializeAMDGPU();
  Triple triple(kTriple);
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "AMDGPU target unavailable: " + lookupError;
    return nullptr;
  }
  TargetOptions opts;
  opts.AllowFPOpFusion = fpFusion ? FPOpFusion::Fast : FPOpFusion::Standard;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, arch, "", opts, Reloc::PIC_, std::nullopt, CodeGenOptLevel::Aggressive));
  if (!tm)
    error = "cannot create an AMDGPU target machine for " + arch.str();
  return tm;
}

bool callsDeviceLibs(const Module &m) {
  for (const Function &f : m)
    if (f.isDeclaration() && !f.use_empty() &&
        (f.getName().starts_with("__ocml_") || f.getName().starts_with("__ockl_")))
      return true;
  return false;
}

bool linkBitcode(Module &m, const std::string &path, const std::string &what, std::string &error) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path);
  if (!buf) {
    error = what + ": cannot read it: " + buf.getError().message();
    return false;
  }
  Expected<std::unique_ptr<Module>> lib = parseBitcodeFile((*buf)->getMemBufferRef(), m.getContext());
  if (!lib) {
    error = what + ": not LLVM bitcode: " + toString(lib.takeError());
    return false;
  }
  const Triple &libTriple = (*lib)->getTargetTriple();
  if (!libTriple.empty() && !libTriple.isAMDGCN()) {
    error = what + ": bitcode for " + libTriple.str() + ", not for AMDGPU";
    return false;
  }
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (Linker::linkModules(m, std::move(*lib), Linker::Flags::LinkOnlyNeeded)) {
    error = what + ": linking it into the kernel failed";
    return false;
  }
  return true;
}

/// The device libraries for `arch`: ocml and ockl, and the control libraries
/// that fix their compile-time choices (IEEE denormals, no finite-only or
/// unsafe math, correctly rounded sqrt, the wavefront size, the ISA version,
/// code object ABI 5).
std::vector<std::string> deviceLibraries(const std::string &dir, const tessera::amd::ArchInfo &info) {
  std::vector<std::string> names = {"ocml.bc",
                                    "ockl.bc",
                                    "oclc_daz_opt_off.bc",
                                    "oclc_finite_only_off.bc",
                                    "oclc_unsafe_math_off.bc",
                                    "oclc_correctly_rounded_sqrt_on.bc",
                                    info.waveSize == 64 ? "oclc_wavefrontsize64_on.bc"
                                                        : "oclc_wavefrontsize64_off.bc",
                                    "",
                                    "oclc_abi_version_500.bc"};
  // The architecture's own ISA-version library when these device libraries
  // have it, else the stand-in its ArchInfo names.
  std::string exact = "oclc_isa_version_" + info.exactIsaVersion + ".bc";
  names[7] = !info.exactIsaVersion.empty() && sys::fs::exists(dir + "/" + exact)
                 ? exact
                 : "oclc_isa_version_" + info.isaVersion + ".bc";
  std::vector<std::string> paths;
  for (const std::string &n : names)
    paths.push_back(dir + "/" + n);
  return paths;
}

/// The ld.lld program, or "".
std::string findLld() {
  if (const char *env = std::getenv("TESSERA_LLD"); env && *env)
    return sys::fs::can_execute(env) ? env : "";
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (ErrorOr<std::string> p = sys::findProgramByName(name))
      return *p;
  for (const char *p : {"/usr/lib/llvm-22/bin/ld.lld", "/usr/bin/ld.lld"})
    if (sys::fs::can_execute(p))
      return p;
  return "";
}

/// Links `object` into a code object with ld.lld.
bool linkCodeObject(StringRef object, std::string &hsaco, std::string &error) {
  std::string lld = findLld();
  if (lld.empty()) {
    error = "ld.lld was not found (it links the code object): install lld (Debian: lld-22) or "
            "set TESSERA_LLD to the program";
    return false;
  }
  SmallString<128> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("tessera-hsaco", dir)) {
    error = "cannot create a temporary directory for ld.lld: " + ec.message();
    return false;
  }
  SmallString<128> in(dir), out(dir), log(dir);
  sys::path::append(in, "kernel.o");
  sys::path::append(out, "kernel.hsaco");
  sys::path::append(log, "lld.log");
  auto cleanup = [&] {
    for (const SmallString<128> &f : {in, out, log})
      sys::fs::remove(f);
    sys::fs::remove(dir);
  };
  {
    std::error_code ec;
    raw_fd_ostream os(in, ec, sys::fs::OF_None);
    if (ec) {
      error = "cannot write the object for ld.lld: " + ec.message();
      cleanup();
      return false;
    }
    os << object;
  }
  StringRef args[] = {lld, "-shared", in, "-o", out};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log), StringRef(log)};
  std::string runError;
  int rc = sys::ExecuteAndWait(lld, args, std::nullopt, redirects, /*SecondsToWait=*/120, 0,
                               &runError);
  if (rc != 0) {
    std::string diagnostics;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> b = MemoryBuffer::getFile(log))
      diagnostics = (*b)->getBuffer().str();
    error = "ld.lld (" + lld + ") could not link the code object: " +
            (diagnostics.empty() ? runError : diagnostics);
    cleanup();
    return false;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(out);
  if (!buf) {
    error = "cannot read the code object ld.lld wrote: " + buf.getError().message();
    cleanup();
    return false;
  }
  hsaco = (*buf)->getBuffer().str();
  cleanup();
  return true;
}

} // namespace

std::string tessera::amd::findDeviceLibs(const std::string &hint) {
  auto holds = [](const std::string &d) { return !d.empty() && sys::fs::exists(d + "/ocml.bc"); };
  if (holds(hint))
    return hint;
  // Set, it is the answer (a directory without ocml.bc is reported, not skipped).
  if (const char *env = std::getenv("TESSERA_ROCM_DEVICE_LIBS"); env && *env)
    return holds(env) ? env : "";
  for (const char *var : {"ROCM_PATH", "ROCM_HOME"})
    if (const char *home = std::getenv(var))
      if (holds(std::string(home) + "/amdgcn/bitcode"))
        return std::string(home) + "/amdgcn/bitcode";
  for (const char *d : {"/opt/rocm/amdgcn/bitcode", "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                        "/usr/lib/aarch64-linux-gnu/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode"})
    if (holds(d))
      return d;
  return "";
}

std::string tessera::amd::dataLayout() {
  std::string error;
  std::unique_ptr<TargetMachine> tm = targetMachine("gfx942", true, error);
  return tm ? tm->createDataLayout().getStringRepresentation() : "";
}

bool tessera::amd::translateToHSACO(Module &m, const HSACOOptions &options, std::string &amdgcn,
                                    std::string &hsaco, std::string &error) {
  ArchInfo info;
  if (!parseArch(options.arch, info, error))
    return false;
  std::unique_ptr<TargetMachine> tm = targetMachine(options.arch, options.enableFPFusion, error);
  if (!tm)
    return false;
  m.setTargetTriple(Triple(kTriple));
  m.setDataLayout(tm->createDataLayout());
  if (options.wavesPerEU > 0)
    for (Function &f : m)
      if (f.getCallingConv() == CallingConv::AMDGPU_KERNEL)
        f.addFnAttr("amdgpu-waves-per-eu", std::to_string(options.wavesPerEU));
  // Code object version 5 (what the oclc ABI library linked below assumes).
  if (!m.getModuleFlag("amdhsa_code_object_version"))
    m.addModuleFlag(Module::Error, "amdhsa_code_object_version", 500);

  for (const std::string &path : options.externLibraries)
    if (!linkBitcode(m, path, "extern library " + path, error))
      return false;
  bool linked = !options.externLibraries.empty();
  if (callsDeviceLibs(m)) {
    std::string dir = findDeviceLibs(options.deviceLibs);
    if (dir.empty()) {
      error = "the kernel calls the ROCm device libraries (ocml, ockl), which were not found: "
              "install Debian's rocm-device-libs, or set TESSERA_ROCM_DEVICE_LIBS (or ROCM_PATH) "
              "to the directory holding ocml.bc";
      return false;
    }
    for (const std::string &path : deviceLibraries(dir, info)) {
      if (!sys::fs::exists(path)) {
        error = "the ROCm device library " + path + " is missing (the libraries in " + dir +
                " do not cover " + options.arch + ")";
        return false;
      }
      if (!linkBitcode(m, path, "the ROCm device library " + path, error))
        return false;
    }
    linked = true;
    for (const Function &f : m)
      if (f.isDeclaration() && !f.use_empty() &&
          (f.getName().starts_with("__ocml_") || f.getName().starts_with("__ockl_"))) {
        error = "the kernel calls " + f.getName().str() + ", which the ROCm device libraries in " +
                dir + " do not define";
        return false;
      }
  }
  if (linked)
    internalizeModule(m, [](const GlobalValue &gv) {
      return !gv.isDeclaration() && gv.hasExternalLinkage() && isa<Function>(gv) &&
             cast<Function>(gv).getCallingConv() == CallingConv::AMDGPU_KERNEL;
    });

  std::string verifyErrors;
  raw_string_ostream verifyOS(verifyErrors);
  if (verifyModule(m, &verifyOS)) {
    error = "invalid LLVM IR: " + verifyErrors;
    return false;
  }

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(m, mam);

  // Assembly and object from the same optimized module: codegen changes the
  // IR it runs on (control-flow intrinsics), so the assembly comes from a copy.
  for (CodeGenFileType kind : {CodeGenFileType::AssemblyFile, CodeGenFileType::ObjectFile}) {
    SmallString<0> buffer;
    raw_svector_ostream os(buffer);
    legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, os, nullptr, kind)) {
      error = "the AMDGPU target cannot emit this file type";
      return false;
    }
    if (kind == CodeGenFileType::AssemblyFile)
      codegen.run(*CloneModule(m));
    else
      codegen.run(m);
    if (kind == CodeGenFileType::AssemblyFile)
      amdgcn = std::string(buffer.str());
    else if (!linkCodeObject(buffer.str(), hsaco, error))
      return false;
  }
  return true;
}
