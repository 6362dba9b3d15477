//===- RewriteTensorPointer.cpp - block pointers to tensors of pointers ----===//
//
// tt-rewrite-tensor-pointer: a block pointer (`!tt.ptr<tensor<BxT>>`) is
// replaced by its components, which flow through the program as ordinary
// SSA values:
//
//   base     !tt.ptr<T>        the pointer to element (0, ..., 0)
//   shape    i64 per dimension the extent of the whole tensor
//   strides  i64 per dimension in elements
//   offsets  i32 per dimension where the block starts
//
// A load or store through a block pointer then goes through the tensor of
// pointers base + sum_d (offset_d + arange(0, B_d)) * stride_d, computed in
// i64, under the mask of its boundaryCheck dimensions.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/TT/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_TTREWRITETENSORPOINTER
#include "tessera/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

constexpr StringLiteral kPassName = "tt-rewrite-tensor-pointer";

bool isBlockPtr(Type t) {
  auto p = dyn_cast<tt::PointerType>(t);
  return p && p.isBlockPointer();
}

bool anyBlockPtr(TypeRange types) { return llvm::any_of(types, isBlockPtr); }

bool touchesBlockPtr(Operation *op) {
  return anyBlockPtr(op->getOperandTypes()) || anyBlockPtr(op->getResultTypes());
}

RankedTensorType blockOf(Type blockPtr) {
  return cast<RankedTensorType>(cast<tt::PointerType>(blockPtr).getPointeeType());
}

/// The components a block pointer is carried as.
struct BlockPtr {
  Value base;
  SmallVector<Value, 4> shape, strides, offsets; // i64, i64, i32

  /// base, shape..., strides..., offsets...: the order in which components
  /// appear wherever a block pointer was (operands, block arguments, results).
  SmallVector<Value> flatten() const {
    SmallVector<Value> v{base};
    llvm::append_range(v, shape);
    llvm::append_range(v, strides);
    llvm::append_range(v, offsets);
    return v;
  }

  static BlockPtr unflatten(ValueRange v, int64_t rank) {
    BlockPtr p;
    p.base = v[0];
    p.shape.assign(v.begin() + 1, v.begin() + 1 + rank);
    p.strides.assign(v.begin() + 1 + rank, v.begin() + 1 + 2 * rank);
    p.offsets.assign(v.begin() + 1 + 2 * rank, v.begin() + 1 + 3 * rank);
    return p;
  }
};

/// The component types of a block pointer type, in BlockPtr::flatten order.
SmallVector<Type> componentTypes(Type blockPtr) {
  auto ptr = cast<tt::PointerType>(blockPtr);
  RankedTensorType block = blockOf(ptr);
  MLIRContext *ctx = ptr.getContext();
  SmallVector<Type> types{
      tt::PointerType::get(block.getElementType(), ptr.getAddressSpace())};
  int64_t rank = block.getRank();
  types.append(2 * rank, IntegerType::get(ctx, 64));
  types.append(rank, IntegerType::get(ctx, 32));
  return types;
}

/// `types` with every block pointer type replaced by its component types.
SmallVector<Type> expandTypes(TypeRange types) {
  SmallVector<Type> out;
  for (Type t : types) {
    if (isBlockPtr(t))
      llvm::append_range(out, componentTypes(t));
    else
      out.push_back(t);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Building tensors of pointers and masks
//===----------------------------------------------------------------------===//

Value splatTo(OpBuilder &b, Location loc, Value scalar, ArrayRef<int64_t> shape) {
  return tt::SplatOp::create(b, loc, RankedTensorType::get(shape, scalar.getType()),
                             scalar);
}

/// Reshapes the 1-D `v` (size n) to rank `rank` with n at dimension `dim`
/// and 1 elsewhere, with tt.expand_dims.
Value placeAtDim(OpBuilder &b, Location loc, Value v, unsigned dim, unsigned rank) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (unsigned k = 0; k < dim; ++k) {
    shape.insert(shape.begin(), 1);
    v = tt::ExpandDimsOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), v, 0u);
  }
  while (shape.size() < rank) {
    unsigned axis = shape.size();
    shape.push_back(1);
    v = tt::ExpandDimsOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), v, axis);
  }
  return v;
}

