//===- LayoutConversionsTest.cpp - ttg encodings as LinearLayouts -----------===//
//
// Checks toLinearLayout for blocked, slice, nvidia_mma (v2, v3) and dot_op
// layouts element by element against independent models of what each thread
// owns (for mma, the fragment tables of PTX's mma.sync.m16n8k* and wgmma), and
// toSharedLinearLayout for swizzled_shared and nvmma_shared against the
// address formula of each element.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/Utility.h"

#include "mlir/IR/MLIRContext.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/Tools/RegisterAll.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tessera;

namespace {

using Coords = std::vector<int64_t>;
using Owned = std::map<std::pair<int, int>, std::set<Coords>>; // (lane, warp) -> elements

/// Model of a blocked layout: along each dim, a thread owns sizePerThread
/// consecutive elements at lane * sizePerThread + warp * (sizePerThread *
/// threadsPerWarp) + k * (CTA tile), lanes and warps numbered along `order`;
/// positions beyond the shape wrap around (copies).
Owned modelBlocked(ArrayRef<int64_t> shape, ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                   ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  size_t rank = shape.size();
  int lanes = 1, warps = 1;
  for (size_t d = 0; d < rank; ++d) {
    lanes *= tpw[d];
    warps *= wpc[d];
  }
  Owned owned;
  for (int lane = 0; lane < lanes; ++lane)
    for (int warp = 0; warp < warps; ++warp) {
      // lane and warp coordinates along each dim, fastest dim (order[0]) first
      std::vector<int64_t> l(rank), w(rank);
      int lr = lane, wr = warp;
      for (unsigned d : order) {
        l[d] = lr % tpw[d];
        lr /= tpw[d];
        w[d] = wr % wpc[d];
        wr /= wpc[d];
      }
      // every combination of in-thread offset and repetition along each dim
      std::vector<std::vector<int64_t>> perDim(rank);
      for (size_t d = 0; d < rank; ++d) {
        int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
        int64_t reps = std::max<int64_t>(1, shape[d] / tile);
        for (int64_t rep = 0; rep < reps; ++rep)
          for (unsigned k = 0; k < spt[d]; ++k)
            perDim[d].push_back((rep * tile + w[d] * spt[d] * tpw[d] + l[d] * spt[d] + k) % shape[d]);
      }
      std::vector<size_t> idx(rank, 0);
      while (true) {
        Coords c;
        for (size_t d = 0; d < rank; ++d)
          c.push_back(perDim[d][idx[d]]);
        owned[{lane, warp}].insert(c);
        size_t d = 0;
        while (d < rank && ++idx[d] == perDim[d].size())
          idx[d++] = 0;
        if (d == rank)
          break;
      }
    }
  return owned;
}

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

class LayoutConversions : public ::testing::Test {
protected:
  LayoutConversions() {
    // The registered backends add their layouts (#ttg.nvidia_mma) to ttg.
    DialectRegistry registry;
    ::tessera::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<ttg::TTGDialect>();
  }
  ttg::BlockedEncodingAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw, ArrayRef<unsigned> wpc,
                                   ArrayRef<unsigned> order) {
    return ttg::BlockedEncodingAttr::get(&ctx, spt, tpw, wpc, order,
                                         ttg::CTALayoutAttr::getDefault(&ctx, spt.size()));
  }
  MLIRContext ctx;
};

struct BlockedCase {
  std::vector<int64_t> shape;
  std::vector<unsigned> spt, tpw, wpc, order;
};

