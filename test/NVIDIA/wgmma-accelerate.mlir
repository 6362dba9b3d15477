// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --implicit-check-not=fence_async_shared
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=8 target=cuda:90}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=W8 --implicit-check-not=fence_async_shared
// Negative RUNs: wgmma needs whole warpgroups (num_warps a multiple of 4)
// and exists on cc 9.0 only; there every dot stays a tt.dot (mma.sync v2 or
// FMA) and no wgmma op or nvmma_shared buffer appears anywhere.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=2 target=cuda:90}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=W2 --implicit-check-not=ttng. --implicit-check-not=nvmma_shared --implicit-check-not=ttg.local_alloc
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:80}, ttg-accelerate-matmul, canonicalize)' | FileCheck %s --check-prefix=SM80 --implicit-check-not=ttng. --implicit-check-not=nvmma_shared --implicit-check-not=ttg.local_alloc

// ttg-accelerate-matmul on sm_90 (TargetInfo::buildTensorCoreDot ->
// buildWgmmaDot in third_party/nvidia/lib/TTGToLLVM/WgmmaToLLVM.cpp): an
// f16/bf16 tt.dot with an f32 accumulator becomes
//   local_alloc A, local_alloc B (#ttg.nvmma_shared, 1024-byte aligned),
//   ttng.warp_group_dot in #ttg.nvidia_mma v3.
// No ttng.fence_async_shared is made here (the implicit-check-not of the
// sm_90 RUNs): the proxy fence after the stores of a local_alloc into an
// nvmma_shared buffer is emitted by the LLVM lowering
// (TargetInfo::fenceStoresForAsyncReaders; see wgmma-lowering.mlir), so that
// ttg-pipeline's cp.async rings get none (commit 4717ee9; before it this pass
// put a fence after the stores).
// The swizzle of an operand buffer is min(128, fast extent x 2 bytes) (for an
// MN-major operand also at most one instruction's M/N extent x 2 bytes);
// warpgroups (4 warps, 64 rows) go along M first, the rest along N, and
// instrShape N is the N of one warpgroup column (at most 256).

// A K loop, 128x128x32, 4 warps: one warpgroup along M (warpsPerCTA [4, 1])
// covering all 128 columns (m64n128k16). A (128x32, K contiguous) has 64-byte
// rows -> swizzle 64; B (32x128, N contiguous) 256-byte rows -> swizzle 128.
// The operands are stored in the order they are loaded (the registers'
// blocked layouts), the accumulator is carried through the loop in the v3
// layout (its zero made there), and converted once after the loop.
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @k_loop
// CHECK-NOT: tt.dot
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK: %[[X:.*]] = tt.load {{.*}} : tensor<128x32x!tt.ptr<f16>, #[[LA:blocked[0-9]*]]>
// CHECK: %[[Y:.*]] = tt.load {{.*}} : tensor<32x128x!tt.ptr<f16>, #[[LB:blocked[0-9]*]]>
// CHECK-NEXT: %[[A:.*]] = ttg.local_alloc %[[X]] {alignment = 1024 : i32} : (tensor<128x32xf16, #[[LA]]>) -> !ttg.memdesc<128x32xf16, #[[SA]], #smem>
// CHECK-NEXT: %[[B:.*]] = ttg.local_alloc %[[Y]] {alignment = 1024 : i32} : (tensor<32x128xf16, #[[LB]]>) -> !ttg.memdesc<32x128xf16, #[[SB]], #smem>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %[[ACC]] : !ttg.memdesc<128x32xf16, #[[SA]], #smem> * !ttg.memdesc<32x128xf16, #[[SB]], #smem> -> tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[D]] : tensor<128x128xf32, #[[MMA]]>
// CHECK: ttg.convert_layout %[[LOOP]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #blocked
// CHECK-NOT: tt.dot
// CHECK: tt.return
// Eight warps: two warpgroups, both along M (128 = 2 x 64): [8, 1], still
// n128 per instruction; the buffers are the same.
// W8-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
// W8-DAG: #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// W8-LABEL: tt.func public @k_loop
// W8: scf.for {{.*}} -> (tensor<128x128xf32, #[[MMA]]>)
// W8: ttng.warp_group_dot {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// Negative: 2 warps are not a warpgroup: mma.sync (v2) with dot_op operands.
// W2: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
// W2-LABEL: tt.func public @k_loop
// W2: scf.for {{.*}} -> (tensor<128x128xf32, #[[V2]]>)
// W2: tt.dot {{.*}} : tensor<128x32xf16, #ttg.dot_op<{opIdx = 0, parent = #[[V2]], kWidth = 2}>> * tensor<32x128xf16, #ttg.dot_op<{opIdx = 1, parent = #[[V2]], kWidth = 2}>> -> tensor<128x128xf32, #[[V2]]>
// Negative: sm_80 has no wgmma: the same dot on mma.sync (v2).
// SM80: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// SM80-LABEL: tt.func public @k_loop
// SM80: scf.for {{.*}} -> (tensor<128x128xf32, #[[V2]]>)
// SM80: tt.dot {{.*}} -> tensor<128x128xf32, #[[V2]]>
tt.func public @k_loop(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<128x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x128x!tt.ptr<f16>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %x = tt.load %ra : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %rb : tensor<32x128x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<128x128x!tt.ptr<f32>>
  tt.store %rc, %r : tensor<128x128x!tt.ptr<f32>>
  tt.return
}

