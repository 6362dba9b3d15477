//===- ExchangeLayout.cpp - where a layout conversion puts elements in shared memory -===//
//
// The search: candidate plain orders (one dim fastest, the others after it)
// with the lowest p offset bits kept out of any swizzle and vectors capped at
// 2^p elements (so that the swizzles compared all allow the same widths), then, greedily per high offset bit that a lane
// reaches, an XOR into the bank bits above p; each candidate is scored by the
// wavefronts its writes and reads need (exchangeWavefronts) and then by the
// number of access instructions.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/ExchangeLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <tuple>

using namespace mlir::tessera;
using ::tessera::LinearLayout;

int32_t ExchangeLayout::offsetOf(llvm::ArrayRef<int32_t> coords) const {
  int32_t off = 0;
  for (auto [d, c] : llvm::enumerate(coords))
    for (size_t i = 0; i < offsetOfBit[d].size(); ++i)
      if ((c >> i) & 1)
        off ^= offsetOfBit[d][i];
  return off;
}

namespace {

const std::vector<LinearLayout::BasisVec> &basesOf(const LinearLayout &ll, llvm::StringRef dim) {
  static const std::vector<LinearLayout::BasisVec> none;
  for (const auto &[name, vecs] : ll.getBases())
    if (name == dim)
      return vecs;
  return none;
}

/// Rank over GF(2) of a set of bit vectors.
int rankGF2(llvm::ArrayRef<uint32_t> vectors) {
  uint32_t pivot[32] = {};
  int rank = 0;
  for (uint32_t v : vectors) {
    for (int b = 31; b >= 0 && v; --b) {
      if (!((v >> b) & 1))
        continue;
      if (!pivot[b]) {
        pivot[b] = v;
        ++rank;
        break;
      }
      v ^= pivot[b];
    }
  }
  return rank;
}

/// Dims in the order a layout walks them: by first appearance in its
/// register, lane and warp bases, then the rest from the last dim down.
llvm::SmallVector<int> walkOrder(const LinearLayout &ll, int rank) {
  llvm::SmallVector<int> order;
  auto add = [&](int d) {
    if (!llvm::is_contained(order, d))
      order.push_back(d);
  };
  for (llvm::StringRef in : {"register", "lane", "warp"})
    for (const auto &vec : basesOf(ll, in))
      for (int d = 0; d < rank; ++d)
        if (vec[d] != 0)
          add(d);
  for (int d = rank - 1; d >= 0; --d)
    add(d);
  return order;
}

/// The dim of a layout's first register basis when it is a unit step.
int vectorDim(const LinearLayout &ll, int rank) {
  const auto &regs = basesOf(ll, "register");
  if (regs.empty())
    return -1;
  int dim = -1;
  for (int d = 0; d < rank; ++d)
    if (regs[0][d] != 0) {
      if (dim >= 0 || regs[0][d] != 1)
        return -1;
      dim = d;
    }
  return dim;
}

struct Score {
  int64_t wavefronts = 0, instructions = 0;
  bool operator<(const Score &o) const {
    return std::tie(wavefronts, instructions) < std::tie(o.wavefronts, o.instructions);
  }
};

} // namespace

int32_t mlir::tessera::exchangeVector(const ExchangeLayout &x, const LinearLayout &ll,
                                      int64_t elemBytes, const BankModel &banks) {
  const auto &regs = basesOf(ll, "register");
  int32_t v = 1;
  size_t used = 0;
  while (used < regs.size() && 2 * v * elemBytes <= banks.maxVectorBytes &&
         x.offsetOf(regs[used]) == v) {
    v *= 2;
    ++used;
  }
  // Every other basis must move by whole vectors (alignment).
  for (const auto &[name, vecs] : ll.getBases())
    for (auto [i, vec] : llvm::enumerate(vecs)) {
      if (name == "register" && i < used)
        continue;
      int32_t off = x.offsetOf(vec);
      while (v > 1 && off % v)
        v /= 2;
    }
  return v;
}

