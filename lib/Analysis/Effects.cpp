//===- Effects.cpp - which kernel arguments a kernel reads and writes -----===//

#include "tessera/Analysis/Effects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;

namespace {

/// Whether the integer `addr` (an address from tt.ptr_to_int) may be used to
/// reach memory: it flows, through pure integer operations, into anything but
/// a comparison or a branch condition (tt.int_to_ptr, memory, a call, asm,
/// values carried by control flow). An alignment check (`addr % 16 == 0`)
/// keeps it in.
bool addressEscapes(Value addr) {
  SmallVector<Value> work{addr};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<arith::CmpIOp>(user))
        continue;
      if (isa<scf::IfOp>(user) || (isa<cf::CondBranchOp>(user) && use.getOperandNumber() == 0))
        continue; // a condition
      if (isa<tt::IntToPtrOp>(user) || user->getNumRegions() ||
          user->hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(user))
        return true;
      for (Value r : user->getResults())
        work.push_back(r);
    }
  }
  return false;
}

bool isPointerLike(Type t) {
  return isa<tt::PointerType>(getElementTypeOrSelf(t)) || isa<tt::TensorDescType>(t);
}

/// The kernel arguments a pointer-like value may derive from; `unknown` when
/// it may point anywhere.
struct Provenance {
  llvm::SetVector<Value> roots;
  bool unknown = false;
  bool join(const Provenance &other) {
    bool changed = false;
    for (Value r : other.roots)
      changed |= roots.insert(r);
    if (other.unknown && !unknown)
      changed = unknown = true;
    return changed;
  }
};

bool isKernel(FunctionOpInterface fn) { return fn.isPublic() && !fn.isExternal(); }

class Analysis {
public:
  explicit Analysis(ModuleOp module) : module(module), symbols(module) {}

  std::vector<KernelEffects> run() {
    seed();
    while (propagate()) {
    }
    computeReach();
    std::vector<KernelEffects> result;
    for (FunctionOpInterface k : kernels) {
      KernelEffects ke{k, {}};
      for (BlockArgument a : k.getFunctionBody().getArguments())
        if (isPointerLike(a.getType()))
          ke.arguments.push_back(ArgumentEffect{a.getArgNumber(), false, false, {}});
      result.push_back(std::move(ke));
    }
    collect(result);
    return result;
  }

private:
  ModuleOp module;
  SymbolTable symbols;
  DenseMap<Value, Provenance> prov;
  SmallVector<FunctionOpInterface> kernels;
  /// For each function, the kernels whose calls reach it.
  DenseMap<Operation *, llvm::SetVector<Operation *>> reach;

  bool join(Value dst, Value src) {
    if (!isPointerLike(dst.getType()))
      return false;
    auto it = prov.find(src);
    if (it == prov.end())
      return false;
    Provenance copy = it->second;
    return prov[dst].join(copy);
  }
  bool joinUnknown(Value dst) {
    if (!isPointerLike(dst.getType()))
      return false;
    Provenance u;
    u.unknown = true;
    return prov[dst].join(u);
  }

  void seed() {
    for (auto fn : module.getOps<FunctionOpInterface>()) {
      if (!isKernel(fn))
        continue;
      kernels.push_back(fn);
      for (BlockArgument a : fn.getFunctionBody().getArguments())
        if (isPointerLike(a.getType()))
          prov[a].roots.insert(a);
    }
  }

  FunctionOpInterface callee(tt::CallOp call) {
    return dyn_cast_or_null<FunctionOpInterface>(symbols.lookup(call.getCallee()));
  }

