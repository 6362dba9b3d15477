//===- AtomicOpToLLVM.cpp - tt.atomic_rmw / tt.atomic_cas -----------------===//
//
// One atomic per element, through the target's predicated atomics (a false
// predicate touches no memory and gives 0).
//
// Every element is updated exactly once, however many threads hold it: of
// the copies of an element (registers, lanes and warps whose layout basis is
// zero: the layout's free variables), only the one with those bits 0 acts.
// A scalar pointer is held by every thread; thread 0 acts.
// The old values, when used, reach the other copies: duplicated registers
// copy the acting register; lanes of the same warp get it by a shuffle from
// the acting lane; across warps, the acting threads write it to shared
// scratch memory (offset from ttg-allocate-shared-memory), a barrier, every
// thread reads its elements, and a second barrier protects the buffer's next
// use.
// Not handled: elements split across CTAs, layouts whose copies are not
// given by zero bases.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/IR/Matchers.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

namespace {

int numWarpsOf(Operation *op) {
  if (auto module = op->getParentOfType<ModuleOp>())
    if (auto w = module->getAttrOfType<IntegerAttr>("ttg.num-warps"))
      return w.getInt();
  return 4;
}

int64_t bytesOf(Type t) {
  return std::max<int64_t>(t.getIntOrFloatBitWidth() / 8, 1);
}

/// Which copy of each element acts.
struct ElementOwners {
  /// For each register, the register of this thread holding the acting copy
  /// of its element (itself when it acts).
  SmallVector<int32_t> actingRegister;
  /// Lane and warp bits whose copies do not act (acting: those bits 0).
  int32_t laneMask = 0, warpMask = 0;
  /// The tensor type (null for a scalar pointer).
  RankedTensorType type;
};

FailureOr<ElementOwners> getElementOwners(Operation *op, Value ptr, int warpSize,
                                  std::string &why) {
  ElementOwners own;
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type) {
    // Every thread holds a scalar: thread 0 acts.
    own.actingRegister = {0};
    own.laneMask = static_cast<int32_t>(llvm::PowerOf2Ceil(warpSize)) - 1;
    own.warpMask = static_cast<int32_t>(llvm::PowerOf2Ceil(numWarpsOf(op))) - 1;
    return own;
  }
  if (!supportsLinearLayout(type)) {
    why = "the pointer tensor has no linear layout";
    return failure();
  }
  own.type = type;
  LinearLayout layout = toLinearLayout(type);
  // The copies must be exactly the free variables: the other bases must be
  // linearly independent.
  int32_t nonzero = 0;
  for (const auto &[name, bases] : layout.getBases())
    for (const auto &v : bases)
      if (llvm::any_of(v, [](int32_t x) { return x != 0; }))
        ++nonzero;
  if (layout.getRank() != nonzero) {
    why = "copies of an element in this layout are not given by zero bases";
    return failure();
  }
  int32_t regMask = 0;
  for (auto &[name, mask] : layout.getFreeVariableMasks()) {
    if (name == "register")
      regMask = mask;
    else if (name == "lane")
      own.laneMask = mask;
    else if (name == "warp")
      own.warpMask = mask;
    else if (mask != 0) {
      why = "elements are held by several CTAs";
      return failure();
    }
  }
  for (int32_t r = 0; r < layout.getInDimSize("register"); ++r)
    own.actingRegister.push_back(r & ~regMask);
  return own;
}

/// Bytes of scratch the broadcast of old values needs.
int64_t scratchBytes(Operation *op, Value ptr, Value result) {
  // The lane mask does not matter here: only whether warps hold copies.
  if (result.use_empty())
    return 0;
  std::string why;
  FailureOr<ElementOwners> own = getElementOwners(op, ptr, /*warpSize=*/32, why);
  if (failed(own) || own->warpMask == 0)
    return 0;
  Type elt = getElementTypeOrSelf(result.getType());
  int64_t n = own->type ? own->type.getNumElements() : 1;
  return n * bytesOf(elt);
}

AtomicOrder toOrder(tt::MemSemantic sem) {
  switch (sem) {
  case tt::MemSemantic::RELAXED:
    return AtomicOrder::Relaxed;
  case tt::MemSemantic::ACQUIRE:
    return AtomicOrder::Acquire;
  case tt::MemSemantic::RELEASE:
    return AtomicOrder::Release;
  case tt::MemSemantic::ACQUIRE_RELEASE:
    return AtomicOrder::AcquireRelease;
  }
  return AtomicOrder::AcquireRelease;
}

AtomicScope toScope(tt::MemSyncScope scope) {
  switch (scope) {
  case tt::MemSyncScope::CTA:
    return AtomicScope::CTA;
  case tt::MemSyncScope::GPU:
    return AtomicScope::GPU;
  case tt::MemSyncScope::SYSTEM:
    return AtomicScope::System;
  }
  return AtomicScope::GPU;
}

