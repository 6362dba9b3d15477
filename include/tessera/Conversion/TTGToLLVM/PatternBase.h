//===- PatternBase.h - the base of every TTGIR -> LLVM pattern --*- C++ -*-===//
//
// Every lowering pattern of lib/Conversion/TTGToLLVM (and of a vendor's own
// pattern families under third_party/<vendor>) derives from one of these two
// bases. They are built from a TesseraLLVMTypeConverter only, so the type
// converter they hand back is always Tessera's, with the vendor's TargetInfo:
// no pattern casts the converter it was given.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_TTGTOLLVM_PATTERNBASE_H
#define TESSERA_CONVERSION_TTGTOLLVM_PATTERNBASE_H

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Conversion/TTGToLLVM/Utility.h"

namespace mlir::tessera {

/// A pattern lowering one op type, `SourceOp`.
template <typename SourceOp>
class TesseraOpToLLVMPattern : public ConvertOpToLLVMPattern<SourceOp> {
public:
  explicit TesseraOpToLLVMPattern(const TesseraLLVMTypeConverter &typeConverter,
                                  PatternBenefit benefit = 1)
      : ConvertOpToLLVMPattern<SourceOp>(typeConverter, benefit) {}

  /// The converter this pattern was built with.
  const TesseraLLVMTypeConverter &getTesseraTypeConverter() const {
    return *static_cast<const TesseraLLVMTypeConverter *>(this->getTypeConverter());
  }
  /// What the lowering asks of the vendor.
  const TargetInfoBase &getTargetInfo() const {
    return getTesseraTypeConverter().getTargetInfo();
  }
};

/// A pattern matching any op (e.g. every arith/math op on tensors).
class TesseraConversionPattern : public ConversionPattern {
public:
  TesseraConversionPattern(const TesseraLLVMTypeConverter &typeConverter,
                           PatternBenefit benefit, MLIRContext *ctx)
      : ConversionPattern(typeConverter, MatchAnyOpTypeTag(), benefit, ctx) {}

  const TesseraLLVMTypeConverter &getTesseraTypeConverter() const {
    return *static_cast<const TesseraLLVMTypeConverter *>(getTypeConverter());
  }
  const TargetInfoBase &getTargetInfo() const {
    return getTesseraTypeConverter().getTargetInfo();
  }
};

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_TTGTOLLVM_PATTERNBASE_H
