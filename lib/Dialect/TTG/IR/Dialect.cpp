//===- Dialect.cpp - the ttg dialect, aliases, module attributes ----------===//

#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "tessera/Target/Backend.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::ttg;

#include "tessera/Dialect/TTG/IR/TTGDialect.cpp.inc"

namespace {

/// Prints layouts under the alias names Triton uses (#blocked, #mma,
/// #linear, #shared, #smem; numbered #blocked1, … when there are several). Slices and
/// dot operands stay inline, as in Triton's output.
struct TTGOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<TensorCoreEncodingTrait>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<LinearEncodingAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedEncodingTrait>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedMemorySpaceAttr>(attr)) {
      os << "smem";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};

} // namespace

void TTGDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/TTG/IR/TTGOps.cpp.inc"
      >();
  addInterfaces<TTGOpAsmInterface>();
}

/// Folds (convert_layout of a splat constant) produce arith constants.
Operation *TTGDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                           Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Module attributes
//===----------------------------------------------------------------------===//

static std::optional<int> lookupIntAttr(Operation *op, StringRef name) {
  for (; op; op = op->getParentOp())
    if (auto attr = op->getAttrOfType<IntegerAttr>(name))
      return static_cast<int>(attr.getInt());
  return std::nullopt;
}

std::optional<int> mlir::tessera::ttg::lookupNumWarps(Operation *op) {
  return lookupIntAttr(op, TTGDialect::kNumWarpsAttrName);
}
std::optional<int> mlir::tessera::ttg::lookupNumCTAs(Operation *op) {
  return lookupIntAttr(op, TTGDialect::kNumCTAsAttrName);
}
std::optional<int> mlir::tessera::ttg::lookupThreadsPerWarp(Operation *op) {
  return lookupIntAttr(op, TTGDialect::kThreadsPerWarpAttrName);
}

namespace {

std::string arrayToString(ArrayRef<unsigned> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  return s + "]";
}

unsigned product(ArrayRef<unsigned> values) {
  unsigned n = 1;
  for (unsigned v : values)
    n *= v;
  return n;
}

/// Checks the layouts of the tensors in `root`'s regions against its
/// "ttg.num-warps", "ttg.threads-per-warp" and "ttg.num-ctas": the warps
/// (threads, CTAs) of a blocked or MMA layout must be exactly those of the
/// module. Ops below another op with its own "ttg.num-warps" belong to
/// that op.
class LaunchShapeChecker {
public:
  LaunchShapeChecker(Operation *root, int numWarps,
                     std::optional<int> threadsPerWarp,
                     std::optional<int> numCTAs)
      : root(root), numWarps(numWarps), threadsPerWarp(threadsPerWarp),
        numCTAs(numCTAs) {}

