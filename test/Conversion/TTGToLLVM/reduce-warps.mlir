// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm)' | FileCheck %s

// Sixteen warps along the axis: after the warps' partials are in shared
// memory, each lane reads one of them and four butterfly shuffles over the
// lanes along the axis combine them (not sixteen loads per thread).
// CHECK-LABEL: llvm.func @sixteen_warps
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#b16 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [16], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 16 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sixteen_warps(%p: !tt.ptr<f32>, %x: tensor<8192xf32, #b16>) {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<8192xf32, #b16>) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Four warps: one partial per warp, all four read by every thread.
// CHECK-LABEL: llvm.func @four_warps
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#b4 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @four_warps(%p: !tt.ptr<f32>, %x: tensor<2048xf32, #b4>) {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<2048xf32, #b4>) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Eight warps along the axis but one lane bit: the lanes along the axis
// cannot hold eight partials of one row, so every thread reads its row's
// eight partials (the negative case of the shuffle form).
// CHECK-LABEL: llvm.func @few_axis_lanes
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#b2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @few_axis_lanes(%x: tensor<16x16xf32, #b2>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>> {
    %t = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<16x16xf32, #b2>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>>
    tt.return %t : tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>>
  }
}

// -----

// Sixteen rows a thread, reduced across the four warps: every partial is
// stored through one pointer to this warp's row of the buffer plus the row's
// constant position, so LLVM can merge the sixteen stores into vectors (an
// index folded into one sum per store hides that they are adjacent).
// CHECK-LABEL: llvm.func @rows_in_registers
// CHECK: %[[ROW:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-COUNT-16: llvm.getelementptr %[[ROW]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: nvvm.barrier0
#r = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rows_in_registers(%x: tensor<16x128xf32, #r>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>> {
    %t = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<16x128xf32, #r>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>>
    tt.return %t : tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>>
  }
}
