//===- MfmaLayoutTest.cpp - #ttg.amd_mfma as LinearLayouts ----------------------===//
//
// Checks toLinearLayout of #ttg.amd_mfma (and #ttg.amd_wmma, below) and of their #ttg.dot_op operands
// element by element against a model written from the CDNA ISA's operand
// tables of v_mfma_f32_16x16x16{f16,bf16} (wave64):
//   A[i][k]: lane i + 16 * (k / 4), element k % 4 of the lane's 4-vector;
//   B[k][j]: lane j + 16 * (k / 4), element k % 4;
//   D[i][j]: lane j + 16 * (i / 4), element i % 4;
// tiled over warps (N first, then M; A copied across warps along N, B across
// warps along M) and repeated in registers over larger tensors.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/Utility.h"

#include "mlir/IR/MLIRContext.h"
#include "tessera/AMD/Dialect/TTG/AMDLayouts.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Tools/RegisterAll.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tessera;

namespace {

using Coords = std::vector<int64_t>;
using Owned = std::map<std::pair<int, int>, std::set<Coords>>; // (lane, warp) -> elements

Owned fromLinearLayout(const ::tessera::LinearLayout &ll) {
  Owned owned;
  int regs = ll.getInDimSize("register"), lanes = ll.getInDimSize("lane"), warps = ll.getInDimSize("warp");
  for (int lane = 0; lane < lanes; ++lane)
    for (int warp = 0; warp < warps; ++warp)
      for (int r = 0; r < regs; ++r) {
        auto out = ll.apply({{"register", r}, {"lane", lane}, {"warp", warp}, {"block", 0}});
        Coords c;
        for (auto &[name, v] : out)
          c.push_back(v);
        owned[{lane, warp}].insert(c);
      }
  return owned;
}

/// The ISA's element of (lane, element e) in one 16 x 16 tile: {row, col}.
Coords tableD(int lane, int e) { return {4 * (lane / 16) + e, lane % 16}; }
Coords tableA(int lane, int e) { return {lane % 16, 4 * (lane / 16) + e}; }
Coords tableB(int lane, int e) { return {4 * (lane / 16) + e, lane % 16}; }

/// What each (lane, warp) owns of an R x C tensor: warp w = wn-index + wn *
/// wm-index (N first); the warp's 16 x 16 tile at (16 * wmIdx, 16 * wnIdx)
/// (a dimension the operand does not split over warps: 0), repeated every
/// 16 * warps along each dim. `which`: 'D', 'A' or 'B'.
Owned model(char which, int64_t R, int64_t C, unsigned wm, unsigned wn) {
  Owned owned;
  for (int warp = 0; warp < int(wm * wn); ++warp) {
    int64_t wnIdx = warp % wn, wmIdx = warp / wn;
    // The extent of the warps' tile along rows and columns, and this warp's
    // offset in it.
    int64_t tileR, tileC, offR, offC;
    if (which == 'D') {
      tileR = 16 * wm, tileC = 16 * wn, offR = 16 * wmIdx, offC = 16 * wnIdx;
    } else if (which == 'A') {
      tileR = 16 * wm, tileC = 16, offR = 16 * wmIdx, offC = 0;
    } else {
      tileR = 16, tileC = 16 * wn, offR = 0, offC = 16 * wnIdx;
    }
    for (int lane = 0; lane < 64; ++lane)
      for (int e = 0; e < 4; ++e) {
        Coords t = which == 'D' ? tableD(lane, e) : which == 'A' ? tableA(lane, e) : tableB(lane, e);
        for (int64_t rr = 0; rr < std::max<int64_t>(1, R / tileR); ++rr)
          for (int64_t cc = 0; cc < std::max<int64_t>(1, C / tileC); ++cc)
            owned[{lane, warp}].insert({(rr * tileR + offR + t[0]) % R, (cc * tileC + offC + t[1]) % C});
      }
  }
  return owned;
}

class MfmaLayouts : public ::testing::Test {
protected:
  MfmaLayouts() {
    DialectRegistry registry;
    ::tessera::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<ttg::TTGDialect>();
  }
  ttg::AMDMfmaEncodingAttr mfma(unsigned wm, unsigned wn) {
    return ttg::AMDMfmaEncodingAttr::get(&ctx, 3, {wm, wn}, ttg::CTALayoutAttr::getDefault(&ctx, 2),
                                         {16, 16, 16});
  }
  MLIRContext ctx;
};

struct Case {
  int64_t R, C;
  unsigned wm, wn;
};

TEST_F(MfmaLayouts, AccumulatorMatchesIsaTable) {
  for (Case c : std::vector<Case>{{16, 16, 1, 1}, {32, 32, 2, 2}, {64, 64, 2, 2}, {128, 32, 4, 1},
                                  {16, 64, 1, 4}, {64, 128, 2, 4}}) {
    auto type = RankedTensorType::get({c.R, c.C}, Float32Type::get(&ctx), mfma(c.wm, c.wn));
    ASSERT_TRUE(supportsLinearLayout(type));
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), model('D', c.R, c.C, c.wm, c.wn))
        << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn;
  }
}

