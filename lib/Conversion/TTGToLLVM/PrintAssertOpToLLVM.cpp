//===- PrintAssertOpToLLVM.cpp - tt.print and tt.assert ----------------------===//
//
// tt.print: one device printf per element, as
//   "pid (x, y, z) idx (i, j) <prefix><value>" (values of a scalar argument
//   print without idx); integers as %d/%lld/%u (hex: %x/%llx), floats as %f
//   (hex: their bits). An element held by several threads (or registers) is
//   printed by one of them only; a scalar by thread 0.
// tt.assert: where any element of the condition a thread holds is false, the
//   thread calls the target's assertion failure with the message, the user's
//   file, line and function.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// printf conversion and the value to pass (vprintf wants doubles for %f).
std::pair<std::string, Value> formatOf(OpBuilder &b, Location loc, Value v, Type origElt,
                                       bool hex, bool isSigned) {
  Type t = v.getType();
  if (isa<LLVM::LLVMPointerType>(t))
    return {"%p", v};
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (hex) {
      Type it = b.getIntegerType(ft.getWidth());
      Value bits = LLVM::BitcastOp::create(b, loc, it, v);
      if (ft.getWidth() < 32)
        bits = LLVM::ZExtOp::create(b, loc, b.getI32Type(), bits);
      return {ft.getWidth() == 64 ? "0x%llx" : "0x%x", bits};
    }
    Value d = ft.getWidth() == 64 ? v : LLVM::FPExtOp::create(b, loc, b.getF64Type(), v).getResult();
    return {"%f", d};
  }
  auto it = cast<IntegerType>(t);
  if (isa<FloatType>(origElt) && it.getWidth() == 8) // fp8 held as i8: print its bits
    hex = true;
  if (it.getWidth() < 32) {
    Value w = isSigned ? LLVM::SExtOp::create(b, loc, b.getI32Type(), v).getResult()
                       : LLVM::ZExtOp::create(b, loc, b.getI32Type(), v).getResult();
    return {hex ? "0x%x" : (isSigned ? "%d" : "%u"), w};
  }
  if (it.getWidth() == 64)
    return {hex ? "0x%llx" : (isSigned ? "%lld" : "%llu"), v};
  return {hex ? "0x%x" : (isSigned ? "%d" : "%u"), v};
}

std::string escapePercent(StringRef s) {
  std::string out;
  for (char c : s) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

/// Emits `body` in a block that runs only where `pred` holds.
template <typename Fn>
void emitIf(ConversionPatternRewriter &rewriter, Location loc, Value pred, Fn body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(then);
  body();
  LLVM::BrOp::create(rewriter, loc, after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, pred, then, after);
  rewriter.setInsertionPointToStart(after);
}

struct PrintConversion : public TesseraOpToLLVMPattern<tt::PrintOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    SmallVector<Value> pid = {ti.programId(rewriter, loc, 0), ti.programId(rewriter, loc, 1),
                              ti.programId(rewriter, loc, 2)};
    std::string prefix = escapePercent(op.getPrefix());
    Value thread0 = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, ti.threadId(rewriter, loc),
                                         i32Val(rewriter, loc, 0));
    if (op.getArgs().empty()) {
      emitIf(rewriter, loc, thread0,
             [&] { ti.printf(rewriter, loc, "pid (%d, %d, %d) " + prefix + "\n", pid); });
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      bool isSigned = i < op.getIsSigned().size() && op.getIsSigned()[i];
      Value converted = adaptor.getArgs()[i];
      auto tensor = dyn_cast<RankedTensorType>(arg.getType());
      Type origElt = getElementTypeOrSelf(arg.getType());
      if (!tensor) {
        auto [fmt, v] = formatOf(rewriter, loc, converted, origElt, op.getHex(), isSigned);
        SmallVector<Value> args = pid;
        args.push_back(v);
        std::string format = "pid (%d, %d, %d) " + prefix + fmt + "\n";
        emitIf(rewriter, loc, thread0, [&] { ti.printf(rewriter, loc, format, args); });
        continue;
      }
      if (!supportsLinearLayout(tensor))
        return op.emitOpError("cannot print a tensor of this layout yet");
      auto indices = emitIndices(rewriter, loc, ti, tensor);
      SmallVector<Value> elems = unpackStruct(rewriter, loc, converted);
      ::tessera::LinearLayout layout = toLinearLayout(tensor);
      Value owner = isOwnerThread(rewriter, loc, ti, layout);
      SmallVector<SmallVector<int32_t>> seen;
      auto regCoords = registerCoordinates(layout);
      SmallVector<std::pair<std::string, SmallVector<Value>>> prints;
      for (auto [r, e, idx] : llvm::enumerate(elems, indices)) {
        if (llvm::is_contained(seen, regCoords[r]))
          continue; // a register holding a copy of an earlier one
        seen.push_back(regCoords[r]);
        auto [fmt, v] = formatOf(rewriter, loc, e, origElt, op.getHex(), isSigned);
        std::string format = "pid (%d, %d, %d) idx (";
        for (size_t d = 0; d < idx.size(); ++d)
          format += d ? ", %d" : "%d";
        format += ") " + prefix + fmt + "\n";
        SmallVector<Value> args = pid;
        args.append(idx.begin(), idx.end());
        args.push_back(v);
        prints.push_back({format, args});
      }
      emitIf(rewriter, loc, owner, [&] {
        for (auto &[format, args] : prints)
          ti.printf(rewriter, loc, format, args);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertConversion : public TesseraOpToLLVMPattern<tt::AssertOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    auto tensor = dyn_cast<RankedTensorType>(op.getCondition().getType());
    int64_t n = tensor ? getElemsPerThread(tensor) : 1;
    SmallVector<Value> conds = unpackOrSplat(rewriter, loc, adaptor.getCondition(), n);
    // Any false element fails.
    Value ok = conds[0];
    for (Value c : llvm::drop_begin(conds))
      ok = LLVM::AndOp::create(rewriter, loc, ok, c);
    std::string file = "<unknown>", func = "kernel";
    int line = 0;
    if (auto flc = op.getLoc()->findInstanceOf<FileLineColLoc>()) {
      file = flc.getFilename().str();
      line = flc.getLine();
    }
    if (auto f = op->getParentOfType<FunctionOpInterface>())
      func = f.getName().str();
    // Split the block: a failure block calls the target's assertion.
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *fail = rewriter.createBlock(after);
    rewriter.setInsertionPointToEnd(fail);
    ti.assertFail(rewriter, loc, op.getMessage(), file, func, line);
    LLVM::BrOp::create(rewriter, loc, after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, ok, after, fail);
    rewriter.setInsertionPointToStart(after);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tessera::populatePrintAssertOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                       RewritePatternSet &patterns) {
  patterns.add<PrintConversion, AssertConversion>(typeConverter);
}
