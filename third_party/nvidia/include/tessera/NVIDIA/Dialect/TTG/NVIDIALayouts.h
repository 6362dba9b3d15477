//===- NVIDIALayouts.h - NVIDIA's ttg layouts -------------------*- C++ -*-===//
//
// #ttg.nvidia_mma, the accumulator layout of mma.sync (version 2) and wgmma
// (version 3), and the registration that adds it to the ttg dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_H
#define TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_H

#include "tessera/Dialect/TTG/IR/Dialect.h"

#define GET_ATTRDEF_CLASSES
#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessera::nvidia {

/// Adds NVIDIA's layouts to the ttg dialect whenever it is loaded in a
/// context using `registry`.
void registerLayouts(mlir::DialectRegistry &registry);

} // namespace tessera::nvidia

#endif // TESSERA_NVIDIA_DIALECT_TTG_NVIDIALAYOUTS_H
