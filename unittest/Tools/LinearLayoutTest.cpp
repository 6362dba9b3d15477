//===- LinearLayoutTest.cpp - GF(2)-linear layouts
//--------------------------===//
//
// Every operation is checked against a brute-force evaluation over all inputs
// (the layouts are small), computed here from the raw bases.
//
//===----------------------------------------------------------------------===//

#include "tessera/Tools/LinearLayout.h"

#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace tessera;
using DimSize = LinearLayout::DimSize;
using DimValue = LinearLayout::DimValue;
using InDimBases = LinearLayout::InDimBases;
using Ins = std::vector<DimValue>;
using Outs = std::map<std::string, int32_t>;

namespace {

//===----------------------------------------------------------------------===//
// Brute-force reference
//===----------------------------------------------------------------------===//

/// The input with flat index `flat` (first dim least significant).
Ins inputOf(const LinearLayout &l, int64_t flat) {
  Ins r;
  for (const DimSize &d : l.getInDims()) {
    r.push_back({d.first, static_cast<int32_t>(flat % d.second)});
    flat /= d.second;
  }
  return r;
}

/// Flattens `o` along the out dims of `l` (first least significant).
int64_t flatOut(const LinearLayout &l, const Outs &o) {
  int64_t f = 0, mul = 1;
  for (const DimSize &d : l.getOutDims()) {
    auto it = o.find(d.first);
    f += (it == o.end() ? 0 : it->second) * mul;
    mul *= d.second;
  }
  return f;
}

/// XOR of the basis vectors of the set bits, straight from the bases.
Outs ref(const LinearLayout &l, const Ins &ins) {
  Outs o;
  auto outNames = l.getOutDimNames();
  for (const std::string &n : outNames)
    o[n] = 0;
  for (const DimValue &in : ins)
    for (const InDimBases &b : l.getBases()) {
      if (b.first != in.first)
        continue;
      for (size_t bit = 0; bit < b.second.size(); ++bit)
        if ((in.second >> bit) & 1)
          for (size_t j = 0; j < outNames.size(); ++j)
            o[outNames[j]] ^= b.second[bit][j];
    }
  return o;
}

Outs toMap(llvm::ArrayRef<DimValue> v) {
  Outs o;
  for (const DimValue &d : v)
    o[d.first] = d.second;
  return o;
}

/// Ins as a map (for lookups).
Outs insMap(const Ins &ins) { return toMap(ins); }

/// Number of distinct outputs over all inputs (= 2^rank).
int64_t imageSize(const LinearLayout &l) {
  std::set<int64_t> image;
  for (int64_t x = 0; x < l.getTotalInDimSize(); ++x)
    image.insert(flatOut(l, ref(l, inputOf(l, x))));
  return static_cast<int64_t>(image.size());
}

/// Same map on the flattened coordinates.
void expectSameFlatMap(const LinearLayout &a, const LinearLayout &b) {
  ASSERT_EQ(a.getTotalInDimSize(), b.getTotalInDimSize());
  for (int64_t x = 0; x < a.getTotalInDimSize(); ++x)
    ASSERT_EQ(flatOut(a, ref(a, inputOf(a, x))),
              flatOut(b, ref(b, inputOf(b, x))))
        << "at flat input " << x;
}

//===----------------------------------------------------------------------===//
// Random layouts
//===----------------------------------------------------------------------===//

/// A random layout with the given in dims (name, log2 size) and out dims
/// (name, log2 size); every basis entry uniform in [0, out size).
LinearLayout
randomLayout(std::mt19937 &rng,
             const std::vector<std::pair<std::string, int>> &ins,
             const std::vector<std::pair<std::string, int>> &outs) {
  std::vector<InDimBases> bases;
  std::vector<DimSize> outDims;
  for (const auto &o : outs)
    outDims.push_back({o.first, 1 << o.second});
  for (const auto &in : ins) {
    std::vector<LinearLayout::BasisVec> vs;
    for (int b = 0; b < in.second; ++b) {
      LinearLayout::BasisVec v;
      for (const auto &o : outs)
        v.push_back(static_cast<int32_t>(rng() & ((1u << o.second) - 1)));
      vs.push_back(v);
    }
    bases.push_back({in.first, vs});
  }
  return LinearLayout(bases, outDims);
}

/// Splits `bits` randomly over `names`.
std::vector<std::pair<std::string, int>>
randomDims(std::mt19937 &rng, const std::vector<std::string> &names, int bits) {
  std::vector<std::pair<std::string, int>> r;
  for (const std::string &n : names)
    r.push_back({n, 0});
  for (int i = 0; i < bits; ++i)
    r[rng() % r.size()].second++;
  return r;
}

const std::vector<std::string> kHw = {"register", "lane", "warp", "block"};
const std::vector<std::string> kDims = {"dim0", "dim1"};

/// A random layout with total in and out sizes <= 256.
LinearLayout randomLayout(std::mt19937 &rng) {
  return randomLayout(rng, randomDims(rng, kHw, rng() % 9),
                      randomDims(rng, kDims, rng() % 9));
}

/// A random invertible layout with 2^bits elements.
LinearLayout randomInvertible(std::mt19937 &rng, int bits) {
  while (true) {
    LinearLayout l = randomLayout(rng, randomDims(rng, kHw, bits),
                                  randomDims(rng, kDims, bits));
    if (imageSize(l) == l.getTotalInDimSize())
      return l;
  }
}

/// A random surjective layout with 2^inBits inputs and 2^outBits outputs.
LinearLayout randomSurjective(std::mt19937 &rng, int inBits, int outBits) {
  while (true) {
    LinearLayout l = randomLayout(rng, randomDims(rng, kHw, inBits),
                                  randomDims(rng, kDims, outBits));
    if (imageSize(l) == l.getTotalOutDimSize())
      return l;
  }
}

/// A blocked-like layout of a 32x16 tile: 4 registers along dim1, 8x4 lanes
/// (4 along dim1 above the registers, 8 along dim0), 4 warps along dim0.
LinearLayout blocked() {
  return LinearLayout({{"register", {{0, 1}, {0, 2}}},
                       {"lane", {{0, 4}, {0, 8}, {1, 0}, {2, 0}, {4, 0}}},
                       {"warp", {{8, 0}, {16, 0}}}},
                      {{"dim0", 32}, {"dim1", 16}});
}

//===----------------------------------------------------------------------===//
// Construction and queries
//===----------------------------------------------------------------------===//

TEST(LinearLayout, Empty) {
  LinearLayout e;
  EXPECT_EQ(e.getNumInDims(), 0);
  EXPECT_EQ(e.getNumOutDims(), 0);
  EXPECT_EQ(e.getTotalInDimSize(), 1);
  EXPECT_EQ(e.getTotalOutDimSize(), 1);
  EXPECT_EQ(e.applyFlat(0), 0);
  EXPECT_TRUE(e.isInvertible());
  EXPECT_EQ(e * blocked(), blocked());
  EXPECT_EQ(blocked() * e, blocked());
}

TEST(LinearLayout, Identity1D) {
  LinearLayout l = LinearLayout::identity1D(16, "lane", "dim0");
  EXPECT_EQ(l.getInDimNames(), llvm::SmallVector<std::string>{"lane"});
  EXPECT_EQ(l.getOutDimNames(), llvm::SmallVector<std::string>{"dim0"});
  EXPECT_EQ(l.getInDimSize("lane"), 16);
  EXPECT_EQ(l.getOutDimSize("dim0"), 16);
  for (int32_t x = 0; x < 16; ++x) {
    EXPECT_EQ(toMap(l.apply({{"lane", x}})), (Outs{{"dim0", x}}));
    EXPECT_EQ(l.applyFlat(x), x);
  }
  EXPECT_TRUE(l.isInvertible());
  LinearLayout one = LinearLayout::identity1D(1, "lane", "dim0");
  EXPECT_EQ(one.getInDimSize("lane"), 1);
  EXPECT_EQ(one.getOutDimSize("dim0"), 1);
}

TEST(LinearLayout, Zeros1D) {
  LinearLayout l = LinearLayout::zeros1D(8, "warp", "dim1", 4);
  EXPECT_EQ(l.getInDimSize("warp"), 8);
  EXPECT_EQ(l.getOutDimSize("dim1"), 4);
  for (int32_t x = 0; x < 8; ++x)
    EXPECT_EQ(toMap(l.apply({{"warp", x}})), (Outs{{"dim1", 0}}));
  EXPECT_EQ(l.getRank(), 0);
  EXPECT_EQ(LinearLayout::zeros1D(8, "warp", "dim1").getOutDimSize("dim1"), 1);
}

TEST(LinearLayout, Queries) {
  LinearLayout l = blocked();
  EXPECT_EQ(l.getNumInDims(), 3);
  EXPECT_EQ(l.getNumOutDims(), 2);
  EXPECT_EQ(l.getInDimNames(),
            (llvm::SmallVector<std::string>{"register", "lane", "warp"}));
  EXPECT_EQ(l.getOutDimNames(),
            (llvm::SmallVector<std::string>{"dim0", "dim1"}));
  EXPECT_TRUE(l.hasInDim("lane"));
  EXPECT_FALSE(l.hasInDim("block"));
  EXPECT_TRUE(l.hasOutDim("dim1"));
  EXPECT_FALSE(l.hasOutDim("dim2"));
  EXPECT_EQ(l.getInDimSize("lane"), 32);
  EXPECT_EQ(l.getInDimSizeLog2("lane"), 5);
  EXPECT_EQ(l.getOutDimSize("dim0"), 32);
  EXPECT_EQ(l.getOutDimSizeLog2("dim1"), 4);
  EXPECT_EQ(l.getTotalInDimSize(), 4 * 32 * 4);
  EXPECT_EQ(l.getTotalOutDimSize(), 32 * 16);
  EXPECT_EQ(l.getTotalInDimSizeLog2(), 9);
  EXPECT_EQ(l.getBasis("lane", 2), (LinearLayout::BasisVec{1, 0}));
  EXPECT_EQ(l.getBasis("register", 1, "dim1"), 2);
  EXPECT_EQ(l.getBasis("warp", 1, "dim0"), 16);
}

TEST(LinearLayout, FromBases) {
  LinearLayout l = LinearLayout::fromBases(
      {{"register", {{0, 1}, {0, 2}}}, {"lane", {{1, 0}, {4, 0}, {0, 0}}}},
      {"dim0", "dim1"});
  EXPECT_EQ(l.getOutDimSize("dim0"), 8);
  EXPECT_EQ(l.getOutDimSize("dim1"), 4);
  EXPECT_EQ(l.getInDimSize("lane"), 8);
  LinearLayout z = LinearLayout::fromBases({{"lane", {{0}, {0}}}}, {"dim0"});
  EXPECT_EQ(z.getOutDimSize("dim0"), 1);
}

TEST(LinearLayoutDeathTest, ProgrammerErrors) {
  // Sizes must be powers of two; entries must fit; names must exist.
  EXPECT_DEATH(LinearLayout::identity1D(12, "lane", "dim0"),
               "not a positive power of two");
  EXPECT_DEATH(LinearLayout({{"lane", {{1}}}}, {{"dim0", 3}}),
               "not a positive power of two");
  EXPECT_DEATH(LinearLayout({{"lane", {{4}}}}, {{"dim0", 4}}),
               "outside out dim");
  EXPECT_DEATH(LinearLayout({{"lane", {{1, 0}}}}, {{"dim0", 4}}),
               "entries, expected");
  EXPECT_DEATH(blocked().getInDimSize("block"), "no in dim 'block'");
  EXPECT_DEATH(blocked().apply({{"lane", 0}}), "no value for in dim");
  EXPECT_DEATH(blocked().apply({{"register", 4}, {"lane", 0}, {"warp", 0}}),
               "out of range");
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

TEST(LinearLayout, ApplyIsXorOfBases) {
  LinearLayout l({{"register", {{1, 2}, {3, 0}}}, {"lane", {{2, 3}}}},
                 {{"dim0", 4}, {"dim1", 4}});
  // Explicitly: r=3, lane=1 -> (1^3^2, 2^0^3) = (0, 1).
  EXPECT_EQ(toMap(l.apply({{"lane", 1}, {"register", 3}})),
            (Outs{{"dim0", 0}, {"dim1", 1}}));
  for (int32_t r = 0; r < 4; ++r)
    for (int32_t ln = 0; ln < 2; ++ln) {
      int32_t d0 = ((r & 1) ? 1 : 0) ^ ((r & 2) ? 3 : 0) ^ (ln ? 2 : 0);
      int32_t d1 = ((r & 1) ? 2 : 0) ^ (ln ? 3 : 0);
      auto out = l.apply({{"register", r}, {"lane", ln}});
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[0], (DimValue{"dim0", d0}));
      EXPECT_EQ(out[1], (DimValue{"dim1", d1}));
      EXPECT_EQ(l.applyFlat(r + 4 * ln), d0 + 4 * d1);
    }
}

TEST(LinearLayout, ApplyRandom) {
  std::mt19937 rng(1);
  for (int t = 0; t < 50; ++t) {
    LinearLayout l = randomLayout(rng);
    for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
      Ins in = inputOf(l, x);
      Outs expected = ref(l, in);
      Ins reversed(in.rbegin(), in.rend());
      ASSERT_EQ(toMap(l.apply(reversed)), expected);
      ASSERT_EQ(l.applyFlat(static_cast<int32_t>(x)), flatOut(l, expected));
    }
  }
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

/// (a*b)(x_a, x_b) == a(x_a) combined with b(x_b) shifted, for all inputs.
void checkProduct(const LinearLayout &a, const LinearLayout &b) {
  LinearLayout p = a * b;
  // Dim order: a's then b's new ones.
  auto pIns = p.getInDimNames();
  auto expectedIns = a.getInDimNames();
  for (const std::string &n : b.getInDimNames())
    if (!a.hasInDim(n))
      expectedIns.push_back(n);
  ASSERT_EQ(pIns, expectedIns);
  auto expectedOuts = a.getOutDimNames();
  for (const std::string &n : b.getOutDimNames())
    if (!a.hasOutDim(n))
      expectedOuts.push_back(n);
  ASSERT_EQ(p.getOutDimNames(), expectedOuts);
  for (const std::string &n : expectedOuts)
    ASSERT_EQ(p.getOutDimSize(n),
              (a.hasOutDim(n) ? a.getOutDimSize(n) : 1) *
                  (b.hasOutDim(n) ? b.getOutDimSize(n) : 1));

  for (int64_t xa = 0; xa < a.getTotalInDimSize(); ++xa)
    for (int64_t xb = 0; xb < b.getTotalInDimSize(); ++xb) {
      Outs ia = insMap(inputOf(a, xa)), ib = insMap(inputOf(b, xb));
      Ins in;
      for (const std::string &n : pIns) {
        int32_t v = 0;
        if (ia.count(n))
          v = ia[n];
        if (ib.count(n))
          v += ib[n] << (a.hasInDim(n) ? a.getInDimSizeLog2(n) : 0);
        in.push_back({n, v});
      }
      Outs oa = ref(a, inputOf(a, xa)), ob = ref(b, inputOf(b, xb));
      Outs expected;
      for (const std::string &n : expectedOuts)
        expected[n] = (oa.count(n) ? oa[n] : 0) +
                      ((ob.count(n) ? ob[n] : 0)
                       << (a.hasOutDim(n) ? a.getOutDimSizeLog2(n) : 0));
      ASSERT_EQ(ref(p, in), expected);
      ASSERT_EQ(toMap(p.apply(in)), expected);
    }
}

TEST(LinearLayout, ProductCrafted) {
  LinearLayout regs = LinearLayout::identity1D(4, "register", "dim1");
  LinearLayout lanes = LinearLayout::identity1D(8, "lane", "dim1") *
                       LinearLayout::identity1D(4, "lane", "dim0");
  LinearLayout p = regs * lanes;
  // Registers are the low 2 bits of dim1, lanes the next 3, then dim0.
  EXPECT_EQ(p,
            LinearLayout({{"register", {{1, 0}, {2, 0}}},
                          {"lane", {{4, 0}, {8, 0}, {16, 0}, {0, 1}, {0, 2}}}},
                         {{"dim1", 32}, {"dim0", 4}}));
  checkProduct(regs, lanes);
  // Shared in dim: b's bits after a's.
  LinearLayout q = LinearLayout::identity1D(2, "register", "dim0") *
                   LinearLayout::identity1D(4, "register", "dim1");
  EXPECT_EQ(q.getInDimSize("register"), 8);
  EXPECT_EQ(q.getBasis("register", 1), (LinearLayout::BasisVec{0, 1}));
  checkProduct(LinearLayout::identity1D(2, "register", "dim0"),
               LinearLayout::identity1D(4, "register", "dim1"));
  // Zeros and disjoint dims.
  checkProduct(LinearLayout::zeros1D(4, "lane", "dim0", 2),
               LinearLayout::identity1D(4, "warp", "dim0"));
}

TEST(LinearLayout, ProductRandom) {
  std::mt19937 rng(2);
  for (int t = 0; t < 60; ++t) {
    LinearLayout a = randomLayout(rng, randomDims(rng, kHw, rng() % 5),
                                  randomDims(rng, kDims, rng() % 5));
    LinearLayout b = randomLayout(rng, randomDims(rng, kHw, rng() % 5),
                                  randomDims(rng, {"dim1", "dim2"}, rng() % 5));
    checkProduct(a, b);
  }
}

TEST(LinearLayout, ComposeRandom) {
  std::mt19937 rng(3);
  for (int t = 0; t < 100; ++t) {
    auto mid = randomDims(rng, {"x", "y"}, rng() % 7);
    LinearLayout l1 = randomLayout(
        rng, randomDims(rng, {"register", "lane"}, rng() % 7), mid);
    // Outer's in dims in the other order, possibly larger.
    std::vector<std::pair<std::string, int>> outerIns = {
        {"y", mid[1].second + static_cast<int>(rng() % 2)},
        {"x", mid[0].second + static_cast<int>(rng() % 2)}};
    LinearLayout l2 =
        randomLayout(rng, outerIns, randomDims(rng, kDims, rng() % 7));
    LinearLayout c = l1.compose(l2);
    EXPECT_EQ(c.getInDims(), l1.getInDims());
    EXPECT_EQ(c.getOutDims(), l2.getOutDims());
    for (int64_t x = 0; x < l1.getTotalInDimSize(); ++x) {
      Outs mid1 = ref(l1, inputOf(l1, x));
      Ins midIns(mid1.begin(), mid1.end());
      ASSERT_EQ(ref(c, inputOf(c, x)), ref(l2, midIns));
    }
  }
}

TEST(LinearLayout, ComposeWithIdentity) {
  LinearLayout l = blocked();
  LinearLayout id = LinearLayout::identity1D(32, "dim0", "dim0") *
                    LinearLayout::identity1D(16, "dim1", "dim1");
  EXPECT_EQ(l.compose(id), l);
}

/// inv(L)(L(x)) == x and L(inv(L)(y)) == y for all x, y.
void checkInverse(const LinearLayout &l, const LinearLayout &inv) {
  EXPECT_EQ(inv.getInDims(), l.getOutDims());
  EXPECT_EQ(inv.getOutDims(), l.getInDims());
  for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
    Ins in = inputOf(l, x);
    Outs y = ref(l, in);
    ASSERT_EQ(ref(inv, Ins(y.begin(), y.end())), insMap(in));
  }
  for (int64_t yf = 0; yf < inv.getTotalInDimSize(); ++yf) {
    Ins y = inputOf(inv, yf);
    Outs x = ref(inv, y);
    ASSERT_EQ(ref(l, Ins(x.begin(), x.end())), insMap(y));
  }
}

