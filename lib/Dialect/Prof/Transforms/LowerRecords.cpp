//===- LowerRecords.cpp - scope records to a circular buffer ----------------===//

#include "tessera/Dialect/Prof/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

namespace mlir::tessera {
#define GEN_PASS_DEF_PROFLOWERRECORDS
#include "tessera/Dialect/Prof/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

constexpr int64_t kDefaultMaxShared = 48 * 1024;
constexpr int64_t kDefaultBufferBytes = 16 * 1024;

/// The most records one warp can write in a function, along any path and
/// through calls, or nullopt when there is no bound: records in a loop whose
/// trip count is not a constant, in a while loop, in a function that is part
/// of a recursion, or in control flow other than scf.
class RecordBound {
public:
  explicit RecordBound(ModuleOp module) : module(module) {}

  std::optional<int64_t> ofFunc(tt::FuncOp f) {
    if (auto it = memo.find(f); it != memo.end())
      return it->second;
    if (!active.insert(f).second)
      return std::nullopt; // recursion
    std::optional<int64_t> b = 0;
    if (!f.getBody().empty())
      b = f.getBody().hasOneBlock() ? ofBlock(f.getBody().front()) : unboundedIfRecords(f);
    active.erase(f);
    memo[f] = b;
    return b;
  }

private:
  static constexpr int64_t kCap = int64_t(1) << 40;
  static std::optional<int64_t> add(std::optional<int64_t> a, std::optional<int64_t> b) {
    if (!a || !b)
      return std::nullopt;
    return std::min(kCap, *a + *b);
  }
  std::optional<int64_t> unboundedIfRecords(Operation *op) {
    bool any = false;
    op->walk([&](Operation *inner) {
      if (isa<prof::RecordOp>(inner))
        any = true;
      else if (auto call = dyn_cast<tt::CallOp>(inner))
        if (auto callee = module.lookupSymbol<tt::FuncOp>(call.getCallee())) {
          std::optional<int64_t> b = ofFunc(callee);
          any |= !b || *b > 0;
        }
    });
    return any ? std::nullopt : std::optional<int64_t>(0);
  }
  std::optional<int64_t> ofRegion(Region &r) {
    if (r.empty())
      return 0;
    return r.hasOneBlock() ? ofBlock(r.front()) : unboundedIfRecords(r.getParentOp());
  }
  std::optional<int64_t> ofBlock(Block &block) {
    std::optional<int64_t> total = 0;
    for (Operation &op : block) {
      total = add(total, ofOp(&op));
      if (!total)
        return std::nullopt;
    }
    return total;
  }
  std::optional<int64_t> ofOp(Operation *op) {
    if (isa<prof::RecordOp>(op))
      return 1;
    if (auto call = dyn_cast<tt::CallOp>(op)) {
      auto callee = module.lookupSymbol<tt::FuncOp>(call.getCallee());
      return callee ? ofFunc(callee) : std::optional<int64_t>(0);
    }
    if (op->getNumRegions() == 0)
      return 0;
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      std::optional<int64_t> a = ofRegion(ifOp.getThenRegion()), b = ofRegion(ifOp.getElseRegion());
      if (!a || !b)
        return std::nullopt;
      return std::max(*a, *b);
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> body = ofRegion(forOp.getRegion());
      if (!body || *body == 0)
        return body;
      std::optional<int64_t> lb = getConstantIntValue(forOp.getLowerBound()),
                             ub = getConstantIntValue(forOp.getUpperBound()),
                             step = getConstantIntValue(forOp.getStep());
      if (!lb || !ub || !step || *step <= 0)
        return std::nullopt;
      int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      if (trips > 0 && *body > kCap / trips)
        return kCap;
      return trips * *body;
    }
    // Any other op with regions (a while loop, a reduction's combiner): no
    // bound if records can run inside.
    return unboundedIfRecords(op);
  }

  ModuleOp module;
  llvm::DenseMap<Operation *, std::optional<int64_t>> memo;
  llvm::DenseSet<Operation *> active;
};

