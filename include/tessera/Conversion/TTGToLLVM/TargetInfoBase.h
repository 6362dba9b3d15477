//===- TargetInfoBase.h - what lowering asks of a GPU vendor ----*- C++ -*-===//
//
// Target-independent lowering (lib/Conversion/TTGToLLVM) never names a vendor:
// everything that differs between GPU vendors goes through this interface,
// implemented in third_party/<vendor> and created by that vendor's Backend.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H
#define TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
} // namespace mlir

namespace mlir::tessera {

class TesseraLLVMTypeConverter;

/// What an atomic read-modify-write does (integer ops act on the bits as
/// signed (Max, Min) or unsigned (UMax, UMin) integers; FAdd, and Max/Min on
/// floating-point values, compare and add as floats).
enum class AtomicRMWKind { Add, FAdd, Max, Min, UMax, UMin, And, Or, Xor, Exch };
/// Memory ordering and scope of an atomic.
enum class AtomicOrder { Relaxed, Acquire, Release, AcquireRelease };
enum class AtomicScope { CTA, GPU, System };

/// Cache hints of a global load or store: the tt op's cache modifier and
/// eviction policy. They never change what is read or written.
enum class CacheOp { None, CA, CG, CS, CV, WB, WT };
enum class EvictHint { Normal, First, Last };
struct MemoryHints {
  CacheOp cache = CacheOp::None;
  EvictHint evict = EvictHint::Normal;
  bool isDefault() const {
    return cache == CacheOp::None && evict == EvictHint::Normal;
  }
};

class TargetInfoBase {
public:
  virtual ~TargetInfoBase() = default;

  /// Threads per warp.
  virtual int getWarpSize() const = 0;
  /// The LLVM address space of global and of shared memory.
  virtual unsigned getGlobalAddressSpace() const = 0;
  virtual unsigned getSharedAddressSpace() const = 0;
  /// The address space of a thread's private memory (allocas).
  virtual unsigned getPrivateAddressSpace() const { return 0; }

  /// i32 values of the program id / the number of programs along `axis`.
  virtual Value programId(OpBuilder &b, Location loc, int axis) const = 0;
  virtual Value numPrograms(OpBuilder &b, Location loc, int axis) const = 0;
  /// i32 thread index within the block (x dimension only: Tessera launches
  /// 1-D blocks).
  virtual Value threadId(OpBuilder &b, Location loc) const = 0;

  /// Loads `type` (an integer of 8, 16, 32 or 64 bits) from `ptr` where
  /// `pred` (i1) holds; `other` (same type) where it does not. No memory is
  /// touched for a false predicate. `hints` are passed on to the hardware
  /// where it has them (a volatile load ignores them).
  virtual Value loadPredicated(OpBuilder &b, Location loc, Value ptr,
                               Type type, Value pred, Value other,
                               bool isVolatile,
                               MemoryHints hints = {}) const = 0;
  /// Stores `value` (an integer of 8, 16, 32 or 64 bits) to `ptr` where
  /// `pred` holds.
  virtual void storePredicated(OpBuilder &b, Location loc, Value ptr,
                               Value value, Value pred,
                               MemoryHints hints = {}) const = 0;

  /// A vector access: `ptrs` are the addresses of `ptrs.size()` consecutive
  /// elements (a power of two), the first aligned to the whole vector's size
  /// (at most 16 bytes); `type` is their integer type. One predicate covers
  /// all of them. The default issues one predicated access per element; a
  /// target with vector instructions overrides these.
  virtual SmallVector<Value> loadPredicatedVector(OpBuilder &b, Location loc,
                                                  ArrayRef<Value> ptrs, Type type,
                                                  Value pred, ArrayRef<Value> others,
                                                  MemoryHints hints = {}) const {
    SmallVector<Value> out;
    for (auto [ptr, other] : llvm::zip(ptrs, others))
      out.push_back(loadPredicated(b, loc, ptr, type, pred, other, /*isVolatile=*/false, hints));
    return out;
  }
  virtual void storePredicatedVector(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                                     ArrayRef<Value> values, Value pred,
                                     MemoryHints hints = {}) const {
    for (auto [ptr, value] : llvm::zip(ptrs, values))
      storePredicated(b, loc, ptr, value, pred, hints);
  }

