//===- LoadStoreOpToLLVM.cpp - tt.load / tt.store through pointers -----------===//
//
// The elements a thread owns are accessed in vectors where AxisInfo proves
// it (consecutive, aligned addresses for consecutive registers of the
// layout, a mask constant across the vector; at most 16 bytes), else one by
// one. Unmasked accesses are plain LLVM loads and stores (of vector types,
// aligned to their size); masked ones go through the target's predicated
// access (a false mask touches no memory and a load gives `other`, or zero).
// An access with a cache modifier or eviction policy goes through the
// target's access too (unmasked: with a true predicate). Volatile loads stay
// element by element. Block pointers are rewritten to pointer tensors before.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Analysis/AxisInfo.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/LinearLayoutConversions.h"
#include "tessera/Dialect/Prof/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

Value bitsOf(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<IntegerType>(t))
    return v;
  unsigned bits = isa<LLVM::LLVMPointerType>(t) ? 64 : t.getIntOrFloatBitWidth();
  Type it = b.getIntegerType(bits);
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::PtrToIntOp::create(b, loc, it, v);
  return LLVM::BitcastOp::create(b, loc, it, v);
}

Value fromBits(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::IntToPtrOp::create(b, loc, t, v);
  return LLVM::BitcastOp::create(b, loc, t, v);
}

MemoryHints hintsOf(tt::CacheModifier cache, tt::EvictionPolicy evict) {
  MemoryHints h;
  switch (cache) {
  case tt::CacheModifier::NONE: h.cache = CacheOp::None; break;
  case tt::CacheModifier::CA: h.cache = CacheOp::CA; break;
  case tt::CacheModifier::CG: h.cache = CacheOp::CG; break;
  case tt::CacheModifier::CS: h.cache = CacheOp::CS; break;
  case tt::CacheModifier::CV: h.cache = CacheOp::CV; break;
  case tt::CacheModifier::WB: h.cache = CacheOp::WB; break;
  case tt::CacheModifier::WT: h.cache = CacheOp::WT; break;
  }
  switch (evict) {
  case tt::EvictionPolicy::NORMAL: h.evict = EvictHint::Normal; break;
  case tt::EvictionPolicy::EVICT_FIRST: h.evict = EvictHint::First; break;
  case tt::EvictionPolicy::EVICT_LAST: h.evict = EvictHint::Last; break;
  }
  return h;
}

Value trueValue(OpBuilder &b, Location loc) {
  return LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
}

/// How many consecutive elements of a thread one access may cover for a
/// tensor access through `ptr` (a tensor of pointers of type `type`), with
/// `mask` (or null): the layout's consecutive registers along one dimension,
/// limited by what AxisInfo proves of the pointers (contiguity, alignment,
/// 16 bytes) and of the mask (constancy). 1 when nothing is proven.
int64_t vectorWidth(const ModuleAxisInfo *axis, Value ptr, Value mask, RankedTensorType type,
                    Type elt) {
  if (!axis || !type || !isa<IntegerType, FloatType>(elt) || !supportsLinearLayout(type))
    return 1;
  unsigned bits = elt.getIntOrFloatBitWidth();
  if (bits < 8 || bits % 8)
    return 1;
  ::tessera::LinearLayout layout = toLinearLayout(type);
  SmallVector<std::string> outs = layout.getOutDimNames();
  for (unsigned d = 0; d < outs.size(); ++d)
    if (outs[d] != "dim" + std::to_string(d))
      return 1;
  const std::vector<::tessera::LinearLayout::BasisVec> *regs = nullptr;
  for (const auto &[name, bases] : layout.getBases())
    if (name == "register")
      regs = &bases;
  if (!regs || regs->empty())
    return 1;
  // Register bits 0..k-1 must step 1, 2, 4, ... along one dimension.
  int dim = -1;
  unsigned k = 0;
  for (; k < regs->size(); ++k) {
    const auto &basis = (*regs)[k];
    int along = -1;
    bool unit = true;
    for (unsigned d = 0; d < basis.size(); ++d) {
      if (basis[d] == 0)
        continue;
      if (along != -1 || basis[d] != (int32_t(1) << k))
        unit = false;
      along = d;
    }
    if (!unit || along == -1 || (dim != -1 && along != dim))
      break;
    dim = along;
  }
  if (dim < 0)
    return 1;
  int64_t width = std::min<int64_t>(int64_t(1) << k,
                                    axis->getVectorElements(ptr, dim, bits / 8, /*maxBytes=*/16));
  if (mask) {
    AxisInfo m = axis->get(mask);
    width = m.isInitialized() && unsigned(dim) < m.getRank() ? std::min(width, m.getConstancy(dim)) : 1;
  }
  // Every group of `width` registers must start at a multiple of `width`
  // along the dimension (other bases move whole groups).
  for (; width > 1; width /= 2) {
    bool aligned = true;
    for (const auto &[name, bases] : layout.getBases())
      for (unsigned i = 0; i < bases.size(); ++i) {
        if (name == "register" && (int64_t(1) << i) < width)
          continue;
        if (bases[i][dim] % width != 0)
          aligned = false;
      }
    if (aligned)
      break;
  }
  return std::max<int64_t>(width, 1);
}