TEST(LinearLayout, InvertCrafted) {
  LinearLayout l = blocked();
  std::optional<LinearLayout> inv = l.invert();
  ASSERT_TRUE(inv.has_value());
  checkInverse(l, *inv);
  EXPECT_EQ(inv->invert(), l);

  // Swizzle-like: dim1 ^= dim0.
  LinearLayout s({{"offset", {{1, 0}, {2, 0}, {1, 1}, {2, 2}}}},
                 {{"dim1", 4}, {"dim0", 4}});
  ASSERT_TRUE(s.invert().has_value());
  checkInverse(s, *s.invert());
}

TEST(LinearLayout, InvertFails) {
  // Broadcast (a zero basis): not injective.
  LinearLayout b({{"lane", {{1}, {0}}}}, {{"dim0", 4}});
  EXPECT_FALSE(b.isInvertible());
  EXPECT_EQ(b.invert(), std::nullopt);
  // Sizes differ.
  LinearLayout wide({{"lane", {{1}, {2}}}}, {{"dim0", 8}});
  EXPECT_TRUE(wide.isInjective());
  EXPECT_EQ(wide.invert(), std::nullopt);
  EXPECT_EQ(LinearLayout::zeros1D(4, "lane", "dim0", 2).invert(), std::nullopt);
  // Dependent bases.
  LinearLayout d({{"lane", {{1}, {2}, {3}}}}, {{"dim0", 8}});
  EXPECT_EQ(d.invert(), std::nullopt);
}

