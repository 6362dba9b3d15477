//===- PTX.cpp - LLVM IR to PTX with LLVM's NVPTX target --------------------===//
//
// 1. Link libdevice (only the functions the kernel calls) when the module
//    declares __nv_* functions, and internalize everything but the kernels.
// 2. Run LLVM's O3 pipeline for the NVPTX target machine.
// 3. Emit PTX text, with multiply-adds of addresses fused (PTXPeephole.cpp).
// Does not handle: relocatable device code, multiple kernels calling each
// other across modules.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Target/PTX.h"

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
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace llvm;

std::string tessera::nvidia::ptxProcessor(int cc) {
  // Hopper (cc 9.0) gets the arch-specific sm_90a: wgmma needs it, and
  // sm_90a code runs only on cc 9.0 GPUs, which is what it is compiled for.
  // Others get plain sm_XY, whose PTX also runs on later GPUs.
  if (cc == 90)
    return "sm_90a";
  return "sm_" + std::to_string(cc);
}

std::string tessera::nvidia::findLibdevice(const std::string &hint) {
  auto exists = [](const std::string &p) {
    return !p.empty() && sys::fs::exists(p);
  };
  if (exists(hint))
    return hint;
  if (const char *env = std::getenv("TESSERA_LIBDEVICE"); env && exists(env))
    return env;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *home = std::getenv(var)) {
      std::string p = std::string(home) + "/nvvm/libdevice/libdevice.10.bc";
      if (exists(p))
        return p;
    }
  for (const char *p : {"/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                        "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"})
    if (exists(p))
      return p;
  return "";
}

static bool callsLibdevice(const Module &m) {
  for (const Function &f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      return true;
  return false;
}

/// Links what `m` needs of the bitcode library at `path` (libdevice, or a
/// user's library), retargeted to `m`. On failure `error` starts with `what`
/// (e.g. "libdevice at <path>"); with `requireNVPTX`, bitcode built for
/// another target is rejected.
static bool linkBitcode(Module &m, const std::string &path, const std::string &what,
                        bool requireNVPTX, std::string &error) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path);
  if (!buf) {
    error = what + ": cannot read it: " + buf.getError().message();
    return false;
  }
  Expected<std::unique_ptr<Module>> lib =
      parseBitcodeFile((*buf)->getMemBufferRef(), m.getContext());
  if (!lib) {
    error = what + ": not LLVM bitcode: " + toString(lib.takeError());
    return false;
  }
  const Triple &libTriple = (*lib)->getTargetTriple();
  if (requireNVPTX && !libTriple.empty() && !libTriple.isNVPTX()) {
    error = what + ": bitcode for " + libTriple.str() +
            ", not for NVPTX (build it with clang --target=nvptx64-nvidia-cuda -emit-llvm)";
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

// NVPTX codegen runs straight-line strength reduction, whose candidate search is quadratic in
// the number of address computations of a basic block: for a kernel whose tensors hold tens of
// thousands of elements per thread it takes 97% of the LLVM time (26 s of a 32 s compile at 64K
// elements per thread) while ptxas, which optimizes the same arithmetic again, takes a few
// seconds. Past this size (instructions of one function after the IR optimizations) the pass is
// left out of the codegen pipeline; smaller kernels keep the full pipeline.
static constexpr unsigned kLargeFunctionInstructions = 1000;

static unsigned largestFunctionSize(const Module &m) {
  unsigned largest = 0;
  for (const Function &f : m)
    largest = std::max(largest, static_cast<unsigned>(f.getInstructionCount()));
  return largest;
}

namespace {
// A legacy pass manager that can leave out the passes whose cost grows faster than linearly
// with function size. TargetPassConfig adds every codegen pass through add().
class CodegenPassManager : public legacy::PassManager {
public:
  explicit CodegenPassManager(bool dropSuperlinear) : dropSuperlinear(dropSuperlinear) {}
  void add(Pass *p) override {
    if (dropSuperlinear && p->getPassArgument() == "slsr") {
      delete p;
      return;
    }
    legacy::PassManager::add(p);
  }

private:
  bool dropSuperlinear;
};
} // namespace

namespace {
void initializeNVPTX() {
  static std::once_flag init;
  std::call_once(init, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory (and local, const) pointers: shared addresses fit in
    // 32 bits, and 64-bit ones cost wide address arithmetic and registers that
    // changed how ptxas scheduled loads against shared stores (a 32x32 fp32
    // transpose tile: 3.2 instead of 3.4 us, ncu on an H100). The NVPTX target
    // reads this option when a target machine picks its data layout.
    auto &registered = llvm::cl::getRegisteredOptions();
    auto it = registered.find("nvptx-short-ptr");
    if (it != registered.end())
      if (auto *opt = static_cast<llvm::cl::opt<bool> *>(it->second))
        opt->setValue(true);
  });
}
} // namespace

std::string tessera::nvidia::dataLayout() {
  initializeNVPTX();
  Triple triple("nvptx64-nvidia-cuda");
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return "";
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, ptxProcessor(90), "", TargetOptions(), Reloc::PIC_, std::nullopt,
      CodeGenOptLevel::Aggressive));
  return tm ? tm->createDataLayout().getStringRepresentation() : "";
}