/// Where the target has range-checked offset accesses: the kernel argument
/// (with tt.pointer_range = 32) and the non-negative i32 element offsets
/// (a tensor) that `ptr` is made of -- `addptr(splat(base), offsets)`, the
/// base possibly `addptr(arg, scalar)` with a non-negative i32 scalar.
struct BaseAndOffsets {
  Value base;            // the kernel argument (TT value)
  Value scalarOffset;    // a non-negative i32 scalar added to it, or null
  Value offsets;         // the i32 element offsets (TT value)
};

/// The base, scalar offset and offsets of `ptr` by its definitions alone
/// (callable while the conversion runs), or std::nullopt.
std::optional<BaseAndOffsets> decompose(Value ptr) {
  auto add = ptr.getDefiningOp<tt::AddPtrOp>();
  if (!add)
    return std::nullopt;
  auto offTy = dyn_cast<RankedTensorType>(add.getOffset().getType());
  auto splat = add.getPtr().getDefiningOp<tt::SplatOp>();
  if (!offTy || !offTy.getElementType().isInteger(32) || !splat)
    return std::nullopt;
  Value base = splat.getSrc(), scalar;
  if (auto inner = base.getDefiningOp<tt::AddPtrOp>()) {
    if (!inner.getOffset().getType().isInteger(32))
      return std::nullopt;
    scalar = inner.getOffset();
    base = inner.getPtr();
  }
  if (!isa<BlockArgument>(base))
    return std::nullopt;
  return BaseAndOffsets{base, scalar, add.getOffset()};
}

/// Marks (kOffsetAccess) the loads and stores whose pointers are a kernel
/// argument with tt.pointer_range = 32 plus non-negative i32 offsets.
constexpr llvm::StringLiteral kOffsetAccess = "ttg.offset_access";
/// On a store issued by its owners alone (markOwnerStores).
constexpr llvm::StringLiteral kOwnerStore = "ttg.owner_store";
/// On the last store of a run of owners-only stores that the kernel may read
/// back (no global read between them in their block): a barrier follows it
/// (markOwnerStores).
constexpr llvm::StringLiteral kStoreBarrier = "ttg.store_barrier";

/// The lane and warp bits over which `type`'s layout repeats its elements
/// (zero where the layout is not a linear layout).
std::pair<int64_t, int64_t> laneAndWarpCopyMasks(RankedTensorType type) {
  int64_t laneMask = 0, warpMask = 0;
  if (supportsLinearLayout(type))
    for (auto &[dim, mask] : toLinearLayout(type).getFreeVariableMasks()) {
      if (dim == "lane")
        laneMask = mask;
      else if (dim == "warp")
        warpMask = mask;
    }
  return {laneMask, warpMask};
}

