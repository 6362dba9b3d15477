// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// One case per verifier diagnostic of the tt dialect (lib/Dialect/TT/IR/Ops.cpp
// and the type verifiers in lib/Dialect/TT/IR/Dialect.cpp). A few verifier
// messages cannot be reached because a generic check (ODS constraints,
// FunctionOpInterface, the Elementwise trait, SizedRegion<1>) rejects the
// same input first; those cases check the earlier message and say so.

//===----------------------------------------------------------------------===//
// Types: PointerType::verify, TensorDescType::verify
//===----------------------------------------------------------------------===//

// expected-error @+1 {{pointer address space must be non-negative, but is -1}}
tt.func @f(%p: !tt.ptr<f32, -1>) {
  tt.return
}

// -----

// expected-error @+1 {{a block pointer must point to a tensor of integers or floats, but points to 'tensor<4x!tt.ptr<f32>>'}}
tt.func @f(%p: !tt.ptr<tensor<4x!tt.ptr<f32>>>) {
  tt.return
}

// -----

// expected-error @+1 {{a pointer must point to an integer, a float, a pointer or a ranked tensor, but points to 'vector<4xf32>'}}
tt.func @f(%p: !tt.ptr<vector<4xf32>>) {
  tt.return
}

// -----

// expected-error @+1 {{a pointer must point to an integer, a float, a pointer or a ranked tensor, but points to 'index'}}
tt.func @f(%p: !tt.ptr<index>) {
  tt.return
}

// -----

// expected-error @+1 {{a tensor descriptor's block must hold integers or floats, but holds '!tt.ptr<f32>'}}
tt.func @f(%d: !tt.tensordesc<tensor<16x!tt.ptr<f32>>>) {
  tt.return
}

// -----

// expected-error @+1 {{a tensor descriptor's block must have rank 1 to 5, but has rank 0}}
tt.func @f(%d: !tt.tensordesc<tensor<f16>>) {
  tt.return
}

// -----

// expected-error @+1 {{a tensor descriptor's block must have rank 1 to 5, but has rank 6}}
tt.func @f(%d: !tt.tensordesc<tensor<1x1x1x1x2x2xf16>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// verifyTensorSizes (the TensorSizeIsBounded trait of every tt op)
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%x: f32) {
  // expected-error @+1 {{'tt.splat' op result #0 of type 'tensor<2048x1024xf32>' has more than the 1048576 elements a tensor may hold}}
  %t = tt.splat %x : f32 -> tensor<2048x1024xf32>
  tt.return
}

// -----

// The signature is checked too (its arguments are not operands of any op).
// expected-error @+1 {{'tt.func' op argument #0 of type 'tensor<99999999999x99999999999xf32>' has more than the 1048576 elements a tensor may hold}}
tt.func @f(%x: tensor<99999999999x99999999999xf32>) {
  tt.return
}

// -----

// expected-error @+1 {{'tt.func' op function result #0 of type 'tensor<2048x1024xf32>' has more than the 1048576 elements a tensor may hold}}
tt.func private @g() -> tensor<2048x1024xf32>

// -----

tt.func @f(%p: !tt.ptr<f32>) {
  %x = tt.load %p : !tt.ptr<f32>
  // expected-error @+1 {{'tt.splat' op result #0 of type 'tensor<99999999999x99999999999xf32>' has more than the 1048576 elements a tensor may hold}}
  %t = tt.splat %x : f32 -> tensor<99999999999x99999999999xf32>
  tt.return
}

// -----

tt.func @f(%x: f32) {
  // expected-error @+1 {{'tt.splat' op result #0 must have a static shape, but is 'tensor<?xf32>'}}
  %t = tt.splat %x : f32 -> tensor<?xf32>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.func, tt.call, tt.return
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tt.func' op expected 'noinline' to be a bool attribute, but it is 1 : i32}}
tt.func @f() attributes {noinline = 1 : i32} {
  tt.return
}

// -----

// FuncOp::verify's "expected the entry block to have N arguments" is not
// reachable: FunctionOpInterface checks the count first.
// expected-error @+1 {{'tt.func' op entry block must have 1 arguments to match function signature}}
"tt.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({
^bb0:
  "tt.return"() : () -> ()
}) : () -> ()

// -----

