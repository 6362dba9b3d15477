//===- Utility.cpp - helpers shared by the TTGIR -> LLVM patterns ----------===//

#include "tessera/Conversion/TTGToLLVM/Utility.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "tessera/Dialect/TT/IR/Dialect.h"

using namespace mlir;
using namespace mlir::tessera;
using ::tessera::LinearLayout;

//===----------------------------------------------------------------------===//
// Type converter
//===----------------------------------------------------------------------===//

TesseraLLVMTypeConverter::TesseraLLVMTypeConverter(
    MLIRContext *ctx, const LowerToLLVMOptions &options,
    const TargetInfoBase &targetInfo)
    : LLVMTypeConverter(ctx, options), targetInfo(targetInfo) {
  addConversion([ctx](tt::PointerType type) -> Type {
    return LLVM::LLVMPointerType::get(ctx, type.getAddressSpace());
  });
  addConversion([ctx](FloatType type) -> std::optional<Type> {
    if (type.getWidth() == 8)
      return IntegerType::get(ctx, 8);
    return std::nullopt; // the default conversion
  });
  // A shared-memory buffer (or view) is the address of its first element;
  // its layout stays on the op types that use it.
  addConversion([ctx, &targetInfo](ttg::MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, targetInfo.getSharedAddressSpace());
  });
  // A tensor descriptor is the (generic) address of the target's descriptor
  // object: for a kernel argument, a by-value parameter of
  // TargetInfoBase::getDescriptorBytes() bytes (FuncOpToLLVM).
  addConversion([ctx](tt::TensorDescType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  // Asynchronous-copy tokens only order ops in the IR.
  addConversion([ctx](ttg::AsyncTokenType) -> Type { return IntegerType::get(ctx, 32); });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!type.getEncoding())
      return std::nullopt;
    if (!supportsLinearLayout(type))
      return Type(); // a layout the lowering does not handle yet: fail
    Type elt = convertElementType(type.getElementType());
    if (!elt)
      return std::nullopt;
    SmallVector<Type> fields(getElemsPerThread(type), elt);
    return LLVM::LLVMStructType::getLiteral(type.getContext(), fields);
  });
}

Type TesseraLLVMTypeConverter::convertElementType(Type type) const {
  if (auto t = dyn_cast<RankedTensorType>(type))
    type = t.getElementType();
  return convertType(type);
}

//===----------------------------------------------------------------------===//
// Layouts and indices
//===----------------------------------------------------------------------===//

int64_t mlir::tessera::getElemsPerThread(RankedTensorType type) {
  return toLinearLayout(type).getInDimSize("register");
}

SmallVector<SmallVector<int32_t>>
mlir::tessera::registerCoordinates(const LinearLayout &layout) {
  int32_t n = layout.getInDimSize("register");
  SmallVector<SmallVector<int32_t>> out;
  SmallVector<LinearLayout::DimValue> ins;
  for (const std::string &dim : layout.getInDimNames())
    ins.push_back({dim, 0});
  for (int32_t r = 0; r < n; ++r) {
    for (auto &in : ins)
      in.second = in.first == "register" ? r : 0;
    SmallVector<int32_t> coords;
    for (auto &[name, value] : layout.apply(ins))
      coords.push_back(value);
    out.push_back(coords);
  }
  return out;
}

std::pair<Value, Value>
mlir::tessera::laneAndWarp(OpBuilder &b, Location loc,
                           const TargetInfoBase &targetInfo) {
  Value tid = targetInfo.threadId(b, loc);
  int warpSize = targetInfo.getWarpSize();
  Value lane = arith::AndIOp::create(b, loc, tid, i32Val(b, loc, warpSize - 1));
  Value warp = arith::ShRUIOp::create(b, loc, tid,
                                      i32Val(b, loc, llvm::Log2_32(warpSize)));
  return {lane, warp};
}

Value mlir::tessera::isOwnerThread(OpBuilder &b, Location loc,
                                  const TargetInfoBase &targetInfo,
                                  const LinearLayout &layout) {
  auto [lane, warp] = laneAndWarp(b, loc, targetInfo);
  Value ok = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  for (auto &[dim, mask] : layout.getFreeVariableMasks()) {
    if (mask == 0 || (dim != "lane" && dim != "warp"))
      continue;
    Value id = dim == "lane" ? lane : warp;
    Value bits = LLVM::AndOp::create(b, loc, id, i32Val(b, loc, mask));
    Value zero = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, bits, i32Val(b, loc, 0));
    ok = LLVM::AndOp::create(b, loc, ok, zero);
  }
  return ok;
}