std::optional<BaseAndOffsets> baseAndOffsets(Operation *op) {
  if (!op->hasAttr(kOffsetAccess))
    return std::nullopt;
  return decompose(op->getOperand(0));
}

/// Byte offsets (i32) of each register: (scalar + offsets[i]) * elementBytes.
SmallVector<Value> byteOffsets(ConversionPatternRewriter &rewriter, Location loc,
                               const BaseAndOffsets &bo, int64_t n, unsigned bytes) {
  SmallVector<Value> offs = unpackOrSplat(rewriter, loc, rewriter.getRemappedValue(bo.offsets), n);
  Value scalar = bo.scalarOffset ? rewriter.getRemappedValue(bo.scalarOffset) : Value();
  for (Value &o : offs) {
    if (scalar)
      o = LLVM::AddOp::create(rewriter, loc, o, scalar);
    o = LLVM::MulOp::create(rewriter, loc, o, i32Val(rewriter, loc, bytes));
  }
  return offs;
}

struct LoadConversion : public TesseraOpToLLVMPattern<tt::LoadOp> {
  LoadConversion(const TesseraLLVMTypeConverter &converter, const ModuleAxisInfo *axis)
      : TesseraOpToLLVMPattern(converter), axis(axis) {}
  const ModuleAxisInfo *axis;
  LogicalResult
  matchAndRewrite(tt::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    if (auto p = dyn_cast<tt::PointerType>(op.getPtr().getType()); p && p.isBlockPointer())
      return op.emitError("block-pointer loads must be rewritten to pointer tensors before lowering");
    Type resultType = op.getType();
    Type elt = tc.convertElementType(resultType);
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    int64_t n = tensorType ? getElemsPerThread(tensorType) : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackOrSplat(rewriter, loc, adaptor.getMask(), n);
    if (adaptor.getOther())
      others = unpackOrSplat(rewriter, loc, adaptor.getOther(), n);
    unsigned bits = isa<LLVM::LLVMPointerType>(elt) ? 64 : elt.getIntOrFloatBitWidth();
    Type intTy = rewriter.getIntegerType(bits);
    MemoryHints hints = hintsOf(op.getCache(), op.getEvict());
    SmallVector<Value> results;
    int64_t vec = op.getIsVolatile() ? 1 : vectorWidth(axis, op.getPtr(), op.getMask(), tensorType, elt);
    const TargetInfoBase &ti = tc.getTargetInfo();
    if (std::optional<BaseAndOffsets> bo = op.getIsVolatile() || !tensorType || isa<LLVM::LLVMPointerType>(elt)
                                               ? std::nullopt
                                               : baseAndOffsets(op)) {
      // Range-checked accesses through the base: masks become out-of-range offsets.
      SmallVector<Value> bytes = byteOffsets(rewriter, loc, *bo, n, bits / 8);
      Value base = rewriter.getRemappedValue(bo->base);
      for (int64_t i = 0; i < n; i += vec) {
        SmallVector<Value> groupOthers;
        for (int64_t j = 0; j < vec; ++j)
          groupOthers.push_back(others.empty()
                                    ? Value(LLVM::ConstantOp::create(rewriter, loc, intTy,
                                                                     rewriter.getIntegerAttr(intTy, 0)))
                                    : bitsOf(rewriter, loc, others[i + j]));
        Value pred = masks.empty() ? trueValue(rewriter, loc) : masks[i];
        SmallVector<Value> got = ti.offsetLoad(rewriter, loc, base, bytes[i], intTy, vec, pred, groupOthers);
        if (got.size() != size_t(vec))
          return op.emitOpError("internal error: the target's offset load returned ")
                 << got.size() << " values for " << vec;
        for (Value v : got)
          results.push_back(fromBits(rewriter, loc, v, elt));
      }
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(tensorType), results));
      return success();
    }
    if (vec > 1) {
      for (int64_t i = 0; i < n; i += vec) {
        if (masks.empty() && hints.isDefault()) {
          auto vecTy = VectorType::get(vec, elt);
          unsigned align = vec * bits / 8;
          Value v = LLVM::LoadOp::create(rewriter, loc, vecTy, ptrs[i], align);
          for (int64_t j = 0; j < vec; ++j)
            results.push_back(LLVM::ExtractElementOp::create(rewriter, loc, v, i32Val(rewriter, loc, j)));
          continue;
        }
        SmallVector<Value> group(ptrs.begin() + i, ptrs.begin() + i + vec), groupOthers;
        for (int64_t j = 0; j < vec; ++j)
          groupOthers.push_back(others.empty()
                                    ? Value(LLVM::ConstantOp::create(rewriter, loc, intTy,
                                                                     rewriter.getIntegerAttr(intTy, 0)))
                                    : bitsOf(rewriter, loc, others[i + j]));
        Value pred = masks.empty() ? trueValue(rewriter, loc) : masks[i];
        for (Value v : tc.getTargetInfo().loadPredicatedVector(rewriter, loc, group, intTy, pred,
                                                               groupOthers, hints))
          results.push_back(fromBits(rewriter, loc, v, elt));
      }
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(tensorType), results));
      return success();
    }
    for (int64_t i = 0; i < n; ++i) {
      if (masks.empty() && (hints.isDefault() || op.getIsVolatile())) {
        results.push_back(LLVM::LoadOp::create(rewriter, loc, elt, ptrs[i], /*alignment=*/0,
                                               op.getIsVolatile()));
        continue;
      }
      Value other = others.empty()
                        ? Value(LLVM::ConstantOp::create(rewriter, loc, intTy,
                                                         rewriter.getIntegerAttr(intTy, 0)))
                        : bitsOf(rewriter, loc, others[i]);
      Value pred = masks.empty() ? trueValue(rewriter, loc) : masks[i];
      Value v = tc.getTargetInfo().loadPredicated(rewriter, loc, ptrs[i], intTy, pred,
                                                  other, op.getIsVolatile(), hints);
      results.push_back(fromBits(rewriter, loc, v, elt));
    }
    if (!tensorType)
      rewriter.replaceOp(op, results[0]);
    else
      rewriter.replaceOp(op, packStruct(rewriter, loc, tc.convertType(tensorType), results));
    return success();
  }
};

