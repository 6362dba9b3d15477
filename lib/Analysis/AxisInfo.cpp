//===- AxisInfo.cpp - contiguity, divisibility and constancy of values ---------===//
//
// The transfer functions reason about aligned runs: a value with contiguity c
// and divisibility v along d is, in every aligned block of c elements along d,
// x, x+1, ..., x+c-1 with x a multiple of v. All figures are powers of two, so
// "the largest run that two facts both guarantee" is their minimum.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/AxisInfo.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessera;

//===----------------------------------------------------------------------===//
// The lattice value
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
                   std::optional<int64_t> constant)
    : contiguity(std::move(contiguity)), divisibility(std::move(divisibility)),
      constancy(std::move(constancy)), constantValue(constant) {
  assert(this->contiguity.size() == this->divisibility.size() &&
         this->contiguity.size() == this->constancy.size() && "one figure per dimension");
}

AxisInfo AxisInfo::pessimistic(unsigned rank) {
  DimVector ones(std::max(rank, 1u), 1);
  return AxisInfo(ones, ones, ones);
}

AxisInfo AxisInfo::pessimistic(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return pessimistic(tensor.getRank());
  return pessimistic(1);
}

int64_t AxisInfo::divisorOf(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  unsigned zeros = llvm::countr_zero(magnitude);
  return zeros >= 30 ? kMaxDivisibility : int64_t(1) << zeros;
}

AxisInfo AxisInfo::constant(int64_t value, ArrayRef<int64_t> shape) {
  DimVector runs = shape.empty() ? DimVector{1} : DimVector(shape.begin(), shape.end());
  DimVector ones(runs.size(), 1);
  DimVector divs(runs.size(), divisorOf(value));
  return AxisInfo(ones, divs, runs, value);
}

