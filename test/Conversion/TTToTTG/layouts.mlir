// RUN: tessera-opt %s -split-input-file --convert-tt-to-ttg="num-warps=4 target=cuda:90" | FileCheck %s

// Module attributes record the launch configuration; a 1-D tensor gets up to
// 4 consecutive elements per thread (8 per thread here), then lanes, then
// warps, along its only dim.
// CHECK: #[[B1:.*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// CHECK-LABEL: tt.func public @vector
// CHECK: tt.make_range {{.*}} : tensor<1024xi32, #[[B1]]>
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[B1]]>
// CHECK-NOT: ttg.convert_layout
tt.func public @vector(%p: !tt.ptr<f32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %q = tt.addptr %s, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %q : tensor<1024x!tt.ptr<f32>>
  tt.store %q, %v : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// -----

// 2-D index arithmetic: the row and column ranges are recomputed as slices of
// the 2-D layout, so no layout conversion remains.
// 4 consecutive columns per thread, 16 lanes across the 64 columns, the rest
// of the lanes and the warps down the rows.
// CHECK: #[[B2:.*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tt.func public @tile
// CHECK-DAG: tt.make_range {{.*}} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #[[B2]]}>>
// CHECK-DAG: tt.make_range {{.*}} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #[[B2]]}>>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store {{.*}} : tensor<16x64x!tt.ptr<f32>, #[[B2]]>
tt.func public @tile(%p: !tt.ptr<f32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %re = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %rm = arith.muli %re, %c64 : tensor<16x1xi32>
  %rb = tt.broadcast %rm : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tt.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<16x64x!tt.ptr<f32>>
  %q = tt.addptr %s, %off : tensor<16x64x!tt.ptr<f32>>, tensor<16x64xi32>
  %v = tt.load %q : tensor<16x64x!tt.ptr<f32>>
  tt.store %q, %v : tensor<16x64x!tt.ptr<f32>>
  tt.return
}

// -----

// A reduction yields a slice of its input's layout; loop-carried tensors keep
// their initial layout.
// CHECK-LABEL: tt.func public @reduce_in_loop
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #[[L:.*]]>)
// CHECK: "tt.reduce"
// CHECK: }) : (tensor<128xf32, #[[L]]>) -> f32
tt.func public @reduce_in_loop(%p: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) : i32 {
    %one = arith.constant dense<1.0> : tensor<128xf32>
    %a = arith.addf %acc, %one : tensor<128xf32>
    scf.yield %a : tensor<128xf32>
  }
  %s = "tt.reduce"(%r) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<128xf32>) -> f32
  tt.store %p, %s : !tt.ptr<f32>
  tt.return
}

// -----

// A transposed tile keeps the same threads: its layout is the source's,
// permuted; returning it in the function's default layout then needs a
// conversion.
// CHECK: #[[BT:.*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tt.func public @transpose
// CHECK: tt.trans {{.*}} -> tensor<64x16xf32, #[[BT]]>
// CHECK: ttg.convert_layout
tt.func public @transpose(%x: tensor<16x64xf32>) -> tensor<64x16xf32> attributes {noinline = true} {
  %t = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
  tt.return %t : tensor<64x16xf32>
}
