//===- LinearLayoutConversions.cpp - ttg encodings as LinearLayouts ---------===//
//
// blocked: registers, then lanes, then warps tile the tensor along `order`
// (fastest dim first); the result is fitted to the shape (lanes/warps beyond
// it hold copies, registers repeat to cover a larger shape).
// slice(dim, parent): the parent's layout for the shape with a size-1 `dim`
// inserted, with that dim dropped; registers that become copies are removed.
// A vendor's tensor-core layouts (TensorCoreEncodingTrait) and dot_op layouts
// of them: the vendor's own conversion (third_party/<vendor>).
// Shared layouts map an element offset in shared memory to coordinates:
// swizzled_shared XORs the vector index of a row's elements with
// (row / perPhase) % maxPhase; a vendor's shared layouts give their own
// (SharedEncodingTrait::toSharedLinearLayout).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"

#include "tessera/Dialect/TTG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

static std::vector<std::string> outDimNames(size_t rank) {
  std::vector<std::string> names;
  for (size_t i = 0; i < rank; ++i)
    names.push_back("dim" + std::to_string(i));
  return names;
}

static SmallVector<int32_t> toI32(ArrayRef<unsigned> v) {
  return SmallVector<int32_t>(v.begin(), v.end());
}

/// Drops the register bits whose basis is zero (duplicated registers).
static LinearLayout removeZeroRegisterBases(const LinearLayout &layout) {
  std::vector<LinearLayout::InDimBases> bases = layout.getBases();
  for (auto &[name, vecs] : bases) {
    if (name != "register")
      continue;
    std::vector<LinearLayout::BasisVec> kept;
    for (auto &v : vecs)
      if (llvm::any_of(v, [](int32_t x) { return x != 0; }))
        kept.push_back(v);
    vecs = kept;
  }
  std::vector<LinearLayout::DimSize> outs;
  for (auto &d : layout.getOutDims())
    outs.push_back(d);
  return LinearLayout(bases, outs);
}

LinearLayout mlir::tessera::fitTile2D(std::vector<LinearLayout::InDimBases> bases,
                                      int32_t rows, int32_t cols, ArrayRef<int64_t> shape) {
  std::vector<std::string> outs = outDimNames(2);
  LinearLayout cta(std::move(bases), {{outs[0], rows}, {outs[1], cols}});
  SmallVector<int32_t> shape32(shape.begin(), shape.end());
  return ::tessera::ensureLayoutCoversShape(cta, shape32, outs) *
         LinearLayout::zeros1D(1, "block", outs[0]);
}

static bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static std::optional<LinearLayout> layoutFor(ArrayRef<int64_t> shape,
                                             Attribute encoding) {
  if (!encoding)
    return std::nullopt;
  // A vendor's tensor-core layouts, and dot operands of them, say their own.
  if (auto tensorCore = dyn_cast<ttg::TensorCoreEncodingTrait>(encoding))
    return tensorCore.toLinearLayout(shape);
  if (auto dot = dyn_cast<ttg::DotOperandEncodingAttr>(encoding))
    if (auto tensorCore = dyn_cast<ttg::TensorCoreEncodingTrait>(Attribute(dot.getParent())))
      return tensorCore.toDotOperandLinearLayout(shape, dot.getOpIdx(), dot.getKWidth());
  size_t rank = shape.size();
  std::vector<std::string> outs = outDimNames(rank);
  SmallVector<int32_t> shape32(shape.begin(), shape.end());
  if (auto blocked = dyn_cast<ttg::BlockedEncodingAttr>(encoding)) {
    SmallVector<int32_t> order = toI32(blocked.getOrder());
    LinearLayout cta =
        ::tessera::identityStandardND("register", toI32(blocked.getSizePerThread()), order, outs) *
        ::tessera::identityStandardND("lane", toI32(blocked.getThreadsPerWarp()), order, outs) *
        ::tessera::identityStandardND("warp", toI32(blocked.getWarpsPerCTA()), order, outs);
    LinearLayout fitted = ::tessera::ensureLayoutCoversShape(cta, shape32, outs);
    return fitted * LinearLayout::zeros1D(1, "block", outs.empty() ? "dim0" : outs[0]);
  }
  if (auto linear = dyn_cast<ttg::LinearEncodingAttr>(encoding)) {
    if (linear.getRank() != rank)
      return std::nullopt;
    std::vector<LinearLayout::InDimBases> bases;
    std::pair<const char *, ArrayRef<int32_t>> lists[4] = {{"register", linear.getRegisterBases()},
                                                           {"lane", linear.getLaneBases()},
                                                           {"warp", linear.getWarpBases()},
                                                           {"block", linear.getBlockBases()}};
    for (auto &[name, flat] : lists) {
      std::vector<LinearLayout::BasisVec> vecs;
      for (size_t b = 0; b < flat.size(); b += rank) {
        LinearLayout::BasisVec v(flat.begin() + b, flat.begin() + b + rank);
        for (size_t d = 0; d < rank; ++d)
          if (v[d] >= shape[d])
            return std::nullopt; // the verifier names it
        vecs.push_back(v);
      }
      bases.push_back({name, vecs});
    }
    std::vector<LinearLayout::DimSize> dims;
    for (size_t d = 0; d < rank; ++d)
      dims.push_back({outs[d], static_cast<int32_t>(shape[d])});
    return LinearLayout(bases, dims);
  }
  if (auto slice = dyn_cast<ttg::SliceEncodingAttr>(encoding)) {
    unsigned dim = slice.getDim();
    SmallVector<int64_t> parentShape(shape.begin(), shape.end());
    parentShape.insert(parentShape.begin() + dim, 1);
    std::optional<LinearLayout> parent = layoutFor(parentShape, slice.getParent());
    if (!parent)
      return std::nullopt;
    // Drop out dim `dim` and rename the remaining ones dim0..dimN-1.
    std::vector<LinearLayout::InDimBases> bases;
    for (auto &[name, vecs] : parent->getBases()) {
      std::vector<LinearLayout::BasisVec> nv;
      for (auto &v : vecs) {
        LinearLayout::BasisVec w;
        for (size_t d = 0; d < v.size(); ++d)
          if (d != dim)
            w.push_back(v[d]);
        nv.push_back(w);
      }
      bases.push_back({name, nv});
    }
    std::vector<LinearLayout::DimSize> dims;
    for (size_t d = 0; d < rank; ++d)
      dims.push_back({outs[d], static_cast<int32_t>(shape[d])});
    return removeZeroRegisterBases(LinearLayout(bases, dims));
  }
  return std::nullopt;
}

