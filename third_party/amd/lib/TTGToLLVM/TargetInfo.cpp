//===- TargetInfo.cpp - AMD specifics of the TTGIR -> LLVM lowering ----------===//
//
// Special registers and barriers through ROCDL ops; predicated global and
// shared memory access through LLVM's masked load/store intrinsics (the
// AMDGPU backend expands a false lane's access into a branch around it, so
// no memory is touched); atomics as LLVM atomicrmw/cmpxchg with AMDGPU sync
// scopes (the lowering branches around them: predicatesAtomics is false);
// lane shuffles through ds_bpermute; buffer loads and stores for arguments
// whose tensor spans less than 2 GiB (offsetLoad/offsetStore: masks become
// out-of-range offsets); math through the ROCm device library
// (__ocml_*); printf through its hostcall printf (__ockl_printf_*).
//
//===----------------------------------------------------------------------===//

#include "tessera/AMD/TTGToLLVM/TargetInfo.h"

#include "tessera/AMD/Dialect/TTG/AMDLayouts.h"
#include "tessera/Conversion/TTGToLLVM/TargetInfoBase.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using mlir::tessera::AtomicOrder;
using mlir::tessera::AtomicRMWKind;
using mlir::tessera::AtomicScope;
using mlir::tessera::MemoryHints;

namespace {

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Value i64(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}

LLVM::LLVMFuncOp declareFunction(OpBuilder &b, Location loc, Operation *from, StringRef name,
                                 LLVM::LLVMFunctionType type) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, loc, name, type);
}

/// A private constant global in the constant address space (4) holding
/// `text` (NUL-terminated); returns its generic address.
Value globalString(OpBuilder &b, Location loc, Operation *from, StringRef prefix, StringRef text) {
  auto module = from->getParentOfType<ModuleOp>();
  std::string contents = text.str();
  contents.push_back('\0');
  auto arrayTy = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = (prefix + "_" + std::to_string(i)).str();
    auto existing = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!existing)
      break;
    if (auto value = dyn_cast_or_null<StringAttr>(existing.getValueOrNull()))
      if (value.getValue() == contents)
        break;
  }
  if (!module.lookupSymbol<LLVM::GlobalOp>(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayTy, /*isConstant=*/true, LLVM::Linkage::Internal, name,
                           b.getStringAttr(contents), /*alignment=*/0, /*addrSpace=*/4);
  }
  Value addr = LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 4), name);
  return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), addr);
}

/// The integer of the same width holding `v`'s bits.
Value toBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<IntegerType>(t))
    return v;
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  return LLVM::BitcastOp::create(b, loc, b.getIntegerType(t.getIntOrFloatBitWidth()), v);
}

Value fromBits(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  return LLVM::BitcastOp::create(b, loc, t, v);
}

