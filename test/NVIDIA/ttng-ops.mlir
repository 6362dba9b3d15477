// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

// Round trip of every ttng operation in its custom form (and from the
// generic form), as Triton prints them for Hopper.

// CHECK-LABEL: tt.func @hopper
// CHECK: ttng.fence_async_shared {bCluster = false}
// CHECK: ttng.fence_async_shared {bCluster = true}
// CHECK: %[[D:.*]] = ttng.warp_group_dot %arg0, %arg2, %arg3 {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
// CHECK: %[[E:.*]] = ttng.warp_group_dot %arg1, %arg2, %[[D]], %arg4 {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
// CHECK: %{{.*}}:3 = ttng.warp_group_dot_wait %[[E]], %arg0, %arg2 {pendings = 0 : i32} : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
// CHECK: ttng.warp_group_dot_wait %[[D]] {pendings = 1 : i32} : tensor<64x64xf32, #mma>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @hopper(%a: !ttg.memdesc<64x32xf16, #shared, #smem>,
                  %at: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                  %b: !ttg.memdesc<32x64xf16, #shared, #smem, mutable>,
                  %c: tensor<64x64xf32, #mma>, %use: i1) {
    ttng.fence_async_shared {bCluster = false}
    ttng.fence_async_shared {bCluster = true}
    %d = ttng.warp_group_dot %a, %b, %c {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    %e = ttng.warp_group_dot %at, %b, %d, %use {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    %r:3 = ttng.warp_group_dot_wait %e, %a, %b {pendings = 0 : i32} : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    %s = ttng.warp_group_dot_wait %d {pendings = 1 : i32} : tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// Integer and fp8 operands; without layouts (before layout assignment).
// CHECK-LABEL: tt.func @kinds
// CHECK: ttng.warp_group_dot %arg0, %arg1, %arg2 : !ttg.memdesc<64x32xi8, #shared, #smem> * !ttg.memdesc<32x64xi8, #shared, #smem> -> tensor<64x64xi32>
// CHECK: ttng.warp_group_dot %arg3, %arg4, %arg5 : !ttg.memdesc<64x32xf8E4M3FN, #shared, #smem> * !ttg.memdesc<32x64xf8E5M2, #shared, #smem> -> tensor<64x64xf16>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
tt.func @kinds(%a: !ttg.memdesc<64x32xi8, #shared, #smem>, %b: !ttg.memdesc<32x64xi8, #shared, #smem>, %c: tensor<64x64xi32>,
               %fa: !ttg.memdesc<64x32xf8E4M3FN, #shared, #smem>, %fb: !ttg.memdesc<32x64xf8E5M2, #shared, #smem>, %fc: tensor<64x64xf16>) {
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xi8, #shared, #smem> * !ttg.memdesc<32x64xi8, #shared, #smem> -> tensor<64x64xi32>
  %e = ttng.warp_group_dot %fa, %fb, %fc : !ttg.memdesc<64x32xf8E4M3FN, #shared, #smem> * !ttg.memdesc<32x64xf8E5M2, #shared, #smem> -> tensor<64x64xf16>
  tt.return
}
