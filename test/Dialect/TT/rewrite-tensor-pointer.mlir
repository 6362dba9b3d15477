// RUN: tessera-opt %s -split-input-file -tt-rewrite-tensor-pointer | FileCheck %s

// A load that checks only dimension 1 (zero padding) and a store that checks
// both: pointers are base + sum_d (offset_d + arange_d) * stride_d in i64.

// CHECK-LABEL: tt.func @simple
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f16>, %[[Y:.+]]: !tt.ptr<f16>, %[[M:.+]]: i64, %[[N:.+]]: i64, %[[SM:.+]]: i64, %[[OFF:.+]]: i32)
// CHECK-NOT: tt.make_tensor_ptr
// Load, dimension 0: offset + range, times the stride, placed at dim 0.
// CHECK: %[[O0:.+]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: %[[R0:.+]] = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK: %[[R0W:.+]] = arith.extsi %[[R0]] : tensor<16xi32> to tensor<16xi64>
// CHECK: %[[O0S:.+]] = tt.splat %[[O0]] : i64 -> tensor<16xi64>
// CHECK: %[[I0:.+]] = arith.addi %[[O0S]], %[[R0W]] : tensor<16xi64>
// CHECK: %[[S0:.+]] = tt.splat %[[SM]] : i64 -> tensor<16xi64>
// CHECK: %[[T0:.+]] = arith.muli %[[I0]], %[[S0]] : tensor<16xi64>
// CHECK: %[[E0:.+]] = tt.expand_dims %[[T0]] {axis = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
// CHECK: %[[B0:.+]] = tt.broadcast %[[E0]] : tensor<16x1xi64> -> tensor<16x32xi64>
// Dimension 0 is not checked: no comparison against %M.
// CHECK-NOT: tt.splat %[[M]]
// CHECK: %[[R1:.+]] = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[I1:.+]] = arith.addi %{{.+}}, %{{.+}} : tensor<32xi64>
// CHECK: %[[T1:.+]] = arith.muli %[[I1]], %{{.+}} : tensor<32xi64>
// CHECK: %[[E1:.+]] = tt.expand_dims %[[T1]] {axis = 0 : i32} : tensor<32xi64> -> tensor<1x32xi64>
// CHECK: %[[B1:.+]] = tt.broadcast %[[E1]] : tensor<1x32xi64> -> tensor<16x32xi64>
// CHECK: %[[SUM:.+]] = arith.addi %[[B0]], %[[B1]] : tensor<16x32xi64>
// Dimension 1 is checked: 0 <= idx < N.
// CHECK: %[[Z:.+]] = arith.constant dense<0> : tensor<32xi64>
// CHECK: %[[LO:.+]] = arith.cmpi sge, %[[I1]], %[[Z]] : tensor<32xi64>
// CHECK: %[[NS:.+]] = tt.splat %[[N]] : i64 -> tensor<32xi64>
// CHECK: %[[HI:.+]] = arith.cmpi slt, %[[I1]], %[[NS]] : tensor<32xi64>
// CHECK: %[[IN:.+]] = arith.andi %[[LO]], %[[HI]] : tensor<32xi1>
// CHECK: %[[ME:.+]] = tt.expand_dims %[[IN]] {axis = 0 : i32} : tensor<32xi1> -> tensor<1x32xi1>
// CHECK: %[[MASK:.+]] = tt.broadcast %[[ME]] : tensor<1x32xi1> -> tensor<16x32xi1>
// CHECK: %[[BASE:.+]] = tt.splat %[[X]] : !tt.ptr<f16> -> tensor<16x32x!tt.ptr<f16>>
// CHECK: %[[PTRS:.+]] = tt.addptr %[[BASE]], %[[SUM]] : tensor<16x32x!tt.ptr<f16>>, tensor<16x32xi64>
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<16x32xf16>
// CHECK: %[[V:.+]] = tt.load %[[PTRS]], %[[MASK]], %[[ZERO]] : tensor<16x32x!tt.ptr<f16>>
// Store: both dimensions checked.
// CHECK: tt.splat %[[M]] : i64 -> tensor<16xi64>
// CHECK: %[[M0:.+]] = tt.broadcast %{{.+}} : tensor<16x1xi1> -> tensor<16x32xi1>
// CHECK: tt.splat %[[N]] : i64 -> tensor<32xi64>
// CHECK: %[[M1:.+]] = tt.broadcast %{{.+}} : tensor<1x32xi1> -> tensor<16x32xi1>
// CHECK: %[[SMASK:.+]] = arith.andi %[[M0]], %[[M1]] : tensor<16x32xi1>
// CHECK: %[[YB:.+]] = tt.splat %[[Y]] : !tt.ptr<f16> -> tensor<16x32x!tt.ptr<f16>>
// CHECK: %[[YP:.+]] = tt.addptr %[[YB]], %{{.+}} : tensor<16x32x!tt.ptr<f16>>, tensor<16x32xi64>
// CHECK: tt.store %[[YP]], %[[V]], %[[SMASK]] : tensor<16x32x!tt.ptr<f16>>
// CHECK-NOT: boundaryCheck
// CHECK: tt.return
tt.func @simple(%x: !tt.ptr<f16>, %y: !tt.ptr<f16>, %m: i64, %n: i64, %sm: i64, %off: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%m, %n], [%sm, %c1], [%off, %c0] {order = array<i32: 1, 0>} : <tensor<16x32xf16>>
  %v = tt.load %a {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<16x32xf16>>
  %b = tt.make_tensor_ptr %y, [%m, %n], [%sm, %c1], [%off, %c0] {order = array<i32: 1, 0>} : <tensor<16x32xf16>>
  tt.store %b, %v {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<16x32xf16>>
  tt.return
}

// -----

// padding nan gives a NaN `other`; a load without boundaryCheck is unmasked.

// CHECK-LABEL: tt.func @padding_nan
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[N:.+]]: i64, %[[OFF:.+]]: i32)
// CHECK: %[[NS:.+]] = tt.splat %[[N]] : i64 -> tensor<64xi64>
// CHECK: %[[MASK:.+]] = arith.andi %{{.+}}, %{{.+}} : tensor<64xi1>
// CHECK: %[[PTRS:.+]] = tt.addptr %{{.+}}, %{{.+}} : tensor<64x!tt.ptr<f32>>, tensor<64xi64>
// CHECK: %[[NAN:.+]] = arith.constant dense<0x7FC00000> : tensor<64xf32>
// CHECK: %[[V:.+]] = tt.load %[[PTRS]], %[[MASK]], %[[NAN]] : tensor<64x!tt.ptr<f32>>
// CHECK-NOT: arith.cmpi
// CHECK: %[[PTRS2:.+]] = tt.addptr %{{.+}}, %{{.+}} : tensor<64x!tt.ptr<f32>>, tensor<64xi64>
// CHECK: %[[W:.+]] = tt.load %[[PTRS2]] : tensor<64x!tt.ptr<f32>>
// CHECK: arith.addf %[[V]], %[[W]]
tt.func @padding_nan(%x: !tt.ptr<f32>, %n: i64, %off: i32) -> tensor<64xf32> {
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%n], [%c1], [%off] {order = array<i32: 0>} : <tensor<64xf32>>
  %v = tt.load %a {boundaryCheck = array<i32: 0>, padding = 2 : i32} : !tt.ptr<tensor<64xf32>>
  %w = tt.load %a : !tt.ptr<tensor<64xf32>>
  %s = arith.addf %v, %w : tensor<64xf32>
  tt.return %s : tensor<64xf32>
}

