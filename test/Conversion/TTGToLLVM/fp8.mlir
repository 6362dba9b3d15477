// RUN: tessera-opt %s -split-input-file --convert-ttg-to-llvm | FileCheck %s

// tt.fp_to_fp to and from 8-bit floats (lib/Conversion/TTGToLLVM/
// ElementwiseOpToLLVM.cpp, PTX cvt from third_party/nvidia/lib/TTGToLLVM/
// TargetInfo.cpp). Each value passes through the low half of a packed
// register; rounding is to nearest even with saturation.

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // f32 -> e4m3: the value is the second source (the low byte), 0 the first.
  // CHECK-LABEL: llvm.func @f32_to_e4m3
  // CHECK: [[Z:%.*]] = llvm.mlir.constant(0.000000e+00 : f32)
  // CHECK: [[P:%.*]] = llvm.inline_asm {{.*}}"cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;", "=h,f,f" [[Z]], %{{.*}} : (f32, f32) -> i16
  // CHECK: llvm.trunc [[P]] : i16 to i8
  tt.func public @f32_to_e4m3(%x: tensor<32xf32, #blocked>) -> tensor<32xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<32xf32, #blocked> -> tensor<32xf8E4M3FN, #blocked>
    tt.return %y : tensor<32xf8E4M3FN, #blocked>
  }

  // f16 -> e5m2 through the f16x2 form, the value in the low half.
  // CHECK-LABEL: llvm.func @f16_to_e5m2
  // CHECK: llvm.bitcast %{{.*}} : f16 to i16
  // CHECK: llvm.zext %{{.*}} : i16 to i32
  // CHECK: llvm.inline_asm {{.*}}"cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;", "=h,r"
  // CHECK: llvm.trunc %{{.*}} : i16 to i8
  tt.func public @f16_to_e5m2(%x: tensor<32xf16, #blocked>) -> tensor<32xf8E5M2, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<32xf16, #blocked> -> tensor<32xf8E5M2, #blocked>
    tt.return %y : tensor<32xf8E5M2, #blocked>
  }

  // bf16 -> e4m3 widens to f32 exactly and rounds once.
  // CHECK-LABEL: llvm.func @bf16_to_e4m3
  // CHECK: llvm.fpext %{{.*}} : bf16 to f32
  // CHECK: cvt.rn.satfinite.e4m3x2.f32
  tt.func public @bf16_to_e4m3(%x: tensor<32xbf16, #blocked>) -> tensor<32xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<32xbf16, #blocked> -> tensor<32xf8E4M3FN, #blocked>
    tt.return %y : tensor<32xf8E4M3FN, #blocked>
  }

  // e4m3 -> f32: to f16x2 (exact), the low half, then fpext.
  // CHECK-LABEL: llvm.func @e4m3_to_f32
  // CHECK: llvm.zext %{{.*}} : i8 to i16
  // CHECK: llvm.inline_asm {{.*}}"cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h"
  // CHECK: llvm.trunc %{{.*}} : i32 to i16
  // CHECK: llvm.bitcast %{{.*}} : i16 to f16
  // CHECK: llvm.fpext %{{.*}} : f16 to f32
  tt.func public @e4m3_to_f32(%x: tensor<32xf8E4M3FN, #blocked>) -> tensor<32xf32, #blocked> {
    %y = tt.fp_to_fp %x : tensor<32xf8E4M3FN, #blocked> -> tensor<32xf32, #blocked>
    tt.return %y : tensor<32xf32, #blocked>
  }

  // e5m2 -> bf16 through f16 and f32 (every e5m2 value is exact in bf16).
  // CHECK-LABEL: llvm.func @e5m2_to_bf16
  // CHECK: cvt.rn.f16x2.e5m2x2
  // CHECK: llvm.fpext %{{.*}} : f16 to f32
  // CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
  tt.func public @e5m2_to_bf16(%x: tensor<32xf8E5M2, #blocked>) -> tensor<32xbf16, #blocked> {
    %y = tt.fp_to_fp %x : tensor<32xf8E5M2, #blocked> -> tensor<32xbf16, #blocked>
    tt.return %y : tensor<32xbf16, #blocked>
  }

  // e5m2 -> e4m3: exact to f16, then one rounding.
  // CHECK-LABEL: llvm.func @e5m2_to_e4m3
  // CHECK: cvt.rn.f16x2.e5m2x2
  // CHECK: cvt.rn.satfinite.e4m3x2.f16x2
  tt.func public @e5m2_to_e4m3(%x: tensor<32xf8E5M2, #blocked>) -> tensor<32xf8E4M3FN, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtne : tensor<32xf8E5M2, #blocked> -> tensor<32xf8E4M3FN, #blocked>
    tt.return %y : tensor<32xf8E4M3FN, #blocked>
  }
}