TEST_F(LayoutConversions, BlockedMatchesModel) {
  std::vector<BlockedCase> cases = {
      {{1024}, {1}, {32}, {4}, {0}},           // registers repeat
      {{1024}, {4}, {32}, {4}, {0}},           // vectorized
      {{64}, {1}, {32}, {4}, {0}},             // warps hold copies
      {{16, 64}, {1, 1}, {1, 32}, {2, 2}, {1, 0}},
      {{16, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0}},
      {{64, 16}, {2, 1}, {8, 4}, {1, 4}, {0, 1}},
      {{32, 32}, {1, 1}, {8, 4}, {2, 2}, {1, 0}},
      {{4, 8}, {1, 1}, {4, 8}, {4, 1}, {1, 0}},  // smaller than one warp tile
      {{2, 8, 16}, {1, 1, 2}, {1, 4, 8}, {2, 2, 1}, {2, 1, 0}},
  };
  for (const BlockedCase &c : cases) {
    auto enc = blocked(c.spt, c.tpw, c.wpc, c.order);
    auto type = RankedTensorType::get(c.shape, Float32Type::get(&ctx), enc);
    ASSERT_TRUE(supportsLinearLayout(type));
    Owned got = fromLinearLayout(toLinearLayout(type));
    Owned want = modelBlocked(c.shape, c.spt, c.tpw, c.wpc, c.order);
    EXPECT_EQ(got, want) << "shape[0]=" << c.shape[0] << " rank " << c.shape.size();
  }
}

TEST_F(LayoutConversions, SliceOwnsTheParentsElementsWithTheDimDropped) {
  auto parent = blocked({1, 1}, {4, 8}, {2, 2}, {1, 0});
  for (unsigned dim : {0u, 1u}) {
    SmallVector<int64_t> pshape = {16, 32};
    SmallVector<int64_t> shape = {pshape[1 - dim]};
    auto type = RankedTensorType::get(shape, Float32Type::get(&ctx),
                                      ttg::SliceEncodingAttr::get(&ctx, dim, parent));
    Owned got = fromLinearLayout(toLinearLayout(type));
    SmallVector<int64_t> withOne = pshape;
    withOne[dim] = 1;
    Owned parentOwned = modelBlocked(withOne, {1, 1}, {4, 8}, {2, 2}, {1, 0});
    Owned want;
    for (auto &[thread, elems] : parentOwned)
      for (const Coords &c : elems)
        want[thread].insert({c[1 - dim]});
    EXPECT_EQ(got, want) << "dim " << dim;
    // No register holds a copy of another register's element.
    auto ll = toLinearLayout(type);
    EXPECT_EQ(int64_t(ll.getInDimSize("register")) * 1, int64_t(got.begin()->second.size()));
  }
}

TEST_F(LayoutConversions, ElemsPerThread) {
  auto type = RankedTensorType::get({1024}, Float32Type::get(&ctx), blocked({1}, {32}, {4}, {0}));
  EXPECT_EQ(getElemsPerThread(type), 8);
  auto type2 = RankedTensorType::get({16, 64}, Float32Type::get(&ctx), blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}));
  EXPECT_EQ(getElemsPerThread(type2), 16 * 64 / 128);
}

/// mma.sync accumulator fragments (PTX ISA, m16n8k*): lane l of a warp holds
/// rows l/4 and l/4 + 8 and columns 2*(l%4) + {0, 1} of each 16x8 tile; warps
/// take tiles n first; tiles repeat over the shape (copies when it is smaller).
Owned modelMmaV2(int64_t M, int64_t N, unsigned wm, unsigned wn) {
  Owned owned;
  for (int lane = 0; lane < 32; ++lane)
    for (unsigned warp = 0; warp < wm * wn; ++warp) {
      int64_t wi = warp / wn, wj = warp % wn;
      for (int64_t rm = 0; rm < std::max<int64_t>(1, M / (16 * wm)); ++rm)
        for (int64_t rn = 0; rn < std::max<int64_t>(1, N / (8 * wn)); ++rn)
          for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 2; ++i) {
              int64_t row = rm * 16 * wm + wi * 16 + lane / 4 + 8 * h;
              int64_t col = rn * 8 * wn + wj * 8 + 2 * (lane % 4) + i;
              owned[{lane, int(warp)}].insert({row % M, col % N});
            }
    }
  return owned;
}