SmallVector<SmallVector<Value>>
mlir::tessera::emitIndices(OpBuilder &b, Location loc,
                           const TargetInfoBase &targetInfo,
                           RankedTensorType type) {
  LinearLayout layout = toLinearLayout(type);
  auto [lane, warp] = laneAndWarp(b, loc, targetInfo);
  int64_t rank = type.getRank();
  // A coordinate is the XOR of the bases of the set bits of the register,
  // lane and warp ids. Where every basis of a dimension is a power of two and
  // no two share a bit (the common case), XOR is addition: the parts are then
  // combined by `add nuw nsw`, so that an index the kernel adds to (a loop's
  // offset plus a range) reassociates into one shared sum plus a constant per
  // register instead of a loop-invariant value per register.
  SmallVector<bool> disjoint(rank, true);
  SmallVector<int64_t> seen(rank, 0);
  for (StringRef dim : {"register", "lane", "warp"}) {
    if (!layout.hasInDim(dim))
      continue;
    for (int32_t bit = 0; bit < layout.getInDimSizeLog2(dim); ++bit) {
      const LinearLayout::BasisVec &basis = layout.getBasis(dim, bit);
      for (int64_t d = 0; d < rank; ++d) {
        int64_t v = basis[d];
        if (v == 0)
          continue;
        if (v < 0 || (v & (v - 1)) || (seen[d] & v))
          disjoint[d] = false;
        seen[d] |= v;
      }
    }
  }
  auto combine = [&](int64_t d, Value x, Value y) -> Value {
    if (disjoint[d])
      return arith::AddIOp::create(b, loc, x, y,
                                   arith::IntegerOverflowFlags::nsw |
                                       arith::IntegerOverflowFlags::nuw);
    return arith::XOrIOp::create(b, loc, x, y);
  };
  // The lane/warp part of every coordinate. A run of id bits whose bases are
  // consecutive powers of two of one dimension is one field: (id >> first &
  // mask) * basis of the first bit; other bits one term each. Where the lane
  // id is all of the thread id's low bits (thread = warp * warpSize + lane),
  // the lane bits and then the warp bits are read as bits of the thread id,
  // so a run may go on from the lanes into the warps: a blocked layout's
  // offset is then `(tid << 2) & mask`, one field, instead of a lane part and
  // a warp part that LLVM can merge only while the warp id has no other use.
  SmallVector<Value> hw(rank, Value());
  auto addBits = [&](ArrayRef<LinearLayout::BasisVec> bases, Value id) {
    int32_t bits = int32_t(bases.size());
    // The one dimension a basis names, with a power-of-two value; -1 if not.
    auto single = [&](int32_t bit) -> int64_t {
      const LinearLayout::BasisVec &basis = bases[bit];
      int64_t only = -1;
      for (int64_t d = 0; d < rank; ++d) {
        if (basis[d] == 0)
          continue;
        if (only >= 0 || basis[d] < 0 || (basis[d] & (basis[d] - 1)))
          return -1;
        only = d;
      }
      return only;
    };
    for (int32_t bit = 0; bit < bits;) {
      const LinearLayout::BasisVec &basis = bases[bit];
      int64_t d0 = single(bit);
      int32_t len = 1;
      if (d0 >= 0)
        while (bit + len < bits && single(bit + len) == d0 &&
               bases[bit + len][d0] == int64_t(basis[d0]) << len)
          ++len;
      Value field = nullptr;
      for (int64_t d = 0; d < rank; ++d) {
        if (basis[d] == 0)
          continue;
        if (!field) {
          Value shifted = bit == 0 ? id
                                   : arith::ShRUIOp::create(b, loc, id, i32Val(b, loc, bit)).getResult();
          field = arith::AndIOp::create(b, loc, shifted, i32Val(b, loc, (int64_t(1) << len) - 1));
        }
        Value term = arith::MulIOp::create(b, loc, field, i32Val(b, loc, basis[d]));
        hw[d] = hw[d] ? combine(d, hw[d], term) : term;
      }
      bit += len;
    }
  };
  auto basesOf = [&](StringRef dim) {
    SmallVector<LinearLayout::BasisVec> bases;
    if (layout.hasInDim(dim))
      for (int32_t bit = 0; bit < layout.getInDimSizeLog2(dim); ++bit)
        bases.push_back(layout.getBasis(dim, bit));
    return bases;
  };
  SmallVector<LinearLayout::BasisVec> laneBases = basesOf("lane"), warpBases = basesOf("warp");
  int warpSize = targetInfo.getWarpSize();
  if (llvm::isPowerOf2_32(warpSize) && int32_t(laneBases.size()) == int32_t(llvm::Log2_32(warpSize)) &&
      !warpBases.empty()) {
    laneBases.append(warpBases.begin(), warpBases.end());
    addBits(laneBases, targetInfo.threadId(b, loc));
  } else {
    addBits(laneBases, lane);
    addBits(warpBases, warp);
  }
  SmallVector<SmallVector<Value>> out;
  for (const SmallVector<int32_t> &reg : registerCoordinates(layout)) {
    SmallVector<Value> coords;
    for (int64_t d = 0; d < rank; ++d) {
      if (!hw[d])
        coords.push_back(i32Val(b, loc, reg[d]));
      else if (reg[d] == 0)
        coords.push_back(hw[d]);
      else
        coords.push_back(combine(d, hw[d], i32Val(b, loc, reg[d])));
    }
    out.push_back(coords);
  }
  return out;
}