// FuncOp::verify's "entry block argument #i has type" is not reachable:
// FunctionOpInterface checks the types first.
// expected-error @+1 {{'tt.func' op type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
"tt.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({
^bb0(%a: f32):
  "tt.return"() : () -> ()
}) : () -> ()

// -----

// CallOp::verifySymbolUses's "requires a 'callee' symbol reference attribute"
// is not reachable: the ODS constraint on 'callee' fails first.
tt.func @f() {
  // expected-error @+1 {{'tt.call' op requires attribute 'callee'}}
  "tt.call"() : () -> ()
  tt.return
}

// -----

tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.call' op 'missing' does not name a tt.func}}
  tt.call @missing(%x) : (i32) -> ()
  tt.return
}

// -----

tt.func private @g(%x: i32, %y: i32)
tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.call' op expected 2 operands for @g, but got 1}}
  tt.call @g(%x) : (i32) -> ()
  tt.return
}

// -----

tt.func private @g(%x: i32)
tt.func @f(%x: f32) {
  // expected-error @+1 {{'tt.call' op operand #0 has type 'f32', but @g expects 'i32'}}
  tt.call @g(%x) : (f32) -> ()
  tt.return
}

// -----

tt.func private @g(%x: i32) -> i32
tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.call' op expected 1 results from @g, but the call has 0}}
  tt.call @g(%x) : (i32) -> ()
  tt.return
}

// -----

tt.func private @g(%x: i32) -> i32
tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.call' op result #0 has type 'f32', but @g returns 'i32'}}
  %r = tt.call @g(%x) : (i32) -> f32
  tt.return
}

// -----

tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.return' op returns 1 values, but the enclosing function returns 0}}
  tt.return %x : i32
}

// -----

tt.func @f(%x: i32) -> f32 {
  // expected-error @+1 {{'tt.return' op operand #0 has type 'i32', but the enclosing function returns 'f32'}}
  tt.return %x : i32
}

//===----------------------------------------------------------------------===//
// tt.make_range
//===----------------------------------------------------------------------===//

// -----

tt.func @f() {
  // expected-error @+1 {{'tt.make_range' op expected a 1-D result, but it has rank 2}}
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<4x4xi32>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'tt.make_range' op expected start < end, but got start = 8 and end = 8}}
  %r = tt.make_range {end = 8 : i32, start = 8 : i32} : tensor<1xi32>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'tt.make_range' op expected the result to have end - start = 128 elements, but it has 64}}
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<64xi32>
  tt.return
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.splat' op expected a scalar source, but got 'tensor<4xf32>'}}
  %t = tt.splat %x : tensor<4xf32> -> tensor<4x4xf32>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<16xf16>>) {
  // expected-error @+1 {{'tt.splat' op expected a scalar source, but got '!tt.tensordesc<tensor<16xf16>>'}}
  %t = tt.splat %d : !tt.tensordesc<tensor<16xf16>> -> tensor<4xf16>
  tt.return
}

// -----

