//===- TTOps.td - operations of the tt dialect -------------*- tablegen -*-===//
//
// Assembly formats follow the TTIR that Triton 3.x prints for the same
// operations, so that its dumps parse unchanged. Invariants that the formats
// cannot express are checked by each op's verifier, whose messages name the
// expected and the actual value.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TT_IR_TTOPS_TD
#define TESSERA_DIALECT_TT_IR_TTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/CastInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tessera/Dialect/TT/IR/TTDialect.td"
include "tessera/Dialect/TT/IR/TTTypes.td"
include "tessera/Dialect/TT/IR/TTAttrs.td"
include "tessera/Dialect/TT/IR/TTInterfaces.td"

/// Every tensor an op touches holds at most 2^20 elements (the tile limit of
/// the language); checked with overflow-safe arithmetic so that absurd shapes
/// get a diagnostic instead of wrapping around.
def TT_TensorSizeIsBounded : NativeOpTrait<"TensorSizeIsBounded"> {
  let cppNamespace = "::mlir::tessera::tt::OpTrait";
}

class TT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TT_Dialect, mnemonic, !listconcat(traits, [TT_TensorSizeIsBounded])>;

//===----------------------------------------------------------------------===//
// Functions and calls
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [
    AffineScope, AutomaticAllocationScope, CallableOpInterface,
    FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a kernel or a device function";
  let description = [{
    A public `tt.func` is a kernel entry point; a private one is a device
    function that calls reach. A function with `noinline = true` stays a
    separate function through the pipeline and may take and return tensors.
    Argument attributes carry the launch specialization (`tt.divisibility`,
    `tt.pointer_range`, …).

    ```mlir
    tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
      tt.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type,
      CArg<"::llvm::ArrayRef<::mlir::NamedAttribute>", "{}">:$attrs,
      CArg<"::llvm::ArrayRef<::mlir::DictionaryAttr>", "{}">:$argAttrs)>];
  let extraClassDeclaration = [{
    /// Returns the region on the current operation that is callable.
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return isExternal(); }
    /// True when the function carries `noinline = true`.
    bool isNoInline();
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TT_CallOp : TT_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a tt.func";
  let description = [{
    Calls the function named by `callee` with the given operands. Scalars and
    tensors may be passed and returned.

    ```mlir
    %r = tt.call @scale(%x, %s) : (tensor<128xf32>, f32) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let builders = [
    OpBuilder<(ins "::mlir::tessera::tt::FuncOp":$callee,
                   CArg<"::mlir::ValueRange", "{}">:$operands), [{
      $_state.addOperands(operands);
      $_state.addAttribute("callee", ::mlir::SymbolRefAttr::get(callee));
      $_state.addTypes(callee.getFunctionType().getResults());
    }]>];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType();
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

def TT_ReturnOp : TT_Op<"return", [HasParent<"FuncOp">, Pure, ReturnLike, Terminator]> {
  let summary = "return from a tt.func";
  let description = [{
    Ends a function, returning its operands; their types must be the
    function's result types.

    ```mlir
    tt.return %v : tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Program identity and index creation
//===----------------------------------------------------------------------===//

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure]> {
  let summary = "the index of this program along a grid axis";
  let description = [{
    ```mlir
    %pid = tt.get_program_id x : i32
    ```
  }];
  let arguments = (ins TT_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let extraClassDeclaration = [{ int32_t getAxisAsInt() { return static_cast<int32_t>(getAxis()); } }];
}

def TT_GetNumProgramsOp : TT_Op<"get_num_programs", [Pure]> {
  let summary = "the number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tt.get_num_programs y : i32
    ```
  }];
  let arguments = (ins TT_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_MakeRangeOp : TT_Op<"make_range", [Pure]> {
  let summary = "the 1-D tensor start, start+1, …, end-1";
  let description = [{
    ```mlir
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def TT_SplatOp : TT_Op<"splat", [Pure]> {
  let summary = "a tensor whose elements all equal a scalar";
  let description = [{
    ```mlir
    %t = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    ```
  }];
  let arguments = (ins TT_Type:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TT_BroadcastOp : TT_Op<"broadcast", [Pure]> {
  let summary = "repeat a tensor along its size-1 dimensions";
  let description = [{
    Every dimension of the result equals the source's, or the source's is 1.

    ```mlir
    %b = tt.broadcast %a : tensor<32x1xi32> -> tensor<32x64xi32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_ExpandDimsOp : TT_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dimension";
  let description = [{
    ```mlir
    %e = tt.expand_dims %a {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src, I32Attr:$axis);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_ReshapeOp : TT_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tensor with a new shape of the same size";
  let description = [{
    Elements keep their row-major order unless `allow_reorder` is set, in
    which case the compiler may choose any order (useful for reductions).
    `efficient_layout` records that the chosen layout must be kept.

    ```mlir
    %r = tt.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
    %s = tt.reshape %a allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src, UnitAttr:$allow_reorder, UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
    attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_TransOp : TT_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is source dimension `order[i]`.

    ```mlir
    %t = tt.trans %a {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_JoinOp : TT_Op<"join", [Pure,
    TT_ResultInferredFrom<"rhs has the type of lhs", "lhs", "rhs", "$_self">]> {
  let summary = "stack two tensors along a new minor dimension of size 2";
  let description = [{
    ```mlir
    %j = tt.join %a, %b : tensor<32xf32> -> tensor<32x2xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def TT_SplitOp : TT_Op<"split", [Pure,
    TT_ResultInferredFrom<"both halves have one type", "outLHS", "outRHS", "$_self">]> {
  let summary = "split a tensor along its minor dimension of size 2";
  let description = [{
    ```mlir
    %a, %b = tt.split %j : tensor<32x2xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$outLHS, TT_Tensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
  let hasVerifier = 1;
}

def TT_CatOp : TT_Op<"cat", [Pure,
    TT_ResultInferredFrom<"rhs has the type of lhs", "lhs", "rhs", "$_self">]> {
  let summary = "concatenate two tensors (element order unspecified)";
  let description = [{
    The result holds the elements of both operands; its size is the sum of
    theirs.

    ```mlir
    %c = tt.cat %a, %b : tensor<32xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Casts and elementwise operations not covered by arith and math
//===----------------------------------------------------------------------===//

def TT_BitcastOp : TT_Op<"bitcast", [Pure, Elementwise]> {
  let summary = "reinterpret bits as a type of the same width";
  let description = [{
    ```mlir
    %i = tt.bitcast %f : tensor<128xf32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins TT_Type:$src);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure, Elementwise]> {
  let summary = "convert between floating-point types, fp8 included";
  let description = [{
    A narrowing conversion names its rounding mode.

    ```mlir
    %h = tt.fp_to_fp %f, rounding = rtne : tensor<128xf32> -> tensor<128xf8E4M3FN>
    ```
  }];
  let arguments = (ins TT_FloatLike:$src, OptionalAttr<TT_RoundingModeAttr>:$rounding);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_IntToPtrOp : TT_Op<"int_to_ptr", [Pure, Elementwise]> {
  let summary = "turn a 64-bit integer into a pointer";
  let description = [{
    ```mlir
    %p = tt.int_to_ptr %i : i64 -> !tt.ptr<f32>
    ```
  }];
  let arguments = (ins TT_I64Like:$src);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_PtrToIntOp : TT_Op<"ptr_to_int", [Pure, Elementwise]> {
  let summary = "turn a pointer into a 64-bit integer";
  let description = [{
    ```mlir
    %i = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins TT_PtrLike:$src);
  let results = (outs TT_I64Like:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_ClampFOp : TT_Op<"clampf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "clamp floats to [min, max]";
  let description = [{
    With `propagateNan = all` a NaN in any operand gives NaN; with `none`
    NaNs are ignored like `minnum`/`maxnum` do.

    ```mlir
    %c = tt.clampf %x, %lo, %hi, propagateNan = none : tensor<128xf32>
    ```
  }];
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$min, TT_FloatLike:$max,
                       TT_PropagateNanAttr:$propagateNan);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
  }];
}

def TT_PreciseSqrtOp : TT_Op<"precise_sqrt", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded square root";
  let description = [{
    ```mlir
    %s = tt.precise_sqrt %x : tensor<128xf32>
    ```
  }];
  let arguments = (ins TT_FloatLike:$x);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TT_PreciseDivFOp : TT_Op<"precise_divf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded division";
  let description = [{
    ```mlir
    %q = tt.precise_divf %x, %y : tensor<128xf32>
    ```
  }];
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$y);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_MulhiUIOp : TT_Op<"mulhiui", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "the high half of an unsigned integer product";
  let description = [{
    ```mlir
    %h = tt.mulhiui %a, %b : tensor<128xi32>
    ```
  }];
  let arguments = (ins TT_IntLike:$x, TT_IntLike:$y);
  let results = (outs TT_IntLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise", [Elementwise,
    SameOperandsAndResultShape, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call an elementwise function of an external library (libdevice)";
  let description = [{
    ```mlir
    %r = tt.extern_elementwise %x {libname = "", libpath = "", pure = true,
           symbol = "__nv_expf"} : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<TT_Type>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def TT_ElementwiseInlineAsmOp : TT_Op<"elementwise_inline_asm", [Elementwise,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "inline assembly applied element by element";
  let description = [{
    Each `packed_element` elements of the operands are handed to one instance
    of the assembly string.

    ```mlir
    %r = tt.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;"
           {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true}
           %a, %b, %c : tensor<128xi32>, tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<AnyTypeOf<[TT_Type]>>:$args);
  let results = (outs Variadic<TT_Type>:$result);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def TT_AddPtrOp : TT_Op<"addptr", [Pure, Elementwise,
    TT_ResultInferredFrom<"ptr type matches result type", "result", "ptr", "$_self">]> {
  let summary = "advance pointers by a number of elements";
  let description = [{
    `ptr + offset * sizeof(pointee)`, elementwise for tensors.

    ```mlir
    %q = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins TT_PtrLike:$ptr, TT_IntLike:$offset);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TT_AdvanceOp : TT_Op<"advance", [Pure,
    TT_ResultInferredFrom<"ptr type matches result type", "result", "ptr", "$_self">]> {
  let summary = "move a block pointer by a number of elements per dimension";
  let description = [{
    ```mlir
    %q = tt.advance %p, [%c0_i32, %c64_i32] : <tensor<32x64xf32>>
    ```
  }];
  let arguments = (ins TT_Ptr:$ptr, Variadic<I32>:$offsets);
  let results = (outs TT_Ptr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TT_MakeTensorPtrOp : TT_Op<"make_tensor_ptr", [Pure, AttrSizedOperandSegments,
    TT_ResultInferredFrom<"base points to the block element type", "result", "base",
                          "::mlir::tessera::tt::getBlockPointerBase($_self)">]> {
  let summary = "make a block pointer into a strided global tensor";
  let description = [{
    `shape` and `strides` (in elements, i64) describe the whole tensor,
    `offsets` (i32) where the block starts, `order` the dimensions from
    fastest to slowest varying. The block's shape is the result's pointee.

    ```mlir
    %bp = tt.make_tensor_ptr %x, [%M, %N], [%sm, %c1_i64], [%off, %c0_i32]
            {order = array<i32: 1, 0>} : <tensor<32x64xf32>>
    ```
  }];
  let arguments = (ins TT_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets, DenseI32ArrayAttr:$order);
  let results = (outs TT_Ptr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def TT_LoadOp : TT_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TT_TypeInferredFrom<"mask is an i1 tensor of the pointer shape", "ptr", "mask",
                        "::mlir::tessera::tt::getI1SameShape(::mlir::tessera::tt::getPointeeType($_self))">,
    TT_TypeInferredFrom<"other has the loaded type", "ptr", "other",
                        "::mlir::tessera::tt::getPointeeType($_self)">,
    TT_ResultInferredFrom<"result has the loaded type", "ptr", "result",
                          "::mlir::tessera::tt::getPointeeType($_self)">]> {
  let summary = "load from pointers, under an optional mask";
  let description = [{
    Loads through a pointer, a tensor of pointers or a block pointer. Where
    `mask` is false nothing is read and the result holds `other` (undefined
    without `other`). Block-pointer loads check the dimensions listed in
    `boundaryCheck` and fill out-of-bounds elements as `padding` says.

    ```mlir
    %v = tt.load %ptrs, %mask, %zero : tensor<128x!tt.ptr<f32>>
    %w = tt.load %ptrs cacheModifier = cg evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
    %b = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x64xf32>>
    ```
  }];
  let arguments = (ins TT_PtrLike:$ptr,
      Optional<TT_BoolLike>:$mask, Optional<TT_Type>:$other,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      OptionalAttr<TT_PaddingOptionAttr>:$padding,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::tessera::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::tessera::tt::EvictionPolicy::NORMAL">:$evict,
      DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let results = (outs TT_Type:$result);
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$mask, "::mlir::Value":$other,
                   CArg<"::mlir::tessera::tt::CacheModifier", "::mlir::tessera::tt::CacheModifier::NONE">:$cache,
                   CArg<"::mlir::tessera::tt::EvictionPolicy", "::mlir::tessera::tt::EvictionPolicy::NORMAL">:$evict,
                   CArg<"bool", "false">:$isVolatile)>,
  ];
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def TT_StoreOp : TT_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TT_TypeInferredFrom<"value has the pointee type", "ptr", "value",
                        "::mlir::tessera::tt::getPointeeType($_self)">,
    TT_TypeInferredFrom<"mask is an i1 tensor of the pointer shape", "ptr", "mask",
                        "::mlir::tessera::tt::getI1SameShape(::mlir::tessera::tt::getPointeeType($_self))">]> {
  let summary = "store through pointers, under an optional mask";
  let description = [{
    ```mlir
    tt.store %ptrs, %v, %mask : tensor<128x!tt.ptr<f32>>
    tt.store %bp, %t {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<32x64xf32>>
    ```
  }];
  let arguments = (ins TT_PtrLike:$ptr, TT_Type:$value,
      Optional<TT_BoolLike>:$mask,
      DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::tessera::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::tessera::tt::EvictionPolicy::NORMAL">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic read-modify-write";
  let description = [{
    Applies `atomic_rmw_op` with `val` to the memory each pointer names and
    returns the old values; masked-off elements are not touched.

    ```mlir
    %old = tt.atomic_rmw add, relaxed, gpu, %ptrs, %ones, %mask
             : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    ```
  }];
  let arguments = (ins TT_AtomicRMWAttr:$atomic_rmw_op, TT_PtrLike:$ptr, TT_Type:$val,
                       Optional<TT_BoolLike>:$mask, TT_MemSemanticAttr:$sem,
                       TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

def TT_AtomicCASOp : TT_Op<"atomic_cas", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic compare-and-swap";
  let description = [{
    Where memory equals `cmp`, writes `val`; returns the old values.

    ```mlir
    %old = tt.atomic_cas acq_rel, gpu, %p, %c0_i32, %c1_i32 : (!tt.ptr<i32>, i32, i32) -> i32
    ```
  }];
  let arguments = (ins TT_PtrLike:$ptr, TT_Type:$cmp, TT_Type:$val,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def TT_MakeTensorDescOp : TT_Op<"make_tensor_descriptor", [Pure, AttrSizedOperandSegments]> {
  let summary = "describe a strided global tensor accessed by blocks";
  let description = [{
    ```mlir
    %d = tt.make_tensor_descriptor %base, [%M, %N], [%sm, %c1_i64]
           : !tt.ptr<f16>, !tt.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins TT_Ptr:$base, Variadic<I32>:$shape, Variadic<I64>:$strides);
  let results = (outs TT_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorLoadOp : TT_Op<"descriptor_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load a block through a tensor descriptor";
  let description = [{
    ```mlir
    %t = tt.descriptor_load %d[%i, %j] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    ```
  }];
  let arguments = (ins TT_TensorDesc:$desc, Variadic<I32>:$indices,
      DefaultValuedAttr<TT_CacheModifierAttr, "::mlir::tessera::tt::CacheModifier::NONE">:$cache,
      DefaultValuedAttr<TT_EvictionPolicyAttr, "::mlir::tessera::tt::EvictionPolicy::NORMAL">:$evict);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]`
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorStoreOp : TT_Op<"descriptor_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store a block through a tensor descriptor";
  let description = [{
    ```mlir
    tt.descriptor_store %d[%i, %j], %t : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
    ```
  }];
  let arguments = (ins TT_TensorDesc:$desc, Variadic<I32>:$indices, TT_Tensor:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra, reductions and data movement inside a tile
//===----------------------------------------------------------------------===//

def TT_DotOp : TT_Op<"dot", [Pure, TT_DotOpInterface,
    TT_ResultInferredFrom<"the accumulator has the result type", "d", "c", "$_self">]> {
  let summary = "matrix product with accumulation, d = a * b + c";
  let description = [{
    `a` is M x K, `b` is K x N, `c` and the result are M x N (a leading batch
    dimension may be added to all four). `inputPrecision` says how fp32
    operands are multiplied; `maxNumImpreciseAcc` bounds fp8 accumulation in
    lower precision.

    ```mlir
    %d = tt.dot %a, %b, %c, inputPrecision = tf32
           : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins TT_FpIntTensor:$a, TT_FpIntTensor:$b, TT_FpIntTensor:$c,
      DefaultValuedAttr<TT_InputPrecisionAttr, "::mlir::tessera::tt::InputPrecision::IEEE">:$inputPrecision,
      DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs TT_FpIntTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TT_ReduceOp : TT_Op<"reduce", [Pure, RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "reduce tensors along an axis with a combiner region";
  let description = [{
    The combiner takes two sets of scalars (an accumulated one and a new one,
    one scalar per operand) and yields one set with `tt.reduce.return`. The
    reduction order is unspecified, so the combiner must be associative and
    commutative. The results drop `axis`; a rank-1 reduction gives scalars.
    Printed in generic form, as Triton does.

    ```mlir
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<128xf32>) -> f32
    ```
  }];
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<TT_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The element types of the operands, in order.
    ::llvm::SmallVector<::mlir::Type> getElementTypes();
    unsigned getNumOperands() { return getSrcs().size(); }
  }];
}

def TT_ReduceReturnOp : TT_Op<"reduce.return", [HasParent<"ReduceOp">, Pure,
    Terminator, ReturnLike]> {
  let summary = "yield the combined values of a tt.reduce combiner";
  let description = [{
    ```mlir
    tt.reduce.return %r : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_ScanOp : TT_Op<"scan", [Pure, RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "inclusive prefix scan along an axis with a combiner region";
  let description = [{
    Like `tt.reduce`, but every position receives the combination of all the
    elements up to it (from the end when `reverse` is set). The combiner must
    be associative. Printed in generic form, as Triton does.

    ```mlir
    %c = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tt.scan.return %r : i32
    }) : (tensor<256xi32>) -> tensor<256xi32>
    ```
  }];
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<TT_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::Type> getElementTypes();
    unsigned getNumOperands() { return getSrcs().size(); }
  }];
}

def TT_ScanReturnOp : TT_Op<"scan.return", [HasParent<"ScanOp">, Pure,
    Terminator, ReturnLike]> {
  let summary = "yield the combined values of a tt.scan combiner";
  let description = [{
    ```mlir
    tt.scan.return %r : i32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_HistogramOp : TT_Op<"histogram", [Pure,
    TT_TypeInferredFrom<"the mask has the source shape", "src", "mask",
                        "::mlir::tessera::tt::getI1SameShape($_self)">]> {
  let summary = "count the occurrences of each value in [0, bins)";
  let description = [{
    The number of bins is the result's size; values outside the range are
    not counted, nor are masked-off elements.

    ```mlir
    %h = tt.histogram %x, %mask : tensor<1024xi32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[TT_Int]>:$src, Optional<TT_BoolLike>:$mask);
  let results = (outs RankedTensorOf<[TT_Int]>:$result);
  let assemblyFormat = "$src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_GatherOp : TT_Op<"gather", [Pure]> {
  let summary = "pick elements of a tensor by index along an axis";
  let description = [{
    `result[i...] = src[i... with i[axis] replaced by indices[i...]]`; the
    result has the indices' shape and the source's element type.

    ```mlir
    %g = tt.gather %src[%idx] {axis = 1 : i32}
           : (tensor<16x32xf32>, tensor<16x8xi32>) -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins TT_Tensor:$src, RankedTensorOf<[TT_Int]>:$indices,
                       I32Attr:$axis, UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def TT_PrintOp : TT_Op<"print", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "print values from the device";
  let description = [{
    Prints `prefix` and each argument, per element for tensors. `isSigned`
    holds one flag per argument.

    ```mlir
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<AnyTypeOf<[TT_Type]>>:$args,
                       DenseI32ArrayAttr:$isSigned);
  let assemblyFormat = "$prefix attr-dict (`:` $args^ `:` type($args))?";
  let hasVerifier = 1;
}

def TT_AssertOp : TT_Op<"assert", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "stop the kernel with a message where a condition is false";
  let description = [{
    ```mlir
    tt.assert %ok, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I1, RankedTensorOf<[I1]>]>:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

#endif // TESSERA_DIALECT_TT_IR_TTOPS_TD