// -----

// A loop-carried block pointer: scf.for carries its components; advance adds
// to the carried offsets (a zero delta adds nothing).

// CHECK-LABEL: tt.func @loop
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[M:.+]]: i64, %[[N:.+]]: i64, %[[SM:.+]]: i64, %[[IT:.+]]: i32)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i32
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[ACC0:.+]] = arith.constant dense<0.000000e+00> : tensor<8x16xf32>
// CHECK: %[[R:.+]]:8 = scf.for %{{.+}} = %[[C0]] to %[[IT]] step %{{.+}} iter_args(%[[B:.+]] = %[[X]], %[[SH0:.+]] = %[[M]], %[[SH1:.+]] = %[[N]], %[[ST0:.+]] = %[[SM]], %[[ST1:.+]] = %[[C1]], %[[OF0:.+]] = %[[C0]], %[[OF1:.+]] = %[[C0]], %[[ACC:.+]] = %[[ACC0]]) -> (!tt.ptr<f32>, i64, i64, i64, i64, i32, i32, tensor<8x16xf32>)
// CHECK: arith.extsi %[[OF0]] : i32 to i64
// CHECK: tt.splat %[[ST0]] : i64 -> tensor<8xi64>
// CHECK: tt.splat %[[SH0]] : i64 -> tensor<8xi64>
// CHECK: arith.extsi %[[OF1]] : i32 to i64
// CHECK: tt.splat %[[ST1]] : i64 -> tensor<16xi64>
// CHECK: tt.splat %[[SH1]] : i64 -> tensor<16xi64>
// CHECK: tt.splat %[[B]] : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
// CHECK: %[[V:.+]] = tt.load %{{.+}}, %{{.+}}, %{{.+}} : tensor<8x16x!tt.ptr<f32>>
// CHECK: %[[S:.+]] = arith.addf %[[ACC]], %[[V]]
// CHECK-NOT: arith.addi %[[OF0]]
// CHECK: %[[NEXT:.+]] = arith.addi %[[OF1]], %[[C16]] : i32
// CHECK: scf.yield %[[B]], %[[SH0]], %[[SH1]], %[[ST0]], %[[ST1]], %[[OF0]], %[[NEXT]], %[[S]] : !tt.ptr<f32>, i64, i64, i64, i64, i32, i32, tensor<8x16xf32>
// After the loop, its results are the components.
// CHECK: arith.extsi %[[R]]#5 : i32 to i64
// CHECK: tt.splat %[[R]]#3 : i64 -> tensor<8xi64>
// CHECK: arith.extsi %[[R]]#6 : i32 to i64
// CHECK: tt.splat %[[R]]#4 : i64 -> tensor<16xi64>
// CHECK: tt.splat %[[R]]#0 : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
// CHECK: %[[LAST:.+]] = tt.load %{{.+}} : tensor<8x16x!tt.ptr<f32>>
// CHECK: arith.addf %[[R]]#7, %[[LAST]]
// CHECK-NOT: tt.advance
tt.func @loop(%x: !tt.ptr<f32>, %m: i64, %n: i64, %sm: i64, %iters: i32) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c1_i64 = arith.constant 1 : i64
  %zero = arith.constant dense<0.0> : tensor<8x16xf32>
  %a = tt.make_tensor_ptr %x, [%m, %n], [%sm, %c1_i64], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<8x16xf32>>
  %r:2 = scf.for %i = %c0 to %iters step %c1 iter_args(%p = %a, %acc = %zero) -> (!tt.ptr<tensor<8x16xf32>>, tensor<8x16xf32>) : i32 {
    %v = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<8x16xf32>>
    %s = arith.addf %acc, %v : tensor<8x16xf32>
    %q = tt.advance %p, [%c0, %c16] : <tensor<8x16xf32>>
    scf.yield %q, %s : !tt.ptr<tensor<8x16xf32>>, tensor<8x16xf32>
  }
  %last = tt.load %r#0 : !tt.ptr<tensor<8x16xf32>>
  %out = arith.addf %r#1, %last : tensor<8x16xf32>
  tt.return %out : tensor<8x16xf32>
}

