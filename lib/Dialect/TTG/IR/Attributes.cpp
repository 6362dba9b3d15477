//===- Attributes.cpp - ttg layouts: parsing, printing, verification ------===//
//
// Every layout prints as Triton prints it, `#ttg.<name><{key = value, ...}>`:
// the body is an MLIR dictionary, so the parsers read it as one and take the
// keys they know from it (in any order), reporting missing, mistyped and
// unknown keys. Optional keys are printed only when they differ from their
// default, as Triton does.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LayoutSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttg;

#include "tessera/Dialect/TTG/IR/TTGAttrInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/TTG/IR/TTGAttrs.cpp.inc"

void TTGDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/TTG/IR/TTGAttrs.cpp.inc"
      >();
}

Attribute TTGDialect::parseAttribute(DialectAsmParser &parser, Type type) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Attribute attr;
  OptionalParseResult result = generatedAttributeParser(parser, &mnemonic, type, attr);
  if (result.has_value())
    return attr;
  auto vendor = vendorParsers.find(mnemonic);
  if (vendor != vendorParsers.end())
    return vendor->second(parser, type);
  parser.emitError(loc) << "unknown ttg attribute '#ttg." << mnemonic
                        << "' (a vendor's layouts exist only when its backend is registered)";
  return {};
}

void TTGDialect::printAttribute(Attribute attr, DialectAsmPrinter &printer) const {
  if (succeeded(generatedAttributePrinter(attr, printer)))
    return;
  auto vendor = vendorPrinters.find(attr.getTypeID());
  if (vendor != vendorPrinters.end())
    vendor->second(attr, printer);
}

using namespace mlir::tessera::ttg::syntax;

namespace {

CTALayoutAttr dropCTADim(CTALayoutAttr cta, unsigned dim) {
  SmallVector<unsigned> perCGA, splitNum, order;
  for (unsigned d = 0; d < cta.getRank(); ++d) {
    if (d == dim)
      continue;
    perCGA.push_back(cta.getCTAsPerCGA()[d]);
    splitNum.push_back(cta.getCTASplitNum()[d]);
  }
  for (unsigned d : cta.getCTAOrder())
    if (d != dim)
      order.push_back(d > dim ? d - 1 : d);
  return CTALayoutAttr::get(cta.getContext(), perCGA, splitNum, order);
}

} // namespace

//===----------------------------------------------------------------------===//
// CTALayoutAttr
//===----------------------------------------------------------------------===//

CTALayoutAttr CTALayoutAttr::getDefault(MLIRContext *context, unsigned rank) {
  SmallVector<unsigned> ones(rank, 1), order;
  for (unsigned d = rank; d > 0; --d)
    order.push_back(d - 1);
  return get(context, ones, ones, order);
}

bool CTALayoutAttr::isDefault() const {
  unsigned rank = getRank();
  for (unsigned d = 0; d < rank; ++d)
    if (getCTAsPerCGA()[d] != 1 || getCTASplitNum()[d] != 1 ||
        getCTAOrder()[d] != rank - 1 - d)
      return false;
  return true;
}

LogicalResult CTALayoutAttr::verify(EmitErrorFn emitError,
                                    ArrayRef<unsigned> perCGA,
                                    ArrayRef<unsigned> splitNum,
                                    ArrayRef<unsigned> order) {
  StringRef name = "a CTA layout";
  if (perCGA.size() != splitNum.size() || perCGA.size() != order.size())
    return emitError() << name
                       << " needs CTAsPerCGA, CTASplitNum and CTAOrder of "
                          "one length, but they have lengths "
                       << perCGA.size() << ", " << splitNum.size() << " and "
                       << order.size();
  if (perCGA.empty())
    return emitError() << name << " needs at least one dimension";
  if (failed(verifyPowersOfTwo(emitError, name, "CTAsPerCGA", perCGA)) ||
      failed(verifyPowersOfTwo(emitError, name, "CTASplitNum", splitNum)) ||
      failed(verifyOrder(emitError, name, "CTAOrder", order)))
    return failure();
  for (size_t d = 0; d < perCGA.size(); ++d)
    if (perCGA[d] % splitNum[d] != 0)
      return emitError() << name << " needs CTASplitNum[" << d
                         << "] = " << splitNum[d] << " to divide CTAsPerCGA["
                         << d << "] = " << perCGA[d];
  return success();
}

