//===- TargetInfo.h - NVIDIA's part of the TTGIR -> LLVM lowering -*- C++ -*-===//

#ifndef TESSERA_NVIDIA_TTGTOLLVM_TARGETINFO_H
#define TESSERA_NVIDIA_TTGTOLLVM_TARGETINFO_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"

#include <memory>
#include <optional>
#include <utility>

namespace mlir::tessera {
class TesseraLLVMTypeConverter;
} // namespace mlir::tessera

namespace tessera::nvidia {

/// An inline PTX statement with side effects (kept in place and in order):
/// `resultType` null for none.
mlir::Value emitInlinePtx(mlir::OpBuilder &b, mlir::Location loc, mlir::Type resultType,
                          mlir::ValueRange operands, llvm::StringRef asmStr,
                          llvm::StringRef constraints);

/// The TargetInfo of compute capability `cc` (e.g. 90).
std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(int cc);

/// d = a * b + c by one mma.sync.m16n8k16 (f32 accumulators) on one warp's
/// fragments: `a` 4 x i32 (8 halves), `b` 2 x i32 (4 halves), `c` 4 x f32,
/// laid out as the nvidia_mma v2 / dot_op layouts say
/// (LinearLayoutConversions.cpp). Returns the 4 f32 of d.
llvm::SmallVector<mlir::Value> emitMma16816(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::ValueRange a, mlir::ValueRange bFrag,
                                            mlir::ValueRange c, bool bf16);

/// Warps (over m, over n) of the nvidia_mma v2 layout for a dot of these
/// operand and accumulator types in a module of `numWarps` warps, or
/// std::nullopt when the types do not fit mma.sync m16n8k16 (f16/bf16
/// operands, f32 accumulator, rank 2, M % 16, N % 8, K % 16).
std::optional<std::pair<unsigned, unsigned>>
getMmaV2Warps(mlir::RankedTensorType a, mlir::RankedTensorType b, mlir::RankedTensorType c,
              int numWarps);

/// tt.dot on mma.sync (sm_80 and later): operands in dot_op layouts of an
/// nvidia_mma v2 accumulator (ttg-accelerate-matmul) as registers, other
/// f16/bf16 dots staged through shared memory.
void populateMmaV2DotPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);

/// The wgmma form of a dot on sm_90 (WgmmaToLLVM.cpp): warps of the
/// #ttg.nvidia_mma version 3 accumulator (wm along M, a multiple of 4; wn
/// along N) and the instruction's N, or std::nullopt when the dot does not
/// fit (f16/bf16, fp8, or f32 operands when `allowTf32`; f32 accumulator;
/// power-of-two M (a multiple of 64), N, K (a multiple of the instruction's
/// K: 16, 32 for fp8, 8 for tf32); num_warps a multiple of 4).
struct WgmmaPlan {
  unsigned wm, wn, instrN;
};
std::optional<WgmmaPlan> getWgmmaPlan(mlir::RankedTensorType a, mlir::RankedTensorType b,
                                      mlir::RankedTensorType c, int numWarps, bool allowTf32);
/// TargetInfo::buildTensorCoreDot on sm_90: operands to #ttg.nvmma_shared
/// buffers, a ttng.warp_group_dot on them; null when the dot does not fit.
mlir::Value buildWgmmaDot(mlir::OpBuilder &b, mlir::Operation *dot, int numWarps);
/// TargetInfo::makeDotAsync / waitForDots for ttng.warp_group_dot.
mlir::Value makeWgmmaAsync(mlir::OpBuilder &b, mlir::Operation *dot, int pending);
mlir::Value waitForWgmma(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int pending);
/// ttng.warp_group_dot (wgmma.mma_async), warp_group_dot_wait and
/// fence_async_shared.
/// The ttng mbarrier and TMA operations (TMAToLLVM.cpp); they report an
/// error below sm_90.
void populateTMAPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                         mlir::RewritePatternSet &patterns);

void populateWgmmaPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                           mlir::RewritePatternSet &patterns);

/// fp32 exp/exp2 on ex2.approx and fp32 division as div.full (Triton's
/// semantics for `tl.exp` and `/`; FastMathToLLVM.cpp).
void populateFastMathPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);

/// Shared scratch of a dot the mma.sync patterns lower; std::nullopt for
/// other ops and for dots they leave to the FMA family.
std::optional<int64_t> getMmaV2ScratchBytes(mlir::Operation *op);

/// Shared scratch of a ttng.tensormap_create (the map is built there);
/// std::nullopt for other ops.
std::optional<int64_t> getTMAScratchBytes(mlir::Operation *op);

} // namespace tessera::nvidia

#endif // TESSERA_NVIDIA_TTGTOLLVM_TARGETINFO_H
