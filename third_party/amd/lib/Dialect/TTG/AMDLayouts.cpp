//===- AMDLayouts.cpp - #ttg.amd_mfma ------------------------------------------===//
//
// amd_mfma, instrShape [16, 16, 16] (v_mfma_f32_16x16x16{f16,bf16}, wave64;
// [16, 16, 4] is v_mfma_f32_16x16x4f32: the same with one K per lane and
// tile, lane l at K l / 16), as the CDNA ISA documents its operands and
// results:
//   C/D (16 x 16): lane l holds column l % 16, rows 4 * (l / 16) + i for its
//     registers i = 0..3 (register bits: row +1, +2; lane bits: column +1,
//     +2, +4, +8, then row +4, +8);
//   A (16 x 16, M x K): lane l holds row l % 16, K 4 * (l / 16) + i (register
//     bits: K +1, +2; lane bits: row +1 .. +8, then K +4, +8);
//   B (16 x 16, K x N): lane l holds column l % 16, K 4 * (l / 16) + i.
// Warps tile N first, then M; operand A's warps along N hold copies, and so
// do B's along M. Larger tensors repeat the warps' tile in registers.
// amd_wmma (v_wmma_f32_16x16x16_{f16,bf16}, RDNA3, wave32), as the RDNA3 ISA
// lays it out: D element i of lane l at row 2 * i + l / 16, column l % 16; A
// lane l: row l % 16, K 0..15 (registers); B lane l: column l % 16, K 0..15;
// lanes 16..31 of A and B copy lanes 0..15. Warps as for amd_mfma.
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/Dialect/TTG/AMDLayouts.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/TypeSwitch.h"
#include "tessera/Dialect/TTG/IR/LayoutSyntax.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttg;
using namespace mlir::tessera::ttg::syntax;
using ::tessera::LinearLayout;

// The generated dialect-level parser and printer go unused: the ttg dialect
// dispatches to these layouts through addVendorAttributes.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#define GET_ATTRDEF_CLASSES
#include "tessera/AMD/Dialect/TTG/AMDLayouts.cpp.inc"
#pragma clang diagnostic pop

namespace {

bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// Warp bases: n first (log2 wn bits), then m; a dimension a layout does not
/// split its warps along gets zero bases (copies).
std::vector<LinearLayout::BasisVec> warpBases(ArrayRef<unsigned> warpsPerCTA, bool alongM, bool alongN) {
  std::vector<LinearLayout::BasisVec> warps;
  unsigned wm = warpsPerCTA[0], wn = warpsPerCTA[1];
  for (unsigned i = 1; i < wn; i *= 2)
    warps.push_back({0, alongN ? 16 * int32_t(i) : 0});
  for (unsigned i = 1; i < wm; i *= 2)
    warps.push_back({alongM ? 16 * int32_t(i) : 0, 0});
  return warps;
}

} // namespace

void ::tessera::amd::registerLayouts(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, TTGDialect *dialect) {
    dialect->addVendorAttributes<AMDMfmaEncodingAttr, AMDWmmaEncodingAttr>();
  });
}

LogicalResult AMDMfmaEncodingAttr::verify(EmitErrorFn emitError, unsigned version,
                                          ArrayRef<unsigned> warpsPerCTA, CTALayoutAttr cta,
                                          ArrayRef<unsigned> instrShape) {
  StringRef name = "#ttg.amd_mfma";
  if (version != 2 && version != 3)
    return emitError() << name << " supports version 2 (CDNA2) and 3 (CDNA3), but version is "
                       << version;
  if (warpsPerCTA.size() != 2)
    return emitError() << name << " needs warpsPerCTA of rank 2, but it is "
                       << arrayToString(warpsPerCTA);
  if (failed(verifyPowersOfTwo(emitError, name, "warpsPerCTA", warpsPerCTA)))
    return failure();
  if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] != 16 ||
      !llvm::is_contained({4u, 16u, 32u}, instrShape[2]))
    return emitError() << name << " supports instrShape [16, 16, K] with K 4 (fp32), 16 (16-bit "
                          "operands, int8 on CDNA2) or 32 (int8 and fp8 on CDNA3), but it is "
                       << arrayToString(instrShape);
  return verifyCTARank(emitError, name, cta, 2);
}

Attribute AMDMfmaEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.amd_mfma");
  unsigned version;
  SmallVector<unsigned> warpsPerCTA, instrShape;
  CTALayoutAttr cta;
  if (body.parse() || body.getUnsigned("version", version) ||
      body.getArray("warpsPerCTA", warpsPerCTA) || body.getCTALayout(warpsPerCTA.size(), cta) ||
      body.getArray("instrShape", instrShape) || body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), version, warpsPerCTA, cta, instrShape);
}

void AMDMfmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{version = " << getVersion() << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printCTALayout(printer, getCTALayout(), getRank());
  printer << ", ";
  printArray(printer, "instrShape", getInstrShape());
  printer << "}>";
}

unsigned AMDMfmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }

LogicalResult AMDMfmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                  EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

SmallVector<unsigned> AMDMfmaEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(getCTALayout().getCTAsPerCGA());
}
SmallVector<unsigned> AMDMfmaEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(getCTALayout().getCTASplitNum());
}
SmallVector<unsigned> AMDMfmaEncodingAttr::getCTAOrder() const {
  return SmallVector<unsigned>(getCTALayout().getCTAOrder());
}

