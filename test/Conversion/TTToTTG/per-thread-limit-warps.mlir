// RUN: tessera-opt %s --convert-tt-to-ttg="num-warps=8" | FileCheck %s
// RUN: not tessera-opt %s --convert-tt-to-ttg="num-warps=4" 2>&1 | FileCheck %s --check-prefix=FOUR
// The per-thread limit counts the threads of the launch: 262144 elements are
// 1024 per thread with 8 warps (accepted) and 2048 with 4 (rejected).
// CHECK: tt.make_range {{.*}} : tensor<262144xi32, #
// FOUR: error: 'tt.make_range' op has a tensor 'tensor<262144xi32>' of 262144 elements: 2048 per thread with 4 warps of 32 threads, more than the limit of 1024
tt.func @big() -> tensor<262144xi32> {
  %r = tt.make_range {end = 262144 : i32, start = 0 : i32} : tensor<262144xi32>
  tt.return %r : tensor<262144xi32>
}