Value broadcastTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return tt::BroadcastOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v);
}

/// The tensor of pointers a block pointer `bp` of type `blockPtrType`
/// addresses, and in `mask` the in-bounds mask of the dimensions `checked`
/// (null when `checked` is empty).
Value materialize(OpBuilder &b, Location loc, Type blockPtrType, const BlockPtr &bp,
                  ArrayRef<int32_t> checked, Value &mask) {
  RankedTensorType block = blockOf(blockPtrType);
  ArrayRef<int64_t> shape = block.getShape();
  unsigned rank = block.getRank();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value sum;
  mask = nullptr;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t n = shape[d];
    auto r32 = RankedTensorType::get({n}, i32), r64 = RankedTensorType::get({n}, i64);
    // idx_d = offset_d + arange(0, n), in i64.
    Value off = arith::ExtSIOp::create(b, loc, i64, bp.offsets[d]);
    Value range = tt::MakeRangeOp::create(b, loc, r32, 0u, static_cast<uint32_t>(n));
    Value range64 = arith::ExtSIOp::create(b, loc, r64, range);
    Value idx = arith::AddIOp::create(b, loc, splatTo(b, loc, off, {n}), range64);
    // term_d = idx_d * stride_d, placed at dimension d and broadcast.
    Value term =
        arith::MulIOp::create(b, loc, idx, splatTo(b, loc, bp.strides[d], {n}));
    term = broadcastTo(b, loc, placeAtDim(b, loc, term, d, rank), shape);
    sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
    if (!llvm::is_contained(checked, static_cast<int32_t>(d)))
      continue;
    // 0 <= idx_d < shape_d.
    Attribute zero = b.getI64IntegerAttr(0);
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(r64, ArrayRef<Attribute>(zero)));
    Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx, zeros);
    Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx,
                                     splatTo(b, loc, bp.shape[d], {n}));
    Value in = arith::AndIOp::create(b, loc, lo, hi);
    in = broadcastTo(b, loc, placeAtDim(b, loc, in, d, rank), shape);
    mask = mask ? arith::AndIOp::create(b, loc, mask, in).getResult() : in;
  }
  Value ptrs = splatTo(b, loc, bp.base, shape);
  return tt::AddPtrOp::create(b, loc, ptrs.getType(), ptrs, sum);
}

/// The `other` value of a masked load whose out-of-bounds elements read as
/// `padding`; null (after a diagnostic) when the element type has none.
Value paddingValue(OpBuilder &b, Operation *op, RankedTensorType type,
                   tt::PaddingOption padding) {
  Type elem = type.getElementType();
  TypedAttr value;
  if (auto ft = dyn_cast<FloatType>(elem)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    value = FloatAttr::get(ft, padding == tt::PaddingOption::PAD_NAN
                                   ? APFloat::getNaN(sem)
                                   : APFloat::getZero(sem));
  } else if (auto it = dyn_cast<IntegerType>(elem)) {
    if (padding == tt::PaddingOption::PAD_NAN) {
      op->emitError() << kPassName << ": padding nan needs a floating-point "
                      << "block, but the elements are " << elem;
      return nullptr;
    }
    value = IntegerAttr::get(it, 0);
  } else {
    op->emitError() << kPassName << ": cannot pad a block of " << elem;
    return nullptr;
  }
  Attribute elemAttr = value;
  return arith::ConstantOp::create(
      b, op->getLoc(), DenseElementsAttr::get(type, ArrayRef<Attribute>(elemAttr)));
}

//===----------------------------------------------------------------------===//
// The rewriter
//===----------------------------------------------------------------------===//

