//===- ElementwiseOpToLLVM.cpp - elementwise ops, per element ----------------===//
//
// arith and math ops on distributed tensors are applied to each element a
// thread owns: the op is re-created on scalars, and those scalar ops are then
// lowered by the upstream arith/math patterns in the same conversion. Math
// functions go to the target's device math library (TargetInfo);
// half-precision inputs compute in f32.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

bool hasTensorOperandOrResult(Operation *op) {
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// Any arith/math op (no regions) on tensors: one scalar op per element.
struct ScalarizeTensorOp : public TesseraConversionPattern {
  ScalarizeTensorOp(TesseraLLVMTypeConverter &tc, MLIRContext *ctx, const ModuleAxisInfo *axis)
      : TesseraConversionPattern(tc, /*benefit=*/10, ctx), axis(axis) {}
  const ModuleAxisInfo *axis;

  /// For each register of `type`, the register holding the same value: the
  /// one with the register bits cleared whose basis moves less than the
  /// result's constancy along a single dimension (they stay inside one
  /// aligned run of equal values). Identity without AxisInfo.
  SmallVector<int64_t> sameValueRegister(Value result, RankedTensorType type, int64_t n) const {
    SmallVector<int64_t> reg(n);
    for (int64_t i = 0; i < n; ++i)
      reg[i] = i;
    if (!axis || !supportsLinearLayout(type))
      return reg;
    AxisInfo info = axis->get(result);
    if (!info.isInitialized() || info.getRank() != unsigned(type.getRank()))
      return reg;
    ::tessera::LinearLayout layout = toLinearLayout(type);
    if (!layout.hasInDim("register"))
      return reg;
    int64_t clear = 0;
    for (int32_t j = 0; j < layout.getInDimSizeLog2("register"); ++j) {
      const auto &basis = layout.getBasis("register", j);
      int along = -1;
      bool single = true;
      for (unsigned d = 0; d < basis.size(); ++d) {
        if (basis[d] == 0)
          continue;
        single = single && along == -1;
        along = d;
      }
      if (single && along >= 0 && basis[along] > 0 && basis[along] < info.getConstancy(along))
        clear |= int64_t(1) << j;
    }
    for (int64_t i = 0; i < n; ++i)
      reg[i] = i & ~clear;
    return reg;
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef dialect = op->getName().getDialectNamespace();
    if ((dialect != "arith" && dialect != "math") || op->getNumRegions() ||
        !hasTensorOperandOrResult(op) || isa<arith::ConstantOp>(op) ||
        op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op->getLoc();
    int64_t n = getElemsPerThread(resultType);
    SmallVector<SmallVector<Value>> elems;
    for (Value v : operands)
      elems.push_back(unpackOrSplat(rewriter, loc, v, n));
    // Scalar ops work on the converted element types (e.g. !llvm.ptr for a
    // select of pointers); the upstream patterns lower them afterwards.
    Type scalarType = tc.convertElementType(resultType.getElementType());
    SmallVector<int64_t> same = sameValueRegister(op->getResult(0), resultType, n);
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i) {
      if (same[i] != i) {
        results.push_back(results[same[i]]);
        continue;
      }
      OperationState state(loc, op->getName());
      for (auto &e : elems)
        state.addOperands(e[i]);
      state.addTypes(scalarType);
      state.addAttributes(op->getAttrs());
      Operation *scalar = rewriter.create(state);
      results.push_back(scalar->getResult(0));
    }
    Type structType = tc.convertType(resultType);
    rewriter.replaceOp(op, packStruct(rewriter, loc, structType, results));
    return success();
  }
};

/// arith.constant of a splat tensor: the scalar in every element.
struct SplatConstantConversion : public TesseraOpToLLVMPattern<arith::ConstantOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "only splat tensor constants are supported");
    Location loc = op.getLoc();
    Type elt = getTypeConverter()->convertType(type.getElementType());
    Attribute value = splat.getSplatValue<Attribute>();
    if (auto f = dyn_cast<FloatAttr>(value); f && isa<IntegerType>(elt))
      value = rewriter.getIntegerAttr(elt, f.getValue().bitcastToAPInt());
    Value scalar = LLVM::ConstantOp::create(rewriter, loc, elt, cast<TypedAttr>(value));
    int64_t n = getElemsPerThread(type);
    SmallVector<Value> elems(n, scalar);
    rewriter.replaceOp(op, packStruct(rewriter, loc, getTypeConverter()->convertType(type), elems));
    return success();
  }
};

