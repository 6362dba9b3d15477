// RUN: tessera-opt %s -split-input-file -canonicalize | FileCheck %s

// Splat of a constant folds to a dense constant.
// CHECK-LABEL: tt.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<4> : tensor<16xi32>
// CHECK-NEXT: tt.return %[[C]]
tt.func @splat_of_constant() -> tensor<16xi32> {
  %c = arith.constant 4 : i32
  %s = tt.splat %c : i32 -> tensor<16xi32>
  tt.return %s : tensor<16xi32>
}

// -----

// Splat of a pointer or a non-constant stays.
// CHECK-LABEL: tt.func @splat_not_folded
// CHECK: tt.splat %arg0 : !tt.ptr<f32>
// CHECK: tt.splat %arg1 : i32
tt.func @splat_not_folded(%p: !tt.ptr<f32>, %x: i32) -> (tensor<16x!tt.ptr<f32>>, tensor<16xi32>) {
  %a = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %b = tt.splat %x : i32 -> tensor<16xi32>
  tt.return %a, %b : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
}

// -----

// broadcast(splat x) -> splat x; expand_dims(splat x) -> splat x;
// reshape(splat x) -> splat x; trans(splat x) -> splat x.
// CHECK-LABEL: tt.func @shape_of_splat
// CHECK-DAG: tt.splat %arg0 : i32 -> tensor<4x8xi32>
// CHECK-DAG: tt.splat %arg0 : i32 -> tensor<4x1xi32>
// CHECK-DAG: tt.splat %arg0 : i32 -> tensor<2x2xi32>
// CHECK-DAG: tt.splat %arg0 : i32 -> tensor<8x4xi32>
// CHECK-NOT: tt.broadcast
// CHECK-NOT: tt.expand_dims
// CHECK-NOT: tt.reshape
// CHECK-NOT: tt.trans
tt.func @shape_of_splat(%x: i32) -> (tensor<4x8xi32>, tensor<4x1xi32>, tensor<2x2xi32>, tensor<8x4xi32>) {
  %s = tt.splat %x : i32 -> tensor<4x1xi32>
  %b = tt.broadcast %s : tensor<4x1xi32> -> tensor<4x8xi32>
  %s1 = tt.splat %x : i32 -> tensor<4xi32>
  %e = tt.expand_dims %s1 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %r = tt.reshape %s1 : tensor<4xi32> -> tensor<2x2xi32>
  %s2 = tt.splat %x : i32 -> tensor<4x8xi32>
  %t = tt.trans %s2 {order = array<i32: 1, 0>} : tensor<4x8xi32> -> tensor<8x4xi32>
  tt.return %b, %e, %r, %t : tensor<4x8xi32>, tensor<4x1xi32>, tensor<2x2xi32>, tensor<8x4xi32>
}

// -----