AtomicRMWKind toKind(tt::RMWOp op) {
  switch (op) {
  case tt::RMWOp::AND:
    return AtomicRMWKind::And;
  case tt::RMWOp::OR:
    return AtomicRMWKind::Or;
  case tt::RMWOp::XOR:
    return AtomicRMWKind::Xor;
  case tt::RMWOp::ADD:
    return AtomicRMWKind::Add;
  case tt::RMWOp::FADD:
    return AtomicRMWKind::FAdd;
  case tt::RMWOp::MAX:
    return AtomicRMWKind::Max;
  case tt::RMWOp::MIN:
    return AtomicRMWKind::Min;
  case tt::RMWOp::UMAX:
    return AtomicRMWKind::UMax;
  case tt::RMWOp::UMIN:
    return AtomicRMWKind::UMin;
  case tt::RMWOp::XCHG:
    return AtomicRMWKind::Exch;
  }
  return AtomicRMWKind::Exch;
}

/// Emits one atomic per acting element: `emit(register, predicate)` returns
/// the old value. Then gives the old values to every copy and replaces `op`.
template <typename EmitFn>
LogicalResult lowerAtomic(Operation *op, Value ptr, Value convertedMask,
                          const TesseraLLVMTypeConverter &tc,
                          ConversionPatternRewriter &rewriter, EmitFn emit) {
  const TargetInfoBase &ti = tc.getTargetInfo();
  Location loc = op->getLoc();
  std::string why;
  FailureOr<ElementOwners> own = getElementOwners(op, ptr, ti.getWarpSize(), why);
  if (failed(own))
    return op->emitOpError() << "the GPU lowering cannot lower this atomic: "
                           << why;
  int64_t n = own->actingRegister.size();
  Value result = op->getResult(0);
  bool used = !result.use_empty();

  auto i1 = [&](bool v) {
    return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                    rewriter.getBoolAttr(v))
        .getResult();
  };
  Value lane, warp;
  if (own->laneMask || own->warpMask)
    std::tie(lane, warp) = laneAndWarp(rewriter, loc, ti);
  // Whether this thread's copies act: the masked lane and warp bits are 0.
  Value acting;
  // (id & mask) == 0; the mask of all of the id's bits needs no and.
  auto isZero = [&](Value id, int32_t mask, int64_t idCount) {
    Value bits = mask == static_cast<int32_t>(llvm::PowerOf2Ceil(idCount)) - 1
                     ? id
                     : LLVM::AndOp::create(rewriter, loc, id,
                                           i32Val(rewriter, loc, mask))
                           .getResult();
    return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, bits,
                                i32Val(rewriter, loc, 0))
        .getResult();
  };
  if (own->laneMask)
    acting = isZero(lane, own->laneMask, ti.getWarpSize());
  if (own->warpMask) {
    Value w = isZero(warp, own->warpMask, numWarpsOf(op));
    acting =
        acting ? LLVM::AndOp::create(rewriter, loc, acting, w).getResult() : w;
  }

  SmallVector<Value> masks;
  if (convertedMask)
    masks = unpackOrSplat(rewriter, loc, convertedMask, n);
  SmallVector<Value> old(n);
  for (int64_t e = 0; e < n; ++e) {
    if (own->actingRegister[e] != e)
      continue;
    Value pred = acting;
    if (!masks.empty())
      pred =
          pred ? LLVM::AndOp::create(rewriter, loc, pred, masks[e]).getResult()
               : masks[e];
    if (!pred)
      pred = i1(true);
    if (ti.predicatesAtomics() || matchPattern(pred, m_One())) {
      old[e] = emit(e, pred);
    } else {
      // before: cond_br pred, then, merge(0); then: old = atomic; br merge(old);
      // merge(%old): br after
      Block *before = rewriter.getInsertionBlock();
      Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
      Block *then = rewriter.createBlock(after);
      rewriter.setInsertionPointToEnd(then);
      Value v = emit(e, i1(true));
      if (!v)
        return failure();
      Block *merge = rewriter.createBlock(after, TypeRange{v.getType()}, {loc});
      LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
      rewriter.setInsertionPointToEnd(then);
      LLVM::BrOp::create(rewriter, loc, ValueRange{v}, merge);
      rewriter.setInsertionPointToEnd(before);
      Value zero = LLVM::ZeroOp::create(rewriter, loc, v.getType());
      LLVM::CondBrOp::create(rewriter, loc, pred, then, ValueRange{}, merge, ValueRange{zero});
      rewriter.setInsertionPointToStart(after);
      old[e] = merge->getArgument(0);
    }
    if (!old[e])
      return failure();
  }

  if (used && own->warpMask) {
    auto offsetAttr = op->getAttrOfType<IntegerAttr>("ttg.scratch_offset");
    if (!offsetAttr)
      return op->emitError(
          "using the result of this atomic needs shared memory; run "
          "ttg-allocate-shared-memory first");
    auto smemPtr = LLVM::LLVMPointerType::get(rewriter.getContext(),
                                              ti.getSharedAddressSpace());
    Value base =
        getSharedMemoryAddress(rewriter, loc, op, ti, offsetAttr.getInt());
    SmallVector<Value> flat(n);
    if (own->type) {
      auto coords = emitIndices(rewriter, loc, ti, own->type);
      for (int64_t e = 0; e < n; ++e) {
        Value f = coords[e][0];
        for (int64_t d = 1; d < own->type.getRank(); ++d) {
          f = LLVM::MulOp::create(
              rewriter, loc, f, i32Val(rewriter, loc, own->type.getDimSize(d)));
          f = LLVM::AddOp::create(rewriter, loc, f, coords[e][d]);
        }
        flat[e] = f;
      }
    } else {
      flat[0] = i32Val(rewriter, loc, 0);
    }
    for (int64_t e = 0; e < n; ++e) {
      if (own->actingRegister[e] != e)
        continue;
      Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, old[e].getType(),
                                    base, ValueRange{flat[e]});
      ti.storeSharedPredicated(rewriter, loc, p, old[e], acting);
    }
    ti.barrier(rewriter, loc);
    for (int64_t e = 0; e < n; ++e) {
      if (own->actingRegister[e] != e)
        continue;
      Type t = old[e].getType();
      Value p = LLVM::GEPOp::create(rewriter, loc, smemPtr, t, base,
                                    ValueRange{flat[e]});
      old[e] = LLVM::LoadOp::create(rewriter, loc, t, p);
    }
  } else if (used && own->laneMask) {
    Value src = LLVM::AndOp::create(rewriter, loc, lane,
                                    i32Val(rewriter, loc, ~own->laneMask));
    for (int64_t e = 0; e < n; ++e)
      if (own->actingRegister[e] == e)
        old[e] = ti.shuffleIdx(rewriter, loc, old[e], src);
  }
  for (int64_t e = 0; e < n; ++e)
    old[e] = old[own->actingRegister[e]];

  if (!own->type) {
    rewriter.replaceOp(op, old[0]);
    return success();
  }
  Type structType = tc.convertType(result.getType());
  rewriter.replaceOp(op, packStruct(rewriter, loc, structType, old));
  return success();
}