bool tessera::nvidia::translateToPTX(Module &m, const PTXOptions &options,
                                     std::string &ptx, std::string &error) {
  initializeNVPTX();
  Triple triple("nvptx64-nvidia-cuda");
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "NVPTX target unavailable: " + lookupError;
    return false;
  }
  TargetOptions opts;
  opts.AllowFPOpFusion =
      options.enableFPFusion ? FPOpFusion::Fast : FPOpFusion::Standard;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, ptxProcessor(options.computeCapability),
      "+ptx" + std::to_string(options.ptxVersion), opts, Reloc::PIC_,
      std::nullopt, CodeGenOptLevel::Aggressive));
  if (!tm) {
    error = "cannot create an NVPTX target machine for " +
            ptxProcessor(options.computeCapability);
    return false;
  }
  m.setTargetTriple(triple);
  m.setDataLayout(tm->createDataLayout());

  // The user's bitcode libraries (tl.extern_elementwise), before libdevice:
  // their functions may call libdevice's.
  for (const std::string &path : options.externLibraries)
    if (!linkBitcode(m, path, "extern library " + path, /*requireNVPTX=*/true, error))
      return false;
  if (!options.externLibraries.empty()) {
    for (const Function &f : m) {
      if (f.isDeclaration() && !f.isIntrinsic() && !f.getName().starts_with("__nv_") && !f.use_empty() &&
          !f.getName().starts_with("vprintf") && !f.getName().starts_with("__assertfail") &&
          !f.getName().starts_with("malloc") && !f.getName().starts_with("free")) {
        std::string libs;
        for (const std::string &p : options.externLibraries)
          libs += (libs.empty() ? "" : ", ") + p;
        error = "the kernel calls " + f.getName().str() + ", which no extern library defines (" + libs + ")";
        return false;
      }
    }
  }

  bool linkedLibdevice = callsLibdevice(m);
  if (linkedLibdevice) {
    std::string path = findLibdevice(options.libdevicePath);
    if (path.empty()) {
      error = "the kernel calls libdevice functions but libdevice.10.bc was "
              "not found (set TESSERA_LIBDEVICE or CUDA_HOME)";
      return false;
    }
    if (!linkBitcode(m, path, "libdevice at " + path, /*requireNVPTX=*/false, error))
      return false;
    // A __nv_ function libdevice does not define would only fail later, in ptxas, as an
    // unresolved extern: name it here (an extern_elementwise symbol spelled wrong, say).
    for (const Function &f : m) {
      if (f.isDeclaration() && f.getName().starts_with("__nv_") && !f.use_empty()) {
        error = "the kernel calls " + f.getName().str() +
                ", which libdevice (" + path + ") does not define";
        return false;
      }
    }
  }
  // After linking libraries, keep only the kernels visible so that unused
  // library code goes away.
  if (linkedLibdevice || !options.externLibraries.empty())
    internalizeModule(m, [](const GlobalValue &gv) {
      return !gv.isDeclaration() && gv.hasExternalLinkage() &&
             isa<Function>(gv) &&
             cast<Function>(gv).getCallingConv() == CallingConv::PTX_Kernel;
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
  // SLP vectorization pairs the elementwise math of 16-bit floats into the
  // packed instructions (add.f16x2, fma.rn.bf16x2, ...): the TTGIR lowering
  // computes one element at a time.
  PipelineTuningOptions tuning;
  tuning.SLPVectorization = true;
  PassBuilder pb(tm.get(), tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(m, mam);

  SmallString<0> buffer;
  raw_svector_ostream os(buffer);
  CodegenPassManager codegen(largestFunctionSize(m) > kLargeFunctionInstructions);
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX target cannot emit assembly";
    return false;
  }
  codegen.run(m);
  ptx = fuseWideMultiplyAdds(std::string(buffer.str()));
  return true;
}