AxisInfo AxisInfo::join(const AxisInfo &a, const AxisInfo &b) {
  if (!a.isInitialized())
    return b;
  if (!b.isInitialized())
    return a;
  if (a.getRank() != b.getRank())
    return pessimistic(std::max(a.getRank(), b.getRank()));
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    c.push_back(std::min(a.contiguity[d], b.contiguity[d]));
    v.push_back(std::min(a.divisibility[d], b.divisibility[d]));
    k.push_back(std::min(a.constancy[d], b.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (a.constantValue && b.constantValue && *a.constantValue == *b.constantValue)
    constant = a.constantValue;
  return AxisInfo(c, v, k, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!isInitialized()) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](StringRef name, const DimVector &v) {
    os << name << " = [";
    llvm::interleaveComma(v, os);
    os << "]";
  };
  list("contiguity", contiguity);
  os << ", ";
  list("divisibility", divisibility);
  os << ", ";
  list("constancy", constancy);
  os << ", constant_value = ";
  if (constantValue)
    os << *constantValue;
  else
    os << "<none>";
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {

using DimVector = AxisInfo::DimVector;

SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {};
}

bool isTracked(Type type) {
  Type elt = getElementTypeOrSelf(type);
  return isa<IntegerType, IndexType, tt::PointerType>(elt);
}

/// Bytes per element a pointer (or tensor of pointers) points to; 1 otherwise.
int64_t pointeeBytes(Type type) {
  auto ptr = dyn_cast<tt::PointerType>(getElementTypeOrSelf(type));
  if (!ptr)
    return 1;
  Type pointee = ptr.getPointeeType();
  if (auto tensor = dyn_cast<RankedTensorType>(pointee))
    pointee = tensor.getElementType();
  if (isa<tt::PointerType>(pointee))
    return 8; // a pointer to pointers steps over 64-bit addresses
  if (!pointee.isIntOrFloat())
    return 1;
  unsigned bits = pointee.getIntOrFloatBitWidth();
  return std::max<int64_t>(1, bits / 8);
}

int64_t cap(int64_t v) { return std::min(std::max<int64_t>(v, 1), AxisInfo::kMaxDivisibility); }

/// Runs of `shape` that are the whole dimension (for results fully constant).
DimVector fullRuns(Type type, unsigned rank) {
  SmallVector<int64_t> shape = shapeOf(type);
  if (shape.empty())
    return DimVector(rank, 1);
  return DimVector(shape.begin(), shape.end());
}

std::optional<int64_t> fold(std::optional<int64_t> a, std::optional<int64_t> b,
                            function_ref<std::optional<int64_t>(int64_t, int64_t)> f) {
  if (!a || !b)
    return std::nullopt;
  return f(*a, *b);
}

/// What `x` contributes to the divisibility of a result whose runs along `d`
/// have length `runs`: the result's run starts sit at multiples of `runs`, so
/// inside a longer run of x (x0, x0+1, ...) they see x0 + k*runs, divisible by
/// min(div, runs) only. Where x's runs are no longer, its own divisor holds.
int64_t contribution(const AxisInfo &x, unsigned d, int64_t runs) {
  return x.getContiguity(d) > runs ? std::min(x.getDivisibility(d), runs) : x.getDivisibility(d);
}

/// a + b (and ptr + offset, with the offset scaled to bytes by `scale`).
AxisInfo add(const AxisInfo &a, const AxisInfo &b, int64_t scale, bool subtract) {
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t contiguity;
    if (subtract) // x - y: contiguous only where y is constant
      contiguity = std::min(a.getContiguity(d), b.getConstancy(d));
    else
      contiguity = std::max(std::min(a.getContiguity(d), b.getConstancy(d)),
                            std::min(b.getContiguity(d), a.getConstancy(d)));
    c.push_back(contiguity);
    v.push_back(cap(std::min(contribution(a, d, contiguity), contribution(b, d, contiguity) * scale)));
    k.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  }
  std::optional<int64_t> constant = fold(a.getConstant(), b.getConstant(), [&](int64_t x, int64_t y) {
    return std::optional<int64_t>(subtract ? x - y * scale : x + y * scale);
  });
  return AxisInfo(c, v, k, constant);
}

AxisInfo mul(const AxisInfo &a, const AxisInfo &b) {
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t contiguity = 1;
    if (b.getConstant() == 1)
      contiguity = a.getContiguity(d);
    else if (a.getConstant() == 1)
      contiguity = b.getContiguity(d);
    c.push_back(contiguity);
    v.push_back(cap(contribution(a, d, contiguity) * contribution(b, d, contiguity)));
    k.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  }
  std::optional<int64_t> constant =
      fold(a.getConstant(), b.getConstant(), [](int64_t x, int64_t y) { return std::optional<int64_t>(x * y); });
  if (a.getConstant() == 0 || b.getConstant() == 0) // 0 everywhere the zero is
    return AxisInfo(DimVector(a.getRank(), 1), DimVector(a.getRank(), AxisInfo::kMaxDivisibility), k, 0);
  return AxisInfo(c, v, k, constant);
}

/// a / 2^s or a >> s (non-negative a is all the analysis relies on: indices).
AxisInfo divByPowerOfTwo(const AxisInfo &a, const AxisInfo &b, int64_t divisor) {
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t contiguity = divisor == 1 ? a.getContiguity(d) : 1;
    c.push_back(contiguity);
    int64_t div = contribution(a, d, contiguity);
    v.push_back(div >= divisor ? cap(div / divisor) : 1);
    // A run of x..x+c-1 with x a multiple of m stays constant over min(c, m, divisor).
    int64_t runs = std::min({a.getContiguity(d), a.getDivisibility(d), divisor});
    k.push_back(std::max(std::min(a.getConstancy(d), b.getConstancy(d)), divisor == 1 ? 1 : runs));
  }
  return AxisInfo(c, v, k);
}

/// a % 2^s (a non-negative).
AxisInfo remByPowerOfTwo(const AxisInfo &a, const AxisInfo &b, int64_t divisor) {
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t contiguity = std::min({a.getContiguity(d), a.getDivisibility(d), divisor});
    c.push_back(contiguity);
    v.push_back(cap(std::min(contribution(a, d, contiguity), divisor)));
    k.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  }
  return AxisInfo(c, v, k);
}