  /// Whether offsetLoad/offsetStore are available: accesses through a base
  /// pointer (a kernel argument whose tensor spans less than 2 GiB:
  /// `tt.pointer_range = 32`) and a non-negative 32-bit byte offset, where the
  /// hardware checks the range and reads zero (drops writes) outside it
  /// (AMD's buffer instructions). The lowering uses them for loads and stores
  /// whose pointers are such a base plus non-negative i32 offsets.
  virtual bool supportsOffsetAccess() const { return false; }
  /// `n` consecutive elements of integer `type` at `base` + `byteOffset` (i32)
  /// where `pred` holds, `others` where it does not.
  virtual SmallVector<Value> offsetLoad(OpBuilder &b, Location loc, Value base, Value byteOffset,
                                        Type type, unsigned n, Value pred,
                                        ArrayRef<Value> others) const {
    return {};
  }
  /// Stores `values` (consecutive, integers of one type) at `base` +
  /// `byteOffset` where `pred` holds.
  virtual void offsetStore(OpBuilder &b, Location loc, Value base, Value byteOffset,
                           ArrayRef<Value> values, Value pred) const {}

  /// The reduction of the i32 `value` over all lanes of the warp, in every
  /// lane, in one instruction (`kind`: Add, Max, Min, UMax, UMin, And, Or,
  /// Xor of AtomicRMWKind); null where the target has none (then butterflies
  /// of shuffleXor reduce).
  virtual Value warpReduceAll(OpBuilder &b, Location loc, Value value,
                              AtomicRMWKind kind) const {
    return {};
  }
  /// The value of `value` (i32 or f32-sized) held by lane `lane ^ mask`.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value value,
                           int mask) const = 0;
  /// The value held by lane `lane - delta` (own value for lanes < delta).
  virtual Value shuffleUp(OpBuilder &b, Location loc, Value value,
                          int delta) const = 0;
  /// The value held by lane `srcLane` (an i32 value).
  virtual Value shuffleIdx(OpBuilder &b, Location loc, Value value,
                           Value srcLane) const = 0;
  /// Stores `value` (integer or float of 8..64 bits, or a vector of two or
  /// four 32-bit integers) to the shared-memory address `ptr` (aligned to the
  /// value's size) where `pred` (i1) holds.
  virtual void storeSharedPredicated(OpBuilder &b, Location loc, Value ptr,
                                     Value value, Value pred) const = 0;

  /// Loads a `type` (integer, float or pointer of 8..64 bits) from the
  /// shared-memory address `ptr` (aligned to its size) where `pred` (i1)
  /// holds; `other` (same type) where it does not, and then no memory is
  /// touched. The default is a one-element masked load (`llvm.masked.load`);
  /// a target with predicated instructions overrides it.
  virtual Value loadSharedPredicated(OpBuilder &b, Location loc, Value ptr, Type type,
                                     Value pred, Value other) const;

