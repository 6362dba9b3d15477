//===- PatternFamilies.h - one populate function per op family --*- C++ -*-===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_PATTERNFAMILIES_H
#define TESSERA_CONVERSION_TTGTOLLVM_PATTERNFAMILIES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include "tessera/Conversion/TTGToLLVM/ExchangeLayout.h"
#include "tessera/Conversion/TTGToLLVM/PatternBase.h"

namespace mlir::tessera {
class ModuleAxisInfo;

/// tt.func/return/call, program ids.
void populateFuncOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                  RewritePatternSet &patterns, int numWarps);
/// arith/math on tensors (per element; with `axisInfo`, once per run of
/// elements AxisInfo proves equal within a thread), tt elementwise ops, math
/// through the device math library.
void populateElementwiseOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                         RewritePatternSet &patterns,
                                         const ModuleAxisInfo *axisInfo = nullptr);
/// make_range, splat, broadcast, expand_dims, reshape, trans, join, split,
/// cat and layout conversions that stay inside each thread.
/// Writes the registers of a tensor of type `t` (converted value `value`) to
/// the shared-memory buffer at `base` whose element offsets `x` gives, `vector`
/// registers per access (MemoryOpToLLVM.cpp; also convert_layout's exchange).
void writeThroughExchange(OpBuilder &b, Location loc, const TesseraLLVMTypeConverter &tc,
                          Value value, RankedTensorType t, Value base, const ExchangeLayout &x,
                          int32_t vector);
/// Reads a tensor of type `t` from that buffer: `vector` registers per access,
/// or 8 x 8 matrix loads (TargetInfoBase::loadMatrices) for the matrix kinds.
Value readThroughExchange(OpBuilder &b, Location loc, const TesseraLLVMTypeConverter &tc,
                          RankedTensorType t, Value base, const ExchangeLayout &x, int32_t vector,
                          ExchangeRead kind);

/// The offsets (in elements) of the coordinates of a shared-memory buffer of
/// `memDescType` (a !ttg.memdesc): the inverse of its shared layout, as an
/// ExchangeLayout (offsetOfBit[d][i]: the offset of coordinate 2^i along dim
/// d). Fails for other types and for layouts that are not a bijection of a
/// power-of-two buffer.
FailureOr<ExchangeLayout> getSharedBufferOffsets(Type memDescType);

/// ttg.local_alloc / local_load / local_store / local_dealloc /
/// memdesc_index and the asynchronous copies (MemoryOpToLLVM.cpp).
void populateMemoryOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                    RewritePatternSet &patterns);
void populateViewOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                  RewritePatternSet &patterns);
/// tt.load / tt.store through pointers (not block pointers); vectorized
/// where `axisInfo` (computed on the module before the conversion) proves it.
/// Marks the loads and stores the target may lower to range-checked offset
/// accesses (TargetInfoBase::supportsOffsetAccess): pointers that are a kernel
/// argument with tt.pointer_range = 32 plus non-negative i32 offsets. Run
/// before the conversion (it reads the functions' argument attributes).
void markOffsetAccesses(ModuleOp module, const TargetInfoBase &targetInfo);

/// Marks the tt.store ops of kernels (public, not noinline functions) that
/// one thread per element may issue: threads that hold a copy of an element
/// another thread stores (lanes and warps a layout repeats data over; every
/// thread but one for a scalar) are predicated off. Such a store is one
/// - after which nothing in the kernel may read global memory (no load,
///   atomic, call or op of unknown effects follows it, in later blocks or in
///   a later iteration of an enclosing loop either), or
/// - of copied elements, that runs at most once (a block of the kernel on no
///   cycle) and that every thread reaches together (no branch on the way
///   chooses by a value that may differ between threads); a barrier follows
///   the last of a run of them (TargetInfoBase::barrierForGlobalMemory),
/// and before which every global write that may run is a marked store of
/// the same type, or a scalar one before a scalar (so that the same thread
/// owns each element in both). Elsewhere every copy is stored, since a
/// thread may read back what it wrote without a barrier. Run before the
/// conversion.
void markOwnerStores(ModuleOp module);