// -----

// scf.if yielding a block pointer yields its components.

// CHECK-LABEL: tt.func @if_yield
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<i32>, %[[N:.+]]: i64, %[[COND:.+]]: i1, %[[K:.+]]: i32)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK: %[[R:.+]]:4 = scf.if %[[COND]] -> (!tt.ptr<i32>, i64, i64, i32) {
// CHECK:   %[[OFF:.+]] = arith.addi %[[C0]], %[[K]] : i32
// CHECK:   scf.yield %[[X]], %[[N]], %[[C1]], %[[OFF]] : !tt.ptr<i32>, i64, i64, i32
// CHECK: } else {
// CHECK:   scf.yield %[[X]], %[[N]], %[[C1]], %[[C0]] : !tt.ptr<i32>, i64, i64, i32
// CHECK: }
// CHECK: arith.extsi %[[R]]#3 : i32 to i64
// CHECK: tt.splat %[[R]]#2 : i64 -> tensor<32xi64>
// CHECK: tt.splat %[[R]]#1 : i64 -> tensor<32xi64>
// CHECK: tt.splat %[[R]]#0 : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>>
// CHECK: %[[Z:.+]] = arith.constant dense<0> : tensor<32xi32>
// CHECK: tt.load %{{.+}}, %{{.+}}, %[[Z]] : tensor<32x!tt.ptr<i32>>
tt.func @if_yield(%x: !tt.ptr<i32>, %n: i64, %cond: i1, %k: i32) -> tensor<32xi32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<32xi32>>
  %b = scf.if %cond -> (!tt.ptr<tensor<32xi32>>) {
    %q = tt.advance %a, [%k] : <tensor<32xi32>>
    scf.yield %q : !tt.ptr<tensor<32xi32>>
  } else {
    scf.yield %a : !tt.ptr<tensor<32xi32>>
  }
  %v = tt.load %b {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<32xi32>>
  tt.return %v : tensor<32xi32>
}

// -----

// A function without block pointers is left as it is.

// CHECK-LABEL: tt.func @no_block_pointers
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[N:.+]]: i32)
// CHECK-NEXT: %[[R:.+]] = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
// CHECK-NEXT: %[[P:.+]] = tt.splat %[[X]] : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
// CHECK-NEXT: %[[Q:.+]] = tt.addptr %[[P]], %[[R]] : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
// CHECK-NEXT: %[[NS:.+]] = tt.splat %[[N]] : i32 -> tensor<128xi32>
// CHECK-NEXT: %[[M:.+]] = arith.cmpi slt, %[[R]], %[[NS]] : tensor<128xi32>
// CHECK-NEXT: %[[V:.+]] = tt.load %[[Q]], %[[M]] : tensor<128x!tt.ptr<f32>>
// CHECK-NEXT: tt.store %[[Q]], %[[V]], %[[M]] : tensor<128x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
tt.func @no_block_pointers(%x: !tt.ptr<f32>, %n: i32) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %p = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %q = tt.addptr %p, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %ns = tt.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %v = tt.load %q, %m : tensor<128x!tt.ptr<f32>>
  tt.store %q, %v, %m : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// scf.while: the before and after regions' arguments, scf.condition and the