struct StoreConversion : public TesseraOpToLLVMPattern<tt::StoreOp> {
  StoreConversion(const TesseraLLVMTypeConverter &converter, const ModuleAxisInfo *axis)
      : TesseraOpToLLVMPattern(converter), axis(axis) {}
  const ModuleAxisInfo *axis;
  LogicalResult
  matchAndRewrite(tt::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &tc = this->getTesseraTypeConverter();
    Location loc = op.getLoc();
    if (auto p = dyn_cast<tt::PointerType>(op.getPtr().getType()); p && p.isBlockPointer())
      return op.emitError("block-pointer stores must be rewritten to pointer tensors before lowering");
    auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
    int64_t n = tensorType ? getElemsPerThread(tensorType) : 1;
    SmallVector<Value> ptrs = unpackOrSplat(rewriter, loc, adaptor.getPtr(), n);
    SmallVector<Value> vals = unpackOrSplat(rewriter, loc, adaptor.getValue(), n);
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackOrSplat(rewriter, loc, adaptor.getMask(), n);
    MemoryHints hints = hintsOf(op.getCache(), op.getEvict());
    Type elt = tensorType ? tc.convertElementType(tensorType) : Type();
    // A register that repeats an element this thread already holds (a zero
    // register basis) is not stored twice. Copies held by other lanes and
    // warps (and a scalar, held by every thread) are all stored, so that
    // each thread reads back its own write without a barrier (a program
    // storing to global memory and loading it again, e.g. scratch, relies
    // on that), unless markOwnerStores chose owners: nothing reads the
    // elements back, or a barrier follows the store.
    int64_t copyRegisters = 0;
    if (tensorType && supportsLinearLayout(tensorType))
      for (auto &[dim, mask] : toLinearLayout(tensorType).getFreeVariableMasks())
        if (dim == "register")
          copyRegisters = mask;
    const TargetInfoBase &ti = tc.getTargetInfo();
    // A store nothing in the kernel reads back, or one that runs at most
    // once and is followed by a barrier (markOwnerStores): one thread
    // stores each element; the threads holding copies (lanes and warps the
    // layout repeats data over) are predicated off.
    Value owner;
    if (op->hasAttr(kOwnerStore)) {
      int64_t warpSize = ttg::lookupThreadsPerWarp(op).value_or(32);
      int64_t numWarps = ttg::lookupNumWarps(op).value_or(4);
      auto [laneMask, warpMask] = tensorType ? laneAndWarpCopyMasks(tensorType)
                                             : std::pair<int64_t, int64_t>{warpSize - 1, numWarps - 1};
      int64_t threadMask = laneMask | (warpMask * warpSize);
      if (threadMask && llvm::isPowerOf2_64(uint64_t(warpSize))) {
        Value tid = ti.threadId(rewriter, loc);
        Value bits = LLVM::AndOp::create(rewriter, loc, tid, i32Val(rewriter, loc, int32_t(threadMask)));
        owner = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, bits, i32Val(rewriter, loc, 0));
      }
    }
    auto predicate = [&](int64_t i) -> Value {
      if (masks.empty())
        return owner ? owner : trueValue(rewriter, loc);
      return owner ? LLVM::AndOp::create(rewriter, loc, masks[i], owner).getResult() : masks[i];
    };
    // After the owners' stores, a barrier where the kernel may read the
    // elements back: every thread then sees them (the target's barrier
    // orders global memory too).
    auto finish = [&]() -> LogicalResult {
      if (op->hasAttr(kStoreBarrier))
        ti.barrierForGlobalMemory(rewriter, loc);
      rewriter.eraseOp(op);
      return success();
    };
    bool plain = masks.empty() && hints.isDefault() && !owner;
    int64_t vec = vectorWidth(axis, op.getPtr(), op.getMask(), tensorType, elt);
    if (std::optional<BaseAndOffsets> bo = !tensorType || isa<LLVM::LLVMPointerType>(elt)
                                               ? std::nullopt
                                               : baseAndOffsets(op)) {
      SmallVector<Value> bytes = byteOffsets(rewriter, loc, *bo, n, elt.getIntOrFloatBitWidth() / 8);
      Value base = rewriter.getRemappedValue(bo->base);
      for (int64_t i = 0; i < n; i += vec) {
        if (i & copyRegisters)
          continue;
        SmallVector<Value> groupVals;
        for (int64_t j = 0; j < vec; ++j)
          groupVals.push_back(bitsOf(rewriter, loc, vals[i + j]));
        ti.offsetStore(rewriter, loc, base, bytes[i], groupVals, predicate(i));
      }
      return finish();
    }
    if (vec > 1) {
      unsigned bits = elt.getIntOrFloatBitWidth();
      for (int64_t i = 0; i < n; i += vec) {
        if (i & copyRegisters)
          continue;
        if (plain) {
          auto vecTy = VectorType::get(vec, elt);
          Value v = LLVM::UndefOp::create(rewriter, loc, vecTy);
          for (int64_t j = 0; j < vec; ++j)
            v = LLVM::InsertElementOp::create(rewriter, loc, v, vals[i + j], i32Val(rewriter, loc, j));
          LLVM::StoreOp::create(rewriter, loc, v, ptrs[i], vec * bits / 8);
          continue;
        }
        SmallVector<Value> group(ptrs.begin() + i, ptrs.begin() + i + vec), groupVals;
        for (int64_t j = 0; j < vec; ++j)
          groupVals.push_back(bitsOf(rewriter, loc, vals[i + j]));
        ti.storePredicatedVector(rewriter, loc, group, groupVals, predicate(i), hints);
      }
      return finish();
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i & copyRegisters)
        continue;
      if (plain) {
        LLVM::StoreOp::create(rewriter, loc, vals[i], ptrs[i]);
        continue;
      }
      ti.storePredicated(rewriter, loc, ptrs[i], bitsOf(rewriter, loc, vals[i]), predicate(i), hints);
    }
    return finish();
  }
};

} // namespace