class BlockPointerRewriter {
public:
  LogicalResult expandSignature(tt::FuncOp func);
  LogicalResult rewriteRegion(Region &region);
  LogicalResult eraseDeadOps();
  LogicalResult cleanUp(tt::FuncOp func);

private:
  FailureOr<BlockPtr> lookup(Value v, Operation *user);
  LogicalResult expandValues(ValueRange values, Operation *user,
                             SmallVectorImpl<Value> &out);
  void expandBlockArgs(Block &block);
  LogicalResult rewriteOp(Operation *op);
  LogicalResult rewriteMake(tt::MakeTensorPtrOp op);
  LogicalResult rewriteAdvance(tt::AdvanceOp op);
  LogicalResult rewriteLoad(tt::LoadOp op);
  LogicalResult rewriteStore(tt::StoreOp op);
  LogicalResult rewriteRegionOp(Operation *op);
  LogicalResult rewriteCall(tt::CallOp op);
  LogicalResult rewriteForwarded(Operation *op);
  LogicalResult rewriteBranch(BranchOpInterface op);
  void mapResults(Operation *oldOp, ValueRange newResults);

  /// Components of every block pointer value met so far.
  DenseMap<Value, BlockPtr> parts;
  /// Ops that define or carry block pointers, erased at the end, users first.
  SmallVector<Operation *> dead;
};

FailureOr<BlockPtr> BlockPointerRewriter::lookup(Value v, Operation *user) {
  auto it = parts.find(v);
  if (it != parts.end())
    return it->second;
  user->emitError() << kPassName << ": cannot trace the block pointer operand "
                    << "back to tt.make_tensor_ptr (it comes from an op or "
                    << "control flow that the pass does not handle)";
  return failure();
}

LogicalResult BlockPointerRewriter::expandValues(ValueRange values, Operation *user,
                                                 SmallVectorImpl<Value> &out) {
  for (Value v : values) {
    if (!isBlockPtr(v.getType())) {
      out.push_back(v);
      continue;
    }
    FailureOr<BlockPtr> p = lookup(v, user);
    if (failed(p))
      return failure();
    llvm::append_range(out, p->flatten());
  }
  return success();
}

/// Adds the components of each block-pointer argument of `block` right after
/// it; the argument itself goes once its users are rewritten (cleanUp).
void BlockPointerRewriter::expandBlockArgs(Block &block) {
  SmallVector<BlockArgument> old;
  for (BlockArgument a : block.getArguments())
    if (isBlockPtr(a.getType()))
      old.push_back(a);
  for (BlockArgument a : old) {
    SmallVector<Value> comps;
    unsigned pos = a.getArgNumber() + 1;
    for (Type t : componentTypes(a.getType()))
      comps.push_back(block.insertArgument(pos++, t, a.getLoc()));
    parts[a] = BlockPtr::unflatten(comps, blockOf(a.getType()).getRank());
  }
}

/// Gives a function the components of its block-pointer arguments and
/// results next to them (and maps the entry block's block-pointer arguments).
LogicalResult BlockPointerRewriter::expandSignature(tt::FuncOp func) {
  auto fn = cast<FunctionOpInterface>(func.getOperation());
  MLIRContext *ctx = func.getContext();
  auto empty = DictionaryAttr::get(ctx);
  SmallVector<unsigned> argIdx, resIdx;
  SmallVector<Type> argTypes, resTypes;
  SmallVector<DictionaryAttr> argAttrs, resAttrs;
  SmallVector<Location> argLocs;
  SmallVector<BlockArgument> oldArgs;
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    if (!isBlockPtr(t))
      continue;
    Location loc = func.isExternal() ? func.getLoc() : func.getArgument(i).getLoc();
    for (Type c : componentTypes(t)) {
      argIdx.push_back(i + 1);
      argTypes.push_back(c);
      argAttrs.push_back(empty);
      argLocs.push_back(loc);
    }
    if (!func.isExternal())
      oldArgs.push_back(func.getArgument(i));
  }
  for (auto [i, t] : llvm::enumerate(func.getResultTypes())) {
    if (!isBlockPtr(t))
      continue;
    for (Type c : componentTypes(t)) {
      resIdx.push_back(i + 1);
      resTypes.push_back(c);
      resAttrs.push_back(empty);
    }
  }
  if (!argIdx.empty() && failed(fn.insertArguments(argIdx, argTypes, argAttrs, argLocs)))
    return func.emitError() << kPassName << ": cannot expand the arguments";
  if (!resIdx.empty() && failed(fn.insertResults(resIdx, resTypes, resAttrs)))
    return func.emitError() << kPassName << ": cannot expand the results";
  for (BlockArgument a : oldArgs) {
    int64_t rank = blockOf(a.getType()).getRank();
    auto comps = func.getArguments().slice(a.getArgNumber() + 1, 1 + 3 * rank);
    parts[a] = BlockPtr::unflatten(ValueRange(comps), rank);
  }
  return success();
}