TEST_F(MfmaLayouts, OperandsMatchIsaTables) {
  for (Case c : std::vector<Case>{{16, 16, 1, 1}, {64, 32, 2, 2}, {32, 64, 2, 2}, {128, 16, 4, 1},
                                  {16, 128, 1, 4}}) {
    for (unsigned opIdx : {0u, 1u}) {
      auto enc = ttg::DotOperandEncodingAttr::get(&ctx, opIdx, mfma(c.wm, c.wn), 4);
      auto type = RankedTensorType::get({c.R, c.C}, Float16Type::get(&ctx), enc);
      ASSERT_TRUE(supportsLinearLayout(type));
      EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), model(opIdx ? 'B' : 'A', c.R, c.C, c.wm, c.wn))
          << "op " << opIdx << " " << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn;
    }
  }
}

/// RDNA3 WMMA (wave32): D element i of lane l at row 2 * i + l / 16, column
/// l % 16; A lane l: row l % 16, all 16 K; B lane l: column l % 16, all 16 K
/// (lanes 16..31 copy lanes 0..15 for A and B).
Owned modelWmma(char which, int64_t R, int64_t C, unsigned wm, unsigned wn) {
  Owned owned;
  for (int warp = 0; warp < int(wm * wn); ++warp) {
    int64_t wnIdx = warp % wn, wmIdx = warp / wn;
    int64_t tileR, tileC, offR, offC;
    if (which == 'D')
      tileR = 16 * wm, tileC = 16 * wn, offR = 16 * wmIdx, offC = 16 * wnIdx;
    else if (which == 'A')
      tileR = 16 * wm, tileC = 16, offR = 16 * wmIdx, offC = 0;
    else
      tileR = 16, tileC = 16 * wn, offR = 0, offC = 16 * wnIdx;
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < (which == 'D' ? 8 : 16); ++e) {
        Coords t = which == 'D'   ? Coords{2 * e + lane / 16, lane % 16}
                   : which == 'A' ? Coords{lane % 16, e}
                                  : Coords{e, lane % 16};
        for (int64_t rr = 0; rr < std::max<int64_t>(1, R / tileR); ++rr)
          for (int64_t cc = 0; cc < std::max<int64_t>(1, C / tileC); ++cc)
            owned[{lane, warp}].insert({(rr * tileR + offR + t[0]) % R, (cc * tileC + offC + t[1]) % C});
      }
  }
  return owned;
}

TEST_F(MfmaLayouts, WmmaMatchesIsaTables) {
  for (Case c : std::vector<Case>{{16, 16, 1, 1}, {32, 32, 2, 2}, {64, 32, 2, 1}, {16, 64, 1, 4}}) {
    auto wmma = ttg::AMDWmmaEncodingAttr::get(&ctx, 1, {c.wm, c.wn}, ttg::CTALayoutAttr::getDefault(&ctx, 2));
    auto acc = RankedTensorType::get({c.R, c.C}, Float32Type::get(&ctx), wmma);
    ASSERT_TRUE(supportsLinearLayout(acc));
    EXPECT_EQ(fromLinearLayout(toLinearLayout(acc)), modelWmma('D', c.R, c.C, c.wm, c.wn))
        << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn;
    for (unsigned opIdx : {0u, 1u}) {
      auto enc = ttg::DotOperandEncodingAttr::get(&ctx, opIdx, wmma, 16);
      auto type = RankedTensorType::get({c.R, c.C}, Float16Type::get(&ctx), enc);
      ASSERT_TRUE(supportsLinearLayout(type));
      EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), modelWmma(opIdx ? 'B' : 'A', c.R, c.C, c.wm, c.wn))
          << "op " << opIdx << " " << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn;
    }
  }
}

