// RUN: tessera-opt %s -split-input-file --ttg-allocate-shared-memory --test-print-membar -o /dev/null | FileCheck %s
// RUN: tessera-opt %s -split-input-file --ttg-allocate-shared-memory --ttg-membar | FileCheck %s --check-prefix=PASS
// RUN: tessera-opt %s -split-input-file --test-print-allocation -o /dev/null | FileCheck %s --check-prefix=ALLOC

// Membar (lib/Analysis/Membar.cpp) with the sm_90 ops: a ttng.warp_group_dot
// reads its operand buffers (its MemoryEffects on memdesc values count like a
// local_load's reads), and ttng.fence_async_shared, an effect on no buffer,
// neither needs nor provides a barrier.

// The dot reads X (a slot of a ring) and B. B's store is already behind a
// barrier. A copy into Y, a buffer the dot does not read, needs no barrier
// (negative); the copy into X after the dot does (write after read).
// CHECK-LABEL: membar @dot_then_copy: 1 barriers
// CHECK-NEXT: barrier before ttg.async_copy_global_to_local loc({{.*}}:[[@LINE+28]]:
// PASS-LABEL: tt.func public @dot_then_copy
// PASS: %[[RING:.*]] = ttg.local_alloc
// PASS-NEXT: %[[Y:.*]] = ttg.local_alloc
// PASS: %[[X:.*]] = ttg.memdesc_index %[[RING]]
// PASS-NEXT: ttng.warp_group_dot %[[X]],
// PASS-NEXT: ttg.async_copy_global_to_local %{{.*}}, %[[Y]] :
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttg.async_copy_global_to_local %{{.*}}, %[[X]] :
// PASS-NOT: ttg.barrier
// PASS: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#sb = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_then_copy(%p: tensor<64x32x!tt.ptr<f16>, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %ring = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable>
    %y = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<64x32xf16, #sa, #smem, mutable>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #sb, #smem>
    ttng.fence_async_shared {bCluster = false}
    ttg.barrier
    %x = ttg.memdesc_index %ring[%c0] : !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable> -> !ttg.memdesc<64x32xf16, #sa, #smem, mutable>
    %d = ttng.warp_group_dot %x, %bs, %c : !ttg.memdesc<64x32xf16, #sa, #smem, mutable> * !ttg.memdesc<32x64xf16, #sb, #smem> -> tensor<64x64xf32, #mma>
    %t1 = ttg.async_copy_global_to_local %p, %y : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #sa, #smem, mutable>
    %t2 = ttg.async_copy_global_to_local %p, %x : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #sa, #smem, mutable>
    %g = ttg.async_commit_group tokens %t1, %t2
    %w = ttg.async_wait %g {num = 0 : i32}
    ttg.local_dealloc %ring : !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable>
    ttg.local_dealloc %y : !ttg.memdesc<64x32xf16, #sa, #smem, mutable>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// The dot reads buffers just written with st.shared (local_alloc of a
// tensor): a barrier before the dot. The fence between them is not one
// (it orders the async proxy, not the threads): the barrier still goes in,
// after the fence, right before the dot.
// CHECK-LABEL: membar @stores_then_dot: 1 barriers
// CHECK-NEXT: barrier before ttng.warp_group_dot loc({{.*}}:[[@LINE+18]]:
// PASS-LABEL: tt.func public @stores_then_dot
// PASS: ttg.local_alloc
// PASS-NEXT: ttg.local_alloc
// PASS-NEXT: ttng.fence_async_shared
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttng.warp_group_dot
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#sb = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @stores_then_dot(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #sa, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #sb, #smem>
    ttng.fence_async_shared {bCluster = false}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x32xf16, #sa, #smem> * !ttg.memdesc<32x64xf16, #sb, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// A fence between two unrelated accesses (a store to X, a load of Y) adds no
// barrier (negative); nor does a fence make the later load of X safe: that
// load still gets one.
// CHECK-LABEL: membar @fences: 1 barriers
// CHECK-NEXT: barrier before ttg.local_load loc({{.*}}:[[@LINE+19]]:
// PASS-LABEL: tt.func public @fences
// PASS: ttg.local_store
// PASS-NEXT: ttng.fence_async_shared
// PASS-NEXT: ttg.local_load
// PASS-NEXT: ttng.fence_async_shared
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttg.local_load
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fences(%v: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> {
    %x = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    %y = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    ttg.local_store %v, %x : tensor<512xf32, #blocked> -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    %l = ttg.local_load %y : !ttg.memdesc<512xf32, #shared, #smem, mutable> -> tensor<512xf32, #blocked>
    ttng.fence_async_shared {bCluster = false}
    %m = ttg.local_load %x : !ttg.memdesc<512xf32, #shared, #smem, mutable> -> tensor<512xf32, #blocked>
    %s = arith.addf %l, %m : tensor<512xf32, #blocked>
    tt.return %s : tensor<512xf32, #blocked>
  }
}

// -----

