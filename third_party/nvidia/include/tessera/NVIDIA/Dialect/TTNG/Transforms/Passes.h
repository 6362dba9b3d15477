//===- Passes.h - NVIDIA's TTGIR passes -------------------------*- C++ -*-===//

#ifndef TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_H
#define TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"

#include <cstdint>

namespace mlir::tessera::ttng {

#define GEN_PASS_DECL
#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/NVIDIA/Dialect/TTNG/Transforms/Passes.h.inc"

/// The swizzle (bytes: 128, 64, 32, or 0 for none) of the shared buffer a
/// TMA copy of a block with `innerBytes` bytes per row uses: the widest
/// dividing it. The host's tensor-map encoder uses the same rule
/// (tessera.runtime.tensor_descriptor.tma_swizzle).
int64_t tmaSwizzleBytes(int64_t innerBytes);

} // namespace mlir::tessera::ttng

#endif // TESSERA_NVIDIA_DIALECT_TTNG_TRANSFORMS_PASSES_H