/// Marks the convert_layout ops whose value was loaded from global memory in
/// the same block (directly, or through element-wise ops of that one tensor)
/// in more than 16 bytes a thread, with no barrier right before them: their
/// exchange through shared memory puts a barrier before its stores too, so
/// that ptxas keeps the loads ahead of the stores (it would otherwise reuse
/// the first load's registers for a later load). Run before the conversion.
void markLoadedExchanges(ModuleOp module);

void populateLoadStoreOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                       RewritePatternSet &patterns,
                                       const ModuleAxisInfo *axisInfo = nullptr);

/// tt.reduce: in-thread, across lanes by shuffles, across warps through
/// shared scratch memory (offset from ttg-allocate-shared-memory).
void populateReduceOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                    RewritePatternSet &patterns);

/// Bytes of shared scratch memory `op` needs when lowered (0 if none).
int64_t getScratchBytes(Operation *op);

/// Bytes of shared scratch memory any op needs when lowered for `targetInfo`
/// (null: no target, the target-independent families only): the vendor's
/// answer for an op its own patterns lower, else the sum of the families'
/// answers (at most one is non-zero).
int64_t getSharedScratchBytes(Operation *op, const TargetInfoBase *targetInfo);

/// getSharedScratchBytes for the target of `module` (its ttg.target), as the
/// Allocation analysis's ScratchSizeFn.
std::function<int64_t(Operation *)> getSharedScratchSizeFn(ModuleOp module);

/// Marks an llvm.func whose last argument is its shared-memory base (a
/// noinline function that uses shared memory).
inline constexpr const char *kSharedBaseAttr = "tessera.shared_base";

/// The address of `offset` bytes into the shared memory of the function
/// holding `from`: the kernel's (@global_smem), or the base a noinline
/// function receives.
Value getSharedMemoryAddress(OpBuilder &b, Location loc, Operation *from,
                             const TargetInfoBase &targetInfo, int64_t offset);
/// The address of `offset` bytes into the program's shared memory
/// (@global_smem), from any function of `module` (noinline ones included).
Value getModuleSharedMemoryAddress(OpBuilder &b, Location loc, ModuleOp module,
                                   const TargetInfoBase &targetInfo, int64_t offset);

/// Marks a kernel's llvm.func that takes the global profile buffer: the
/// attribute is the argument's index.
inline constexpr const char *kProfileArgAttr = "tessera.profile_arg";

/// prof.init / prof.store / prof.finalize (intra-kernel profiling).
void populateProfOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                  RewritePatternSet &patterns, int numWarps);

/// Bytes of shared scratch memory a ViewOpToLLVM op needs: convert_layout
/// (0 when it stays in registers), reshape, join, split, cat, gather,
/// histogram.
int64_t getViewOpScratchBytes(Operation *op);

/// tt.dot by fused multiply-adds, operands staged in shared memory.
void populateDotOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                 RewritePatternSet &patterns);
/// Bytes of shared scratch memory a tt.dot needs.
int64_t getDotScratchBytes(Operation *op);

/// tt.scan: in-thread, across lanes by shuffles, across warps through shared
/// scratch memory (offset from ttg-allocate-shared-memory).
void populateScanOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                  RewritePatternSet &patterns);
/// Bytes of shared scratch memory a tt.scan needs (0 when it stays in warps).
int64_t getScanScratchBytes(Operation *op);

/// tt.atomic_rmw / tt.atomic_cas, each element updated exactly once.
void populateAtomicOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                    RewritePatternSet &patterns);
/// Bytes of shared scratch memory an atomic needs to give its old values to
/// copies in other warps (0 when none).
int64_t getAtomicScratchBytes(Operation *op);

/// tt.print (device printf per element) and tt.assert.
void populatePrintAssertOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                         RewritePatternSet &patterns);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_PATTERNFAMILIES_H