tt.func @f(%x: i32) {
  // expected-error @+1 {{'tt.splat' op expected the result element type to be the source type 'i32', but it is 'f32'}}
  %t = tt.splat %x : i32 -> tensor<128xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x1xi32>) {
  // expected-error @+1 {{'tt.broadcast' op expected the result element type to be 'i32', but it is 'i64'}}
  %b = tt.broadcast %x : tensor<32x1xi32> -> tensor<32x64xi64>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x1xi32>) {
  // expected-error @+1 {{'tt.broadcast' op expected the result to have the source's rank 2, but it has rank 3}}
  %b = tt.broadcast %x : tensor<32x1xi32> -> tensor<2x32x64xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x2xi32>) {
  // expected-error @+1 {{'tt.broadcast' op cannot broadcast dimension 1 of size 2 to 64 (source shape [32, 2], result shape [32, 64]); only size-1 dimensions broadcast}}
  %b = tt.broadcast %x : tensor<32x2xi32> -> tensor<32x64xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32xi32>) {
  // expected-error @+1 {{'tt.expand_dims' op expected axis in [0, 1], but got 2}}
  %e = tt.expand_dims %x {axis = 2 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  tt.return
}

// -----

// A negative axis is reported as the signed value it was written as.
tt.func @f(%x: tensor<32xi32>) {
  // expected-error @+1 {{'tt.expand_dims' op expected axis in [0, 1], but got -1}}
  %e = tt.expand_dims %x {axis = -1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32xi32>) {
  // expected-error @+1 {{'tt.expand_dims' op expected result shape [1, 32], but got [32, 1]}}
  %e = tt.expand_dims %x {axis = 0 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32xi32>) {
  // expected-error @+1 {{'tt.expand_dims' op expected the result element type to be 'i32', but it is 'i64'}}
  %e = tt.expand_dims %x {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi64>
  tt.return
}

// -----

tt.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tt.reshape' op expected the result element type to be 'f32', but it is 'f16'}}
  %r = tt.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  tt.return
}

// -----

tt.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tt.reshape' op expected the result to have the source's 32 elements, but shape [64] has 64}}
  %r = tt.reshape %x : tensor<4x8xf32> -> tensor<64xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.trans' op expected order to have 2 entries (the rank), but it has 3}}
  %t = tt.trans %x {order = array<i32: 2, 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.trans' op expected order entries in [0, 2), but found 2}}
  %t = tt.trans %x {order = array<i32: 2, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.trans' op expected order to be a permutation, but 0 appears twice}}
  %t = tt.trans %x {order = array<i32: 0, 0>} : tensor<32x64xf32> -> tensor<32x32xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.trans' op expected the result element type to be 'f32', but it is 'f16'}}
  %t = tt.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf16>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.trans' op expected result shape [64, 32] (the source shape permuted by the order), but got [32, 64]}}
  %t = tt.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<32x64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<32xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tt.join' op expected operands of the same type, but got 'tensor<32xf32>' and 'tensor<16xf32>'}}
  %j = "tt.join"(%a, %b) : (tensor<32xf32>, tensor<16xf32>) -> tensor<32x2xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tt.join' op expected a result of shape [32, 2] and element type 'f32', but got 'tensor<2x32xf32>'}}
  %j = tt.join %a, %b : tensor<32xf32> -> tensor<2x32xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x4xf32>) {
  // expected-error @+1 {{'tt.split' op expected a source whose last dimension is 2, but its shape is [32, 4]}}
  %a, %b = tt.split %x : tensor<32x4xf32> -> tensor<32xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<32x2xf32>) {
  // expected-error @+1 {{'tt.split' op expected results of shape [32] and element type 'f32', but got 'tensor<16xf32>'}}
  %a, %b = tt.split %x : tensor<32x2xf32> -> tensor<16xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<32xf32>, %b: tensor<32xf16>) {
  // expected-error @+1 {{'tt.cat' op expected operands of the same type, but got 'tensor<32xf32>' and 'tensor<32xf16>'}}
  %c = "tt.cat"(%a, %b) : (tensor<32xf32>, tensor<32xf16>) -> tensor<64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tt.cat' op expected a result of rank 1 and element type 'f32', but got 'tensor<2x32xf32>'}}
  %c = tt.cat %a, %b : tensor<32xf32> -> tensor<2x32xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tt.cat' op expected the result to hold 64 elements (both operands), but it holds 32}}
  %c = tt.cat %a, %b : tensor<32xf32> -> tensor<32xf32>
  tt.return
}

//===----------------------------------------------------------------------===//
// Casts and elementwise operations
//===----------------------------------------------------------------------===//

// -----

// BitcastOp::verify's shape message is not reachable: the Elementwise trait
// rejects a shape change first (likewise for fp_to_fp, int_to_ptr and
// ptr_to_int, whose shape messages are not reachable either).
tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.bitcast' op all non-scalar operands/results must have the same shape and base type}}
  %i = tt.bitcast %x : tensor<128xf32> -> tensor<64xi32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<4xf32>>) {
  // expected-error @+1 {{'tt.bitcast' op cannot bitcast '!tt.ptr<tensor<4xf32>>' to 'i64'}}
  %i = tt.bitcast %p : !tt.ptr<tensor<4xf32>> -> i64
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.bitcast' op expected element types of equal width, but 'f32' has 32 bits and 'i16' has 16}}
  %i = tt.bitcast %x : tensor<128xf32> -> tensor<128xi16>
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.fp_to_fp' op all non-scalar operands/results must have the same shape and base type}}
  %h = tt.fp_to_fp %x : tensor<128xf32> -> tensor<64xf16>
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.fp_to_fp' op a narrowing conversion from 'f32' to 'f8E4M3FN' needs a rounding mode (rtne or rtz)}}
  %h = tt.fp_to_fp %x : tensor<128xf32> -> tensor<128xf8E4M3FN>
  tt.return
}

// -----

tt.func @f(%x: tensor<128xi64>) {
  // expected-error @+1 {{'tt.int_to_ptr' op if an operand is non-scalar, then there must be at least one non-scalar result}}
  %p = tt.int_to_ptr %x : tensor<128xi64> -> !tt.ptr<f32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{'tt.ptr_to_int' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %i = tt.ptr_to_int %p : !tt.ptr<f32> -> tensor<4xi64>
  tt.return
}

// -----

tt.func @f(%a: i32) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op expected packed_element >= 1, but got 0}}
  %r = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 0 : i32, pure = true} %a : i32 -> i32
  tt.return
}

