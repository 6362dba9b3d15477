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
