// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:89}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:75}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=SM75
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:80}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=SM80
// A target no backend of this build lowers has no tensor-core layouts: every
// dot stays where it was.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=other:1}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=NONE

// ttg-accelerate-matmul (lib/Dialect/TTG/Transforms/AccelerateMatmul.cpp); the
// layouts are the cuda backend's answer (mma.sync from sm_80).

// A K loop: `acc + dot(a, b, 0)` becomes `dot(a, b, acc)`, the dot moves to
// mma / dot_op layouts (64x64: 2x2 warps, the split that reads the fewest operand elements from shared memory), and the accumulator is
// carried in the mma layout: its zero is made in that layout (the conversion
// of a splat constant folds), one conversion after the loop.
// CHECK: #[[MMA:.*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @k_loop
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x64xf32, #[[MMA]]>)
// CHECK: %[[A:.*]] = ttg.convert_layout {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>>
// CHECK: %[[B:.*]] = ttg.convert_layout {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #[[MMA]], kWidth = 2}>>
// CHECK: %[[D:.*]] = tt.dot %[[A]], %[[B]], %[[ACC]]
// CHECK-NOT: arith.addf
// CHECK: scf.yield %[[D]] : tensor<64x64xf32, #[[MMA]]>
// CHECK: ttg.convert_layout %[[LOOP]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #{{.*}}>
// Before sm_80 there is no mma.sync m16n8k16: the dot keeps its blocked layout
// (the accumulation still folds into it).
// SM75-NOT: nvidia_mma
// SM75-LABEL: tt.func public @k_loop
// SM75: tt.dot {{.*}} -> tensor<64x64xf32, #blocked{{[0-9]*}}>
// NONE-NOT: nvidia_mma
// NONE-LABEL: tt.func public @k_loop
// NONE: tt.dot {{.*}} -> tensor<64x64xf32, #blocked{{[0-9]*}}>
// NONE-NOT: nvidia_mma
tt.func public @k_loop(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tt.load %ra : tensor<64x32x!tt.ptr<f16>>
    %y = tt.load %rb : tensor<32x64x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %s = arith.addf %acc, %d : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  tt.store %rc, %r : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// Negative cases: f32 operands stay (exact FMA path); an accumulator the
// loop also uses in its own layout is not carried in the mma layout.
// CHECK-LABEL: tt.func public @not_accelerated
// CHECK: tt.dot {{.*}} -> tensor<32x32xf32, #{{blocked[0-9]*}}>
// CHECK: scf.for {{.*}} -> (tensor<32x32xf32, #{{blocked[0-9]*}}>)
// CHECK: tt.dot {{.*}} -> tensor<32x32xf32, #[[MMA2:mma[0-9]*]]>
tt.func public @not_accelerated(%p: !tt.ptr<f32>, %q: !tt.ptr<f16>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %pa = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %x = tt.load %pa : tensor<32x32x!tt.ptr<f32>>
  %d = tt.dot %x, %x, %zero : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  tt.store %pa, %d : tensor<32x32x!tt.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %qa = tt.splat %q : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<32x32xf32>) : i32 {
    %h = tt.load %qa : tensor<32x32x!tt.ptr<f16>>
    tt.store %pa, %acc : tensor<32x32x!tt.ptr<f32>>
    %e = tt.dot %h, %h, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %e : tensor<32x32xf32>
  }
  tt.store %pa, %r : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// fp8 operands (e5m2, e4m3, mixed) run on the tensor cores as an f16 dot: each
// operand is widened exactly with tt.fp_to_fp before its dot_op conversion.
// Before sm_89 there are no fp8 conversions (and before sm_80 no f16 form):
// the dot is left exactly as it was (no fp_to_fp left behind), and its own
// lowering reports fp8 as unsupported. An fp8 dot into an f16
// accumulator is not widened (mma.sync accumulates the f16 form in f32 only).
// CHECK-LABEL: tt.func public @fp8_dots
// CHECK: %[[A:.*]] = tt.fp_to_fp %{{.*}} : tensor<64x32xf8E5M2, #{{.*}}> -> tensor<64x32xf16, #
// CHECK: %[[B:.*]] = tt.fp_to_fp %{{.*}} : tensor<32x64xf8E4M3FN, #{{.*}}> -> tensor<32x64xf16, #
// CHECK: ttg.convert_layout %[[A]] {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0
// CHECK: ttg.convert_layout %[[B]] {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #mma>
// CHECK-NOT: tt.fp_to_fp
// CHECK: tt.dot {{.*}} : tensor<64x32xf8E5M2, #{{blocked[0-9]*}}> * tensor<32x64xf8E5M2, #{{blocked[0-9]*}}> -> tensor<64x64xf16, #{{blocked[0-9]*}}>
// SM80-LABEL: tt.func public @fp8_dots
// SM80-NOT: tt.fp_to_fp
// SM80: tt.dot {{.*}} : tensor<64x32xf8E5M2, #{{.*}}> * tensor<32x64xf8E4M3FN, #{{.*}}> -> tensor<64x64xf32
// SM75-LABEL: tt.func public @fp8_dots
// SM75-NOT: tt.fp_to_fp
// SM75: tt.dot {{.*}} : tensor<64x32xf8E5M2, #{{.*}}> * tensor<32x64xf8E4M3FN, #{{.*}}> -> tensor<64x64xf32
tt.func public @fp8_dots(%pa: !tt.ptr<f8E5M2>, %pb: !tt.ptr<f8E4M3FN>, %pc: !tt.ptr<f32>, %pb5: !tt.ptr<f8E5M2>, %ph: !tt.ptr<f16>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %zh = arith.constant dense<0.0> : tensor<64x64xf16>
  %ra = tt.splat %pa : !tt.ptr<f8E5M2> -> tensor<64x32x!tt.ptr<f8E5M2>>
  %rb = tt.splat %pb : !tt.ptr<f8E4M3FN> -> tensor<32x64x!tt.ptr<f8E4M3FN>>
  %rb5 = tt.splat %pb5 : !tt.ptr<f8E5M2> -> tensor<32x64x!tt.ptr<f8E5M2>>
  %rc = tt.splat %pc : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  %rh = tt.splat %ph : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
  %a = tt.load %ra : tensor<64x32x!tt.ptr<f8E5M2>>
  %b = tt.load %rb : tensor<32x64x!tt.ptr<f8E4M3FN>>
  %b5 = tt.load %rb5 : tensor<32x64x!tt.ptr<f8E5M2>>
  %d = tt.dot %a, %b, %zero : tensor<64x32xf8E5M2> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  tt.store %rc, %d : tensor<64x64x!tt.ptr<f32>>
  %h = tt.dot %a, %b5, %zh : tensor<64x32xf8E5M2> * tensor<32x64xf8E5M2> -> tensor<64x64xf16>
  tt.store %rh, %h : tensor<64x64x!tt.ptr<f16>>
  tt.return
}