TEST(LinearLayout, InvertRandom) {
  std::mt19937 rng(4);
  for (int t = 0; t < 100; ++t) {
    LinearLayout l = randomInvertible(rng, static_cast<int>(rng() % 9));
    std::optional<LinearLayout> inv = l.invert();
    ASSERT_TRUE(inv.has_value()) << l.toString();
    checkInverse(l, *inv);
    EXPECT_EQ(*inv->invert(), l);
  }
}

/// L(R(y)) == y for all y.
void checkRightInverse(const LinearLayout &l, const LinearLayout &r) {
  EXPECT_EQ(r.getInDims(), l.getOutDims());
  EXPECT_EQ(r.getOutDims(), l.getInDims());
  for (int64_t yf = 0; yf < r.getTotalInDimSize(); ++yf) {
    Ins y = inputOf(r, yf);
    Outs x = ref(r, y);
    ASSERT_EQ(ref(l, Ins(x.begin(), x.end())), insMap(y));
  }
}

TEST(LinearLayout, PseudoinvertBroadcast) {
  // 4 registers and 8 lanes over 8 elements: lane bits 0 and 2 broadcast,
  // lane bit 1 duplicates register bit 0.
  LinearLayout l({{"register", {{1}, {2}}}, {"lane", {{0}, {1}, {4}, {0}}}},
                 {{"dim0", 8}});
  EXPECT_TRUE(l.isSurjective());
  EXPECT_FALSE(l.isInjective());
  EXPECT_EQ(l.invert(), std::nullopt);
  std::optional<LinearLayout> r = l.pseudoinvert();
  ASSERT_TRUE(r.has_value());
  checkRightInverse(l, *r);
  // The free variables (lane bits 0, 1, 3) are 0: registers are preferred.
  for (int32_t y = 0; y < 8; ++y) {
    Outs x = toMap(r->apply({{"dim0", y}}));
    EXPECT_EQ(x["register"], y & 3);
    EXPECT_EQ(x["lane"], (y & 4) ? 4 : 0);
  }
}