/// x % y for y a multiple of div(y) (constant over the run), x >= 0: an
/// aligned run of x of L = min(contiguity(x), div(x), div(y), constancy(y))
/// elements starts at a multiple of L and y is a multiple of L, so no multiple
/// of y falls inside it: x % y stays contiguous over it and starts at a
/// multiple of L. Elements on their own (L = 1) keep gcd(div(x), div(y)).
AxisInfo remByMultiple(const AxisInfo &a, const AxisInfo &b) {
  DimVector c, v, k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t run = std::min({a.getContiguity(d), a.getDivisibility(d), b.getDivisibility(d),
                            b.getConstancy(d)});
    c.push_back(run);
    v.push_back(run > 1 ? run : std::min(contribution(a, d, 1), contribution(b, d, 1)));
    k.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  }
  return AxisInfo(c, v, k);
}

/// Whether a `tl.assume(v >= c)` (c >= 0, or v > c with c >= -1, either
/// operand order) holds wherever `v` is: the llvm.intr.assume sits in the
/// block that defines `v` or in the function's entry block, so it runs
/// whenever `v` exists (structured control flow has no early exits).
bool assumedNonNegative(Value v) {
  Block *home = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner() : v.getDefiningOp()->getBlock();
  auto constOf = [](Value w) -> std::optional<int64_t> {
    APInt c;
    if (matchPattern(w, m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  };
  for (Operation *user : v.getUsers()) {
    auto cmp = dyn_cast<arith::CmpIOp>(user);
    if (!cmp)
      continue;
    bool lhs = cmp.getLhs() == v;
    std::optional<int64_t> c = constOf(lhs ? cmp.getRhs() : cmp.getLhs());
    if (!c)
      continue;
    arith::CmpIPredicate p = cmp.getPredicate();
    if (!lhs) { // c < v is v > c, c <= v is v >= c
      if (p == arith::CmpIPredicate::slt)
        p = arith::CmpIPredicate::sgt;
      else if (p == arith::CmpIPredicate::sle)
        p = arith::CmpIPredicate::sge;
      else
        continue;
    }
    bool holds = false;
    if (p == arith::CmpIPredicate::sge)
      holds = *c >= 0;
    else if (p == arith::CmpIPredicate::sgt)
      holds = *c >= -1;
    if (!holds)
      continue;
    for (Operation *a : cmp->getUsers()) {
      if (a->getName().getStringRef() != "llvm.intr.assume")
        continue;
      Block *b = a->getBlock();
      auto fn = a->getParentOfType<FunctionOpInterface>();
      if (b == home || (fn && b == &fn.getFunctionBody().front()))
        return true;
    }
  }
  return false;
}

/// Whether integer `v` is known to be >= 0: values a tl.assume vouches for,
/// kernel arguments marked tt.non_negative by specialization, program ids and
/// counts, ranges,
/// non-negative constants, loop counters from a non-negative bound, and what
/// sums, products, quotients, remainders, shifts, masks, extensions, selects,
/// min/max and shape ops make of those (i32 overflow aside, as everywhere in
/// this analysis). A signed remainder of a negative value is negative, so the
/// rules for % need this.
bool isKnownNonNegative(Value v, int depth = 12) {
  if (depth == 0)
    return false;
  if (assumedNonNegative(v))
    return true;
  auto nonNeg = [&](Value w) { return isKnownNonNegative(w, depth - 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A kernel argument specialization found >= 0 at launch.
    if (auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
        fn && arg.getOwner()->isEntryBlock())
      return bool(fn.getArgAttr(arg.getArgNumber(), "tt.non_negative"));
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (forOp && arg == forOp.getInductionVar() && !forOp.getUnsignedCmp())
      return nonNeg(forOp.getLowerBound()) && nonNeg(forOp.getStep());
    return false;
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return false;
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
      return !i.getValue().isNegative();
    if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()))
      return llvm::all_of(dense.getValues<APInt>(), [](const APInt &x) { return !x.isNegative(); });
    return false;
  }
  if (isa<tt::GetProgramIdOp, tt::GetNumProgramsOp, arith::ExtUIOp>(op))
    return true;
  if (auto range = dyn_cast<tt::MakeRangeOp>(op))
    return int32_t(range.getStart()) >= 0;
  if (isa<tt::SplatOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::ReshapeOp, tt::TransOp,
          ttg::ConvertLayoutOp, arith::ExtSIOp, arith::IndexCastOp, arith::ShRSIOp>(op))
    return nonNeg(op->getOperand(0));
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::OrIOp,
          arith::XOrIOp, arith::MinSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op))
    return nonNeg(op->getOperand(0)) && nonNeg(op->getOperand(1));
  if (isa<arith::RemSIOp, arith::ShLIOp>(op))
    return nonNeg(op->getOperand(0));
  if (isa<arith::AndIOp, arith::MaxSIOp>(op))
    return nonNeg(op->getOperand(0)) || nonNeg(op->getOperand(1));
  if (isa<arith::RemUIOp, arith::ShRUIOp>(op))
    return nonNeg(op->getOperand(0));
  if (auto sel = dyn_cast<arith::SelectOp>(op))
    return nonNeg(sel.getTrueValue()) && nonNeg(sel.getFalseValue());
  return false;
}

