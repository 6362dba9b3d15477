// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, convert-ttg-to-llvm)' -o /dev/null 2>&1 | FileCheck %s

// The result must be in the indices' layout.
// CHECK: views-invalid.mlir:[[@LINE+5]]:{{.*}} error: 'tt.gather' op needs the result in the indices' layout
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked5 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @gather_layout_mismatch(%src: tensor<16x32xf32, #blocked>, %idx: tensor<16x8xi32, #blocked>) -> tensor<16x8xf32, #blocked5> {
    %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x32xf32, #blocked>, tensor<16x8xi32, #blocked>) -> tensor<16x8xf32, #blocked5>
    tt.return %g : tensor<16x8xf32, #blocked5>
  }
}