TEST(LinearLayout, PseudoinvertRandom) {
  std::mt19937 rng(5);
  for (int t = 0; t < 100; ++t) {
    int outBits = static_cast<int>(rng() % 6);
    int inBits = outBits + static_cast<int>(rng() % 3);
    LinearLayout l = randomSurjective(rng, inBits, outBits);
    std::optional<LinearLayout> r = l.pseudoinvert();
    ASSERT_TRUE(r.has_value()) << l.toString();
    checkRightInverse(l, *r);
  }
  // Not surjective.
  EXPECT_EQ(LinearLayout::zeros1D(4, "lane", "dim0", 2).pseudoinvert(),
            std::nullopt);
  LinearLayout notSurj({{"lane", {{1}, {1}}}}, {{"dim0", 4}});
  EXPECT_EQ(notSurj.pseudoinvert(), std::nullopt);
}

TEST(LinearLayout, InvertAndComposeRandom) {
  std::mt19937 rng(6);
  for (int t = 0; t < 100; ++t) {
    int tBits = static_cast<int>(rng() % 6);
    // this: X -> T (anything), outer: Y -> T surjective.
    LinearLayout outer =
        randomSurjective(rng, tBits + static_cast<int>(rng() % 3), tBits);
    std::vector<std::pair<std::string, int>> tDims;
    for (const DimSize &d : outer.getOutDims())
      tDims.push_back({d.first, llvm::Log2_32(d.second)});
    LinearLayout self =
        randomLayout(rng, randomDims(rng, {"src", "lane"}, rng() % 7), tDims);
    std::optional<LinearLayout> r = self.invertAndCompose(outer);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->getInDims(), self.getInDims());
    EXPECT_EQ(r->getOutDims(), outer.getInDims());
    for (int64_t x = 0; x < self.getTotalInDimSize(); ++x) {
      Ins in = inputOf(self, x);
      Outs y = ref(r.value(), in);
      ASSERT_EQ(ref(outer, Ins(y.begin(), y.end())), ref(self, in));
    }
  }
}

