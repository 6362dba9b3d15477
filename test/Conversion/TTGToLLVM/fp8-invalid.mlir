// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s

// fp8 conversions the lowering rejects, each with a diagnostic at the op.

// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op rounding toward zero to 'f8E4M3FN' is not supported
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rtz(%x: tensor<32xf32, #blocked>) -> tensor<32xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtz : tensor<32xf32, #blocked> -> tensor<32xf8E4M3FN, #blocked>
    tt.return %y : tensor<32xf8E4M3FN, #blocked>
  }
}

// -----

// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op converting f64 to 'f8E5M2' in one rounding step is not supported
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @f64(%x: tensor<32xf64, #blocked>) -> tensor<32xf8E5M2, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<32xf64, #blocked> -> tensor<32xf8E5M2, #blocked>
    tt.return %y : tensor<32xf8E5M2, #blocked>
  }
}

// -----

// sm_80 has no fp8 conversions.
// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op converting 'f8E4M3FN' to 'f32' is not supported on this target (needs sm_89 or newer)
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sm80(%x: tensor<32xf8E4M3FN, #blocked>) -> tensor<32xf32, #blocked> {
    %y = tt.fp_to_fp %x : tensor<32xf8E4M3FN, #blocked> -> tensor<32xf32, #blocked>
    tt.return %y : tensor<32xf32, #blocked>
  }
}

// -----

// The FNUZ formats are AMD CDNA3's: no NVIDIA GPU converts them.
// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op converting 'f8E5M2FNUZ' to 'f32' is not supported on this target (NVIDIA GPUs convert float8e4nv (e4m3) and float8e5 (e5m2); the FNUZ formats float8e4b8 and float8e5b16 are AMD CDNA3's)
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fnuz(%x: tensor<32xf8E5M2FNUZ, #blocked>) -> tensor<32xf32, #blocked> {
    %y = tt.fp_to_fp %x : tensor<32xf8E5M2FNUZ, #blocked> -> tensor<32xf32, #blocked>
    tt.return %y : tensor<32xf32, #blocked>
  }
}