// The K loop ttg-pipeline makes (rings of 3 slots, one async dot in flight):
// the dot reads what the copies of earlier iterations wrote (a barrier
// before it, after the cp.async wait and the fence), and this iteration's
// copies overwrite a slot an earlier dot read (a barrier before the first of
// them, after the warp_group_dot_wait; the second copy, into the other ring,
// needs none after it).
// CHECK-LABEL: membar @pipelined_loop: 2 barriers
// CHECK-DAG: barrier before ttng.warp_group_dot loc({{.*}}:[[@LINE+34]]:
// CHECK-DAG: barrier before ttg.async_copy_global_to_local loc({{.*}}:[[@LINE+36]]:
// PASS-LABEL: tt.func public @pipelined_loop
// PASS: scf.for
// PASS-NEXT: ttg.async_wait {num = 1 : i32}
// PASS: ttng.fence_async_shared
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttng.warp_group_dot
// PASS-NEXT: ttng.warp_group_dot_wait
// PASS-NEXT: ttg.memdesc_index
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttg.async_copy_global_to_local
// PASS-NEXT: ttg.memdesc_index
// PASS-NEXT: ttg.async_copy_global_to_local
// PASS-NEXT: ttg.async_commit_group
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#sa = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#sb = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @pipelined_loop(%pa: tensor<128x32x!tt.ptr<f16>, #blocked>, %pb: tensor<32x128x!tt.ptr<f16>, #blocked1>, %n: i32) -> tensor<128x128xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %ra = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16, #sa, #smem, mutable>
    %rb = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x32x128xf16, #sb, #smem, mutable>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %rd = %c0, %wr = %c2) -> (tensor<128x128xf32, #mma>, i32, i32) : i32 {
      %w0 = ttg.async_wait {num = 1 : i32}
      %va = ttg.memdesc_index %ra[%rd] : !ttg.memdesc<3x128x32xf16, #sa, #smem, mutable> -> !ttg.memdesc<128x32xf16, #sa, #smem, mutable>
      %vb = ttg.memdesc_index %rb[%rd] : !ttg.memdesc<3x32x128xf16, #sb, #smem, mutable> -> !ttg.memdesc<32x128xf16, #sb, #smem, mutable>
      ttng.fence_async_shared {bCluster = false}
      %d = ttng.warp_group_dot %va, %vb, %acc {isAsync = true} : !ttg.memdesc<128x32xf16, #sa, #smem, mutable> * !ttg.memdesc<32x128xf16, #sb, #smem, mutable> -> tensor<128x128xf32, #mma>
      %dw:3 = ttng.warp_group_dot_wait %d, %va, %vb {pendings = 1 : i32} : tensor<128x128xf32, #mma>, !ttg.memdesc<128x32xf16, #sa, #smem, mutable>, !ttg.memdesc<32x128xf16, #sb, #smem, mutable>
      %xa = ttg.memdesc_index %ra[%wr] : !ttg.memdesc<3x128x32xf16, #sa, #smem, mutable> -> !ttg.memdesc<128x32xf16, #sa, #smem, mutable>
      %ta = ttg.async_copy_global_to_local %pa, %xa : tensor<128x32x!tt.ptr<f16>, #blocked> -> <128x32xf16, #sa, #smem, mutable>
      %xb = ttg.memdesc_index %rb[%wr] : !ttg.memdesc<3x32x128xf16, #sb, #smem, mutable> -> !ttg.memdesc<32x128xf16, #sb, #smem, mutable>
      %tb = ttg.async_copy_global_to_local %pb, %xb : tensor<32x128x!tt.ptr<f16>, #blocked1> -> <32x128xf16, #sb, #smem, mutable>
      %g = ttg.async_commit_group tokens %ta, %tb
      %rd1 = arith.addi %rd, %c1 : i32
      %wr1 = arith.addi %wr, %c1 : i32
      scf.yield %dw#0, %rd1, %wr1 : tensor<128x128xf32, #mma>, i32, i32
    }
    %f = ttng.warp_group_dot_wait %r#0 {pendings = 0 : i32} : tensor<128x128xf32, #mma>
    %w1 = ttg.async_wait {num = 0 : i32}
    ttg.local_dealloc %ra : !ttg.memdesc<3x128x32xf16, #sa, #smem, mutable>
    ttg.local_dealloc %rb : !ttg.memdesc<3x32x128xf16, #sb, #smem, mutable>
    tt.return %f : tensor<128x128xf32, #mma>
  }
}

// -----

// ttg-allocate-shared-memory honours the operand buffers' alignment = 1024
// (wgmma descriptors assume the swizzle pattern starts on a 1024-byte
// boundary): after a 2560-byte buffer (5 x 16 x 16 x 2) the next free byte is
// 2560, but A goes to 3072 and B to 5120.
// ALLOC-LABEL: allocation @aligned: 7168 bytes
// ALLOC-NEXT: explicit 2560 bytes at 0, live
// ALLOC-NEXT: explicit 2048 bytes at 3072, live
// ALLOC-NEXT: explicit 2048 bytes at 5120, live
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
#sb = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#plain = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @aligned(%a: tensor<64x16xf16, #blocked>, %b: tensor<16x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %ring = ttg.local_alloc : () -> !ttg.memdesc<5x16x16xf16, #plain, #smem, mutable>
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x16xf16, #blocked>) -> !ttg.memdesc<64x16xf16, #sa, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<16x64xf16, #blocked1>) -> !ttg.memdesc<16x64xf16, #sb, #smem>
    ttng.fence_async_shared {bCluster = false}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x16xf16, #sa, #smem> * !ttg.memdesc<16x64xf16, #sb, #smem> -> tensor<64x64xf32, #mma>
    ttg.local_dealloc %ring : !ttg.memdesc<5x16x16xf16, #plain, #smem, mutable>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}