LinearLayout mlir::tessera::toLinearLayout(RankedTensorType type) {
  std::optional<LinearLayout> layout = layoutFor(type.getShape(), type.getEncoding());
  if (!layout)
    llvm::report_fatal_error("toLinearLayout: unsupported encoding (the caller "
                             "must check supportsLinearLayout first)");
  return *layout;
}

bool mlir::tessera::supportsLinearLayout(RankedTensorType type) {
  return type.getEncoding() && layoutFor(type.getShape(), type.getEncoding()).has_value();
}

/// Offset bases of a swizzled row-major stack: `contig` (the fastest dim) of
/// size C holds runs of `vec` elements whose run index is XOR-ed with
/// (row / perPhase) % maxPhase, rows along `rowDim`; `tileCols` > 0 splits the
/// fastest dim into tiles of that many elements stored one after another.
LinearLayout mlir::tessera::swizzledSharedLayout(ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
                                                 int64_t vec, int64_t perPhase, int64_t maxPhase,
                                                 int64_t tileCols) {
  size_t rank = shape.size();
  std::vector<std::string> outs = outDimNames(rank);
  std::vector<LinearLayout::BasisVec> offset;
  auto basis = [&](size_t dim, int64_t v, int64_t contigExtra) {
    LinearLayout::BasisVec b(rank, 0);
    b[dim] = int32_t(v);
    if (contigExtra)
      b[order[0]] = int32_t(contigExtra);
    offset.push_back(b);
  };
  unsigned contig = order[0];
  int64_t C = shape[contig];
  int64_t W = tileCols > 0 ? std::min(tileCols, C) : C;
  for (int64_t i = 1; i < W; i *= 2)
    basis(contig, i, 0);
  for (size_t o = 1; o < order.size(); ++o) {
    unsigned d = order[o];
    for (int64_t j = 1; j < shape[d]; j *= 2) {
      int64_t phase = o == 1 ? (j / perPhase) % maxPhase : 0;
      basis(d, j, (phase * vec) & (W - 1));
    }
  }
  for (int64_t t = W; t < C; t *= 2)
    basis(contig, t, 0);
  std::vector<LinearLayout::DimSize> dims;
  for (size_t d = 0; d < rank; ++d)
    dims.push_back({outs[d], int32_t(shape[d])});
  return LinearLayout({{"offset", offset}}, dims);
}

std::optional<LinearLayout> mlir::tessera::toSharedLinearLayout(ArrayRef<int64_t> shape,
                                                                Attribute encoding) {
  if (shape.empty() || !llvm::all_of(shape, isPow2))
    return std::nullopt;
  if (auto sw = dyn_cast<ttg::SwizzledSharedEncodingAttr>(encoding)) {
    if (sw.getOrder().size() != shape.size() || !isPow2(sw.getVec()) ||
        !isPow2(sw.getPerPhase()) || !isPow2(sw.getMaxPhase()))
      return std::nullopt;
    return swizzledSharedLayout(shape, sw.getOrder(), sw.getVec(), sw.getPerPhase(), sw.getMaxPhase(), 0);
  }
  // A vendor's shared layouts say their own.
  if (auto shared = dyn_cast<ttg::SharedEncodingTrait>(encoding))
    return shared.toSharedLinearLayout(shape);
  return std::nullopt;
}

/// `layout` with its out dims (dim0.., row-major) reshaped to `shape`, the
/// row-major position of every element kept.
LinearLayout mlir::tessera::reshapeRowMajor(const LinearLayout &layout,
                                            ArrayRef<int64_t> shape) {
  // reshapeOuts flattens with the first out dim least significant: reverse
  // the dims around it.
  std::vector<std::string> reversed;
  for (int64_t d = int64_t(layout.getOutDims().size()) - 1; d >= 0; --d)
    reversed.push_back("dim" + std::to_string(d));
  std::vector<LinearLayout::DimSize> newDims;
  std::vector<std::string> forward(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
    newDims.push_back({"dim" + std::to_string(d), int32_t(shape[d])});
  for (size_t d = 0; d < shape.size(); ++d)
    forward[d] = "dim" + std::to_string(d);
  return layout.transposeOuts(reversed).reshapeOuts(newDims).transposeOuts(forward);
}