// -----

tt.func @f(%a: i32) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op expected at least one result}}
  "tt.elementwise_inline_asm"(%a) <{asm_string = "", constraints = "r", packed_element = 1 : i32, pure = false}> : (i32) -> ()
  tt.return
}

// -----

tt.func @f(%a: tensor<128xi32>, %b: i32) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op expected all operands and results to have the first result's shape [128], but found 'i32'}}
  %r = tt.elementwise_inline_asm "add.s32 $0, $1, $2;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %a, %b : tensor<128xi32>, i32 -> tensor<128xi32>
  tt.return
}

// -----

tt.func @f(%a: tensor<6xi32>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op the 6 elements do not divide into packs of 4}}
  %r = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %a : tensor<6xi32> -> tensor<6xi32>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.addptr, tt.advance, tt.make_tensor_ptr
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%p: !tt.ptr<tensor<4xf32>>, %o: i32) {
  // expected-error @+1 {{'tt.addptr' op cannot offset a block pointer; use tt.advance}}
  %q = tt.addptr %p, %o : !tt.ptr<tensor<4xf32>>, i32
  tt.return
}

// -----

// With tensor offsets of another shape the Elementwise trait answers first.
tt.func @f(%p: tensor<128x!tt.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'tt.addptr' op all non-scalar operands/results must have the same shape and base type}}
  %q = tt.addptr %p, %o : tensor<128x!tt.ptr<f32>>, tensor<64xi32>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'tt.addptr' op expected the offset to match the pointer, which has shape [128], but it has no shape (a scalar)}}
  %q = tt.addptr %p, %o : tensor<128x!tt.ptr<f32>>, i32
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'tt.addptr' op expected the result type to be the pointer type '!tt.ptr<f32>', but it is '!tt.ptr<f16>'}}
  %q = "tt.addptr"(%p, %o) : (!tt.ptr<f32>, i32) -> !tt.ptr<f16>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'tt.advance' op expected a block pointer, but got '!tt.ptr<f32>'}}
  %q = tt.advance %p, [%o] : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>, %o: i32) {
  // expected-error @+1 {{'tt.advance' op expected 2 offsets (the block's rank), but got 1}}
  %q = tt.advance %p, [%o] : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>, %o: i32) {
  // expected-error @+1 {{'tt.advance' op expected the result type '!tt.ptr<tensor<32x64xf32>>', but it is '!tt.ptr<tensor<64x32xf32>>'}}
  %q = "tt.advance"(%p, %o, %o) : (!tt.ptr<tensor<32x64xf32>>, i32, i32) -> !tt.ptr<tensor<64x32xf32>>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected the result to be a block pointer, but it is '!tt.ptr<f32>'}}
  %bp = tt.make_tensor_ptr %x, [%m], [%m], [%o] {order = array<i32: 0>} : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f16>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected the block element type to be the base pointee 'f16', but it is 'f32'}}
  %bp = "tt.make_tensor_ptr"(%x, %m, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>}> : (!tt.ptr<f16>, i64, i64, i32) -> !tt.ptr<tensor<32xf32>>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected 2 shape, stride and offset values (the block's rank), but got 1, 1 and 1}}
  %bp = tt.make_tensor_ptr %x, [%m], [%m], [%o] {order = array<i32: 1, 0>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected order to have 2 entries (the rank), but it has 1}}
  %bp = tt.make_tensor_ptr %x, [%m, %m], [%m, %m], [%o, %o] {order = array<i32: 0>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected order entries in [0, 2), but found -1}}
  %bp = tt.make_tensor_ptr %x, [%m, %m], [%m, %m], [%o, %o] {order = array<i32: 1, -1>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%x: !tt.ptr<f32>, %m: i64, %o: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op expected order to be a permutation, but 1 appears twice}}
  %bp = tt.make_tensor_ptr %x, [%m, %m], [%m, %m], [%o, %o] {order = array<i32: 1, 1>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.load, tt.store (verifyLoadStore, verifyBoundaryCheck)
//===----------------------------------------------------------------------===//

// -----

// The custom form infers the mask type from the pointer, so a mask of
// another shape is a parser error at the use.
// expected-note @+1 {{prior use here}}
tt.func @f(%p: tensor<4x!tt.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<4xi1>' vs 'tensor<8xi1>'}}
  %v = tt.load %p, %m : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tt.load' op expected the mask to match the pointer, which has shape [4], but it has shape [8]}}
  %v = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tt.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<f32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tt.load' op expected the mask to match the pointer, which has no shape (a scalar), but it has shape [8]}}
  %v = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tt.ptr<f32>, tensor<8xi1>) -> f32
  tt.return
}

