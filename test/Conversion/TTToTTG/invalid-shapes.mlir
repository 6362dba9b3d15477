// RUN: tessera-opt %s -split-input-file --convert-tt-to-ttg="num-warps=4" -verify-diagnostics
// RUN: not tessera-opt %s -split-input-file --convert-tt-to-ttg="num-warps=4 threads-per-warp=0" 2>&1 | FileCheck %s --check-prefix=TPW
// RUN: not tessera-opt %s -split-input-file --convert-tt-to-ttg="num-warps=4 num-ctas=2" 2>&1 | FileCheck %s --check-prefix=CTAS
// Tensors that cannot be given a layout are rejected at their op, not left to
// crash a later pass: layouts need static power-of-two dimensions and a rank of
// at least one. Bad pass options are errors too.
// TPW: error: threads-per-warp must be a power of two from 1 to 64, got 0
// CTAS: error: num-ctas must be 1 (CTA clusters are not supported), got 2

tt.func @not_pow2(%a: tensor<64xf32>) {
  %c = arith.constant dense<1.0> : tensor<64xf32>
  // expected-error @+1 {{'arith.constant' op has a tensor 'tensor<63xf32>' whose dimensions are not all static powers of two, which layouts need}}
  %d = arith.constant dense<1.0> : tensor<63xf32>
  tt.return
}

// -----

// expected-error @+1 {{'tt.func' op has a 0-d tensor ('tensor<f32>'), which cannot be given a layout; use a scalar}}
tt.func @rank0(%p: !tt.ptr<f32>, %v: tensor<f32>) {
  tt.return
}

// -----

// A legal kernel converts (the positive case beside the errors).
tt.func @fine(%a: tensor<64xf32>) -> tensor<64xf32> {
  %c = arith.addf %a, %a : tensor<64xf32>
  tt.return %c : tensor<64xf32>
}

// -----

// At most 1024 elements of one tensor per thread: 131072 elements over 4 warps
// of 32 threads is exactly the limit, twice that is past it.
tt.func @per_thread_limit() {
  %ok = tt.make_range {end = 131072 : i32, start = 0 : i32} : tensor<131072xi32>
  // expected-error @+1 {{'tt.make_range' op has a tensor 'tensor<262144xi32>' of 262144 elements: 2048 per thread with 4 warps of 32 threads, more than the limit of 1024}}
  %big = tt.make_range {end = 262144 : i32, start = 0 : i32} : tensor<262144xi32>
  tt.return
}

// -----

// Ops of other dialects at module level are rejected by the lowering itself.
// expected-error @+1 {{'arith.constant' op must be inside a function (only functions and globals may appear at module level)}}
%c = arith.constant 1 : i32
tt.func public @k() {
  tt.return
}