/// Rewrites the ops of `region` (not the arguments of its entry block, which
/// belong to its parent op) in an order where definitions come before uses:
/// the dominance tree's for a region of several blocks (cf branches).
LogicalResult BlockPointerRewriter::rewriteRegion(Region &region) {
  if (region.empty())
    return success();
  for (Block &block : llvm::drop_begin(region))
    expandBlockArgs(block);
  SmallVector<Block *> order;
  if (region.hasOneBlock()) {
    order.push_back(&region.front());
  } else {
    DominanceInfo dom(region.getParentOp());
    llvm::SmallPtrSet<Block *, 8> seen;
    for (auto *node : llvm::depth_first(dom.getRootNode(&region))) {
      order.push_back(node->getBlock());
      seen.insert(node->getBlock());
    }
    for (Block &block : region) // unreachable blocks
      if (!seen.contains(&block))
        order.push_back(&block);
  }
  for (Block *block : order)
    for (Operation &op : llvm::make_early_inc_range(*block))
      if (failed(rewriteOp(&op)))
        return failure();
  return success();
}

LogicalResult BlockPointerRewriter::rewriteOp(Operation *op) {
  if (auto make = dyn_cast<tt::MakeTensorPtrOp>(op))
    return rewriteMake(make);
  if (auto adv = dyn_cast<tt::AdvanceOp>(op))
    return rewriteAdvance(adv);
  if (auto load = dyn_cast<tt::LoadOp>(op); load && isBlockPtr(load.getPtr().getType()))
    return rewriteLoad(load);
  if (auto store = dyn_cast<tt::StoreOp>(op);
      store && isBlockPtr(store.getPtr().getType()))
    return rewriteStore(store);
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp>(op) &&
      touchesBlockPtr(op))
    return rewriteRegionOp(op);
  if (auto call = dyn_cast<tt::CallOp>(op); call && touchesBlockPtr(op))
    return rewriteCall(call);
  if (isa<scf::YieldOp, scf::ConditionOp, tt::ReturnOp>(op))
    return rewriteForwarded(op);
  if (auto br = dyn_cast<BranchOpInterface>(op))
    return rewriteBranch(br);
  if (touchesBlockPtr(op))
    return op->emitError() << kPassName << ": cannot rewrite a block pointer "
                           << "used or produced by '" << op->getName() << "'";
  // Block pointers defined outside may be used inside other ops' regions.
  for (Region &region : op->getRegions())
    if (failed(rewriteRegion(region)))
      return failure();
  return success();
}

LogicalResult BlockPointerRewriter::rewriteMake(tt::MakeTensorPtrOp op) {
  RankedTensorType block = blockOf(op.getType());
  if (block.getRank() == 0 || block.getEncoding())
    return op.emitError() << kPassName << ": only blocks of rank >= 1 without "
                          << "an encoding are supported, not " << block;
  BlockPtr p;
  p.base = op.getBase();
  p.shape.assign(op.getShape().begin(), op.getShape().end());
  p.strides.assign(op.getStrides().begin(), op.getStrides().end());
  p.offsets.assign(op.getOffsets().begin(), op.getOffsets().end());
  parts[op.getResult()] = std::move(p);
  dead.push_back(op);
  return success();
}