// -----

// verifyLoadStore's "expected a pointer, a tensor of pointers or a block
// pointer" is not reachable: the ODS type constraint on 'ptr' fails first.
tt.func @f(%p: tensor<4xi64>) {
  // expected-error @+1 {{'tt.load' op operand #0 must be}}
  %v = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xi64>) -> tensor<4xi64>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<tensor<8xf32>>>) {
  // expected-error @+1 {{'tt.load' op tensors of block pointers are not supported}}
  %v = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tt.ptr<tensor<8xf32>>>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>) {
  // expected-error @+1 {{'tt.load' op expected the result to be 'tensor<4xf32>' (what the pointer addresses), but it is 'tensor<4xf16>'}}
  %v = "tt.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf16>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'tt.store' op expected the stored value to be 'tensor<4xf32>' (what the pointer addresses), but it is 'tensor<8xf32>'}}
  "tt.store"(%p, %v) : (tensor<4x!tt.ptr<f32>>, tensor<8xf32>) -> ()
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>, %m: tensor<32x64xi1>) {
  // expected-error @+1 {{'tt.load' op a block-pointer access takes boundaryCheck, not a mask}}
  %v = tt.load %p, %m : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>) {
  // expected-error @+1 {{'tt.load' op boundaryCheck applies only to block pointers, but the pointer is of type 'tensor<4x!tt.ptr<f32>>'}}
  %v = tt.load %p {boundaryCheck = array<i32: 0>} : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>) {
  // expected-error @+1 {{'tt.load' op boundaryCheck dimension 2 is out of range for a block of rank 2}}
  %v = tt.load %p {boundaryCheck = array<i32: 0, 2>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>, %v: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.store' op boundaryCheck lists dimension 1 twice}}
  tt.store %p, %v {boundaryCheck = array<i32: 1, 1>} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{'tt.load' op 'other' is only meaningful with a mask}}
  %v = "tt.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @f(%p: tensor<4x!tt.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{'tt.load' op expected 'other' to be 'tensor<4xf32>', but it is 'tensor<4xf16>'}}
  %v = "tt.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tt.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<32x64xf32>>) {
  // expected-error @+1 {{'tt.load' op padding needs a boundaryCheck}}
  %v = tt.load %p {padding = 1 : i32} : !tt.ptr<tensor<32x64xf32>>
  tt.return
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%p: !tt.ptr<tensor<4xf32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op atomics do not take block pointers}}
  %o = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (!tt.ptr<tensor<4xf32>>, tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<i32>>, %v: tensor<128xi64>) {
  // expected-error @+1 {{'tt.atomic_rmw' op expected the value to be 'tensor<128xi32>' (what the pointer addresses), but it is 'tensor<128xi64>'}}
  %o = tt.atomic_rmw add, relaxed, gpu, %p, %v : (tensor<128x!tt.ptr<i32>>, tensor<128xi64>) -> tensor<128xi64>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<i32>>, %v: tensor<128xi32>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'tt.atomic_rmw' op expected the mask to match the pointer, which has shape [128], but it has shape [64]}}
  %o = tt.atomic_rmw add, relaxed, gpu, %p, %v, %m : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<64xi1>) -> tensor<128xi32>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<i32>>, %v: tensor<128xi32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op expected the result to be 'tensor<128xi32>', but it is 'tensor<64xi32>'}}
  %o = tt.atomic_rmw add, relaxed, gpu, %p, %v : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>) -> tensor<64xi32>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<i32>>, %v: tensor<128xi32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op atomic 'fadd' needs a floating-point element type, but got 'i32'}}
  %o = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>) -> tensor<128xi32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tt.atomic_rmw' op atomic 'and' needs an integer element type, but got 'f32'}}
  %o = tt.atomic_rmw and, acq_rel, cta, %p, %v : (!tt.ptr<f32>, f32) -> f32
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<!tt.ptr<f32>>, %v: !tt.ptr<f32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op atomic 'exch' needs an integer or floating-point element type, but got '!tt.ptr<f32>'}}
  %o = tt.atomic_rmw exch, relaxed, sys, %p, %v : (!tt.ptr<!tt.ptr<f32>>, !tt.ptr<f32>) -> !tt.ptr<f32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tt.atomic_rmw' op atomics need elements of at least 16 bits, but 'i8' has 8}}
  %o = tt.atomic_rmw add, relaxed, gpu, %p, %v : (!tt.ptr<i8>, i8) -> i8
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<tensor<4xi32>>, %c: tensor<4xi32>) {
  // expected-error @+1 {{'tt.atomic_cas' op atomics do not take block pointers}}
  %o = tt.atomic_cas acq_rel, gpu, %p, %c, %c : (!tt.ptr<tensor<4xi32>>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{'tt.atomic_cas' op expected the comparand to be 'i32' (what the pointer addresses), but it is 'i64'}}
  %o = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i32>, i64, i32) -> i32
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<i32>, %c: i32, %v: f32) {
  // expected-error @+1 {{'tt.atomic_cas' op expected the value to be 'i32' (what the pointer addresses), but it is 'f32'}}
  %o = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i32>, i32, f32) -> i32
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<i32>, %c: i32) {
  // expected-error @+1 {{'tt.atomic_cas' op expected the result to be 'i32', but it is 'i64'}}
  %o = tt.atomic_cas acq_rel, gpu, %p, %c, %c : (!tt.ptr<i32>, i32, i32) -> i64
  tt.return
}

