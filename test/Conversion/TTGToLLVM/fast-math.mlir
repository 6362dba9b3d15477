// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-ttg-to-llvm)' | FileCheck %s

// NVIDIA: fp32 exp is ex2.approx of x * log2(e), exp2 is ex2.approx.ftz
// (subnormal results flushed: no range fix-up around the SFU instruction),
// fp32 division is div.full.f32, as Triton compiles tl.exp, tl.exp2 and `/`;
// one instruction per element (4 per thread here).
// CHECK-LABEL: llvm.func @fp32_fast
// CHECK: %[[L:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT: %[[M:.*]] = llvm.fmul %{{.*}}, %[[L]] : f32
// CHECK-NEXT: "ex2.approx.f32 $0, $1;", "=f,f" %[[M]]
// CHECK-COUNT-3: "ex2.approx.f32 $0, $1;", "=f,f"
// CHECK-NOT: "ex2.approx.f32
// CHECK-COUNT-4: "ex2.approx.ftz.f32 $0, $1;", "=f,f"
// CHECK-NOT: ex2.approx
// CHECK-COUNT-4: "div.full.f32 $0, $1, $2;", "=f,f,f"
// CHECK-NOT: __nv_
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp32_fast(%x: tensor<512xf32, #blocked>, %y: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> {
    %e = math.exp %x : tensor<512xf32, #blocked>
    %f = math.exp2 %y : tensor<512xf32, #blocked>
    %q = arith.divf %e, %f : tensor<512xf32, #blocked>
    tt.return %q : tensor<512xf32, #blocked>
  }
}

// -----

// Not for other widths: fp64 keeps libdevice and IEEE division, and a scalar
// fp32 division is div.full too.
// CHECK-LABEL: llvm.func @fp64_precise
// CHECK-NOT: ex2.approx
// CHECK: llvm.call @__nv_exp(
// CHECK: llvm.fdiv {{.*}} : f64
// CHECK: "div.full.f32 $0, $1, $2;"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp64_precise(%x: f64, %a: f32, %b: f32) -> (f64, f32) {
    %e = math.exp %x : f64
    %q = arith.divf %e, %x : f64
    %s = arith.divf %a, %b : f32
    tt.return %q, %s : f64, f32
  }
}