  LogicalResult run() {
    WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == root)
        return WalkResult::advance();
      if (op->hasAttr(TTGDialect::kNumWarpsAttrName))
        return WalkResult::skip();
      for (Value v : op->getResults())
        if (failed(check(op, v.getType())))
          return WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(check(op, arg.getType())))
              return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

private:
  LogicalResult check(Operation *op, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getEncoding())
      return success();
    Attribute layout = tensor.getEncoding();
    // Slices and dot operands use the warps of their parent.
    while (true) {
      if (auto slice = dyn_cast<SliceEncodingAttr>(layout))
        layout = slice.getParent();
      else if (auto dot = dyn_cast<DotOperandEncodingAttr>(layout))
        layout = dot.getParent();
      else
        break;
    }
    if (!checked.insert(layout).second)
      return success();
    if (auto blocked = dyn_cast<BlockedEncodingAttr>(layout)) {
      if (threadsPerWarp &&
          product(blocked.getThreadsPerWarp()) != unsigned(*threadsPerWarp))
        return op->emitOpError()
               << "has a tensor whose layout " << layout
               << " has threadsPerWarp "
               << arrayToString(blocked.getThreadsPerWarp()) << " ("
               << product(blocked.getThreadsPerWarp())
               << " threads), but the module has \"ttg.threads-per-warp\" = "
               << *threadsPerWarp;
      return checkWarpsAndCTAs(op, layout, blocked.getWarpsPerCTA(),
                               blocked.getCTALayout());
    }
    if (auto tensorCore = dyn_cast<TensorCoreEncodingTrait>(layout))
      return checkWarpsAndCTAs(op, layout, tensorCore.getWarpsPerCTA(),
                               getCTALayoutOf(layout));
    return success();
  }

  LogicalResult checkWarpsAndCTAs(Operation *op, Attribute layout,
                                  ArrayRef<unsigned> warpsPerCTA,
                                  CTALayoutAttr cta) {
    if (failed(checkWarps(op, layout, warpsPerCTA)))
      return failure();
    if (!numCTAs || product(cta.getCTAsPerCGA()) == unsigned(*numCTAs))
      return success();
    return op->emitOpError()
           << "has a tensor whose layout " << layout << " has CTAsPerCGA "
           << arrayToString(cta.getCTAsPerCGA()) << " ("
           << product(cta.getCTAsPerCGA())
           << " CTAs), but the module has \"ttg.num-ctas\" = " << *numCTAs;
  }

  LogicalResult checkWarps(Operation *op, Attribute layout,
                           ArrayRef<unsigned> warpsPerCTA) {
    if (product(warpsPerCTA) == unsigned(numWarps))
      return success();
    return op->emitOpError()
           << "has a tensor whose layout " << layout << " has warpsPerCTA "
           << arrayToString(warpsPerCTA) << " (" << product(warpsPerCTA)
           << " warps), but the module has \"ttg.num-warps\" = " << numWarps;
  }

  Operation *root;
  int numWarps;
  std::optional<int> threadsPerWarp;
  std::optional<int> numCTAs;
  llvm::DenseSet<Attribute> checked;
};

/// "<backend>:<arch>"; when a backend of that name is registered, it must
/// accept the arch (a target nobody registered is left to the lowering, so
/// IR for another build's backends still parses).
bool isValidTarget(StringRef target, std::string &why) {
  auto [name, arch] = target.split(':');
  if (name.empty() || arch.empty() || !target.contains(':')) {
    why = "to be a string \"<backend>:<architecture>\"";
    return false;
  }
  const ::tessera::Backend *backend = ::tessera::lookupBackend(name);
  std::string archWhy;
  if (backend && !backend->verifyArch(arch, archWhy)) {
    why = "to name an architecture of backend '" + name.str() + "' (" + archWhy + ")";
    return false;
  }
  return true;
}

} // namespace

LogicalResult TTGDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kNumWarpsAttrName || name == kNumCTAsAttrName ||
      name == kThreadsPerWarpAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32))
      return op->emitOpError()
             << "expected \"" << name << "\" to be an i32 integer, but it is "
             << attr.getValue();
    int64_t n = value.getInt();
    if (n <= 0 || !llvm::isPowerOf2_64(n))
      return op->emitOpError() << "expected \"" << name
                               << "\" to be a positive power of two, but it "
                                  "is "
                               << n;
    if (name != kNumWarpsAttrName)
      return success();
    // The layouts inside are checked once, with "ttg.num-warps".
    std::optional<int> threads, ctas;
    if (auto tpw = op->getAttrOfType<IntegerAttr>(kThreadsPerWarpAttrName))
      threads = static_cast<int>(tpw.getInt());
    if (auto nc = op->getAttrOfType<IntegerAttr>(kNumCTAsAttrName))
      ctas = static_cast<int>(nc.getInt());
    return LaunchShapeChecker(op, static_cast<int>(n), threads, ctas).run();
  }
  if (name == kTargetAttrName) {
    auto target = dyn_cast<StringAttr>(attr.getValue());
    std::string why = "to be a string \"<backend>:<architecture>\"";
    if (!target || !isValidTarget(target.getValue(), why))
      return op->emitOpError()
             << "expected \"" << name << "\" " << why << ", but it is " << attr.getValue();
    return success();
  }
  // Other ttg.* attributes (ttg.shared, ttg.total-num-warps, …) are set by
  // later passes and not checked here.
  return success();
}
