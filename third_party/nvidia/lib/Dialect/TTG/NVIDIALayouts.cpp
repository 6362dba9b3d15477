//===- NVIDIALayouts.cpp - #ttg.nvidia_mma, #ttg.nvmma_shared ----------------------------------===//
//
// nvidia_mma version 2 (mma.sync m16n8k*): each warp holds 16x8 accumulator
// tiles; lane l has rows l/4 and l/4 + 8, columns 2*(l%4) and 2*(l%4) + 1
// (registers: column +1, then row +8). Warps tile n first, then m.
// dot_op of an mma v2 parent, with kWidth = k elements contiguous along K per
// register group: A (16 x 8k per warp): registers walk k along K, then row +8,
// then K + 4k; lanes: K + k, K + 2k, rows +1, +2, +4; warps along m only (warps
// along n hold copies). B (8k x 8): registers K +1..k, then K + 4k; lanes: K + k,
// K + 2k, n +1, +2, +4; warps along n only. These are the fragments of PTX's
// mma.sync.m16n8k{8k} (e.g. k = 2 for f16/bf16, 4 for 8-bit types).
// Version 3 (wgmma): see mmaV3Layout.
// #ttg.nvmma_shared: the shared-memory layout wgmma and TMA use.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"

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
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.cpp.inc"
#pragma clang diagnostic pop

namespace {

/// Warp bases of an mma v2 layout: n first (log2 wn bits), then m.
std::vector<LinearLayout::BasisVec> mmaWarpBases(NvidiaMmaEncodingAttr mma,
                                                        bool alongM, bool alongN,
                                                        int32_t tileM, int32_t tileN) {
  std::vector<LinearLayout::BasisVec> warps;
  unsigned wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  for (unsigned i = 1; i < wn; i *= 2)
    warps.push_back({0, alongN ? tileN * int32_t(i) : 0});
  for (unsigned i = 1; i < wm; i *= 2)
    warps.push_back({alongM ? tileM * int32_t(i) : 0, 0});
  return warps;
}

bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

} // namespace

void ::tessera::nvidia::registerLayouts(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, TTGDialect *dialect) {
    dialect->addVendorAttributes<NvidiaMmaEncodingAttr, NVMMASharedEncodingAttr>();
  });
}

//===----------------------------------------------------------------------===//
// Syntax and verification
//===----------------------------------------------------------------------===//

LogicalResult NvidiaMmaEncodingAttr::verify(EmitErrorFn emitError,
                                            unsigned versionMajor,
                                            unsigned versionMinor,
                                            ArrayRef<unsigned> warpsPerCTA,
                                            CTALayoutAttr cta,
                                            ArrayRef<unsigned> instrShape) {
  StringRef name = "#ttg.nvidia_mma";
  if (versionMajor != 2 && versionMajor != 3)
    return emitError() << name
                       << " supports versionMajor 2 (mma.sync) and 3 (wgmma), "
                          "but versionMajor is "
                       << versionMajor;
  size_t rank = warpsPerCTA.size();
  if (failed(verifyPowersOfTwo(emitError, name, "warpsPerCTA", warpsPerCTA)))
    return failure();
  if (versionMajor == 2) {
    if (rank != 2 && rank != 3)
      return emitError() << name
                         << " version 2 needs warpsPerCTA of rank 2 (or 3 with "
                            "a batch dimension), but it is "
                         << arrayToString(warpsPerCTA);
    SmallVector<unsigned> expected = {16, 8};
    if (rank == 3)
      expected.insert(expected.begin(), 1);
    if (instrShape != ArrayRef<unsigned>(expected))
      return emitError() << name << " version 2 of rank " << rank
                         << " needs instrShape " << arrayToString(expected)
                         << ", but it is " << arrayToString(instrShape);
  } else {
    if (rank != 2)
      return emitError() << name
                         << " version 3 needs warpsPerCTA of rank 2, but it "
                            "is "
                         << arrayToString(warpsPerCTA);
    bool ok = instrShape.size() == 3 && instrShape[0] == 16 &&
              instrShape[1] % 8 == 0 && instrShape[1] >= 8 &&
              instrShape[1] <= 256 &&
              llvm::is_contained({8u, 16u, 32u}, instrShape[2]);
    if (!ok)
      return emitError() << name
                         << " version 3 needs instrShape [16, N, K] with N a "
                            "multiple of 8 in [8, 256] and K 8, 16 or 32, but "
                            "it is "
                         << arrayToString(instrShape);
  }
  return verifyCTARank(emitError, name, cta, rank);
}

Attribute NvidiaMmaEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.nvidia_mma");
  unsigned versionMajor, versionMinor;
  SmallVector<unsigned> warpsPerCTA, instrShape;
  CTALayoutAttr cta;
  if (body.parse() || body.getUnsigned("versionMajor", versionMajor) ||
      body.getUnsigned("versionMinor", versionMinor) ||
      body.getArray("warpsPerCTA", warpsPerCTA) ||
      body.getCTALayout(warpsPerCTA.size(), cta) ||
      body.getArray("instrShape", instrShape) || body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), versionMajor,
                    versionMinor, warpsPerCTA, cta, instrShape);
}

void NvidiaMmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{versionMajor = " << getVersionMajor()
          << ", versionMinor = " << getVersionMinor() << ", ";
  printArray(printer, "warpsPerCTA", getWarpsPerCTA());
  printCTALayout(printer, getCTALayout(), getRank());
  printer << ", ";
  printArray(printer, "instrShape", getInstrShape());
  printer << "}>";
}

unsigned NvidiaMmaEncodingAttr::getRank() const {
  return getWarpsPerCTA().size();
}

LogicalResult
NvidiaMmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                      EmitErrorFn emitError) const {
  return verifyTensorRank(emitError, *this, getRank(), shape);
}

SmallVector<unsigned> NvidiaMmaEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(getCTALayout().getCTAsPerCGA());
}
SmallVector<unsigned> NvidiaMmaEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(getCTALayout().getCTASplitNum());
}
SmallVector<unsigned> NvidiaMmaEncodingAttr::getCTAOrder() const {
  return SmallVector<unsigned>(getCTALayout().getCTAOrder());
}

LogicalResult NvidiaMmaEncodingAttr::verifyDotOperand(function_ref<InFlightDiagnostic()> emitError,
                                                      unsigned opIdx, unsigned kWidth) const {
  if (isHopper() && opIdx != 0)
    return emitError() << "#ttg.dot_op with a #ttg.nvidia_mma version 3 parent must be "
                          "operand A (opIdx = 0): wgmma reads B from shared memory";
  return success();
}

//===----------------------------------------------------------------------===//
// LinearLayouts
//===----------------------------------------------------------------------===//