LogicalResult BlockPointerRewriter::rewriteAdvance(tt::AdvanceOp op) {
  FailureOr<BlockPtr> src = lookup(op.getPtr(), op);
  if (failed(src))
    return failure();
  BlockPtr p = *src;
  OpBuilder b(op);
  for (auto [d, delta] : llvm::enumerate(op.getOffsets()))
    if (!matchPattern(delta, m_Zero()))
      p.offsets[d] = arith::AddIOp::create(b, op.getLoc(), p.offsets[d], delta);
  parts[op.getResult()] = std::move(p);
  dead.push_back(op);
  return success();
}

LogicalResult BlockPointerRewriter::rewriteLoad(tt::LoadOp op) {
  FailureOr<BlockPtr> p = lookup(op.getPtr(), op);
  if (failed(p))
    return failure();
  OpBuilder b(op);
  Value mask;
  Value ptrs = materialize(b, op.getLoc(), op.getPtr().getType(), *p,
                           op.getBoundaryCheck(), mask);
  auto type = cast<RankedTensorType>(op.getType());
  Value other;
  if (mask && op.getPadding()) {
    other = paddingValue(b, op, type, *op.getPadding());
    if (!other)
      return failure();
  }
  auto load = tt::LoadOp::create(b, op.getLoc(), type, ptrs, mask, other,
                                 ArrayRef<int32_t>{}, /*padding=*/nullptr,
                                 op.getCache(), op.getEvict(), op.getIsVolatile());
  load->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op.getResult().replaceAllUsesWith(load.getResult());
  op.erase();
  return success();
}

LogicalResult BlockPointerRewriter::rewriteStore(tt::StoreOp op) {
  FailureOr<BlockPtr> p = lookup(op.getPtr(), op);
  if (failed(p))
    return failure();
  OpBuilder b(op);
  Value mask;
  Value ptrs = materialize(b, op.getLoc(), op.getPtr().getType(), *p,
                           op.getBoundaryCheck(), mask);
  auto store = tt::StoreOp::create(b, op.getLoc(), ptrs, op.getValue(), mask,
                                   ArrayRef<int32_t>{}, op.getCache(), op.getEvict());
  store->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op.erase();
  return success();
}

/// Old results: block pointers map to their components among `newResults`,
/// other results are replaced.
void BlockPointerRewriter::mapResults(Operation *oldOp, ValueRange newResults) {
  unsigned j = 0;
  for (OpResult r : oldOp->getResults()) {
    if (!isBlockPtr(r.getType())) {
      r.replaceAllUsesWith(newResults[j++]);
      continue;
    }
    int64_t rank = blockOf(r.getType()).getRank();
    parts[r] = BlockPtr::unflatten(newResults.slice(j, 1 + 3 * rank), rank);
    j += 1 + 3 * rank;
  }
}

/// scf.for / scf.if / scf.while / scf.execute_region with block-pointer
/// operands or results: a copy with expanded operands and result types takes
/// over the regions, whose entry arguments are expanded too.
LogicalResult BlockPointerRewriter::rewriteRegionOp(Operation *op) {
  SmallVector<Value> operands;
  if (failed(expandValues(op->getOperands(), op, operands)))
    return failure();
  OpBuilder b(op);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(expandTypes(op->getResultTypes()));
  state.addAttributes(op->getDiscardableAttrDictionary().getValue());
  for (unsigned i = 0; i < op->getNumRegions(); ++i)
    state.addRegion();
  Operation *newOp = b.create(state);
  newOp->copyProperties(op->getPropertiesStorage());
  for (auto [from, to] : llvm::zip(op->getRegions(), newOp->getRegions())) {
    to.takeBody(from);
    if (!to.empty())
      expandBlockArgs(to.front());
  }
  mapResults(op, newOp->getResults());
  dead.push_back(op);
  for (Region &region : newOp->getRegions())
    if (failed(rewriteRegion(region)))
      return failure();
  return success();
}

