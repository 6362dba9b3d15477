//===- ExchangeLayoutTest.cpp - shared-memory buffers of layout conversions -===//
//
// chooseExchangeLayout: every buffer is a permutation of [0, numel); the
// widths and wavefronts it reports are checked against a direct simulation
// of the banks (one warp, every access instruction, every lane's address),
// which does not use the GF(2) ranks of the cost model; and for the
// conversions that matter (transposes of fp32/fp16 tiles, changes of lane
// arrangement along the same dim) the buffer is conflict-free on both sides.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/ExchangeLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/Tools/RegisterAll.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

class ExchangeLayoutTest : public ::testing::Test {
protected:
  ExchangeLayoutTest() {
    // The registered backends add their layouts (#ttg.nvidia_mma) to ttg.
    DialectRegistry registry;
    ::tessera::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<ttg::TTGDialect, tt::TTDialect>();
  }
  LinearLayout dotOperand(unsigned opIdx, ArrayRef<int64_t> shape, unsigned wm, unsigned wn) {
    auto mma = ttg::NvidiaMmaEncodingAttr::get(&ctx, 2, 0, {wm, wn},
                                               ttg::CTALayoutAttr::getDefault(&ctx, 2), {16, 8});
    auto enc = ttg::DotOperandEncodingAttr::get(&ctx, opIdx, mma, 2);
    return toLinearLayout(RankedTensorType::get(shape, Float16Type::get(&ctx), enc));
  }
  LinearLayout blocked(ArrayRef<int64_t> shape, ArrayRef<unsigned> spt, ArrayRef<unsigned> order,
                       int warps = 4) {
    auto enc = getBlockedEncoding(&ctx, shape, spt, order, warps, 32);
    return toLinearLayout(RankedTensorType::get(shape, Float32Type::get(&ctx), enc));
  }
  MLIRContext ctx;
};

/// Coordinates of register r, lane l, warp w.
SmallVector<int32_t> coordsOf(const LinearLayout &ll, int32_t r, int32_t l, int32_t w) {
  SmallVector<LinearLayout::DimValue> ins;
  for (const std::string &d : ll.getInDimNames())
    ins.push_back({d, d == "register" ? r : d == "lane" ? l : d == "warp" ? w : 0});
  SmallVector<int32_t> out;
  for (auto &[name, v] : ll.apply(ins))
    out.push_back(v);
  return out;
}

/// Wavefronts one warp (warp 0) needs, simulated: for each instruction and
/// each group of lanes the banks serve together, the largest number of
/// distinct bank-words (or wider units) any bank slot is asked for.
int64_t simulate(const ExchangeLayout &x, const LinearLayout &ll, int32_t vector, int64_t bytes) {
  int32_t regs = ll.getInDimSize("register"), lanes = ll.getInDimSize("lane");
  int64_t unit = std::max<int64_t>(vector * bytes, 4);
  int32_t perPhase = std::min<int64_t>(lanes, 128 / unit);
  int64_t total = 0;
  for (int32_t r = 0; r < regs; r += vector)
    for (int32_t p0 = 0; p0 < lanes; p0 += perPhase) {
      std::map<int64_t, std::set<int64_t>> slotUnits;
      for (int32_t l = p0; l < p0 + perPhase; ++l) {
        int64_t byteOff = int64_t(x.offsetOf(coordsOf(ll, r, l, 0))) * bytes;
        int64_t u = byteOff / unit;
        slotUnits[u % (128 / unit)].insert(u);
      }
      size_t worst = 0;
      for (auto &[slot, units] : slotUnits)
        worst = std::max(worst, units.size());
      total += worst;
    }
  return total;
}

void expectPermutation(const ExchangeLayout &x, ArrayRef<int64_t> shape) {
  std::set<int32_t> seen;
  SmallVector<int32_t> c(shape.size(), 0);
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  ASSERT_EQ(x.elements, n);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat;
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      c[d] = int32_t(rest % shape[d]);
      rest /= shape[d];
    }
    int32_t off = x.offsetOf(c);
    EXPECT_GE(off, 0);
    EXPECT_LT(off, n);
    EXPECT_TRUE(seen.insert(off).second) << "two elements at offset " << off;
  }
}