Attribute CTALayoutAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.cta_layout");
  if (body.parse())
    return {};
  SmallVector<unsigned> perCGA, splitNum, order;
  if (body.getArray("CTAsPerCGA", perCGA) ||
      body.getArray("CTASplitNum", splitNum) ||
      body.getArray("CTAOrder", order) || body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), perCGA, splitNum,
                    order);
}

void CTALayoutAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printArray(printer, "CTAsPerCGA", getCTAsPerCGA());
  printer << ", ";
  printArray(printer, "CTASplitNum", getCTASplitNum());
  printer << ", ";
  printArray(printer, "CTAOrder", getCTAOrder());
  printer << "}>";
}

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedEncodingAttr::verify(EmitErrorFn emitError,
                                          ArrayRef<unsigned> sizePerThread,
                                          ArrayRef<unsigned> threadsPerWarp,
                                          ArrayRef<unsigned> warpsPerCTA,
                                          ArrayRef<unsigned> order,
                                          CTALayoutAttr cta) {
  StringRef name = "#ttg.blocked";
  size_t rank = order.size();
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << name
                       << " needs sizePerThread, threadsPerWarp, warpsPerCTA "
                          "and order of one length (the rank), but they have "
                          "lengths "
                       << sizePerThread.size() << ", " << threadsPerWarp.size()
                       << ", " << warpsPerCTA.size() << " and " << rank;
  if (rank == 0)
    return emitError() << name << " needs a rank of at least 1";
  if (failed(
          verifyPowersOfTwo(emitError, name, "sizePerThread", sizePerThread)) ||
      failed(verifyPowersOfTwo(emitError, name, "threadsPerWarp",
                               threadsPerWarp)) ||
      failed(verifyPowersOfTwo(emitError, name, "warpsPerCTA", warpsPerCTA)) ||
      failed(verifyOrder(emitError, name, "order", order)))
    return failure();
  // One CTA's tile (elements per thread x threads x warps) is at most the
  // largest tensor (kMaxTensorElements): larger tiles describe no tensor the
  // language can make, and overflow the layout arithmetic.
  uint64_t tile = 1;
  for (unsigned factor : llvm::concat<const unsigned>(sizePerThread, threadsPerWarp, warpsPerCTA)) {
    tile *= factor; // each factor < 2^32 and tile <= 2^20 before: no overflow
    if (tile > uint64_t(tt::kMaxTensorElements))
      return emitError() << name << " covers more than " << tt::kMaxTensorElements
                         << " elements per CTA (sizePerThread "
                         << arrayToString(sizePerThread) << ", threadsPerWarp "
                         << arrayToString(threadsPerWarp) << ", warpsPerCTA "
                         << arrayToString(warpsPerCTA) << ")";
  }
  return verifyCTARank(emitError, name, cta, rank);
}

Attribute BlockedEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.blocked");
  SmallVector<unsigned> sizePerThread, threadsPerWarp, warpsPerCTA, order;
  CTALayoutAttr cta;
  if (body.parse() || body.getArray("sizePerThread", sizePerThread) ||
      body.getArray("threadsPerWarp", threadsPerWarp) ||
      body.getArray("warpsPerCTA", warpsPerCTA) ||
      body.getArray("order", order) || body.getCTALayout(order.size(), cta) ||
      body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), sizePerThread,
                    threadsPerWarp, warpsPerCTA, order, cta);
}

void BlockedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  printArray(printer, "sizePerThread", getSizePerThread());
  printer << ", ";
  printArray(printer, "threadsPerWarp", getThreadsPerWarp());
  printer << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printer << ", ";
  printArray(printer, "order", getOrder());
  printCTALayout(printer, getCTALayout(), getRank());
  printer << "}>";
}

unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

LogicalResult BlockedEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                  EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

//===----------------------------------------------------------------------===//
// LinearEncodingAttr
//===----------------------------------------------------------------------===//

static constexpr const char *kLinearInDims[4] = {"register", "lane", "warp", "block"};

