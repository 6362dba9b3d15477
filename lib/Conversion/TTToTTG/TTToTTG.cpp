//===- TTToTTG.cpp - give every tensor a distributed layout ------------------===//

#include "tessera/Conversion/TTToTTG/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "tessera/Dialect/TTG/Transforms/Utility.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_CONVERTTTTOTTG
#include "tessera/Conversion/TTToTTG/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

ttg::BlockedEncodingAttr mlir::tessera::getDefaultBlockedEncoding(
    MLIRContext *ctx, ArrayRef<int64_t> shape, int numWarps, int threadsPerWarp) {
  unsigned rank = shape.size();
  SmallVector<unsigned> order, sizePerThread(rank, 1);
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  // Up to 4 consecutive elements per thread along the fastest dimension when
  // the tensor has that many per thread: loads and stores of them can be one
  // vector access where AxisInfo proves the addresses consecutive and aligned
  // (ttg-coalesce widens or reorders this per memory access).
  int64_t numel = 1;
  for (int64_t s : shape)
    numel *= std::max<int64_t>(s, 1);
  if (rank) {
    int64_t perThread = numel / (int64_t(numWarps) * threadsPerWarp);
    sizePerThread[order[0]] =
        std::clamp<int64_t>(std::min<int64_t>(4, perThread), 1, std::max<int64_t>(shape[order[0]], 1));
  }
  return getBlockedEncoding(ctx, shape, sizePerThread, order, numWarps, threadsPerWarp);
}

namespace {

class LayoutAssigner {
public:
  LayoutAssigner(MLIRContext *ctx, int numWarps, int threadsPerWarp)
      : ctx(ctx), numWarps(numWarps), threadsPerWarp(threadsPerWarp) {}

  Attribute defaultFor(ArrayRef<int64_t> shape) {
    return getDefaultBlockedEncoding(ctx, shape, numWarps, threadsPerWarp);
  }

  Type defaultType(Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || rt.getEncoding())
      return t;
    return withEncoding(rt, defaultFor(rt.getShape()));
  }

  /// Makes `op`'s operand `i` have type `want`, inserting a convert_layout.
  void require(Operation *op, unsigned i, Type want) {
    Value v = op->getOperand(i);
    if (v.getType() == want)
      return;
    OpBuilder b(op);
    Value c = ttg::ConvertLayoutOp::create(b, op->getLoc(), want, v);
    op->setOperand(i, c);
  }

  void requireAll(Operation *op, Attribute enc, unsigned from = 0) {
    for (unsigned i = from; i < op->getNumOperands(); ++i)
      if (auto t = dyn_cast<RankedTensorType>(op->getOperand(i).getType()))
        require(op, i, withEncoding(t, enc));
  }

  static void setResult(Operation *op, unsigned i, Type t) { op->getResult(i).setType(t); }