/// Vectors really are consecutive and aligned: register group g of any
/// thread starts at a multiple of the width and holds consecutive offsets.
void expectVectors(const ExchangeLayout &x, const LinearLayout &ll, int32_t v) {
  for (int32_t w = 0; w < ll.getInDimSize("warp"); ++w)
    for (int32_t l = 0; l < ll.getInDimSize("lane"); ++l)
      for (int32_t r = 0; r < ll.getInDimSize("register"); r += v) {
        int32_t base = x.offsetOf(coordsOf(ll, r, l, w));
        EXPECT_EQ(base % v, 0);
        for (int32_t i = 1; i < v; ++i)
          EXPECT_EQ(x.offsetOf(coordsOf(ll, r + i, l, w)), base + i);
      }
}

void checkAll(const ExchangeLayout &x, const LinearLayout &src, const LinearLayout &dst,
              ArrayRef<int64_t> shape, int64_t bytes) {
  expectPermutation(x, shape);
  expectVectors(x, src, x.writeVector);
  expectVectors(x, dst, x.readVector);
  EXPECT_EQ(simulate(x, src, x.writeVector, bytes), x.writeWavefronts);
  EXPECT_EQ(simulate(x, dst, x.readVector, bytes), x.readWavefronts);
}

TEST_F(ExchangeLayoutTest, Fp32TransposeIsConflictFreeBothWays) {
  // Rows read 4-wide, columns written 4-wide: the two vectors cross, so one
  // side goes scalar; every instruction is then one wavefront.
  LinearLayout rows = blocked({64, 64}, {1, 4}, {1, 0});
  LinearLayout cols = blocked({64, 64}, {4, 1}, {0, 1});
  ExchangeLayout x = chooseExchangeLayout(rows, cols, 4);
  checkAll(x, rows, cols, {64, 64}, 4);
  // 32 registers per thread: ideal is 32 wavefronts per side.
  EXPECT_EQ(x.writeWavefronts + x.readWavefronts, 64);
}

TEST_F(ExchangeLayoutTest, Fp16TransposeIsConflictFreeBothWays) {
  LinearLayout rows = blocked({64, 64}, {1, 8}, {1, 0});
  LinearLayout cols = blocked({64, 64}, {8, 1}, {0, 1});
  ExchangeLayout x = chooseExchangeLayout(rows, cols, 2);
  checkAll(x, rows, cols, {64, 64}, 2);
  // 4096 fp16 = 8 KiB per CTA, 2 KiB per warp: 16 wavefronts of 128 bytes
  // per side at best.
  EXPECT_LE(x.writeWavefronts + x.readWavefronts, 48);
  EXPECT_GE(x.writeWavefronts + x.readWavefronts, 32);
}

TEST_F(ExchangeLayoutTest, SameDimKeepsVectorsOnBothSides) {
  // Along the same dim, 4-wide both ways, lanes arranged differently.
  LinearLayout a = blocked({32, 128}, {1, 4}, {1, 0});
  LinearLayout b = blocked({32, 128}, {4, 4}, {1, 0});
  ExchangeLayout x = chooseExchangeLayout(a, b, 4);
  checkAll(x, a, b, {32, 128}, 4);
  EXPECT_EQ(x.writeVector, 4);
  EXPECT_EQ(x.readVector, 4);
  // 32 registers per thread, 4 per access, 4 wavefronts per access.
  EXPECT_EQ(x.writeWavefronts, 32);
  EXPECT_EQ(x.readWavefronts, 32);
}

TEST_F(ExchangeLayoutTest, NarrowRowsAndThreeDims) {
  // Rows of 8 with lanes wrapping to the next row, against a column-major
  // tile; and a 3-d permutation. Only the invariants and the model's
  // agreement with the simulation are asserted.
  LinearLayout a = blocked({128, 8}, {1, 1}, {1, 0});
  LinearLayout b = blocked({128, 8}, {2, 1}, {0, 1});
  ExchangeLayout x = chooseExchangeLayout(a, b, 4);
  checkAll(x, a, b, {128, 8}, 4);
  LinearLayout c = blocked({8, 16, 4}, {1, 2, 1}, {1, 2, 0}, 2);
  LinearLayout d = blocked({8, 16, 4}, {2, 1, 1}, {0, 2, 1}, 2);
  ExchangeLayout y = chooseExchangeLayout(c, d, 8);
  checkAll(y, c, d, {8, 16, 4}, 8);
  ExchangeLayout z = chooseExchangeLayout(d, c, 1);
  checkAll(z, d, c, {8, 16, 4}, 1);
}