struct AtomicRMWConversion : public TesseraOpToLLVMPattern<tt::AtomicRMWOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc =
        this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    Type elt = getElementTypeOrSelf(op.getVal().getType());
    AtomicRMWKind kind = toKind(op.getAtomicRmwOp());
    if (!ti.supportsAtomicRMW(kind, elt))
      return op.emitError()
             << "atomic '" << tt::stringifyRMWOp(op.getAtomicRmwOp()) << "' on "
             << elt << " is not supported by this target";
    auto tensorType = dyn_cast<RankedTensorType>(op.getPtr().getType());
    int64_t n = tensorType && supportsLinearLayout(tensorType)
                    ? getElemsPerThread(tensorType)
                    : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> vals = unpackOrSplat(rewriter, loc, adaptor.getVal(), n);
    AtomicOrder order = toOrder(op.getSem());
    AtomicScope scope = toScope(op.getScope());
    return lowerAtomic(op, op.getPtr(), adaptor.getMask(), tc, rewriter,
                       [&](int64_t e, Value pred) {
                         return ti.atomicRMW(rewriter, loc, kind, ptrs[e],
                                             vals[e], pred, order, scope);
                       });
  }
};

struct AtomicCASConversion : public TesseraOpToLLVMPattern<tt::AtomicCASOp> {
  using TesseraOpToLLVMPattern::TesseraOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tt::AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc =
        this->getTesseraTypeConverter();
    const TargetInfoBase &ti = tc.getTargetInfo();
    Location loc = op.getLoc();
    Type elt = getElementTypeOrSelf(op.getVal().getType());
    if (!ti.supportsAtomicCAS(elt))
      return op.emitError()
             << "atomic_cas on " << elt << " is not supported by this target";
    auto tensorType = dyn_cast<RankedTensorType>(op.getPtr().getType());
    int64_t n = tensorType && supportsLinearLayout(tensorType)
                    ? getElemsPerThread(tensorType)
                    : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> cmps = unpackOrSplat(rewriter, loc, adaptor.getCmp(), n);
    SmallVector<Value> vals = unpackOrSplat(rewriter, loc, adaptor.getVal(), n);
    AtomicOrder order = toOrder(op.getSem());
    AtomicScope scope = toScope(op.getScope());
    return lowerAtomic(op, op.getPtr(), Value(), tc, rewriter,
                       [&](int64_t e, Value pred) {
                         return ti.atomicCAS(rewriter, loc, ptrs[e], cmps[e],
                                             vals[e], pred, order, scope);
                       });
  }
};

} // namespace

int64_t mlir::tessera::getAtomicScratchBytes(Operation *op) {
  if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
    return scratchBytes(op, rmw.getPtr(), rmw.getResult());
  if (auto cas = dyn_cast<tt::AtomicCASOp>(op))
    return scratchBytes(op, cas.getPtr(), cas.getResult());
  return 0;
}

void mlir::tessera::populateAtomicOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<AtomicRMWConversion, AtomicCASConversion>(typeConverter);
}
