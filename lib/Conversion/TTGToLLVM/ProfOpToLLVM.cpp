//===- ProfOpToLLVM.cpp - intra-kernel profiling records --------------------===//
//
// The GPU side of tessera.profiler's scopes (docs/profiler.md has the layout):
// prof.init at kernel entry, prof.store per record (lane 0 of each warp
// appends to its warp's ring in shared memory), prof.finalize at kernel exit
// (a call of the module's noinline flush function, which copies the
// program's buffer to its slice of the global profile buffer).
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "tessera/Conversion/TTGToLLVM/Utility.h"
#include "tessera/Dialect/Prof/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <memory>

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// The module's profile layout and where its buffer lives.
struct Layout {
  prof::ProfileLayout rings;
  int64_t smemOffset = 0;
  bool timeMetric = false;
  /// No warp writes more records than its ring holds: a record's slot is its
  /// count.
  bool neverWraps = false;
  /// Whether a slot needs its own counter (a ring that wraps at a capacity
  /// that is not a power of two).
  bool needsSlotCounter() const { return !neverWraps && !llvm::isPowerOf2_64(rings.recordsPerWarp); }
};

FailureOr<Layout> readLayout(Operation *op, int numWarps) {
  auto module = op->getParentOfType<ModuleOp>();
  auto off = module->getAttrOfType<IntegerAttr>("prof.smem_offset");
  auto cap = module->getAttrOfType<IntegerAttr>("prof.records_per_warp");
  if (!off || !cap)
    return op->emitOpError("has no profile buffer: run prof-lower-records first");
  Layout l;
  l.rings = prof::ProfileLayout{numWarps, cap.getInt()};
  l.smemOffset = off.getInt();
  if (auto m = module->getAttrOfType<StringAttr>("prof.metric"))
    l.timeMetric = m.getValue() == "time";
  l.neverWraps = module->hasAttr("prof.ring_never_wraps");
  if (l.rings.recordsPerWarp < 1)
    return op->emitOpError("needs prof.records_per_warp >= 1, got ") << l.rings.recordsPerWarp;
  return l;
}

/// A kernel's record count and ring slot (per thread; lane 0's matter): two
/// allocas that LLVM promotes to registers, made by prof.init.
struct Counters {
  llvm::DenseMap<Operation *, std::pair<Value, Value>> byKernel;
};

template <typename OpTy>
struct ProfPattern : public TesseraOpToLLVMPattern<OpTy> {
  ProfPattern(TesseraLLVMTypeConverter &tc, int numWarps, std::shared_ptr<Counters> counters)
      : TesseraOpToLLVMPattern<OpTy>(tc), ti(tc.getTargetInfo()), numWarps(numWarps),
        counters(std::move(counters)) {}

