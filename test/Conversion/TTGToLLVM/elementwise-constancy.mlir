// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-ttg-to-llvm)' | FileCheck %s

// offs < n with n divisible by 16 is constant over aligned runs of 16, and a
// thread holds 8 consecutive elements: one compare serves all eight (the
// select of tl.where(offs < n, x, 0) reads it eight times).
// CHECK-LABEL: llvm.func @mask_once
// CHECK-COUNT-1: llvm.icmp "slt"
// CHECK-NOT: llvm.icmp "slt"
// CHECK-COUNT-8: llvm.select
#b = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mask_once(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}, %x: tensor<1024xf32, #b>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
    %z = arith.constant dense<0.0> : tensor<1024xf32, #b>
    %y = arith.select %m, %x, %z : tensor<1024xi1, #b>, tensor<1024xf32, #b>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #b>
    %q = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #b>, tensor<1024xi32, #b>
    tt.store %q, %y : tensor<1024x!tt.ptr<f32>, #b>
    tt.return
  }
}

// -----

// n of unknown divisibility: no two elements are known equal, one compare
// per element.
// CHECK-LABEL: llvm.func @mask_each
// CHECK-COUNT-8: llvm.icmp "slt"
// CHECK-NOT: llvm.icmp "slt"
#b = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mask_each(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %x: tensor<1024xf32, #b>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
    %z = arith.constant dense<0.0> : tensor<1024xf32, #b>
    %y = arith.select %m, %x, %z : tensor<1024xi1, #b>, tensor<1024xf32, #b>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #b>
    %q = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #b>, tensor<1024xi32, #b>
    tt.store %q, %y : tensor<1024x!tt.ptr<f32>, #b>
    tt.return
  }
}