/// math ops on f16/bf16/f32/f64 scalars through the device math library.
template <typename OpTy>
struct MathLibraryCall : public TesseraOpToLLVMPattern<OpTy> {
  MathLibraryCall(TesseraLLVMTypeConverter &tc, StringRef name)
      : TesseraOpToLLVMPattern<OpTy>(tc, /*benefit=*/2), name(name),
        targetInfo(tc.getTargetInfo()) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    Type computeType = type;
    if (type.getIntOrFloatBitWidth() < 32)
      computeType = rewriter.getF32Type();
    std::string fn = targetInfo.mathLibraryFunction(name, computeType);
    if (fn.empty())
      return failure();
    SmallVector<Value> args;
    for (Value v : adaptor.getOperands())
      args.push_back(computeType == type ? v
                                         : LLVM::FPExtOp::create(rewriter, loc, computeType, v).getResult());
    SmallVector<Type> argTypes(args.size(), computeType);
    auto module = op->template getParentOfType<ModuleOp>();
    auto fnType = LLVM::LLVMFunctionType::get(computeType, argTypes);
    if (!module.template lookupSymbol<LLVM::LLVMFuncOp>(fn)) {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(rewriter, loc, fn, fnType);
    }
    Value r = LLVM::CallOp::create(rewriter, loc, fnType, fn, args).getResult();
    if (computeType != type)
      r = LLVM::FPTruncOp::create(rewriter, loc, type, r);
    rewriter.replaceOp(op, r);
    return success();
  }
  std::string name;
  const TargetInfoBase &targetInfo;
};

/// Applies `fn` to the elements of the converted operands of `op` and packs
/// the results into `resultType`'s converted type (or returns the scalar).
template <typename Fn>
Value mapElements(ConversionPatternRewriter &rewriter, Location loc,
                  const TesseraLLVMTypeConverter &tc, Type resultType,
                  ValueRange operands, Fn fn) {
  auto tensorType = dyn_cast<RankedTensorType>(resultType);
  if (!tensorType) {
    SmallVector<Value> scalars(operands.begin(), operands.end());
    return fn(scalars);
  }
  int64_t n = getElemsPerThread(tensorType);
  SmallVector<SmallVector<Value>> elems;
  for (Value v : operands)
    elems.push_back(unpackOrSplat(rewriter, loc, v, n));
  SmallVector<Value> results;
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<Value> scalars;
    for (auto &e : elems)
      scalars.push_back(e[i]);
    results.push_back(fn(scalars));
  }
  return packStruct(rewriter, loc, tc.convertType(tensorType), results);
}