struct ProfLowerRecordsPass
    : public mlir::tessera::impl::ProfLowerRecordsBase<ProfLowerRecordsPass> {
  using ProfLowerRecordsBase::ProfLowerRecordsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<prof::RecordOp> records;
    module.walk([&](prof::RecordOp r) { records.push_back(r); });
    if (records.empty())
      return;
    if (failed(prof::checkScopes(module)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    auto i32 = IntegerType::get(ctx, 32);

    // What the records hold.
    std::string what = metric;
    if (what.empty())
      if (auto m = module->getAttrOfType<StringAttr>("prof.metric"))
        what = m.getValue().str();
    if (what.empty())
      what = "cycle";
    if (what != "cycle" && what != "time") {
      module.emitError() << "unknown profiling metric '" << what << "' (cycle or time)";
      return signalPassFailure();
    }

    // Scope ids in order of first appearance, and the table the host reads.
    llvm::MapVector<StringRef, prof::RecordOp> firstOf;
    for (prof::RecordOp r : records)
      firstOf.insert({r.getName(), r});
    llvm::json::Array table;
    for (auto &[name, r] : firstOf) {
      llvm::json::Object entry{{"name", name.str()}};
      if (auto fn = r->getParentOfType<tt::FuncOp>())
        entry["function"] = fn.getSymName().str();
      if (auto f = r.getLoc()->findInstanceOf<FileLineColLoc>()) {
        entry["file"] = f.getFilename().str();
        entry["line"] = int64_t(f.getLine());
      }
      table.push_back(std::move(entry));
    }

    // The buffer: after the shared memory the module uses.
    int64_t numWarps = 4;
    if (auto w = module->getAttrOfType<IntegerAttr>("ttg.num-warps"))
      numWarps = w.getInt();
    int64_t used = 0;
    if (auto s = module->getAttrOfType<IntegerAttr>("ttg.shared"))
      used = s.getInt();
    int64_t offset = (used + 15) / 16 * 16;
    int64_t limit = maxShared > 0 ? int64_t(maxShared) : kDefaultMaxShared;
    int64_t bytes;
    std::optional<int64_t> asked;
    if (bufferBytes > 0)
      asked = bufferBytes;
    else if (auto b = module->getAttrOfType<IntegerAttr>("prof.buffer_bytes"))
      asked = b.getInt();
    if (asked) {
      bytes = *asked;
      if (bytes <= 0 || offset + bytes > limit) {
        module.emitError() << "a profile buffer of " << bytes << " bytes does not fit: the kernel uses "
                           << used << " of the " << limit
                           << " bytes of shared memory a program may have";
        return signalPassFailure();
      }
    }
    // A module whose kernels write at most N records per warp (no records in
    // loops of unknown trip count) needs rings of N, rounded up to whole
    // sectors: less shared memory, a smaller global buffer, denser copies; and
    // a ring that never wraps needs no slot arithmetic.
    RecordBound bound(module);
    std::optional<int64_t> most = 0;
    for (auto fn : module.getOps<tt::FuncOp>())
      if (fn.isPublic()) {
        std::optional<int64_t> b = bound.ofFunc(fn);
        most = b && most ? std::optional<int64_t>(std::max(*b, *most)) : std::nullopt;
      }
    if (!asked) {
      // The default: 16 KiB of rings where that much is free, with a
      // power-of-two capacity per warp (a record's slot is one `and`).
      int64_t header = prof::ProfileLayout{numWarps, 0}.bytes();
      int64_t ring = prof::ProfileLayout::recordsThatFit(std::min(limit - offset, kDefaultBufferBytes + header),
                                                         numWarps);
      if (ring > 0)
        ring = int64_t(llvm::bit_floor(uint64_t(ring)));
      if (most)
        ring = std::min(ring, std::max<int64_t>(4, (*most + 3) / 4 * 4));
      bytes = ring > 0 ? prof::ProfileLayout{numWarps, ring}.bytes() : 0; // 0: not even one record fits
    }
    int64_t fit = prof::ProfileLayout::recordsThatFit(bytes, numWarps);
    if (fit < 1) {
      prof::ProfileLayout one{numWarps, 1};
      records.front().emitError()
          << "profiling scopes need at least " << one.bytes()
          << " bytes of shared memory for " << numWarps << " warps, but the kernel uses " << used
          << " of the " << limit << " bytes a program may have; use fewer stages or smaller blocks, "
          << "or profile without scopes (mode=\"kernels\")";
      return signalPassFailure();
    }
    prof::ProfileLayout layout{numWarps, fit};

    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::json::Value(std::move(table));
    module->setAttr("prof.smem_offset", IntegerAttr::get(i32, offset));
    module->setAttr("prof.records_per_warp", IntegerAttr::get(i32, layout.recordsPerWarp));
    module->setAttr("prof.bytes_per_program", IntegerAttr::get(i32, layout.bytes()));
    if (most && *most <= layout.recordsPerWarp)
      module->setAttr("prof.ring_never_wraps", UnitAttr::get(ctx));
    module->setAttr("prof.metric", StringAttr::get(ctx, what));
    module->setAttr("prof.scopes", StringAttr::get(ctx, json));
    module->setAttr("ttg.shared", IntegerAttr::get(i32, offset + layout.bytes()));

    // Functions that record, directly or through calls: a kernel's calls to
    // them publish its warps' counts (kept in registers) before and take
    // them back after.
    llvm::DenseSet<Operation *> recording;
    for (prof::RecordOp r : records)
      if (auto fn = r->getParentOfType<tt::FuncOp>())
        recording.insert(fn);
    for (bool changed = true; changed;) {
      changed = false;
      module.walk([&](tt::CallOp call) {
        auto caller = call->getParentOfType<tt::FuncOp>();
        auto callee = module.lookupSymbol<tt::FuncOp>(call.getCallee());
        if (caller && callee && recording.contains(callee) && recording.insert(caller).second)
          changed = true;
      });
    }
    // The records become stores into the rings.
    int idx = 0;
    llvm::StringMap<int> ids;
    for (auto &entry : firstOf)
      ids[entry.first] = idx++;
    for (prof::RecordOp r : records) {
      OpBuilder b(r);
      auto store = prof::StoreOp::create(b, r.getLoc(), b.getI32IntegerAttr(ids[r.getName()]),
                                         r.getIsEnd() ? b.getUnitAttr() : UnitAttr());
      (void)store;
      r.erase();
    }

    module.walk([&](tt::CallOp call) {
      auto caller = call->getParentOfType<tt::FuncOp>();
      auto callee = module.lookupSymbol<tt::FuncOp>(call.getCallee());
      if (!caller || !caller.isPublic() || caller.isNoInline() || !callee || !recording.contains(callee))
        return;
      OpBuilder b(call);
      prof::CountToSharedOp::create(b, call.getLoc());
      b.setInsertionPointAfter(call);
      prof::CountFromSharedOp::create(b, call.getLoc());
    });

    // Kernels set the rings up on entry and copy them out before returning.
    module.walk([&](tt::FuncOp fn) {
      if (!fn.isPublic() || fn.isNoInline() || fn.getBody().empty())
        return;
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      prof::InitOp::create(b, fn.getLoc());
      fn.walk([&](tt::ReturnOp ret) {
        OpBuilder rb(ret);
        prof::FinalizeOp::create(rb, ret.getLoc());
      });
    });
  }
};

} // namespace
