//===- TTGLayoutUtilityTest.cpp - layout helpers of the TTGIR passes -------===//
//
// getBlockedEncoding (how ttg-coalesce spreads lanes and warps),
// transposeBlocked / untransposeBlocked (layouts through tt.trans) checked
// element by element on their LinearLayouts, and conversionBytes (free
// register renumberings cost nothing).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TTG/Transforms/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Tools/LinearLayout.h"


#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tessera;

namespace {

class LayoutUtility : public ::testing::Test {
protected:
  LayoutUtility() {
    ctx.loadDialect<ttg::TTGDialect, tt::TTDialect, arith::ArithDialect>();
  }
  RankedTensorType tensor(ArrayRef<int64_t> shape, Attribute enc, Type elt = {}) {
    return RankedTensorType::get(shape, elt ? elt : Float32Type::get(&ctx), enc);
  }
  MLIRContext ctx;
};

TEST_F(LayoutUtility, BlockedSpreadsLanesThenWarpsAlongTheOrder) {
  // fp16 row of 1024: 8 per thread, 32 lanes, 4 warps along the only dim.
  auto a = getBlockedEncoding(&ctx, {1024}, {8}, {0}, 4, 32);
  EXPECT_EQ(a.getThreadsPerWarp(), ArrayRef<unsigned>({32}));
  EXPECT_EQ(a.getWarpsPerCTA(), ArrayRef<unsigned>({4}));
  // A 64x64 tile read down columns: dim 0 first, 4 per thread along it.
  auto b = getBlockedEncoding(&ctx, {64, 64}, {4, 1}, {0, 1}, 4, 32);
  EXPECT_EQ(b.getThreadsPerWarp(), ArrayRef<unsigned>({16, 2}));
  EXPECT_EQ(b.getWarpsPerCTA(), ArrayRef<unsigned>({1, 4}));
  EXPECT_EQ(b.getOrder(), ArrayRef<unsigned>({0, 1}));
  // Fewer elements than threads: what does not fit goes to the slowest dim
  // (copies), still 32 lanes and 4 warps in all.
  auto c = getBlockedEncoding(&ctx, {4}, {1}, {0}, 4, 32);
  EXPECT_EQ(c.getThreadsPerWarp()[0], 32u);
  EXPECT_EQ(c.getWarpsPerCTA()[0], 4u);
}

TEST_F(LayoutUtility, TransposeMovesEveryElementWithItsThread) {
  auto src = getBlockedEncoding(&ctx, {16, 32, 8}, {1, 4, 2}, {1, 2, 0}, 4, 32);
  SmallVector<int32_t> perm = {2, 0, 1};
  auto dst = transposeBlocked(src, perm);
  EXPECT_EQ(untransposeBlocked(dst, perm), src);
  // Element (i0, i1, i2) of the source is element (i2, i0, i1) of the result:
  // every input bit maps to the permuted coordinates.
  ::tessera::LinearLayout a = toLinearLayout(tensor({16, 32, 8}, src));
  ::tessera::LinearLayout b = toLinearLayout(tensor({8, 16, 32}, dst));
  for (StringRef dim : {"register", "lane", "warp"}) {
    ASSERT_EQ(a.getInDimSizeLog2(dim), b.getInDimSizeLog2(dim)) << dim.str();
    for (int32_t bit = 0; bit < a.getInDimSizeLog2(dim); ++bit) {
      const auto &va = a.getBasis(dim, bit);
      const auto &vb = b.getBasis(dim, bit);
      for (unsigned i = 0; i < perm.size(); ++i)
        EXPECT_EQ(vb[i], va[perm[i]]) << dim.str() << " bit " << bit << " dim " << i;
    }
  }
}

TEST_F(LayoutUtility, ConversionBytes) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto four = getBlockedEncoding(&ctx, {1024}, {4}, {0}, 4, 32);
  auto eight = getBlockedEncoding(&ctx, {1024}, {8}, {0}, 4, 32);
  // The slice of a [1024, 1] layout holding 4 consecutive rows per thread is
  // the same distribution as `four`: a free conversion between two encodings.
  auto parent = getBlockedEncoding(&ctx, {1024, 1}, {4, 1}, {0, 1}, 4, 32);
  auto slice = ttg::SliceEncodingAttr::get(&ctx, 1, parent);
  auto src = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(tensor({1024}, four),
                                                                     b.getF32FloatAttr(0.0f)));
  auto same = ttg::ConvertLayoutOp::create(b, loc, tensor({1024}, slice), src);
  auto moved = ttg::ConvertLayoutOp::create(b, loc, tensor({1024}, eight), src);
  EXPECT_EQ(conversionBytes(same), 0);
  EXPECT_EQ(conversionBytes(moved), 1024 * 4);
  moved->erase();
  same->erase();
  src->erase();
}

} // namespace