  /// The register counters of the kernel holding `op`, or nulls (a noinline
  /// function: the counts in shared memory).
  std::pair<Value, Value> kernelCounters(Operation *op) const {
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto it = fn ? counters->byKernel.find(fn) : counters->byKernel.end();
    return it == counters->byKernel.end() ? std::pair<Value, Value>{} : it->second;
  }
  /// The register counters of the kernel holding `op`, which needs them; an
  /// error when `op` is not in such a kernel.
  FailureOr<std::pair<Value, Value>> requireKernelCounters(Operation *op) const {
    auto counters = kernelCounters(op);
    if (!counters.first)
      return op->emitOpError("is not in a kernel with profiling records (run prof-lower-records)");
    return counters;
  }
  /// A kernel's record count from its register, which counts bytes (8 a
  /// record) where there is no slot register (see StoreConversion).
  Value readKernelCount(OpBuilder &b, Location loc, std::pair<Value, Value> counters) const {
    Value c = LLVM::LoadOp::create(b, loc, b.getI32Type(), counters.first);
    return counters.second ? c : LLVM::LShrOp::create(b, loc, c, i32Val(b, loc, 3)).getResult();
  }
  void writeKernelCount(OpBuilder &b, Location loc, std::pair<Value, Value> counters, Value count) const {
    LLVM::StoreOp::create(b, loc,
                          counters.second ? count : LLVM::ShlOp::create(b, loc, count, i32Val(b, loc, 3)).getResult(),
                          counters.first);
  }
  /// This warp's count in shared memory.
  Value countAddress(OpBuilder &b, Location loc, Value base, Value warp, const Layout &l) const {
    return at(b, loc, base,
              LLVM::AddOp::create(b, loc, i32Val(b, loc, l.rings.countsOffset()),
                                  LLVM::ShlOp::create(b, loc, warp, i32Val(b, loc, 2))));
  }
  /// for (i = from; i < to; i += step) body(i), as blocks; leaves the
  /// rewriter after the loop.
  void emitLoop(ConversionPatternRewriter &rewriter, Location loc, Value from, Value to, int64_t step,
                llvm::function_ref<void(Value)> body) const {
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *header = rewriter.createBlock(after, {rewriter.getI32Type()}, {loc});
    Block *bodyBlock = rewriter.createBlock(after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::BrOp::create(rewriter, loc, ValueRange{from}, header);
    rewriter.setInsertionPointToStart(header);
    Value i = header->getArgument(0);
    LLVM::CondBrOp::create(rewriter, loc,
                           LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, i, to), bodyBlock,
                           after);
    rewriter.setInsertionPointToStart(bodyBlock);
    body(i);
    LLVM::BrOp::create(rewriter, loc, ValueRange{LLVM::AddOp::create(rewriter, loc, i, i32Val(rewriter, loc, step))},
                       header);
    rewriter.setInsertionPointToStart(after);
  }
  /// if (cond) body(), as blocks; leaves the rewriter after it.
  void emitIf(ConversionPatternRewriter &rewriter, Location loc, Value cond, llvm::function_ref<void()> body) const {
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *then = rewriter.createBlock(after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, cond, then, after);
    rewriter.setInsertionPointToStart(then);
    body();
    LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
    rewriter.setInsertionPointToStart(after);
  }
  /// The slot of a warp's record number `count`: the count itself in a ring
  /// that never wraps, else the count modulo the capacity (an `and` for a
  /// power of two).
  Value slotOf(OpBuilder &b, Location loc, Value count, const Layout &l) const {
    int64_t cap = l.rings.recordsPerWarp;
    if (l.neverWraps)
      return count;
    return llvm::isPowerOf2_64(cap)
               ? LLVM::AndOp::create(b, loc, count, i32Val(b, loc, cap - 1)).getResult()
               : LLVM::URemOp::create(b, loc, count, i32Val(b, loc, cap)).getResult();
  }

  Value buffer(OpBuilder &b, Location loc, Operation *op, const Layout &l) const {
    return getModuleSharedMemoryAddress(b, loc, op->getParentOfType<ModuleOp>(), ti, l.smemOffset);
  }
  Value at(OpBuilder &b, Location loc, Value base, Value byteOffset) const {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{byteOffset});
  }
  Value at(OpBuilder &b, Location loc, Value base, int64_t byteOffset) const {
    return at(b, loc, base, i32Val(b, loc, byteOffset));
  }
  /// (thread id, lane, warp) of the calling thread.
  std::tuple<Value, Value, Value> ids(OpBuilder &b, Location loc) const {
    Value tid = ti.threadId(b, loc);
    int ws = ti.getWarpSize();
    Value lane = LLVM::AndOp::create(b, loc, tid, i32Val(b, loc, ws - 1));
    Value warp = LLVM::LShrOp::create(b, loc, tid, i32Val(b, loc, llvm::Log2_32(ws)));
    return {tid, lane, warp};
  }
  Value isZero(OpBuilder &b, Location loc, Value v) const {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v, i32Val(b, loc, 0));
  }
  /// The counter a record holds: the cycle counter, or the low bits of the
  /// global timer.
  Value counter(OpBuilder &b, Location loc, const Layout &l) const {
    if (!l.timeMetric)
      return ti.cycleCounter(b, loc);
    Value t = ti.globalTimer(b, loc);
    return t ? LLVM::TruncOp::create(b, loc, b.getI32Type(), t).getResult() : Value();
  }
  /// Whether the target can read the counters (probed in a scratch block, so
  /// that a pattern fails before it changes anything).
  bool countersSupported(MLIRContext *ctx, Location loc) const {
    Block scratch;
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&scratch);
    return ti.globalTimer(b, loc) && ti.cycleCounter(b, loc) && ti.processorId(b, loc);
  }
  LogicalResult unsupported(Operation *op) const {
    return op->emitOpError("profiling scopes are not supported on this target (it has no cycle "
                           "counter or global timer Tessera can read)");
  }

  const TargetInfoBase &ti;
  int numWarps;
  std::shared_ptr<Counters> counters;
};

