//===- AMDLayouts.h - AMD's ttg layouts -------------------------*- C++ -*-===//
//
// #ttg.amd_mfma and #ttg.amd_wmma, the accumulator layouts of MFMA (CDNA) and
// WMMA (RDNA3) instructions, and the registration that adds them to ttg.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_H
#define TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_H

#include "tessera/Dialect/TTG/IR/Dialect.h"

#define GET_ATTRDEF_CLASSES
#include "tessera/AMD/Dialect/TTG/AMDLayouts.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessera::amd {

/// Adds AMD's layouts to the ttg dialect whenever it is loaded in a context
/// using `registry`.
void registerLayouts(mlir::DialectRegistry &registry);

} // namespace tessera::amd

#endif // TESSERA_AMD_DIALECT_TTG_AMDLAYOUTS_H