TEST(LinearLayout, InvertAndComposeConversion) {
  // Converting a blocked layout to its transpose-in-registers variant: for
  // every (register, lane, warp) of the source, where does the target hold the
  // same element?
  LinearLayout src = blocked();
  LinearLayout dst =
      LinearLayout({{"register", {{1, 0}, {2, 0}}},
                    {"lane", {{4, 0}, {0, 1}, {0, 2}, {0, 4}, {0, 8}}},
                    {"warp", {{8, 0}, {16, 0}}}},
                   {{"dim0", 32}, {"dim1", 16}});
  std::optional<LinearLayout> r = src.invertAndCompose(dst);
  ASSERT_TRUE(r.has_value());
  for (int64_t x = 0; x < src.getTotalInDimSize(); ++x) {
    Ins in = inputOf(src, x);
    Outs y = ref(*r, in);
    ASSERT_EQ(ref(dst, Ins(y.begin(), y.end())), ref(src, in));
  }
  // A smaller out dim in `this` and an extra out dim in outer.
  LinearLayout small = LinearLayout::identity1D(4, "lane", "dim0");
  LinearLayout big = LinearLayout::identity1D(8, "register", "dim1") *
                     LinearLayout::identity1D(16, "register", "dim0");
  std::optional<LinearLayout> r2 = small.invertAndCompose(big);
  ASSERT_TRUE(r2.has_value());
  for (int32_t ln = 0; ln < 4; ++ln)
    EXPECT_EQ(toMap(r2->apply({{"lane", ln}})), (Outs{{"register", ln * 8}}));
  // Not in the image of outer.
  LinearLayout notSurj({{"register", {{2}}}}, {{"dim0", 4}});
  EXPECT_EQ(small.invertAndCompose(notSurj), std::nullopt);
}

TEST(LinearLayout, Transposes) {
  std::mt19937 rng(7);
  for (int t = 0; t < 50; ++t) {
    LinearLayout l =
        randomLayout(rng, randomDims(rng, kHw, rng() % 9),
                     randomDims(rng, {"dim0", "dim1", "dim2"}, rng() % 9));
    LinearLayout to = l.transposeOuts({"dim2", "dim0", "dim1"});
    EXPECT_EQ(to.getOutDimNames(),
              (llvm::SmallVector<std::string>{"dim2", "dim0", "dim1"}));
    LinearLayout ti = l.transposeIns({"warp", "block", "register", "lane"});
    EXPECT_EQ(ti.getInDimNames(), (llvm::SmallVector<std::string>{
                                      "warp", "block", "register", "lane"}));
    for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
      Ins in = inputOf(l, x);
      ASSERT_EQ(ref(to, in), ref(l, in));
      ASSERT_EQ(ref(ti, in), ref(l, in));
    }
    EXPECT_EQ(to.transposeOuts({"dim0", "dim1", "dim2"}), l);
    EXPECT_EQ(ti.transposeIns({"register", "lane", "warp", "block"}), l);
  }
}

TEST(LinearLayout, Reshapes) {
  std::mt19937 rng(8);
  for (int t = 0; t < 50; ++t) {
    LinearLayout l = randomLayout(rng);
    // Random new dims of the same totals.
    std::vector<DimSize> newOuts, newIns;
    for (const auto &d :
         randomDims(rng, {"a", "b", "c"}, l.getTotalOutDimSizeLog2()))
      newOuts.push_back({d.first, 1 << d.second});
    for (const auto &d : randomDims(rng, {"p", "q"}, l.getTotalInDimSizeLog2()))
      newIns.push_back({d.first, 1 << d.second});
    LinearLayout ro = l.reshapeOuts(newOuts);
    LinearLayout ri = l.reshapeIns(newIns);
    EXPECT_EQ(ro.getOutDims(),
              llvm::SmallVector<DimSize>(newOuts.begin(), newOuts.end()));
    EXPECT_EQ(ri.getInDims(),
              llvm::SmallVector<DimSize>(newIns.begin(), newIns.end()));
    expectSameFlatMap(l, ro);
    expectSameFlatMap(l, ri);
    expectSameFlatMap(l, l.flattenOuts("flat").flattenIns("flat"));
    EXPECT_EQ(ro.reshapeOuts(l.getOutDims()), l);
    EXPECT_EQ(ri.reshapeIns(l.getInDims()), l);
  }
  // Explicit: a 4x8 identity (dim0 fastest) reshaped to one dim of 32.
  LinearLayout id = LinearLayout::identity1D(4, "i", "dim0") *
                    LinearLayout::identity1D(8, "i", "dim1");
  LinearLayout flat = id.reshapeOuts({{"x", 32}});
  for (int32_t i = 0; i < 32; ++i)
    EXPECT_EQ(toMap(flat.apply({{"i", i}})), (Outs{{"x", i}}));
}

