//===- Membar.cpp - barriers between racing shared-memory accesses --------- ===//

#include "tessera/Dialect/TTG/Transforms/Passes.h"

#include "tessera/Analysis/Membar.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_MEMBAR
#include "tessera/Dialect/TTG/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

struct MembarPass : public mlir::tessera::impl::MembarBase<MembarPass> {
  void runOnOperation() override {
    // 1. Per function: the Membar analysis's list of ops that need a barrier
    //    before them (over the CFG, calls by their summaries).
    // 2. A ttg.barrier before each.
    getOperation().walk([](tt::FuncOp fn) {
      MembarAnalysis membar(fn);
      for (Operation *op : membar.getBarriers()) {
        OpBuilder b(op);
        ttg::BarrierOp::create(b, op->getLoc());
      }
    });
  }
};

} // namespace
