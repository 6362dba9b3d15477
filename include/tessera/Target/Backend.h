//===- Backend.h - what a GPU vendor contributes to the core ----*- C++ -*-===//
//
// The compiler core never names a vendor. Each vendor folder
// (third_party/<vendor>) implements one Backend and registers it from
// registerAllBackends() (third_party/RegisterBackends.cpp, the one list of the
// backends a build contains). A target is the string "<backend>:<arch>" (the
// module attribute ttg.target); everything target-specific is reached through
// the backend registered under that name:
//   - the TargetInfo the TTGIR -> LLVM lowering asks (shuffles, barriers,
//     memory access, tensor cores: TargetInfoBase.h),
//   - its dialects and their translations to LLVM IR,
//   - LLVM IR -> its artifacts (target assembly …) in compile().
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_BACKEND_H
#define TESSERA_TARGET_BACKEND_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
namespace tessera {
class TargetInfoBase;
} // namespace tessera
} // namespace mlir

namespace tessera {

/// Backend options by name (e.g. "enable-fp-fusion" -> "1"), as the compile
/// API passes them through; each backend documents and checks its own.
using BackendOptions = std::map<std::string, std::string>;

/// What a kernel's pass pipelines depend on (tessera.compile's options and
/// the environment switches of the Python backends).
struct KernelOptions {
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  bool coalesce = true;     // ttg-version-nonnegative, ttg-coalesce, ttg-remove-layout-conversions
  bool pipeline = true;     // ttg-pipeline where the target has async copies
  bool vectorize = true;    // vector global accesses in convert-ttg-to-llvm
  bool tmaAllCopies = false; // every descriptor copy TMA may do takes TMA
  bool profileScopes = false; // profiling records: metric and buffer below
  std::string profileMetric = "cycle";
  int64_t profileBufferBytes = 0;
};

/// Named pass pipelines, in order ("ttgir", "llvm").
using StageList = std::vector<std::pair<std::string, std::string>>;

/// Pieces the backends' pipelines share.
std::string memoryLayoutPasses(const KernelOptions &options);
std::string epiloguePasses(const KernelOptions &options);
/// TTGIR -> LLVM dialect: shared memory, barriers, global scratch, profiling
/// records in what is left of `maxShared` bytes, the lowering.
std::string llvmPipeline(const KernelOptions &options, int64_t maxShared);

class Backend {
public:
  virtual ~Backend();

  /// The target prefix: the part of "<backend>:<arch>" before the colon.
  virtual llvm::StringRef getName() const = 0;

  /// Whether `arch` names an architecture of this backend; when not, `why`
  /// says what was expected.
  virtual bool verifyArch(llvm::StringRef arch, std::string &why) const = 0;

  /// The dialects the backend's IR uses (its own, the LLVM dialect's vendor
  /// intrinsics) and their translations to LLVM IR.
  virtual void registerDialects(mlir::DialectRegistry &registry) const = 0;

  /// Passes of the backend's own that tessera-opt offers (none by default).
  virtual void registerPasses() const {}

  /// What the TTGIR -> LLVM lowering asks of `arch` (verified first).
  virtual std::unique_ptr<mlir::tessera::TargetInfoBase>
  createTargetInfo(llvm::StringRef arch) const = 0;

  /// The LLVM data layout of `arch` ("" to keep LLVM's default): set on the
  /// LLVM dialect module before translation, so that memory accesses get
  /// the target's ABI alignments.
  virtual std::string getDataLayout(llvm::StringRef arch) const { return ""; }

  /// The pass pipelines from TTIR to the LLVM dialect module for `arch`
  /// (verified first): the stages compile() runs for a kernel. By default the
  /// target-neutral ones (warps of 32 threads, 48 KiB of shared memory).
  virtual StageList kernelStages(llvm::StringRef arch, const KernelOptions &options) const;

  /// The artifacts compile() produces from LLVM IR, in order (e.g. target
  /// assembly). The stages after them (an assembler, a linker run outside the
  /// core) belong to the backend's Python glue.
  virtual std::vector<std::string> getArtifactNames() const = 0;

  /// Compiles `module` (LLVM IR, already holding the target's triple and
  /// data layout or not) for `arch`, storing each artifact under its name.
  /// Returns false with `error` set on failure (an unknown option included).
  virtual bool compile(llvm::Module &module, llvm::StringRef arch,
                       const BackendOptions &options,
                       std::map<std::string, std::string> &artifacts,
                       std::string &error) const = 0;
};

/// Adds `backend` under its name (replacing one of the same name).
void registerBackend(std::unique_ptr<Backend> backend);

/// The backend registered as `name` (the target prefix), or nullptr.
/// The first lookup registers the build's backends (registerAllBackends).
const Backend *lookupBackend(llvm::StringRef name);

/// Splits "<backend>:<arch>" and looks the backend up; nullptr with `why` set
/// when the string is malformed, the backend unknown, or the arch rejected.
const Backend *lookupTarget(llvm::StringRef target, llvm::StringRef &arch,
                            std::string &why);

/// The names of the registered backends, sorted.
std::vector<std::string> getRegisteredBackendNames();

/// Adds the dialects of every registered backend to `registry` (a pass that
/// builds vendor ops through a backend's TargetInfo declares them as its
/// dependent dialects this way).
void registerAllBackendDialects(mlir::DialectRegistry &registry);

/// Registers every backend this build contains. Defined by the vendor folders
/// (third_party/RegisterBackends.cpp); idempotent.
void registerAllBackends();

} // namespace tessera

#endif // TESSERA_TARGET_BACKEND_H