  /// One pass over the module; true when some provenance grew.
  bool propagate() {
    bool changed = false;
    module.walk([&](Operation *op) {
      if (isa<FunctionOpInterface, ModuleOp>(op))
        return; // arguments: seeded (kernels) or joined at call sites
      if (auto call = dyn_cast<tt::CallOp>(op)) {
        FunctionOpInterface fn = callee(call);
        if (!fn || fn.isExternal()) {
          for (Value r : call->getResults())
            changed |= joinUnknown(r);
          return;
        }
        for (auto [i, v] : llvm::enumerate(call.getOperands()))
          if (i < fn.getNumArguments())
            changed |= join(fn.getArgument(i), v);
        fn.walk([&](tt::ReturnOp ret) {
          for (auto [i, v] : llvm::enumerate(ret.getOperands()))
            if (i < call->getNumResults())
              changed |= join(call->getResult(i), v);
        });
        return;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
        for (unsigned i = 0; i < forOp.getNumResults(); ++i) {
          Value init = forOp.getInitArgs()[i], next = yield.getOperand(i);
          changed |= join(forOp.getRegionIterArgs()[i], init);
          changed |= join(forOp.getRegionIterArgs()[i], next);
          changed |= join(forOp.getResult(i), init);
          changed |= join(forOp.getResult(i), next);
        }
        return;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
          if (r->empty())
            continue;
          auto yield = cast<scf::YieldOp>(r->front().getTerminator());
          for (unsigned i = 0; i < ifOp.getNumResults(); ++i)
            changed |= join(ifOp.getResult(i), yield.getOperand(i));
        }
        return;
      }
      if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
        Block &before = whileOp.getBefore().front(), &after = whileOp.getAfter().front();
        auto cond = whileOp.getConditionOp();
        auto yield = cast<scf::YieldOp>(after.getTerminator());
        for (unsigned i = 0; i < before.getNumArguments(); ++i) {
          changed |= join(before.getArgument(i), whileOp.getInits()[i]);
          if (i < yield.getNumOperands())
            changed |= join(before.getArgument(i), yield.getOperand(i));
        }
        for (unsigned i = 0; i < cond.getArgs().size(); ++i) {
          if (i < after.getNumArguments())
            changed |= join(after.getArgument(i), cond.getArgs()[i]);
          if (i < whileOp.getNumResults())
            changed |= join(whileOp.getResult(i), cond.getArgs()[i]);
        }
        return;
      }
      if (auto branch = dyn_cast<BranchOpInterface>(op)) {
        for (unsigned s = 0; s < op->getNumSuccessors(); ++s) {
          SuccessorOperands operands = branch.getSuccessorOperands(s);
          Block *dest = op->getSuccessor(s);
          for (unsigned i = 0; i < dest->getNumArguments(); ++i) {
            if (operands.isOperandProduced(i)) {
              changed |= joinUnknown(dest->getArgument(i));
              continue;
            }
            if (Value v = operands[i])
              changed |= join(dest->getArgument(i), v);
          }
        }
        return;
      }
      bool pointerResults = llvm::any_of(op->getResultTypes(), isPointerLike);
      bool regionPointers = false;
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument a : b.getArguments())
            regionPointers |= isPointerLike(a.getType());
      if (!pointerResults && !regionPointers)
        return;
      // Global scratch is the kernel's own memory: no argument (an empty
      // provenance, and not unknown).
      if (isa<ttg::GlobalScratchAllocOp>(op)) {
        for (Value r : op->getResults())
          changed |= prov.try_emplace(r).second;
        return;
      }
      // A pointer from an integer, or loaded from memory: anywhere.
      if (isa<tt::IntToPtrOp, tt::LoadOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op)) {
        for (Value r : op->getResults())
          changed |= joinUnknown(r);
        return;
      }
      // Otherwise a pointer-like result derives from the pointer-like
      // operands (addptr, advance, views, select, make_tensor_ptr,
      // make_tensor_descriptor, layout conversions, ...); with none, unknown.
      SmallVector<Value> sources;
      for (Value v : op->getOperands())
        if (isPointerLike(v.getType()))
          sources.push_back(v);
      auto flow = [&](Value dst) {
        if (sources.empty()) {
          changed |= joinUnknown(dst);
          return;
        }
        for (Value s : sources)
          changed |= join(dst, s);
      };
      for (Value r : op->getResults())
        flow(r);
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument a : b.getArguments())
            flow(a);
    });
    return changed;
  }

  void computeReach() {
    for (FunctionOpInterface k : kernels)
      reach[k.getOperation()].insert(k.getOperation());
    bool changed = true;
    while (changed) {
      changed = false;
      module.walk([&](tt::CallOp call) {
        FunctionOpInterface fn = callee(call);
        auto from = call->getParentOfType<FunctionOpInterface>();
        if (!fn || !from)
          return;
        auto src = reach.find(from.getOperation());
        if (src == reach.end())
          return;
        llvm::SetVector<Operation *> add = src->second;
        for (Operation *k : add)
          changed |= reach[fn.getOperation()].insert(k);
      });
    }
  }

  void collect(std::vector<KernelEffects> &result) {
    DenseMap<Operation *, KernelEffects *> byKernel;
    for (KernelEffects &k : result)
      byKernel[k.kernel.getOperation()] = &k;
    auto record = [&](KernelEffects &k, unsigned argIndex, bool r, bool w, StringRef what, Location loc) {
      for (ArgumentEffect &a : k.arguments) {
        if (a.index != argIndex)
          continue;
        a.read |= r;
        a.written |= w;
        for (EffectCause &c : a.causes)
          if (c.what == what && c.loc == loc) {
            c.read |= r;
            c.write |= w;
            return;
          }
        a.causes.push_back(EffectCause{r, w, what.str(), loc});
      }
    };
    auto apply = [&](Operation *op, Value ptr, bool r, bool w, StringRef what) {
      Provenance p;
      if (auto it = prov.find(ptr); it != prov.end())
        p = it->second;
      else
        p.unknown = true; // never reached by the propagation: assume the worst
      for (Value root : p.roots) {
        auto arg = cast<BlockArgument>(root);
        Operation *fn = arg.getOwner()->getParentOp();
        if (KernelEffects *k = byKernel.lookup(fn))
          record(*k, arg.getArgNumber(), r, w, what, op->getLoc());
      }
      if (!p.unknown)
        return;
      auto fn = op->getParentOfType<FunctionOpInterface>();
      if (!fn)
        return;
      std::string why = (what + " through a pointer of unknown origin").str();
      for (Operation *kop : reach.lookup(fn.getOperation()))
        if (KernelEffects *k = byKernel.lookup(kop))
          for (ArgumentEffect &a : k->arguments)
            record(*k, a.index, r, w, why, op->getLoc());
    };
    // Ops that may read and write through every pointer they are given.
    auto readWritePointers = [&](Operation *op, StringRef what) {
      for (Value v : op->getOperands())
        if (isPointerLike(v.getType()))
          apply(op, v, true, true, what);
    };
    module.walk([&](Operation *op) {
      if (auto load = dyn_cast<tt::LoadOp>(op))
        return apply(op, load.getPtr(), true, false, "load");
      if (auto store = dyn_cast<tt::StoreOp>(op))
        return apply(op, store.getPtr(), false, true, "store");
      if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
        return apply(op, rmw.getPtr(), true, true, "atomic");
      if (auto cas = dyn_cast<tt::AtomicCASOp>(op))
        return apply(op, cas.getPtr(), true, true, "atomic_cas");
      if (auto dl = dyn_cast<tt::DescriptorLoadOp>(op))
        return apply(op, dl.getDesc(), true, false, "descriptor load");
      if (auto ds = dyn_cast<tt::DescriptorStoreOp>(op))
        return apply(op, ds.getDesc(), false, true, "descriptor store");
      if (auto copy = dyn_cast<ttg::AsyncCopyGlobalToLocalOp>(op))
        return apply(op, copy.getSrc(), true, false, "load");
      if (isa<tt::PtrToIntOp>(op) && addressEscapes(op->getResult(0)))
        return apply(op, op->getOperand(0), true, true, "address converted to an integer");
      if (auto call = dyn_cast<tt::CallOp>(op)) {
        FunctionOpInterface fn = callee(call);
        if (fn && !fn.isExternal())
          return; // its body is analysed with its arguments' provenance
        return readWritePointers(op, "pointer passed to an external function");
      }
      if (isa<tt::ElementwiseInlineAsmOp, tt::ExternElementwiseOp>(op)) {
        // Pure or not, assembly or an external function given a pointer may
        // write through it (the purity flag is the author's word).
        return readWritePointers(op, isa<tt::ElementwiseInlineAsmOp>(op) ? "inline asm" : "external function");
      }
      if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() ||
          isa<tt::PrintOp, tt::AssertOp>(op) || isMemoryEffectFree(op))
        return;
      // Anything else that touches memory and is given a pointer (an op this
      // analysis does not know): may read and write it.
      readWritePointers(op, op->getName().getStringRef());
    });
  }
};

