// fp8 formats an AMD architecture does not convert are errors at the op,
// naming what it takes: gfx942 the FNUZ formats only, gfx90a none.
// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s

// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op converting 'f32' to 'f8E4M3FN' is not supported on this target (gfx942 converts the FNUZ fp8 formats float8e4b8 and float8e5b16, not the OCP ones (float8e4nv, float8e5))
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @ocp(%x: tensor<64xf32, #blocked>) -> tensor<64xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<64xf32, #blocked> -> tensor<64xf8E4M3FN, #blocked>
    tt.return %y : tensor<64xf8E4M3FN, #blocked>
  }
}

// -----

// CHECK: fp8-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.fp_to_fp' op converting 'f8E4M3FNUZ' to 'f32' is not supported on this target (needs an AMD GPU with fp8 conversions (gfx940-942 for float8e4b8/float8e5b16, gfx950 for float8e4nv/float8e5), not gfx90a)
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx90a", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @cdna2(%x: tensor<64xf8E4M3FNUZ, #blocked>) -> tensor<64xf32, #blocked> {
    %y = tt.fp_to_fp %x : tensor<64xf8E4M3FNUZ, #blocked> -> tensor<64xf32, #blocked>
    tt.return %y : tensor<64xf32, #blocked>
  }
}
