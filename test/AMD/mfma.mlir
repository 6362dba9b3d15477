// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 threads-per-warp=64 target=hip:gfx942}, ttg-accelerate-matmul)' --mlir-print-local-scope | FileCheck %s --check-prefix=ACCEL
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 threads-per-warp=64 target=hip:gfx942}, ttg-accelerate-matmul, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s --check-prefix=LLVM
// The RDNA RUN (gfx1100, wave32): no MFMA there; f16/bf16 dots run on WMMA
// (#ttg.amd_wmma, kWidth 16: one v_wmma_f32_16x16x16 per 16x16 tile and 16
// of K), fp32 dots on FMA units.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 threads-per-warp=32 target=hip:gfx1100}, ttg-accelerate-matmul, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s --check-prefix=RDNA --implicit-check-not=rocdl.mfma

// ttg-accelerate-matmul on CDNA3 (gfx942): an f16 dot with an f32
// accumulator takes the #ttg.amd_mfma layout (16x16x16 tiles, 4 warps as
// 2 x 2) and dot_op operands with kWidth 4; the lowering runs one
// v_mfma_f32_16x16x16f16 per 16x16 output tile and 16 of K (a 32x32x32 dot
// over 2 x 2 warps: one tile per warp, 2 steps of K). bf16 takes the
// bf16_1k instruction on 16-bit integer vectors.

// ACCEL-LABEL: tt.func public @dot(
// ACCEL: tt.dot {{.*}} : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16]}>, kWidth = 4}>>
// LLVM-LABEL: llvm.func @dot
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x16f16 {{.*}} : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// LLVM-NOT: rocdl.mfma
// RDNA-LABEL: llvm.func @dot
// RDNA-COUNT-2: rocdl.wmma.f32.16x16x16.f16 {{.*}} : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
tt.func public @dot(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}

// -----

// RDNA-LABEL: llvm.func @dot_bf16
// RDNA-COUNT-2: rocdl.wmma.f32.16x16x16.bf16 {{.*}} : (vector<16xi16>, vector<16xi16>, vector<8xf32>) -> vector<8xf32>
// LLVM-LABEL: llvm.func @dot_bf16
// LLVM-COUNT-2: rocdl.mfma.f32.16x16x16bf16.1k {{.*}} : (vector<4xi16>, vector<4xi16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
tt.func public @dot_bf16(%a: tensor<32x32xbf16>, %b: tensor<32x32xbf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<32x32xbf16> * tensor<32x32xbf16> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}

// -----

// fp32 operands: v_mfma_f32_16x16x4f32 (instrShape [16, 16, 4], kWidth 1):
// one tile per warp, 8 steps of 4 along K. (RDNA3's WMMA has no fp32 form:
// FMA units there.)
// ACCEL-LABEL: tt.func public @dot_f32
// ACCEL: tt.dot {{.*}} : tensor<32x32xf32, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 4]}>, kWidth = 1}>>
// LLVM-LABEL: llvm.func @dot_f32
// LLVM-COUNT-8: rocdl.mfma.f32.16x16x4f32 {{.*}} : (f32, f32, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// RDNA-LABEL: llvm.func @dot_f32
// RDNA-NOT: rocdl.wmma
// RDNA: llvm.intr.fma
tt.func public @dot_f32(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  tt.return %d : tensor<32x32xf32>
}

// -----

// int8 operands with an i32 accumulator: v_mfma_i32_16x16x32_i8 on CDNA3
// (instrShape [16, 16, 32], kWidth 8: 8 K elements per lane, packed in an
// i64), 2 steps of 32 along K = 64. (RDNA3: FMA units.)
// ACCEL-LABEL: tt.func public @dot_i8
// ACCEL: tt.dot {{.*}} : tensor<32x64xi8, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>, kWidth = 8}>>
// LLVM-LABEL: llvm.func @dot_i8
// LLVM-COUNT-2: rocdl.mfma.i32.16x16x32.i8 {{.*}} : (i64, i64, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// RDNA-LABEL: llvm.func @dot_i8
// RDNA-NOT: rocdl.wmma
tt.func public @dot_i8(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>, %c: tensor<32x32xi32>) -> tensor<32x32xi32> {
  %d = tt.dot %a, %b, %c : tensor<32x64xi8> * tensor<64x32xi8> -> tensor<32x32xi32>
  tt.return %d : tensor<32x32xi32>
}
