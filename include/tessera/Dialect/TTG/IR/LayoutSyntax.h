//===- LayoutSyntax.h - parsing, printing and checking layouts --*- C++ -*-===//
//
// The pieces every ttg layout's parser, printer and verifier share: the
// `<{key = value, ...}>` body as Triton prints it, array and CTA-layout
// printing, and the common checks. For the core's layouts
// (lib/Dialect/TTG/IR/Attributes.cpp) and the layouts a vendor adds to the
// dialect (TTGDialect::addVendorAttributes).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TTG_IR_LAYOUTSYNTAX_H
#define TESSERA_DIALECT_TTG_IR_LAYOUTSYNTAX_H

#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mlir::tessera::ttg::syntax {

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

inline std::string arrayToString(ArrayRef<unsigned> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Parsing the `<{key = value, ...}>` body
//===----------------------------------------------------------------------===//

/// The dictionary body of a layout. The getters mark the keys they read;
/// finish() reports the keys nobody asked for.
class LayoutBody {
public:
  LayoutBody(AsmParser &parser, StringRef layout)
      : parser(parser), layout(layout) {}

  ParseResult parse() {
    loc = parser.getCurrentLocation();
    if (parser.parseLess() || parser.parseAttribute(dict) ||
        parser.parseGreater())
      return failure();
    return success();
  }

  bool has(StringRef key) const { return static_cast<bool>(dict.get(key)); }

  /// A non-negative integer that fits in 32 bits.
  ParseResult getUnsigned(StringRef key, unsigned &value,
                          std::optional<unsigned> defaultValue = {}) {
    Attribute attr = take(key);
    if (!attr) {
      if (defaultValue) {
        value = *defaultValue;
        return success();
      }
      return missing(key);
    }
    auto integer = dyn_cast<IntegerAttr>(attr);
    if (!integer || !isa<IntegerType>(integer.getType()) ||
        !toUnsigned(integer, value))
      return parser.emitError(loc)
             << "expected '" << key << "' of " << layout
             << " to be a non-negative integer, but it is " << attr;
    return success();
  }

  ParseResult getBool(StringRef key, bool &value,
                      std::optional<bool> defaultValue = {}) {
    Attribute attr = take(key);
    if (!attr) {
      if (defaultValue) {
        value = *defaultValue;
        return success();
      }
      return missing(key);
    }
    auto boolean = dyn_cast<BoolAttr>(attr);
    if (!boolean)
      return parser.emitError(loc)
             << "expected '" << key << "' of " << layout
             << " to be true or false, but it is " << attr;
    value = boolean.getValue();
    return success();
  }

  /// An array of non-negative integers; `present` (if given) says whether
  /// the key was there, and then a missing key is not an error.
  ParseResult getArray(StringRef key, SmallVectorImpl<unsigned> &values,
                       bool *present = nullptr) {
    Attribute attr = take(key);
    if (present)
      *present = static_cast<bool>(attr);
    if (!attr)
      return present ? success() : missing(key);
    auto array = dyn_cast<ArrayAttr>(attr);
    auto complain = [&] {
      return parser.emitError(loc)
             << "expected '" << key << "' of " << layout
             << " to be an array of non-negative integers, but it is " << attr;
    };
    if (!array)
      return complain();
    for (Attribute element : array) {
      auto integer = dyn_cast<IntegerAttr>(element);
      unsigned value;
      if (!integer || !isa<IntegerType>(integer.getType()) ||
          !toUnsigned(integer, value))
        return complain();
      values.push_back(value);
    }
    return success();
  }

  ParseResult getAttribute(StringRef key, Attribute &value) {
    value = take(key);
    return value ? success() : missing(key);
  }

  /// CTAsPerCGA, CTASplitNum and CTAOrder: all three or none; none means
  /// the one-CTA layout of rank `defaultRank`.
  ParseResult getCTALayout(unsigned defaultRank, CTALayoutAttr &result) {
    SmallVector<unsigned> perCGA, splitNum, order;
    bool hasPerCGA, hasSplitNum, hasOrder;
    if (getArray("CTAsPerCGA", perCGA, &hasPerCGA) ||
        getArray("CTASplitNum", splitNum, &hasSplitNum) ||
        getArray("CTAOrder", order, &hasOrder))
      return failure();
    if (!hasPerCGA && !hasSplitNum && !hasOrder) {
      result = CTALayoutAttr::getDefault(parser.getContext(), defaultRank);
      return success();
    }
    if (!hasPerCGA || !hasSplitNum || !hasOrder)
      return parser.emitError(loc)
             << layout
             << " needs CTAsPerCGA, CTASplitNum and CTAOrder together, or "
                "none of them";
    result =
        CTALayoutAttr::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), ArrayRef<unsigned>(perCGA),
                                  ArrayRef<unsigned>(splitNum), ArrayRef<unsigned>(order));
    return success(static_cast<bool>(result));
  }

  /// Fails on a key that no getter read.
  ParseResult finish() {
    for (NamedAttribute entry : dict)
      if (!used.contains(entry.getName().getValue()))
        return parser.emitError(loc)
               << "unknown key '" << entry.getName().getValue() << "' in "
               << layout;
    return success();
  }

  SMLoc getLoc() const { return loc; }
  /// A callable for getChecked (which takes it by function_ref, so it must
  /// outlive the call: pass the returned lambda directly).
  auto emitErrorFn() {
    return [this] { return parser.emitError(loc); };
  }