void mlir::tessera::markOffsetAccesses(ModuleOp module, const TargetInfoBase &ti) {
  if (!ti.supportsOffsetAccess())
    return;
  module.walk([&](Operation *op) {
    if (!isa<tt::LoadOp, tt::StoreOp>(op))
      return;
    std::optional<BaseAndOffsets> bo = decompose(op->getOperand(0));
    if (!bo || !knownNonNegative(bo->offsets) || (bo->scalarOffset && !knownNonNegative(bo->scalarOffset)))
      return;
    auto arg = cast<BlockArgument>(bo->base);
    auto fn = dyn_cast<tt::FuncOp>(arg.getOwner()->getParentOp());
    if (!fn || !arg.getOwner()->isEntryBlock())
      return;
    auto range = fn.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tt.pointer_range");
    if (range && range.getInt() == 32)
      op->setAttr(kOffsetAccess, UnitAttr::get(op->getContext()));
  });
}

namespace {
/// Whether `op` (or an op nested in it) may have a memory effect of kind
/// `Effect` on global memory: such an effect on anything but shared memory
/// and the profile buffer, or no known effects.
template <typename Effect>
bool mayTouchGlobal(Operation *op) {
  bool touches = false;
  op->walk([&](Operation *inner) {
    // A barrier orders memory accesses but makes none itself.
    if (isMemoryEffectFree(inner) || isa<ttg::BarrierOp>(inner))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!iface) {
      if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || inner->hasTrait<OpTrait::IsTerminator>())
        return WalkResult::advance();
      touches = true;
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects) {
      if (!isa<Effect>(e.getEffect()))
        continue;
      if (e.getResource() == ttg::SharedMemory::get() || e.getResource() == prof::ProfileBuffer::get())
        continue;
      touches = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return touches;
}

/// A load, an atomic, a call or an op of unknown effects (a store reads
/// nothing).
bool mayReadGlobal(Operation *op) { return mayTouchGlobal<MemoryEffects::Read>(op); }
/// A store, an atomic, a call or an op of unknown effects.
bool mayWriteGlobal(Operation *op) { return mayTouchGlobal<MemoryEffects::Write>(op); }
} // namespace

/// Whether an op that may read global memory can run after `at` (in its
/// block, in a block reachable from it, also around a cycle back to `at`'s
/// block, or after an enclosing op), up to the kernel function.
static bool readsAfter(Operation *at, Operation *fn) {
  while (true) {
    Block *block = at->getBlock();
    for (Operation *o = at->getNextNode(); o; o = o->getNextNode())
      if (mayReadGlobal(o))
        return true;
    // Blocks reachable from this one (the control flow of scf loops and ifs
    // once lowered to branches); reaching this block again runs the ops
    // before `at` too.
    SmallVector<Block *> work(block->getSuccessors().begin(), block->getSuccessors().end());
    llvm::SmallPtrSet<Block *, 16> seen;
    while (!work.empty()) {
      Block *b = work.pop_back_val();
      if (!seen.insert(b).second)
        continue;
      for (Operation &o : *b) {
        if (b == block && &o == at)
          break;
        if (mayReadGlobal(&o))
          return true;
      }
      work.append(b->getSuccessors().begin(), b->getSuccessors().end());
    }
    Operation *parent = at->getParentOp();
    if (parent == fn)
      return false;
    // In a structured loop any op of it may run after the store (in a later
    // iteration, also the other branch of an if the store is in).
    if (isa<LoopLikeOpInterface>(parent) && mayReadGlobal(parent))
      return true;
    at = parent;
  }
}

/// Whether `v` may differ between the threads of a program: it depends on a
/// value read from memory (a load, atomic, call or op of unknown effects,
/// which another program may be writing meanwhile) or on inline assembly.
/// Kernel arguments and the values computed from them and from program ids
/// are the same in every thread. Block arguments follow the values their
/// predecessors pass.
static bool mayVaryAcrossThreads(Value v, Operation *fn) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Value, 32> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      Block *b = arg.getOwner();
      if (b->getParentOp() == fn && b->isEntryBlock())
        continue;
      if (b->getParentOp() != fn)
        return true;
      for (auto it = b->pred_begin(); it != b->pred_end(); ++it) {
        auto br = dyn_cast<BranchOpInterface>((*it)->getTerminator());
        if (!br)
          return true;
        Value in = br.getSuccessorOperands(it.getSuccessorIndex())[arg.getArgNumber()];
        if (!in)
          return true;
        work.push_back(in);
      }
      continue;
    }
    Operation *op = x.getDefiningOp();
    if (mayReadGlobal(op) || isa<tt::ElementwiseInlineAsmOp>(op))
      return true;
    work.append(op->operand_begin(), op->operand_end());
  }
  return false;
}