struct AddPtrConversion : public TesseraOpToLLVMPattern<tt::AddPtrOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    auto ptrType = cast<tt::PointerType>(getElementTypeOrSelf(op.getType()));
    Type pointee = tc.convertElementType(ptrType.getPointeeType());
    Type llvmPtr = tc.convertType(ptrType);
    if (!pointee || !llvmPtr)
      return op.emitOpError() << "cannot step a pointer to " << ptrType.getPointeeType()
                              << ": the type has no LLVM equivalent";
    Value r = mapElements(rewriter, op.getLoc(), tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            return LLVM::GEPOp::create(rewriter, op.getLoc(), llvmPtr, pointee,
                                                       e[0], ValueRange{e[1]});
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

template <typename OpTy>
struct CastLike : public TesseraOpToLLVMPattern<OpTy> {
  using TesseraOpToLLVMPattern<OpTy>::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    Type dst = tc.convertElementType(op.getType());
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            Value v = e[0];
                            Type src = v.getType();
                            if (src == dst)
                              return v;
                            if (isa<LLVM::LLVMPointerType>(src) && isa<IntegerType>(dst))
                              return LLVM::PtrToIntOp::create(rewriter, loc, dst, v);
                            if (isa<IntegerType>(src) && isa<LLVM::LLVMPointerType>(dst))
                              return LLVM::IntToPtrOp::create(rewriter, loc, dst, v);
                            return LLVM::BitcastOp::create(rewriter, loc, dst, v);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct FpToFpConversion : public TesseraOpToLLVMPattern<tt::FpToFpOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::FpToFpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Type srcElt = getElementTypeOrSelf(op.getSrc().getType());
    Type dstElt = getElementTypeOrSelf(op.getType());
    Location loc = op.getLoc();
    bool rtz = op.getRounding() && *op.getRounding() == tt::RoundingMode::RTZ;
    if (srcElt.getIntOrFloatBitWidth() == 8 || dstElt.getIntOrFloatBitWidth() == 8)
      return lowerFp8(op, adaptor, rewriter, tc, srcElt, dstElt, rtz);
    Type dst = tc.convertElementType(dstElt);
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            unsigned sb = srcElt.getIntOrFloatBitWidth();
                            unsigned db = dstElt.getIntOrFloatBitWidth();
                            if (db > sb)
                              return LLVM::FPExtOp::create(rewriter, loc, dst, e[0]);
                            if (!rtz)
                              return LLVM::FPTruncOp::create(rewriter, loc, dst, e[0]);
                            return tc.getTargetInfo().truncTowardZero(rewriter, loc, e[0], dst);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
  /// Conversions to or from 8-bit floats go through the target's f16/f32
  /// conversions: the source widens exactly to f16 (from fp8) or f32 (from
  /// bf16) and is rounded once, to nearest even with saturation.
  LogicalResult lowerFp8(tt::FpToFpOp op, OpAdaptor adaptor,
                         ConversionPatternRewriter &rewriter,
                         const TesseraLLVMTypeConverter &tc, Type srcElt,
                         Type dstElt, bool rtz) const {
    bool from8 = srcElt.getIntOrFloatBitWidth() == 8;
    bool to8 = dstElt.getIntOrFloatBitWidth() == 8;
    if (to8 && rtz)
      return op.emitOpError() << "rounding toward zero to " << dstElt
                              << " is not supported: conversions to 8-bit floats round to "
                                 "nearest even";
    if (to8 && srcElt.isF64())
      return op.emitOpError() << "converting f64 to " << dstElt
                              << " in one rounding step is not supported; convert to f32 first";
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    bool unsupported = false;
    Value r = mapElements(
        rewriter, loc, tc, op.getType(), adaptor.getOperands(), [&](ArrayRef<Value> e) -> Value {
          Value x = e[0];
          if (unsupported)
            return x;
          if (from8) {
            x = ti.extFromFp8(rewriter, loc, x, srcElt);
            if (!x) {
              unsupported = true;
              return e[0];
            }
          } else if (srcElt.isBF16()) {
            x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
          }
          if (to8) {
            Value y = ti.truncToFp8(rewriter, loc, x, dstElt);
            if (!y)
              unsupported = true;
            return y ? y : e[0];
          }
          // From fp8 (x is f16) to a wider float: every fp8 value is exact in each.
          if (dstElt.isF16())
            return x;
          if (dstElt.isBF16())
            return LLVM::FPTruncOp::create(rewriter, loc, rewriter.getBF16Type(),
                                           LLVM::FPExtOp::create(rewriter, loc, f32, x));
          return LLVM::FPExtOp::create(rewriter, loc, tc.convertElementType(dstElt), x);
        });
    if (unsupported)
      return op.emitOpError() << "converting " << srcElt << " to " << dstElt
                              << " is not supported on this target ("
                              << tc.getTargetInfo().getFp8Requirement(from8 ? srcElt : dstElt) << ")";
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct MulhiUIConversion : public TesseraOpToLLVMPattern<tt::MulhiUIOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::MulhiUIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            auto t = cast<IntegerType>(e[0].getType());
                            Type wide = rewriter.getIntegerType(t.getWidth() * 2);
                            Value a = LLVM::ZExtOp::create(rewriter, loc, wide, e[0]);
                            Value b = LLVM::ZExtOp::create(rewriter, loc, wide, e[1]);
                            Value m = LLVM::MulOp::create(rewriter, loc, a, b);
                            Value sh = LLVM::ConstantOp::create(rewriter, loc, wide,
                                                                rewriter.getIntegerAttr(wide, t.getWidth()));
                            Value hi = LLVM::LShrOp::create(rewriter, loc, m, sh);
                            return LLVM::TruncOp::create(rewriter, loc, t, hi);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// precise_sqrt / precise_divf through the library's correctly rounded calls.
template <typename OpTy>
struct PreciseMath : public TesseraOpToLLVMPattern<OpTy> {
  PreciseMath(TesseraLLVMTypeConverter &tc, StringRef name)
      : TesseraOpToLLVMPattern<OpTy>(tc), name(name), targetInfo(tc.getTargetInfo()) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    Type elt = tc.convertElementType(op.getType());
    std::string fn = targetInfo.mathLibraryFunction(name, elt);
    if (fn.empty())
      return rewriter.notifyMatchFailure(op, "no correctly rounded library function for this type");
    auto module = op->template getParentOfType<ModuleOp>();
    SmallVector<Type> argTypes(adaptor.getOperands().size(), elt);
    auto fnType = LLVM::LLVMFunctionType::get(elt, argTypes);
    if (!module.template lookupSymbol<LLVM::LLVMFuncOp>(fn)) {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(rewriter, loc, fn, fnType);
    }
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            return LLVM::CallOp::create(rewriter, loc, fnType, fn, e).getResult();
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
  std::string name;
  const TargetInfoBase &targetInfo;
};

/// tt.elementwise_inline_asm: one asm statement per `packed_element`
/// consecutive elements a thread holds. Values narrower than 32 bits share
/// 32-bit registers (as LLVM vectors of up to 32/width elements); wider ones
/// take a register each. The asm sees the result registers first ($0...),
/// then the argument registers, in operand order.
struct ElementwiseInlineAsmConversion
    : public TesseraOpToLLVMPattern<tt::ElementwiseInlineAsmOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;

  /// Elements of `t` per register when `pack` of them are processed together.
  static int64_t perRegister(Type t, int64_t pack) {
    unsigned bits = isa<LLVM::LLVMPointerType>(t) ? 64 : t.getIntOrFloatBitWidth();
    return bits < 32 ? std::min<int64_t>(pack, 32 / bits) : 1;
  }
  static int64_t registers(Type t, int64_t pack) {
    int64_t k = perRegister(t, pack);
    return (pack + k - 1) / k;
  }

  LogicalResult
  matchAndRewrite(tt::ElementwiseInlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    int64_t pack = op.getPackedElement();
    if (pack < 1)
      return op.emitOpError() << "packed_element must be at least 1, got " << pack;

    RankedTensorType shape;
    for (Type t : op->getResultTypes())
      if (!shape)
        shape = dyn_cast<RankedTensorType>(t);
    for (Value v : op.getArgs())
      if (!shape)
        shape = dyn_cast<RankedTensorType>(v.getType());
    int64_t n = shape ? getElemsPerThread(shape) : 1;
    if (n % pack)
      return op.emitOpError() << "packed_element = " << pack << " does not divide the " << n
                              << " elements each thread holds of " << shape;

    SmallVector<Type> resElts, argElts;
    for (Type t : op->getResultTypes())
      resElts.push_back(tc.convertElementType(getElementTypeOrSelf(t)));
    for (Value v : op.getArgs())
      argElts.push_back(tc.convertElementType(getElementTypeOrSelf(v.getType())));
    for (Type t : llvm::concat<Type>(resElts, argElts))
      if (pack > 1 && t.isInteger(1))
        return op.emitOpError() << "i1 values cannot be packed (packed_element = " << pack
                                << "); pass them as i8";

    // The constraints must name exactly the registers this packing needs.
    int64_t needRes = 0, needArgs = 0;
    for (Type t : resElts)
      needRes += registers(t, pack);
    for (Type t : argElts)
      needArgs += registers(t, pack);
    SmallVector<StringRef> parts;
    op.getConstraints().split(parts, ',', -1, /*KeepEmpty=*/false);
    int64_t named = llvm::count_if(parts, [](StringRef c) { return !c.trim().starts_with("~"); });
    if (named != needRes + needArgs)
      return op.emitOpError() << "constraints \"" << op.getConstraints() << "\" name " << named
                              << " operands, but packed_element = " << pack << " needs "
                              << needRes + needArgs << " (" << needRes << " result and " << needArgs
                              << " argument registers)";

    auto regType = [&](Type elt, int64_t count) -> Type {
      return count > 1 ? Type(VectorType::get({count}, elt)) : elt;
    };
    // Result register types, in operand order.
    SmallVector<Type> outTypes;
    for (Type t : resElts) {
      int64_t k = perRegister(t, pack);
      for (int64_t r = 0, left = pack; r < registers(t, pack); ++r, left -= k)
        outTypes.push_back(regType(t, std::min(k, left)));
    }
    Type asmResult;
    if (outTypes.size() == 1)
      asmResult = outTypes[0];
    else if (!outTypes.empty())
      asmResult = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), outTypes);

    SmallVector<SmallVector<Value>> args;
    for (Value v : adaptor.getArgs())
      args.push_back(shape ? unpackOrSplat(rewriter, loc, v, n) : SmallVector<Value>{v});
    SmallVector<SmallVector<Value>> results(resElts.size());

    for (int64_t g = 0; g < n; g += pack) {
      SmallVector<Value> operands;
      for (auto [a, t] : llvm::zip(args, argElts)) {
        int64_t k = perRegister(t, pack);
        for (int64_t i = 0; i < pack; i += k) {
          int64_t count = std::min(k, pack - i);
          if (count == 1) {
            operands.push_back(a[g + i]);
            continue;
          }
          auto vt = VectorType::get({count}, t);
          Value vec = LLVM::UndefOp::create(rewriter, loc, vt);
          for (int64_t j = 0; j < count; ++j)
            vec = LLVM::InsertElementOp::create(rewriter, loc, vec, a[g + i + j],
                                                i32Val(rewriter, loc, j));
          operands.push_back(vec);
        }
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmResult ? TypeRange{asmResult} : TypeRange{}, operands,
          op.getAsmString(), op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(rewriter.getContext(), LLVM::AsmDialect::AD_ATT),
          ArrayAttr());
      int64_t reg = 0;
      for (auto [r, t] : llvm::enumerate(resElts)) {
        int64_t k = perRegister(t, pack);
        for (int64_t i = 0; i < pack; i += k, ++reg) {
          Value v = outTypes.size() == 1
                        ? asmOp.getResult(0)
                        : LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getResult(0),
                                                       ArrayRef<int64_t>{reg})
                              .getResult();
          int64_t count = std::min(k, pack - i);
          if (count == 1) {
            results[r].push_back(v);
            continue;
          }
          for (int64_t j = 0; j < count; ++j)
            results[r].push_back(
                LLVM::ExtractElementOp::create(rewriter, loc, v, i32Val(rewriter, loc, j)));
        }
      }
    }
    SmallVector<Value> replacements;
    for (auto [r, t] : llvm::enumerate(op->getResultTypes())) {
      if (auto tt = dyn_cast<RankedTensorType>(t))
        replacements.push_back(packStruct(rewriter, loc, tc.convertType(tt), results[r]));
      else
        replacements.push_back(results[r][0]);
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

struct ClampFConversion : public TesseraOpToLLVMPattern<tt::ClampFOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::ClampFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    bool propagate = op.getPropagateNan() == tt::PropagateNan::ALL;
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            if (propagate) {
                              Value lo = LLVM::MaximumOp::create(rewriter, loc, e[0], e[1]);
                              return LLVM::MinimumOp::create(rewriter, loc, lo, e[2]);
                            }
                            Value lo = LLVM::MaxNumOp::create(rewriter, loc, e[0], e[1]);
                            return LLVM::MinNumOp::create(rewriter, loc, lo, e[2]);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ExternElementwiseConversion : public TesseraOpToLLVMPattern<tt::ExternElementwiseOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    Type ret = tc.convertElementType(op.getType());
    SmallVector<Type> argTypes;
    for (Value v : op.getSrcs())
      argTypes.push_back(tc.convertElementType(v.getType()));
    auto fnType = LLVM::LLVMFunctionType::get(ret, argTypes);
    StringRef fn = op.getSymbol();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module.lookupSymbol<LLVM::LLVMFuncOp>(fn)) {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(rewriter, loc, fn, fnType);
    }
    Value r = mapElements(rewriter, loc, tc, op.getType(), adaptor.getOperands(),
                          [&](ArrayRef<Value> e) -> Value {
                            return LLVM::CallOp::create(rewriter, loc, fnType, fn, e).getResult();
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::tessera::populateElementwiseOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns,
    const ModuleAxisInfo *axisInfo) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ScalarizeTensorOp>(typeConverter, ctx, axisInfo);
  patterns.add<SplatConstantConversion, AddPtrConversion, FpToFpConversion, ElementwiseInlineAsmConversion,
               MulhiUIConversion, ClampFConversion, ExternElementwiseConversion,
               CastLike<tt::BitcastOp>, CastLike<tt::IntToPtrOp>,
               CastLike<tt::PtrToIntOp>>(typeConverter);
  patterns.add<PreciseMath<tt::PreciseSqrtOp>>(typeConverter, "precise_sqrt");
  patterns.add<PreciseMath<tt::PreciseDivFOp>>(typeConverter, "precise_divf");
  patterns.add<MathLibraryCall<math::ExpOp>>(typeConverter, "exp");
  patterns.add<MathLibraryCall<math::Exp2Op>>(typeConverter, "exp2");
  patterns.add<MathLibraryCall<math::LogOp>>(typeConverter, "log");
  patterns.add<MathLibraryCall<math::Log2Op>>(typeConverter, "log2");
  patterns.add<MathLibraryCall<math::SqrtOp>>(typeConverter, "sqrt");
  patterns.add<MathLibraryCall<math::RsqrtOp>>(typeConverter, "rsqrt");
  patterns.add<MathLibraryCall<math::SinOp>>(typeConverter, "sin");
  patterns.add<MathLibraryCall<math::CosOp>>(typeConverter, "cos");
  patterns.add<MathLibraryCall<math::ErfOp>>(typeConverter, "erf");
  patterns.add<MathLibraryCall<math::TanhOp>>(typeConverter, "tanh");
}

Value mlir::tessera::TargetInfoBase::truncTowardZero(OpBuilder &b, Location loc, Value value,
                                                     Type dstType) const {
  // Round to nearest, widen back and compare magnitudes: where the rounded
  // value is further from zero than the source (an infinity included), its
  // magnitude bits less one are the next value toward zero. NaN compares
  // false and stays as rounded.
  Type srcType = value.getType();
  unsigned bits = dstType.getIntOrFloatBitWidth();
  Type intTy = b.getIntegerType(bits);
  Value rounded = LLVM::FPTruncOp::create(b, loc, dstType, value);
  Value back = LLVM::FPExtOp::create(b, loc, srcType, rounded);
  Value absBack = LLVM::FAbsOp::create(b, loc, back);
  Value absSrc = LLVM::FAbsOp::create(b, loc, value);
  Value away = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::ogt, absBack, absSrc);
  Value roundedBits = LLVM::BitcastOp::create(b, loc, intTy, rounded);
  Value one = LLVM::ConstantOp::create(b, loc, intTy, b.getIntegerAttr(intTy, 1));
  Value stepped = LLVM::SubOp::create(b, loc, roundedBits, one);
  Value result = LLVM::SelectOp::create(b, loc, away, stepped, roundedBits);
  return LLVM::BitcastOp::create(b, loc, dstType, result);
}
