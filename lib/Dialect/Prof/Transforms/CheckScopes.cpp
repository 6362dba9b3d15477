//===- CheckScopes.cpp - every scope started is ended, on every path --------===//

#include "tessera/Dialect/Prof/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tessera {
#define GEN_PASS_DEF_PROFCHECKSCOPES
#include "tessera/Dialect/Prof/Transforms/Passes.h.inc"
} // namespace mlir::tessera

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// " (started at file:line)" for a record with a file location.
std::string startedAt(prof::RecordOp r) {
  std::string s;
  r->getLoc()->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l); f && s.empty()) {
      s = " (started at " + f.getFilename().str() + ":" + std::to_string(f.getLine()) + ")";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return s;
}

using Stack = SmallVector<prof::RecordOp>;

std::string names(const Stack &s, size_t from) {
  std::string out = "[";
  for (size_t i = from; i < s.size(); ++i)
    out += (i > from ? ", '" : "'") + prof::RecordOp(s[i]).getName().str() + "'";
  return out + "]";
}

/// Follows the open scopes through `block` (structured control flow): the
/// records of the block and of the regions of its ops. `base` is the depth at
/// which the region holding `block` started: an end may not close a scope
/// opened outside it unless `mayCloseOuter` (the branches of an if, which
/// continue their parent's path).
LogicalResult walkBlock(Block &block, Stack &stack, size_t base, bool mayCloseOuter);

/// A region whose end returns to its entry (a loop body, an unknown op's
/// region): what it starts it ends.
LogicalResult balancedRegion(Region &region, Stack &stack, StringRef what) {
  for (Block &b : region) {
    Stack inner = stack;
    if (failed(walkBlock(b, inner, stack.size(), /*mayCloseOuter=*/false)))
      return failure();
    if (inner.size() != stack.size())
      return inner.back().emitError() << "scope '" << inner.back().getName()
                                      << "' is started in " << what
                                      << " but not ended before its end";
  }
  return success();
}

LogicalResult walkBlock(Block &block, Stack &stack, size_t base, bool mayCloseOuter) {
  for (Operation &op : block) {
    if (auto r = dyn_cast<prof::RecordOp>(op)) {
      if (!r.getIsEnd()) {
        stack.push_back(r);
        continue;
      }
      size_t floor = mayCloseOuter ? 0 : base;
      if (stack.size() <= floor)
        return r.emitError() << "ends scope '" << r.getName() << "', which is not open here"
                             << (stack.size() > 0 && !mayCloseOuter
                                     ? " (a scope started outside a loop body is ended outside it)"
                                     : "");
      if (stack.back().getName() != r.getName())
        return r.emitError() << "ends scope '" << r.getName() << "' while scope '"
                             << stack.back().getName() << "'" << startedAt(stack.back())
                             << " is open inside it: end scopes in the reverse order of their starts";
      stack.pop_back();
      continue;
    }
    if (isa<tt::ReturnOp>(op)) {
      if (!stack.empty()) {
        // At the start the user wrote (the return may be implicit).
        InFlightDiagnostic d = stack.back().emitError()
                               << "scope '" << stack.back().getName()
                               << "' is still open when the function returns";
        d.attachNote(op.getLoc()) << "the return";
        return d;
      }
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Stack thenStack = stack, elseStack = stack;
      if (failed(walkBlock(ifOp.getThenRegion().front(), thenStack, base, true)))
        return failure();
      if (!ifOp.getElseRegion().empty() &&
          failed(walkBlock(ifOp.getElseRegion().front(), elseStack, base, true)))
        return failure();
      bool same = thenStack.size() == elseStack.size();
      for (size_t i = 0; same && i < thenStack.size(); ++i)
        same = thenStack[i].getName() == elseStack[i].getName();
      if (!same)
        return ifOp.emitError() << "the branches of this if leave different profiling scopes open: "
                                << names(thenStack, 0) << " after the then-branch, "
                                << names(elseStack, 0) << " after the "
                                << (ifOp.getElseRegion().empty() ? "(empty) else-branch"
                                                                 : "else-branch");
      stack = thenStack;
      continue;
    }
    StringRef what = isa<scf::ForOp, scf::WhileOp>(op) ? "a loop body" : "a region";
    for (Region &region : op.getRegions())
      if (failed(balancedRegion(region, stack, what)))
        return failure();
  }
  return success();
}

struct ProfCheckScopesPass : public mlir::tessera::impl::ProfCheckScopesBase<ProfCheckScopesPass> {
  void runOnOperation() override {
    if (failed(prof::checkScopes(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::tessera::prof::checkScopes(ModuleOp module) {
  // Each function: the open scopes flow from the entry block along its
  // branches (a function with early returns has several blocks); every path
  // into a block must bring the same ones, and tt.return needs none.
  bool ok = true;
  module.walk([&](tt::FuncOp fn) {
    bool any = false;
    fn.walk([&](prof::RecordOp) { any = true; });
    if (!any || fn.getBody().empty())
      return;
    llvm::DenseMap<Block *, Stack> entryState;
    SmallVector<Block *> work{&fn.getBody().front()};
    entryState[work.front()] = {};
    while (!work.empty()) {
      Block *b = work.pop_back_val();
      Stack stack = entryState[b];
      if (failed(walkBlock(*b, stack, 0, false))) {
        ok = false;
        return;
      }
      for (Block *succ : b->getSuccessors()) {
        auto [it, inserted] = entryState.try_emplace(succ, stack);
        if (inserted) {
          work.push_back(succ);
          continue;
        }
        bool same = it->second.size() == stack.size();
        for (size_t i = 0; same && i < stack.size(); ++i)
          same = it->second[i].getName() == stack[i].getName();
        if (!same) {
          b->getTerminator()->emitError()
              << "paths that meet here leave different profiling scopes open: "
              << names(it->second, 0) << " and " << names(stack, 0);
          ok = false;
          return;
        }
      }
    }
  });
  return success(ok);
}
