// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-ttg-to-llvm)' | FileCheck %s

// A scalar store is done by every thread (each then reads back its own
// write without a barrier), with no thread test.
// CHECK-LABEL: llvm.func @scalar
// CHECK-NOT: llvm.icmp
// CHECK: llvm.store
// CHECK-NOT: llvm.store
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scalar(%p: !tt.ptr<f32>, %v: f32) {
    tt.store %p, %v : !tt.ptr<f32>
    tt.return
  }
}

// -----

// 16 elements over 128 threads: lanes 16-31 and warps 1-3 hold copies, and
// each thread stores its copy (one store, no thread test).
// CHECK-LABEL: llvm.func @copies
// CHECK-NOT: llvm.icmp
// CHECK: llvm.store
// CHECK-NOT: llvm.store
#copies = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copies(%p: tensor<16x!tt.ptr<f32>, #copies>, %v: tensor<16xf32, #copies>) {
    tt.store %p, %v : tensor<16x!tt.ptr<f32>, #copies>
    tt.return
  }
}

// -----

// Registers that repeat elements (2 elements, 4 registers per thread): each
// element is stored from its first register only (the same thread wrote it).
// CHECK-LABEL: llvm.func @register_copies
// CHECK-COUNT-2: st.global.b32
// CHECK-NOT: st.global
#regs = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @register_copies(%p: tensor<2x!tt.ptr<f32>, #regs>, %v: tensor<2xf32, #regs>, %m: tensor<2xi1, #regs>) {
    tt.store %p, %v, %m : tensor<2x!tt.ptr<f32>, #regs>
    tt.return
  }
}