// results carry the components.

// CHECK-LABEL: tt.func @while_loop
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[N:.+]]: i64, %[[LIM:.+]]: i32)
// CHECK: %[[R:.+]]:5 = scf.while (%[[B:.+]] = %[[X]], %[[SH:.+]] = %[[N]], %[[ST:.+]] = %{{.+}}, %[[OF:.+]] = %{{.+}}, %[[I:.+]] = %{{.+}}) : (!tt.ptr<f32>, i64, i64, i32, i32) -> (i32, !tt.ptr<f32>, i64, i64, i32)
// CHECK: scf.condition(%{{.+}}) %[[I]], %[[B]], %[[SH]], %[[ST]], %[[OF]] : i32, !tt.ptr<f32>, i64, i64, i32
// CHECK: ^bb0(%[[J:.+]]: i32, %[[B2:.+]]: !tt.ptr<f32>, %[[SH2:.+]]: i64, %[[ST2:.+]]: i64, %[[OF2:.+]]: i32):
// CHECK: %[[NOF:.+]] = arith.addi %[[OF2]], %{{.+}} : i32
// CHECK: %[[NJ:.+]] = arith.addi %[[J]], %{{.+}} : i32
// CHECK: scf.yield %[[B2]], %[[SH2]], %[[ST2]], %[[NOF]], %[[NJ]] : !tt.ptr<f32>, i64, i64, i32, i32
// CHECK: arith.extsi %[[R]]#4 : i32 to i64
// CHECK: tt.splat %[[R]]#1 : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
tt.func @while_loop(%x: !tt.ptr<f32>, %n: i64, %lim: i32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<4xf32>>
  %r:2 = scf.while (%p = %a, %i = %c0) : (!tt.ptr<tensor<4xf32>>, i32) -> (i32, !tt.ptr<tensor<4xf32>>) {
    %go = arith.cmpi slt, %i, %lim : i32
    scf.condition(%go) %i, %p : i32, !tt.ptr<tensor<4xf32>>
  } do {
  ^bb0(%j: i32, %p2: !tt.ptr<tensor<4xf32>>):
    %q = tt.advance %p2, [%c4] : <tensor<4xf32>>
    %j2 = arith.addi %j, %c4 : i32
    scf.yield %q, %j2 : !tt.ptr<tensor<4xf32>>, i32
  }
  %v = tt.load %r#1 {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<4xf32>>
  tt.return %v : tensor<4xf32>
}

// -----

// cf branches pass the components as block arguments; a rank-3 block.