int64_t mlir::tessera::exchangeWavefronts(const ExchangeLayout &x, const LinearLayout &ll,
                                          int32_t vector, int64_t elemBytes,
                                          const BankModel &banks) {
  const auto &regs = basesOf(ll, "register");
  const auto &lanes = basesOf(ll, "lane");
  int64_t instructions = std::max<int64_t>(1, (int64_t(1) << regs.size()) / vector);
  int64_t unit = std::max<int64_t>(vector * elemBytes, banks.bankBytes);
  int64_t rowBytes = int64_t(banks.banks) * banks.bankBytes;
  // Lanes served together: as many as one row of banks holds units.
  int phaseBits = std::min<int>(lanes.size(), llvm::Log2_64(std::max<int64_t>(1, rowBytes / unit)));
  int64_t phases = int64_t(1) << (lanes.size() - phaseBits);
  int unitShift = llvm::Log2_64(unit);
  uint32_t slotMask = uint32_t(std::max<int64_t>(1, rowBytes / unit) - 1);
  llvm::SmallVector<uint32_t> units, slots;
  for (int i = 0; i < phaseBits; ++i) {
    uint32_t u = uint32_t((int64_t(x.offsetOf(lanes[i])) * elemBytes) >> unitShift);
    units.push_back(u);
    slots.push_back(u & slotMask);
  }
  // The lanes of a phase touch 2^rank(units) distinct units spread over
  // 2^rank(slots) bank slots; each slot serves its units one per wavefront.
  int64_t degree = int64_t(1) << (rankGF2(units) - rankGF2(slots));
  return instructions * phases * degree;
}

ExchangeRead mlir::tessera::exchangeMatrixRead(const ExchangeLayout &x, const LinearLayout &ll,
                                               int64_t elemBytes) {
  const auto &regs = basesOf(ll, "register");
  const auto &lanes = basesOf(ll, "lane");
  if (elemBytes != 2 || regs.size() < 3 || lanes.size() != 5)
    return ExchangeRead::Vectors;
  auto img = [&](const LinearLayout::BasisVec &v) { return x.offsetOf(v); };
  // Everything but the three bases that walk a row must move by whole rows
  // (8 elements), and the row bases must be 1, 2, 4.
  auto fits = [&](std::array<const LinearLayout::BasisVec *, 3> row) {
    for (int i = 0; i < 3; ++i)
      if (img(*row[i]) != (1 << i))
        return false;
    for (const auto &[name, vecs] : ll.getBases())
      for (const auto &v : vecs) {
        if (&v == row[0] || &v == row[1] || &v == row[2])
          continue;
        if (img(v) % 8)
          return false;
      }
    return true;
  };
  if (fits({&regs[0], &lanes[0], &lanes[1]}))
    return ExchangeRead::Matrices;
  if (fits({&lanes[2], &lanes[3], &lanes[4]}))
    return ExchangeRead::TransposedMatrices;
  return ExchangeRead::Vectors;
}

namespace {
/// Wavefronts of the matrix loads of one warp: per instruction, four phases
/// of eight 16-byte rows.
int64_t matrixWavefronts(const ExchangeLayout &x, const LinearLayout &ll, ExchangeRead kind,
                         int64_t elemBytes, const BankModel &banks) {
  const auto &regs = basesOf(ll, "register");
  const auto &lanes = basesOf(ll, "lane");
  int64_t instructions = std::max<int64_t>(1, (int64_t(1) << regs.size()) / 8);
  // The row starts of one matrix: the bases that pick the row.
  std::array<const LinearLayout::BasisVec *, 3> rows =
      kind == ExchangeRead::Matrices
          ? std::array<const LinearLayout::BasisVec *, 3>{&lanes[2], &lanes[3], &lanes[4]}
          : std::array<const LinearLayout::BasisVec *, 3>{&regs[0], &lanes[0], &lanes[1]};
  int64_t rowBytes = int64_t(banks.banks) * banks.bankBytes;
  uint32_t slotMask = uint32_t(rowBytes / 16 - 1);
  llvm::SmallVector<uint32_t> units, slots;
  for (auto *r : rows) {
    uint32_t u = uint32_t((int64_t(x.offsetOf(*r)) * elemBytes) >> 4);
    units.push_back(u);
    slots.push_back(u & slotMask);
  }
  return instructions * 4 * (int64_t(1) << (rankGF2(units) - rankGF2(slots)));
}
} // namespace

