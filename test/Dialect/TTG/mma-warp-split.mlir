// RUN: tessera-opt %s --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=8 target=cuda:89}, ttg-accelerate-matmul)' | FileCheck %s --check-prefix=W8
// RUN: tessera-opt %s --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:89}, ttg-accelerate-matmul)' | FileCheck %s --check-prefix=W4

// The warp split of an mma.sync tile (the cuda backend's getMmaV2Warps): each
// warp reads the A rows and B columns of its part from shared memory, so the
// split reads the fewest elements, M * wn + N * wm per K. 8 warps on 128x128
// split 4 x 2 (A twice, B four times: 6 tiles' worth, against 9 for 8 x 1),
// 4 warps 2 x 2; a 16-row tile cannot split along m (negative: no warp gets
// less than one 16-row instruction tile) and puts every warp along n.
// W8-DAG: #[[A:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2]
// W8-DAG: #[[B:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 8]
// W8: tt.dot {{.*}} -> tensor<128x128xf32, #[[A]]>
// W8: tt.dot {{.*}} -> tensor<16x128xf32, #[[B]]>
// W4: warpsPerCTA = [2, 2], instrShape
// W4: warpsPerCTA = [1, 4], instrShape
tt.func public @splits(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<16x64xf16>) -> (tensor<128x128xf32>, tensor<16x128xf32>) {
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tt.dot %a, %b, %z : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  %z16 = arith.constant dense<0.0> : tensor<16x128xf32>
  %e = tt.dot %c, %b, %z16 : tensor<16x64xf16> * tensor<64x128xf16> -> tensor<16x128xf32>
  tt.return %d, %e : tensor<128x128xf32>, tensor<16x128xf32>
}
