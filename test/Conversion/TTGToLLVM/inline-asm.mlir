// RUN: tessera-opt %s -split-input-file --convert-ttg-to-llvm | FileCheck %s

// tt.elementwise_inline_asm (lib/Conversion/TTGToLLVM/ElementwiseOpToLLVM.cpp):
// one asm statement per packed_element elements of a thread; values narrower
// than 32 bits share a 32-bit register, as a vector.

// packed_element = 1: one statement per element; the pure asm has no side
// effects, the impure one keeps them.
// CHECK-LABEL: llvm.func @funnel_shift
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32) -> i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r"
// CHECK-NOT: llvm.inline_asm
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @funnel_shift(%a: tensor<64xi32, #blocked>, %b: tensor<64xi32, #blocked>, %c: tensor<64xi32, #blocked>) -> (tensor<64xi32, #blocked>, tensor<64xi32, #blocked>) {
    %r = tt.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %a, %b, %c : tensor<64xi32, #blocked>, tensor<64xi32, #blocked>, tensor<64xi32, #blocked> -> tensor<64xi32, #blocked>
    %s = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = false} %a : tensor<64xi32, #blocked> -> tensor<64xi32, #blocked>
    tt.return %r, %s : tensor<64xi32, #blocked>, tensor<64xi32, #blocked>
  }
}

// -----

// packed_element = 4 with i8 in and f32 out: four u8 in one 32-bit register
// ($4), four f32 results ($0-$3) returned as a struct.
// CHECK-LABEL: llvm.func @u8_to_f32
// CHECK: llvm.insertelement {{.*}} : vector<4xi8>
// CHECK: [[R:%.*]] = llvm.inline_asm asm_dialect = att "{{.*}}", "=r,=r,=r,=r,r" %{{.*}} : (vector<4xi8>) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.extractvalue [[R]][0]
// CHECK: llvm.extractvalue [[R]][3]
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @u8_to_f32(%a: tensor<128xi8, #blocked>) -> tensor<128xf32, #blocked> {
    %r = tt.elementwise_inline_asm "{ .reg .b8 a<4>; mov.b32 {a0, a1, a2, a3}, $4; cvt.rn.f32.u8 $0, a0; cvt.rn.f32.u8 $1, a1; cvt.rn.f32.u8 $2, a2; cvt.rn.f32.u8 $3, a3; }" {constraints = "=r,=r,=r,=r,r", packed_element = 4 : i32, pure = true} %a : tensor<128xi8, #blocked> -> tensor<128xf32, #blocked>
    tt.return %r : tensor<128xf32, #blocked>
  }
}

// -----

// Scalars: one statement; several results come back as a struct.
// CHECK-LABEL: llvm.func @scalars
// CHECK: [[R:%.*]] = llvm.inline_asm asm_dialect = att "mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r" %arg0 : (i32) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.extractvalue [[R]][1]
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scalars(%a: i32) -> (i32, i32) {
    %r:2 = tt.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=r,=r,r", packed_element = 1 : i32, pure = true} %a : i32 -> i32, i32
    tt.return %r#0, %r#1 : i32, i32
  }
}