/// Whether every thread of the program that reaches the function body's
/// block `b` reaches it together: no branch on the way to it has a condition
/// that may differ between threads (a barrier there is then safe).
static bool reachedByAllThreads(Block *b, Operation *fn) {
  SmallVector<Block *> work(b->getPredecessors().begin(), b->getPredecessors().end());
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!work.empty()) {
    Block *x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    // The operands that choose the successor (a cond_br's condition, a
    // switch's flag): those not forwarded to a successor's arguments, which
    // mayVaryAcrossThreads follows where a later choice reads them.
    Operation *term = x->getTerminator();
    if (term->getNumSuccessors() > 1) {
      llvm::SmallBitVector forwarded(term->getNumOperands());
      if (auto br = dyn_cast<BranchOpInterface>(term))
        for (unsigned i = 0; i < term->getNumSuccessors(); ++i)
          for (OpOperand &o : br.getSuccessorOperands(i).getMutableForwardedOperands())
            forwarded.set(o.getOperandNumber());
      for (OpOperand &o : term->getOpOperands())
        if (!forwarded.test(o.getOperandNumber()) && mayVaryAcrossThreads(o.get(), fn))
          return false;
    }
    work.append(x->getPredecessors().begin(), x->getPredecessors().end());
  }
  return true;
}

