// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

// Round trip of every ttg layout, type and operation in its custom form (and
// from the generic form). Layouts print as Triton prints them, under Triton's
// alias names.

// Keys may come in any order and print in Triton's; CTA keys print only for
// a layout that is not the one-CTA layout.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #blocked1 = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
// CHECK: #blocked2 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: #blocked3 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #blocked4 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
// CHECK: #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK: #mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK: #mma2 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0], instrShape = [16, 128, 16]}>
// CHECK: #shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK: #shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK: #shared2 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0], CTAsPerCGA = [2], CTASplitNum = [1], CTAOrder = [0]}>
// CHECK: #shared3 = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8, fp4Padded = true}>
// CHECK: #shared4 = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 32, CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
// CHECK: #smem = #ttg.shared_memory
// CHECK-LABEL: tt.func @layouts
// CHECK-SAME: tensor<32x64xf16, #blocked>
// CHECK-SAME: tensor<2x16x32xf32, #blocked1>
// CHECK-SAME: tensor<128xi32, #blocked2>
// CHECK-SAME: tensor<32x64xf16, #blocked3>
// CHECK-SAME: tensor<32x64xf16, #blocked4>
// CHECK-SAME: tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
// CHECK-SAME: tensor<16xf32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 0, parent = #blocked1}>}>>
// CHECK-SAME: tensor<64x64xf32, #mma>
// CHECK-SAME: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
// CHECK-SAME: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
// CHECK-SAME: tensor<64x64xf32, #mma1>
// CHECK-SAME: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma1, kWidth = 2}>>
// CHECK-SAME: tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
// CHECK-SAME: tensor<64x128xf32, #mma2>
// CHECK-SAME: !ttg.memdesc<32x64xf16, #shared, #smem>
// CHECK-SAME: !ttg.memdesc<3x32x64xf16, #shared1, #smem, mutable>
// CHECK-SAME: !ttg.memdesc<16x64xf16, #shared1, #smem, mutable, 32x64>
// CHECK-SAME: !ttg.memdesc<16x64xf16, #shared1, #smem, 32x64>
// CHECK-SAME: !ttg.memdesc<4xi64, #shared2, #smem, mutable>
// CHECK-SAME: !ttg.memdesc<64x64xi8, #shared3, #smem>
// CHECK-SAME: !ttg.memdesc<64x64xf32, #shared4, #smem>
// CHECK-SAME: !ttg.async.token
// CHECK-SAME: attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [2, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]}>}
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
#unordered = #ttg.blocked<{order = [0], warpsPerCTA = [4], threadsPerWarp = [32], sizePerThread = [4]}>
#trivialcta = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#cluster = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#mma2 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#mma3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma3c = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0], instrShape = [16, 128, 16]}>
#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#swc = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0], CTAsPerCGA = [2], CTASplitNum = [1], CTAOrder = [0]}>
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#nvfp4 = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8, fp4Padded = true}>
#nvc = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 32, CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @layouts(
    %a: tensor<32x64xf16, #blocked>,
    %b: tensor<2x16x32xf32, #blocked3>,
    %c: tensor<128xi32, #unordered>,
    %d: tensor<32x64xf16, #trivialcta>,
    %e: tensor<32x64xf16, #cluster>,
    %f: tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>,
    %g: tensor<16xf32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 0, parent = #blocked3}>}>>,
    %h: tensor<64x64xf32, #mma2>,
    %i: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma2, kWidth = 2}>>,
    %j: tensor<32x64xf16, #ttg.dot_op<{kWidth = 2, parent = #mma2, opIdx = 1}>>,
    %k: tensor<64x64xf32, #mma3>,
    %l: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma3, kWidth = 2}>>,
    %m: tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>,
    %n: tensor<64x128xf32, #mma3c>,
    %o: !ttg.memdesc<32x64xf16, #sw, #smem>,
    %p: !ttg.memdesc<3x32x64xf16, #nv, #smem, mutable>,
    %q: !ttg.memdesc<16x64xf16, #nv, #smem, mutable, 32x64>,
    %r: !ttg.memdesc<16x64xf16, #nv, #smem, 32x64>,
    %s: !ttg.memdesc<4xi64, #swc, #smem, mutable>,
    %t: !ttg.memdesc<64x64xi8, #nvfp4, #smem>,
    %u: !ttg.memdesc<64x64xf32, #nvc, #smem>,
    %v: !ttg.async.token)
    attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [2, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]}>} {
  tt.return
}

// -----

