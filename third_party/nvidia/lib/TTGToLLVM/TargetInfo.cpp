//===- TargetInfo.cpp - NVIDIA specifics of the TTGIR -> LLVM lowering -------===//
//
// Special registers and barriers through NVVM ops, predicated global memory
// access through inline PTX (a false predicate touches no memory), warp
// shuffles through nvvm.shfl.sync, math through libdevice (__nv_*), printf
// through vprintf and assertions through __assertfail.
//
//===----------------------------------------------------------------------===//

#include "tessera/NVIDIA/TTGToLLVM/TargetInfo.h"

#include "tessera/NVIDIA/Dialect/TTG/NVIDIALayouts.h"
#include "tessera/NVIDIA/Dialect/TTNG/IR/Dialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include "tessera/Conversion/TTGToLLVM/PatternFamilies.h"
#include "tessera/Dialect/TT/IR/Dialect.h"
#include "tessera/Dialect/TTG/IR/Dialect.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace {

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

/// "b16"/"b32"/"b64" and the inline-asm constraint letter for a width.
std::pair<const char *, const char *> ptxRegister(unsigned bits) {
  switch (bits) {
  case 8:
  case 16:
    return {"b16", "h"};
  case 32:
    return {"b32", "r"};
  default:
    return {"b64", "l"};
  }
}

LLVM::LLVMFuncOp declareFunction(OpBuilder &b, Location loc, Operation *from,
                                 StringRef name, LLVM::LLVMFunctionType type) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, loc, name, type);
}

/// A private constant global holding `text` (NUL-terminated); returns its
/// address as a generic pointer.
Value globalString(OpBuilder &b, Location loc, Operation *from, StringRef prefix,
                   StringRef text) {
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
    LLVM::GlobalOp::create(b, loc, arrayTy, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           b.getStringAttr(contents));
  }
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = LLVM::AddressOfOp::create(b, loc, ptrTy, name);
  return addr;
}

using mlir::tessera::AtomicOrder;
using mlir::tessera::AtomicRMWKind;
using mlir::tessera::AtomicScope;
using mlir::tessera::CacheOp;
using mlir::tessera::EvictHint;
using mlir::tessera::MemoryHints;

const char *orderSuffix(AtomicOrder order) {
  switch (order) {
  case AtomicOrder::Relaxed:
    return ".relaxed";
  case AtomicOrder::Acquire:
    return ".acquire";
  case AtomicOrder::Release:
    return ".release";
  case AtomicOrder::AcquireRelease:
    return ".acq_rel";
  }
  return "";
}

const char *scopeSuffix(AtomicScope scope) {
  switch (scope) {
  case AtomicScope::CTA:
    return ".cta";
  case AtomicScope::GPU:
    return ".gpu";
  case AtomicScope::System:
    return ".sys";
  }
  return "";
}

/// The integer of the same width holding `v`'s bits (floats are bitcast,
/// pointers converted).
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

/// A side-effecting inline PTX statement; returns its result (or null when
/// `resultType` is null).
Value inlineAsm(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                StringRef asmStr, StringRef constraints) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange{resultType} : TypeRange{}, operands, asmStr, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return resultType ? op.getResult(0) : Value();
}

/// A pure inline PTX expression (free to CSE and to delete when unused).
Value pureAsm(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
              StringRef asmStr, StringRef constraints) {
  return LLVM::InlineAsmOp::create(
             b, loc, TypeRange{resultType}, operands, asmStr, constraints,
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr())
      .getResult(0);
}

/// The PTX name of an 8-bit float type with hardware conversions, or "".
StringRef ptxFp8Name(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  return "";
}

class NVIDIATargetInfo : public mlir::tessera::TargetInfoBase {
public:
  explicit NVIDIATargetInfo(int cc) : cc(cc) {}