LogicalResult BlockPointerRewriter::rewriteCall(tt::CallOp op) {
  SmallVector<Value> operands;
  if (failed(expandValues(op.getOperands(), op, operands)))
    return failure();
  MLIRContext *ctx = op.getContext();
  // Argument and result attributes: empty ones for the components.
  auto expandAttrs = [&](ArrayAttr attrs, TypeRange types) -> ArrayAttr {
    if (!attrs)
      return nullptr;
    SmallVector<Attribute> out;
    for (auto [a, t] : llvm::zip(attrs, types)) {
      if (!isBlockPtr(t)) {
        out.push_back(a);
        continue;
      }
      out.append(componentTypes(t).size(), DictionaryAttr::get(ctx));
    }
    return ArrayAttr::get(ctx, out);
  };
  OpBuilder b(op);
  auto call = tt::CallOp::create(b, op.getLoc(), expandTypes(op.getResultTypes()),
                                 op.getCalleeAttr(), operands,
                                 expandAttrs(op.getArgAttrsAttr(), op.getOperandTypes()),
                                 expandAttrs(op.getResAttrsAttr(), op.getResultTypes()));
  call->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  mapResults(op, call.getResults());
  dead.push_back(op);
  return success();
}

/// scf.yield, scf.condition and tt.return forward their operands: expand them.
LogicalResult BlockPointerRewriter::rewriteForwarded(Operation *op) {
  if (!anyBlockPtr(op->getOperandTypes()))
    return success();
  SmallVector<Value> operands;
  if (failed(expandValues(op->getOperands(), op, operands)))
    return failure();
  op->setOperands(operands);
  return success();
}

/// cf branches: expand the operands forwarded to each successor.
LogicalResult BlockPointerRewriter::rewriteBranch(BranchOpInterface op) {
  for (unsigned i = 0; i < op->getNumSuccessors(); ++i) {
    SuccessorOperands succ = op.getSuccessorOperands(i);
    MutableOperandRange fwd = succ.getMutableForwardedOperands();
    OperandRange current = fwd;
    if (!anyBlockPtr(current.getTypes()))
      continue;
    if (succ.getProducedOperandCount() != 0)
      return op->emitError() << kPassName << ": cannot rewrite block pointers "
                             << "passed to a successor with produced operands";
    SmallVector<Value> operands;
    if (failed(expandValues(ValueRange(current), op, operands)))
      return failure();
    fwd.assign(operands);
  }
  if (touchesBlockPtr(op))
    return op->emitError() << kPassName << ": cannot rewrite a block pointer "
                           << "used or produced by '" << op->getName() << "'";
  return success();
}

/// Erases the ops that defined or carried block pointers, users before
/// definitions (the order they were met in is a dominance order).
LogicalResult BlockPointerRewriter::eraseDeadOps() {
  for (Operation *op : llvm::reverse(dead)) {
    for (Value r : op->getResults())
      if (!r.use_empty())
        return (*r.getUsers().begin())->emitError()
               << kPassName << ": cannot rewrite a block pointer used by '"
               << (*r.getUsers().begin())->getName() << "'";
    op->erase();
  }
  dead.clear();
  return success();
}

/// Erases the block-pointer block arguments of `func`, then its block-pointer
/// arguments and results.
LogicalResult BlockPointerRewriter::cleanUp(tt::FuncOp func) {
  LogicalResult result = success();
  func.walk([&](Block *block) {
    if (block->isEntryBlock() && block->getParentOp() == func)
      return;
    llvm::BitVector erase(block->getNumArguments());
    for (BlockArgument a : block->getArguments())
      if (isBlockPtr(a.getType()))
        erase.set(a.getArgNumber());
    if (erase.none())
      return;
    for (unsigned i : erase.set_bits())
      if (!block->getArgument(i).use_empty())
        result = block->getParentOp()->emitError()
                 << kPassName << ": a block-pointer block argument is still used";
    if (succeeded(result))
      block->eraseArguments(erase);
  });
  if (failed(result))
    return failure();
  auto fn = cast<FunctionOpInterface>(func.getOperation());
  llvm::BitVector args(func.getNumArguments()), results(func.getNumResults());
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes()))
    if (isBlockPtr(t)) {
      if (!func.isExternal() && !func.getArgument(i).use_empty())
        return func.emitError() << kPassName << ": block-pointer argument " << i
                                << " is still used";
      args.set(i);
    }
  for (auto [i, t] : llvm::enumerate(func.getResultTypes()))
    if (isBlockPtr(t))
      results.set(i);
  if (args.any() && failed(fn.eraseArguments(args)))
    return failure();
  if (results.any() && failed(fn.eraseResults(results)))
    return failure();
  return success();
}