/// Version 3 (wgmma m64nNk*): warp w of a warpgroup holds rows 16 * (w % 4)
/// .. + 15 of the group's 64-row tile; within a warp the fragment is mma.sync's
/// 16 x 8 tile repeated along N (register bits: column +1, row +8, then
/// columns +8, +16, .. up to N / 2: PTX's accumulator fragment d[i], row
/// 8 * ((i / 2) % 2) + lane / 4, column 8 * (i / 4) + 2 * (lane % 4) + i % 2).
/// Warps: the first log2(warpsPerCTA[0]) bits along M (16 rows each, so
/// four consecutive warps form a warpgroup), the rest along N (instrShape[1]
/// columns each).
static std::optional<LinearLayout> mmaV3Layout(NvidiaMmaEncodingAttr mma,
                                               ArrayRef<int64_t> shape) {
  unsigned wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int32_t n = mma.getInstrShape()[1];
  if (!isPow2(wm) || !isPow2(wn) || wm % 4 || !isPow2(n))
    return std::nullopt;
  std::vector<LinearLayout::BasisVec> regs = {{0, 1}, {8, 0}};
  for (int32_t c = 8; c < n; c *= 2)
    regs.push_back({0, c});
  std::vector<LinearLayout::BasisVec> warps;
  for (unsigned i = 1; i < wm; i *= 2)
    warps.push_back({16 * int32_t(i), 0});
  for (unsigned i = 1; i < wn; i *= 2)
    warps.push_back({0, n * int32_t(i)});
  return fitTile2D({{"register", regs},
                    {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                    {"warp", warps}},
                   16 * wm, n * wn, shape);
}

std::optional<LinearLayout> NvidiaMmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  if (getWarpsPerCTA().size() != 2 || shape.size() != 2)
    return std::nullopt;
  if (isHopper())
    return mmaV3Layout(*this, shape);
  if (!isAmpere())
    return std::nullopt;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  return fitTile2D({{"register", {{0, 1}, {8, 0}}},
                    {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                    {"warp", mmaWarpBases(*this, true, true, 16, 8)}},
                   16 * wm, 8 * wn, shape);
}

std::optional<LinearLayout>
NvidiaMmaEncodingAttr::toDotOperandLinearLayout(ArrayRef<int64_t> shape, unsigned opIdx,
                                                unsigned kWidth) const {
  if (getWarpsPerCTA().size() != 2 || shape.size() != 2)
    return std::nullopt;
  int32_t k = kWidth;
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  if (!isPow2(k) || !isPow2(wm) || !isPow2(wn))
    return std::nullopt;
  if (isHopper()) {
    // wgmma's A operand from registers: per warp the A fragment of mma.sync
    // (16 rows of the warp's quarter of the warpgroup's 64 rows, k elements
    // contiguous along K per register group); warps along N hold copies.
    if (opIdx != 0 || wm % 4)
      return std::nullopt;
    std::vector<LinearLayout::BasisVec> regs;
    for (int32_t i = 1; i < k; i *= 2)
      regs.push_back({0, i});
    regs.push_back({8, 0});
    regs.push_back({0, 4 * k});
    std::vector<LinearLayout::BasisVec> warps;
    for (unsigned i = 1; i < wm; i *= 2)
      warps.push_back({16 * int32_t(i), 0});
    for (unsigned i = 1; i < wn; i *= 2)
      warps.push_back({0, 0});
    return fitTile2D({{"register", regs},
                      {"lane", {{0, k}, {0, 2 * k}, {1, 0}, {2, 0}, {4, 0}}},
                      {"warp", warps}},
                     16 * wm, 8 * k, shape);
  }
  if (!isAmpere())
    return std::nullopt;
  std::vector<LinearLayout::BasisVec> regs;
  if (opIdx == 0) {
    for (int32_t i = 1; i < k; i *= 2)
      regs.push_back({0, i});
    regs.push_back({8, 0});
    regs.push_back({0, 4 * k});
    return fitTile2D({{"register", regs},
                      {"lane", {{0, k}, {0, 2 * k}, {1, 0}, {2, 0}, {4, 0}}},
                      {"warp", mmaWarpBases(*this, true, false, 16, 8)}},
                     16 * wm, 8 * k, shape);
  }
  for (int32_t i = 1; i < k; i *= 2)
    regs.push_back({i, 0});
  regs.push_back({4 * k, 0});
  return fitTile2D({{"register", regs},
                    {"lane", {{k, 0}, {2 * k, 0}, {0, 1}, {0, 2}, {0, 4}}},
                    {"warp", mmaWarpBases(*this, false, true, 16, 8)}},
                   8 * k, 8 * wn, shape);
}

//===----------------------------------------------------------------------===//
// NVMMASharedEncodingAttr
//===----------------------------------------------------------------------===//

/// An nvmma_shared layout without CTA keys describes 2-D tiles.
static constexpr unsigned kNVMMADefaultRank = 2;

LogicalResult NVMMASharedEncodingAttr::verify(
    EmitErrorFn emitError, unsigned swizzlingByteWidth, bool transposed,
    unsigned elementBitWidth, bool fp4Padded, CTALayoutAttr cta) {
  StringRef name = "#ttg.nvmma_shared";
  if (!llvm::is_contained({0u, 32u, 64u, 128u}, swizzlingByteWidth))
    return emitError() << name
                       << " needs swizzlingByteWidth 0, 32, 64 or 128, but it "
                          "is "
                       << swizzlingByteWidth;
  if (!llvm::is_contained({8u, 16u, 32u, 64u}, elementBitWidth))
    return emitError() << name
                       << " needs elementBitWidth 8, 16, 32 or 64, but it is "
                       << elementBitWidth;
  if (fp4Padded && elementBitWidth != 8)
    return emitError() << name
                       << " with fp4Padded needs elementBitWidth 8, but it is "
                       << elementBitWidth;
  if (!cta)
    return emitError() << name << " needs a CTA layout";
  return success();
}

Attribute NVMMASharedEncodingAttr::parse(AsmParser &parser, Type) {
  LayoutBody body(parser, "#ttg.nvmma_shared");
  unsigned swizzlingByteWidth, elementBitWidth;
  bool transposed, fp4Padded;
  CTALayoutAttr cta;
  if (body.parse() ||
      body.getUnsigned("swizzlingByteWidth", swizzlingByteWidth) ||
      body.getBool("transposed", transposed) ||
      body.getUnsigned("elementBitWidth", elementBitWidth) ||
      body.getBool("fp4Padded", fp4Padded, /*defaultValue=*/false) ||
      body.getCTALayout(kNVMMADefaultRank, cta) || body.finish())
    return {};
  return getChecked(body.emitErrorFn(), parser.getContext(), swizzlingByteWidth,
                    transposed, elementBitWidth, fp4Padded, cta);
}

void NVMMASharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{swizzlingByteWidth = " << getSwizzlingByteWidth()
          << ", transposed = " << (getTransposed() ? "true" : "false")
          << ", elementBitWidth = " << getElementBitWidth();
  if (getFp4Padded())
    printer << ", fp4Padded = true";
  printCTALayout(printer, getCTALayout(), kNVMMADefaultRank);
  printer << "}>";
}

SmallVector<unsigned> NVMMASharedEncodingAttr::getCTAsPerCGA() const {
  return SmallVector<unsigned>(getCTALayout().getCTAsPerCGA());
}
SmallVector<unsigned> NVMMASharedEncodingAttr::getCTASplitNum() const {
  return SmallVector<unsigned>(getCTALayout().getCTASplitNum());
}
SmallVector<unsigned> NVMMASharedEncodingAttr::getCTAOrder() const {
  return SmallVector<unsigned>(getCTALayout().getCTAOrder());
}

std::optional<LinearLayout>
NVMMASharedEncodingAttr::toSharedLinearLayout(ArrayRef<int64_t> shape) const {
  if (shape.size() != 2 || getFp4Padded() || !llvm::all_of(shape, isPow2))
    return std::nullopt;
  int64_t bytes = std::max<int64_t>(getElementBitWidth() / 8, 1);
  int64_t width = getSwizzlingByteWidth();
  SmallVector<unsigned> order = getTransposed() ? SmallVector<unsigned>{0, 1}
                                                : SmallVector<unsigned>{1, 0};
  if (width == 0)
    return swizzledSharedLayout(shape, order, 1, 1, 1, 0);
  return swizzledSharedLayout(shape, order, 16 / bytes, 128 / width, width / 16, width / bytes);
}
