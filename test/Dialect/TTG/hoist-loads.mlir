// RUN: tessera-opt %s -split-input-file --ttg-hoist-loads | FileCheck %s

// A load written after a reduction (layer norm's weights after its
// statistics) starts before it, its address arithmetic with it; the
// reduction and the arithmetic on its result stay in their order.
// CHECK-LABEL: tt.func @after_reduce
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<256x!tt.ptr<f32>>
// CHECK-NEXT: %[[WS:.*]] = tt.splat %arg1
// CHECK-NEXT: %[[WP:.*]] = tt.addptr %[[WS]]
// CHECK-NEXT: %[[W:.*]] = tt.load %[[WP]]
// CHECK-NEXT: "tt.reduce"(%[[X]])
// CHECK: arith.divf
// CHECK: tt.store
tt.func @after_reduce(%x: !tt.ptr<f32>, %w: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %xv = tt.load %xp : tensor<256x!tt.ptr<f32>>
  %s = "tt.reduce"(%xv) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<256xf32>) -> f32
  %c = arith.constant 256.0 : f32
  %mean = arith.divf %s, %c : f32
  %ws = tt.splat %w : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %wp = tt.addptr %ws, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %wv = tt.load %wp : tensor<256x!tt.ptr<f32>>
  %m = tt.splat %mean : f32 -> tensor<256xf32>
  %d = arith.subf %xv, %m : tensor<256xf32>
  %o = arith.mulf %d, %wv : tensor<256xf32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %yp, %o : tensor<256x!tt.ptr<f32>>
  tt.return
}

// -----

// Not across a store (it may write what the load reads), not across a
// barrier, not when volatile, and a load whose address needs the
// reduction's result stays after it.
// CHECK-LABEL: tt.func @stays
// CHECK: tt.store
// CHECK-NEXT: %[[A:.*]] = tt.load
// CHECK: ttg.barrier
// CHECK-NEXT: tt.load
// CHECK: "tt.reduce"
// CHECK: tt.load %{{.*}} {isVolatile = true}
// CHECK: arith.fptosi
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: tt.load
tt.func @stays(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) -> (f32, f32, f32, f32) {
  %v0 = arith.constant 1.0 : f32
  tt.store %p, %v0 : !tt.ptr<f32>
  %a = tt.load %q : !tt.ptr<f32>
  ttg.barrier
  %b = tt.load %q : !tt.ptr<f32>
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %f = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %s = "tt.reduce"(%f) <{axis = 0 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %t = arith.maxnumf %x, %y : f32
    tt.reduce.return %t : f32
  }) : (tensor<128xf32>) -> f32
  %c = tt.load %q {isVolatile = true} : !tt.ptr<f32>
  %i = arith.fptosi %s : f32 to i32
  %qi = tt.addptr %q, %i : !tt.ptr<f32>, i32
  %d = tt.load %qi : !tt.ptr<f32>
  tt.return %a, %b, %c, %d : f32, f32, f32, f32
}

// -----

// Not across a loop (a region that may write memory), and loads keep their
// order among themselves: the second load stops under the first.
// CHECK-LABEL: tt.func @loop_and_order
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: tt.load %arg1
// CHECK-NEXT: tt.load %arg2
// CHECK-NEXT: arith.addf
tt.func @loop_and_order(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %r: !tt.ptr<f32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    tt.store %p, %one : !tt.ptr<f32>
  }
  %a = tt.load %q : !tt.ptr<f32>
  %e = arith.addf %a, %one : f32
  %b = tt.load %r : !tt.ptr<f32>
  %s = arith.addf %e, %b : f32
  tt.return %s : f32
}
