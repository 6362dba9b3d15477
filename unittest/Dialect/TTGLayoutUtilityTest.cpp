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

#include <set>

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

/// The operand buffers of ttg-pipeline (getOperandSharedEncoding), for 1-, 2-
/// and 4-byte elements (fp8, fp16/bf16, tf32/fp32 operands): every element
/// has one offset; each 16-byte run along the fastest dim is whole and
/// aligned; and the runs at one column of any 8 consecutive rows fall in 8
/// different 16-byte groups of a 128-byte row of banks, so 8 lanes reading
/// them (an ldmatrix phase, or 16-byte vector reads) have no bank conflict.
TEST_F(LayoutUtility, OperandBuffersSpreadRowsOverTheBanks) {
  struct Case {
    SmallVector<int64_t> shape;
    unsigned bits;
    SmallVector<unsigned> order;
  };
  std::vector<Case> cases = {
      {{64, 32}, 16, {1, 0}},  {{32, 64}, 16, {1, 0}}, {{32, 128}, 16, {1, 0}},
      {{64, 16}, 16, {1, 0}},  {{128, 16}, 32, {1, 0}}, {{64, 64}, 32, {1, 0}},
      {{64, 64}, 8, {1, 0}},   {{32, 128}, 8, {1, 0}},  {{16, 128}, 16, {0, 1}},
      {{128, 32}, 16, {0, 1}}, {{32, 32}, 32, {0, 1}},
  };
  for (const Case &c : cases) {
    Type elt = c.bits == 8 ? Type(IntegerType::get(&ctx, 8))
                           : c.bits == 16 ? Type(Float16Type::get(&ctx)) : Type(Float32Type::get(&ctx));
    auto blocked = getBlockedEncoding(&ctx, c.shape, {1, 1}, c.order, 4, 32);
    auto type = RankedTensorType::get(c.shape, elt, blocked);
    auto enc = getOperandSharedEncoding(type);
    std::optional<::tessera::LinearLayout> ll = toSharedLinearLayout(c.shape, enc);
    ASSERT_TRUE(ll.has_value());
    int64_t bytes = c.bits / 8, n = c.shape[0] * c.shape[1];
    unsigned fast = c.order[0], slow = c.order[1];
    int64_t rows = c.shape[slow], inner = c.shape[fast];
    // offset of (row, col) along (slow, fast), by inverting the layout
    std::vector<int64_t> offset(n, -1);
    for (int32_t o = 0; o < n; ++o) {
      auto coords = ll->apply({{"offset", o}});
      int64_t row = coords[slow].second, col = coords[fast].second;
      ASSERT_EQ(offset[row * inner + col], -1) << "two offsets for one element";
      offset[row * inner + col] = o;
    }
    int64_t vec = enc.getVec();
    EXPECT_EQ(vec * bytes, std::min<int64_t>(16, inner * bytes));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t col = 0; col < inner; col += vec) {
        int64_t base = offset[r * inner + col];
        EXPECT_EQ(base % vec, 0);
        for (int64_t i = 1; i < vec; ++i)
          EXPECT_EQ(offset[r * inner + col + i], base + i);
      }
    if (inner * bytes < 16)
      continue;
    for (int64_t r0 = 0; r0 + 8 <= rows; r0 += 8)
      for (int64_t col = 0; col < inner; col += vec) {
        std::set<int64_t> slots;
        for (int64_t r = r0; r < r0 + 8; ++r)
          slots.insert((offset[r * inner + col] * bytes / 16) % 8);
        EXPECT_EQ(slots.size(), 8u) << c.shape[0] << "x" << c.shape[1] << " " << c.bits
                                    << "-bit, rows " << r0 << "+8, column " << col;
      }
  }
}

} // namespace
