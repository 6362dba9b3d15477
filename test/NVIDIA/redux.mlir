// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:75}, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s --check-prefix=SM75

// A 32-bit integer min / max / add / and / or / xor over all 32 lanes of a
// warp is one redux.sync from sm_80 (signedness from the combiner), then the
// warps' partials meet through shared memory as before; sm_75 has no redux
// and reduces by butterflies of shuffles.
// CHECK-LABEL: llvm.func @int_kinds
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.redux.sync max
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.redux.sync umin
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.redux.sync add
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.redux.sync xor
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
// SM75-LABEL: llvm.func @int_kinds
// SM75-NOT: nvvm.redux.sync
// SM75-COUNT-5: nvvm.shfl.sync bfly
// SM75: llvm.return
tt.func public @int_kinds(%p: !tt.ptr<i32>) {
  %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %s = tt.splat %p : !tt.ptr<i32> -> tensor<512x!tt.ptr<i32>>
  %q = tt.addptr %s, %r : tensor<512x!tt.ptr<i32>>, tensor<512xi32>
  %v = tt.load %q : tensor<512x!tt.ptr<i32>>
  %mx = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.maxsi %a, %b : i32
    tt.reduce.return %x : i32
  }) : (tensor<512xi32>) -> i32
  %mn = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.minui %b, %a : i32
    tt.reduce.return %x : i32
  }) : (tensor<512xi32>) -> i32
  %sm = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.addi %a, %b : i32
    tt.reduce.return %x : i32
  }) : (tensor<512xi32>) -> i32
  %xr = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.xori %a, %b : i32
    tt.reduce.return %x : i32
  }) : (tensor<512xi32>) -> i32
  %t0 = arith.addi %mx, %mn : i32
  %t1 = arith.addi %sm, %xr : i32
  %t = arith.addi %t0, %t1 : i32
  tt.store %p, %t : !tt.ptr<i32>
  tt.return
}

// -----

// Not redux: a float sum, a 64-bit sum, a combiner that is not a single
// integer op of its two arguments (max(a, b) + 1), an argmax-like pair of
// operands, and a reduction over 16 lanes of each warp (the rows of an
// 8 x 64 tensor, two rows per warp): all by shuffles.
// CHECK-LABEL: llvm.func @not_redux
// CHECK-NOT: nvvm.redux.sync
// CHECK: llvm.return
tt.func public @not_redux(%p: !tt.ptr<f32>, %pi: !tt.ptr<i64>, %pj: !tt.ptr<i32>) {
  %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
  %q = tt.addptr %s, %r : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
  %v = tt.load %q : tensor<512x!tt.ptr<f32>>
  %f = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<512xf32>) -> f32
  tt.store %p, %f : !tt.ptr<f32>
  %si = tt.splat %pi : !tt.ptr<i64> -> tensor<512x!tt.ptr<i64>>
  %qi = tt.addptr %si, %r : tensor<512x!tt.ptr<i64>>, tensor<512xi32>
  %vi = tt.load %qi : tensor<512x!tt.ptr<i64>>
  %l = "tt.reduce"(%vi) <{axis = 0 : i32}> ({
  ^bb0(%a: i64, %b: i64):
    %x = arith.addi %a, %b : i64
    tt.reduce.return %x : i64
  }) : (tensor<512xi64>) -> i64
  tt.store %pi, %l : !tt.ptr<i64>
  %c1 = arith.constant 1 : i32
  %e = "tt.reduce"(%r) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.maxsi %a, %b : i32
    %y = arith.addi %x, %c1 : i32
    tt.reduce.return %y : i32
  }) : (tensor<512xi32>) -> i32
  %am:2 = "tt.reduce"(%v, %r) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %ia: i32, %b: f32, %ib: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %m = arith.select %gt, %a, %b : f32
    %i = arith.select %gt, %ia, %ib : i32
    tt.reduce.return %m, %i : f32, i32
  }) : (tensor<512xf32>, tensor<512xi32>) -> (f32, i32)
  %r2 = tt.reshape %r : tensor<512xi32> -> tensor<8x64xi32>
  %rows = "tt.reduce"(%r2) <{axis = 1 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %x = arith.maxsi %a, %b : i32
    tt.reduce.return %x : i32
  }) : (tensor<8x64xi32>) -> tensor<8xi32>
  %sj = tt.splat %pj : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
  %r8 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %qj = tt.addptr %sj, %r8 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
  tt.store %qj, %rows : tensor<8x!tt.ptr<i32>>
  %t = arith.addi %e, %am#1 : i32
  tt.store %pj, %t : !tt.ptr<i32>
  tt.return
}