LLVM::AtomicOrdering ordering(AtomicOrder order) {
  switch (order) {
  case AtomicOrder::Relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case AtomicOrder::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case AtomicOrder::Release:
    return LLVM::AtomicOrdering::release;
  case AtomicOrder::AcquireRelease:
    return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::monotonic;
}

/// AMDGPU's sync scopes: a workgroup, the device ("agent"), the system ("").
StringRef syncScope(AtomicScope scope) {
  switch (scope) {
  case AtomicScope::CTA:
    return "workgroup";
  case AtomicScope::GPU:
    return "agent";
  case AtomicScope::System:
    return "";
  }
  return "agent";
}

class AMDTargetInfo : public mlir::tessera::TargetInfoBase {
public:
  AMDTargetInfo(std::string arch, ::tessera::amd::ArchInfo info)
      : arch(std::move(arch)), info(std::move(info)) {}

  int getWarpSize() const override { return info.waveSize; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }
  unsigned getPrivateAddressSpace() const override { return 5; }

  // Profiling counters on CDNA (gfx9): s_memtime (the core clock) and
  // s_memrealtime (a constant 100 MHz clock, scaled to ns). RDNA has
  // neither instruction: profiling scopes are an error there.
  Value cycleCounter(OpBuilder &b, Location loc) const override {
    if (!StringRef(arch).starts_with("gfx9"))
      return {};
    Value t = LLVM::CallIntrinsicOp::create(b, loc, b.getI64Type(),
                                            b.getStringAttr("llvm.amdgcn.s.memtime"), ValueRange{})
                  .getResult(0);
    return LLVM::TruncOp::create(b, loc, b.getI32Type(), t);
  }
  Value globalTimer(OpBuilder &b, Location loc) const override {
    if (!StringRef(arch).starts_with("gfx9"))
      return {};
    Value t = LLVM::CallIntrinsicOp::create(b, loc, b.getI64Type(),
                                            b.getStringAttr("llvm.amdgcn.s.memrealtime"), ValueRange{})
                  .getResult(0);
    return LLVM::MulOp::create(b, loc, t, LLVM::ConstantOp::create(b, loc, b.getI64Type(), 10));
  }
  Value processorId(OpBuilder &b, Location loc) const override {
    if (!StringRef(arch).starts_with("gfx9"))
      return {};
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  }

  Value programId(OpBuilder &b, Location loc, int axis) const override {
    Type t = b.getI32Type();
    switch (axis) {
    case 0:
      return ROCDL::BlockIdXOp::create(b, loc, t);
    case 1:
      return ROCDL::BlockIdYOp::create(b, loc, t);
    default:
      return ROCDL::BlockIdZOp::create(b, loc, t);
    }
  }

  Value numPrograms(OpBuilder &b, Location loc, int axis) const override {
    Type t = b.getI32Type();
    switch (axis) {
    case 0:
      return ROCDL::GridDimXOp::create(b, loc, t);
    case 1:
      return ROCDL::GridDimYOp::create(b, loc, t);
    default:
      return ROCDL::GridDimZOp::create(b, loc, t);
    }
  }

  Value threadId(OpBuilder &b, Location loc) const override {
    LLVM::ConstantRangeAttr range;
    if (Block *block = b.getInsertionBlock())
      if (Operation *at = block->getParentOp()) {
        std::optional<int> warps = mlir::tessera::ttg::lookupNumWarps(at);
        std::optional<int> lanes = mlir::tessera::ttg::lookupThreadsPerWarp(at);
        if (warps && lanes && *warps > 0 && *lanes > 0)
          range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0, int64_t(*warps) * *lanes);
      }
    return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type(), range);
  }

  /// <n x i1> of `pred`.
  static Value splatMask(OpBuilder &b, Location loc, Value pred, unsigned n) {
    auto maskTy = VectorType::get(n, b.getI1Type());
    Value mask = LLVM::UndefOp::create(b, loc, maskTy);
    for (unsigned i = 0; i < n; ++i)
      mask = LLVM::InsertElementOp::create(b, loc, mask, pred, i32(b, loc, i));
    return mask;
  }

  static Value vectorOf(OpBuilder &b, Location loc, ArrayRef<Value> values, Type type) {
    auto vecTy = VectorType::get(values.size(), type);
    Value vec = LLVM::UndefOp::create(b, loc, vecTy);
    for (auto [i, v] : llvm::enumerate(values))
      vec = LLVM::InsertElementOp::create(b, loc, vec, v, i32(b, loc, i));
    return vec;
  }

  static unsigned bytesOf(Type type) { return std::max(1u, type.getIntOrFloatBitWidth() / 8); }

  Value loadPredicated(OpBuilder &b, Location loc, Value ptr, Type type, Value pred, Value other,
                       bool isVolatile, MemoryHints hints) const override {
    return loadPredicatedVector(b, loc, {ptr}, type, pred, {other}, hints)[0];
  }

  void storePredicated(OpBuilder &b, Location loc, Value ptr, Value value, Value pred,
                       MemoryHints hints) const override {
    storePredicatedVector(b, loc, {ptr}, {value}, pred, hints);
  }

  SmallVector<Value> loadPredicatedVector(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                                          Type type, Value pred, ArrayRef<Value> others,
                                          MemoryHints) const override {
    unsigned n = ptrs.size();
    auto vecTy = VectorType::get(n, type);
    Value loaded = LLVM::MaskedLoadOp::create(b, loc, vecTy, ptrs[0], splatMask(b, loc, pred, n),
                                              vectorOf(b, loc, others, type),
                                              b.getI32IntegerAttr(n * bytesOf(type)),
                                              /*nontemporal=*/UnitAttr());
    SmallVector<Value> out;
    for (unsigned i = 0; i < n; ++i)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, loaded, i32(b, loc, i)));
    return out;
  }

  void storePredicatedVector(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                             ArrayRef<Value> values, Value pred, MemoryHints) const override {
    unsigned n = ptrs.size();
    Type type = values[0].getType();
    LLVM::MaskedStoreOp::create(b, loc, vectorOf(b, loc, values, type), ptrs[0],
                                splatMask(b, loc, pred, n), n * bytesOf(type));
  }

  // Buffer instructions: a raw buffer resource over the base (stride 0, the
  // 2 GiB - 1 bytes a pointer range of 32 bits allows), offsets in bytes; an
  // offset of 2^31 is out of range: loads read zero, stores are dropped.
  bool supportsOffsetAccess() const override { return true; }

  /// Word 3 of the buffer resource (format and destination selects) as the
  /// architecture wants it for raw 32-bit accesses.
  int32_t resourceFlags() const {
    if (info.waveSize == 64)
      return 0x00020000; // gfx9: DATA_FORMAT 32
    return llvm::StringRef(arch).starts_with("gfx10") ? 0x31014000 : 0x31004000;
  }

  Value resource(OpBuilder &b, Location loc, Value base) const {
    auto rsrcTy = LLVM::LLVMPointerType::get(b.getContext(), 8);
    Value stride = LLVM::ConstantOp::create(b, loc, b.getI16Type(), b.getI16IntegerAttr(0));
    return ROCDL::MakeBufferRsrcOp::create(b, loc, rsrcTy, base, stride, i64(b, loc, 0x7FFFFFFF),
                                           i32(b, loc, resourceFlags()));
  }

  static Value outOfRangeUnless(OpBuilder &b, Location loc, Value pred, Value offset) {
    return LLVM::SelectOp::create(b, loc, pred, offset, i32(b, loc, int32_t(0x80000000u)));
  }

  /// The LLVM type a buffer access of `n` elements of `type` moves.
  static Type accessType(OpBuilder &b, Type type, unsigned n) {
    return n == 1 ? type : Type(VectorType::get(n, type));
  }

  SmallVector<Value> offsetLoad(OpBuilder &b, Location loc, Value base, Value byteOffset, Type type,
                                unsigned n, Value pred, ArrayRef<Value> others) const override {
    Value rsrc = resource(b, loc, base);
    Value off = outOfRangeUnless(b, loc, pred, byteOffset);
    Value zero = i32(b, loc, 0);
    Type ty = accessType(b, type, n);
    Value v = ROCDL::RawPtrBufferLoadOp::create(b, loc, ty, rsrc, off, zero, zero, ArrayAttr(),
                                                ArrayAttr(), ArrayAttr());
    SmallVector<Value> out;
    for (unsigned i = 0; i < n; ++i) {
      Value e = n == 1 ? v : LLVM::ExtractElementOp::create(b, loc, v, i32(b, loc, i)).getResult();
      // Masked-off elements read zero; `other` where it is not zero.
      if (!matchPattern(others[i], m_Zero()))
        e = LLVM::SelectOp::create(b, loc, pred, e, others[i]);
      out.push_back(e);
    }
    return out;
  }

  void offsetStore(OpBuilder &b, Location loc, Value base, Value byteOffset, ArrayRef<Value> values,
                   Value pred) const override {
    Value rsrc = resource(b, loc, base);
    Value off = outOfRangeUnless(b, loc, pred, byteOffset);
    Value zero = i32(b, loc, 0);
    Value data = values.size() == 1 ? values[0] : vectorOf(b, loc, values, values[0].getType());
    ROCDL::RawPtrBufferStoreOp::create(b, loc, data, rsrc, off, zero, zero, ArrayAttr(), ArrayAttr(),
                                       ArrayAttr());
  }

  /// Lane `srcLane`'s `value` through ds_bpermute (32 bits at a time).
  Value permute(OpBuilder &b, Location loc, Value value, Value srcLane) const {
    Type ty = value.getType();
    unsigned bits = ty.getIntOrFloatBitWidth();
    if (bits == 64) {
      auto vecTy = VectorType::get(2, b.getI32Type());
      Value vec = LLVM::BitcastOp::create(b, loc, vecTy, value);
      Value lo = LLVM::ExtractElementOp::create(b, loc, vec, i32(b, loc, 0));
      Value hi = LLVM::ExtractElementOp::create(b, loc, vec, i32(b, loc, 1));
      lo = permute(b, loc, lo, srcLane);
      hi = permute(b, loc, hi, srcLane);
      Value out = LLVM::UndefOp::create(b, loc, vecTy);
      out = LLVM::InsertElementOp::create(b, loc, out, lo, i32(b, loc, 0));
      out = LLVM::InsertElementOp::create(b, loc, out, hi, i32(b, loc, 1));
      return LLVM::BitcastOp::create(b, loc, ty, out);
    }
    Value v = value;
    if (bits < 32) {
      if (!isa<IntegerType>(ty))
        v = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), v);
      v = LLVM::ZExtOp::create(b, loc, b.getI32Type(), v);
    } else if (!ty.isInteger(32)) {
      v = LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
    }
    // ds_bpermute takes the source lane's byte address (lane * 4).
    Value addr = LLVM::ShlOp::create(b, loc, srcLane, i32(b, loc, 2));
    Value r = ROCDL::DsBpermuteOp::create(b, loc, b.getI32Type(), addr, v);
    if (bits < 32) {
      r = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), r);
      if (!isa<IntegerType>(ty))
        r = LLVM::BitcastOp::create(b, loc, ty, r);
    } else if (!ty.isInteger(32)) {
      r = LLVM::BitcastOp::create(b, loc, ty, r);
    }
    return r;
  }

  Value laneId(OpBuilder &b, Location loc) const {
    return LLVM::AndOp::create(b, loc, threadId(b, loc), i32(b, loc, info.waveSize - 1));
  }

  Value shuffleXor(OpBuilder &b, Location loc, Value value, int mask) const override {
    Value src = LLVM::XOrOp::create(b, loc, laneId(b, loc), i32(b, loc, mask));
    return permute(b, loc, value, src);
  }

  Value shuffleUp(OpBuilder &b, Location loc, Value value, int delta) const override {
    Value lane = laneId(b, loc);
    Value below = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, lane, i32(b, loc, delta));
    Value src = LLVM::SelectOp::create(b, loc, below, lane,
                                       LLVM::SubOp::create(b, loc, lane, i32(b, loc, delta)));
    return permute(b, loc, value, src);
  }

  Value shuffleIdx(OpBuilder &b, Location loc, Value value, Value srcLane) const override {
    return permute(b, loc, value, srcLane);
  }

  void storeSharedPredicated(OpBuilder &b, Location loc, Value ptr, Value value,
                             Value pred) const override {
    if (auto vec = dyn_cast<VectorType>(value.getType())) {
      // Two or four 32-bit words: one masked vector store.
      unsigned n = vec.getNumElements();
      LLVM::MaskedStoreOp::create(b, loc, value, ptr, splatMask(b, loc, pred, n),
                                  n * bytesOf(vec.getElementType()));
      return;
    }
    Value v = toBits(b, loc, value);
    LLVM::MaskedStoreOp::create(b, loc, vectorOf(b, loc, {v}, v.getType()), ptr,
                                splatMask(b, loc, pred, 1), bytesOf(v.getType()));
  }

  bool supportsAtomicRMW(AtomicRMWKind kind, Type type) const override {
    if (!type.isIntOrFloat())
      return false;
    unsigned bits = type.getIntOrFloatBitWidth();
    bool isFloat = isa<FloatType>(type);
    if (bits != 16 && bits != 32 && bits != 64)
      return false;
    switch (kind) {
    case AtomicRMWKind::FAdd:
    case AtomicRMWKind::Max:
    case AtomicRMWKind::Min:
      return isFloat ? (bits != 16 || type.isF16() || type.isBF16()) : kind != AtomicRMWKind::FAdd;
    case AtomicRMWKind::Exch:
      return true;
    default:
      return !isFloat;
    }
  }

  bool predicatesAtomics() const override { return false; }

  Value atomicRMW(OpBuilder &b, Location loc, AtomicRMWKind kind, Value ptr, Value value,
                  Value pred, AtomicOrder order, AtomicScope scope) const override {
    Type ty = value.getType();
    bool isFloat = isa<FloatType>(ty);
    LLVM::AtomicBinOp op;
    switch (kind) {
    case AtomicRMWKind::Add:
      op = LLVM::AtomicBinOp::add;
      break;
    case AtomicRMWKind::FAdd:
      op = LLVM::AtomicBinOp::fadd;
      break;
    case AtomicRMWKind::Max:
      op = isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
      break;
    case AtomicRMWKind::Min:
      op = isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
      break;
    case AtomicRMWKind::UMax:
      op = LLVM::AtomicBinOp::umax;
      break;
    case AtomicRMWKind::UMin:
      op = LLVM::AtomicBinOp::umin;
      break;
    case AtomicRMWKind::And:
      op = LLVM::AtomicBinOp::_and;
      break;
    case AtomicRMWKind::Or:
      op = LLVM::AtomicBinOp::_or;
      break;
    case AtomicRMWKind::Xor:
      op = LLVM::AtomicBinOp::_xor;
      break;
    case AtomicRMWKind::Exch:
      op = LLVM::AtomicBinOp::xchg;
      break;
    }
    auto rmw = LLVM::AtomicRMWOp::create(b, loc, op, ptr, value, ordering(order), syncScope(scope),
                                         /*alignment=*/bytesOf(ty));
    return rmw.getResult();
  }

  bool supportsAtomicCAS(Type type) const override {
    if (!type.isIntOrFloat())
      return false;
    unsigned bits = type.getIntOrFloatBitWidth();
    return bits == 16 || bits == 32 || bits == 64;
  }

  Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp, Value value, Value pred,
                  AtomicOrder order, AtomicScope scope) const override {
    Type ty = value.getType();
    Value c = toBits(b, loc, cmp), v = toBits(b, loc, value);
    LLVM::AtomicOrdering success = ordering(order);
    // The failure ordering may not release.
    LLVM::AtomicOrdering failure =
        order == AtomicOrder::Acquire || order == AtomicOrder::AcquireRelease
            ? LLVM::AtomicOrdering::acquire
            : LLVM::AtomicOrdering::monotonic;
    auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, c, v, success, failure, syncScope(scope),
                                             /*alignment=*/bytesOf(ty));
    Value old = LLVM::ExtractValueOp::create(b, loc, cas.getResult(), 0);
    return fromBits(b, loc, old, ty);
  }

  void barrier(OpBuilder &b, Location loc) const override { ROCDL::BarrierOp::create(b, loc); }
  /// rocdl.barrier lowers to a workgroup-scope release fence, s_barrier and
  /// an acquire fence: it orders global memory already.
  void barrierForGlobalMemory(OpBuilder &b, Location loc) const override { barrier(b, loc); }

  std::string mathLibraryFunction(StringRef op, Type type) const override {
    // The ROCm device library's math (ocml): __ocml_<name>_f32 / _f64.
    static const llvm::StringMap<StringRef> names = {
        {"exp", "exp"},     {"exp2", "exp2"},   {"log", "log"},       {"log2", "log2"},
        {"sqrt", "sqrt"},   {"rsqrt", "rsqrt"}, {"sin", "sin"},       {"cos", "cos"},
        {"erf", "erf"},     {"floor", "floor"}, {"ceil", "ceil"},     {"tanh", "tanh"},
        {"trunc", "trunc"}, {"absf", "fabs"},   {"fma", "fma"},       {"precise_sqrt", "sqrt"}};
    auto it = names.find(op);
    if (it == names.end())
      return "";
    if (type.isF32())
      return ("__ocml_" + it->second + "_f32").str();
    if (type.isF64())
      return ("__ocml_" + it->second + "_f64").str();
    return "";
  }

  // fp8 through v_cvt_f32_{fp8,bf8} and v_cvt_pk_{fp8,bf8}_f32: the FNUZ
  // formats on gfx940-942 (tl.float8e4b8 / tl.float8e5b16), the OCP ones on
  // gfx950 (tl.float8e4nv / tl.float8e5).
  /// Whether `t` is an 8-bit float this architecture converts, and if so
  /// whether it is an e5m2 ("bf8") format.
  std::optional<bool> fp8IsBf8(Type t) const {
    using F = ::tessera::amd::ArchInfo::Fp8Formats;
    if (info.fp8 == F::Fnuz && isa<Float8E4M3FNUZType>(t))
      return false;
    if (info.fp8 == F::Fnuz && isa<Float8E5M2FNUZType>(t))
      return true;
    if (info.fp8 == F::Ocp && isa<Float8E4M3FNType>(t))
      return false;
    if (info.fp8 == F::Ocp && isa<Float8E5M2Type>(t))
      return true;
    return std::nullopt;
  }

  Value truncToFp8(OpBuilder &b, Location loc, Value value, Type fp8Type) const override {
    std::optional<bool> bf8 = fp8IsBf8(fp8Type);
    if (!bf8 || !(value.getType().isF32() || value.getType().isF16()))
      return {};
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value x = value.getType().isF32() ? value : LLVM::FPExtOp::create(b, loc, f32, value).getResult();
    // Saturate finite overflow and infinities to the largest finite value
    // (the conversion alone gives NaN there); NaN stays NaN.
    double maxFinite =
        llvm::APFloat::getLargest(cast<FloatType>(fp8Type).getFloatSemantics()).convertToDouble();
    Value hi = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(maxFinite));
    Value lo = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(-maxFinite));
    Value clamped = LLVM::MinNumOp::create(b, loc, LLVM::MaxNumOp::create(b, loc, x, lo), hi);
    Value isNan = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
    x = LLVM::SelectOp::create(b, loc, isNan, x, clamped);
    Value old = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
    Value packed = *bf8 ? ROCDL::CvtPkBf8F32Op::create(b, loc, i32, x, x, old, false).getResult()
                        : ROCDL::CvtPkFp8F32Op::create(b, loc, i32, x, x, old, false).getResult();
    return LLVM::TruncOp::create(b, loc, b.getI8Type(), packed);
  }

  Value extFromFp8(OpBuilder &b, Location loc, Value value, Type fp8Type) const override {
    std::optional<bool> bf8 = fp8IsBf8(fp8Type);
    if (!bf8)
      return {};
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value word = LLVM::ZExtOp::create(b, loc, i32, value);
    Value wide = *bf8 ? ROCDL::CvtF32Bf8Op::create(b, loc, f32, word, 0).getResult()
                      : ROCDL::CvtF32Fp8Op::create(b, loc, f32, word, 0).getResult();
    // Every value of these formats is exact in f16.
    return LLVM::FPTruncOp::create(b, loc, b.getF16Type(), wide);
  }

  std::string getFp8Requirement(Type fp8Type) const override {
    if (fp8IsBf8(fp8Type))
      return "";
    using F = ::tessera::amd::ArchInfo::Fp8Formats;
    if (info.fp8 == F::Fnuz)
      return arch + " converts the FNUZ fp8 formats float8e4b8 and float8e5b16, not " +
             "the OCP ones (float8e4nv, float8e5)";
    if (info.fp8 == F::Ocp)
      return arch + " converts the OCP fp8 formats float8e4nv and float8e5, not the FNUZ ones";
    return "needs an AMD GPU with fp8 conversions (gfx940-942 for float8e4b8/float8e5b16, "
           "gfx950 for float8e4nv/float8e5), not " + arch;
  }

  /// printf through the device library's hostcall printf: the format, then
  /// the arguments as 64-bit words (floats as doubles), 7 per call.
  void printf(OpBuilder &b, Location loc, StringRef format, ValueRange args) const override {
    MLIRContext *ctx = b.getContext();
    Operation *at = b.getInsertionBlock()->getParentOp();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i64Ty = b.getI64Type(), i32Ty = b.getI32Type();
    auto beginTy = LLVM::LLVMFunctionType::get(i64Ty, {i64Ty});
    auto stringTy = LLVM::LLVMFunctionType::get(i64Ty, {i64Ty, ptrTy, i64Ty, i32Ty});
    SmallVector<Type> argTypes{i64Ty, i32Ty};
    argTypes.append(7, i64Ty);
    argTypes.push_back(i32Ty);
    auto argsTy = LLVM::LLVMFunctionType::get(i64Ty, argTypes);
    auto begin = declareFunction(b, loc, at, "__ockl_printf_begin", beginTy);
    auto appendString = declareFunction(b, loc, at, "__ockl_printf_append_string_n", stringTy);
    auto appendArgs = declareFunction(b, loc, at, "__ockl_printf_append_args", argsTy);
    Value desc = LLVM::CallOp::create(b, loc, begin, ValueRange{i64(b, loc, 0)}).getResult();
    Value fmt = globalString(b, loc, at, "printf_format", format);
    desc = LLVM::CallOp::create(b, loc, appendString,
                                ValueRange{desc, fmt, i64(b, loc, int64_t(format.size()) + 1),
                                           i32(b, loc, args.empty() ? 1 : 0)})
               .getResult();
    SmallVector<Value> words;
    for (Value a : args) {
      Type t = a.getType();
      Value w;
      if (isa<LLVM::LLVMPointerType>(t))
        w = LLVM::PtrToIntOp::create(b, loc, i64Ty, a);
      else if (isa<FloatType>(t)) {
        Value d = t.isF64() ? a : LLVM::FPExtOp::create(b, loc, b.getF64Type(), a).getResult();
        w = LLVM::BitcastOp::create(b, loc, i64Ty, d);
      } else if (t.getIntOrFloatBitWidth() < 64) {
        w = LLVM::SExtOp::create(b, loc, i64Ty, a);
      } else {
        w = a;
      }
      words.push_back(w);
    }
    for (size_t first = 0; first < words.size(); first += 7) {
      size_t n = std::min<size_t>(7, words.size() - first);
      SmallVector<Value> operands{desc, i32(b, loc, n)};
      for (size_t i = 0; i < 7; ++i)
        operands.push_back(i < n ? words[first + i] : i64(b, loc, 0));
      operands.push_back(i32(b, loc, first + n == words.size() ? 1 : 0));
      desc = LLVM::CallOp::create(b, loc, appendArgs, operands).getResult();
    }
  }

  /// The message through printf (as HIP's assert), then a trap.
  void assertFail(OpBuilder &b, Location loc, StringRef message, StringRef file, StringRef func,
                  int line) const override {
    std::string text = (file + ":" + std::to_string(line) + ": " + func + ": Device-side assertion `" +
                        message + "' failed.\n")
                           .str();
    std::string escaped;
    for (char c : text) {
      escaped.push_back(c);
      if (c == '%')
        escaped.push_back('%');
    }
    printf(b, loc, escaped, {});
    LLVM::Trap::create(b, loc);
  }

  /// MFMA 16x16x16 on CDNA2/3 and WMMA 16x16x16 on RDNA3 for f16/bf16 dots
  /// with f32 accumulators.
  std::optional<TensorCoreLayouts> getTensorCoreLayouts(Operation *op, int numWarps) const override {
    auto dot = dyn_cast<mlir::tessera::tt::DotOp>(op);
    if (!dot)
      return std::nullopt;
    auto warps = ::tessera::amd::getMfmaWarps(dot.getA().getType(), dot.getB().getType(),
                                              dot.getC().getType(), numWarps);
    if (!warps)
      return std::nullopt;
    MLIRContext *ctx = op->getContext();
    bool f32 = dot.getA().getType().getElementType().isF32();
    bool int8 = dot.getA().getType().getElementType().isInteger(8);
    // fp8: v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} on CDNA3, in the formats
    // its conversions take (elsewhere accelerate-matmul widens to f16 where
    // the target converts the format, or the dot stays on FMA units).
    bool fp8 = dot.getA().getType().getElementType().getIntOrFloatBitWidth() == 8 &&
               isa<FloatType>(dot.getA().getType().getElementType());
    if (fp8 && (info.mfmaVersion != 3 || info.waveSize != 64 ||
                !fp8IsBf8(dot.getA().getType().getElementType()) ||
                !fp8IsBf8(dot.getB().getType().getElementType())))
      return std::nullopt;
    // RDNA3 (gfx11, wave32): WMMA, same 16x16x16 tiles and warp split (16-bit only).
    if (info.wmmaVersion && info.waveSize == 32 && !f32 && !int8 && !fp8) {
      auto wmma = mlir::tessera::ttg::AMDWmmaEncodingAttr::get(
          ctx, info.wmmaVersion, {warps->first, warps->second},
          mlir::tessera::ttg::CTALayoutAttr::getDefault(ctx, 2));
      return TensorCoreLayouts{wmma, 16};
    }
    if (!info.mfmaVersion || info.waveSize != 64)
      return std::nullopt;
    // fp32 operands: v_mfma_f32_16x16x4f32 (one K per lane and tile); int8:
    // v_mfma_i32_16x16x16i8 on CDNA2, v_mfma_i32_16x16x32_i8 on CDNA3.
    unsigned tileK = f32 ? 4 : fp8 ? 32 : int8 ? (info.mfmaVersion == 3 ? 32 : 16) : 16;
    auto mfma = mlir::tessera::ttg::AMDMfmaEncodingAttr::get(
        ctx, info.mfmaVersion, {warps->first, warps->second},
        mlir::tessera::ttg::CTALayoutAttr::getDefault(ctx, 2), {16, 16, tileK});
    return TensorCoreLayouts{mfma, tileK / 4};
  }

  void populateVendorPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                              RewritePatternSet &patterns) const override {
    ::tessera::amd::populateMfmaDotPatterns(typeConverter, patterns);
  }

  // LDS is allocated at load time from the code object's group segment size.
  bool staticSharedMemory() const override { return true; }

  void markAsKernel(Operation *func, int numThreads) const override {
    MLIRContext *ctx = func->getContext();
    func->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    func->setAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
                  StringAttr::get(ctx, "1," + std::to_string(numThreads)));
    func->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(),
                  DenseI32ArrayAttr::get(ctx, {numThreads, 1, 1}));
  }