std::optional<FileLineColLoc> fileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

} // namespace

std::string mlir::tessera::ArgumentEffect::effect() const {
  if (read && written)
    return "read-write";
  if (written)
    return "written";
  return read ? "read" : "untouched";
}

std::vector<KernelEffects> mlir::tessera::analyzeKernelEffects(ModuleOp module) {
  return Analysis(module).run();
}

std::string mlir::tessera::kernelEffectsJson(ModuleOp module) {
  llvm::json::Array kernels;
  for (const KernelEffects &k : analyzeKernelEffects(module)) {
    llvm::json::Array args;
    for (const ArgumentEffect &a : k.arguments) {
      llvm::json::Array causes;
      for (const EffectCause &c : a.causes) {
        llvm::json::Object o{{"what", c.what}, {"read", c.read}, {"write", c.write}};
        if (auto f = fileLocation(c.loc)) {
          o["file"] = f->getFilename().str();
          o["line"] = int64_t(f->getLine());
          o["column"] = int64_t(f->getColumn());
        }
        causes.push_back(std::move(o));
      }
      args.push_back(llvm::json::Object{{"index", int64_t(a.index)}, {"effect", a.effect()},
                                        {"causes", std::move(causes)}});
    }
    kernels.push_back(llvm::json::Object{{"kernel", const_cast<FunctionOpInterface &>(k.kernel).getName().str()}, {"arguments", std::move(args)}});
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(kernels));
  return out;
}