// -----

// bf16, 64x64x16, with an accumulator loaded from memory: the same form with
// the bf16 element type; A's rows are 16 x 2 = 32 bytes (swizzle 32), B's
// 64 x 2 = 128. The loaded accumulator is converted to the v3 layout right
// before the dot (after the operand stores), and the result back.
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @bf16_dot
// CHECK: %[[C:.*]] = tt.load {{.*}} : tensor<64x64x!tt.ptr<f32>, #[[LC:blocked[0-9]*]]>
// CHECK: %[[A:.*]] = ttg.local_alloc %{{.*}} {alignment = 1024 : i32} : (tensor<64x16xbf16, #{{blocked[0-9]*}}>) -> !ttg.memdesc<64x16xbf16, #[[SA]], #smem>
// CHECK-NEXT: %[[B:.*]] = ttg.local_alloc %{{.*}} {alignment = 1024 : i32} : (tensor<16x64xbf16, #{{blocked[0-9]*}}>) -> !ttg.memdesc<16x64xbf16, #[[SB]], #smem>
// CHECK-NEXT: %[[CM:.*]] = ttg.convert_layout %[[C]] : tensor<64x64xf32, #[[LC]]> -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %[[CM]] : !ttg.memdesc<64x16xbf16, #[[SA]], #smem> * !ttg.memdesc<16x64xbf16, #[[SB]], #smem> -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: ttg.convert_layout %[[D]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[LC]]>
// CHECK-NOT: tt.dot
// CHECK: tt.return
// Eight warps on 64 rows: one warpgroup along M, two along N ([4, 2]), each
// m64n32; B is MN-major, so its rows are cut to one instruction's 32
// columns: swizzle 64 (A's stays 32).
// W8-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 32, 16]}>
// W8-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
// W8-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// W8-LABEL: tt.func public @bf16_dot
// W8: ttng.warp_group_dot {{.*}} : !ttg.memdesc<64x16xbf16, #[[SA]], #smem> * !ttg.memdesc<16x64xbf16, #[[SB]], #smem> -> tensor<64x64xf32, #[[MMA]]>
// W2-LABEL: tt.func public @bf16_dot
// W2: tt.dot {{.*}} -> tensor<64x64xf32, #mma>
// SM80-LABEL: tt.func public @bf16_dot
// SM80: tt.dot {{.*}} : tensor<64x16xbf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<16x64xbf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
tt.func public @bf16_dot(%a: !tt.ptr<bf16>, %b: !tt.ptr<bf16>, %c: !tt.ptr<f32>) {
  %ra = tt.splat %a : !tt.ptr<bf16> -> tensor<64x16x!tt.ptr<bf16>>
  %rb = tt.splat %b : !tt.ptr<bf16> -> tensor<16x64x!tt.ptr<bf16>>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  %acc = tt.load %rc : tensor<64x64x!tt.ptr<f32>>
  %x = tt.load %ra : tensor<64x16x!tt.ptr<bf16>>
  %y = tt.load %rb : tensor<16x64x!tt.ptr<bf16>>
  %d = tt.dot %x, %y, %acc : tensor<64x16xbf16> * tensor<16x64xbf16> -> tensor<64x64xf32>
  tt.store %rc, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// 128x256x32. Four warps: one warpgroup would hold 256 f32 accumulators per
// thread, over the 255-register limit: no wgmma (mma.sync v2). Eight warps:
// both warpgroups along M: [8, 1], n256 (128 accumulators per thread).
// CHECK: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0
// CHECK-LABEL: tt.func public @wide_128x256
// CHECK-NOT: ttng.warp_group_dot
// CHECK: tt.dot {{.*}} -> tensor<128x256xf32, #[[MMA]]>
// W8: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
// W8-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// W8-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// W8-LABEL: tt.func public @wide_128x256
// W8: ttg.local_alloc
// W8-SAME: -> !ttg.memdesc<128x32xf16, #[[SA]], #smem>
// W8-NEXT: ttg.local_alloc
// W8-SAME: -> !ttg.memdesc<32x256xf16, #[[SB]], #smem>
// W8-NEXT: ttng.warp_group_dot {{.*}} -> tensor<128x256xf32, #[[MMA]]>
// W2-LABEL: tt.func public @wide_128x256
// W2: tt.dot {{.*}} -> tensor<128x256xf32, #mma>
// SM80-LABEL: tt.func public @wide_128x256
// SM80: tt.dot {{.*}} -> tensor<128x256xf32, #mma>
tt.func public @wide_128x256(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<128x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x256x!tt.ptr<f16>>
  %x = tt.load %ra : tensor<128x32x!tt.ptr<f16>>
  %y = tt.load %rb : tensor<32x256x!tt.ptr<f16>>
  %d = tt.dot %x, %y, %zero : tensor<128x32xf16> * tensor<32x256xf16> -> tensor<128x256xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<128x256x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<128x256x!tt.ptr<f32>>
  tt.return
}

// -----

// 64x256x32. Four warps: [4, 1], n256. Eight warps: 64 rows hold one
// warpgroup only, so the second goes along N: [4, 2], each n128.
// CHECK: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 256, 16]}>
// CHECK-LABEL: tt.func public @wide_64x256
// CHECK: ttng.warp_group_dot {{.*}} -> tensor<64x256xf32, #[[MMA]]>
// W8: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 128, 16]}>
// W8-LABEL: tt.func public @wide_64x256
// W8: ttng.warp_group_dot {{.*}} : !ttg.memdesc<64x32xf16, #{{shared[0-9]*}}, #smem> * !ttg.memdesc<32x256xf16, #{{shared[0-9]*}}, #smem> -> tensor<64x256xf32, #[[MMA]]>
// W2-LABEL: tt.func public @wide_64x256
// W2: tt.dot {{.*}} -> tensor<64x256xf32, #mma>
// SM80-LABEL: tt.func public @wide_64x256
// SM80: tt.dot {{.*}} -> tensor<64x256xf32, #mma>
tt.func public @wide_64x256(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x256xf32>
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x256x!tt.ptr<f16>>
  %x = tt.load %ra : tensor<64x32x!tt.ptr<f16>>
  %y = tt.load %rb : tensor<32x256x!tt.ptr<f16>>
  %d = tt.dot %x, %y, %zero : tensor<64x32xf16> * tensor<32x256xf16> -> tensor<64x256xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x256x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<64x256x!tt.ptr<f32>>
  tt.return
}

// -----

// Negatives on sm_90 (every RUN): each of these dots stays a tt.dot, with no
// operand buffer or warp_group_dot before it.
// M = 32 is less than one warpgroup's 64 rows: mma.sync v2.
// CHECK: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @m32
// CHECK-NOT: ttng.
// CHECK-NOT: ttg.local_alloc
// CHECK: tt.dot {{.*}} : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #[[V2]], kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #[[V2]], kWidth = 2}>> -> tensor<32x64xf32, #[[V2]]>
// CHECK-NOT: ttng.
// CHECK: tt.return
// W8: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>
// W8-LABEL: tt.func public @m32
// W8-NOT: ttng.
// W8: tt.dot {{.*}} -> tensor<32x64xf32, #[[V2]]>
// W8-NOT: ttng.
// W8: tt.return
// W2-LABEL: tt.func public @m32
// W2: tt.dot {{.*}} -> tensor<32x64xf32, #mma>
// SM80-LABEL: tt.func public @m32
// SM80: tt.dot {{.*}} -> tensor<32x64xf32, #mma>
tt.func public @m32(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
  %x = tt.load %ra : tensor<32x32x!tt.ptr<f16>>
  %y = tt.load %rb : tensor<32x64x!tt.ptr<f16>>
  %d = tt.dot %x, %y, %zero : tensor<32x32xf16> * tensor<32x64xf16> -> tensor<32x64xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<32x64x!tt.ptr<f32>>
  tt.return
}

// -----

// Negative: f32 operands (no tf32 here) stay on the FMA units: the dot keeps
// its blocked layouts.
// CHECK-NOT: #ttg.nvidia_mma
// CHECK-LABEL: tt.func public @f32_operands
// CHECK-NOT: ttng.
// CHECK: tt.dot {{.*}} : tensor<64x32xf32, #{{blocked[0-9]*}}> * tensor<32x64xf32, #{{blocked[0-9]*}}> -> tensor<64x64xf32, #{{blocked[0-9]*}}>
// CHECK-NOT: ttng.
// CHECK: tt.return
// W8-LABEL: tt.func public @f32_operands
// W8: tt.dot {{.*}} -> tensor<64x64xf32, #{{blocked[0-9]*}}>
tt.func public @f32_operands(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ra = tt.splat %a : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  %rb = tt.splat %b : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %x = tt.load %ra : tensor<64x32x!tt.ptr<f32>>
  %y = tt.load %rb : tensor<32x64x!tt.ptr<f32>>
  %d = tt.dot %x, %y, %zero : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// f32 operands with inputPrecision = tf32 run on wgmma k8 (instrShape K = 8),
// both 32-bit buffers K-major (B transposed into its buffer); the same dot
// without the attribute (IEEE, @f32_operands above) stays exact on FMA units.
// CHECK: #[[T32MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
// CHECK: #[[T32A:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
// CHECK: #[[T32B:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
// CHECK-LABEL: tt.func public @tf32_operands
// CHECK: %[[TA:.*]] = ttg.local_alloc {{.*}} -> !ttg.memdesc<64x32xf32, #[[T32A]], #smem>
// CHECK: %[[TB:.*]] = ttg.local_alloc {{.*}} -> !ttg.memdesc<32x64xf32, #[[T32B]], #smem>
// CHECK: ttng.warp_group_dot %[[TA]], %[[TB]], {{.*}}{inputPrecision = 0 : i32} {{.*}} -> tensor<64x64xf32, #[[T32MMA]]>
// CHECK-NOT: tt.dot
// CHECK: tt.return
// W8-LABEL: tt.func public @tf32_operands
// W8: ttng.warp_group_dot
tt.func public @tf32_operands(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ra = tt.splat %a : !tt.ptr<f32> -> tensor<64x32x!tt.ptr<f32>>
  %rb = tt.splat %b : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %x = tt.load %ra : tensor<64x32x!tt.ptr<f32>>
  %y = tt.load %rb : tensor<32x64x!tt.ptr<f32>>
  %d = tt.dot %x, %y, %zero, inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// fp8 operands (e5m2 x e4m3 here) run on wgmma k32 (instrShape K = 32), both
// buffers K-major whatever the load order: A as loaded (K contiguous), B
// transposed into its buffer (32 rows of K: a 32-byte swizzle). (sm_80 has no
// fp8 conversions: the dot is left as it was.)
// CHECK: #[[F8MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
// CHECK: #[[F8A:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>
// CHECK: #[[F8B:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = true, elementBitWidth = 8}>
// CHECK-LABEL: tt.func public @fp8_operands
// CHECK-NOT: tt.fp_to_fp
// CHECK: %[[FA:.*]] = ttg.local_alloc {{.*}} -> !ttg.memdesc<64x32xf8E5M2, #[[F8A]], #smem>
// CHECK: %[[FB:.*]] = ttg.local_alloc {{.*}} -> !ttg.memdesc<32x64xf8E4M3FN, #[[F8B]], #smem>
// CHECK: ttng.warp_group_dot %[[FA]], %[[FB]], {{.*}} -> tensor<64x64xf32, #[[F8MMA]]>
// CHECK-NOT: tt.dot
// CHECK: tt.return
// SM80-LABEL: tt.func public @fp8_operands
// SM80: tt.dot {{.*}} : tensor<64x32xf8E5M2, #{{blocked[0-9]*}}> * tensor<32x64xf8E4M3FN, #{{blocked[0-9]*}}> -> tensor<64x64xf32, #{{blocked[0-9]*}}>
tt.func public @fp8_operands(%a: !tt.ptr<f8E5M2>, %b: !tt.ptr<f8E4M3FN>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ra = tt.splat %a : !tt.ptr<f8E5M2> -> tensor<64x32x!tt.ptr<f8E5M2>>
  %rb = tt.splat %b : !tt.ptr<f8E4M3FN> -> tensor<32x64x!tt.ptr<f8E4M3FN>>
  %x = tt.load %ra : tensor<64x32x!tt.ptr<f8E5M2>>
  %y = tt.load %rb : tensor<32x64x!tt.ptr<f8E4M3FN>>
  %d = tt.dot %x, %y, %zero : tensor<64x32xf8E5M2> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// Negative: N = 8 gives B rows of 8 x 2 = 16 bytes, narrower than wgmma's
// smallest (32-byte) swizzle: no nvmma_shared layout fits, mma.sync v2.
// CHECK: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @n8
// CHECK-NOT: ttng.
// CHECK-NOT: ttg.local_alloc
// CHECK: tt.dot {{.*}} -> tensor<64x8xf32, #[[V2]]>
// CHECK-NOT: ttng.
// CHECK: tt.return
tt.func public @n8(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x8xf32>
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x8x!tt.ptr<f16>>
  %x = tt.load %ra : tensor<64x32x!tt.ptr<f16>>
  %y = tt.load %rb : tensor<32x8x!tt.ptr<f16>>
  %d = tt.dot %x, %y, %zero : tensor<64x32xf16> * tensor<32x8xf16> -> tensor<64x8xf32>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<64x8x!tt.ptr<f32>>
  tt.store %rc, %d : tensor<64x8x!tt.ptr<f32>>
  tt.return
}

// -----

// An attention-like loop: s = dot(q, trans(k)); p = exp(s).to(f16);
// acc = dot(p, v, acc). Q (loaded before the loop, the same every
// iteration) is stored once, before the loop. K^T (tt.trans of the loaded
// K tile) is not transposed in registers: the loaded 128x64 tile is stored
// as it is and the dot reads a transposed view of its buffer
// (ttg.memdesc_trans {order = [1, 0]}), whose nvmma_shared layout is the
// buffer's with `transposed` flipped. (The buffer keeps the order of the
// tile's register layout; the column-major layout convert-tt-to-ttg gives the
// source of a trans makes it transposed = true here. A K tile loaded
// row-major, after ttg-coalesce, is the other way round: wgmma-pipeline.mlir.)
// P, computed in the loop from the first dot (not a load), stays in
// registers: converted to the A-operand layout of the second dot's
// accumulator (#ttg.dot_op opIdx 0, kWidth 2) and read by the wgmma from
// there, never stored. V is stored right before its dot. The two dots have
// their own v3 layouts (N = 128 and N = 64).
// CHECK-DAG: #[[MS:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[MO:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[S:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[ST:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @attention
// CHECK: %[[Q:.*]] = tt.load {{.*}} : tensor<128x64x!tt.ptr<f16>, #[[LQ:blocked[0-9]*]]>
// CHECK-NEXT: %[[QS:.*]] = ttg.local_alloc %[[Q]] {alignment = 1024 : i32} : (tensor<128x64xf16, #[[LQ]]>) -> !ttg.memdesc<128x64xf16, #[[S]], #smem>
// CHECK-NEXT: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x64xf32, #[[MO]]>)
// CHECK-NEXT: %[[K:.*]] = tt.load {{.*}} : tensor<128x64x!tt.ptr<f16>, #[[LK:blocked[0-9]*]]>
// CHECK-NEXT: %[[V:.*]] = tt.load {{.*}} : tensor<128x64x!tt.ptr<f16>, #[[LV:blocked[0-9]*]]>
// CHECK-NEXT: %[[KS:.*]] = ttg.local_alloc %[[K]] {alignment = 1024 : i32} : (tensor<128x64xf16, #[[LK]]>) -> !ttg.memdesc<128x64xf16, #[[ST]], #smem>
// CHECK-NEXT: %[[KT:.*]] = ttg.memdesc_trans %[[KS]] {order = array<i32: 1, 0>} : !ttg.memdesc<128x64xf16, #[[ST]], #smem> -> !ttg.memdesc<64x128xf16, #[[S]], #smem>
// CHECK-NEXT: %[[SC:.*]] = ttng.warp_group_dot %[[QS]], %[[KT]], %{{.*}} : !ttg.memdesc<128x64xf16, #[[S]], #smem> * !ttg.memdesc<64x128xf16, #[[S]], #smem> -> tensor<128x128xf32, #[[MS]]>
// CHECK-NEXT: %[[SB:.*]] = ttg.convert_layout %[[SC]] : tensor<128x128xf32, #[[MS]]> -> tensor<128x128xf32, #[[LP:blocked[0-9]*]]>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[SB]] : tensor<128x128xf32, #[[LP]]>
// CHECK-NEXT: %[[P:.*]] = arith.truncf %[[E]] : tensor<128x128xf32, #[[LP]]> to tensor<128x128xf16, #[[LP]]>
// CHECK-NEXT: %[[PA:.*]] = ttg.convert_layout %[[P]] : tensor<128x128xf16, #[[LP]]> -> tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MO]], kWidth = 2}>>
// CHECK-NEXT: %[[VS:.*]] = ttg.local_alloc %[[V]] {alignment = 1024 : i32} : (tensor<128x64xf16, #[[LV]]>) -> !ttg.memdesc<128x64xf16, #[[S]], #smem>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[PA]], %[[VS]], %[[ACC]] : tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MO]], kWidth = 2}>> * !ttg.memdesc<128x64xf16, #[[S]], #smem> -> tensor<128x64xf32, #[[MO]]>
// CHECK-NEXT: scf.yield %[[D]] : tensor<128x64xf32, #[[MO]]>
// CHECK-NOT: tt.dot
// CHECK: tt.return
// Eight warps: the same forms, both warpgroups along M.
// W8-DAG: #[[MO:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
// W8-LABEL: tt.func public @attention
// W8: %[[Q:.*]] = tt.load
// W8-NEXT: ttg.local_alloc %[[Q]]
// W8-NEXT: scf.for
// W8: ttg.memdesc_trans
// W8: ttng.warp_group_dot {{.*}} : tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MO]], kWidth = 2}>> * !ttg.memdesc<128x64xf16, #{{shared[0-9]*}}, #smem> -> tensor<128x64xf32, #[[MO]]>
// Negatives: without wgmma both dots are mma.sync v2 on dot_op registers
// (and the RUNs' implicit-check-nots: no buffer, no memdesc view).
// W2-LABEL: tt.func public @attention
// W2: tt.trans
// W2: tt.dot {{.*}} -> tensor<128x128xf32, #{{mma[0-9]*}}>
// W2: tt.dot {{.*}} -> tensor<128x64xf32, #{{mma[0-9]*}}>
// SM80-LABEL: tt.func public @attention
// SM80: tt.trans
// SM80: tt.dot {{.*}} -> tensor<128x128xf32, #{{mma[0-9]*}}>
// SM80: tt.dot {{.*}} -> tensor<128x64xf32, #{{mma[0-9]*}}>
tt.func public @attention(%q: !tt.ptr<f16>, %k: !tt.ptr<f16>, %v: !tt.ptr<f16>, %o: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %zs = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %rq = tt.splat %q : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %rk = tt.splat %k : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %rv = tt.splat %v : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %qt = tt.load %rq : tensor<128x64x!tt.ptr<f16>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32>) : i32 {
    %kt = tt.load %rk : tensor<128x64x!tt.ptr<f16>>
    %vt = tt.load %rv : tensor<128x64x!tt.ptr<f16>>
    %ktt = tt.trans %kt {order = array<i32: 1, 0>} : tensor<128x64xf16> -> tensor<64x128xf16>
    %s = tt.dot %qt, %ktt, %zs : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    %e = math.exp %s : tensor<128x128xf32>
    %p = arith.truncf %e : tensor<128x128xf32> to tensor<128x128xf16>
    %d = tt.dot %p, %vt, %acc : tensor<128x128xf16> * tensor<128x64xf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  %ro = tt.splat %o : !tt.ptr<f32> -> tensor<128x64x!tt.ptr<f32>>
  tt.store %ro, %r : tensor<128x64x!tt.ptr<f32>>
  tt.return
}

// -----

// Loop-invariant operands in nested loops: each operand is stored before the
// outermost loop it does not change in. A (x * x, computed before both loops:
// not a load, but defined outside the dot's loop, so not kept in registers)
// is stored before the outer loop; B, loaded in the outer loop's body, is
// stored there, before the inner loop; the inner loop holds only the dot.
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @nested_invariant
// CHECK: %[[XL:.*]] = tt.load
// CHECK-NEXT: %[[X:.*]] = arith.mulf %[[XL]], %[[XL]]
// CHECK-NEXT: %[[A:.*]] = ttg.local_alloc %[[X]] {alignment = 1024 : i32} : (tensor<128x32xf16, #{{blocked[0-9]*}}>) -> !ttg.memdesc<128x32xf16, #[[SA]], #smem>
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[Y:.*]] = tt.load
// CHECK-NEXT: %[[B:.*]] = ttg.local_alloc %[[Y]] {alignment = 1024 : i32} : (tensor<32x128xf16, #{{blocked[0-9]*}}>) -> !ttg.memdesc<32x128xf16, #[[SB]], #smem>
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %[[ACC]] : !ttg.memdesc<128x32xf16, #[[SA]], #smem> * !ttg.memdesc<32x128xf16, #[[SB]], #smem> -> tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NOT: ttg.local_alloc
// CHECK: tt.return
// W8-LABEL: tt.func public @nested_invariant
// W8: arith.mulf
// W8-NEXT: ttg.local_alloc
// W8-NEXT: scf.for
// W2-LABEL: tt.func public @nested_invariant
// W2: tt.dot {{.*}} -> tensor<128x128xf32, #mma>
// SM80-LABEL: tt.func public @nested_invariant
// SM80: tt.dot {{.*}} -> tensor<128x128xf32, #mma>
tt.func public @nested_invariant(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>, %n: i32, %m: i32) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ra = tt.splat %a : !tt.ptr<f16> -> tensor<128x32x!tt.ptr<f16>>
  %rb = tt.splat %b : !tt.ptr<f16> -> tensor<32x128x!tt.ptr<f16>>
  %rc = tt.splat %c : !tt.ptr<f32> -> tensor<128x128x!tt.ptr<f32>>
  %xl = tt.load %ra : tensor<128x32x!tt.ptr<f16>>
  %x = arith.mulf %xl, %xl : tensor<128x32xf16>
  scf.for %j = %c0 to %m step %c1 : i32 {
    %y = tt.load %rb : tensor<32x128x!tt.ptr<f16>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tt.store %rc, %r : tensor<128x128x!tt.ptr<f32>>
  }
  tt.return
}