  /// Whether atomicRMW can apply `kind` to elements of `type`.
  virtual bool supportsAtomicRMW(AtomicRMWKind kind, Type type) const = 0;
  /// Atomically applies `kind` with `value` to the global memory at `ptr`
  /// where `pred` (i1) holds and returns the old value (of value's type;
  /// zero where `pred` does not hold, and then no memory is touched).
  virtual Value atomicRMW(OpBuilder &b, Location loc, AtomicRMWKind kind,
                          Value ptr, Value value, Value pred,
                          AtomicOrder order, AtomicScope scope) const = 0;
  /// Whether atomicRMW and atomicCAS honour their predicate themselves (NVIDIA:
  /// a predicated instruction). When not, the lowering branches around them
  /// and calls them with a true predicate (zero is the old value where the
  /// predicate does not hold).
  virtual bool predicatesAtomics() const { return true; }
  /// Whether atomicCAS can compare-and-swap elements of `type`.
  virtual bool supportsAtomicCAS(Type type) const = 0;
  /// Atomically: old = *ptr; if (old == cmp) *ptr = value; returns old (zero
  /// where `pred` does not hold). Compares bits (floats are not compared as
  /// floats).
  virtual Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp,
                          Value value, Value pred, AtomicOrder order,
                          AtomicScope scope) const = 0;

  /// A barrier of all threads of the block (and shared-memory fence).
  virtual void barrier(OpBuilder &b, Location loc) const = 0;
  /// A barrier of all threads of the block after which every thread sees
  /// the global-memory writes that any of them made before it (ordinary
  /// loads and stores; not the target's asynchronous units, such as TMA,
  /// which need their own fences). The default puts a workgroup-scope
  /// release fence before barrier() and an acquire fence after it; a target
  /// whose barrier orders global memory by itself (NVIDIA's bar.sync, AMD's
  /// rocdl.barrier) overrides this with barrier().
  virtual void barrierForGlobalMemory(OpBuilder &b, Location loc) const;

  /// Whether copyAsync and its group operations are available: copies from
  /// global to shared memory that complete in the background.
  virtual bool supportsAsyncCopy() const { return false; }
  /// Starts copying `bytes` (4, 8 or 16) from global `src` to shared `dst`;
  /// where `pred` (i1) is false the destination gets zeros and nothing is read.
  virtual void copyAsync(OpBuilder &b, Location loc, Value dst, Value src, int bytes,
                         Value pred) const {}
  /// Closes the group of copies started since the last one.
  virtual void commitAsyncCopies(OpBuilder &b, Location loc) const {}
  /// Waits until at most `pending` committed groups of this thread's copies are
  /// still in flight.
  virtual void waitAsyncCopies(OpBuilder &b, Location loc, int pending) const {}

  /// Orders the thread's shared-memory stores just made into a buffer of
  /// shared layout `encoding` before the target's asynchronous units read it
  /// (NVIDIA: wgmma reads #ttg.nvmma_shared buffers through the async proxy,
  /// which needs fence.proxy.async after generic stores). Called after the
  /// stores of ttg.local_alloc and ttg.local_store; the barrier that orders
  /// the other threads comes from Membar.
  virtual void fenceStoresForAsyncReaders(OpBuilder &b, Location loc, Attribute encoding) const {}

  /// Whether loadMatrices is available: a warp-wide load of four 8 x 8
  /// matrices of 16-bit elements from shared memory (NVIDIA's ldmatrix).
  virtual bool supportsLoadMatrices() const { return false; }
  /// Each lane l gives `rowAddr` (a shared-memory pointer), the 16-byte row
  /// l % 8 of matrix l / 8; lane t gets, from matrix i, result i: the 32 bits
  /// of row t / 4, elements 2 * (t % 4) and 2 * (t % 4) + 1 (with `trans`,
  /// the matrices are transposed first: rows 2 * (t % 4) and + 1 of column
  /// t / 4). Four i32 values.
  virtual SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value rowAddr,
                                          bool trans) const {
    return {};
  }

  /// The name of the device math library function for `mathOp` (e.g.
  /// "exp") on `type` (f32/f64), or "" if it has none.
  virtual std::string mathLibraryFunction(StringRef op, Type type) const = 0;

  /// An 8-bit float (`fp8Type`, held as i8) from an f16 or f32 value,
  /// rounded to nearest even and saturated to the finite range (NaN stays
  /// NaN). Returns null when the target cannot convert to `fp8Type`.
  virtual Value truncToFp8(OpBuilder &b, Location loc, Value value,
                           Type fp8Type) const = 0;
  /// The f16 value of an 8-bit float (`fp8Type`, held as i8); exact.
  /// Returns null when the target cannot convert from `fp8Type`.
  virtual Value extFromFp8(OpBuilder &b, Location loc, Value value,
                           Type fp8Type) const = 0;

  /// What this target lacks to convert `fp8Type`, for error messages (e.g.
  /// "needs <a newer architecture>"); "" when it converts that format.
  virtual std::string getFp8Requirement(Type fp8Type) const { return ""; }

  /// `value` (f32 or f64) narrowed to the float type `dstType` rounding
  /// toward zero (finite values beyond the range become the largest finite
  /// value; NaN stays NaN). The default rounds to nearest and steps one unit
  /// back toward zero where that rounded away from zero; targets with a
  /// round-toward-zero conversion override it.
  virtual Value truncTowardZero(OpBuilder &b, Location loc, Value value, Type dstType) const;

  /// Device printf of a format string with the given arguments.
  virtual void printf(OpBuilder &b, Location loc, StringRef format,
                      ValueRange args) const = 0;
  /// Abort the kernel with a message (file, line, function for context).
  virtual void assertFail(OpBuilder &b, Location loc, StringRef message,
                          StringRef file, StringRef func, int line) const = 0;

  /// Counters for profiling (tessera.profiler): the low 32 bits of the
  /// core's cycle counter, the global timer in ns (64 bits) and the index of
  /// the multiprocessor running the program. Null where the target has none
  /// (profiling scopes are then an error).
  virtual Value cycleCounter(OpBuilder &b, Location loc) const { return {}; }
  virtual Value globalTimer(OpBuilder &b, Location loc) const { return {}; }
  virtual Value processorId(OpBuilder &b, Location loc) const { return {}; }

  /// Whether the kernel's shared memory is a global of the size the module
  /// needs (`ttg.shared`: recorded in the code object, as AMD's LDS) rather
  /// than an unsized one the launcher sizes (NVIDIA's dynamic shared memory).
  virtual bool staticSharedMemory() const { return false; }

  /// Marks `func` as a kernel launched with `numThreads` threads per block.
  virtual void markAsKernel(Operation *func, int numThreads) const = 0;
  /// The size in bytes of the target's tensor-descriptor object (NVIDIA: the
  /// 128-byte CUtensorMap), which a kernel taking a `!tt.tensordesc`
  /// argument receives by value; 0 when the target has no hardware
  /// descriptors (such kernels are then rejected).
  virtual int getDescriptorBytes() const { return 0; }
  /// Marks kernel argument `index`, a by-value descriptor, as the target
  /// needs (NVIDIA: a __grid_constant__ parameter, read in place).
  virtual void markDescriptorArgument(Operation *func, unsigned index) const {}

  //===--------------------------------------------------------------------===//
  // Tensor cores: the vendor's own layouts and pattern family
  //===--------------------------------------------------------------------===//

  /// The layouts a tensor-core lowering of `dot` (a tt.dot) takes in a module
  /// of `numWarps` warps: the accumulator's layout, and the kWidth of the
  /// #ttg.dot_op operand layouts whose parent it is.
  struct TensorCoreLayouts {
    Attribute accumulator;
    unsigned kWidth = 0;
  };
  /// std::nullopt when the dot stays on FMA units (ttg-accelerate-matmul).
  virtual std::optional<TensorCoreLayouts> getTensorCoreLayouts(Operation *dot,
                                                                int numWarps) const {
    return std::nullopt;
  }
  /// A tensor-core form of `dot` (a tt.dot) whose operands are not dot_op
  /// layouts in registers (NVIDIA's wgmma reads them from shared memory):
  /// builds the vendor's ops before `dot` and returns the new result, in the
  /// accumulator layout; null when the target has no such form for this dot
  /// (then getTensorCoreLayouts is asked). `dot` itself is left in place.
  virtual Value buildTensorCoreDot(OpBuilder &b, Operation *dot, int numWarps) const {
    return {};
  }
  /// Lets `dot` (an op buildTensorCoreDot made) run in the background: marks
  /// it so and, for `pending` >= 0, adds right after it a wait that leaves at
  /// most `pending` such dots of the thread in flight. Returns the value that
  /// stands for the dot's result after that wait (the result itself for
  /// `pending` < 0: whoever uses it then waits with waitForDots), or null
  /// when the dot cannot run asynchronously (nothing is changed then).
  virtual Value makeDotAsync(OpBuilder &b, Operation *dot, int pending) const { return {}; }
  /// A wait until at most `pending` of the thread's asynchronous dots are in
  /// flight; returns `value` (an asynchronous dot's result) as seen after it.
  virtual Value waitForDots(OpBuilder &b, Location loc, Value value, int pending = 0) const {
    return value;
  }
  /// Adds the vendor's own lowering patterns (e.g. dots on tensor cores);
  /// they are tried before the target-independent families, which lower
  /// whatever they do not take.
  virtual void populateVendorPatterns(TesseraLLVMTypeConverter &typeConverter,
                                      RewritePatternSet &patterns) const {}
  /// Marks the vendor's own TTGIR ops (its dialects) illegal in the
  /// conversion to LLVM, so that its patterns must lower them.
  virtual void addIllegalVendorOps(ConversionTarget &target) const {}
  /// Bytes of shared scratch memory `op` needs when a vendor pattern lowers
  /// it; std::nullopt when the target-independent family does.
  virtual std::optional<int64_t> getVendorScratchBytes(Operation *op) const {
    return std::nullopt;
  }
};

/// Creates the target info for a "ttg.target" string "<backend>:<arch>" from
/// the backend registered under that name (tessera/Target/Backend.h); nullptr
/// when the target is unknown.
std::unique_ptr<TargetInfoBase> createTargetInfo(StringRef target);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_TARGETINFOBASE_H