/// Only constancy survives (and constant folding): and/or/xor/min/max/...
AxisInfo constancyOnly(const AxisInfo &a, const AxisInfo &b, std::optional<int64_t> constant) {
  DimVector ones(a.getRank(), 1), k;
  for (unsigned d = 0; d < a.getRank(); ++d)
    k.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  if (constant) {
    DimVector v(a.getRank(), AxisInfo::divisorOf(*constant));
    return AxisInfo(ones, v, k, constant);
  }
  return AxisInfo(ones, ones, k);
}

/// A comparison of a contiguous aligned run x0, x0+1, ... (x0 a multiple of r)
/// with a value y that is a multiple of r is the same over each aligned block
/// of r elements exactly when it tests "x < y" or "x >= y": y sits at a block
/// boundary. (x <= y and x > y change inside the block that starts at y.)
/// `runContiguousLhs`: the predicate is of that kind with the contiguous run
/// on the left; `runContiguousRhs`: with it on the right (y > x, y <= x).
AxisInfo compare(const AxisInfo &a, const AxisInfo &b, bool runContiguousLhs, bool runContiguousRhs) {
  DimVector ones(a.getRank(), 1), k;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t constancy = std::min(a.getConstancy(d), b.getConstancy(d));
    if (runContiguousLhs)
      constancy = std::max(constancy, std::min({a.getContiguity(d), b.getConstancy(d),
                                                 a.getDivisibility(d), contribution(b, d, 1)}));
    if (runContiguousRhs)
      constancy = std::max(constancy, std::min({b.getContiguity(d), a.getConstancy(d),
                                                 b.getDivisibility(d), contribution(a, d, 1)}));
    k.push_back(constancy);
  }
  return AxisInfo(ones, ones, k);
}

/// Integer attribute values per dimension (a splat dense attribute or an
/// integer), for hint attributes.
std::optional<DimVector> hintValues(Attribute attr, unsigned rank) {
  if (!attr)
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return DimVector(rank, i.getInt());
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    DimVector values;
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(v.getSExtValue());
    if (values.size() == 1)
      return DimVector(rank, values[0]);
    if (values.size() == rank)
      return values;
  }
  return std::nullopt;
}

