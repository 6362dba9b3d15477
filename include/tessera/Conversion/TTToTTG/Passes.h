//===- Passes.h - TTIR to TTGIR ---------------------------------*- C++ -*-===//

#ifndef TESSERA_CONVERSION_TTTOTTG_PASSES_H
#define TESSERA_CONVERSION_TTTOTTG_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

namespace mlir::tessera {

#define GEN_PASS_DECL
#include "tessera/Conversion/TTToTTG/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Conversion/TTToTTG/Passes.h.inc"

/// The default blocked layout for a tensor shape: one element per thread per
/// step, lanes then warps along the dims from the fastest (the last) on.
ttg::BlockedEncodingAttr getDefaultBlockedEncoding(MLIRContext *ctx,
                                                   ArrayRef<int64_t> shape,
                                                   int numWarps,
                                                   int threadsPerWarp);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTTOTTG_PASSES_H