  int getWarpSize() const override { return 32; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  Value programId(OpBuilder &b, Location loc, int axis) const override {
    Type t = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, t);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, t);
    default:
      return NVVM::BlockIdZOp::create(b, loc, t);
    }
  }

  Value cycleCounter(OpBuilder &b, Location loc) const override {
    return inlineAsm(b, loc, b.getI32Type(), {}, "mov.u32 $0, %clock;", "=r");
  }
  Value globalTimer(OpBuilder &b, Location loc) const override {
    return inlineAsm(b, loc, b.getI64Type(), {}, "mov.u64 $0, %globaltimer;", "=l");
  }
  Value processorId(OpBuilder &b, Location loc) const override {
    return inlineAsm(b, loc, b.getI32Type(), {}, "mov.u32 $0, %smid;", "=r");
  }

  Value numPrograms(OpBuilder &b, Location loc, int axis) const override {
    Type t = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, t);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, t);
    default:
      return NVVM::GridDimZOp::create(b, loc, t);
    }
  }

  Value threadId(OpBuilder &b, Location loc) const override {
    // The range [0, threads per CTA) lets LLVM fold the bit arithmetic of
    // layouts (e.g. (tid & 31) << 2 | ((tid >> 5) & 1) << 7 ... is tid << 2).
    LLVM::ConstantRangeAttr range;
    if (Block *block = b.getInsertionBlock())
      if (Operation *at = block->getParentOp()) {
        std::optional<int> warps = mlir::tessera::ttg::lookupNumWarps(at);
        std::optional<int> lanes = mlir::tessera::ttg::lookupThreadsPerWarp(at);
        if (warps && lanes && *warps > 0 && *lanes > 0)
          range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0, int64_t(*warps) * *lanes);
      }
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type(), range);
  }

  /// The PTX qualifiers of `hints` for ld (`load`) or st, and the L2 cache
  /// policy to create first (empty: none). PTX takes either a cache operator
  /// (.ca/.cg/.cs/.cv, .wb/.cg/.cs/.wt) or an L1 eviction priority, not both:
  /// with both, the eviction priority goes to L2 through a cache policy
  /// (createpolicy, sm_80+; dropped before sm_80, as it is only a hint).
  std::pair<std::string, std::string> hintQualifiers(MemoryHints hints, bool load) const {
    std::string cop;
    switch (hints.cache) {
    case CacheOp::None: break;
    case CacheOp::CA: cop = load ? ".ca" : ""; break;
    case CacheOp::CG: cop = ".cg"; break;
    case CacheOp::CS: cop = ".cs"; break;
    case CacheOp::CV: cop = load ? ".cv" : ""; break;
    case CacheOp::WB: cop = load ? "" : ".wb"; break;
    case CacheOp::WT: cop = load ? "" : ".wt"; break;
    }
    const char *level = hints.evict == EvictHint::First  ? "evict_first"
                        : hints.evict == EvictHint::Last ? "evict_last"
                                                         : nullptr;
    if (!level)
      return {cop, ""};
    if (cop.empty())
      return {std::string(".L1::") + level, ""};
    if (cc < 80)
      return {cop, ""};
    return {cop + ".L2::cache_hint",
            std::string("createpolicy.fractional.L2::") + level + ".b64 %tsr_policy, 1.0;\n\t"};
  }

  Value loadPredicated(OpBuilder &b, Location loc, Value ptr, Type type,
                       Value pred, Value other, bool isVolatile,
                       MemoryHints hints) const override {
    unsigned bits = type.getIntOrFloatBitWidth();
    auto [reg, constraint] = ptxRegister(bits);
    Type regTy = b.getIntegerType(bits == 8 ? 16 : bits);
    Value init = other;
    if (bits == 8)
      init = LLVM::ZExtOp::create(b, loc, regTy, other);
    auto [quals, policy] = isVolatile ? std::pair<std::string, std::string>{}
                                      : hintQualifiers(hints, /*load=*/true);
    std::string ld = std::string(isVolatile ? "ld.volatile.global" : "ld.global") + quals +
                     "." + (bits == 8 ? "b8" : reg);
    std::string asmStr = std::string("mov.") + reg + " $0, $1;\n\t@$3 " + ld +
                         " $0, [ $2 + 0 ]" + (policy.empty() ? "" : ", %tsr_policy") + ";";
    if (!policy.empty())
      asmStr = "{\n\t.reg .b64 %tsr_policy;\n\t" + policy + asmStr + "\n\t}";
    std::string constraints = std::string("=") + constraint + "," + constraint +
                              ",l,b";
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, regTy, ValueRange{init, ptr, pred}, asmStr, constraints,
        /*has_side_effects=*/isVolatile, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    Value v = asmOp.getResult(0);
    if (bits == 8)
      v = LLVM::TruncOp::create(b, loc, type, v);
    return v;
  }

  /// The words a vector of `n` elements of `bits` travels in: b16/b32 words
  /// for narrow elements (packed), the element itself from 32 bits up.
  static unsigned wordBits(unsigned bits, unsigned n) {
    return bits >= 32 ? bits : std::min(32u, bits * n);
  }

  /// `values` (n integers of `type`) packed into words of `wBits`.
  static SmallVector<Value> toWords(OpBuilder &b, Location loc, ArrayRef<Value> values, Type type,
                                    unsigned wBits) {
    unsigned n = values.size(), bits = type.getIntOrFloatBitWidth();
    unsigned words = n * bits / wBits;
    auto vecTy = VectorType::get(n, type);
    Value vec = LLVM::UndefOp::create(b, loc, vecTy);
    for (unsigned i = 0; i < n; ++i)
      vec = LLVM::InsertElementOp::create(b, loc, vec, values[i], i32(b, loc, i));
    Type wordTy = b.getIntegerType(wBits);
    auto wordsTy = VectorType::get(words, wordTy);
    Value packed = LLVM::BitcastOp::create(b, loc, wordsTy, vec);
    SmallVector<Value> out;
    for (unsigned i = 0; i < words; ++i)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, packed, i32(b, loc, i)));
    return out;
  }

  static SmallVector<Value> fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words, Type type,
                                      unsigned n) {
    Type wordTy = words[0].getType();
    auto wordsTy = VectorType::get(words.size(), wordTy);
    Value packed = LLVM::UndefOp::create(b, loc, wordsTy);
    for (unsigned i = 0; i < words.size(); ++i)
      packed = LLVM::InsertElementOp::create(b, loc, packed, words[i], i32(b, loc, i));
    Value vec = LLVM::BitcastOp::create(b, loc, VectorType::get(n, type), packed);
    SmallVector<Value> out;
    for (unsigned i = 0; i < n; ++i)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(b, loc, i)));
    return out;
  }

  static std::string operandList(unsigned first, unsigned count) {
    std::string s = count > 1 ? "{" : "";
    for (unsigned i = 0; i < count; ++i)
      s += (i ? ", $" : "$") + std::to_string(first + i);
    return s + (count > 1 ? "}" : "");
  }

  SmallVector<Value> loadPredicatedVector(OpBuilder &b, Location loc, ArrayRef<Value> ptrs, Type type,
                                          Value pred, ArrayRef<Value> others,
                                          MemoryHints hints) const override {
    unsigned n = ptrs.size(), bits = type.getIntOrFloatBitWidth();
    unsigned wBits = wordBits(bits, n);
    if (n == 1 || wBits < 16 || n * bits > 128)
      return TargetInfoBase::loadPredicatedVector(b, loc, ptrs, type, pred, others, hints);
    SmallVector<Value> init = toWords(b, loc, others, type, wBits);
    unsigned words = init.size();
    auto [reg, constraint] = ptxRegister(wBits);
    auto [quals, policy] = hintQualifiers(hints, /*load=*/true);
    // $0..$w-1 the words, $w..$2w-1 their values where the predicate is false,
    // then the address and the predicate.
    std::string asmStr;
    for (unsigned i = 0; i < words; ++i)
      asmStr += std::string("mov.") + reg + " $" + std::to_string(i) + ", $" +
                std::to_string(words + i) + ";\n\t";
    asmStr += "@$" + std::to_string(2 * words + 1) + " ld.global" + quals +
              (words > 1 ? ".v" + std::to_string(words) : std::string()) + "." + reg + " " +
              operandList(0, words) + ", [ $" + std::to_string(2 * words) + " + 0 ]" +
              (policy.empty() ? "" : ", %tsr_policy") + ";";
    if (!policy.empty())
      asmStr = "{\n\t.reg .b64 %tsr_policy;\n\t" + policy + asmStr + "\n\t}";
    std::string constraints;
    for (unsigned i = 0; i < words; ++i)
      constraints += std::string(i ? "," : "") + "=" + constraint;
    for (unsigned i = 0; i < words; ++i)
      constraints += std::string(",") + constraint;
    constraints += ",l,b";
    Type wordTy = b.getIntegerType(wBits);
    Type resultTy = words == 1 ? wordTy
                               : Type(LLVM::LLVMStructType::getLiteral(
                                     b.getContext(), SmallVector<Type>(words, wordTy)));
    SmallVector<Value> operands(init.begin(), init.end());
    operands.push_back(ptrs[0]);
    operands.push_back(pred);
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, resultTy, operands, asmStr, constraints, /*has_side_effects=*/false,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
    SmallVector<Value> loaded;
    if (words == 1)
      loaded.push_back(asmOp.getResult(0));
    else
      for (unsigned i = 0; i < words; ++i)
        loaded.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
    return fromWords(b, loc, loaded, type, n);
  }

  void storePredicatedVector(OpBuilder &b, Location loc, ArrayRef<Value> ptrs, ArrayRef<Value> values,
                             Value pred, MemoryHints hints) const override {
    unsigned n = ptrs.size(), bits = values[0].getType().getIntOrFloatBitWidth();
    unsigned wBits = wordBits(bits, n);
    if (n == 1 || wBits < 16 || n * bits > 128)
      return TargetInfoBase::storePredicatedVector(b, loc, ptrs, values, pred, hints);
    SmallVector<Value> words = toWords(b, loc, values, values[0].getType(), wBits);
    unsigned w = words.size();
    auto [reg, constraint] = ptxRegister(wBits);
    auto [quals, policy] = hintQualifiers(hints, /*load=*/false);
    // $0 the address, $1..$w the words, $w+1 the predicate.
    std::string asmStr = "@$" + std::to_string(w + 1) + " st.global" + quals +
                         (w > 1 ? ".v" + std::to_string(w) : std::string()) + "." + reg +
                         " [ $0 + 0 ], " + operandList(1, w) +
                         (policy.empty() ? "" : ", %tsr_policy") + ";";
    if (!policy.empty())
      asmStr = "{\n\t.reg .b64 %tsr_policy;\n\t" + policy + asmStr + "\n\t}";
    std::string constraints = "l";
    for (unsigned i = 0; i < w; ++i)
      constraints += std::string(",") + constraint;
    constraints += ",b";
    SmallVector<Value> operands{ptrs[0]};
    operands.append(words.begin(), words.end());
    operands.push_back(pred);
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, operands, asmStr, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  }

  void storePredicated(OpBuilder &b, Location loc, Value ptr, Value value,
                       Value pred, MemoryHints hints) const override {
    unsigned bits = value.getType().getIntOrFloatBitWidth();
    auto [reg, constraint] = ptxRegister(bits);
    if (bits == 8)
      value = LLVM::ZExtOp::create(b, loc, b.getI16Type(), value);
    auto [quals, policy] = hintQualifiers(hints, /*load=*/false);
    std::string asmStr = std::string("@$2 st.global") + quals + "." +
                         (bits == 8 ? "b8" : reg) + " [ $0 + 0 ], $1" +
                         (policy.empty() ? "" : ", %tsr_policy") + ";";
    if (!policy.empty())
      asmStr = "{\n\t.reg .b64 %tsr_policy;\n\t" + policy + asmStr + "\n\t}";
    std::string constraints = std::string("l,") + constraint + ",b";
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{ptr, value, pred}, asmStr, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
  }

  Value shuffle(OpBuilder &b, Location loc, Value value, Value offset,
                NVVM::ShflKind kind, int clamp) const {
    Type ty = value.getType();
    unsigned bits = ty.getIntOrFloatBitWidth();
    if (bits == 64) {
      auto vecTy = VectorType::get(2, b.getI32Type());
      Value vec = LLVM::BitcastOp::create(b, loc, vecTy, value);
      Value lo = LLVM::ExtractElementOp::create(b, loc, vec, i32(b, loc, 0));
      Value hi = LLVM::ExtractElementOp::create(b, loc, vec, i32(b, loc, 1));
      lo = shuffle(b, loc, lo, offset, kind, clamp);
      hi = shuffle(b, loc, hi, offset, kind, clamp);
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
    Value mask = i32(b, loc, -1);
    Value r = NVVM::ShflOp::create(b, loc, b.getI32Type(), mask, v, offset,
                                   i32(b, loc, clamp), kind, UnitAttr());
    if (bits < 32) {
      r = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), r);
      if (!isa<IntegerType>(ty))
        r = LLVM::BitcastOp::create(b, loc, ty, r);
    } else if (!ty.isInteger(32)) {
      r = LLVM::BitcastOp::create(b, loc, ty, r);
    }
    return r;
  }

  Value warpReduceAll(OpBuilder &b, Location loc, Value value,
                      AtomicRMWKind kind) const override {
    // redux.sync (sm_80+): one instruction for the warp's 32-bit integer
    // reduction, where the butterfly takes five shuffles and five combines.
    if (cc < 80 || !value.getType().isInteger(32))
      return {};
    NVVM::ReduxKind k;
    switch (kind) {
    case AtomicRMWKind::Add: k = NVVM::ReduxKind::ADD; break;
    case AtomicRMWKind::Max: k = NVVM::ReduxKind::MAX; break;
    case AtomicRMWKind::Min: k = NVVM::ReduxKind::MIN; break;
    case AtomicRMWKind::UMax: k = NVVM::ReduxKind::UMAX; break;
    case AtomicRMWKind::UMin: k = NVVM::ReduxKind::UMIN; break;
    case AtomicRMWKind::And: k = NVVM::ReduxKind::AND; break;
    case AtomicRMWKind::Or: k = NVVM::ReduxKind::OR; break;
    case AtomicRMWKind::Xor: k = NVVM::ReduxKind::XOR; break;
    default:
      return {};
    }
    return NVVM::ReduxOp::create(b, loc, value.getType(), value, k, i32(b, loc, -1));
  }

  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   int mask) const override {
    return shuffle(b, loc, value, i32(b, loc, mask), NVVM::ShflKind::bfly, 0x1f);
  }

  Value shuffleUp(OpBuilder &b, Location loc, Value value,
                  int delta) const override {
    return shuffle(b, loc, value, i32(b, loc, delta), NVVM::ShflKind::up, 0);
  }

  Value shuffleIdx(OpBuilder &b, Location loc, Value value,
                   Value srcLane) const override {
    return shuffle(b, loc, value, srcLane, NVVM::ShflKind::idx, 0x1f);
  }

  void storeSharedPredicated(OpBuilder &b, Location loc, Value ptr, Value value,
                             Value pred) const override {
    Type ty = value.getType();
    if (auto vec = dyn_cast<VectorType>(ty)) {
      // Two or four 32-bit words: one st.shared.v2/v4.b32.
      int64_t n = vec.getNumElements();
      assert((n == 2 || n == 4) && vec.getElementType().isInteger(32) && "two or four i32 words");
      // $0 the address, $1..$n the words, $n+1 the predicate.
      SmallVector<Value> operands{LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr)};
      std::string constraints = "r";
      for (int64_t i = 0; i < n; ++i) {
        operands.push_back(LLVM::ExtractElementOp::create(b, loc, value, i32(b, loc, i)));
        constraints += ",r";
      }
      operands.push_back(pred);
      std::string asmStr = "@$" + std::to_string(n + 1) + " st.shared.v" + std::to_string(n) + ".b32 [ $0 + 0 ], " +
                           operandList(1, unsigned(n)) + ";";
      inlineAsm(b, loc, Type(), operands, asmStr, constraints + ",b,~{memory}");
      return;
    }
    unsigned bits = isa<LLVM::LLVMPointerType>(ty) ? 64 : ty.getIntOrFloatBitWidth();
    Value v = toBits(b, loc, value);
    if (bits < 16)
      v = LLVM::ZExtOp::create(b, loc, b.getI16Type(), v);
    auto [reg, constraint] = ptxRegister(std::max(bits, 16u));
    // A 32-bit shared-window address (.shared addresses are below 2^32
    // whether or not the data layout uses 32-bit shared pointers): one
    // register, no conversion.
    Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
    std::string asmStr = std::string("@$2 st.shared.") + (bits < 16 ? "b8" : reg) +
                         " [ $0 + 0 ], $1;";
    std::string constraints = std::string("r,") + constraint + ",b,~{memory}";
    inlineAsm(b, loc, Type(), ValueRange{addr, v, pred}, asmStr, constraints);
  }

  Value loadSharedPredicated(OpBuilder &b, Location loc, Value ptr, Type type, Value pred,
                             Value other) const override {
    unsigned bits = isa<LLVM::LLVMPointerType>(type) ? 64 : type.getIntOrFloatBitWidth();
    auto [reg, constraint] = ptxRegister(std::max(bits, 16u));
    Type regTy = b.getIntegerType(std::max(bits, 16u));
    Value init = toBits(b, loc, other);
    if (bits < 16)
      init = LLVM::ZExtOp::create(b, loc, regTy, init);
    // A 32-bit shared-window address, as storeSharedPredicated uses. Side
    // effects keep the load on its side of the barriers around it.
    Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
    std::string asmStr = std::string("mov.") + reg + " $0, $1;\n\t@$3 ld.shared." +
                         (bits < 16 ? "b8" : reg) + " $0, [ $2 + 0 ];";
    std::string constraints = std::string("=") + constraint + "," + constraint + ",r,b";
    Value v = inlineAsm(b, loc, regTy, ValueRange{init, addr, pred}, asmStr, constraints);
    if (bits < 16)
      v = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), v);
    if (isa<LLVM::LLVMPointerType>(type))
      return LLVM::IntToPtrOp::create(b, loc, type, v);
    return fromBits(b, loc, v, type);
  }

  bool supportsAtomicRMW(AtomicRMWKind kind, Type type) const override {
    if (!type.isIntOrFloat())
      return false;
    unsigned bits = type.getIntOrFloatBitWidth();
    bool isFloat = isa<FloatType>(type);
    if (bits == 16)
      // f16/bf16 fadd natively, everything else through a 16-bit CAS loop.
      return kind != AtomicRMWKind::FAdd || type.isF16() || type.isBF16();
    if (bits != 32 && bits != 64)
      return false;
    switch (kind) {
    case AtomicRMWKind::FAdd:
      return isFloat;
    case AtomicRMWKind::Max:
    case AtomicRMWKind::Min:
    case AtomicRMWKind::Exch:
      return true;
    default:
      return !isFloat;
    }
  }

  Value atomicRMW(OpBuilder &b, Location loc, AtomicRMWKind kind, Value ptr,
                  Value value, Value pred, AtomicOrder order,
                  AtomicScope scope) const override {
    Type ty = value.getType();
    unsigned bits = ty.getIntOrFloatBitWidth();
    bool isFloat = isa<FloatType>(ty);
    auto [reg, c] = ptxRegister(bits);
    std::string atom = std::string("atom") + orderSuffix(order) + scopeSuffix(scope) + ".global";
    std::string sz = std::to_string(bits);
    std::string zero = std::string("mov.") + reg + " $0, 0;\n\t";
    std::string asmStr;
    if (bits == 16 && kind != AtomicRMWKind::FAdd) {
      // PTX has no 16-bit atom but cas: a compare-and-swap loop around the
      // operation (%tsr_new = %tsr_old op $2).
      std::string fp = ty.isBF16() ? "bf16" : "f16";
      std::string step;
      switch (kind) {
      case AtomicRMWKind::Add: step = "add.u16"; break;
      case AtomicRMWKind::Max: step = isFloat ? "max." + fp : "max.s16"; break;
      case AtomicRMWKind::Min: step = isFloat ? "min." + fp : "min.s16"; break;
      case AtomicRMWKind::UMax: step = "max.u16"; break;
      case AtomicRMWKind::UMin: step = "min.u16"; break;
      case AtomicRMWKind::And: step = "and.b16"; break;
      case AtomicRMWKind::Or: step = "or.b16"; break;
      case AtomicRMWKind::Xor: step = "xor.b16"; break;
      default: step = ""; break; // Exch: %tsr_new = $2
      }
      step = step.empty() ? "mov.b16 %tsr_new, $2;" : step + " %tsr_new, %tsr_old, $2;";
      std::string load = std::string("ld.relaxed") + scopeSuffix(scope) + ".global.b16";
      asmStr = "{\n\t.reg .pred %tsr_again;\n\t"
               ".reg .b16 %tsr_old, %tsr_new, %tsr_cur;\n\t" +
               zero + "@!$3 bra tsr_done_${:uid};\n\t" + load +
               " %tsr_old, [ $1 + 0 ];\n"
               "tsr_loop_${:uid}:\n\t" +
               step + "\n\t" + atom +
               ".cas.b16 %tsr_cur, [ $1 + 0 ], %tsr_old, %tsr_new;\n\t"
               "setp.ne.b16 %tsr_again, %tsr_cur, %tsr_old;\n\t"
               "mov.b16 %tsr_old, %tsr_cur;\n\t"
               "@%tsr_again bra tsr_loop_${:uid};\n\t"
               "mov.b16 $0, %tsr_cur;\n"
               "tsr_done_${:uid}:\n\t}";
    } else if (isFloat && (kind == AtomicRMWKind::Max || kind == AtomicRMWKind::Min)) {
      // PTX has no float atom.max/min for 32/64 bits. Non-negative floats
      // order like their bits as signed integers and negative ones like
      // their bits as unsigned integers, reversed: max(x) is a signed max
      // for x >= +0 and an unsigned min for x <= -0 (min: the opposite).
      bool isMax = kind == AtomicRMWKind::Max;
      std::string pos = std::string(isMax ? ".max.s" : ".min.s") + sz;
      std::string neg = std::string(isMax ? ".min.u" : ".max.u") + sz;
      asmStr = "{\n\t.reg .pred %tsr_nonneg, %tsr_neg, %tsr_p0, %tsr_p1;\n\t" + zero +
               "setp.ge.s" + sz + " %tsr_nonneg, $2, 0;\n\t"
               "not.pred %tsr_neg, %tsr_nonneg;\n\t"
               "and.pred %tsr_p0, %tsr_nonneg, $3;\n\t"
               "and.pred %tsr_p1, %tsr_neg, $3;\n\t"
               "@%tsr_p0 " + atom + pos + " $0, [ $1 + 0 ], $2;\n\t"
               "@%tsr_p1 " + atom + neg + " $0, [ $1 + 0 ], $2;\n\t}";
    } else {
      std::string op;
      switch (kind) {
      case AtomicRMWKind::Add: op = ".add.u" + sz; break;
      case AtomicRMWKind::FAdd:
        op = bits == 16 ? (ty.isBF16() ? ".add.noftz.bf16" : ".add.noftz.f16") : ".add.f" + sz;
        break;
      case AtomicRMWKind::Max: op = ".max.s" + sz; break;
      case AtomicRMWKind::Min: op = ".min.s" + sz; break;
      case AtomicRMWKind::UMax: op = ".max.u" + sz; break;
      case AtomicRMWKind::UMin: op = ".min.u" + sz; break;
      case AtomicRMWKind::And: op = ".and.b" + sz; break;
      case AtomicRMWKind::Or: op = ".or.b" + sz; break;
      case AtomicRMWKind::Xor: op = ".xor.b" + sz; break;
      case AtomicRMWKind::Exch: op = ".exch.b" + sz; break;
      }
      asmStr = zero + "@$3 " + atom + op + " $0, [ $1 + 0 ], $2;";
    }
    Type intTy = b.getIntegerType(bits);
    std::string constraints = std::string("=") + c + ",l," + c + ",b,~{memory}";
    Value old = inlineAsm(b, loc, intTy, ValueRange{ptr, toBits(b, loc, value), pred},
                          asmStr, constraints);
    return fromBits(b, loc, old, ty);
  }

  bool supportsAtomicCAS(Type type) const override {
    if (!type.isIntOrFloat())
      return false;
    unsigned bits = type.getIntOrFloatBitWidth();
    return bits == 16 || bits == 32 || bits == 64;
  }

  Value atomicCAS(OpBuilder &b, Location loc, Value ptr, Value cmp, Value value,
                  Value pred, AtomicOrder order, AtomicScope scope) const override {
    Type ty = value.getType();
    unsigned bits = ty.getIntOrFloatBitWidth();
    auto [reg, c] = ptxRegister(bits);
    std::string asmStr = std::string("mov.") + reg + " $0, 0;\n\t@$4 atom" +
                         orderSuffix(order) + scopeSuffix(scope) + ".global.cas." + reg +
                         " $0, [ $1 + 0 ], $2, $3;";
    std::string constraints = std::string("=") + c + ",l," + c + "," + c + ",b,~{memory}";
    Value old = inlineAsm(b, loc, b.getIntegerType(bits),
                          ValueRange{ptr, toBits(b, loc, cmp), toBits(b, loc, value), pred},
                          asmStr, constraints);
    return fromBits(b, loc, old, ty);
  }

  // cp.async: sm_80 and later.
  bool supportsAsyncCopy() const override { return cc >= 80; }
  void copyAsync(OpBuilder &b, Location loc, Value dst, Value src, int bytes,
                 Value pred) const override {
    Type i32 = b.getI32Type();
    Value dstAddr = LLVM::PtrToIntOp::create(b, loc, i32, dst);
    // src-size 0 where the predicate is off: nothing is read, zeros are written.
    Value size = LLVM::SelectOp::create(b, loc, pred, mlir::tessera::i32Val(b, loc, bytes),
                                        mlir::tessera::i32Val(b, loc, 0));
    std::string asmStr = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
                         ".shared.global [$0], [$1], " + std::to_string(bytes) + ", $2;";
    inlineAsm(b, loc, Type(), ValueRange{dstAddr, src, size}, asmStr, "r,l,r,~{memory}");
  }
  void commitAsyncCopies(OpBuilder &b, Location loc) const override {
    inlineAsm(b, loc, Type(), ValueRange{}, "cp.async.commit_group;", "~{memory}");
  }
  void waitAsyncCopies(OpBuilder &b, Location loc, int pending) const override {
    inlineAsm(b, loc, Type(), ValueRange{},
              "cp.async.wait_group " + std::to_string(pending) + ";", "~{memory}");
  }

  // ldmatrix: sm_75 and later.
  bool supportsLoadMatrices() const override { return cc >= 75; }
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value rowAddr,
                                  bool trans) const override {
    Type i32 = b.getI32Type();
    auto resTy = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32, i32, i32});
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32, rowAddr);
    std::string asmStr = std::string("ldmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") +
                         ".shared.b16 {$0, $1, $2, $3}, [$4];";
    auto op = LLVM::InlineAsmOp::create(
        b, loc, TypeRange{resTy}, ValueRange{addr}, asmStr, "=r,=r,=r,=r,r,~{memory}",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0), i));
    return out;
  }

  void barrier(OpBuilder &b, Location loc) const override {
    // nvvm.barrier0, not nvvm.barrier: the latter's textual form does not
    // parse back with a location alias in LLVM 22.
    NVVM::Barrier0Op::create(b, loc);
  }
  /// bar.sync orders the memory accesses (global ones too) of the threads
  /// that take part in it: no fence needed.
  void barrierForGlobalMemory(OpBuilder &b, Location loc) const override { barrier(b, loc); }

  std::optional<TensorCoreLayouts> getTensorCoreLayouts(Operation *op,
                                                        int numWarps) const override {
    auto dot = dyn_cast<mlir::tessera::tt::DotOp>(op);
    if (!dot || cc < 80)
      return std::nullopt;
    auto warps = ::tessera::nvidia::getMmaV2Warps(dot.getA().getType(), dot.getB().getType(),
                                                  dot.getC().getType(), numWarps);
    if (!warps)
      return std::nullopt;
    MLIRContext *ctx = op->getContext();
    auto mma = mlir::tessera::ttg::NvidiaMmaEncodingAttr::get(
        ctx, 2, 0, {warps->first, warps->second},
        mlir::tessera::ttg::CTALayoutAttr::getDefault(ctx, 2), {16, 8});
    return TensorCoreLayouts{mma, 2};
  }

  void fenceStoresForAsyncReaders(OpBuilder &b, Location loc, Attribute encoding) const override {
    if (cc >= 90 && isa_and_nonnull<mlir::tessera::ttg::NVMMASharedEncodingAttr>(encoding))
      inlineAsm(b, loc, Type(), ValueRange{}, "fence.proxy.async.shared::cta;", "~{memory}");
  }

  // wgmma exists on cc 9.0 only (sm_90a); later GPUs have other forms.
  Value buildTensorCoreDot(OpBuilder &b, Operation *dot, int numWarps) const override {
    if (cc != 90)
      return {};
    return ::tessera::nvidia::buildWgmmaDot(b, dot, numWarps);
  }
  Value makeDotAsync(OpBuilder &b, Operation *dot, int pending) const override {
    return ::tessera::nvidia::makeWgmmaAsync(b, dot, pending);
  }
  Value waitForDots(OpBuilder &b, Location loc, Value value, int pending) const override {
    return ::tessera::nvidia::waitForWgmma(b, loc, value, pending);
  }

  void addIllegalVendorOps(ConversionTarget &target) const override {
    target.addIllegalDialect<mlir::tessera::ttng::TTNGDialect>();
  }

  void populateVendorPatterns(mlir::tessera::TesseraLLVMTypeConverter &typeConverter,
                              RewritePatternSet &patterns) const override {
    ::tessera::nvidia::populateFastMathPatterns(typeConverter, patterns);
    ::tessera::nvidia::populateWgmmaPatterns(typeConverter, patterns);
    ::tessera::nvidia::populateTMAPatterns(typeConverter, patterns);
    if (cc >= 80)
      ::tessera::nvidia::populateMmaV2DotPatterns(typeConverter, patterns);
  }

  std::optional<int64_t> getVendorScratchBytes(Operation *op) const override {
    if (cc >= 90)
      if (std::optional<int64_t> bytes = ::tessera::nvidia::getTMAScratchBytes(op))
        return bytes;
    if (cc < 80)
      return std::nullopt;
    return ::tessera::nvidia::getMmaV2ScratchBytes(op);
  }

  // cvt between f16x2/f32 and e4m3x2/e5m2x2 exists from sm_89 (PTX 7.8).
  // One element goes through the low half of each packed register.
  std::string getFp8Requirement(Type fp8Type) const override {
    if (ptxFp8Name(fp8Type).empty())
      return "NVIDIA GPUs convert float8e4nv (e4m3) and float8e5 (e5m2); the FNUZ formats "
             "float8e4b8 and float8e5b16 are AMD CDNA3's";
    return cc >= 89 ? "" : "needs sm_89 or newer";
  }

  Value truncTowardZero(OpBuilder &b, Location loc, Value value, Type dstType) const override {
    unsigned sb = value.getType().getIntOrFloatBitWidth();
    unsigned db = dstType.getIntOrFloatBitWidth();
    std::string mn = db == 16 ? (dstType.isBF16() ? "bf16" : "f16") : "f32";
    std::string src = sb == 64 ? "f64" : "f32";
    std::string constraints = std::string(db == 16 ? "=h" : "=r") + (sb == 64 ? ",d" : ",f");
    Value bits = pureAsm(b, loc, b.getIntegerType(db), {value},
                         "cvt.rz." + mn + "." + src + " $0, $1;", constraints);
    return LLVM::BitcastOp::create(b, loc, dstType, bits);
  }

  Value truncToFp8(OpBuilder &b, Location loc, Value value,
                   Type fp8Type) const override {
    StringRef name = ptxFp8Name(fp8Type);
    if (name.empty() || cc < 89)
      return {};
    Type i16 = b.getI16Type();
    Value packed;
    if (value.getType().isF32()) {
      Value zero = LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0));
      // d = {cvt(a) in the high byte, cvt(b) in the low byte}.
      packed = pureAsm(b, loc, i16, {zero, value},
                       ("cvt.rn.satfinite." + name + "x2.f32 $0, $1, $2;").str(), "=h,f,f");
    } else if (value.getType().isF16()) {
      Value bits = LLVM::BitcastOp::create(b, loc, i16, value);
      Value wide = LLVM::ZExtOp::create(b, loc, b.getI32Type(), bits);
      packed = pureAsm(b, loc, i16, {wide},
                       ("cvt.rn.satfinite." + name + "x2.f16x2 $0, $1;").str(), "=h,r");
    } else {
      return {};
    }
    return LLVM::TruncOp::create(b, loc, b.getI8Type(), packed);
  }

  Value extFromFp8(OpBuilder &b, Location loc, Value value,
                   Type fp8Type) const override {
    StringRef name = ptxFp8Name(fp8Type);
    if (name.empty() || cc < 89)
      return {};
    Value wide = LLVM::ZExtOp::create(b, loc, b.getI16Type(), value);
    Value pair = pureAsm(b, loc, b.getI32Type(), {wide},
                         ("cvt.rn.f16x2." + name + "x2 $0, $1;").str(), "=r,h");
    Value low = LLVM::TruncOp::create(b, loc, b.getI16Type(), pair);
    return LLVM::BitcastOp::create(b, loc, b.getF16Type(), low);
  }

  std::string mathLibraryFunction(StringRef op, Type type) const override {
    // libdevice's names for fp32 and fp64 (libdevice.10.bc); most are the C name with an `f`
    // for fp32, but the correctly rounded ones are __nv_f*_rn / __nv_d*_rn.
    struct Names {
      StringRef f32, f64;
    };
    static const llvm::StringMap<Names> names = {
        {"exp", {"__nv_expf", "__nv_exp"}},
        {"exp2", {"__nv_exp2f", "__nv_exp2"}},
        {"log", {"__nv_logf", "__nv_log"}},
        {"log2", {"__nv_log2f", "__nv_log2"}},
        {"sqrt", {"__nv_sqrtf", "__nv_sqrt"}},
        {"rsqrt", {"__nv_rsqrtf", "__nv_rsqrt"}},
        {"sin", {"__nv_sinf", "__nv_sin"}},
        {"cos", {"__nv_cosf", "__nv_cos"}},
        {"erf", {"__nv_erff", "__nv_erf"}},
        {"floor", {"__nv_floorf", "__nv_floor"}},
        {"ceil", {"__nv_ceilf", "__nv_ceil"}},
        {"tanh", {"__nv_tanhf", "__nv_tanh"}},
        {"trunc", {"__nv_truncf", "__nv_trunc"}},
        {"absf", {"__nv_fabsf", "__nv_fabs"}},
        {"fma", {"__nv_fmaf", "__nv_fma"}},
        {"precise_sqrt", {"__nv_fsqrt_rn", "__nv_dsqrt_rn"}},
        {"precise_divf", {"__nv_fdiv_rn", "__nv_ddiv_rn"}}};
    auto it = names.find(op);
    if (it == names.end())
      return "";
    if (type.isF32())
      return it->second.f32.str();
    if (type.isF64())
      return it->second.f64.str();
    return "";
  }

  void printf(OpBuilder &b, Location loc, StringRef format,
              ValueRange args) const override {
    MLIRContext *ctx = b.getContext();
    Operation *at = b.getInsertionBlock()->getParentOp();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto fnTy = LLVM::LLVMFunctionType::get(b.getI32Type(), {ptrTy, ptrTy});
    LLVM::LLVMFuncOp vprintf = declareFunction(b, loc, at, "vprintf", fnTy);
    Value fmt = globalString(b, loc, at, "printf_format", format);
    Value buffer;
    if (args.empty()) {
      buffer = LLVM::ZeroOp::create(b, loc, ptrTy);
    } else {
      SmallVector<Type> fields;
      for (Value a : args)
        fields.push_back(a.getType());
      auto structTy = LLVM::LLVMStructType::getLiteral(ctx, fields);
      buffer = LLVM::AllocaOp::create(b, loc, ptrTy, structTy, i32(b, loc, 1), 8);
      for (auto [i, a] : llvm::enumerate(args)) {
        Value field = LLVM::GEPOp::create(
            b, loc, ptrTy, structTy, buffer,
            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(b, loc, a, field);
      }
    }
    LLVM::CallOp::create(b, loc, vprintf, ValueRange{fmt, buffer});
  }

  void assertFail(OpBuilder &b, Location loc, StringRef message, StringRef file,
                  StringRef func, int line) const override {
    MLIRContext *ctx = b.getContext();
    Operation *at = b.getInsertionBlock()->getParentOp();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto fnTy = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(ctx),
        {ptrTy, ptrTy, b.getI32Type(), ptrTy, b.getI64Type()});
    LLVM::LLVMFuncOp fail = declareFunction(b, loc, at, "__assertfail", fnTy);
    Value msg = globalString(b, loc, at, "assert_message", message);
    Value fileV = globalString(b, loc, at, "assert_file", file);
    Value funcV = globalString(b, loc, at, "assert_func", func);
    Value lineV = i32(b, loc, line);
    Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                         b.getI64IntegerAttr(1));
    LLVM::CallOp::create(b, loc, fail, ValueRange{msg, fileV, lineV, funcV, one});
  }

  void markAsKernel(Operation *func, int numThreads) const override {
    MLIRContext *ctx = func->getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    // Launches always use exactly this many threads (x; y = z = 1): reqntid
    // (not just maxntid) lets ptxas and the driver rely on it.
    func->setAttr("nvvm.reqntid", DenseI32ArrayAttr::get(ctx, {numThreads}));
  }

  // Hopper's TMA reads a 128-byte CUtensorMap; kernels take it as a
  // __grid_constant__ parameter and pass its address to the copies.
  int getDescriptorBytes() const override { return cc >= 90 ? 128 : 0; }
  void markDescriptorArgument(Operation *func, unsigned index) const override {
    cast<LLVM::LLVMFuncOp>(func).setArgAttr(index, "nvvm.grid_constant",
                                            UnitAttr::get(func->getContext()));
  }