  Attribute encodingOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getEncoding() : Attribute();
  }

  /// Gives the function's tensor arguments and results default layouts.
  void assignSignature(tt::FuncOp func) {
    FunctionType type = func.getFunctionType();
    SmallVector<Type> ins, outs;
    for (Type t : type.getInputs())
      ins.push_back(defaultType(t));
    for (Type t : type.getResults())
      outs.push_back(defaultType(t));
    func.setFunctionType(FunctionType::get(ctx, ins, outs));
    if (!func.isExternal())
      for (auto [arg, t] : llvm::zip(func.getBody().front().getArguments(), ins))
        arg.setType(t);
    // Other blocks' arguments (cf control flow) take default layouts.
    if (!func.isExternal())
      for (Block &blk : llvm::drop_begin(func.getBody()))
        for (BlockArgument a : blk.getArguments())
          a.setType(defaultType(a.getType()));
  }

  void assign(Operation *op) {
    // Results of ops whose layout follows from their operands.
    if (auto e = dyn_cast<tt::ExpandDimsOp>(op)) {
      Attribute parent = nullptr;
      if (auto s = dyn_cast_or_null<ttg::SliceEncodingAttr>(encodingOf(e.getSrc())))
        if (s.getDim() == e.getAxis())
          parent = s.getParent();
      if (!parent)
        parent = defaultFor(e.getType().getShape());
      setResult(op, 0, withEncoding(e.getType(), parent));
      auto dist = cast<ttg::DistributedEncodingTrait>(parent);
      require(op, 0, withEncoding(e.getSrc().getType(),
                                  ttg::SliceEncodingAttr::get(ctx, e.getAxis(), dist)));
      return;
    }
    if (auto bc = dyn_cast<tt::BroadcastOp>(op)) {
      Attribute enc = defaultFor(bc.getType().getShape());
      setResult(op, 0, withEncoding(bc.getType(), enc));
      requireAll(op, enc);
      return;
    }
    if (auto red = dyn_cast<tt::ReduceOp>(op)) {
      Attribute enc = encodingOf(red.getSrcs()[0]);
      requireAll(op, enc);
      auto dist = cast<ttg::DistributedEncodingTrait>(enc);
      for (OpResult r : op->getResults())
        if (auto t = dyn_cast<RankedTensorType>(r.getType()))
          r.setType(withEncoding(t, ttg::SliceEncodingAttr::get(ctx, red.getAxis(), dist)));
      return;
    }
    if (auto scan = dyn_cast<tt::ScanOp>(op)) {
      Attribute enc = encodingOf(scan.getSrcs()[0]);
      requireAll(op, enc);
      for (OpResult r : op->getResults())
        r.setType(withEncoding(cast<RankedTensorType>(r.getType()), enc));
      return;
    }
    if (auto trans = dyn_cast<tt::TransOp>(op)) {
      if (auto b = dyn_cast_or_null<ttg::BlockedEncodingAttr>(encodingOf(trans.getSrc()))) {
        setResult(op, 0, withEncoding(trans.getType(), transposeBlocked(b, trans.getOrder())));
        return;
      }
      setResult(op, 0, defaultType(trans.getType()));
      return;
    }
    if (auto call = dyn_cast<tt::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<tt::FuncOp>(op, call.getCalleeAttr());
      FunctionType ft = callee.getFunctionType();
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        require(op, i, ft.getInput(i));
      for (auto [r, t] : llvm::zip(op->getResults(), ft.getResults()))
        r.setType(t);
      return;
    }
    if (auto ret = dyn_cast<tt::ReturnOp>(op)) {
      FunctionType ft = op->getParentOfType<tt::FuncOp>().getFunctionType();
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        require(op, i, ft.getResult(i));
      return;
    }
    if (auto br = dyn_cast<cf::BranchOp>(op)) {
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        require(op, i, br.getDest()->getArgument(i).getType());
      return;
    }
    if (auto cbr = dyn_cast<cf::CondBranchOp>(op)) {
      unsigned base = 1;
      for (unsigned i = 0; i < cbr.getTrueDestOperands().size(); ++i)
        require(op, base + i, cbr.getTrueDest()->getArgument(i).getType());
      base += cbr.getTrueDestOperands().size();
      for (unsigned i = 0; i < cbr.getFalseDestOperands().size(); ++i)
        require(op, base + i, cbr.getFalseDest()->getArgument(i).getType());
      return;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, res] : llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                                             forOp.getResults())) {
        arg.setType(init.getType());
        res.setType(init.getType());
      }
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (OpResult r : ifOp.getResults())
        r.setType(defaultType(r.getType()));
      return;
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      for (auto [init, arg] : llvm::zip(whileOp.getInits(), whileOp.getBeforeArguments()))
        arg.setType(init.getType());
      for (auto [i, r] : llvm::enumerate(whileOp.getResults())) {
        // A result carried like the init of the same position (a tensor of
        // the same shape and element type) keeps that init's layout;
        // scalars and pointers stay as they are.
        Type t = defaultType(r.getType());
        if (i < whileOp.getInits().size()) {
          auto init = dyn_cast<RankedTensorType>(whileOp.getInits()[i].getType());
          auto result = dyn_cast<RankedTensorType>(r.getType());
          if (init && result && init.getShape() == result.getShape() &&
              init.getElementType() == result.getElementType())
            t = init;
        }
        r.setType(t);
        whileOp.getAfterArguments()[i].setType(t);
      }
      return;
    }
    if (auto y = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      if (isa<scf::ForOp, scf::IfOp>(parent)) {
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          require(op, i, parent->getResult(i).getType());
      } else if (auto w = dyn_cast<scf::WhileOp>(parent)) {
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          require(op, i, w.getBeforeArguments()[i].getType());
      }
      return;
    }
    if (auto c = dyn_cast<scf::ConditionOp>(op)) {
      auto w = cast<scf::WhileOp>(op->getParentOp());
      for (unsigned i = 1; i < op->getNumOperands(); ++i)
        require(op, i, w.getAfterArguments()[i - 1].getType());
      return;
    }
    if (isa<tt::ReduceReturnOp, tt::ScanReturnOp>(op))
      return;
    // Everything else: tensor results take the default layout of their shape,
    // tensor operands of the same shape are brought to it.
    Attribute enc;
    for (OpResult r : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || t.getEncoding())
        continue;
      Attribute e = defaultFor(t.getShape());
      r.setType(withEncoding(t, e));
      if (!enc)
        enc = e;
    }
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      auto t = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
      if (!t)
        continue;
      require(op, i, withEncoding(t, defaultFor(t.getShape())));
    }
    // A tensor constant's value carries the type too.
    if (auto cst = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
  }