std::optional<SmallVector<int32_t>>
mlir::tessera::getRegisterPermutation(const LinearLayout &src,
                                      const LinearLayout &dst,
                                      ArrayRef<int32_t> dstDimToSrcDim) {
  // Lanes and warps must own the same part of the tensor in both layouts:
  // every lane/warp basis of dst, projected to src's dims, equals src's.
  int32_t srcRank = src.getNumOutDims();
  auto project = [&](const LinearLayout::BasisVec &v) {
    SmallVector<int32_t> p(srcRank, 0);
    for (size_t d = 0; d < v.size(); ++d)
      if (dstDimToSrcDim[d] >= 0)
        p[dstDimToSrcDim[d]] = v[d];
    return p;
  };
  for (StringRef dim : {"lane", "warp", "block"}) {
    int32_t bits = dst.hasInDim(dim) ? dst.getInDimSizeLog2(dim) : 0;
    int32_t srcBits = src.hasInDim(dim) ? src.getInDimSizeLog2(dim) : 0;
    if (bits != srcBits)
      return std::nullopt;
    for (int32_t bit = 0; bit < bits; ++bit) {
      SmallVector<int32_t> want = project(dst.getBasis(dim, bit));
      const LinearLayout::BasisVec &have = src.getBasis(dim, bit);
      if (!llvm::equal(want, have))
        return std::nullopt;
    }
  }
  // Each dst register's element must be one of src's registers.
  SmallVector<SmallVector<int32_t>> srcRegs = registerCoordinates(src);
  SmallVector<int32_t> perm;
  for (const SmallVector<int32_t> &dstReg : registerCoordinates(dst)) {
    LinearLayout::BasisVec v(dstReg.begin(), dstReg.end());
    SmallVector<int32_t> want = project(v);
    auto it = llvm::find(srcRegs, want);
    if (it == srcRegs.end())
      return std::nullopt;
    perm.push_back(static_cast<int32_t>(it - srcRegs.begin()));
  }
  return perm;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Value mlir::tessera::packStruct(OpBuilder &b, Location loc, Type structType,
                                ValueRange elements) {
  Value s = LLVM::UndefOp::create(b, loc, structType);
  for (auto [i, v] : llvm::enumerate(elements))
    s = LLVM::InsertValueOp::create(b, loc, s, v, i);
  return s;
}

SmallVector<Value> mlir::tessera::unpackStruct(OpBuilder &b, Location loc,
                                               Value value) {
  auto st = dyn_cast<LLVM::LLVMStructType>(value.getType());
  if (!st)
    return {value};
  SmallVector<Value> out;
  for (unsigned i = 0; i < st.getBody().size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, value, i));
  return out;
}

SmallVector<Value> mlir::tessera::unpackOrSplat(OpBuilder &b, Location loc,
                                                Value value, int64_t count) {
  if (isa<LLVM::LLVMStructType>(value.getType()))
    return unpackStruct(b, loc, value);
  return SmallVector<Value>(count, value);
}

Value mlir::tessera::i32Val(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

Value mlir::tessera::intVal(OpBuilder &b, Location loc, Type type,
                            int64_t value) {
  return arith::ConstantIntOp::create(b, loc, type, value);
}

//===----------------------------------------------------------------------===//
// TargetInfoBase defaults
//===----------------------------------------------------------------------===//

void TargetInfoBase::barrierForGlobalMemory(OpBuilder &b, Location loc) const {
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "workgroup");
  barrier(b, loc);
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "workgroup");
}

Value TargetInfoBase::loadSharedPredicated(OpBuilder &b, Location loc, Value ptr, Type type,
                                           Value pred, Value other) const {
  auto vecTy = VectorType::get(1, type);
  Value zero = i32Val(b, loc, 0);
  Value mask = LLVM::InsertElementOp::create(
      b, loc, LLVM::UndefOp::create(b, loc, VectorType::get(1, b.getI1Type())), pred, zero);
  Value pass = LLVM::InsertElementOp::create(b, loc, LLVM::UndefOp::create(b, loc, vecTy), other, zero);
  unsigned bytes = isa<LLVM::LLVMPointerType>(type) ? 8 : std::max(1u, type.getIntOrFloatBitWidth() / 8);
  Value loaded = LLVM::MaskedLoadOp::create(b, loc, vecTy, ptr, mask, pass, b.getI32IntegerAttr(bytes),
                                            /*nontemporal=*/UnitAttr());
  return LLVM::ExtractElementOp::create(b, loc, loaded, zero);
}