/// tl.multiple_of / max_contiguous / max_constancy: the user's claims raise
/// the computed facts (never lower them). Values must be powers of two.
AxisInfo applyHints(Operation *op, const AxisInfo &info) {
  if (!info.isInitialized())
    return info;
  unsigned rank = info.getRank();
  DimVector c = info.getContiguity(), v = info.getDivisibility(), k = info.getConstancy();
  bool changed = false;
  auto raise = [&](StringRef name, DimVector &target) {
    std::optional<DimVector> hint = hintValues(op->getAttr(name), rank);
    if (!hint)
      return;
    for (unsigned d = 0; d < rank; ++d)
      if ((*hint)[d] > 0 && llvm::isPowerOf2_64((*hint)[d]) && (*hint)[d] > target[d]) {
        target[d] = cap((*hint)[d]);
        changed = true;
      }
  };
  raise("tt.divisibility", v);
  raise("tt.contiguity", c);
  raise("tt.constancy", k);
  return changed ? AxisInfo(c, v, k, info.getConstant()) : info;
}

} // namespace

LogicalResult AxisInfoAnalysis::visitOperation(Operation *op,
                                               ArrayRef<const AxisInfoLattice *> operands,
                                               ArrayRef<AxisInfoLattice *> results) {
  // Wait until every operand has been reached.
  for (const AxisInfoLattice *operand : operands)
    if (!operand->getValue().isInitialized())
      return success();
  auto in = [&](unsigned i) -> const AxisInfo & { return operands[i]->getValue(); };
  auto setAll = [&](const AxisInfo &info) {
    for (AxisInfoLattice *r : results)
      propagateIfChanged(r, r->join(applyHints(op, info)));
  };
  auto pessimisticResults = [&]() {
    for (auto [r, v] : llvm::zip(results, op->getResults()))
      propagateIfChanged(r, r->join(applyHints(op, AxisInfo::pessimistic(v.getType()))));
  };
  if (op->getNumResults() != 1 || !isTracked(op->getResult(0).getType())) {
    pessimisticResults();
    return success();
  }
  Value result = op->getResult(0);
  Type type = result.getType();
  unsigned rank = std::max<unsigned>(1, shapeOf(type).size());

  // Constants.
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue())) {
      setAll(AxisInfo::constant(i.getValue().getSExtValue(), {}));
      return success();
    }
    if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()); dense && dense.isSplat()) {
      setAll(AxisInfo::constant(dense.getSplatValue<APInt>().getSExtValue(), shapeOf(type)));
      return success();
    }
    pessimisticResults();
    return success();
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(op)) {
    int64_t start = range.getStart(), end = range.getEnd();
    setAll(AxisInfo({end - start}, {AxisInfo::divisorOf(start)}, {1}));
    return success();
  }
  if (isa<tt::GetProgramIdOp, tt::GetNumProgramsOp>(op)) {
    setAll(AxisInfo::pessimistic(1));
    return success();
  }
  // Views.
  if (isa<tt::SplatOp>(op)) {
    const AxisInfo &s = in(0);
    DimVector ones(rank, 1), v(rank, s.getDivisibility(0));
    setAll(AxisInfo(ones, v, fullRuns(type, rank), s.getConstant()));
    return success();
  }
  if (isa<tt::BroadcastOp>(op)) {
    const AxisInfo &s = in(0);
    SmallVector<int64_t> from = shapeOf(op->getOperand(0).getType()), to = shapeOf(type);
    DimVector c, v, k;
    for (unsigned d = 0; d < rank; ++d) {
      bool stretched = d < from.size() && from[d] == 1 && to[d] != 1;
      c.push_back(stretched ? 1 : s.getContiguity(d));
      v.push_back(s.getDivisibility(d));
      k.push_back(stretched ? to[d] : s.getConstancy(d));
    }
    setAll(AxisInfo(c, v, k, s.getConstant()));
    return success();
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(op)) {
    const AxisInfo &s = in(0);
    unsigned axis = expand.getAxis();
    // Along a new size-1 dimension each element is its own run: its divisor is
    // what every element divides by (the run divisor only where runs are 1).
    int64_t elementDiv = AxisInfo::kMaxDivisibility;
    for (unsigned d = 0; d < s.getRank(); ++d)
      elementDiv = std::min(elementDiv, contribution(s, d, 1));
    DimVector c = s.getContiguity(), v = s.getDivisibility(), k = s.getConstancy();
    c.insert(c.begin() + axis, 1);
    v.insert(v.begin() + axis, elementDiv);
    k.insert(k.begin() + axis, 1);
    setAll(AxisInfo(c, v, k, s.getConstant()));
    return success();
  }
  if (auto trans = dyn_cast<tt::TransOp>(op)) {
    const AxisInfo &s = in(0);
    DimVector c, v, k;
    for (int32_t d : trans.getOrder()) {
      c.push_back(s.getContiguity(d));
      v.push_back(s.getDivisibility(d));
      k.push_back(s.getConstancy(d));
    }
    setAll(AxisInfo(c, v, k, s.getConstant()));
    return success();
  }
  if (isa<tt::ReshapeOp>(op)) {
    const AxisInfo &s = in(0);
    if (s.getConstant()) {
      setAll(AxisInfo::constant(*s.getConstant(), shapeOf(type)));
      return success();
    }
    pessimisticResults();
    return success();
  }
  // A layout conversion moves values between threads, not their values.
  if (isa<ttg::ConvertLayoutOp>(op)) {
    setAll(in(0));
    return success();
  }
  // Casts that keep the integer value (or address). Contiguity counts
  // elements: between integers and pointers, or pointers to elements of
  // another size, consecutive no longer means consecutive.
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp, tt::IntToPtrOp, tt::PtrToIntOp,
          tt::BitcastOp>(op) &&
      in(0).getRank() == rank) {
    Type from = op->getOperand(0).getType();
    bool fromPtr = isa<tt::PointerType>(getElementTypeOrSelf(from));
    bool toPtr = isa<tt::PointerType>(getElementTypeOrSelf(type));
    int64_t fromStep = fromPtr ? pointeeBytes(from) : 1, toStep = toPtr ? pointeeBytes(type) : 1;
    if (fromStep == toStep) {
      setAll(in(0));
      return success();
    }
    setAll(AxisInfo(DimVector(rank, 1), in(0).getDivisibility(), in(0).getConstancy(), in(0).getConstant()));
    return success();
  }
  if (isa<arith::TruncIOp>(op)) {
    const AxisInfo &s = in(0);
    unsigned bits = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    DimVector v = s.getDivisibility();
    for (int64_t &d : v)
      d = std::min<int64_t>(d, bits >= 62 ? AxisInfo::kMaxDivisibility : (int64_t(1) << bits));
    setAll(AxisInfo(s.getContiguity(), v, s.getConstancy()));
    return success();
  }
  // Arithmetic.
  if (isa<tt::AddPtrOp>(op)) {
    setAll(add(in(0), in(1), pointeeBytes(type), /*subtract=*/false));
    return success();
  }
  if (isa<arith::AddIOp>(op)) {
    setAll(add(in(0), in(1), 1, false));
    return success();
  }
  if (isa<arith::SubIOp>(op)) {
    setAll(add(in(0), in(1), 1, true));
    return success();
  }
  if (isa<arith::MulIOp>(op)) {
    setAll(mul(in(0), in(1)));
    return success();
  }
  auto powerOfTwoRhs = [&]() -> std::optional<int64_t> {
    std::optional<int64_t> c = in(1).getConstant();
    if (c && *c > 0 && llvm::isPowerOf2_64(*c))
      return *c;
    return std::nullopt;
  };
  if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    // A signed quotient truncates toward zero: (-8..-5) / 4 is -2, -1, -1, -1,
    // not constant over the aligned run; only for a dividend known >= 0.
    bool runsKept = isa<arith::DivUIOp>(op) || isKnownNonNegative(op->getOperand(0));
    if (auto c = powerOfTwoRhs()) {
      std::optional<int64_t> folded = fold(in(0).getConstant(), in(1).getConstant(),
                                           [](int64_t x, int64_t y) { return std::optional<int64_t>(x / y); });
      if (folded && isa<arith::DivSIOp>(op)) {
        setAll(AxisInfo::constant(*folded, shapeOf(type)));
        return success();
      }
      if (runsKept) {
        setAll(divByPowerOfTwo(in(0), in(1), *c));
        return success();
      }
    }
    setAll(constancyOnly(in(0), in(1), std::nullopt));
    return success();
  }
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    // A signed remainder of a negative run is not a run ((-4..-1) % 4 is
    // 0, -3, -2, -1): only for a dividend known to be >= 0.
    bool runsKept = isa<arith::RemUIOp>(op) || isKnownNonNegative(op->getOperand(0));
    std::optional<int64_t> folded = fold(in(0).getConstant(), in(1).getConstant(),
                                         [](int64_t x, int64_t y) -> std::optional<int64_t> {
                                           if (y == 0) return std::nullopt;
                                           return x % y;
                                         });
    if (folded && isa<arith::RemSIOp>(op)) {
      setAll(AxisInfo::constant(*folded, shapeOf(type)));
      return success();
    }
    if (!runsKept) {
      setAll(constancyOnly(in(0), in(1), std::nullopt));
      return success();
    }
    if (auto c = powerOfTwoRhs()) {
      setAll(remByPowerOfTwo(in(0), in(1), *c));
      return success();
    }
    setAll(remByMultiple(in(0), in(1)));
    return success();
  }
  if (isa<arith::ShLIOp>(op)) {
    std::optional<int64_t> s = in(1).getConstant();
    if (s && *s >= 0 && *s < 31) {
      AxisInfo factor(DimVector(in(0).getRank(), 1), DimVector(in(0).getRank(), int64_t(1) << *s),
                      in(1).getConstancy(), int64_t(1) << *s);
      setAll(mul(in(0), factor));
      return success();
    }
    setAll(constancyOnly(in(0), in(1), std::nullopt));
    return success();
  }
  if (isa<arith::ShRSIOp, arith::ShRUIOp>(op)) {
    std::optional<int64_t> s = in(1).getConstant();
    if (s && *s >= 0 && *s < 31) {
      setAll(divByPowerOfTwo(in(0), in(1), int64_t(1) << *s));
      return success();
    }
    setAll(constancyOnly(in(0), in(1), std::nullopt));
    return success();
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::MinSIOp, arith::MaxSIOp,
          arith::MinUIOp, arith::MaxUIOp>(op)) {
    std::optional<int64_t> folded = fold(in(0).getConstant(), in(1).getConstant(),
                                         [&](int64_t x, int64_t y) -> std::optional<int64_t> {
                                           if (isa<arith::AndIOp>(op)) return x & y;
                                           if (isa<arith::OrIOp>(op)) return x | y;
                                           if (isa<arith::XOrIOp>(op)) return x ^ y;
                                           if (isa<arith::MinSIOp>(op)) return std::min(x, y);
                                           if (isa<arith::MaxSIOp>(op)) return std::max(x, y);
                                           return std::nullopt;
                                         });
    AxisInfo r = constancyOnly(in(0), in(1), folded);
    // min/max of two values divisible by v is divisible by v.
    if (!folded && isa<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(op)) {
      DimVector v;
      for (unsigned d = 0; d < r.getRank(); ++d)
        v.push_back(std::min(contribution(in(0), d, 1), contribution(in(1), d, 1)));
      r = AxisInfo(r.getContiguity(), v, r.getConstancy());
    }
    setAll(r);
    return success();
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    bool lhs = p == P::slt || p == P::ult || p == P::sge || p == P::uge;
    bool rhs = p == P::sgt || p == P::ugt || p == P::sle || p == P::ule;
    setAll(compare(in(0), in(1), lhs, rhs));
    return success();
  }
  if (isa<arith::SelectOp>(op)) {
    const AxisInfo &cond = in(0), &a = in(1), &b = in(2);
    // A scalar condition is the same for every element.
    DimVector condRuns = cond.getRank() == rank && shapeOf(op->getOperand(0).getType()).size()
                             ? cond.getConstancy()
                             : fullRuns(type, rank);
    DimVector c, v, k;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t contiguity = std::min({a.getContiguity(d), b.getContiguity(d), condRuns[d]});
      c.push_back(contiguity);
      v.push_back(std::min(contribution(a, d, contiguity), contribution(b, d, contiguity)));
      k.push_back(std::min({a.getConstancy(d), b.getConstancy(d), condRuns[d]}));
    }
    std::optional<int64_t> constant;
    if (cond.getConstant())
      constant = *cond.getConstant() ? a.getConstant() : b.getConstant();
    else if (a.getConstant() && a.getConstant() == b.getConstant())
      constant = a.getConstant();
    setAll(AxisInfo(c, v, k, constant));
    return success();
  }
  // Loads, calls' results (handled by the framework), anything else: nothing known.
  pessimisticResults();
  return success();
}

