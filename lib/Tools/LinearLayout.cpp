//===- LinearLayout.cpp - GF(2)-linear maps behind every layout -----------===//

#include "tessera/Tools/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

using BasisVec = LinearLayout::BasisVec;
using DimSize = LinearLayout::DimSize;
using DimValue = LinearLayout::DimValue;
using InDimBases = LinearLayout::InDimBases;

/// Total sizes (in and out) are limited to 2^kMaxTotalBits.
static constexpr int32_t kMaxTotalBits = 30;

[[noreturn]] static void fatal(const llvm::Twine &msg) {
  llvm::report_fatal_error("LinearLayout: " + msg);
}

static bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int32_t checkedLog2(int32_t size, StringRef what) {
  if (!isPow2(size))
    fatal(llvm::Twine(what) + " size " + llvm::Twine(size) +
          " is not a positive power of two");
  return static_cast<int32_t>(llvm::Log2_32(static_cast<uint32_t>(size)));
}

/// Splits `flat` into coordinates along `dims` (first dim least significant).
static BasisVec splitFlat(uint64_t flat, ArrayRef<DimSize> dims) {
  BasisVec out;
  for (const DimSize &d : dims) {
    int32_t bits = llvm::Log2_32(static_cast<uint32_t>(d.second));
    out.push_back(static_cast<int32_t>(flat & ((uint64_t(1) << bits) - 1)));
    flat >>= bits;
  }
  return out;
}

/// Whether `names` is a permutation of `of`.
static bool isPermutation(ArrayRef<std::string> names,
                          ArrayRef<std::string> of) {
  if (names.size() != of.size())
    return false;
  llvm::StringSet<> seen;
  for (const std::string &n : names)
    if (!llvm::is_contained(of, n) || !seen.insert(n).second)
      return false;
  return true;
}

namespace {
/// A GF(2) echelon basis of a set of columns (bit vectors of at most 64 bits),
/// remembering for each basis row which columns it combines.
class Gf2Span {
public:
  explicit Gf2Span(ArrayRef<uint64_t> columns) {
    if (columns.size() > 64)
      fatal("too many input bits");
    for (int &p : pivotRow)
      p = -1;
    for (auto [i, c] : llvm::enumerate(columns)) {
      auto [rem, comb] = reduce(c);
      if (rem == 0)
        continue; // column i depends on earlier ones: a free variable
      comb ^= uint64_t(1) << i;
      pivotRow[63 - llvm::countl_zero(rem)] = static_cast<int>(rows.size());
      rows.push_back({rem, comb});
    }
  }

  int32_t rank() const { return static_cast<int32_t>(rows.size()); }

  /// Reduces v by the basis: returns the remainder (0 iff v is in the span)
  /// and the set of columns whose XOR is v minus the remainder.
  std::pair<uint64_t, uint64_t> reduce(uint64_t v) const {
    uint64_t comb = 0;
    for (int b = 63; b >= 0; --b) {
      if (!((v >> b) & 1) || pivotRow[b] < 0)
        continue;
      const auto &row = rows[pivotRow[b]];
      v ^= row.first;
      comb ^= row.second;
    }
    return {v, comb};
  }

private:
  /// (vector, combination of columns); the vector's top bit is its pivot.
  SmallVector<std::pair<uint64_t, uint64_t>, 32> rows;
  int pivotRow[64];
};
} // namespace

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

LinearLayout::LinearLayout(std::vector<InDimBases> basesIn,
                           std::vector<DimSize> outDimsIn)
    : bases(std::move(basesIn)), outDims(std::move(outDimsIn)) {
  llvm::StringSet<> names;
  int32_t totalOut = 0;
  for (const DimSize &d : outDims) {
    if (!names.insert(d.first).second)
      fatal("duplicate out dim '" + d.first + "'");
    totalOut += checkedLog2(d.second, "out dim '" + d.first + "'");
  }
  if (totalOut > kMaxTotalBits)
    fatal("total out size exceeds 2^30");
  names.clear();
  int32_t totalIn = 0;
  for (const InDimBases &in : bases) {
    if (!names.insert(in.first).second)
      fatal("duplicate in dim '" + in.first + "'");
    totalIn += static_cast<int32_t>(in.second.size());
    for (const BasisVec &v : in.second) {
      if (v.size() != outDims.size())
        fatal("a basis vector of in dim '" + in.first + "' has " +
              llvm::Twine(v.size()) + " entries, expected " +
              llvm::Twine(outDims.size()));
      for (auto [j, x] : llvm::enumerate(v))
        if (x < 0 || x >= outDims[j].second)
          fatal("basis entry " + llvm::Twine(x) + " of in dim '" + in.first +
                "' is outside out dim '" + outDims[j].first + "' (size " +
                llvm::Twine(outDims[j].second) + ")");
    }
  }
  if (totalIn > kMaxTotalBits)
    fatal("total in size exceeds 2^30");
}

