//===- LayoutConversionsTest.cpp - ttg encodings as LinearLayouts -----------===//
//
// Checks toLinearLayout for blocked and slice layouts element by element
// against an independent model of what each thread owns.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/Utility.h"

#include "mlir/IR/MLIRContext.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

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
  LayoutConversions() { ctx.loadDialect<ttg::TTGDialect>(); }
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

} // namespace
