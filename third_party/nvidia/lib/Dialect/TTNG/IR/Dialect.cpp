//===- Dialect.cpp - the ttng dialect -------------------------------------===//

#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera::ttng;

#include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGDialect.cpp.inc"

void TTNGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessera/NVIDIA/Dialect/TTNG/IR/TTNGOps.cpp.inc"
      >();
}
