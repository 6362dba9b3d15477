//===- LayoutConversions.cpp - ttg encodings as LinearLayouts ---------------===//
//
// blocked: registers, then lanes, then warps tile the tensor along `order`
// (fastest dim first); the result is fitted to the shape (lanes/warps beyond
// it hold copies, registers repeat to cover a larger shape).
// slice(dim, parent): the parent's layout for the shape with a size-1 `dim`
// inserted, with that dim dropped; registers that become copies are removed.
// Other encodings (mma, dot operands) come with the dot lowering.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/Utility.h"

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

static std::optional<LinearLayout> layoutFor(ArrayRef<int64_t> shape,
                                             Attribute encoding) {
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
