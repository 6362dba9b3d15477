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
#include <optional>
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

llvm::SmallVector<int, 4> mlir::tessera::exchangeVectorRegs(const ExchangeLayout &x, const LinearLayout &ll,
                                                          int64_t elemBytes, const BankModel &banks) {
  const auto &regs = basesOf(ll, "register");
  llvm::SmallVector<int, 4> chosen;
  int32_t v = 1;
  // Greedily: the register whose offset is the vector's next power of two.
  while (2 * v * elemBytes <= banks.maxVectorBytes) {
    int found = -1;
    for (auto [i, vec] : llvm::enumerate(regs))
      if (x.offsetOf(vec) == v)
        found = int(i);
    if (found < 0)
      break;
    chosen.push_back(found);
    v *= 2;
  }
  // Every other basis must move by whole vectors (alignment).
  for (const auto &[name, vecs] : ll.getBases())
    for (auto [i, vec] : llvm::enumerate(vecs)) {
      if (name == "register" && llvm::is_contained(chosen, int(i)))
        continue;
      int32_t off = x.offsetOf(vec);
      while (!chosen.empty() && off % v) {
        chosen.pop_back();
        v /= 2;
      }
    }
  return chosen;
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
  // vector dim first. An order lists coordinate bits (dim, bit), lowest
  // offset bit first.
  using Bit = std::pair<int, int>;
  llvm::SmallVector<llvm::SmallVector<Bit>> orders;
  auto bitsOf = [&](llvm::ArrayRef<int> dims) {
    llvm::SmallVector<Bit> o;
    for (int d : dims)
      for (int i = 0; i < bits[d]; ++i)
        o.push_back({d, i});
    return o;
  };
  auto addOrder = [&](llvm::SmallVector<int> dims) {
    llvm::SmallVector<Bit> o = bitsOf(dims);
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
  // Orders for 8 x 8 matrix reads of 16-bit elements: the three result bases
  // that walk a matrix row (lanes 2..4 across the rows, for transposed
  // loads; register 0 and lanes 0, 1 along them) take offset bits 0..2 when
  // each is one coordinate bit, the other bits follow in each order above.
  // The source then writes 16-byte rows gathered from its registers where
  // it holds them (exchangeVectorRegs). These orders are taken only when
  // they need fewer wavefronts than the best plain one: a buffer as fast by
  // the model but with fewer instructions changed ptxas's register
  // allocation of whole kernels (attention's epilogue, run 127) for the worse.
  size_t plainOrders = orders.size();
  if (banks.loadMatrices && elemBytes == 2) {
    const auto &dregs = basesOf(dst, "register");
    const auto &dlanes = basesOf(dst, "lane");
    auto singleBit = [&](const LinearLayout::BasisVec &v) -> std::optional<Bit> {
      std::optional<Bit> bit;
      for (int d = 0; d < rank; ++d) {
        if (v[d] == 0)
          continue;
        if (bit || !llvm::isPowerOf2_32(uint32_t(v[d])))
          return std::nullopt;
        bit = Bit{d, llvm::Log2_32(uint32_t(v[d]))};
      }
      return bit;
    };
    if (dregs.size() >= 3 && dlanes.size() == 5) {
      llvm::SmallVector<llvm::SmallVector<Bit>> plain(orders.begin(), orders.end());
      for (std::array<const LinearLayout::BasisVec *, 3> row :
           {std::array<const LinearLayout::BasisVec *, 3>{&dlanes[2], &dlanes[3], &dlanes[4]},
            std::array<const LinearLayout::BasisVec *, 3>{&dregs[0], &dlanes[0], &dlanes[1]}}) {
        llvm::SmallVector<Bit> first;
        for (auto *v : row)
          if (std::optional<Bit> b = singleBit(*v); b && !llvm::is_contained(first, *b))
            first.push_back(*b);
        if (first.size() != 3)
          continue;
        for (const auto &o : plain) {
          llvm::SmallVector<Bit> m(first.begin(), first.end());
          for (Bit b : o)
            if (!llvm::is_contained(first, b))
              m.push_back(b);
          if (!llvm::is_contained(orders, m))
            orders.push_back(m);
        }
      }
    }
  }
  int maxProtect = std::min<int>(n, llvm::Log2_64(std::max<int64_t>(1, banks.maxVectorBytes / elemBytes)));

  ExchangeLayout best;
  Score bestScore{INT64_MAX, INT64_MAX};
  // Vectors are capped at the protected bits, so that the swizzle search
  // compares layouts with the same access widths.
  BankModel capped = banks;
  bool gather = false; // the matrix-first orders' writes may gather registers
  auto score = [&](ExchangeLayout &x) {
    // The source writes the widest vectors it can gather; consecutive
    // registers where they are as wide.
    x.writeVector = exchangeVector(x, src, elemBytes, capped);
    x.writeRegs.clear();
    llvm::SmallVector<int, 4> wregs;
    if (gather)
      wregs = exchangeVectorRegs(x, src, elemBytes, capped);
    if ((int32_t(1) << wregs.size()) > x.writeVector) {
      x.writeVector = int32_t(1) << wregs.size();
      x.writeRegs = wregs;
    }
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

  ExchangeLayout bestMatrix;
  Score bestMatrixScore{INT64_MAX, INT64_MAX};
  for (auto [orderIndex, order] : llvm::enumerate(orders)) {
    gather = orderIndex >= plainOrders;
    // plainPos[d][i]: the offset bit of coordinate bit i of dim d.
    llvm::SmallVector<llvm::SmallVector<int, 8>, 4> plainPos(rank);
    for (int d = 0; d < rank; ++d)
      plainPos[d].assign(bits[d], 0);
    for (auto [pos, b] : llvm::enumerate(order))
      plainPos[b.first][b.second] = int(pos);
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
        // (and the result's register 0, a matrix row's step when it loads
        // transposed matrices)
        llvm::SmallVector<LinearLayout::BasisVec> reach;
        for (const LinearLayout *ll : {&src, &dst})
          for (const auto &vec : basesOf(*ll, "lane"))
            reach.push_back(vec);
        if (gather && !basesOf(dst, "register").empty())
          reach.push_back(basesOf(dst, "register")[0]);
        for (const auto &vec : reach)
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
      Score &target = gather ? bestMatrixScore : bestScore;
      if (current < target) {
        target = current;
        (gather ? bestMatrix : best) = x;
      }
    }
  }
  if (bestMatrixScore.wavefronts < bestScore.wavefronts)
    return bestMatrix;
  return best;
}
