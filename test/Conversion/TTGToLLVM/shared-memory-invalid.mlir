// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm)' -o /dev/null 2>&1 | FileCheck %s

// An asynchronous copy can only fill masked-off elements with zeros.
// CHECK: shared-memory-invalid.mlir:[[@LINE+8]]:{{.*}} error: an asynchronous copy fills masked-off elements with zeros; `other` must be zero (or absent)
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @nonzero_other(%p: tensor<64x32x!tt.ptr<f16>, #blocked>, %m: tensor<64x32xi1, #blocked>) {
    %one = arith.constant dense<1.0> : tensor<64x32xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %buf mask %m other %one : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    tt.return
  }
}