LinearLayout LinearLayout::fromBases(std::vector<InDimBases> bases,
                                     std::vector<std::string> outDimNames) {
  std::vector<DimSize> outs;
  for (std::string &n : outDimNames)
    outs.push_back({std::move(n), 1});
  for (const InDimBases &in : bases)
    for (const BasisVec &v : in.second) {
      if (v.size() != outs.size())
        fatal("a basis vector of in dim '" + in.first +
              "' does not have one entry per out dim");
      for (auto [j, x] : llvm::enumerate(v)) {
        if (x < 0)
          fatal("negative basis entry in in dim '" + in.first + "'");
        outs[j].second = std::max<int32_t>(
            outs[j].second,
            static_cast<int32_t>(llvm::NextPowerOf2(static_cast<uint64_t>(x))));
      }
    }
  return LinearLayout(std::move(bases), std::move(outs));
}

LinearLayout LinearLayout::identity1D(int32_t size, StringRef inDim,
                                      StringRef outDim) {
  int32_t bits = checkedLog2(size, "identity1D");
  std::vector<BasisVec> vs;
  for (int32_t i = 0; i < bits; ++i)
    vs.push_back({int32_t(1) << i});
  return LinearLayout({{inDim.str(), std::move(vs)}}, {{outDim.str(), size}});
}