// Shape ops of a splat constant fold to a constant of the new shape.
// CHECK-LABEL: tt.func @shape_of_constant
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<1x4xf32>
// CHECK-NOT: tt.
// CHECK: tt.return
tt.func @shape_of_constant() -> (tensor<4x8xf32>, tensor<1x4xf32>) {
  %c = arith.constant dense<1.0> : tensor<4x1xf32>
  %b = tt.broadcast %c : tensor<4x1xf32> -> tensor<4x8xf32>
  %c1 = arith.constant dense<1.0> : tensor<4xf32>
  %e = tt.expand_dims %c1 {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
  tt.return %b, %e : tensor<4x8xf32>, tensor<1x4xf32>
}

// -----

// broadcast(broadcast x) -> broadcast x; an identity broadcast disappears.
// CHECK-LABEL: tt.func @broadcast_chain
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %arg0 : tensor<1x1xf32> -> tensor<8x8xf32>
// CHECK-NEXT: tt.return %[[B]], %arg1
tt.func @broadcast_chain(%x: tensor<1x1xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %a = tt.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %b = tt.broadcast %a : tensor<1x8xf32> -> tensor<8x8xf32>
  %c = tt.broadcast %y : tensor<8x8xf32> -> tensor<8x8xf32>
  tt.return %b, %c : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// reshape(reshape x) -> reshape x, keeping allow_reorder if either had it.
// CHECK-LABEL: tt.func @reshape_chain
// CHECK-NEXT: %[[A:.*]] = tt.reshape %arg0 : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[B:.*]] = tt.reshape %arg0 allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: tt.return %[[A]], %[[B]]
tt.func @reshape_chain(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<32xf32>) {
  %a = tt.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %b = tt.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %c = tt.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<8x4xf32>
  %d = tt.reshape %c : tensor<8x4xf32> -> tensor<32xf32>
  tt.return %b, %d : tensor<2x16xf32>, tensor<32xf32>
}

// -----

// A reshape that must keep its layout (efficient_layout) is not merged.
// CHECK-LABEL: tt.func @reshape_chain_kept
// CHECK: tt.reshape %arg0 efficient_layout
// CHECK: tt.reshape
tt.func @reshape_chain_kept(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %a = tt.reshape %x efficient_layout : tensor<4x8xf32> -> tensor<32xf32>
  %b = tt.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  tt.return %b : tensor<2x16xf32>
}

// -----

// trans(trans x) composes; the identity permutation disappears.
// CHECK-LABEL: tt.func @trans_chain
// CHECK-NEXT: %[[T:.*]] = tt.trans %arg0 {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-NEXT: tt.return %[[T]], %arg1
tt.func @trans_chain(%x: tensor<2x4x8xf32>, %y: tensor<4x4xf32>) -> (tensor<8x2x4xf32>, tensor<4x4xf32>) {
  %a = tt.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %b = tt.trans %a {order = array<i32: 1, 2, 0>} : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  %c = tt.trans %y {order = array<i32: 0, 1>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %d = tt.trans %c {order = array<i32: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  %e = tt.trans %d {order = array<i32: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  tt.return %b, %e : tensor<8x2x4xf32>, tensor<4x4xf32>
}

// -----

// addptr by zero disappears; addptr chains merge their offsets.
// CHECK-LABEL: tt.func @addptr
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %arg1, %arg2 : i32
// CHECK-NEXT: %[[P:.*]] = tt.addptr %arg0, %[[SUM]] : !tt.ptr<f32>, i32
// CHECK-NEXT: tt.return %arg0, %[[P]], %arg3
tt.func @addptr(%p: !tt.ptr<f32>, %a: i32, %b: i32, %ps: tensor<8x!tt.ptr<f32>>) -> (!tt.ptr<f32>, !tt.ptr<f32>, tensor<8x!tt.ptr<f32>>) {
  %c0 = arith.constant 0 : i32
  %z = tt.addptr %p, %c0 : !tt.ptr<f32>, i32
  %q = tt.addptr %p, %a : !tt.ptr<f32>, i32
  %r = tt.addptr %q, %b : !tt.ptr<f32>, i32
  %zeros = arith.constant dense<0> : tensor<8xi64>
  %zs = tt.addptr %ps, %zeros : tensor<8x!tt.ptr<f32>>, tensor<8xi64>
  tt.return %z, %r, %zs : !tt.ptr<f32>, !tt.ptr<f32>, tensor<8x!tt.ptr<f32>>
}

// -----

// Offsets of different types are not merged.
// CHECK-LABEL: tt.func @addptr_mixed_types
// CHECK: tt.addptr %arg0, %arg1 : !tt.ptr<f32>, i32
// CHECK: tt.addptr %{{.*}}, %arg2 : !tt.ptr<f32>, i64
tt.func @addptr_mixed_types(%p: !tt.ptr<f32>, %a: i32, %b: i64) -> !tt.ptr<f32> {
  %q = tt.addptr %p, %a : !tt.ptr<f32>, i32
  %r = tt.addptr %q, %b : !tt.ptr<f32>, i64
  tt.return %r : !tt.ptr<f32>
}

// -----

// advance by zero disappears; a real advance stays.
// CHECK-LABEL: tt.func @advance
// CHECK: %[[A:.*]] = tt.advance %arg0, [%{{.*}}, %arg1]
// CHECK: tt.return %arg0, %[[A]]
tt.func @advance(%bp: !tt.ptr<tensor<16x16xf32>>, %o: i32) -> (!tt.ptr<tensor<16x16xf32>>, !tt.ptr<tensor<16x16xf32>>) {
  %c0 = arith.constant 0 : i32
  %a = tt.advance %bp, [%c0, %c0] : <tensor<16x16xf32>>
  %b = tt.advance %bp, [%c0, %o] : <tensor<16x16xf32>>
  tt.return %a, %b : !tt.ptr<tensor<16x16xf32>>, !tt.ptr<tensor<16x16xf32>>
}

// -----

// Loads: an all-true mask is dropped (with its other); an all-false mask with
// an `other` yields `other`; an unknown mask stays.
// CHECK-LABEL: tt.func @load_masks
// CHECK: %[[A:.*]] = tt.load %arg0 : tensor<8x!tt.ptr<f32>>
// CHECK: %[[C:.*]] = tt.load %arg0, %arg1, %arg2 : tensor<8x!tt.ptr<f32>>
// CHECK: tt.return %[[A]], %arg2, %[[C]]
tt.func @load_masks(%p: tensor<8x!tt.ptr<f32>>, %m: tensor<8xi1>, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %t = arith.constant dense<true> : tensor<8xi1>
  %f = arith.constant dense<false> : tensor<8xi1>
  %a = tt.load %p, %t, %o : tensor<8x!tt.ptr<f32>>
  %b = tt.load %p, %f, %o : tensor<8x!tt.ptr<f32>>
  %c = tt.load %p, %m, %o : tensor<8x!tt.ptr<f32>>
  tt.return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A volatile all-false load is kept.
// CHECK-LABEL: tt.func @volatile_load_kept
// CHECK: tt.load %arg0, %{{.*}}, %arg1 {isVolatile = true}
tt.func @volatile_load_kept(%p: tensor<8x!tt.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %f = arith.constant dense<false> : tensor<8xi1>
  %b = tt.load %p, %f, %o {isVolatile = true} : tensor<8x!tt.ptr<f32>>
  tt.return %b : tensor<8xf32>
}

// -----

// Stores: an all-true mask is dropped; an all-false store disappears.
// CHECK-LABEL: tt.func @store_masks
// CHECK-NEXT: tt.store %arg0, %arg1 : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.store %arg0, %arg1, %arg2 : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
tt.func @store_masks(%p: tensor<8x!tt.ptr<f32>>, %v: tensor<8xf32>, %m: tensor<8xi1>) {
  %t = arith.constant dense<true> : tensor<8xi1>
  %f = arith.constant dense<false> : tensor<8xi1>
  tt.store %p, %v, %t : tensor<8x!tt.ptr<f32>>
  tt.store %p, %v, %f : tensor<8x!tt.ptr<f32>>
  tt.store %p, %v, %m : tensor<8x!tt.ptr<f32>>
  tt.return
}

// -----

// Bitcast to the same type and round trips disappear.
// CHECK-LABEL: tt.func @bitcasts
// CHECK-NEXT: %[[B:.*]] = tt.bitcast %arg0 : tensor<8xf32> -> tensor<8xi32>
// CHECK-NEXT: tt.return %arg0, %arg0, %[[B]]
tt.func @bitcasts(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) {
  %a = tt.bitcast %x : tensor<8xf32> -> tensor<8xf32>
  %b = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>
  %c = tt.bitcast %b : tensor<8xi32> -> tensor<8xf32>
  tt.return %a, %c, %b : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>
}

// -----

// Loads, stores, atomics, prints and asserts are never removed as dead code;
// unused pure ops are.
// CHECK-LABEL: tt.func @effects
// CHECK-NOT: tt.make_range
// CHECK: tt.load
// CHECK: tt.atomic_rmw
// CHECK: tt.print
// CHECK: tt.assert
tt.func @effects(%p: tensor<8x!tt.ptr<f32>>, %v: tensor<8xf32>, %ok: tensor<8xi1>) {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %a = tt.load %p {isVolatile = true} : tensor<8x!tt.ptr<f32>>
  %b = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>) -> tensor<8xf32>
  tt.print "v" {hex = false, isSigned = array<i32: 0>} : %v : tensor<8xf32>
  tt.assert %ok, "bad" : tensor<8xi1>
  tt.return
}
