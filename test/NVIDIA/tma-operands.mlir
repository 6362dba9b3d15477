// RUN: tessera-opt %s -split-input-file --ttng-tma-operands | FileCheck %s

// ttng-tma-operands: warpgroup dots read blocks ttng-tma-lowering's pipeline
// put in ring slots (marked reads) from the slots themselves; unmarked reads
// and 32-bit elements keep their copies.

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @from_slots
  tt.func public @from_slots(%ra: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %rb: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // CHECK-NOT: ttg.local_load
    // CHECK-NOT: ttg.local_alloc
    // CHECK: ttng.warp_group_dot %arg0, %arg1, %arg2
    %a = ttg.local_load %ra {ttng.tma_slot} : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %b = ttg.local_load %rb {ttng.tma_slot} : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %ar = ttg.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %d = ttng.warp_group_dot %ar, %bs, %c : tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: @unmarked
  tt.func public @unmarked(%ra: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %c: tensor<64x64xf32, #mma>, %a: tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>) -> tensor<64x64xf32, #mma> {
    // CHECK: %[[B:.*]] = ttg.local_load
    // CHECK: %[[S:.*]] = ttg.local_alloc %[[B]]
    // CHECK: ttng.warp_group_dot %arg2, %[[S]], %arg1
    %b = ttg.local_load %ra : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %d = ttng.warp_group_dot %a, %bs, %c : tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}