/// Whether a path of at least one edge leads from `from` to `to` (`to` ==
/// `from`: whether the block lies on a cycle).
static bool reachesByAnEdge(Block *from, Block *to) {
  SmallVector<Block *> work(from->getSuccessors().begin(), from->getSuccessors().end());
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!work.empty()) {
    Block *b = work.pop_back_val();
    if (b == to)
      return true;
    if (seen.insert(b).second)
      work.append(b->getSuccessors().begin(), b->getSuccessors().end());
  }
  return false;
}

/// Whether `w` may run before `s` (both in `fn`): in the function body's
/// blocks (the lowering runs after convert-scf-to-cf), earlier in `s`'s
/// block, anywhere in it when it lies on a cycle, or in a block from which
/// `s`'s block is reachable. Ops nested in other ops: assumed to.
static bool mayRunBefore(Operation *w, Operation *s, Operation *fn) {
  Block *sb = s->getBlock(), *wb = w->getBlock();
  if (sb->getParentOp() != fn || wb->getParentOp() != fn)
    return true;
  if (wb == sb && w->isBeforeInBlock(s))
    return true;
  return reachesByAnEdge(wb, sb);
}

/// Whether other lanes or warps hold copies of the stored elements (a scalar
/// is held by every thread).
static bool copiedAcrossThreads(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return true;
  auto [laneMask, warpMask] = laneAndWarpCopyMasks(tensorType);
  return laneMask || warpMask;
}