LogicalResult LinearEncodingAttr::verify(EmitErrorFn emitError, unsigned rank,
                                         ArrayRef<int32_t> registerBases,
                                         ArrayRef<int32_t> laneBases, ArrayRef<int32_t> warpBases,
                                         ArrayRef<int32_t> blockBases) {
  if (rank == 0)
    return emitError() << "#ttg.linear needs bases of at least one entry (the rank)";
  ArrayRef<int32_t> all[4] = {registerBases, laneBases, warpBases, blockBases};
  for (int i = 0; i < 4; ++i) {
    if (all[i].size() % rank)
      return emitError() << "#ttg.linear: every basis needs " << rank << " entries (the rank), but '"
                         << kLinearInDims[i] << "' has " << all[i].size() << " entries in all";
    for (int32_t v : all[i])
      if (v < 0)
        return emitError() << "#ttg.linear: basis entries are coordinates (>= 0), but '"
                           << kLinearInDims[i] << "' has " << v;
  }
  if (!blockBases.empty() && llvm::any_of(blockBases, [](int32_t v) { return v != 0; }))
    return emitError() << "#ttg.linear: only one CTA per cluster is supported (block bases must be 0)";
  return success();
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.linear");
  if (body.parse())
    return {};
  SmallVector<int32_t> flat[4];
  int64_t rank = -1;
  for (int i = 0; i < 4; ++i) {
    Attribute attr;
    if (body.getAttribute(kLinearInDims[i], attr))
      return {};
    auto complain = [&] {
      parser.emitError(body.getLoc()) << "expected '" << kLinearInDims[i]
                                      << "' of #ttg.linear to be a list of bases (lists of "
                                         "integers of one length), but it is "
                                      << attr;
      return Attribute();
    };
    auto list = dyn_cast<ArrayAttr>(attr);
    if (!list)
      return complain();
    for (Attribute basis : list) {
      auto entries = dyn_cast<ArrayAttr>(basis);
      if (!entries || (rank >= 0 && int64_t(entries.size()) != rank))
        return complain();
      rank = entries.size();
      for (Attribute e : entries) {
        auto integer = dyn_cast<IntegerAttr>(e);
        if (!integer)
          return complain();
        flat[i].push_back(int32_t(integer.getInt()));
      }
    }
  }
  if (body.finish())
    return {};
  if (rank <= 0) {
    parser.emitError(body.getLoc()) << "#ttg.linear needs at least one basis (its rank)";
    return {};
  }
  return getChecked(body.emitErrorFn(), parser.getContext(), unsigned(rank), flat[0], flat[1],
                    flat[2], flat[3]);
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  ArrayRef<int32_t> all[4] = {getRegisterBases(), getLaneBases(), getWarpBases(), getBlockBases()};
  printer << "<{";
  for (int i = 0; i < 4; ++i) {
    if (i)
      printer << ", ";
    printer << kLinearInDims[i] << " = [";
    for (size_t b = 0; b < all[i].size(); b += getRank()) {
      if (b)
        printer << ", ";
      printer << "[";
      llvm::interleaveComma(all[i].slice(b, getRank()), printer);
      printer << "]";
    }
    printer << "]";
  }
  printer << "}>";
}

SmallVector<unsigned> LinearEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(getRank(), 1);
}
SmallVector<unsigned> LinearEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(getRank(), 1);
}
SmallVector<unsigned> LinearEncodingAttr::getCTAOrder() const {
  SmallVector<unsigned> order;
  for (unsigned d = getRank(); d-- > 0;)
    order.push_back(d);
  return order;
}

LogicalResult LinearEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                 EmitErrorFn emitError) const {
  if (failed(verifyTensorRank(emitError, *this, getRank(), shape)))
    return failure();
  // Every entry within the shape, and the bases reaching every element: the
  // span over GF(2) of the flattened coordinates has all log2(numel) bits.
  SmallVector<int> bits;
  int total = 0;
  for (int64_t s : shape) {
    if (s <= 0 || (s & (s - 1)))
      return emitError() << "#ttg.linear needs a shape of powers of two";
    bits.push_back(llvm::Log2_64(s));
    total += bits.back();
  }
  uint64_t pivot[64] = {};
  int spanned = 0;
  for (ArrayRef<int32_t> list : {getRegisterBases(), getLaneBases(), getWarpBases()})
    for (size_t b = 0; b < list.size(); b += getRank()) {
      uint64_t flat = 0;
      int shift = 0;
      for (unsigned d = 0; d < getRank(); ++d) {
        if (list[b + d] >= shape[d])
          return emitError() << "#ttg.linear has a basis entry " << list[b + d] << " along dim " << d
                             << ", outside the tensor's size " << shape[d];
        flat |= uint64_t(list[b + d]) << shift;
        shift += bits[d];
      }
      for (int bit = 63; bit >= 0 && flat; --bit) {
        if (!((flat >> bit) & 1))
          continue;
        if (!pivot[bit]) {
          pivot[bit] = flat;
          ++spanned;
          break;
        }
        flat ^= pivot[bit];
      }
    }
  if (spanned != total)
    return emitError() << "#ttg.linear's bases reach only 2^" << spanned << " of the tensor's 2^"
                       << total << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult SliceEncodingAttr::verify(EmitErrorFn emitError, unsigned dim,
                                        DistributedEncodingTrait parent) {
  if (!parent)
    return emitError() << "#ttg.slice needs a distributed parent layout";
  unsigned rank = parent.getRank();
  if (rank < 2)
    return emitError() << "#ttg.slice must leave at least one dimension, but "
                          "its parent has rank "
                       << rank;
  if (dim >= rank)
    return emitError() << "#ttg.slice needs dim < " << rank
                       << " (the parent's rank), but dim is " << dim;
  return success();
}

Attribute SliceEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.slice");
  unsigned dim;
  Attribute parent;
  if (body.parse() || body.getUnsigned("dim", dim) ||
      body.getAttribute("parent", parent) || body.finish())
    return {};
  auto distributed = dyn_cast<DistributedEncodingTrait>(parent);
  if (!distributed) {
    parser.emitError(body.getLoc())
        << "#ttg.slice needs a distributed parent layout, but the parent is "
        << parent;
    return {};
  }
  return getChecked(body.emitErrorFn(), parser.getContext(), dim, distributed);
}

void SliceEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{dim = " << getDim() << ", parent = " << getParent() << "}>";
}

unsigned SliceEncodingAttr::getRank() const {
  return getParent().getRank() - 1;
}

SmallVector<unsigned> SliceEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(
      dropCTADim(getCTALayoutOf(getParent()), getDim()).getCTAsPerCGA());
}
SmallVector<unsigned> SliceEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(
      dropCTADim(getCTALayoutOf(getParent()), getDim()).getCTASplitNum());
}
SmallVector<unsigned> SliceEncodingAttr::getCTAOrder() const {
  return SmallVector<unsigned>(
      dropCTADim(getCTALayoutOf(getParent()), getDim()).getCTAOrder());
}

LogicalResult SliceEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

//===----------------------------------------------------------------------===//
// DotOperandEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult DotOperandEncodingAttr::verify(EmitErrorFn emitError,
                                             unsigned opIdx,
                                             DistributedEncodingTrait parent,
                                             unsigned kWidth) {
  StringRef name = "#ttg.dot_op";
  if (opIdx > 1)
    return emitError() << name
                       << " needs opIdx 0 (operand A) or 1 (operand B), but "
                          "opIdx is "
                       << opIdx;
  if (!parent)
    return emitError() << name << " needs a distributed parent layout";
  unsigned rank = parent.getRank();
  if (rank != 2 && rank != 3)
    return emitError() << name
                       << " needs a parent of rank 2 (or 3 with a batch "
                          "dimension), but its rank is "
                       << rank;
  if (isa<BlockedEncodingAttr>(parent)) {
    if (kWidth != 0)
      return emitError() << name
                         << " takes no kWidth with a #ttg.blocked parent, but "
                            "kWidth is "
                         << kWidth;
    return success();
  }
  if (auto tensorCore = dyn_cast<TensorCoreEncodingTrait>(Attribute(parent))) {
    if (kWidth == 0)
      return emitError() << name << " needs a non-zero kWidth with the tensor-core parent "
                         << parent;
    return tensorCore.verifyDotOperand(emitError, opIdx, kWidth);
  }
  return emitError() << name
                     << " needs a #ttg.blocked or a tensor-core parent, but "
                        "the parent is "
                     << parent;
}

Attribute DotOperandEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.dot_op");
  unsigned opIdx, kWidth;
  Attribute parent;
  if (body.parse() || body.getUnsigned("opIdx", opIdx) ||
      body.getAttribute("parent", parent) ||
      body.getUnsigned("kWidth", kWidth, /*defaultValue=*/0u) || body.finish())
    return {};
  auto distributed = dyn_cast<DistributedEncodingTrait>(parent);
  if (!distributed) {
    parser.emitError(body.getLoc())
        << "#ttg.dot_op needs a distributed parent layout, but the parent is "
        << parent;
    return {};
  }
  return getChecked(body.emitErrorFn(), parser.getContext(), opIdx, distributed,
                    kWidth);
}

void DotOperandEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{opIdx = " << getOpIdx() << ", parent = " << getParent();
  if (getKWidth() != 0)
    printer << ", kWidth = " << getKWidth();
  printer << "}>";
}