private:
  Attribute take(StringRef key) {
    used.insert(key);
    return dict.get(key);
  }
  ParseResult missing(StringRef key) {
    return parser.emitError(loc) << layout << " needs '" << key << "'";
  }
  static bool toUnsigned(IntegerAttr attr, unsigned &value) {
    if (attr.getType().isInteger(1)) // true/false are not numbers here
      return false;
    const APInt &v = attr.getValue();
    if (v.isNegative())
      return false;
    if (v.getActiveBits() > 32)
      return false;
    value = static_cast<unsigned>(v.getZExtValue());
    return true;
  }

  AsmParser &parser;
  StringRef layout;
  SMLoc loc;
  DictionaryAttr dict;
  llvm::StringSet<> used;
};

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

inline void printArray(AsmPrinter &printer, StringRef key, ArrayRef<unsigned> values) {
  printer << key << " = [";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

/// The CTA keys, after a comma, unless the layout is the one-CTA layout of
/// the rank the parser assumes when they are left out.
inline void printCTALayout(AsmPrinter &printer, CTALayoutAttr cta,
                    unsigned defaultRank) {
  if (cta.isDefault() && cta.getRank() == defaultRank)
    return;
  printer << ", ";
  printArray(printer, "CTAsPerCGA", cta.getCTAsPerCGA());
  printer << ", ";
  printArray(printer, "CTASplitNum", cta.getCTASplitNum());
  printer << ", ";
  printArray(printer, "CTAOrder", cta.getCTAOrder());
}

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

inline LogicalResult verifyPowersOfTwo(EmitErrorFn emitError, StringRef layout,
                                StringRef key, ArrayRef<unsigned> values) {
  for (unsigned v : values)
    if (!llvm::isPowerOf2_32(v))
      return emitError() << layout << " needs powers of two in " << key
                         << ", but it is " << arrayToString(values);
  return success();
}

inline LogicalResult verifyPowerOfTwo(EmitErrorFn emitError, StringRef layout,
                               StringRef key, unsigned value) {
  if (!llvm::isPowerOf2_32(value))
    return emitError() << layout << " needs a power of two as " << key
                       << ", but it is " << value;
  return success();
}

inline LogicalResult verifyOrder(EmitErrorFn emitError, StringRef layout,
                          StringRef key, ArrayRef<unsigned> order) {
  llvm::SmallSet<unsigned, 8> seen;
  for (unsigned d : order)
    if (d >= order.size() || !seen.insert(d).second)
      return emitError() << layout << " needs " << key
                         << " to be a permutation of [0, " << order.size()
                         << "), but it is " << arrayToString(order);
  return success();
}

inline LogicalResult verifyCTARank(EmitErrorFn emitError, StringRef layout,
                            CTALayoutAttr cta, unsigned rank) {
  if (!cta)
    return emitError() << layout << " needs a CTA layout";
  if (cta.getRank() != rank)
    return emitError() << layout << " of rank " << rank
                       << " needs CTAsPerCGA, CTASplitNum and CTAOrder of "
                          "length "
                       << rank << ", but they have length " << cta.getRank();
  return success();
}

/// The tensor-type check shared by the distributed layouts.
inline LogicalResult verifyTensorRank(EmitErrorFn emitError, Attribute layout,
                               unsigned layoutRank, ArrayRef<int64_t> shape) {
  if (shape.size() != layoutRank)
    return emitError() << "a tensor of rank " << shape.size()
                       << " cannot have the layout " << layout << " of rank "
                       << layoutRank;
  // Layouts map power-of-two index bits: every dimension must be one.
  for (auto [i, d] : llvm::enumerate(shape))
    if (d <= 0 || (d & (d - 1)))
      return emitError() << "a tensor with the layout " << layout
                         << " needs power-of-two dimensions, but dimension "
                         << i << " is "
                         << (ShapedType::isDynamic(d) ? std::string("dynamic")
                                                      : std::to_string(d));
  return success();
}

/// A CTA layout with dimension `dim` removed (for slices).

} // namespace mlir::tessera::ttg::syntax

#endif // TESSERA_DIALECT_TTG_IR_LAYOUTSYNTAX_H