void mlir::tessera::markOwnerStores(ModuleOp module) {
  module.walk([&](tt::FuncOp fn) {
    if (!fn.isPublic() || fn.isNoInline())
      return;
    // Candidates: the stores nothing reads back, and the stores of copied
    // elements that run at most once (in a block of the function body on no
    // cycle) and that every thread reaches together (no branch on the way
    // depends on a value that may differ between threads), which a barrier
    // after them makes visible to every thread: one barrier instead of a
    // store from every copy (the copies of a scalar are all the program's
    // threads).
    llvm::SetVector<tt::StoreOp> marked;
    llvm::SmallPtrSet<Operation *, 8> needBarrier;
    SmallVector<Operation *> writes;
    fn.walk([&](Operation *op) {
      if (op == fn.getOperation())
        return;
      if (auto store = dyn_cast<tt::StoreOp>(op)) {
        writes.push_back(op);
        if (!readsAfter(store, fn)) {
          marked.insert(store);
        } else if (Block *b = store->getBlock(); b->getParentOp() == fn.getOperation() && !reachesByAnEdge(b, b) &&
                                                   copiedAcrossThreads(store.getValue().getType()) &&
                                                   reachedByAllThreads(b, fn.getOperation())) {
          marked.insert(store);
          needBarrier.insert(store);
        }
      } else if (op->getNumRegions() == 0 && mayWriteGlobal(op)) {
        writes.push_back(op);
      }
    });
    // A store issued by its owners alone must not follow a write of the same
    // element by other threads, which nothing would order before it: every
    // write that may run before it must be a marked store of the same type
    // (the same layout, hence the same owner for every element) or of a
    // scalar before a scalar (thread 0 owns every scalar). Dropping one store
    // may disqualify others.
    bool changed = true;
    while (changed) {
      changed = false;
      for (tt::StoreOp store : llvm::to_vector(marked)) {
        Type type = store.getValue().getType();
        for (Operation *w : writes) {
          if (w == store.getOperation() || !mayRunBefore(w, store, fn))
            continue;
          auto ws = dyn_cast<tt::StoreOp>(w);
          if (ws && marked.contains(ws) &&
              (ws.getValue().getType() == type ||
               (!isa<RankedTensorType>(type) && !isa<RankedTensorType>(ws.getValue().getType()))))
            continue;
          marked.remove(store);
          changed = true;
          break;
        }
      }
    }
    for (tt::StoreOp store : marked)
      store->setAttr(kOwnerStore, UnitAttr::get(store->getContext()));
    // One barrier serves a run of such stores: a store leaves it to the next
    // one that needs a barrier when no op that may read global memory comes
    // between them in the block.
    for (tt::StoreOp store : marked) {
      if (!needBarrier.contains(store))
        continue;
      bool later = false;
      for (Operation *o = store->getNextNode(); o; o = o->getNextNode()) {
        if (auto next = dyn_cast<tt::StoreOp>(o); next && marked.contains(next) && needBarrier.contains(next)) {
          later = true;
          break;
        }
        if (mayReadGlobal(o))
          break;
      }
      if (!later)
        store->setAttr(kStoreBarrier, UnitAttr::get(store->getContext()));
    }
  });
}

void mlir::tessera::populateLoadStoreOpToLLVMPatterns(
    TesseraLLVMTypeConverter &typeConverter, RewritePatternSet &patterns,
    const ModuleAxisInfo *axisInfo) {
  patterns.add<LoadConversion, StoreConversion>(typeConverter, axisInfo);
}
