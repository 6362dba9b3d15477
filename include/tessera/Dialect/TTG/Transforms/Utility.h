//===- Utility.h - layout helpers shared by the TTGIR passes ----*- C++ -*-===//

#ifndef TESSERA_DIALECT_TTG_TRANSFORMS_UTILITY_H
#define TESSERA_DIALECT_TTG_TRANSFORMS_UTILITY_H

#include "mlir/IR/BuiltinOps.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

namespace mlir::tessera {

/// `t` with the layout `enc`.
RankedTensorType withEncoding(RankedTensorType t, Attribute enc);

/// A blocked layout of `shape` with `sizePerThread` consecutive elements per
/// thread, lanes and then warps assigned along the dims in `order` (fastest
/// first) as far as each dim has room, the rest along the slowest dim.
ttg::BlockedEncodingAttr getBlockedEncoding(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                            ArrayRef<unsigned> sizePerThread,
                                            ArrayRef<unsigned> order, int numWarps,
                                            int threadsPerWarp);

/// The layout of tt.trans's result with order `perm` (result dim i is source
/// dim perm[i]) when its source has the blocked layout `src`.
ttg::BlockedEncodingAttr transposeBlocked(ttg::BlockedEncodingAttr src, ArrayRef<int32_t> perm);
/// The inverse: the source layout that gives `result` after tt.trans.
ttg::BlockedEncodingAttr untransposeBlocked(ttg::BlockedEncodingAttr result, ArrayRef<int32_t> perm);

/// The shared layout of a buffer holding a tile of `type` (a 2-d tensor in a
/// blocked layout) for tensor-core operand reads: runs of 16 bytes along the
/// blocked order's fastest dim kept whole, the run index of row r XORed with
/// (r / perPhase) % maxPhase so that 8 consecutive rows' runs at the same
/// column fall in 8 different 16-byte groups of the 128 bytes of banks
/// (perPhase = rows per 128 bytes, maxPhase = the distinct phases a row has
/// room for).
ttg::SwizzledSharedEncodingAttr getOperandSharedEncoding(RankedTensorType type);

/// Ops that compute each result element from the operand elements at the same
/// position (arith, math, pointer arithmetic, casts, pure extern calls): they
/// take any layout, the same for all their tensor operands and results.
bool isElementwiseOp(Operation *op);

/// Removes ttg.convert_layout ops whose source can be recomputed cheaply in
/// the destination layout (constants, make_range, splat, expand_dims,
/// broadcast, elementwise ops, chains of converts; single-use loads when
/// `rematerializeLoads`), and converts to the same type. Ops left dead are
/// erased. Never adds a convert.
void rematerializeConversions(ModuleOp module, bool rematerializeLoads);

/// Bytes a convert_layout moves through shared memory: the scratch the
/// allocator reserves for it (getViewOpScratchBytes), 0 when every thread
/// already holds the elements it needs (a renumbering of registers).
int64_t conversionBytes(ttg::ConvertLayoutOp op);

/// Bytes the module's conversions move through shared memory, each counted
/// 16 times per enclosing loop: what ttg-remove-layout-conversions minimizes.
int64_t conversionCost(ModuleOp module);

/// The body of ttg-remove-layout-conversions (Passes.td).
void removeLayoutConversions(ModuleOp module);

/// Software pipelining (ttg-pipeline, and a vendor's own copy pipelines such
/// as ttng-tma-lowering's): whether iteration `iv + ahead * step` of a loop
/// with upper bound `ub` exists (an i1), computed in 64 bits so that stepping
/// past the end cannot wrap around.
Value inRangeAhead(OpBuilder &b, Location loc, Value iv, Value step, Value ub, int64_t ahead);

} // namespace mlir::tessera

#endif // TESSERA_DIALECT_TTG_TRANSFORMS_UTILITY_H