TEST(LinearLayout, Sublayout) {
  std::mt19937 rng(9);
  for (int t = 0; t < 50; ++t) {
    LinearLayout l = randomLayout(rng);
    LinearLayout s = l.sublayout({"warp", "register"}, {"dim1"});
    EXPECT_EQ(s.getInDimNames(),
              (llvm::SmallVector<std::string>{"register", "warp"}));
    EXPECT_EQ(s.getOutDimNames(), llvm::SmallVector<std::string>{"dim1"});
    EXPECT_EQ(s.getOutDimSize("dim1"), l.getOutDimSize("dim1"));
    bool zero = true;
    for (int64_t x = 0; x < s.getTotalInDimSize(); ++x) {
      Ins in = inputOf(s, x);
      Ins full = in;
      full.push_back({"lane", 0});
      full.push_back({"block", 0});
      Outs expected = {{"dim1", ref(l, full)["dim1"]}};
      ASSERT_EQ(ref(s, in), expected);
      zero &= expected["dim1"] == 0;
    }
    EXPECT_EQ(l.sublayoutIsZero({"register", "warp"}, {"dim1"}), zero);
  }
  LinearLayout b = blocked();
  EXPECT_TRUE(b.sublayoutIsZero({"register"}, {"dim0"}));
  EXPECT_FALSE(b.sublayoutIsZero({"register"}, {"dim1"}));
  EXPECT_TRUE(b.sublayoutIsZero({"warp"}, {"dim1"}));
  EXPECT_TRUE(b.sublayoutIsZero({}, {"dim0", "dim1"}));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

TEST(LinearLayout, RankCrafted) {
  LinearLayout inj({{"lane", {{1}, {2}}}}, {{"dim0", 8}});
  EXPECT_EQ(inj.getRank(), 2);
  EXPECT_TRUE(inj.isInjective());
  EXPECT_FALSE(inj.isSurjective());
  EXPECT_FALSE(inj.isInvertible());

  LinearLayout surj({{"lane", {{1}, {2}, {3}}}}, {{"dim0", 4}});
  EXPECT_EQ(surj.getRank(), 2);
  EXPECT_FALSE(surj.isInjective());
  EXPECT_TRUE(surj.isSurjective());

  LinearLayout neither({{"lane", {{1, 1}, {0, 0}}}}, {{"a", 2}, {"b", 2}});
  EXPECT_EQ(neither.getRank(), 1);
  EXPECT_FALSE(neither.isInjective());
  EXPECT_FALSE(neither.isSurjective());

  EXPECT_TRUE(blocked().isInvertible());
  EXPECT_EQ(blocked().getRank(), 9);
}

TEST(LinearLayout, RankRandom) {
  std::mt19937 rng(10);
  for (int t = 0; t < 200; ++t) {
    LinearLayout l = randomLayout(rng);
    int64_t image = imageSize(l);
    ASSERT_EQ(int64_t(1) << l.getRank(), image) << l.toString();
    EXPECT_EQ(l.isSurjective(), image == l.getTotalOutDimSize());
    EXPECT_EQ(l.isInjective(), image == l.getTotalInDimSize());
    EXPECT_EQ(l.isInvertible(), l.isSurjective() && l.isInjective());
  }
}

TEST(LinearLayout, NumConsecutiveInOut) {
  // blocked(): register -> dim1, but dim1 is not the first out dim.
  EXPECT_EQ(blocked().getNumConsecutiveInOut(), 1);
  EXPECT_EQ(blocked().transposeOuts({"dim1", "dim0"}).getNumConsecutiveInOut(),
            4);
  // 4 registers contiguous along dim0.
  LinearLayout four(
      {{"register", {{1, 0}, {2, 0}, {0, 1}}}, {"lane", {{4, 0}, {8, 0}}}},
      {{"dim0", 16}, {"dim1", 2}});
  EXPECT_EQ(four.getNumConsecutiveInOut(), 4);
  // Register bit 1 goes to dim1: only 2.
  LinearLayout two({{"register", {{1, 0}, {0, 1}, {2, 0}}}},
                   {{"dim0", 4}, {"dim1", 2}});
  EXPECT_EQ(two.getNumConsecutiveInOut(), 2);
  // Register bit 0 broadcasts: 1.
  EXPECT_EQ(
      LinearLayout::zeros1D(4, "register", "dim0", 4).getNumConsecutiveInOut(),
      1);
  // Contiguous but not in order, or not starting at 1.
  LinearLayout gap({{"register", {{1, 0}, {4, 0}}}},
                   {{"dim0", 8}, {"dim1", 2}});
  EXPECT_EQ(gap.getNumConsecutiveInOut(), 2);
  LinearLayout swapped({{"register", {{2, 0}, {1, 0}}}},
                       {{"dim0", 4}, {"dim1", 2}});
  EXPECT_EQ(swapped.getNumConsecutiveInOut(), 1);

  // The brute-force definition: the largest 2^k such that registers 0..2^k-1
  // (other inputs 0) map to 0..2^k-1 along the first out dim, others 0.
  auto bruteForce = [](const LinearLayout &l) {
    std::string first = l.getInDimNames()[0];
    std::string out = l.getOutDimNames()[0];
    for (int32_t n = l.getInDimSize(first); n > 1; n /= 2) {
      bool ok = true;
      for (int32_t r = 0; r < n && ok; ++r) {
        Ins in;
        for (const std::string &d : l.getInDimNames())
          in.push_back({d, d == first ? r : 0});
        for (const auto &[name, v] : ref(l, in))
          ok &= v == (name == out ? r : 0);
      }
      if (ok)
        return n;
    }
    return 1;
  };
  for (const LinearLayout &l : {blocked(), four, two, gap, swapped})
    EXPECT_EQ(l.getNumConsecutiveInOut(), bruteForce(l)) << l.toString();
  // Random layouts biased towards identity-like register bases.
  std::mt19937 rng(11);
  for (int t = 0; t < 100; ++t) {
    std::vector<InDimBases> bases = randomLayout(rng).getBases();
    std::vector<DimSize> outs = {{"dim0", 256}, {"dim1", 4}};
    for (InDimBases &in : bases)
      for (size_t bit = 0; bit < in.second.size(); ++bit) {
        auto &v = in.second[bit];
        v = {static_cast<int32_t>(rng() % 3 ? 1 << bit : rng() % 256),
             static_cast<int32_t>(rng() % 4 ? 0 : rng() % 4)};
      }
    LinearLayout l(bases, outs);
    EXPECT_EQ(l.getNumConsecutiveInOut(), bruteForce(l)) << l.toString();
  }
}

TEST(LinearLayout, FreeVariableMasks) {
  // 8 elements held by 2 registers x 32 lanes x 2 warps: lane bits 2 and 4
  // and the warp bit broadcast.
  LinearLayout l({{"register", {{1}}},
                  {"lane", {{2}, {4}, {0}, {0}, {0}}},
                  {"warp", {{0}}}},
                 {{"dim0", 8}});
  auto masks = l.getFreeVariableMasks();
  ASSERT_EQ(masks.size(), 3u);
  EXPECT_EQ(masks[0], (std::pair<std::string, int32_t>{"register", 0}));
  EXPECT_EQ(masks[1], (std::pair<std::string, int32_t>{"lane", 0b11100}));
  EXPECT_EQ(masks[2], (std::pair<std::string, int32_t>{"warp", 1}));
  // Brute force: flipping a masked bit never changes the output; flipping an
  // unmasked one always does (linearity).
  for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
    Ins in = inputOf(l, x);
    for (size_t i = 0; i < in.size(); ++i)
      for (int bit = 0; bit < l.getInDimSizeLog2(in[i].first); ++bit) {
        Ins flipped = in;
        flipped[i].second ^= 1 << bit;
        bool same = ref(l, flipped) == ref(l, in);
        EXPECT_EQ(same, ((masks[i].second >> bit) & 1) != 0);
      }
  }
}