unsigned DotOperandEncodingAttr::getRank() const {
  return getParent().getRank();
}

SmallVector<unsigned> DotOperandEncodingAttr::getCTAsPerCGA() const {
  return cast<LayoutEncodingTrait>(getParent()).getCTAsPerCGA();
}
SmallVector<unsigned> DotOperandEncodingAttr::getCTASplitNum() const {
  return cast<LayoutEncodingTrait>(getParent()).getCTASplitNum();
}
SmallVector<unsigned> DotOperandEncodingAttr::getCTAOrder() const {
  return cast<LayoutEncodingTrait>(getParent()).getCTAOrder();
}

LogicalResult
DotOperandEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                       EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

//===----------------------------------------------------------------------===//
// SwizzledSharedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult SwizzledSharedEncodingAttr::verify(
    EmitErrorFn emitError, unsigned vec, unsigned perPhase, unsigned maxPhase,
    ArrayRef<unsigned> order, CTALayoutAttr cta) {
  StringRef name = "#ttg.swizzled_shared";
  if (failed(verifyPowerOfTwo(emitError, name, "vec", vec)) ||
      failed(verifyPowerOfTwo(emitError, name, "perPhase", perPhase)) ||
      failed(verifyPowerOfTwo(emitError, name, "maxPhase", maxPhase)))
    return failure();
  if (order.empty())
    return emitError() << name << " needs an order of at least one dimension";
  if (failed(verifyOrder(emitError, name, "order", order)))
    return failure();
  return verifyCTARank(emitError, name, cta, order.size());
}

Attribute SwizzledSharedEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.swizzled_shared");
  unsigned vec, perPhase, maxPhase;
  SmallVector<unsigned> order;
  CTALayoutAttr cta;
  if (body.parse() || body.getUnsigned("vec", vec) ||
      body.getUnsigned("perPhase", perPhase) ||
      body.getUnsigned("maxPhase", maxPhase) || body.getArray("order", order) ||
      body.getCTALayout(order.size(), cta) || body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), vec, perPhase,
                    maxPhase, order, cta);
}

void SwizzledSharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{vec = " << getVec() << ", perPhase = " << getPerPhase()
          << ", maxPhase = " << getMaxPhase() << ", ";
  printArray(printer, "order", getOrder());
  printCTALayout(printer, getCTALayout(), getOrder().size());
  printer << "}>";
}

//===----------------------------------------------------------------------===//
// SharedMemorySpaceAttr
//===----------------------------------------------------------------------===//

/// `#ttg.shared_memory`, with nothing after it (the generated parser of a
/// parameterless attribute would ignore a `<...>` that follows).
Attribute SharedMemorySpaceAttr::parse(AsmParser &parser, Type) {
  if (succeeded(parser.parseOptionalLess())) {
    parser.emitError(parser.getCurrentLocation(),
                     "#ttg.shared_memory takes no parameters");
    return {};
  }
  return get(parser.getContext());
}

void SharedMemorySpaceAttr::print(AsmPrinter &) const {}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The LayoutEncodingTrait methods of a layout that stores its CTA layout.
#define TTG_CTA_LAYOUT_FORWARDERS(Attr)                                        \
  SmallVector<unsigned> Attr::getCTAsPerCGA() const {                          \
    return SmallVector<unsigned>(getCTALayout().getCTAsPerCGA());              \
  }                                                                            \
  SmallVector<unsigned> Attr::getCTASplitNum() const {                         \
    return SmallVector<unsigned>(getCTALayout().getCTASplitNum());             \
  }                                                                            \
  SmallVector<unsigned> Attr::getCTAOrder() const {                            \
    return SmallVector<unsigned>(getCTALayout().getCTAOrder());                \
  }

TTG_CTA_LAYOUT_FORWARDERS(BlockedEncodingAttr)
TTG_CTA_LAYOUT_FORWARDERS(SwizzledSharedEncodingAttr)
#undef TTG_CTA_LAYOUT_FORWARDERS

CTALayoutAttr mlir::tessera::ttg::getCTALayoutOf(Attribute layout) {
  auto any = dyn_cast_or_null<LayoutEncodingTrait>(layout);
  if (!any)
    return {};
  return CTALayoutAttr::get(layout.getContext(), any.getCTAsPerCGA(),
                            any.getCTASplitNum(), any.getCTAOrder());
}

bool mlir::tessera::ttg::hasDistributedLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa_and_nonnull<DistributedEncodingTrait>(tensor.getEncoding());
}