// -----

tt.func @f(%p: !tt.ptr<i8>, %c: i8) {
  // expected-error @+1 {{'tt.atomic_cas' op atomics need elements of at least 16 bits, but 'i8' has 8}}
  %o = tt.atomic_cas relaxed, gpu, %p, %c, %c : (!tt.ptr<i8>, i8, i8) -> i8
  tt.return
}

//===----------------------------------------------------------------------===//
// Tensor descriptors (verifyDescriptorAccess)
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%base: !tt.ptr<f32>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op expected the block element type to be the base pointee 'f32', but it is 'f16'}}
  %d = tt.make_tensor_descriptor %base, [%m, %m], [%s, %s] : !tt.ptr<f32>, !tt.tensordesc<tensor<64x64xf16>>
  tt.return
}

// -----

tt.func @f(%base: !tt.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op expected 2 shape and stride values (the block's rank), but got 1 and 1}}
  %d = tt.make_tensor_descriptor %base, [%m], [%s] : !tt.ptr<f16>, !tt.tensordesc<tensor<64x64xf16>>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op expected 2 indices (the block's rank), but got 1}}
  %t = tt.descriptor_load %d[%i] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op expected the result element type to be 'f16', but it is 'f32'}}
  %t = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf32>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op expected the result to have the block shape [64, 64], but it has [32, 64]}}
  %t = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<32x64xf16>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32, %t: tensor<64x64xf16>) {
  // expected-error @+1 {{'tt.descriptor_store' op expected 2 indices (the block's rank), but got 3}}
  tt.descriptor_store %d[%i, %i, %i], %t : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<64x64xf16>>, %i: i32, %t: tensor<64x64xbf16>) {
  // expected-error @+1 {{'tt.descriptor_store' op expected the stored value element type to be 'f16', but it is 'bf16'}}
  tt.descriptor_store %d[%i, %i], %t : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xbf16>
  tt.return
}

// -----