/// mma.sync operand fragments with k elements per register group along K:
/// A (16 x 8k): rows l/4 (+8), K columns (l%4)*k + j and + 4k; B (8k x 8): K
/// rows (l%4)*k + j and + 4k, column l/4. A is split over warps along m, B
/// along n; the other warps hold copies.
Owned modelDotOperand(unsigned opIdx, int64_t R, int64_t C, unsigned wm, unsigned wn, int k) {
  Owned owned;
  for (int lane = 0; lane < 32; ++lane)
    for (unsigned warp = 0; warp < wm * wn; ++warp) {
      int64_t wi = warp / wn, wj = warp % wn;
      int64_t tileR = opIdx == 0 ? 16 * wm : 8 * k, tileC = opIdx == 0 ? 8 * k : 8 * wn;
      for (int64_t rr = 0; rr < std::max<int64_t>(1, R / tileR); ++rr)
        for (int64_t rc = 0; rc < std::max<int64_t>(1, C / tileC); ++rc)
          for (int q = 0; q < 2; ++q)
            for (int j = 0; j < k; ++j) {
              int64_t kk = (lane % 4) * k + j + 4 * k * q;
              if (opIdx == 0) {
                for (int h = 0; h < 2; ++h) {
                  int64_t row = rr * tileR + wi * 16 + lane / 4 + 8 * h;
                  owned[{lane, int(warp)}].insert({row % R, (rc * tileC + kk) % C});
                }
              } else {
                int64_t col = rc * tileC + wj * 8 + lane / 4;
                owned[{lane, int(warp)}].insert({(rr * tileR + kk) % R, col % C});
              }
            }
    }
  return owned;
}

TEST_F(LayoutConversions, MmaV2MatchesPtxFragments) {
  struct Case {
    int64_t M, N;
    unsigned wm, wn;
  };
  for (Case c : std::vector<Case>{{16, 8, 1, 1}, {32, 32, 2, 2}, {64, 64, 4, 1}, {16, 64, 1, 4},
                                  {16, 16, 4, 1}, {128, 32, 2, 2}}) {
    auto enc = ttg::NvidiaMmaEncodingAttr::get(&ctx, 2, 0, {c.wm, c.wn},
                                               ttg::CTALayoutAttr::getDefault(&ctx, 2), {16, 8});
    auto type = RankedTensorType::get({c.M, c.N}, Float32Type::get(&ctx), enc);
    ASSERT_TRUE(supportsLinearLayout(type));
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), modelMmaV2(c.M, c.N, c.wm, c.wn))
        << c.M << "x" << c.N << " warps " << c.wm << "x" << c.wn;
  }
}

TEST_F(LayoutConversions, DotOperandsMatchPtxFragments) {
  struct Case {
    unsigned opIdx;
    int64_t R, C;
    unsigned wm, wn;
    unsigned k;
  };
  for (Case c : std::vector<Case>{{0, 16, 16, 1, 1, 2}, {1, 16, 8, 1, 1, 2}, {0, 64, 32, 2, 2, 2},
                                  {1, 32, 64, 2, 2, 2}, {0, 32, 32, 2, 1, 4}, {1, 32, 16, 1, 2, 4},
                                  {0, 16, 8, 4, 1, 1}, {1, 8, 32, 1, 4, 1}, {0, 16, 64, 2, 2, 2}}) {
    auto mma = ttg::NvidiaMmaEncodingAttr::get(&ctx, 2, 0, {c.wm, c.wn},
                                               ttg::CTALayoutAttr::getDefault(&ctx, 2), {16, 8});
    auto enc = ttg::DotOperandEncodingAttr::get(&ctx, c.opIdx, mma, c.k);
    auto type = RankedTensorType::get({c.R, c.C}, Float16Type::get(&ctx), enc);
    ASSERT_TRUE(supportsLinearLayout(type));
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)),
              modelDotOperand(c.opIdx, c.R, c.C, c.wm, c.wn, int(c.k)))
        << "op " << c.opIdx << " " << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn
        << " kWidth " << c.k;
  }
}