// CHECK-LABEL: tt.func @branches
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[N:.+]]: i64, %[[COND:.+]]: i1, %[[K:.+]]: i32)
// CHECK: cf.cond_br %[[COND]], ^bb1, ^bb2(%[[X]], %[[N]], %[[N]], %[[N]], %[[N]], %[[N]], %{{.+}}, %[[C0:.+]], %[[C0]], %[[C0]] : !tt.ptr<f32>, i64, i64, i64, i64, i64, i64, i32, i32, i32)
// CHECK: ^bb1:
// CHECK: %[[OFF:.+]] = arith.addi %[[C0]], %[[K]] : i32
// CHECK: cf.br ^bb2(%[[X]], %[[N]], %[[N]], %[[N]], %[[N]], %[[N]], %{{.+}}, %[[C0]], %[[OFF]], %[[C0]] : !tt.ptr<f32>, i64, i64, i64, i64, i64, i64, i32, i32, i32)
// CHECK: ^bb2(%[[B:.+]]: !tt.ptr<f32>, %{{.+}}: i64, %[[SH1:.+]]: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32):
// CHECK: tt.expand_dims %{{.+}} {axis = 1 : i32} : tensor<2xi64> -> tensor<2x1xi64>
// CHECK: tt.expand_dims %{{.+}} {axis = 2 : i32} : tensor<2x1xi64> -> tensor<2x1x1xi64>
// CHECK: tt.broadcast %{{.+}} : tensor<2x1x1xi64> -> tensor<2x4x8xi64>
// CHECK: tt.splat %[[SH1]] : i64 -> tensor<4xi64>
// CHECK: %[[MASK:.+]] = tt.broadcast %{{.+}} : tensor<1x4x1xi1> -> tensor<2x4x8xi1>
// CHECK: tt.expand_dims %{{.+}} {axis = 0 : i32} : tensor<8xi64> -> tensor<1x8xi64>
// CHECK: tt.expand_dims %{{.+}} {axis = 0 : i32} : tensor<1x8xi64> -> tensor<1x1x8xi64>
// CHECK: tt.splat %[[B]] : !tt.ptr<f32> -> tensor<2x4x8x!tt.ptr<f32>>
// CHECK: tt.load %{{.+}}, %[[MASK]], %{{.+}} : tensor<2x4x8x!tt.ptr<f32>>
tt.func @branches(%x: !tt.ptr<f32>, %n: i64, %cond: i1, %k: i32) -> tensor<2x4x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%n, %n, %n], [%n, %n, %c1], [%c0, %c0, %c0] {order = array<i32: 2, 1, 0>} : <tensor<2x4x8xf32>>
  cf.cond_br %cond, ^bb1, ^bb2(%a : !tt.ptr<tensor<2x4x8xf32>>)
^bb1:
  %q = tt.advance %a, [%c0, %k, %c0] : <tensor<2x4x8xf32>>
  cf.br ^bb2(%q : !tt.ptr<tensor<2x4x8xf32>>)
^bb2(%p: !tt.ptr<tensor<2x4x8xf32>>):
  %v = tt.load %p {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<2x4x8xf32>>
  tt.return %v : tensor<2x4x8xf32>
}

// -----

// Before inlining: a device function taking and returning a block pointer.

// CHECK-LABEL: tt.func private @helper
// CHECK-SAME: (%[[B:.+]]: !tt.ptr<f32>, %[[SH:.+]]: i64, %[[ST:.+]]: i64, %[[OF:.+]]: i32, %[[K:.+]]: i32) -> (tensor<16xf32>, !tt.ptr<f32>, i64, i64, i32)
// CHECK: %[[V:.+]] = tt.load
// CHECK: %[[NOF:.+]] = arith.addi %[[OF]], %[[K]] : i32
// CHECK: tt.return %[[V]], %[[B]], %[[SH]], %[[ST]], %[[NOF]] : tensor<16xf32>, !tt.ptr<f32>, i64, i64, i32
// CHECK-LABEL: tt.func @caller
// CHECK-SAME: (%[[X:.+]]: !tt.ptr<f32>, %[[N:.+]]: i64)
// CHECK: %[[R:.+]]:5 = tt.call @helper(%[[X]], %[[N]], %{{.+}}, %{{.+}}, %{{.+}}) : (!tt.ptr<f32>, i64, i64, i32, i32) -> (tensor<16xf32>, !tt.ptr<f32>, i64, i64, i32)
// CHECK: arith.extsi %[[R]]#4 : i32 to i64
// CHECK: %[[P:.+]] = tt.splat %[[R]]#1 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
// CHECK: %[[Q:.+]] = tt.addptr %[[P]], %{{.+}}
// CHECK: tt.store %[[Q]], %[[R]]#0 : tensor<16x!tt.ptr<f32>>
tt.func private @helper(%p: !tt.ptr<tensor<16xf32>>, %k: i32) -> (tensor<16xf32>, !tt.ptr<tensor<16xf32>>) {
  %v = tt.load %p {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<16xf32>>
  %q = tt.advance %p, [%k] : <tensor<16xf32>>
  tt.return %v, %q : tensor<16xf32>, !tt.ptr<tensor<16xf32>>
}
tt.func @caller(%x: !tt.ptr<f32>, %n: i64) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c1 = arith.constant 1 : i64
  %a = tt.make_tensor_ptr %x, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<16xf32>>
  %v, %b = tt.call @helper(%a, %c16) : (!tt.ptr<tensor<16xf32>>, i32) -> (tensor<16xf32>, !tt.ptr<tensor<16xf32>>)
  tt.store %b, %v : !tt.ptr<tensor<16xf32>>
  tt.return
}