LinearLayout LinearLayout::zeros1D(int32_t size, StringRef inDim,
                                   StringRef outDim, int32_t outDimSize) {
  int32_t bits = checkedLog2(size, "zeros1D");
  std::vector<BasisVec> vs(bits, BasisVec{0});
  return LinearLayout({{inDim.str(), std::move(vs)}},
                      {{outDim.str(), outDimSize}});
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

int LinearLayout::findInDim(StringRef name) const {
  for (auto [i, in] : llvm::enumerate(bases))
    if (in.first == name)
      return static_cast<int>(i);
  return -1;
}

int LinearLayout::findOutDim(StringRef name) const {
  for (auto [i, d] : llvm::enumerate(outDims))
    if (d.first == name)
      return static_cast<int>(i);
  return -1;
}

int LinearLayout::inDimIndex(StringRef name) const {
  int i = findInDim(name);
  if (i < 0)
    fatal("no in dim '" + name + "'");
  return i;
}

int LinearLayout::outDimIndex(StringRef name) const {
  int i = findOutDim(name);
  if (i < 0)
    fatal("no out dim '" + name + "'");
  return i;
}

SmallVector<std::string> LinearLayout::getInDimNames() const {
  SmallVector<std::string> r;
  for (const InDimBases &in : bases)
    r.push_back(in.first);
  return r;
}

SmallVector<std::string> LinearLayout::getOutDimNames() const {
  SmallVector<std::string> r;
  for (const DimSize &d : outDims)
    r.push_back(d.first);
  return r;
}

SmallVector<DimSize> LinearLayout::getInDims() const {
  SmallVector<DimSize> r;
  for (const InDimBases &in : bases)
    r.push_back({in.first, int32_t(1) << in.second.size()});
  return r;
}

bool LinearLayout::hasInDim(StringRef name) const {
  return findInDim(name) >= 0;
}
bool LinearLayout::hasOutDim(StringRef name) const {
  return findOutDim(name) >= 0;
}

int32_t LinearLayout::getInDimSizeLog2(StringRef name) const {
  return static_cast<int32_t>(bases[inDimIndex(name)].second.size());
}
int32_t LinearLayout::getInDimSize(StringRef name) const {
  return int32_t(1) << getInDimSizeLog2(name);
}
int32_t LinearLayout::getOutDimSize(StringRef name) const {
  return outDims[outDimIndex(name)].second;
}
int32_t LinearLayout::getOutDimSizeLog2(StringRef name) const {
  return llvm::Log2_32(static_cast<uint32_t>(getOutDimSize(name)));
}

int32_t LinearLayout::getTotalInDimSizeLog2() const {
  int32_t r = 0;
  for (const InDimBases &in : bases)
    r += static_cast<int32_t>(in.second.size());
  return r;
}
int32_t LinearLayout::getTotalOutDimSizeLog2() const {
  int32_t r = 0;
  for (const DimSize &d : outDims)
    r += llvm::Log2_32(static_cast<uint32_t>(d.second));
  return r;
}
int32_t LinearLayout::getTotalInDimSize() const {
  return int32_t(1) << getTotalInDimSizeLog2();
}
int32_t LinearLayout::getTotalOutDimSize() const {
  return int32_t(1) << getTotalOutDimSizeLog2();
}

const BasisVec &LinearLayout::getBasis(StringRef inDim, int32_t bit) const {
  const std::vector<BasisVec> &vs = bases[inDimIndex(inDim)].second;
  if (bit < 0 || bit >= static_cast<int32_t>(vs.size()))
    fatal("bit " + llvm::Twine(bit) + " out of range for in dim '" + inDim +
          "'");
  return vs[bit];
}

int32_t LinearLayout::getBasis(StringRef inDim, int32_t bit,
                               StringRef outDim) const {
  return getBasis(inDim, bit)[outDimIndex(outDim)];
}

SmallVector<DimValue> LinearLayout::apply(ArrayRef<DimValue> ins) const {
  SmallVector<int32_t> values(bases.size(), -1);
  for (const DimValue &in : ins) {
    int i = inDimIndex(in.first);
    if (values[i] != -1)
      fatal("apply: in dim '" + in.first + "' given twice");
    if (in.second < 0 || in.second >= (int32_t(1) << bases[i].second.size()))
      fatal("apply: value " + llvm::Twine(in.second) +
            " out of range for in dim '" + in.first + "'");
    values[i] = in.second;
  }
  for (auto [i, v] : llvm::enumerate(values))
    if (v == -1)
      fatal("apply: no value for in dim '" + bases[i].first + "'");

  BasisVec out(outDims.size(), 0);
  for (auto [i, in] : llvm::enumerate(bases))
    for (auto [bit, v] : llvm::enumerate(in.second))
      if ((values[i] >> bit) & 1)
        for (size_t j = 0; j < out.size(); ++j)
          out[j] ^= v[j];

  SmallVector<DimValue> r;
  for (auto [j, d] : llvm::enumerate(outDims))
    r.push_back({d.first, out[j]});
  return r;
}

uint64_t LinearLayout::flattenOut(ArrayRef<int32_t> values) const {
  uint64_t flat = 0;
  int shift = 0;
  for (auto [j, d] : llvm::enumerate(outDims)) {
    flat |= static_cast<uint64_t>(values[j]) << shift;
    shift += llvm::Log2_32(static_cast<uint32_t>(d.second));
  }
  return flat;
}

BasisVec LinearLayout::unflattenOut(uint64_t flat) const {
  return splitFlat(flat, outDims);
}

SmallVector<uint64_t> LinearLayout::flatColumns() const {
  SmallVector<uint64_t> cols;
  for (const InDimBases &in : bases)
    for (const BasisVec &v : in.second)
      cols.push_back(flattenOut(v));
  return cols;
}

int32_t LinearLayout::applyFlat(int32_t flatIn) const {
  if (flatIn < 0 || flatIn >= getTotalInDimSize())
    fatal("applyFlat: input " + llvm::Twine(flatIn) + " out of range");
  uint64_t out = 0;
  for (auto [i, c] : llvm::enumerate(flatColumns()))
    if ((flatIn >> i) & 1)
      out ^= c;
  return static_cast<int32_t>(out);
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout tessera::operator*(const LinearLayout &a, const LinearLayout &b) {
  // Checked first so that multiplying the sizes below cannot overflow.
  if (a.getTotalOutDimSizeLog2() + b.getTotalOutDimSizeLog2() > kMaxTotalBits)
    fatal("product: total out size exceeds 2^30");
  std::vector<DimSize> outs = a.outDims;
  for (const DimSize &d : b.outDims) {
    int j = a.findOutDim(d.first);
    if (j < 0)
      outs.push_back(d);
    else
      outs[j].second *= d.second;
  }
  // Map each side's out dims to the result's, and the shift of b's images.
  auto convert = [&](const LinearLayout &src, const BasisVec &v,
                     bool shiftShared) {
    BasisVec r(outs.size(), 0);
    for (auto [j, d] : llvm::enumerate(src.outDims)) {
      int k = -1;
      for (auto [kk, o] : llvm::enumerate(outs))
        if (o.first == d.first)
          k = static_cast<int>(kk);
      int32_t x = v[j];
      if (shiftShared && a.hasOutDim(d.first))
        x <<= a.getOutDimSizeLog2(d.first);
      r[k] = x;
    }
    return r;
  };
  std::vector<InDimBases> res;
  for (const InDimBases &in : a.bases) {
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second)
      vs.push_back(convert(a, v, false));
    res.push_back({in.first, std::move(vs)});
  }
  for (const InDimBases &in : b.bases) {
    auto it = llvm::find_if(
        res, [&](const InDimBases &r) { return r.first == in.first; });
    if (it == res.end()) {
      res.push_back({in.first, {}});
      it = std::prev(res.end());
    }
    for (const BasisVec &v : in.second)
      it->second.push_back(convert(b, v, true));
  }
  return LinearLayout(std::move(res), std::move(outs));
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  if (outDims.size() != outer.bases.size())
    fatal("compose: this's out dims must be outer's in dims");
  // For each out dim of this, the index of the matching in dim of outer.
  SmallVector<int> outerIn;
  for (const DimSize &d : outDims) {
    int k = outer.findInDim(d.first);
    if (k < 0)
      fatal("compose: outer has no in dim '" + d.first + "'");
    if (d.second > (int32_t(1) << outer.bases[k].second.size()))
      fatal("compose: out dim '" + d.first + "' is larger than outer's in dim");
    outerIn.push_back(k);
  }
  std::vector<InDimBases> res;
  for (const InDimBases &in : bases) {
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second) {
      BasisVec r(outer.outDims.size(), 0);
      for (auto [j, x] : llvm::enumerate(v))
        for (int bit = 0; x >> bit; ++bit)
          if ((x >> bit) & 1) {
            const BasisVec &ob = outer.bases[outerIn[j]].second[bit];
            for (size_t o = 0; o < r.size(); ++o)
              r[o] ^= ob[o];
          }
      vs.push_back(std::move(r));
    }
    res.push_back({in.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), outer.outDims);
}

std::optional<LinearLayout> LinearLayout::pseudoinvert() const {
  Gf2Span span(flatColumns());
  if (span.rank() != getTotalOutDimSizeLog2())
    return std::nullopt;
  SmallVector<DimSize> inDims = getInDims();
  std::vector<InDimBases> res;
  int shift = 0;
  for (const DimSize &d : outDims) {
    int32_t bits = llvm::Log2_32(static_cast<uint32_t>(d.second));
    std::vector<BasisVec> vs;
    for (int32_t i = 0; i < bits; ++i) {
      auto [rem, comb] = span.reduce(uint64_t(1) << (shift + i));
      (void)rem; // 0: the layout is surjective
      vs.push_back(splitFlat(comb, inDims));
    }
    shift += bits;
    res.push_back({d.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), {inDims.begin(), inDims.end()});
}

std::optional<LinearLayout> LinearLayout::invert() const {
  if (getTotalInDimSizeLog2() != getTotalOutDimSizeLog2() || !isInjective())
    return std::nullopt;
  return pseudoinvert();
}

std::optional<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &outer) const {
  // Position (bit offset) of each of this's out dims in outer's flat output.
  SmallVector<int> offsets;
  for (const DimSize &d : outDims) {
    int k = outer.findOutDim(d.first);
    if (k < 0)
      fatal("invertAndCompose: outer has no out dim '" + d.first + "'");
    if (d.second > outer.outDims[k].second)
      fatal("invertAndCompose: out dim '" + d.first +
            "' is larger than outer's");
    int off = 0;
    for (int o = 0; o < k; ++o)
      off += llvm::Log2_32(static_cast<uint32_t>(outer.outDims[o].second));
    offsets.push_back(off);
  }
  Gf2Span span(outer.flatColumns());
  SmallVector<DimSize> outerIns = outer.getInDims();
  std::vector<InDimBases> res;
  for (const InDimBases &in : bases) {
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second) {
      uint64_t flat = 0;
      for (auto [j, x] : llvm::enumerate(v))
        flat |= static_cast<uint64_t>(x) << offsets[j];
      auto [rem, comb] = span.reduce(flat);
      if (rem != 0)
        return std::nullopt;
      vs.push_back(splitFlat(comb, outerIns));
    }
    res.push_back({in.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), {outerIns.begin(), outerIns.end()});
}

LinearLayout LinearLayout::transposeOuts(ArrayRef<std::string> newOrder) const {
  SmallVector<std::string> names = getOutDimNames();
  if (!isPermutation(newOrder, names))
    fatal("transposeOuts: not a permutation of the out dims");
  SmallVector<int> perm;
  std::vector<DimSize> outs;
  for (const std::string &n : newOrder) {
    perm.push_back(outDimIndex(n));
    outs.push_back(outDims[perm.back()]);
  }
  std::vector<InDimBases> res;
  for (const InDimBases &in : bases) {
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second) {
      BasisVec r;
      for (int p : perm)
        r.push_back(v[p]);
      vs.push_back(std::move(r));
    }
    res.push_back({in.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), std::move(outs));
}

LinearLayout LinearLayout::transposeIns(ArrayRef<std::string> newOrder) const {
  SmallVector<std::string> names = getInDimNames();
  if (!isPermutation(newOrder, names))
    fatal("transposeIns: not a permutation of the in dims");
  std::vector<InDimBases> res;
  for (const std::string &n : newOrder)
    res.push_back(bases[inDimIndex(n)]);
  return LinearLayout(std::move(res), outDims);
}

LinearLayout LinearLayout::reshapeOuts(ArrayRef<DimSize> newOutDims) const {
  int32_t total = 0;
  for (const DimSize &d : newOutDims)
    total += checkedLog2(d.second, "reshapeOuts: out dim '" + d.first + "'");
  if (total != getTotalOutDimSizeLog2())
    fatal("reshapeOuts: total size differs");
  std::vector<InDimBases> res;
  for (const InDimBases &in : bases) {
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second)
      vs.push_back(splitFlat(flattenOut(v), newOutDims));
    res.push_back({in.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), {newOutDims.begin(), newOutDims.end()});
}

LinearLayout LinearLayout::reshapeIns(ArrayRef<DimSize> newInDims) const {
  int32_t total = 0;
  for (const DimSize &d : newInDims)
    total += checkedLog2(d.second, "reshapeIns: in dim '" + d.first + "'");
  if (total != getTotalInDimSizeLog2())
    fatal("reshapeIns: total size differs");
  std::vector<BasisVec> all;
  for (const InDimBases &in : bases)
    all.insert(all.end(), in.second.begin(), in.second.end());
  std::vector<InDimBases> res;
  size_t next = 0;
  for (const DimSize &d : newInDims) {
    int32_t bits = llvm::Log2_32(static_cast<uint32_t>(d.second));
    res.push_back({d.first, std::vector<BasisVec>(all.begin() + next,
                                                  all.begin() + next + bits)});
    next += bits;
  }
  return LinearLayout(std::move(res), outDims);
}

LinearLayout LinearLayout::flattenOuts(StringRef name) const {
  return reshapeOuts({{name.str(), getTotalOutDimSize()}});
}

LinearLayout LinearLayout::flattenIns(StringRef name) const {
  return reshapeIns({{name.str(), getTotalInDimSize()}});
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> inDims,
                                     ArrayRef<std::string> outDimNames) const {
  for (const std::string &n : inDims)
    (void)inDimIndex(n);
  SmallVector<int> keptOuts;
  std::vector<DimSize> outs;
  for (const std::string &n : outDimNames)
    (void)outDimIndex(n);
  for (auto [j, d] : llvm::enumerate(outDims))
    if (llvm::is_contained(outDimNames, d.first)) {
      keptOuts.push_back(static_cast<int>(j));
      outs.push_back(d);
    }
  std::vector<InDimBases> res;
  for (const InDimBases &in : bases) {
    if (!llvm::is_contained(inDims, in.first))
      continue;
    std::vector<BasisVec> vs;
    for (const BasisVec &v : in.second) {
      BasisVec r;
      for (int j : keptOuts)
        r.push_back(v[j]);
      vs.push_back(std::move(r));
    }
    res.push_back({in.first, std::move(vs)});
  }
  return LinearLayout(std::move(res), std::move(outs));
}

bool LinearLayout::sublayoutIsZero(ArrayRef<std::string> inDims,
                                   ArrayRef<std::string> outDimNames) const {
  LinearLayout sub = sublayout(inDims, outDimNames);
  for (const InDimBases &in : sub.bases)
    for (const BasisVec &v : in.second)
      if (llvm::any_of(v, [](int32_t x) { return x != 0; }))
        return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

int32_t LinearLayout::getRank() const { return Gf2Span(flatColumns()).rank(); }

bool LinearLayout::isSurjective() const {
  return getRank() == getTotalOutDimSizeLog2();
}

bool LinearLayout::isInjective() const {
  return getRank() == getTotalInDimSizeLog2();
}

bool LinearLayout::isInvertible() const {
  return getTotalInDimSizeLog2() == getTotalOutDimSizeLog2() && isInjective();
}

int32_t LinearLayout::getNumConsecutiveInOut() const {
  if (bases.empty() || outDims.empty())
    return 1;
  int32_t k = 0;
  for (const BasisVec &v : bases.front().second) {
    if (v[0] != (int32_t(1) << k))
      break;
    if (llvm::any_of(llvm::drop_begin(v), [](int32_t x) { return x != 0; }))
      break;
    ++k;
  }
  return int32_t(1) << k;
}

SmallVector<std::pair<std::string, int32_t>>
LinearLayout::getFreeVariableMasks() const {
  SmallVector<std::pair<std::string, int32_t>> r;
  for (const InDimBases &in : bases) {
    int32_t mask = 0;
    for (auto [bit, v] : llvm::enumerate(in.second))
      if (llvm::all_of(v, [](int32_t x) { return x == 0; }))
        mask |= int32_t(1) << bit;
    r.push_back({in.first, mask});
  }
  return r;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  return outDims == o.outDims && bases == o.bases;
}

std::string LinearLayout::toString() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bases.empty() && outDims.empty())
    return "(empty layout)";
  for (const InDimBases &in : bases) {
    if (in.second.empty()) {
      os << " - " << in.first << " is a size 1 dimension\n";
      continue;
    }
    for (auto [bit, v] : llvm::enumerate(in.second)) {
      os << (bit == 0 ? " - " : "   ") << in.first << "=" << (1u << bit)
         << " -> (";
      llvm::interleaveComma(v, os);
      os << ")\n";
    }
  }
  os << "where out dims are: [";
  llvm::interleaveComma(outDims, os, [&](const DimSize &d) {
    os << d.first << " (size " << d.second << ")";
  });
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// Free functions
//===----------------------------------------------------------------------===//

LinearLayout tessera::identityStandardND(StringRef inDimName,
                                         ArrayRef<int32_t> shape,
                                         ArrayRef<int32_t> order,
                                         ArrayRef<std::string> outDimNames) {
  if (shape.size() != order.size() || shape.size() != outDimNames.size())
    fatal("identityStandardND: shape, order and names differ in rank");
  SmallVector<bool> seen(shape.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= static_cast<int32_t>(shape.size()) || seen[d])
      fatal("identityStandardND: order is not a permutation");
    seen[d] = true;
  }
  LinearLayout r({{inDimName.str(), {}}}, {});
  for (int32_t d : order)
    r *= LinearLayout::identity1D(shape[d], inDimName, outDimNames[d]);
  return r.transposeOuts(outDimNames);
}