struct InitConversion : public ProfPattern<prof::InitOp> {
  using ProfPattern::ProfPattern;
  LogicalResult matchAndRewrite(prof::InitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Layout> l = readLayout(op, numWarps);
    if (failed(l))
      return failure();
    Location loc = op.getLoc();
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!fn || !fn->hasAttr(kProfileArgAttr))
      return op.emitOpError("is not in a kernel that takes a profile buffer (prof.init belongs at "
                            "the entry of kernels)");
    if (!countersSupported(rewriter.getContext(), loc))
      return unsupported(op);
    // This warp's ring is empty: its count (and, for a capacity that is not a
    // power of two, its slot) in registers: allocas that LLVM promotes. Calls
    // of functions that record publish the count to shared memory first.
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), ti.getPrivateAddressSpace());
    Value one = i32Val(rewriter, loc, 1);
    Value cnt = LLVM::AllocaOp::create(rewriter, loc, ptrTy, rewriter.getI32Type(), one, 4);
    LLVM::StoreOp::create(rewriter, loc, i32Val(rewriter, loc, 0), cnt);
    Value slot;
    if (l->needsSlotCounter()) {
      slot = LLVM::AllocaOp::create(rewriter, loc, ptrTy, rewriter.getI32Type(), one, 4);
      LLVM::StoreOp::create(rewriter, loc, i32Val(rewriter, loc, 0), slot);
    }
    counters->byKernel[fn] = {cnt, slot};
    // Thread 0 alone reads the clocks (the global timer is slow to read) and
    // writes the header's start fields.
    auto [tid, lane, warp] = ids(rewriter, loc);
    (void)lane;
    (void)warp;
    Value base = buffer(rewriter, loc, op, *l);
    emitIf(rewriter, loc, isZero(rewriter, loc, tid), [&] {
      Value start = ti.globalTimer(rewriter, loc), clock = ti.cycleCounter(rewriter, loc),
            sm = ti.processorId(rewriter, loc);
      LLVM::StoreOp::create(rewriter, loc, start, at(rewriter, loc, base, 0));
      LLVM::StoreOp::create(rewriter, loc, clock, at(rewriter, loc, base, 16));
      LLVM::StoreOp::create(rewriter, loc, sm, at(rewriter, loc, base, 24));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct StoreConversion : public ProfPattern<prof::StoreOp> {
  using ProfPattern::ProfPattern;
  LogicalResult matchAndRewrite(prof::StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Layout> l = readLayout(op, numWarps);
    if (failed(l))
      return failure();
    Location loc = op.getLoc();
    Value now = counter(rewriter, loc, *l);
    if (!now)
      return unsupported(op);
    auto [tid, lane, warp] = ids(rewriter, loc);
    (void)tid;
    Value base = buffer(rewriter, loc, op, *l);
    int64_t cap = l->rings.recordsPerWarp;
    auto i32 = rewriter.getI32Type();
    auto [cntVar, slotVar] = kernelCounters(op);
    Value countPtr, count, slot, slotBytes;
    if (cntVar && !slotVar) {
      // A kernel whose ring never wraps or wraps at a power of two: its
      // register counts bytes (8 a record), so that the record's place is the
      // counter itself or one `and` of it, and the loops that record keep one
      // induction variable for both.
      count = LLVM::LoadOp::create(rewriter, loc, i32, cntVar);
      slotBytes = l->neverWraps ? count
                                : LLVM::AndOp::create(rewriter, loc, count,
                                                      i32Val(rewriter, loc, cap * prof::ProfileLayout::kRecordBytes - 1))
                                      .getResult();
    } else if (cntVar) {
      // A kernel: count and slot in registers (no shared-memory round trip on
      // the warp's path).
      count = LLVM::LoadOp::create(rewriter, loc, i32, cntVar);
      slot = LLVM::LoadOp::create(rewriter, loc, i32, slotVar);
    } else {
      countPtr = countAddress(rewriter, loc, base, warp, *l);
      count = LLVM::LoadOp::create(rewriter, loc, i32, countPtr);
      slot = slotOf(rewriter, loc, count, *l);
    }
    // (ringsOffset + warp * cap * 8) + slot * 8: the warp's ring (the same
    // for every record, hoisted) and the record's place in it.
    Value ring = LLVM::AddOp::create(
        rewriter, loc, i32Val(rewriter, loc, l->rings.ringsOffset()),
        LLVM::MulOp::create(rewriter, loc, warp, i32Val(rewriter, loc, cap * prof::ProfileLayout::kRecordBytes)));
    if (!slotBytes)
      slotBytes = LLVM::ShlOp::create(rewriter, loc, slot, i32Val(rewriter, loc, 3));
    Value byteOff = LLVM::AddOp::create(rewriter, loc, ring, slotBytes);
    // word0 (scope id << 1 | end) then the counter: one two-word store, no
    // packing into 64 bits.
    int64_t word0 = (int64_t(op.getScopeId()) << 1) | (op.getIsEnd() ? 1 : 0);
    auto pairTy = VectorType::get({2}, i32);
    Value record = LLVM::UndefOp::create(rewriter, loc, pairTy);
    record = LLVM::InsertElementOp::create(rewriter, loc, record, i32Val(rewriter, loc, word0),
                                           i32Val(rewriter, loc, 0));
    record = LLVM::InsertElementOp::create(rewriter, loc, record, now, i32Val(rewriter, loc, 1));
    Value leader = isZero(rewriter, loc, lane);
    ti.storeSharedPredicated(rewriter, loc, at(rewriter, loc, base, byteOff), record, leader);
    if (cntVar && !slotVar) {
      LLVM::StoreOp::create(rewriter, loc,
                            LLVM::AddOp::create(rewriter, loc, count, i32Val(rewriter, loc, prof::ProfileLayout::kRecordBytes)),
                            cntVar);
      rewriter.eraseOp(op);
      return success();
    }
    Value next = LLVM::AddOp::create(rewriter, loc, count, i32Val(rewriter, loc, 1));
    if (cntVar) {
      LLVM::StoreOp::create(rewriter, loc, next, cntVar);
      Value slotNext = LLVM::AddOp::create(rewriter, loc, slot, i32Val(rewriter, loc, 1));
      Value wrapped = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, slotNext,
                                           i32Val(rewriter, loc, cap));
      LLVM::StoreOp::create(rewriter, loc,
                            LLVM::SelectOp::create(rewriter, loc, wrapped, i32Val(rewriter, loc, 0), slotNext),
                            slotVar);
    } else {
      ti.storeSharedPredicated(rewriter, loc, countPtr, next, leader);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FinalizeConversion : public ProfPattern<prof::FinalizeOp> {
  using ProfPattern::ProfPattern;
  static constexpr llvm::StringLiteral kFlushName = "__tessera_prof_flush";
  static constexpr llvm::StringLiteral kFlushAttr = "tessera.prof_flush";

  LogicalResult matchAndRewrite(prof::FinalizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Layout> l = readLayout(op, numWarps);
    if (failed(l))
      return failure();
    Location loc = op.getLoc();
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto argIndex = fn ? fn->getAttrOfType<IntegerAttr>(kProfileArgAttr) : IntegerAttr();
    if (!argIndex || fn.getBody().empty())
      return op.emitOpError("is not in a kernel that takes a profile buffer (prof.finalize belongs "
                            "before the returns of kernels)");
    if (!countersSupported(rewriter.getContext(), loc))
      return unsupported(op);
    Value globalBase = fn.getBody().front().getArgument(argIndex.getInt());
    auto [cntVar, slotVar] = kernelCounters(op);
    if (!cntVar)
      return op.emitOpError("has no prof.init before it in its kernel");
    // The copy to global memory is a noinline function of the module, given
    // the buffer and this warp's count (its register, current after calls
    // that record): everything else it needs (thread and program ids, the
    // slice's address) it computes itself, so none of it lives across the
    // kernel's loops and the kernel's register allocation does not see it.
    Value count = readKernelCount(rewriter, loc, {cntVar, slotVar});
    LLVM::LLVMFuncOp flush = getOrCreateFlush(rewriter, loc, op->getParentOfType<ModuleOp>(),
                                              globalBase.getType(), *l);
    LLVM::CallOp::create(rewriter, loc, flush, ValueRange{globalBase, count});
    rewriter.eraseOp(op);
    return success();
  }

  /// `void __tessera_prof_flush(ptr<1> buffer, i32 count)`: every warp's
  /// records (after a barrier) to this program's slice of the buffer, with
  /// the header and counts. One per module: the layout is the module's.
  LLVM::LLVMFuncOp getOrCreateFlush(ConversionPatternRewriter &rewriter, Location loc, ModuleOp module,
                                    Type globalPtrTy, const Layout &layout) const {
    // The module's flush carries kFlushAttr; a function of the user's that
    // happens to have the name keeps it, and the flush takes the first free
    // name of the form __tessera_prof_flush_<n>.
    std::string name = kFlushName.str();
    for (int n = 1;; ++n) {
      Operation *existing = module.lookupSymbol(name);
      if (!existing)
        break;
      if (existing->hasAttr(kFlushAttr))
        return cast<LLVM::LLVMFuncOp>(existing);
      name = (kFlushName + "_" + Twine(n)).str();
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto i32 = rewriter.getI32Type();
    auto fnTy = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(rewriter.getContext()), {globalPtrTy, i32});
    auto flush = LLVM::LLVMFuncOp::create(rewriter, loc, name, fnTy, LLVM::Linkage::Internal);
    flush->setAttr(kFlushAttr, rewriter.getUnitAttr());
    flush->setAttr("passthrough", rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
    Block *entry = rewriter.createBlock(&flush.getBody(), {}, {globalPtrTy, i32}, {loc, loc});
    rewriter.setInsertionPointToStart(entry);
    emitFlush(rewriter, loc, module, entry->getArgument(0), entry->getArgument(1), layout);
    LLVM::ReturnOp::create(rewriter, loc, ValueRange{});
    return flush;
  }

  void emitFlush(ConversionPatternRewriter &rewriter, Location loc, ModuleOp module, Value globalBase, Value count,
                 const Layout &l) const {
    auto i32 = rewriter.getI32Type();
    auto i64 = rewriter.getI64Type();
    auto [tidV, laneV, warpV] = ids(rewriter, loc);
    Value tid = tidV, lane = laneV, warp = warpV;
    Value base = getModuleSharedMemoryAddress(rewriter, loc, module, ti, l.smemOffset);
    // Every warp's records are in (and visible to all lanes).
    ti.barrier(rewriter, loc);
    // This program's slice: linear program index x + nx * (y + ny * z).
    auto ext = [&](Value v) { return LLVM::ZExtOp::create(rewriter, loc, i64, v).getResult(); };
    Value x = ext(ti.programId(rewriter, loc, 0)), y = ext(ti.programId(rewriter, loc, 1)),
          z = ext(ti.programId(rewriter, loc, 2));
    Value nx = ext(ti.numPrograms(rewriter, loc, 0)), ny = ext(ti.numPrograms(rewriter, loc, 1));
    Value linear = LLVM::AddOp::create(
        rewriter, loc, x,
        LLVM::MulOp::create(rewriter, loc, nx,
                            LLVM::AddOp::create(rewriter, loc, y, LLVM::MulOp::create(rewriter, loc, ny, z))));
    int64_t bytes = l.rings.bytes();
    Value slice = LLVM::GEPOp::create(
        rewriter, loc, globalBase.getType(), rewriter.getI8Type(), globalBase,
        ValueRange{LLVM::MulOp::create(rewriter, loc, linear, LLVM::ConstantOp::create(rewriter, loc, i64, bytes))});
    auto sliceAt = [&](Value byteOff) {
      return LLVM::GEPOp::create(rewriter, loc, globalBase.getType(), rewriter.getI8Type(), slice,
                                 ValueRange{LLVM::ZExtOp::create(rewriter, loc, i64, byteOff)})
          .getResult();
    };
    // The header, by thread 0 (the others do not wait for its clock reads):
    // start fields from shared memory, end time and clock now.
    emitIf(rewriter, loc, isZero(rewriter, loc, tid), [&] {
      Value end = ti.globalTimer(rewriter, loc), clock = ti.cycleCounter(rewriter, loc);
      Value start = LLVM::LoadOp::create(rewriter, loc, i64, at(rewriter, loc, base, 0));
      Value startClock = LLVM::LoadOp::create(rewriter, loc, i32, at(rewriter, loc, base, 16));
      Value sm = LLVM::LoadOp::create(rewriter, loc, i32, at(rewriter, loc, base, 24));
      LLVM::StoreOp::create(rewriter, loc, start, sliceAt(i32Val(rewriter, loc, 0)));
      LLVM::StoreOp::create(rewriter, loc, end, sliceAt(i32Val(rewriter, loc, 8)));
      LLVM::StoreOp::create(rewriter, loc, startClock, sliceAt(i32Val(rewriter, loc, 16)));
      LLVM::StoreOp::create(rewriter, loc, clock, sliceAt(i32Val(rewriter, loc, 20)));
      LLVM::StoreOp::create(rewriter, loc, sm, sliceAt(i32Val(rewriter, loc, 24)));
      LLVM::StoreOp::create(rewriter, loc, i32Val(rewriter, loc, numWarps), sliceAt(i32Val(rewriter, loc, 28)));
    });
    // Each warp's count, by its lane 0.
    emitIf(rewriter, loc, isZero(rewriter, loc, lane), [&] {
      LLVM::StoreOp::create(rewriter, loc, count,
                            sliceAt(LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, l.rings.countsOffset()),
                                                        LLVM::ShlOp::create(rewriter, loc, warp,
                                                                            i32Val(rewriter, loc, 2)))));
    });
    // The counts' padding, zeros by the threads of those indices (the counts
    // then fill whole 32-byte sectors).
    int64_t padWords = (l.rings.ringsOffset() - l.rings.countsOffset()) / 4;
    if (padWords > numWarps) {
      Value inPad = LLVM::AndOp::create(
          rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge, tid, i32Val(rewriter, loc, numWarps)),
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, tid, i32Val(rewriter, loc, padWords)));
      emitIf(rewriter, loc, inPad, [&] {
        LLVM::StoreOp::create(rewriter, loc, i32Val(rewriter, loc, 0),
                              sliceAt(LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, l.rings.countsOffset()),
                                                          LLVM::ShlOp::create(rewriter, loc, tid,
                                                                              i32Val(rewriter, loc, 2)))));
      });
    }
    // Each warp's records, min(count, C) of them, by its lanes, 8 bytes each:
    // for (i = lane; i < n; i += warp size)
    //   copy(ringsOffset + (warp * C + i) * 8)
    // With C a multiple of 4, n = min(count rounded up to 4, C): whole 32-byte
    // sectors (a partly written sector costs the memory a read-modify-write;
    // the slots past the count are never decoded).
    int64_t cap = l.rings.recordsPerWarp;
    Value capV = i32Val(rewriter, loc, cap);
    Value upTo = count;
    if (cap % 4 == 0)
      upTo = LLVM::AndOp::create(rewriter, loc, LLVM::AddOp::create(rewriter, loc, count, i32Val(rewriter, loc, 3)),
                                 i32Val(rewriter, loc, ~3));
    Value n = LLVM::SelectOp::create(
        rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, upTo, capV), upTo, capV);
    Value ringBase = LLVM::MulOp::create(rewriter, loc, warp, capV);
    emitLoop(rewriter, loc, lane, n, ti.getWarpSize(), [&](Value i) {
      Value rec = LLVM::AddOp::create(rewriter, loc, ringBase, i);
      Value byteOff = LLVM::AddOp::create(rewriter, loc, i32Val(rewriter, loc, l.rings.ringsOffset()),
                                          LLVM::ShlOp::create(rewriter, loc, rec, i32Val(rewriter, loc, 3)));
      Value v = LLVM::LoadOp::create(rewriter, loc, i64, at(rewriter, loc, base, byteOff));
      LLVM::StoreOp::create(rewriter, loc, v, sliceAt(byteOff));
    });
  }
};