TEST_F(LayoutConversions, ReshapeRowMajorKeepsEachElementsRowMajorPosition) {
  struct Case {
    std::vector<int64_t> from, to;
  };
  auto enc = blocked({1, 2}, {4, 8}, {2, 2}, {1, 0});
  for (Case c : std::vector<Case>{{{16, 32}, {512}}, {{16, 32}, {8, 64}}, {{16, 32}, {2, 8, 32}},
                                  {{16, 32}, {32, 16}}}) {
    auto type = RankedTensorType::get(c.from, Float32Type::get(&ctx), enc);
    auto ll = toLinearLayout(type);
    auto reshaped = reshapeRowMajor(ll, c.to);
    for (int r = 0; r < ll.getInDimSize("register"); ++r)
      for (int lane = 0; lane < 32; ++lane)
        for (int warp = 0; warp < 4; ++warp) {
          std::vector<std::pair<std::string, int32_t>> in = {
              {"register", r}, {"lane", lane}, {"warp", warp}, {"block", 0}};
          auto a = ll.apply(in), b = reshaped.apply(in);
          int64_t flatA = 0, flatB = 0;
          for (size_t d = 0; d < c.from.size(); ++d)
            flatA = flatA * c.from[d] + a[d].second;
          for (size_t d = 0; d < c.to.size(); ++d)
            flatB = flatB * c.to[d] + b[d].second;
          EXPECT_EQ(flatA, flatB) << "register " << r << " lane " << lane << " warp " << warp;
        }
  }
}

/// wgmma accumulator fragments (PTX ISA, wgmma .m64nNk*, f32 D): thread t of
/// a warpgroup holds d[i], i < N / 2, at row 16 * (t / 32) + (t % 32) / 4 +
/// 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (t % 4) + i % 2. Warp w of the
/// CTA is warp w % wm along M (four consecutive warps form a warpgroup, 64
/// rows) and w / wm along N (instrN columns each); tiles repeat over the shape.
Owned modelMmaV3(int64_t M, int64_t N, unsigned wm, unsigned wn, int64_t instrN) {
  Owned owned;
  for (int lane = 0; lane < 32; ++lane)
    for (unsigned warp = 0; warp < wm * wn; ++warp) {
      int64_t wi = warp % wm, wj = warp / wm;
      for (int64_t rm = 0; rm < std::max<int64_t>(1, M / (16 * wm)); ++rm)
        for (int64_t rn = 0; rn < std::max<int64_t>(1, N / (instrN * wn)); ++rn)
          for (int64_t i = 0; i < instrN / 2; ++i) {
            int64_t row = rm * 16 * wm + wi * 16 + lane / 4 + 8 * ((i / 2) % 2);
            int64_t col = rn * instrN * wn + wj * instrN + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
            owned[{lane, int(warp)}].insert({row % M, col % N});
          }
    }
  return owned;
}

TEST_F(LayoutConversions, MmaV3MatchesWgmmaFragments) {
  struct Case {
    int64_t M, N;
    unsigned wm, wn, instrN;
  };
  for (Case c : std::vector<Case>{{64, 64, 4, 1, 64}, {128, 128, 4, 1, 128}, {128, 128, 8, 1, 128},
                                  {128, 256, 8, 1, 256}, {64, 256, 4, 2, 128}, {256, 128, 8, 2, 64},
                                  {64, 16, 4, 1, 8}}) {
    auto enc = ttg::NvidiaMmaEncodingAttr::get(&ctx, 3, 0, {c.wm, c.wn},
                                               ttg::CTALayoutAttr::getDefault(&ctx, 2),
                                               {16, c.instrN, 16});
    auto type = RankedTensorType::get({c.M, c.N}, Float32Type::get(&ctx), enc);
    ASSERT_TRUE(supportsLinearLayout(type));
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), modelMmaV3(c.M, c.N, c.wm, c.wn, c.instrN))
        << c.M << "x" << c.N << " warps " << c.wm << "x" << c.wn << " n" << c.instrN;
  }
  // Warps along M that do not form whole warpgroups have no wgmma layout.
  auto two = ttg::NvidiaMmaEncodingAttr::get(&ctx, 3, 0, {2, 2}, ttg::CTALayoutAttr::getDefault(&ctx, 2),
                                             {16, 64, 16});
  EXPECT_FALSE(supportsLinearLayout(RankedTensorType::get({64, 64}, Float32Type::get(&ctx), two)));
}