ExchangeLayout mlir::tessera::chooseExchangeLayout(const LinearLayout &src,
                                                   const LinearLayout &dst, int64_t elemBytes,
                                                   const BankModel &banks) {
  auto outDims = src.getOutDims();
  int rank = int(outDims.size());
  llvm::SmallVector<int> bits;
  int n = 0;
  int64_t elements = 1;
  for (auto &[name, size] : outDims) {
    bits.push_back(llvm::Log2_32(size));
    n += bits.back();
    elements *= size;
  }
  int log2e = llvm::Log2_64(elemBytes);
  int log2Row = llvm::Log2_64(int64_t(banks.banks) * banks.bankBytes);
  int log2Bank = llvm::Log2_64(banks.bankBytes);
  // Offset bits from `highLo` up pick a row of banks; bits [bankLo, highLo)
  // pick the bank.
  int highLo = std::max(0, log2Row - log2e);
  int bankLo = std::max(0, log2Bank - log2e);

  // Candidate orders: each side's walk order, and each with either side's
  // vector dim first.
  llvm::SmallVector<llvm::SmallVector<int>> orders;
  auto addOrder = [&](llvm::SmallVector<int> o) {
    if (!llvm::is_contained(orders, o))
      orders.push_back(o);
  };
  for (const LinearLayout *walk : {&src, &dst}) {
    llvm::SmallVector<int> base = walkOrder(*walk, rank);
    addOrder(base);
    for (const LinearLayout *v : {&src, &dst}) {
      int d = vectorDim(*v, rank);
      if (d < 0)
        continue;
      llvm::SmallVector<int> o{d};
      for (int e : base)
        if (e != d)
          o.push_back(e);
      addOrder(o);
    }
  }
  int maxProtect = std::min<int>(n, llvm::Log2_64(std::max<int64_t>(1, banks.maxVectorBytes / elemBytes)));

  ExchangeLayout best;
  Score bestScore{INT64_MAX, INT64_MAX};
  // Vectors are capped at the protected bits, so that the swizzle search
  // compares layouts with the same access widths.
  BankModel capped = banks;
  auto score = [&](ExchangeLayout &x) {
    x.writeVector = exchangeVector(x, src, elemBytes, capped);
    x.readVector = exchangeVector(x, dst, elemBytes, capped);
    x.writeWavefronts = exchangeWavefronts(x, src, x.writeVector, elemBytes, banks);
    x.readWavefronts = exchangeWavefronts(x, dst, x.readVector, elemBytes, banks);
    int64_t regsSrc = int64_t(1) << basesOf(src, "register").size();
    int64_t regsDst = int64_t(1) << basesOf(dst, "register").size();
    int64_t readInstructions = regsDst / x.readVector;
    x.read = ExchangeRead::Vectors;
    if (banks.loadMatrices) {
      ExchangeRead kind = exchangeMatrixRead(x, dst, elemBytes);
      if (kind != ExchangeRead::Vectors) {
        int64_t w = matrixWavefronts(x, dst, kind, elemBytes, banks);
        if (w <= x.readWavefronts) {
          x.read = kind;
          x.readWavefronts = w;
          readInstructions = std::max<int64_t>(1, regsDst / 8);
        }
      }
    }
    return Score{x.writeWavefronts + x.readWavefronts, regsSrc / x.writeVector + readInstructions};
  };

  for (const auto &order : orders) {
    // plainPos[d][i]: the offset bit of coordinate bit i of dim d.
    llvm::SmallVector<llvm::SmallVector<int, 8>, 4> plainPos(rank);
    int pos = 0;
    for (int d : order)
      for (int i = 0; i < bits[d]; ++i)
        plainPos[d].push_back(pos++);
    for (int protect = 0; protect <= maxProtect; ++protect) {
      capped.maxVectorBytes = int32_t(std::min<int64_t>(banks.maxVectorBytes, elemBytes << protect));
      int swLo = std::max(protect, bankLo), swHi = std::min(highLo, n);
      // swizzle[h]: XOR into the bank bits for offset bit h >= highLo.
      llvm::SmallVector<int32_t> swizzle(std::max(n, 1), 0);
      ExchangeLayout x;
      x.elements = elements;
      auto build = [&]() {
        x.offsetOfBit.assign(rank, {});
        for (int d = 0; d < rank; ++d)
          for (int p : plainPos[d])
            x.offsetOfBit[d].push_back((int32_t(1) << p) | (p >= highLo ? swizzle[p] : 0));
      };
      build();
      Score current = score(x);
      // The high bits that some lane reaches (only they can conflict).
      llvm::SmallVector<int> highs;
      if (swLo < swHi) {
        for (const LinearLayout *ll : {&src, &dst})
          for (const auto &vec : basesOf(*ll, "lane"))
            for (int d = 0; d < rank; ++d)
              for (int i = 0; i < bits[d]; ++i)
                if (((vec[d] >> i) & 1) && plainPos[d][i] >= highLo &&
                    !llvm::is_contained(highs, plainPos[d][i]))
                  highs.push_back(plainPos[d][i]);
        llvm::sort(highs);
      }
      for (int pass = 0; pass < 2 && !highs.empty(); ++pass)
        for (int h : highs) {
          int32_t keep = swizzle[h];
          for (int32_t m = 0; m < (int32_t(1) << (swHi - swLo)); ++m) {
            if ((m << swLo) == keep)
              continue;
            swizzle[h] = m << swLo;
            build();
            Score s = score(x);
            if (s < current) {
              current = s;
              keep = swizzle[h];
            }
          }
          swizzle[h] = keep;
        }
      build();
      current = score(x);
      if (current < bestScore) {
        bestScore = current;
        best = x;
      }
    }
  }
  return best;
}
