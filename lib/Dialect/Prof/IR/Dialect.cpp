//===- Dialect.cpp - the prof dialect ---------------------------------------===//

#include "tessera/Dialect/Prof/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::prof;

#include "tessera/Dialect/Prof/IR/ProfDialect.cpp.inc"

void ProfDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Prof/IR/ProfOps.cpp.inc"
      >();
}

int64_t ProfileLayout::recordsThatFit(int64_t bytes, int64_t numWarps) {
  ProfileLayout l{numWarps, 0};
  if (numWarps <= 0 || bytes <= l.ringsOffset())
    return 0;
  int64_t fit = (bytes - l.ringsOffset()) / (numWarps * kRecordBytes);
  return fit >= 4 ? fit - fit % 4 : fit;
}

// prof.record start "name" / prof.record end "name"
ParseResult RecordOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef kind;
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseKeyword(&kind))
    return failure();
  if (kind != "start" && kind != "end")
    return parser.emitError(at, "expected 'start' or 'end', got '") << kind << "'";
  StringAttr name;
  if (parser.parseAttribute(name, "name", result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (kind == "end")
    result.addAttribute("isEnd", parser.getBuilder().getUnitAttr());
  return success();
}

void RecordOp::print(OpAsmPrinter &p) {
  p << (getIsEnd() ? " end " : " start ");
  p.printAttribute(getNameAttr());
  p.printOptionalAttrDict((*this)->getAttrs(), {"name", "isEnd"});
}

LogicalResult RecordOp::verify() {
  if (getName().empty())
    return emitOpError("needs a scope name");
  if (getName().size() > 256)
    return emitOpError("scope name of ") << getName().size() << " characters is too long (256 at most)";
  return success();
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Prof/IR/ProfOps.cpp.inc"