/// v_mfma_f32_16x16x4f32: A[i][k] in lane i + 16 * k (one value), B[k][j] in
/// lane j + 16 * k; D as for 16x16x16.
TEST_F(MfmaLayouts, Fp32OperandsMatchIsaTables) {
  for (Case c : std::vector<Case>{{16, 4, 1, 1}, {32, 16, 2, 2}, {64, 8, 4, 1}}) {
    auto enc = ttg::AMDMfmaEncodingAttr::get(&ctx, 3, {c.wm, c.wn}, ttg::CTALayoutAttr::getDefault(&ctx, 2),
                                             {16, 16, 4});
    for (unsigned opIdx : {0u, 1u}) {
      int64_t R = opIdx ? c.C : c.R, C = opIdx ? c.R : c.C;  // B: K x N
      auto type = RankedTensorType::get({R, C}, Float32Type::get(&ctx),
                                        ttg::DotOperandEncodingAttr::get(&ctx, opIdx, enc, 1));
      ASSERT_TRUE(supportsLinearLayout(type));
      Owned model;
      for (int warp = 0; warp < int(c.wm * c.wn); ++warp) {
        int64_t wnIdx = warp % c.wn, wmIdx = warp / c.wn;
        for (int lane = 0; lane < 64; ++lane) {
          int64_t tileR = opIdx ? 4 : 16 * c.wm, tileC = opIdx ? 16 * c.wn : 4;
          int64_t offR = opIdx ? 0 : 16 * wmIdx, offC = opIdx ? 16 * wnIdx : 0;
          Coords t = opIdx ? Coords{lane / 16, lane % 16} : Coords{lane % 16, lane / 16};
          for (int64_t rr = 0; rr < std::max<int64_t>(1, R / tileR); ++rr)
            for (int64_t cc = 0; cc < std::max<int64_t>(1, C / tileC); ++cc)
              model[{lane, warp}].insert({(rr * tileR + offR + t[0]) % R, (cc * tileC + offC + t[1]) % C});
        }
      }
      EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), model) << "op " << opIdx << " " << R << "x" << C;
    }
  }
}

/// v_mfma_i32_16x16x32_i8 (CDNA3): A[i][k] in lane i + 16 * (k / 8), element
/// k % 8; B[k][j] in lane j + 16 * (k / 8).
TEST_F(MfmaLayouts, Int8OperandsMatchIsaTables) {
  auto enc = ttg::AMDMfmaEncodingAttr::get(&ctx, 3, {2, 2}, ttg::CTALayoutAttr::getDefault(&ctx, 2), {16, 16, 32});
  for (unsigned opIdx : {0u, 1u}) {
    int64_t R = opIdx ? 64 : 32, C = opIdx ? 32 : 64;
    auto type = RankedTensorType::get({R, C}, IntegerType::get(&ctx, 8),
                                      ttg::DotOperandEncodingAttr::get(&ctx, opIdx, enc, 8));
    ASSERT_TRUE(supportsLinearLayout(type));
    Owned model;
    for (int warp = 0; warp < 4; ++warp) {
      int64_t wnIdx = warp % 2, wmIdx = warp / 2;
      int64_t tileR = opIdx ? 32 : 32, tileC = opIdx ? 32 : 32;
      int64_t offR = opIdx ? 0 : 16 * wmIdx, offC = opIdx ? 16 * wnIdx : 0;
      for (int lane = 0; lane < 64; ++lane)
        for (int e = 0; e < 8; ++e) {
          Coords t = opIdx ? Coords{8 * (lane / 16) + e, lane % 16} : Coords{lane % 16, 8 * (lane / 16) + e};
          for (int64_t rr = 0; rr < R / tileR; ++rr)
            for (int64_t cc = 0; cc < C / tileC; ++cc)
              model[{lane, warp}].insert({(rr * tileR + offR + t[0]) % R, (cc * tileC + offC + t[1]) % C});
        }
    }
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), model) << "op " << opIdx;
  }
}

TEST_F(MfmaLayouts, VerifierRejectsWhatMfmaDoesNotRun) {
  auto err = [&] { return emitError(UnknownLoc::get(&ctx)); };
  auto cta = ttg::CTALayoutAttr::getDefault(&ctx, 2);
  EXPECT_TRUE(failed(ttg::AMDMfmaEncodingAttr::verify(err, 1, {2, 2}, cta, {16, 16, 16})));
  EXPECT_TRUE(failed(ttg::AMDMfmaEncodingAttr::verify(err, 3, {2, 2}, cta, {32, 32, 8})));
  EXPECT_TRUE(succeeded(ttg::AMDMfmaEncodingAttr::verify(err, 3, {2, 2}, cta, {16, 16, 4})));
  EXPECT_TRUE(failed(ttg::AMDMfmaEncodingAttr::verify(err, 3, {3, 1}, cta, {16, 16, 16})));
  EXPECT_TRUE(succeeded(ttg::AMDMfmaEncodingAttr::verify(err, 2, {4, 1}, cta, {16, 16, 16})));
  EXPECT_TRUE(failed(mfma(2, 2).verifyDotOperand(err, 0, 2)));
  EXPECT_TRUE(succeeded(mfma(2, 2).verifyDotOperand(err, 1, 4)));
}

} // namespace
