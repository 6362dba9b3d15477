// fp8 on AMD: gfx940-942 convert and multiply the FNUZ formats (f8E4M3FNUZ,
// f8E5M2FNUZ: tl.float8e4b8 / tl.float8e5b16). A dot of them takes
// #ttg.amd_mfma with instrShape [16, 16, 32] and kWidth 8 (8 fp8 values per
// lane packed in an i64), one v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} per
// 16x16 tile and 32 of K, the operand formats choosing the instruction.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 threads-per-warp=64 target=hip:gfx942}, ttg-accelerate-matmul)' --mlir-print-local-scope | FileCheck %s --check-prefix=ACCEL
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 threads-per-warp=64 target=hip:gfx942}, ttg-accelerate-matmul, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s --check-prefix=LLVM

// ACCEL-LABEL: tt.func public @dot_e4
// ACCEL: tt.dot {{.*}} : tensor<32x64xf8E4M3FNUZ, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>, kWidth = 8}>>
// LLVM-LABEL: llvm.func @dot_e4
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x32.fp8.fp8 {{.*}} : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// LLVM-NOT: rocdl.mfma
tt.func public @dot_e4(%a: tensor<32x64xf8E4M3FNUZ>, %b: tensor<64x32xf8E4M3FNUZ>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<32x64xf8E4M3FNUZ> * tensor<64x32xf8E4M3FNUZ> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}

// -----

// Mixed formats: A e4m3 ("fp8"), B e5m2 ("bf8"), and the other way round.
// ACCEL-LABEL: tt.func public @dot_mixed
// ACCEL: instrShape = [16, 16, 32]
// LLVM-LABEL: llvm.func @dot_mixed
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x32.fp8.bf8
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x32.bf8.fp8
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x32.bf8.bf8
tt.func public @dot_mixed(%a: tensor<32x64xf8E4M3FNUZ>, %b: tensor<64x32xf8E5M2FNUZ>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<32x64xf8E4M3FNUZ> * tensor<64x32xf8E5M2FNUZ> -> tensor<32x32xf32>
  %bt = tt.trans %a {order = array<i32: 1, 0>} : tensor<32x64xf8E4M3FNUZ> -> tensor<64x32xf8E4M3FNUZ>
  %at = tt.trans %b {order = array<i32: 1, 0>} : tensor<64x32xf8E5M2FNUZ> -> tensor<32x64xf8E5M2FNUZ>
  %e = tt.dot %at, %bt, %d : tensor<32x64xf8E5M2FNUZ> * tensor<64x32xf8E4M3FNUZ> -> tensor<32x32xf32>
  %f = tt.dot %at, %b, %e : tensor<32x64xf8E5M2FNUZ> * tensor<64x32xf8E5M2FNUZ> -> tensor<32x32xf32>
  tt.return %f : tensor<32x32xf32>
}

// -----

// Conversions: from fp8 through v_cvt_f32_{fp8,bf8} (then exactly to f16),
// to fp8 through v_cvt_pk_{fp8,bf8}_f32 after saturating to the largest
// finite value (240 for e4m3fnuz, 57344 for e5m2fnuz; NaN kept).
// LLVM-LABEL: llvm.func @convert
// LLVM: rocdl.cvt.f32.fp8
// LLVM: llvm.fptrunc {{.*}} : f32 to f16
// LLVM: rocdl.cvt.f32.bf8
// LLVM: llvm.mlir.constant(2.400000e+02 : f32)
// LLVM: llvm.intr.maxnum
// LLVM: llvm.intr.minnum
// LLVM: llvm.fcmp "uno"
// LLVM: rocdl.cvt.pk.fp8.f32
// LLVM: llvm.mlir.constant(5.734400e+04 : f32)
// LLVM: rocdl.cvt.pk.bf8.f32
tt.func public @convert(%a: tensor<64xf8E4M3FNUZ>, %b: tensor<64xf8E5M2FNUZ>, %x: tensor<64xf32>) -> (tensor<64xf16>, tensor<64xf32>, tensor<64xf8E4M3FNUZ>, tensor<64xf8E5M2FNUZ>) {
  %0 = tt.fp_to_fp %a : tensor<64xf8E4M3FNUZ> -> tensor<64xf16>
  %1 = tt.fp_to_fp %b : tensor<64xf8E5M2FNUZ> -> tensor<64xf32>
  %2 = tt.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<64xf8E4M3FNUZ>
  %3 = tt.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<64xf8E5M2FNUZ>
  tt.return %0, %1, %2, %3 : tensor<64xf16>, tensor<64xf32>, tensor<64xf8E4M3FNUZ>, tensor<64xf8E5M2FNUZ>
}