tt.func @f(%d: !tt.tensordesc<tensor<2x64xf16>>, %i: i32, %t: tensor<64xf16>) {
  // expected-error @+1 {{'tt.descriptor_store' op expected the stored value to have the block shape [2, 64], but it has [64]}}
  tt.descriptor_store %d[%i, %i], %t : !tt.tensordesc<tensor<2x64xf16>>, tensor<64xf16>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.dot
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%a: tensor<64xf16>, %c: tensor<64xf32>) {
  // expected-error @+1 {{'tt.dot' op expected operands of rank 2 (or 3 with a batch dimension), but a has rank 1}}
  %d = tt.dot %a, %a, %c : tensor<64xf16> * tensor<64xf16> -> tensor<64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<64x32xf16>, %b: tensor<2x32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tt.dot' op expected a, b and c of the same rank, but they have ranks 2, 3 and 2}}
  %d = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<2x32x64xf16> -> tensor<64x64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tt.dot' op expected the result to have the accumulator type 'tensor<64x64xf32>', but it is 'tensor<64x64xf16>'}}
  %d = "tt.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf16>
  tt.return
}

// -----

tt.func @f(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tt.dot' op expected the K dimensions to match, but a is [64, 32] (K = 32) and b is [16, 64] (K = 16)}}
  %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<32x64xf32>) {
  // expected-error @+1 {{'tt.dot' op expected the accumulator shape to be [M, N] = [64, 64], but it is [32, 64]}}
  %d = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<32x64xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op expected equal batch dimensions, but got 2, 4 and 2}}
  %d = tt.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<16x16xi8>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op expected a and b both integer or both floating-point, but got 'i8' and 'f16'}}
  %d = tt.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xf16> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op expected an accumulator of the operands' kind (integer), but it is 'f32'}}
  %d = tt.dot %a, %a, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op expected a and b of the same element type, but got 'f16' and 'bf16'}}
  %d = tt.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.reduce, tt.scan (verifyCombineOperands, verifyCombiner)
//===----------------------------------------------------------------------===//

// -----

tt.func @f() {
  // expected-error @+1 {{'tt.reduce' op expected at least one operand}}
  "tt.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    "tt.reduce.return"() : () -> ()
  }) : () -> ()
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tt.reduce' op expected all operands to have shape [128], but one has [64]}}
  %s:2 = "tt.reduce"(%x, %y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    tt.reduce.return %a, %b : f32, i32
  }) : (tensor<128xf32>, tensor<64xi32>) -> (f32, i32)
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected axis in [0, 1), but got 1}}
  %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected 1 results (one per operand), but got 2}}
  %s:2 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<128xf32>) -> (f32, f32)
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected result #0 to be the scalar 'f32', but it is 'tensor<1xf32>'}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<128xf32>) -> tensor<1xf32>
  tt.return
}

// -----

tt.func @f(%x: tensor<16x128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected result #0 to have shape [16] and element type 'f32', but it is 'tensor<128xf32>'}}
  %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<16x128xf32>) -> tensor<128xf32>
  tt.return
}

// -----

// verifyCombiner's "expected a combiner region with one block" is not
// reachable: the SizedRegion<1> constraint fails first.
tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op region #0 ('combineOp') failed to verify constraint: region with 1 blocks}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected the combiner to take 2 arguments (two per operand, 1 operand), but it takes 3}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected combiner argument #1 to be 'f32', but it is 'f16'}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f16):
    tt.reduce.return %a : f32
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected the combiner to end with 'tt.reduce.return'}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    llvm.unreachable
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected the combiner to return 1 value, but it returns 2}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tt.reduce.return %a, %b : f32, f32
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>, %y: tensor<128xi32>) {
  // expected-error @+1 {{'tt.reduce' op expected the combiner to return 2 values, but it returns 1}}
  %s:2 = "tt.reduce"(%x, %y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    tt.reduce.return %a : f32
  }) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
  tt.return
}

// -----

tt.func @f(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tt.reduce' op expected combiner result #0 to be 'f32', but it is 'f64'}}
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.extf %a : f32 to f64
    tt.reduce.return %r : f64
  }) : (tensor<128xf32>) -> f32
  tt.return
}

// -----

// A negative axis is reported as its unsigned 32-bit value.
tt.func @f(%x: tensor<256xi32>) {
  // expected-error @+1 {{'tt.scan' op expected axis in [0, 1), but got -1}}
  %c = "tt.scan"(%x) <{axis = -1 : i32, reverse = false}> ({
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tt.scan.return %r : i32
  }) : (tensor<256xi32>) -> tensor<256xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<256xi32>) {
  // expected-error @+1 {{'tt.scan' op expected 1 results (one per operand), but got 0}}
  "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tt.scan.return %r : i32
  }) : (tensor<256xi32>) -> ()
  tt.return
}