TEST(LinearLayout, IdentityStandardND) {
  std::vector<std::string> names = {"dim0", "dim1"};
  // order [1, 0]: dim1 fastest (row-major).
  LinearLayout rm = identityStandardND("offset", {4, 8}, {1, 0}, names);
  EXPECT_EQ(rm.getInDimNames(), llvm::SmallVector<std::string>{"offset"});
  EXPECT_EQ(rm.getOutDims(),
            (llvm::SmallVector<DimSize>{{"dim0", 4}, {"dim1", 8}}));
  for (int32_t i = 0; i < 32; ++i)
    EXPECT_EQ(toMap(rm.apply({{"offset", i}})),
              (Outs{{"dim0", i / 8}, {"dim1", i % 8}}));
  // order [0, 1]: dim0 fastest (column-major).
  LinearLayout cm = identityStandardND("offset", {4, 8}, {0, 1}, names);
  EXPECT_EQ(cm.getOutDims(),
            (llvm::SmallVector<DimSize>{{"dim0", 4}, {"dim1", 8}}));
  for (int32_t i = 0; i < 32; ++i)
    EXPECT_EQ(toMap(cm.apply({{"offset", i}})),
              (Outs{{"dim0", i % 4}, {"dim1", i / 4}}));
  EXPECT_TRUE(rm.isInvertible());
  // A size-1 dim.
  LinearLayout one = identityStandardND("offset", {1, 8}, {1, 0}, names);
  EXPECT_EQ(one.getOutDimSize("dim0"), 1);
  EXPECT_EQ(one.getInDimSize("offset"), 8);
}

TEST(LinearLayout, EnsureLayoutCoversShapeGrows) {
  // A 32x16 CTA tile on a 64x16 tensor: registers repeat along dim0.
  LinearLayout cta = blocked();
  LinearLayout l = ensureLayoutCoversShape(cta, {64, 16}, {"dim0", "dim1"});
  EXPECT_EQ(l.getOutDims(),
            (llvm::SmallVector<DimSize>{{"dim0", 64}, {"dim1", 16}}));
  EXPECT_EQ(l.getInDimSize("register"), 8);
  EXPECT_EQ(l.getBasis("register", 2), (LinearLayout::BasisVec{32, 0}));
  EXPECT_TRUE(l.isInvertible());
  for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
    Outs in = insMap(inputOf(l, x));
    int32_t reg = in["register"];
    Ins base = {
        {"register", reg & 3}, {"lane", in["lane"]}, {"warp", in["warp"]}};
    Outs expected = ref(cta, base);
    expected["dim0"] += (reg >> 2) * 32;
    ASSERT_EQ(ref(l, inputOf(l, x)), expected);
  }
  // No "register" dim: one is added first.
  LinearLayout lanes = LinearLayout::identity1D(4, "lane", "dim0");
  LinearLayout g = ensureLayoutCoversShape(lanes, {16}, {"dim0"});
  EXPECT_EQ(g.getInDimNames(),
            (llvm::SmallVector<std::string>{"register", "lane"}));
  EXPECT_EQ(g, LinearLayout({{"register", {{4}, {8}}}, {"lane", {{1}, {2}}}},
                            {{"dim0", 16}}));
}

