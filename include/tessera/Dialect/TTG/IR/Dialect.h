//===- Dialect.h - the ttg dialect ------------------------------*- C++ -*-===//
//
// Declarations of the ttg dialect: layouts (encoding attributes), the
// memory-descriptor and async-token types, and the shared-memory ops.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_DIALECT_H
#define TESSERA_DIALECT_TTG_IR_DIALECT_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/TensorEncoding.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Tools/LinearLayout.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

#include "tessera/Dialect/TTG/IR/TTGDialect.h.inc"

namespace mlir::tessera::ttg {

/// The shared memory of a CTA.
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  StringRef getName() final { return "<SharedMemory>"; }
};

} // namespace mlir::tessera::ttg

#include "tessera/Dialect/TTG/IR/TTGAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/TTG/IR/TTGAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/TTG/IR/TTGTypes.h.inc"

namespace mlir::tessera::ttg {

/// The CTA layout of any layout (null for an attribute that is none).
CTALayoutAttr getCTALayoutOf(Attribute layout);

/// True when `type` is a ranked tensor whose encoding is a distributed layout.
bool hasDistributedLayout(Type type);

/// The value of the module attribute "ttg.num-warps" (or "ttg.num-ctas",
/// "ttg.threads-per-warp") of the nearest enclosing op that has it, if any.
std::optional<int> lookupNumWarps(Operation *op);
std::optional<int> lookupNumCTAs(Operation *op);
std::optional<int> lookupThreadsPerWarp(Operation *op);

} // namespace mlir::tessera::ttg

#define GET_OP_CLASSES
#include "tessera/Dialect/TTG/IR/TTGOps.h.inc"

#endif // TESSERA_DIALECT_TTG_IR_DIALECT_H