// -----

tt.func @f(%x: tensor<256xi32>) {
  // expected-error @+1 {{'tt.scan' op expected result #0 to be 'tensor<256xi32>', but it is 'tensor<128xi32>'}}
  %c = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tt.scan.return %r : i32
  }) : (tensor<256xi32>) -> tensor<128xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<256xi32>) {
  // expected-error @+1 {{'tt.scan' op expected the combiner to take 2 arguments (two per operand, 1 operand), but it takes 1}}
  %c = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: i32):
    tt.scan.return %a : i32
  }) : (tensor<256xi32>) -> tensor<256xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<256xi32>) {
  // expected-error @+1 {{'tt.scan' op expected the combiner to end with 'tt.scan.return'}}
  %c = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: i32, %b: i32):
    llvm.unreachable
  }) : (tensor<256xi32>) -> tensor<256xi32>
  tt.return
}

//===----------------------------------------------------------------------===//
// tt.histogram, tt.gather, tt.print
//===----------------------------------------------------------------------===//

// -----

tt.func @f(%x: tensor<32x32xi32>) {
  // expected-error @+1 {{'tt.histogram' op expected 1-D source and result, but they have ranks 2 and 1}}
  %h = tt.histogram %x : tensor<32x32xi32> -> tensor<64xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<1024xi32>, %m: tensor<512xi1>) {
  // expected-error @+1 {{'tt.histogram' op expected the mask to match the source, which has shape [1024], but it has shape [512]}}
  %h = "tt.histogram"(%x, %m) : (tensor<1024xi32>, tensor<512xi1>) -> tensor<64xi32>
  tt.return
}

// -----

tt.func @f(%src: tensor<16x32xf32>, %idx: tensor<16xi32>) {
  // expected-error @+1 {{'tt.gather' op expected indices of the source's rank 2, but they have rank 1}}
  %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x32xf32>, tensor<16xi32>) -> tensor<16xf32>
  tt.return
}

// -----

tt.func @f(%src: tensor<16x32xf32>, %idx: tensor<16x8xi32>) {
  // expected-error @+1 {{'tt.gather' op expected axis in [0, 2), but got 2}}
  %g = tt.gather %src[%idx] {axis = 2 : i32} : (tensor<16x32xf32>, tensor<16x8xi32>) -> tensor<16x8xf32>
  tt.return
}

// -----

tt.func @f(%src: tensor<16x32xf32>, %idx: tensor<8x8xi32>) {
  // expected-error @+1 {{'tt.gather' op expected the indices to match the source in dimension 0 (16), but they have 8}}
  %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x32xf32>, tensor<8x8xi32>) -> tensor<8x8xf32>
  tt.return
}

// -----

tt.func @f(%src: tensor<16x32xf32>, %idx: tensor<16x8xi32>) {
  // expected-error @+1 {{'tt.gather' op expected a result of shape [16, 8] and element type 'f32', but got 'tensor<16x8xi32>'}}
  %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x32xf32>, tensor<16x8xi32>) -> tensor<16x8xi32>
  tt.return
}

// -----

tt.func @f(%x: tensor<128xi32>, %y: f32) {
  // expected-error @+1 {{'tt.print' op expected one isSigned flag per argument (2), but got 1}}
  tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x, %y : tensor<128xi32>, f32
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<f32>>) {
  // expected-error @+1 {{'tt.load' op cache modifier 'wt' applies to stores, not loads (loads take ca, cg, cs or cv)}}
  %a = tt.load %p cacheModifier = wt : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @f(%p: tensor<128x!tt.ptr<f32>>, %v: tensor<128xf32>) {
  // expected-error @+1 {{'tt.store' op cache modifier 'ca' applies to loads, not stores (stores take wb, cg, cs or wt)}}
  tt.store %p, %v cacheModifier = ca : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// Kernel code lives in functions: a tt op directly in a module body is an error.
// expected-error @+1 {{'tt.make_range' op must be inside a function (only functions may appear at module level)}}
%r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
tt.func public @k() {
  tt.return
}