TEST_F(LayoutConversions, MmaV3OperandAMatchesWgmmaRegisterFragments) {
  // wgmma's A from registers (16-bit types): per warp, mma.sync's A fragment of the warp's 16 rows
  // (warps along M as the accumulator's); warps along N hold copies.
  struct Case {
    int64_t R, C;
    unsigned wm, wn;
  };
  for (Case c : std::vector<Case>{{64, 16, 4, 1}, {128, 64, 8, 1}, {64, 32, 4, 2}, {128, 32, 4, 1}}) {
    auto mma = ttg::NvidiaMmaEncodingAttr::get(&ctx, 3, 0, {c.wm, c.wn},
                                               ttg::CTALayoutAttr::getDefault(&ctx, 2), {16, 64, 16});
    auto enc = ttg::DotOperandEncodingAttr::get(&ctx, 0, mma, 2);
    auto type = RankedTensorType::get({c.R, c.C}, Float16Type::get(&ctx), enc);
    ASSERT_TRUE(supportsLinearLayout(type));
    // The v2 model numbers warps n first; with wn copies the owner sets agree once warp ids are
    // renumbered M-first.
    Owned model = modelDotOperand(0, c.R, c.C, c.wm, 1, 2), expected;
    for (auto &[key, elems] : model)
      for (unsigned j = 0; j < c.wn; ++j)
        expected[{key.first, int(key.second + j * c.wm)}] = elems;
    EXPECT_EQ(fromLinearLayout(toLinearLayout(type)), expected)
        << c.R << "x" << c.C << " warps " << c.wm << "x" << c.wn;
  }
}

/// Checks that a shared layout sends each element's storage offset (from
/// `offsetOf`) back to the element, for every element.
template <typename F>
void expectSharedLayout(const ::tessera::LinearLayout &ll, int64_t R, int64_t C, F offsetOf) {
  std::set<int64_t> offsets;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      int64_t off = offsetOf(r, c);
      offsets.insert(off);
      auto out = ll.apply({{"offset", int32_t(off)}});
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[0].second, r) << "offset " << off;
      EXPECT_EQ(out[1].second, c) << "offset " << off;
    }
  EXPECT_EQ(int64_t(offsets.size()), R * C); // a bijection onto [0, R*C)
  EXPECT_EQ(*offsets.rbegin(), R * C - 1);
}

TEST_F(LayoutConversions, SwizzledSharedMatchesTheAddressFormula) {
  struct Case {
    int64_t R, C;
    unsigned vec, perPhase, maxPhase;
  };
  for (Case c : std::vector<Case>{{16, 64, 8, 1, 8}, {32, 32, 4, 2, 4}, {8, 16, 1, 1, 1},
                                  {64, 16, 2, 4, 8}, {4, 128, 16, 1, 4}}) {
    auto enc = ttg::SwizzledSharedEncodingAttr::get(&ctx, c.vec, c.perPhase, c.maxPhase, {1, 0},
                                                    ttg::CTALayoutAttr::getDefault(&ctx, 2));
    auto ll = toSharedLinearLayout({c.R, c.C}, enc);
    ASSERT_TRUE(ll.has_value());
    int64_t chunks = c.C / c.vec;
    expectSharedLayout(*ll, c.R, c.C, [&](int64_t r, int64_t col) {
      int64_t phase = (r / c.perPhase) % c.maxPhase;
      return r * c.C + (((col / c.vec) ^ phase) % chunks) * c.vec + col % c.vec;
    });
  }
  // order [0, 1]: dim 0 is contiguous.
  auto colMajor = ttg::SwizzledSharedEncodingAttr::get(&ctx, 4, 1, 4, {0, 1},
                                                       ttg::CTALayoutAttr::getDefault(&ctx, 2));
  auto ll = toSharedLinearLayout({32, 8}, colMajor);
  ASSERT_TRUE(ll.has_value());
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      int64_t off = c * 32 + (((r / 4) ^ (c % 4)) % 8) * 4 + r % 4;
      auto out = ll->apply({{"offset", int32_t(off)}});
      EXPECT_EQ(out[0].second, r);
      EXPECT_EQ(out[1].second, c);
    }
}

