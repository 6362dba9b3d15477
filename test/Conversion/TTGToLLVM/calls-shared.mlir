// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// A noinline function that uses shared memory receives its base last (the
// call's virtual buffer); the kernel passes @global_smem plus the buffer's
// offset, after a barrier (its own reduce used the same bytes).
// CHECK: module attributes {{.*}}ttg.shared = 16 : i32
// CHECK-LABEL: llvm.func internal @helper
// CHECK-SAME: (%{{.*}}: !llvm.struct<{{.*}}>, %[[BASE:.*]]: !llvm.ptr<3>) -> f32
// CHECK-NOT: @global_smem
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @kernel
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.call @helper(%{{.*}}, %[[SMEM]]) : (!llvm.struct<{{.*}}>, !llvm.ptr<3>) -> f32
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @helper(%x: tensor<512xf32, #blocked>) -> f32 attributes {noinline = true} {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    tt.return %a : f32
  }
  tt.func public @kernel(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %b = tt.call @helper(%x) : (tensor<512xf32, #blocked>) -> f32
    %d = arith.addf %a, %b : f32
    tt.store %p, %d : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A noinline function without shared memory keeps its signature.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-LABEL: llvm.func internal @plain(%{{.*}}: f32) -> f32
// CHECK-LABEL: llvm.func @caller
// CHECK: llvm.call @plain(%{{.*}}) : (f32) -> f32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @plain(%x: f32) -> f32 attributes {noinline = true} {
    %y = arith.addf %x, %x : f32
    tt.return %y : f32
  }
  tt.func public @caller(%x: f32, %p: !tt.ptr<f32>) {
    %y = tt.call @plain(%x) : (f32) -> f32
    tt.store %p, %y : !tt.ptr<f32>
    tt.return
  }
}