void AxisInfoAnalysis::visitNonControlFlowArguments(Operation *op, const RegionSuccessor &successor,
                                                    ArrayRef<AxisInfoLattice *> argLattices,
                                                    unsigned firstIndex) {
  // The induction variable of scf.for: lb, lb + step, ... divides by what
  // both divide by; it is a scalar, so contiguity and constancy are 1. (A
  // loop without iter_args has no successor inputs, and then firstIndex says
  // nothing: the body's first argument is the induction variable either way.)
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (!argLattices.empty() && argLattices[0]->getAnchor() == loop.getInductionVar()) {
      const AxisInfoLattice *lb = getLatticeElementFor(getProgramPointAfter(op), loop.getLowerBound());
      const AxisInfoLattice *step = getLatticeElementFor(getProgramPointAfter(op), loop.getStep());
      AxisInfo iv = AxisInfo::pessimistic(1);
      if (lb->getValue().isInitialized() && step->getValue().isInitialized())
        iv = AxisInfo({1}, {std::min(lb->getValue().getDivisibility(0), step->getValue().getDivisibility(0))},
                      {1});
      propagateIfChanged(argLattices[0], argLattices[0]->join(iv));
      setAllToEntryStates(argLattices.drop_front(1 + successor.getSuccessorInputs().size()));
      return;
    }
  }
  SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(op, successor, argLattices, firstIndex);
}

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getAnchor();
  AxisInfo info = AxisInfo::pessimistic(value.getType());
  // A function argument carries what specialization proved about it.
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
        fn && arg.getOwner()->isEntryBlock()) {
      unsigned rank = info.getRank();
      DimVector c = info.getContiguity(), v = info.getDivisibility(), k = info.getConstancy();
      auto read = [&](StringRef name, DimVector &target) {
        if (std::optional<DimVector> hint = hintValues(fn.getArgAttr(arg.getArgNumber(), name), rank))
          for (unsigned d = 0; d < rank; ++d)
            if ((*hint)[d] > 0 && llvm::isPowerOf2_64((*hint)[d]))
              target[d] = cap((*hint)[d]);
      };
      read("tt.divisibility", v);
      read("tt.contiguity", c);
      read("tt.constancy", k);
      info = AxisInfo(c, v, k);
    }
  }
  propagateIfChanged(lattice, lattice->join(info));
}

//===----------------------------------------------------------------------===//
// Module-wide results
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(ModuleOp module) {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  (void)solver.initializeAndRun(module);
}

AxisInfo ModuleAxisInfo::get(Value value) const {
  if (const auto *lattice = solver.lookupState<AxisInfoLattice>(value))
    return lattice->getValue();
  return AxisInfo();
}

int64_t ModuleAxisInfo::getVectorElements(Value ptr, unsigned dim, int64_t elementBytes,
                                          int64_t maxBytes) const {
  AxisInfo info = get(ptr);
  if (!info.isInitialized() || dim >= info.getRank() || elementBytes <= 0)
    return 1;
  int64_t byContiguity = info.getContiguity(dim);
  int64_t byAlignment = std::max<int64_t>(1, info.getDivisibility(dim) / elementBytes);
  int64_t byWidth = std::max<int64_t>(1, maxBytes / elementBytes);
  return std::max<int64_t>(1, std::min({byContiguity, byAlignment, byWidth}));
}

bool mlir::tessera::knownNonNegative(Value v) { return isKnownNonNegative(v); }