/// True when block pointers appear anywhere in `func`.
bool mentionsBlockPtr(tt::FuncOp func) {
  if (anyBlockPtr(func.getArgumentTypes()) || anyBlockPtr(func.getResultTypes()))
    return true;
  WalkResult w = func.walk([](Operation *op) {
    if (touchesBlockPtr(op))
      return WalkResult::interrupt();
    for (Region &r : op->getRegions())
      for (Block &b : r)
        if (anyBlockPtr(b.getArgumentTypes()))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return w.wasInterrupted();
}

class TTRewriteTensorPointerPass
    : public mlir::tessera::impl::TTRewriteTensorPointerBase<TTRewriteTensorPointerPass> {
public:
  void runOnOperation() override {
    // 1. Find the functions that mention block pointers (in their signature,
    //    an op's operands or results, or a block argument); leave the rest.
    // 2. Expand every such function's signature first, so that calls can be
    //    rewritten whatever the order of functions: each block-pointer
    //    argument or result gets its components (base, i64 shape x rank,
    //    i64 strides x rank, i32 offsets x rank) inserted right after it.
    // 3. Walk each body, blocks in dominance order, keeping a map from
    //    block-pointer values to their components:
    //    a. tt.make_tensor_ptr maps its result to its operands;
    //    b. tt.advance maps its result to the source's components with its
    //       offsets added (i32 arith.addi; zero deltas are skipped);
    //    c. tt.load / tt.store through a block pointer become accesses through
    //       base + sum_d (offset_d + arange(0, B_d)) * stride_d (i64), masked
    //       by 0 <= offset_d + arange(0, B_d) < shape_d over the boundaryCheck
    //       dims; a load's `other` is the padding (zero or NaN), if any;
    //    d. scf.for/if/while/execute_region with block-pointer operands or
    //       results are recreated with expanded operands and result types;
    //       they take over the old regions, whose entry block arguments get
    //       the components next to the old ones; results are mapped;
    //    e. scf.yield, scf.condition, tt.return and cf branch operands, and
    //       tt.call operands and results, are expanded likewise; the
    //       arguments of non-entry blocks are expanded before their region
    //       is walked;
    //    f. any other op touching a block pointer is an error.
    // 4. Erase the old ops (users first), the block-pointer block arguments and
    //    the block-pointer function arguments and results.
    // Not handled (diagnosed): block pointers through other region ops (e.g.
    // scf.index_switch, tt.reduce), arith.select or any op not listed above,
    // rank-0 blocks, blocks with an encoding (TTGIR), padding of non-numeric
    // elements, successors with produced operands. The `order` attribute of
    // tt.make_tensor_ptr is dropped (it is only a layout hint), and no
    // contiguity/divisibility hints are attached to the new pointers.
    ModuleOp module = getOperation();
    SmallVector<tt::FuncOp> funcs;
    module.walk([&](tt::FuncOp f) {
      if (mentionsBlockPtr(f))
        funcs.push_back(f);
    });
    if (funcs.empty())
      return;
    BlockPointerRewriter rewriter;
    for (tt::FuncOp f : funcs)
      if (failed(rewriter.expandSignature(f)))
        return signalPassFailure();
    for (tt::FuncOp f : funcs)
      if (!f.isExternal() && failed(rewriter.rewriteRegion(f.getBody())))
        return signalPassFailure();
    if (failed(rewriter.eraseDeadOps()))
      return signalPassFailure();
    for (tt::FuncOp f : funcs)
      if (failed(rewriter.cleanUp(f)))
        return signalPassFailure();
  }
};

} // namespace
