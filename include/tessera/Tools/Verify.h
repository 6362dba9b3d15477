//===- Verify.h - verification that points at source locations -*- C++ -*-===//

#ifndef TESSERA_TOOLS_VERIFY_H
#define TESSERA_TOOLS_VERIFY_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

namespace tessera {

/// Verifies `op` like mlir::verify, but an op whose location has no file
/// position (`loc(unknown)`, as Triton gives constants) is reported at the
/// location of its nearest ancestor that has one. Locations are restored
/// afterwards; the IR is unchanged.
mlir::LogicalResult verifyWithSourceLocations(mlir::Operation *op);

/// A pass running verifyWithSourceLocations; tessera-opt runs it first in
/// place of the verification after parsing.
std::unique_ptr<mlir::Pass> createVerifyWithSourceLocationsPass();

} // namespace tessera

#endif // TESSERA_TOOLS_VERIFY_H