/// Before a call that records: lane 0 writes the kernel's count to shared.
struct CountToSharedConversion : public ProfPattern<prof::CountToSharedOp> {
  using ProfPattern::ProfPattern;
  LogicalResult matchAndRewrite(prof::CountToSharedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Layout> l = readLayout(op, numWarps);
    if (failed(l))
      return failure();
    FailureOr<std::pair<Value, Value>> counters = requireKernelCounters(op);
    if (failed(counters))
      return failure();
    Location loc = op.getLoc();
    auto [tid, lane, warp] = ids(rewriter, loc);
    (void)tid;
    Value cnt = readKernelCount(rewriter, loc, *counters);
    ti.storeSharedPredicated(rewriter, loc, countAddress(rewriter, loc, buffer(rewriter, loc, op, *l), warp, *l),
                             cnt, isZero(rewriter, loc, lane));
    rewriter.eraseOp(op);
    return success();
  }
};

/// After a call that records: the count (and slot) back from shared.
struct CountFromSharedConversion : public ProfPattern<prof::CountFromSharedOp> {
  using ProfPattern::ProfPattern;
  LogicalResult matchAndRewrite(prof::CountFromSharedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Layout> l = readLayout(op, numWarps);
    if (failed(l))
      return failure();
    FailureOr<std::pair<Value, Value>> counters = requireKernelCounters(op);
    if (failed(counters))
      return failure();
    auto [cntVar, slotVar] = *counters;
    Location loc = op.getLoc();
    auto [tid, lane, warp] = ids(rewriter, loc);
    (void)tid;
    (void)lane;
    Value cnt = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(),
                                     countAddress(rewriter, loc, buffer(rewriter, loc, op, *l), warp, *l));
    writeKernelCount(rewriter, loc, *counters, cnt);
    if (slotVar) // (a power-of-two ring has no slot counter)
      LLVM::StoreOp::create(rewriter, loc, slotOf(rewriter, loc, cnt, *l), slotVar);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tessera::populateProfOpToLLVMPatterns(TesseraLLVMTypeConverter &typeConverter,
                                                 RewritePatternSet &patterns, int numWarps) {
  auto counters = std::make_shared<Counters>();
  patterns.add<InitConversion, StoreConversion, FinalizeConversion, CountToSharedConversion,
               CountFromSharedConversion>(typeConverter, numWarps, counters);
}