private:
  int cc;
};

} // namespace

namespace tessera::nvidia {

mlir::Value emitInlinePtx(mlir::OpBuilder &b, mlir::Location loc, mlir::Type resultType,
                          mlir::ValueRange operands, llvm::StringRef asmStr,
                          llvm::StringRef constraints) {
  return inlineAsm(b, loc, resultType, operands, asmStr, constraints);
}

std::unique_ptr<mlir::tessera::TargetInfoBase> createTargetInfo(int cc) {
  return std::make_unique<NVIDIATargetInfo>(cc);
}

SmallVector<Value> emitMma16816(OpBuilder &b, Location loc, ValueRange a,
                                               ValueRange bFrag, ValueRange c, bool bf16) {
  Type f32 = b.getF32Type();
  auto resTy = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  SmallVector<Value> operands(a.begin(), a.end());
  operands.append(bFrag.begin(), bFrag.end());
  operands.append(c.begin(), c.end());
  std::string asmStr = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                       (bf16 ? "bf16.bf16" : "f16.f16") +
                       ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                       "{$10, $11, $12, $13};";
  auto op = LLVM::InlineAsmOp::create(
      b, loc, TypeRange{resTy}, operands, asmStr, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  SmallVector<Value> d;
  for (int i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0), i));
  return d;
}

} // namespace tessera::nvidia