private:
  std::string arch;
  ::tessera::amd::ArchInfo info;
};

} // namespace

bool ::tessera::amd::parseArch(llvm::StringRef arch, ::tessera::amd::ArchInfo &info, std::string &why) {
  // gfx<major><minor><stepping>: two hex digits after a 1- or 2-digit major.
  auto fail = [&] {
    why = "a hip target is \"hip:gfx<version>\" naming an AMD GPU (e.g. \"hip:gfx942\", "
          "\"hip:gfx90a\", \"hip:gfx1100\"), not \"hip:" + arch.str() + "\"";
    return false;
  };
  if (!arch.starts_with("gfx"))
    return fail();
  llvm::StringRef v = arch.drop_front(3);
  if (v.size() < 3 || v.size() > 4 || !llvm::all_of(v, llvm::isHexDigit))
    return fail();
  unsigned major = 0;
  if (v.drop_back(2).getAsInteger(10, major))
    return fail();
  if (major != 9 && major != 10 && major != 11 && major != 12)
    return fail();
  // CDNA and GCN (gfx9) run 64 lanes per wavefront; RDNA (gfx10+) 32.
  info.waveSize = major == 9 ? 64 : 32;
  // ROCm's device libraries carry an isa-version file per architecture they
  // know; where this one's is missing (older device libraries), its family's
  // closest older one stands in (HSACO.cpp prefers the exact file).
  info.isaVersion = v.str();
  info.exactIsaVersion = v.str();
  if (arch == "gfx90a")
    info.mfmaVersion = 2;
  else if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942" || arch == "gfx950")
    info.mfmaVersion = 3;
  if (major == 11)
    info.wmmaVersion = 1;
  if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942")
    info.fp8 = ::tessera::amd::ArchInfo::Fp8Formats::Fnuz;
  else if (arch == "gfx950")
    info.fp8 = ::tessera::amd::ArchInfo::Fp8Formats::Ocp;
  if (arch == "gfx941" || arch == "gfx942")
    info.isaVersion = "940";
  if (major == 11)
    info.isaVersion = "1030";
  return true;
}

namespace tessera::amd {
std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(llvm::StringRef arch) {
  ArchInfo info;
  std::string why;
  if (!parseArch(arch, info, why))
    return nullptr;
  return std::make_unique<AMDTargetInfo>(arch.str(), info);
}
} // namespace tessera::amd
