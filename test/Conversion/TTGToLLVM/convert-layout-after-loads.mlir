// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// A tile loaded from global memory and moved through shared memory (a
// transpose): a barrier comes before the exchange's stores too, so that all
// of a thread's loads are issued before its first shared store (ptxas would
// otherwise interleave them and reuse the first load's registers for a later
// load, which then waits for the first to arrive).
// CHECK-LABEL: llvm.func @loaded_tile
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loaded_tile(%p: tensor<64x64x!tt.ptr<f32>, #rows>) -> tensor<64x64xf32, #cols> {
    %x = tt.load %p : tensor<64x64x!tt.ptr<f32>, #rows>
    %y = ttg.convert_layout %x : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
}

// -----

// Through element-wise ops of the one loaded tensor (a splat operand does not
// count as a second tensor): the same.
// CHECK-LABEL: llvm.func @scaled_tile
// CHECK: llvm.fmul
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scaled_tile(%p: tensor<64x64x!tt.ptr<f32>, #rows>, %s: f32) -> tensor<64x64xf32, #cols> {
    %x = tt.load %p : tensor<64x64x!tt.ptr<f32>, #rows>
    %k = tt.splat %s : f32 -> tensor<64x64xf32, #rows>
    %z = arith.mulf %x, %k : tensor<64x64xf32, #rows>
    %y = ttg.convert_layout %z : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
}

// -----

// Not where two loaded tensors meet (not one value's loads), nor for a value
// that was not loaded in this block, nor where a thread's part is one 16-byte
// access (4 x f32 of an 8 x 64 tile here): one barrier, between the stores and the loads.
// CHECK-LABEL: llvm.func @two_tensors
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @argument_tile
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @small_tile
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_tensors(%p: tensor<64x64x!tt.ptr<f32>, #rows>, %q: tensor<64x64x!tt.ptr<f32>, #rows>) -> tensor<64x64xf32, #cols> {
    %a = tt.load %p : tensor<64x64x!tt.ptr<f32>, #rows>
    %b = tt.load %q : tensor<64x64x!tt.ptr<f32>, #rows>
    %z = arith.addf %a, %b : tensor<64x64xf32, #rows>
    %y = ttg.convert_layout %z : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
  tt.func public @argument_tile(%x: tensor<64x64xf32, #rows>) -> tensor<64x64xf32, #cols> {
    %y = ttg.convert_layout %x : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
  tt.func public @small_tile(%p: tensor<8x64x!tt.ptr<f32>, #rows>) -> tensor<8x64xf32, #cols> {
    %x = tt.load %p : tensor<8x64x!tt.ptr<f32>, #rows>
    %y = ttg.convert_layout %x : tensor<8x64xf32, #rows> -> tensor<8x64xf32, #cols>
    tt.return %y : tensor<8x64xf32, #cols>
  }
}

// -----

// A tensor of pointers built from loaded offsets (found by fuzz-smoke: the
// rule measured a pointer element's width with the width of a number and
// crashed): pointers are 8 bytes, 32 a thread here, so the barrier comes
// before the stores as for any loaded value.
// CHECK-LABEL: llvm.func @loaded_pointers
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> i32
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loaded_pointers(%idx: tensor<32x32x!tt.ptr<i32>, #rows>, %base: !tt.ptr<f16>) -> tensor<32x32x!tt.ptr<f16>, #cols> {
    %o = tt.load %idx : tensor<32x32x!tt.ptr<i32>, #rows>
    %b = tt.splat %base : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>, #rows>
    %p = tt.addptr %b, %o : tensor<32x32x!tt.ptr<f16>, #rows>, tensor<32x32xi32, #rows>
    %y = ttg.convert_layout %p : tensor<32x32x!tt.ptr<f16>, #rows> -> tensor<32x32x!tt.ptr<f16>, #cols>
    tt.return %y : tensor<32x32x!tt.ptr<f16>, #cols>
  }
}

// -----

// Where a barrier already comes right before the conversion (ttg-membar's,
// after an earlier use of the buffer), it is the one before the stores: no
// second one next to it.
// CHECK-LABEL: llvm.func @after_barrier
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @after_barrier(%p: tensor<64x64x!tt.ptr<f32>, #rows>) -> tensor<64x64xf32, #cols> {
    %x = tt.load %p : tensor<64x64x!tt.ptr<f32>, #rows>
    ttg.barrier
    %y = ttg.convert_layout %x : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
}