TEST(LinearLayout, EnsureLayoutCoversShapeShrinks) {
  // The 32x16 tile on an 8x16 tensor: the warps (dim0 8 and 16) broadcast.
  LinearLayout cta = blocked();
  LinearLayout l = ensureLayoutCoversShape(cta, {8, 16}, {"dim0", "dim1"});
  EXPECT_EQ(l.getOutDims(),
            (llvm::SmallVector<DimSize>{{"dim0", 8}, {"dim1", 16}}));
  auto masks = l.getFreeVariableMasks();
  EXPECT_EQ(masks[0].second, 0);
  EXPECT_EQ(masks[1].second, 0);
  EXPECT_EQ(masks[2].second, 0b11);
  EXPECT_TRUE(l.isSurjective());
  for (int64_t x = 0; x < l.getTotalInDimSize(); ++x) {
    Ins in = inputOf(l, x);
    Outs expected = ref(cta, in);
    expected["dim0"] %= 8;
    ASSERT_EQ(ref(l, in), expected);
  }
  // Lanes along dim1 of a 1x32 layout on a 4-wide tensor: lanes 4..16
  // broadcast; out dims reordered as asked.
  LinearLayout row = LinearLayout::identity1D(32, "lane", "dim1") *
                     LinearLayout::identity1D(1, "lane", "dim0");
  LinearLayout s = ensureLayoutCoversShape(row, {1, 4}, {"dim0", "dim1"});
  EXPECT_EQ(s,
            LinearLayout({{"lane", {{0, 1}, {0, 2}, {0, 0}, {0, 0}, {0, 0}}}},
                         {{"dim0", 1}, {"dim1", 4}}));
  // Both at once: shrink dim1, grow dim0.
  LinearLayout both = ensureLayoutCoversShape(row, {4, 16}, {"dim0", "dim1"});
  EXPECT_EQ(both,
            LinearLayout({{"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}},
                          {"register", {{1, 0}, {2, 0}}}},
                         {{"dim0", 4}, {"dim1", 16}})
                .transposeIns({"register", "lane"}));
}

TEST(LinearLayout, Equality) {
  LinearLayout a = LinearLayout::identity1D(4, "lane", "dim0");
  EXPECT_EQ(a, LinearLayout({{"lane", {{1}, {2}}}}, {{"dim0", 4}}));
  EXPECT_NE(a, LinearLayout({{"lane", {{2}, {1}}}}, {{"dim0", 4}}));
  EXPECT_NE(a, LinearLayout({{"lane", {{1}, {2}}}}, {{"dim0", 8}}));
  EXPECT_NE(a, LinearLayout::identity1D(4, "warp", "dim0"));
  EXPECT_NE(a, LinearLayout::identity1D(4, "lane", "dim1"));
  LinearLayout two = LinearLayout::identity1D(2, "r", "x") *
                     LinearLayout::identity1D(2, "l", "y");
  EXPECT_NE(two, two.transposeIns({"l", "r"}));
  EXPECT_NE(two, two.transposeOuts({"y", "x"}));
  EXPECT_EQ(two, two.transposeIns({"l", "r"}).transposeIns({"r", "l"}));
}

TEST(LinearLayout, ToString) {
  LinearLayout l({{"register", {{0, 1}, {1, 0}}}, {"lane", {}}},
                 {{"dim0", 2}, {"dim1", 2}});
  EXPECT_EQ(l.toString(), " - register=1 -> (0, 1)\n"
                          "   register=2 -> (1, 0)\n"
                          " - lane is a size 1 dimension\n"
                          "where out dims are: [dim0 (size 2), dim1 (size 2)]");
}

//===----------------------------------------------------------------------===//
// Randomized algebraic identities
//===----------------------------------------------------------------------===//

TEST(LinearLayout, RandomIdentities) {
  std::mt19937 rng(2024);
  int numSurjective = 0, numInvertible = 0;
  for (int t = 0; t < 200; ++t) {
    // Half of them bijective, to exercise the inverse identities.
    LinearLayout l = t % 2 ? randomLayout(rng)
                           : randomInvertible(rng, static_cast<int>(rng() % 9));
    numSurjective += l.isSurjective();
    numInvertible += l.isInvertible();
    // Compose with identities on either side.
    LinearLayout idIn, idOut;
    for (const DimSize &d : l.getInDims())
      idIn *= LinearLayout::identity1D(d.second, d.first, d.first);
    for (const DimSize &d : l.getOutDims())
      idOut *= LinearLayout::identity1D(d.second, d.first, d.first);
    ASSERT_EQ(idIn.compose(l), l);
    ASSERT_EQ(l.compose(idOut), l);

    // Rank of a product is the sum of ranks.
    LinearLayout m = randomLayout(rng);
    ASSERT_EQ((l * m).getRank(), l.getRank() + m.getRank());

    // Reshape/flatten round trips and compose agrees with flat evaluation.
    LinearLayout f = l.flattenIns("i").flattenOuts("o");
    for (int32_t x = 0; x < f.getTotalInDimSize(); ++x)
      ASSERT_EQ(toMap(f.apply({{"i", x}}))["o"], l.applyFlat(x));

    if (l.isSurjective()) {
      LinearLayout r = *l.pseudoinvert();
      // L o R == id on the outputs.
      ASSERT_EQ(r.compose(l), idOut);
      // invertAndCompose against itself is a valid self-map: L(R(x)) == L(x).
      LinearLayout self = *l.invertAndCompose(l);
      ASSERT_EQ(self.compose(l), l);
    }
    if (l.isInvertible()) {
      LinearLayout inv = *l.invert();
      ASSERT_EQ(l.compose(inv), idIn);
      ASSERT_EQ(inv.compose(l), idOut);
      ASSERT_EQ(*inv.invert(), l);
      // (a*b)^-1 == a^-1 * b^-1 for invertible factors on disjoint dims.
      LinearLayout other =
          randomInvertible(rng, static_cast<int>(rng() % 4))
              .transposeIns({"register", "lane", "warp", "block"});
      LinearLayout renamed =
          other
              .reshapeIns({{"x0", other.getInDimSize("register")},
                           {"x1", other.getInDimSize("lane")},
                           {"x2", other.getInDimSize("warp")},
                           {"x3", other.getInDimSize("block")}})
              .reshapeOuts({{"e0", other.getOutDimSize("dim0")},
                            {"e1", other.getOutDimSize("dim1")}});
      LinearLayout prod = l * renamed;
      ASSERT_TRUE(prod.isInvertible());
      ASSERT_EQ(*prod.invert(), *l.invert() * *renamed.invert());
    } else {
      ASSERT_EQ(l.invert(), std::nullopt);
    }
  }
  EXPECT_GE(numInvertible, 100);
  EXPECT_GT(numSurjective, numInvertible);
}

} // namespace