private:
  MLIRContext *ctx;
  int numWarps, threadsPerWarp;
};

// Elements of one tensor per thread (numel / (num-warps * threads-per-warp)) past which
// convert-tt-to-ttg rejects a kernel. Every element is a separate register value in the
// generated code: at 1024 per thread a plain vector add takes ~7 s to compile (mostly ptxas),
// at 2048 ~36 s, at 8192 minutes. docs/language.md documents the limit.
static constexpr int64_t kMaxElementsPerThread = 1024;

struct ConvertTTToTTGPass : public mlir::tessera::impl::ConvertTTToTTGBase<ConvertTTToTTGPass> {
  using Base::Base;
  void runOnOperation() override {
    // 1. Record the launch configuration on the module.
    // 2. Give function signatures and cf block arguments default layouts.
    // 3. Walk every op in order and give its results layouts (rules above),
    //    inserting convert_layout where an operand must change layout.
    // 4. Remove converts whose source is cheap to recompute.
    // Not handled: dot operand layouts (the dot lowering adds them), layouts
    // chosen for memory coalescing (a later pass using AxisInfo).
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (numWarps < 1 || (numWarps & (numWarps - 1))) {
      module.emitError() << "num-warps must be a power of two, got "
                         << static_cast<int>(numWarps);
      return signalPassFailure();
    }
    if (threadsPerWarp < 1 || threadsPerWarp > 64 ||
        (threadsPerWarp & (threadsPerWarp - 1))) {
      module.emitError() << "threads-per-warp must be a power of two from 1 to 64, got "
                         << static_cast<int>(threadsPerWarp);
      return signalPassFailure();
    }
    if (numCTAs != 1) {
      module.emitError() << "num-ctas must be 1 (CTA clusters are not supported), got "
                         << static_cast<int>(numCTAs);
      return signalPassFailure();
    }
    // Every tensor gets a layout, and layouts need ranked tensors of static
    // power-of-two dimensions: anything else is rejected at its op.
    auto checkTensor = [&](Operation *op, RankedTensorType tensor) -> LogicalResult {
      Type t = tensor;
      if (tensor.getRank() == 0)
        return op->emitOpError() << "has a 0-d tensor (" << t
                                 << "), which cannot be given a layout; use a scalar";
      for (int64_t d : tensor.getShape())
        if (d <= 0 || (d & (d - 1)))
          return op->emitOpError() << "has a tensor " << t
                                   << " whose dimensions are not all static powers of two, "
                                      "which layouts need";
      int64_t perThread = tensor.getNumElements() / (static_cast<int64_t>(numWarps) * threadsPerWarp);
      if (perThread > kMaxElementsPerThread)
        return op->emitOpError()
               << "has a tensor " << t << " of " << tensor.getNumElements() << " elements: "
               << perThread << " per thread with " << static_cast<int>(numWarps) << " warps of "
               << static_cast<int>(threadsPerWarp) << " threads, more than the limit of "
               << kMaxElementsPerThread
               << " (each element is unrolled into straight-line code held in registers, and "
                  "the backend's compile time grows faster than linearly past that); use a "
                  "smaller block or more warps";
      return success();
    };
    if (failed(tt::checkModuleTensors(module, checkTensor)))
      return signalPassFailure();
    auto i32 = IntegerType::get(ctx, 32);
    module->setAttr("ttg.num-warps", IntegerAttr::get(i32, numWarps));
    module->setAttr("ttg.num-ctas", IntegerAttr::get(i32, numCTAs));
    module->setAttr("ttg.threads-per-warp", IntegerAttr::get(i32, threadsPerWarp));
    if (!target.empty())
      module->setAttr("ttg.target", StringAttr::get(ctx, target));
    LayoutAssigner assigner(ctx, numWarps, threadsPerWarp);
    module.walk([&](tt::FuncOp f) { assigner.assignSignature(f); });
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<ModuleOp, tt::FuncOp>(op))
        return;
      assigner.assign(op);
    });
    rematerializeConversions(module, /*rematerializeLoads=*/true);
  }
};

} // namespace