/// ldmatrix as PTX describes it, on the buffer: lane l names the row l % 8 of
/// matrix l / 8 (the address the lowering gives it: the element of register
/// group g, row l % 8, matrix l / 8, at the start of its row); thread t then
/// holds, from matrix i, the two elements of row t / 4 at columns 2 (t % 4)
/// and + 1 (transposed: rows 2 (t % 4) and + 1 of column t / 4). Checks that
/// these are the offsets of the elements the layout puts in registers
/// g + 2i and g + 2i + 1 of thread t.
void expectMatrixLoadsMatchLayout(const ExchangeLayout &x, const LinearLayout &ll) {
  bool trans = x.read == ExchangeRead::TransposedMatrices;
  auto basis = [&](StringRef dim, int bit) { return x.offsetOf(ll.getBasis(dim, bit)); };
  int32_t regs = ll.getInDimSize("register");
  for (int32_t w = 0; w < ll.getInDimSize("warp"); ++w)
    for (int32_t g = 0; g < regs; g += 8) {
      // Row starts given by each lane (independently of the lowering: from
      // the coordinates of the element at register g of the lane's row and
      // matrix, with the in-row position zero).
      int32_t rowStart[32];
      for (int32_t l = 0; l < 32; ++l) {
        int32_t r = l % 8, m = l / 8;
        int32_t off = x.offsetOf(coordsOf(ll, g, 0, w));
        for (int i = 0; i < 3; ++i)
          if ((r >> i) & 1)
            off ^= trans ? (i == 0 ? basis("register", 0) : basis("lane", i - 1)) : basis("lane", 2 + i);
        for (int i = 0; i < 2; ++i)
          if ((m >> i) & 1)
            off ^= basis("register", 1 + i);
        rowStart[l] = off;
        EXPECT_EQ(off % 8, 0) << "a row starts off a 16-byte boundary";
      }
      for (int32_t t = 0; t < 32; ++t)
        for (int32_t i = 0; i < 4; ++i)
          for (int32_t j = 0; j < 2; ++j) {
            int32_t got = trans ? rowStart[8 * i + 2 * (t % 4) + j] + t / 4
                                : rowStart[8 * i + t / 4] + 2 * (t % 4) + j;
            EXPECT_EQ(got, x.offsetOf(coordsOf(ll, g + 2 * i + j, t, w)))
                << "warp " << w << " group " << g << " thread " << t << " matrix " << i;
          }
    }
}

TEST_F(ExchangeLayoutTest, DotOperandsReadAsMatrices) {
  BankModel banks;
  banks.loadMatrices = true;
  // A (M x K, K contiguous in the loaded tile): plain matrices.
  LinearLayout aSrc = blocked({64, 32}, {1, 8}, {1, 0});
  LinearLayout a = dotOperand(0, {64, 32}, 4, 1);
  ExchangeLayout xa = chooseExchangeLayout(aSrc, a, 2, banks);
  EXPECT_EQ(xa.read, ExchangeRead::Matrices);
  expectPermutation(xa, {64, 32});
  expectVectors(xa, aSrc, xa.writeVector);
  EXPECT_EQ(xa.writeVector, 8);
  expectMatrixLoadsMatchLayout(xa, a);
  // 16 registers per thread: two loads of four conflict-free phases.
  EXPECT_EQ(xa.readWavefronts, 8);
  // B (K x N, N contiguous): transposed matrices.
  LinearLayout bSrc = blocked({32, 64}, {1, 8}, {1, 0});
  LinearLayout b = dotOperand(1, {32, 64}, 4, 1);
  ExchangeLayout xb = chooseExchangeLayout(bSrc, b, 2, banks);
  EXPECT_EQ(xb.read, ExchangeRead::TransposedMatrices);
  expectPermutation(xb, {32, 64});
  expectMatrixLoadsMatchLayout(xb, b);
  EXPECT_EQ(xb.readWavefronts, 8 * 4);
  // 2 x 2 warps and a K-major A tile (read down its columns): still matrices.
  LinearLayout a2Src = blocked({32, 64}, {8, 1}, {0, 1});
  LinearLayout a2 = dotOperand(0, {32, 64}, 2, 2);
  ExchangeLayout xa2 = chooseExchangeLayout(a2Src, a2, 2, banks);
  EXPECT_NE(xa2.read, ExchangeRead::Vectors);
  expectPermutation(xa2, {32, 64});
  expectMatrixLoadsMatchLayout(xa2, a2);
  // Negative: without the instruction, or for 32-bit elements, vectors.
  EXPECT_EQ(chooseExchangeLayout(aSrc, a, 2).read, ExchangeRead::Vectors);
  EXPECT_EQ(exchangeMatrixRead(xa, a, 4), ExchangeRead::Vectors);
}

} // namespace