/// K elements per lane and tile of an amd_mfma's operands: a quarter of the
/// instruction's K (4 of 16 for 16-bit operands, 1 of 4 for fp32).
static unsigned mfmaKWidth(AMDMfmaEncodingAttr mfma) { return mfma.getInstrShape()[2] / 4; }

LogicalResult AMDMfmaEncodingAttr::verifyDotOperand(function_ref<InFlightDiagnostic()> emitError,
                                                    unsigned opIdx, unsigned kWidth) const {
  if (kWidth != mfmaKWidth(*this))
    return emitError() << "#ttg.dot_op with a #ttg.amd_mfma parent of instrShape "
                       << arrayToString(getInstrShape()) << " needs kWidth = " << mfmaKWidth(*this)
                       << " (K elements per lane of the instruction), but it is " << kWidth;
  return success();
}

std::optional<LinearLayout> AMDMfmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return std::nullopt;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  return fitTile2D({{"register", {{1, 0}, {2, 0}}},
                    {"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}},
                    {"warp", warpBases(getWarpsPerCTA(), true, true)}},
                   16 * wm, 16 * wn, shape);
}

std::optional<LinearLayout>
AMDMfmaEncodingAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape, unsigned opIdx,
                                              unsigned kWidth) const {
  int32_t k = int32_t(mfmaKWidth(*this));
  if (shape.size() != 2 || int32_t(kWidth) != k)
    return std::nullopt;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  // Registers walk K within the lane's k elements; lanes: 16 rows (columns)
  // then K + k, + 2k. One tile spans 4k of K.
  std::vector<LinearLayout::BasisVec> regsA, regsB;
  for (int32_t i = 1; i < k; i *= 2) {
    regsA.push_back({0, i});
    regsB.push_back({i, 0});
  }
  if (opIdx == 0)
    return fitTile2D({{"register", regsA},
                      {"lane", {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, k}, {0, 2 * k}}},
                      {"warp", warpBases(getWarpsPerCTA(), true, false)}},
                     16 * wm, 4 * k, shape);
  return fitTile2D({{"register", regsB},
                    {"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {k, 0}, {2 * k, 0}}},
                    {"warp", warpBases(getWarpsPerCTA(), false, true)}},
                   4 * k, 16 * wn, shape);
}

//===----------------------------------------------------------------------===//
// AMDWmmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult AMDWmmaEncodingAttr::verify(EmitErrorFn emitError, unsigned version,
                                          ArrayRef<unsigned> warpsPerCTA, CTALayoutAttr cta) {
  StringRef name = "#ttg.amd_wmma";
  if (version != 1)
    return emitError() << name << " supports version 1 (RDNA3), but version is " << version;
  if (warpsPerCTA.size() != 2)
    return emitError() << name << " needs warpsPerCTA of rank 2, but it is "
                       << arrayToString(warpsPerCTA);
  if (failed(verifyPowersOfTwo(emitError, name, "warpsPerCTA", warpsPerCTA)))
    return failure();
  return verifyCTARank(emitError, name, cta, 2);
}

Attribute AMDWmmaEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.amd_wmma");
  unsigned version;
  SmallVector<unsigned> warpsPerCTA;
  CTALayoutAttr cta;
  if (body.parse() || body.getUnsigned("version", version) ||
      body.getArray("warpsPerCTA", warpsPerCTA) || body.getCTALayout(warpsPerCTA.size(), cta) ||
      body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), version, warpsPerCTA, cta);
}

void AMDWmmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{version = " << getVersion() << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printCTALayout(printer, getCTALayout(), getRank());
  printer << "}>";
}

unsigned AMDWmmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }

LogicalResult AMDWmmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                  EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

SmallVector<unsigned> AMDWmmaEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(getCTALayout().getCTAsPerCGA());
}
SmallVector<unsigned> AMDWmmaEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(getCTALayout().getCTASplitNum());
}
SmallVector<unsigned> AMDWmmaEncodingAttr::getCTAOrder() const {
  return SmallVector<unsigned>(getCTALayout().getCTAOrder());
}

LogicalResult AMDWmmaEncodingAttr::verifyDotOperand(function_ref<InFlightDiagnostic()> emitError,
                                                    unsigned opIdx, unsigned kWidth) const {
  if (kWidth != 16)
    return emitError() << "#ttg.dot_op with a #ttg.amd_wmma parent needs kWidth = 16 (K elements "
                          "per lane of a 16x16x16 WMMA), but it is "
                       << kWidth;
  return success();
}

std::optional<LinearLayout> AMDWmmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return std::nullopt;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  return fitTile2D({{"register", {{2, 0}, {4, 0}, {8, 0}}},
                    {"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}}},
                    {"warp", warpBases(getWarpsPerCTA(), true, true)}},
                   16 * wm, 16 * wn, shape);
}

std::optional<LinearLayout>
AMDWmmaEncodingAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape, unsigned opIdx,
                                              unsigned kWidth) const {
  if (shape.size() != 2 || kWidth != 16)
    return std::nullopt;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  if (opIdx == 0)
    return fitTile2D({{"register", {{0, 1}, {0, 2}, {0, 4}, {0, 8}}},
                      {"lane", {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}},
                      {"warp", warpBases(getWarpsPerCTA(), true, false)}},
                     16 * wm, 16, shape);
  return fitTile2D({{"register", {{1, 0}, {2, 0}, {4, 0}, {8, 0}}},
                    {"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}},
                    {"warp", warpBases(getWarpsPerCTA(), false, true)}},
                   16, 16 * wn, shape);
}