LinearLayout
tessera::ensureLayoutCoversShape(const LinearLayout &cta,
                                 ArrayRef<int32_t> shape,
                                 ArrayRef<std::string> outDimNames) {
  if (shape.size() != outDimNames.size())
    fatal("ensureLayoutCoversShape: shape and names differ in rank");
  LinearLayout ordered = cta.transposeOuts(outDimNames);
  std::vector<InDimBases> bases = ordered.getBases();
  SmallVector<DimSize> outs = ordered.getOutDims();
  auto regIt = llvm::find_if(
      bases, [](const InDimBases &in) { return in.first == "register"; });
  for (auto [d, n] : llvm::enumerate(shape)) {
    checkedLog2(n, "ensureLayoutCoversShape: shape");
    int32_t s = outs[d].second;
    if (s > n) {
      for (InDimBases &in : bases)
        for (BasisVec &v : in.second)
          v[d] &= n - 1;
    } else if (s < n) {
      if (regIt == bases.end()) {
        bases.insert(bases.begin(), {"register", {}});
        regIt = bases.begin();
      }
      for (int64_t x = s; x < n; x *= 2) {
        BasisVec v(outs.size(), 0);
        v[d] = static_cast<int32_t>(x);
        regIt->second.push_back(std::move(v));
      }
    }
    outs[d].second = n;
  }
  return LinearLayout(std::move(bases), {outs.begin(), outs.end()});
}