// CHECK: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// CHECK-LABEL: tt.func @ops
// CHECK: %[[C:.*]] = ttg.convert_layout %arg0 : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked1>
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
// CHECK: %[[A:.*]] = ttg.local_alloc %arg0 : (tensor<32x64xf16, #blocked>) -> !ttg.memdesc<32x64xf16, #shared, #smem>
// CHECK: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
// CHECK: %[[B:.*]] = ttg.memdesc_index %[[BUF]][%arg3] : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
// CHECK: ttg.memdesc_subslice %[[B]][0, 32] : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf16, #shared, #smem, mutable, 32x64>
// CHECK: ttg.memdesc_trans %[[A]] {order = array<i32: 1, 0>} : !ttg.memdesc<32x64xf16, #shared, #smem> -> !ttg.memdesc<64x32xf16, #shared1, #smem>
// CHECK: ttg.memdesc_reshape %[[BUF]] : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<96x64xf16, #shared, #smem, mutable>
// CHECK: %[[T0:.*]] = ttg.async_copy_global_to_local %arg1, %[[B]] : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
// CHECK: %[[T1:.*]] = ttg.async_copy_global_to_local %arg1, %[[B]] mask %arg2 : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
// CHECK: ttg.async_copy_global_to_local %arg1, %[[B]] mask %arg2 other %arg0 cacheModifier = cg evictionPolicy = evict_last {contiguity = 8 : i32, isVolatile = true} : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
// CHECK: %[[G0:.*]] = ttg.async_commit_group{{$}}
// CHECK: %[[G1:.*]] = ttg.async_commit_group tokens %[[T0]], %[[T1]]{{$}}
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK: %[[W:.*]] = ttg.async_wait %[[G0]], %[[G1]] {num = 1 : i32}
// CHECK: ttg.local_load %[[B]] : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16, #blocked>
// CHECK: ttg.local_load %[[B]] token %[[W]] : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16, #blocked1>
// CHECK: ttg.local_store %arg0, %[[B]] : tensor<32x64xf16, #blocked> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
// CHECK: ttg.local_dealloc %[[BUF]] : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
// CHECK: ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 1024 : i32} : !tt.ptr<i8>
// CHECK: ttg.barrier{{$}}
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ops(%t: tensor<32x64xf16, #blocked>, %ptrs: tensor<32x64x!tt.ptr<f16>, #blocked>,
               %mask: tensor<32x64xi1, #blocked>, %i: i32) {
    %c = ttg.convert_layout %t : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked1>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
    %a = ttg.local_alloc %t : (tensor<32x64xf16, #blocked>) -> !ttg.memdesc<32x64xf16, #shared, #smem>
    %al = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    %b = ttg.memdesc_index %buf[%i] : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    %s = ttg.memdesc_subslice %b [0, 32] : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf16, #shared, #smem, mutable, 32x64>
    %tr = ttg.memdesc_trans %a {order = array<i32: 1, 0>} : !ttg.memdesc<32x64xf16, #shared, #smem> -> !ttg.memdesc<64x32xf16, #shared1, #smem>
    %rs = ttg.memdesc_reshape %buf : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<96x64xf16, #shared, #smem, mutable>
    %tok0 = ttg.async_copy_global_to_local %ptrs, %b : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
    %tok1 = ttg.async_copy_global_to_local %ptrs, %b mask %mask : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
    %tok2 = ttg.async_copy_global_to_local %ptrs, %b mask %mask other %t cacheModifier = cg evictionPolicy = evict_last {contiguity = 8 : i32, isVolatile = true} : tensor<32x64x!tt.ptr<f16>, #blocked> -> <32x64xf16, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group
    %g1 = ttg.async_commit_group tokens %tok0, %tok1
    %w0 = ttg.async_wait {num = 0 : i32}
    %w1 = ttg.async_wait %g0, %g1 {num = 1 : i32}
    %l = ttg.local_load %b : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16, #blocked>
    %lt = ttg.local_load %b token %w1 : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16, #blocked1>
    ttg.local_store %t, %b : tensor<32x64xf16, #blocked> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    ttg.local_dealloc %buf : !ttg.memdesc<3x32x64xf16, #shared, #smem, mutable>
    %p = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 1024 : i32} : !tt.ptr<i8>
    ttg.barrier
    tt.return
  }
}

// -----

// Nested ops with their own "ttg.num-warps" are checked against that one.
// CHECK-LABEL: tt.func @partition
// CHECK: tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @partition() attributes {"ttg.num-warps" = 2 : i32} {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    tt.return
  }
}

// -----

// #ttg.linear: a layout given by its bases (Triton prints it for layouts no
// other encoding names); aliased #linear.
// CHECK: #[[L:linear[0-9]*]] = #ttg.linear<{register = {{\[\[}}0, 1], [0, 8]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}8, 0], [0, 16]], block = []}>
// CHECK-LABEL: tt.func @linear_layout
// CHECK-SAME: tensor<16x32xf16, #[[L]]>
#linear = #ttg.linear<{register = [[0, 1], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [0, 16]], block = []}>
tt.func @linear_layout(%x: tensor<16x32xf16, #linear>) -> tensor<16x32xf16, #linear> {
  tt.return %x : tensor<16x32xf16, #linear>
}
