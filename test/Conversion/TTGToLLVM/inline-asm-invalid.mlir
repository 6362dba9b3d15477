// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s

// Inline asm the lowering rejects, each with a diagnostic at the op.

// CHECK: inline-asm-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.elementwise_inline_asm' op constraints "=r,r" name 2 operands, but packed_element = 4 needs 5 (4 result and 1 argument registers)
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @count(%a: tensor<128xi8, #blocked>) -> tensor<128xf32, #blocked> {
    %r = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %a : tensor<128xi8, #blocked> -> tensor<128xf32, #blocked>
    tt.return %r : tensor<128xf32, #blocked>
  }
}

// -----

// CHECK: inline-asm-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.elementwise_inline_asm' op packed_element = 4 does not divide the 2 elements each thread holds
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @divide(%a: tensor<64xi8, #blocked>) -> tensor<64xi8, #blocked> {
    %r = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %a : tensor<64xi8, #blocked> -> tensor<64xi8, #blocked>
    tt.return %r : tensor<64xi8, #blocked>
  }
}