TEST_F(LayoutConversions, NvmmaSharedMatchesTheAddressFormula) {
  struct Case {
    int64_t R, C;
    unsigned width, bits;
  };
  for (Case c : std::vector<Case>{{64, 64, 128, 16}, {64, 128, 128, 16}, {32, 32, 64, 16},
                                  {16, 32, 32, 16}, {64, 64, 128, 8}, {8, 64, 0, 16}}) {
    auto enc = ttg::NVMMASharedEncodingAttr::get(&ctx, c.width, false, c.bits, false,
                                                 ttg::CTALayoutAttr::getDefault(&ctx, 2));
    auto ll = toSharedLinearLayout({c.R, c.C}, enc);
    ASSERT_TRUE(ll.has_value());
    int64_t bytes = c.bits / 8;
    int64_t W = c.width ? std::min<int64_t>(c.width / bytes, c.C) : c.C;
    int64_t vec = c.width ? 16 / bytes : 1, perPhase = c.width ? 128 / c.width : 1,
            maxPhase = c.width ? c.width / 16 : 1;
    expectSharedLayout(*ll, c.R, c.C, [&](int64_t r, int64_t col) {
      int64_t tile = col / W, in = col % W, phase = (r / perPhase) % maxPhase;
      return tile * c.R * W + r * W + (((in / vec) ^ phase) % (W / vec)) * vec + in % vec;
    });
  }
}

} // namespace

namespace {

TEST(LinearEncoding, IsItsOwnLinearLayout) {
  // #ttg.linear's LinearLayout has exactly its bases, in the tensor's shape.
  MLIRContext ctx;
  ctx.loadDialect<ttg::TTGDialect>();
  SmallVector<int32_t> reg = {0, 1, 0, 8}, lane = {0, 2, 0, 4, 1, 0, 2, 0, 4, 0}, warp = {8, 0, 0, 16};
  auto enc = ttg::LinearEncodingAttr::get(&ctx, 2, reg, lane, warp, {});
  auto type = RankedTensorType::get({16, 32}, Float16Type::get(&ctx), enc);
  ASSERT_TRUE(supportsLinearLayout(type));
  ::tessera::LinearLayout ll = toLinearLayout(type);
  EXPECT_EQ(ll.getOutDimSize("dim0"), 16);
  EXPECT_EQ(ll.getOutDimSize("dim1"), 32);
  EXPECT_EQ(ll.getInDimSize("register"), 4);
  EXPECT_EQ(ll.getInDimSize("lane"), 32);
  EXPECT_EQ(ll.getInDimSize("warp"), 4);
  // register 3, lane 5, warp 2: (0,1)^(0,8)^(0,2)^(1,0)^(0,16) = (1, 27)
  auto out = ll.apply({{"register", 3}, {"lane", 5}, {"warp", 2}, {"block", 0}});
  EXPECT_EQ(out[0].second, 1);
  EXPECT_EQ(out[1].second, 27);
  // A shape the bases do not fit has no layout.
  EXPECT_FALSE(supportsLinearLayout(RankedTensorType::get({16, 8}, Float16Type::get(&ctx), enc)));
}

} // namespace
