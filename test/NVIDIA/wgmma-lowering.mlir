// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, ttg-allocate-global-scratch, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// The lowering of ttng.warp_group_dot, warp_group_dot_wait and
// fence_async_shared to wgmma inline PTX
// (third_party/nvidia/lib/TTGToLLVM/WgmmaToLLVM.cpp), through the pass
// pipeline the cuda backend runs. The valid cases' LLVM dialect output goes
// to FileCheck; the invalid cases (after the valid ones, split off) are
// checked by -verify-diagnostics: the pattern's error, then the conversion's
// "failed to legalize".
// The proxy fence (fence.proxy.async.shared::cta) that orders st.shared
// before wgmma's async-proxy reads is emitted by the lowering of
// ttg.local_alloc %tensor and ttg.local_store into a #ttg.nvmma_shared buffer
// (TargetInfo::fenceStoresForAsyncReaders, cc >= 90), right after the
// stores; ttg-membar's barrier comes after it. So the TTGIR below has no
// ttng.fence_async_shared, as ttg-accelerate-matmul builds it now (commit
// 4717ee9; before it, that pass put one before each dot). An explicit
// ttng.fence_async_shared still lowers to the fence (@explicit_fences).

// A synchronous 128x128x32 dot, 4 warps: one warpgroup ([4, 1]), m64n128k16.
// Each thread holds 128 accumulator registers: two m64n128 tiles (M = 0 and
// 64) of 64 registers, each 2 K steps: 4 wgmma.mma_async in all, between one
// wgmma.fence and one commit_group, then wait_group 0 (synchronous).
// The descriptors' fixed fields: A (128x32, K-major, 64-byte swizzle): SBO =
// 8 rows x 64 bytes = 512, mode 2 -> 0x8000002000000000; B (32x128, N-major,
// 128-byte swizzle: two 64-column slabs of 32 rows): LBO = 4096 (the next
// slab), SBO = 1024 (8 rows of 128 bytes), mode 1 -> 0x4000004001000000.
// Per tile the start offsets (elements, times 2 bytes) are A: (m, k) = (0,
// 0), (0, 16), (64, 0), (64, 16) -> 0, 16, 2048, 2064; B: k = 0 and 16 -> 0
// and 1024 (the second M tile reuses B's descriptors). Each operand's
// descriptor is built once (the buffer's address, the fixed fields ORed in)
// and each other tile's is a 64-bit add of its offset in 16-byte units (commit
// 82952b3; before it every tile XORed its offset into the address and built a
// descriptor of its own): A + 2, + 256, + 258; B + 128. transA = 0
// (K-major), transB = 1 (N-major).
// Each buffer is written with st.shared (local_alloc) and followed by one
// proxy fence (A's right after A's stores, before B's base address is
// computed; B's after B's stores), then a barrier (ttg-membar: the dot reads
// what other threads stored); no other fence.proxy.async.
// CHECK: ttg.shared = 16384 : i32
// CHECK-LABEL: llvm.func @sync_dot
// CHECK-DAG: %[[DESC_B:.*]] = llvm.mlir.constant(4611686293322072064 : i64) : i64
// CHECK-DAG: %[[DESC_A:.*]] = llvm.mlir.constant(-9223371899415822336 : i64) : i64
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG: %[[C258:.*]] = llvm.mlir.constant(258 : i64) : i64
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", "~{memory}"
// CHECK-NEXT: llvm.getelementptr %{{.*}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", "~{memory}"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.fence.sync.aligned;"
// CHECK-NOT: wgmma.commit_group
// (m 0, k 0)
// CHECK: %[[A0:.*]] = llvm.or %{{.*}}, %[[DESC_A]] : i64
// CHECK: %[[B0:.*]] = llvm.or %{{.*}}, %[[DESC_B]] : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $66, 0;\0A\09wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0, $1, {{.*}}, $63}, $64, $65, p, 1, 1, 0, 1;\0A}", "{{(=f,){63,63}(=f)}},l,l,r,0,1,{{.*}},63" %[[A0]], %[[B0]],
// (m 0, k 16)
// CHECK-NOT: llvm.or
// CHECK: %[[A1:.*]] = llvm.add %[[A0]], %[[C2]] : i64
// CHECK-NEXT: %[[B1:.*]] = llvm.add %[[B0]], %[[C128]] : i64
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} %[[A1]], %[[B1]],
// (m 64, k 0)
// CHECK-NOT: llvm.or
// CHECK: %[[A2:.*]] = llvm.add %[[A0]], %[[C256]] : i64
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} %[[A2]], %[[B0]],
// (m 64, k 16)
// CHECK-NOT: llvm.or
// CHECK: %[[A3:.*]] = llvm.add %[[A0]], %[[C258]] : i64
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} %[[A3]], %[[B1]],
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.commit_group.sync.aligned;", "~{memory}"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: wgmma.
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sync_dot(%a: tensor<128x32xf16, #blocked>, %b: tensor<32x128xf16, #blocked1>, %c: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<128x32xf16, #blocked>) -> !ttg.memdesc<128x32xf16, #shared, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x128xf16, #blocked1>) -> !ttg.memdesc<32x128xf16, #shared1, #smem>
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<128x32xf16, #shared, #smem> * !ttg.memdesc<32x128xf16, #shared1, #smem> -> tensor<128x128xf32, #mma>
    tt.return %d : tensor<128x128xf32, #mma>
  }
}

// -----

// An asynchronous dot in a loop (the form ttg-pipeline makes): 64x64x32, one
// m64n64 tile, 2 K steps. The dot itself does not wait (commit_group, no
// wait_group 0 after it); warp_group_dot_wait {pendings = 1} is
// wait_group 1, with the 32 accumulator registers tied through it (32 "=f"
// outputs, inputs tied 0..31), and the wait after the loop is wait_group 0.
// B (32x64, N-major, 128-byte swizzle) is one 64-column slab: LBO 0, SBO
// 1024 -> 0x4000004000000000. Each operand's stores before the loop are
// followed by one proxy fence (two in all, the last right before the branch
// into the loop; none in the loop); Membar puts the barrier for the stores
// in the loop body, before the dot.
// CHECK: ttg.shared = 8192 : i32
// CHECK-LABEL: llvm.func @async_loop
// CHECK-DAG: %[[DESC_B:.*]] = llvm.mlir.constant(4611686293305294848 : i64) : i64
// CHECK-DAG: %[[DESC_A:.*]] = llvm.mlir.constant(-9223371899415822336 : i64) : i64
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NEXT: llvm.br ^bb1
// CHECK-NOT: fence.proxy.async
// CHECK: ^bb2:
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: fence.proxy.async
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK: %[[A0:.*]] = llvm.or %{{.*}}, %[[DESC_A]] : i64
// CHECK: %[[B0:.*]] = llvm.or %{{.*}}, %[[DESC_B]] : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, $32, $33, p, 1, 1, 0, 1;{{.*}} %[[A0]], %[[B0]],
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, $32, $33, p, 1, 1, 0, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: wait_group
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NOT: wgmma.wait_group.sync.aligned 0;
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "{{(=f,){31,31}(=f)}},0,1,{{.*}},31"
// CHECK-NOT: wait_group
// CHECK: llvm.br ^bb1
// CHECK: ^bb3:
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=f,){31,31}(=f)}},0,1,{{.*}},31"
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @async_loop(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = ttng.warp_group_dot %as, %bs, %acc {isAsync = true} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
      %w:3 = ttng.warp_group_dot_wait %d, %as, %bs {pendings = 1 : i32} : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared1, #smem>
      scf.yield %w#0 : tensor<64x64xf32, #mma>
    }
    %f = ttng.warp_group_dot_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #mma>
    tt.return %f : tensor<64x64xf32, #mma>
  }
}

// -----

// Eight warps, 64x256: two warpgroups side by side along N ([4, 2]), each
// m64n128 over its own 128 columns: 2 wgmma (K steps) per thread. The second
// warpgroup's B descriptors start 128 columns (two 64-column slabs of 32 rows
// = 4096 elements) further: an offset of (warp id bit 2) x 4096 goes into B's
// origin descriptor; A is shared (no warpgroup offset). The warp id is lane
// 0's (shfl.sync.idx: the same in every lane, so ptxas keeps the descriptors
// in uniform registers), and the second K step's descriptors are the origin
// ones plus constant 16-byte units (A + 2, B + 128; commit 82952b3).
// CHECK: "ttg.num-warps" = 8 : i32, ttg.shared = 20480 : i32
// CHECK-LABEL: llvm.func @two_warpgroups_along_n
// CHECK-DAG: %[[DESC_B:.*]] = llvm.mlir.constant(4611686293322072064 : i64) : i64
// CHECK-DAG: %[[DESC_A:.*]] = llvm.mlir.constant(-9223371899415822336 : i64) : i64
// CHECK-DAG: %[[C4096:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store
// CHECK-NOT: fence.proxy.async
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[WARP:.*]] = llvm.inline_asm asm_dialect = att "shfl.sync.idx.b32 $0, $1, 0, 31, -1;", "=r,r"
// CHECK-NEXT: %[[BIT:.*]] = llvm.lshr %[[WARP]], %{{.*}} : i32
// CHECK-NEXT: %[[SET:.*]] = llvm.and %[[BIT]], %{{.*}} : i32
// CHECK-NEXT: %[[GB:.*]] = llvm.mul %[[SET]], %[[C4096]] : i32
// CHECK-NEXT: %[[GOFF:.*]] = llvm.xor %{{.*}}, %[[GB]] : i32
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK: %[[A0:.*]] = llvm.or %{{.*}}, %[[DESC_A]] : i64
// CHECK-NEXT: llvm.mul %[[GOFF]], %{{.*}} : i32
// CHECK: %[[B0:.*]] = llvm.or %{{.*}}, %[[DESC_B]] : i64
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0, {{.*}}, $63}, $64, $65, p, 1, 1, 0, 1;{{.*}} %[[A0]], %[[B0]],
// CHECK-NOT: llvm.or
// CHECK: %[[A1:.*]] = llvm.add %[[A0]], %[[C2]] : i64
// CHECK-NEXT: %[[B1:.*]] = llvm.add %[[B0]], %[[C128]] : i64
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} %[[A1]], %[[B1]],
// CHECK-NOT: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0;"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 128, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_warpgroups_along_n(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x256xf16, #blocked1>, %c: tensor<64x256xf32, #mma>) -> tensor<64x256xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x256xf16, #blocked1>) -> !ttg.memdesc<32x256xf16, #shared1, #smem>
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x256xf16, #shared1, #smem> -> tensor<64x256xf32, #mma>
    tt.return %d : tensor<64x256xf32, #mma>
  }
}

// -----

// A in registers (#ttg.dot_op opIdx 0 of the v3 accumulator, kWidth 2): each
// wgmma takes four 32-bit registers of A (two f16 each) for its 64x16 tile
// instead of a descriptor; there is no transA immediate and no A descriptor
// constant, only B's. (This lowering is newer than commit 7dc73df, which
// rejected every A in registers.)
// Only B is stored: one proxy fence, after its stores, before the barrier.
// CHECK-LABEL: llvm.func @a_in_registers
// CHECK-NOT: -9223371899415822336
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: fence.proxy.async
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}", "{{(=f,){31,31}(=f)}},r,r,r,r,l,r,0,
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0;"
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @a_in_registers(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    %d = ttng.warp_group_dot %a, %bs, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// Which stores get the proxy fence. A local_alloc of a tensor into a
// #ttg.swizzled_shared buffer (f32 here: vector<4xf32> stores; read back with
// local_load, not by wgmma) gets none; the local_alloc of B into its
// #ttg.nvmma_shared buffer (vector<4xf16> stores) gets exactly one, right
// after its last store and before the barrier and the wgmma.
// CHECK-LABEL: llvm.func @fence_after_nvmma_stores
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", "~{memory}"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-NOT: fence.proxy.async
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-NOT: fence.proxy.async
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#swizzled = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fence_after_nvmma_stores(%x: tensor<64x32xf32, #blocked>, %a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> (tensor<64x32xf32, #blocked>, tensor<64x64xf32, #mma>) {
    %xs = ttg.local_alloc %x : (tensor<64x32xf32, #blocked>) -> !ttg.memdesc<64x32xf32, #swizzled, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    %d = ttng.warp_group_dot %a, %bs, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
    %xl = ttg.local_load %xs : !ttg.memdesc<64x32xf32, #swizzled, #smem> -> tensor<64x32xf32, #blocked>
    tt.return %xl, %d : tensor<64x32xf32, #blocked>, tensor<64x64xf32, #mma>
  }
}

// -----

// A ttg.local_store into a mutable #ttg.nvmma_shared buffer: one proxy fence
// after its stores, then the barrier, then the wgmma.
// CHECK-LABEL: llvm.func @fence_after_local_store
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: "fence.proxy.async.shared::cta;", "~{memory}"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-NOT: fence.proxy.async
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.return
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fence_after_local_store(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %bs = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<32x64xf16, #shared1, #smem, mutable>
    ttg.local_store %b, %bs : tensor<32x64xf16, #blocked1> -> !ttg.memdesc<32x64xf16, #shared1, #smem, mutable>
    %d = ttng.warp_group_dot %a, %bs, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared1, #smem, mutable> -> tensor<64x64xf32, #mma>
    ttg.local_dealloc %bs : !ttg.memdesc<32x64xf16, #shared1, #smem, mutable>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// Negative: buffers filled by cp.async (the rings of ttg-pipeline) get no
// proxy fence before wgmma reads them (as in Triton): the copies, their wait,
// the barrier, the wgmma, and no fence.proxy.async anywhere.
// CHECK-LABEL: llvm.func @cp_async_ring
// CHECK-NOT: fence.proxy.async
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK-NOT: fence.proxy.async
// CHECK: "cp.async.wait_group 0;"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: fence.proxy.async
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#sb = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cp_async_ring(%pa: tensor<64x32x!tt.ptr<f16>, #blocked>, %pb: tensor<32x64x!tt.ptr<f16>, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %ra = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable>
    %rb = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<2x32x64xf16, #sb, #smem, mutable>
    %x = ttg.memdesc_index %ra[%c0] : !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable> -> !ttg.memdesc<64x32xf16, #sa, #smem, mutable>
    %y = ttg.memdesc_index %rb[%c0] : !ttg.memdesc<2x32x64xf16, #sb, #smem, mutable> -> !ttg.memdesc<32x64xf16, #sb, #smem, mutable>
    %t1 = ttg.async_copy_global_to_local %pa, %x {contiguity = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #sa, #smem, mutable>
    %t2 = ttg.async_copy_global_to_local %pb, %y {contiguity = 8 : i32} : tensor<32x64x!tt.ptr<f16>, #blocked1> -> <32x64xf16, #sb, #smem, mutable>
    %g = ttg.async_commit_group tokens %t1, %t2
    %w = ttg.async_wait %g {num = 0 : i32}
    %d = ttng.warp_group_dot %x, %y, %c : !ttg.memdesc<64x32xf16, #sa, #smem, mutable> * !ttg.memdesc<32x64xf16, #sb, #smem, mutable> -> tensor<64x64xf32, #mma>
    ttg.local_dealloc %ra : !ttg.memdesc<2x64x32xf16, #sa, #smem, mutable>
    ttg.local_dealloc %rb : !ttg.memdesc<2x32x64xf16, #sb, #smem, mutable>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// Negative: below cc 9.0 (no wgmma, no async proxy) a local_alloc into an
// nvmma_shared buffer gets no fence: stores, barrier, loads.
// CHECK-LABEL: llvm.func @no_fence_sm80
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.store {{.*}} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT: fence.proxy.async
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf16>
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.return
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @no_fence_sm80(%b: tensor<32x64xf16, #blocked1>) -> tensor<32x64xf16, #blocked1> {
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    %l = ttg.local_load %bs : !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<32x64xf16, #blocked1>
    tt.return %l : tensor<32x64xf16, #blocked1>
  }
}

// -----

// An explicit ttng.fence_async_shared in hand-written TTGIR still lowers to
// the fence: cta or cluster scope.
// CHECK-LABEL: llvm.func @explicit_fences
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", "~{memory}"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cluster;", "~{memory}"
// CHECK-NEXT: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @explicit_fences() {
    ttng.fence_async_shared {bCluster = false}
    ttng.fence_async_shared {bCluster = true}
    tt.return
  }
}

// -----

// Invalid cases (-verify-diagnostics). None of them prints a module, so the
// FileCheck checks above are not affected.

// A in registers in a layout that is not wgmma's A fragment (kWidth 4):
// rejected. ("operand a in registers" is in both forms of the message: at
// commit 7dc73df every A in registers was rejected ("with operand a in
// registers is not supported yet"); the register-A lowering asks for kWidth 2.)
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @a_in_registers_kwidth4(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    // expected-error @+2 {{'ttng.warp_group_dot' op operand a in registers}}
    // expected-error @+1 {{failed to legalize operation 'ttng.warp_group_dot'}}
    %d = ttng.warp_group_dot %a, %bs, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> * !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// An unswizzled (swizzlingByteWidth = 0) A buffer: wgmma's descriptors here
// take the 32, 64 and 128-byte swizzle modes only.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#unswizzled = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @a_unswizzled(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #unswizzled, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #shared1, #smem>
    // expected-error @+2 {{'ttng.warp_group_dot' op wgmma reads operand a from a #ttg.nvmma_shared buffer swizzled by 32, 64 or 128 bytes, but it is '!ttg.memdesc<64x32xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>'}}
    // expected-error @+1 {{failed to legalize operation 'ttng.warp_group_dot'}}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x32xf16, #unswizzled, #smem> * !ttg.memdesc<32x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// The same for B.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#unswizzled = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @b_unswizzled(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #unswizzled, #smem>
    // expected-error @+2 {{'ttng.warp_group_dot' op wgmma reads operand b from a #ttg.nvmma_shared buffer swizzled by 32, 64 or 128 bytes}}
    // expected-error @+1 {{failed to legalize operation 'ttng.warp_group_dot'}}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #unswizzled, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// B in a buffer that is not #ttg.nvmma_shared at all.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#swizzled = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @b_not_nvmma(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    %bs = ttg.local_alloc %b : (tensor<32x64xf16, #blocked1>) -> !ttg.memdesc<32x64xf16, #swizzled, #smem>
    // expected-error @+2 {{'ttng.warp_group_dot' op wgmma reads operand b from a #ttg.nvmma_shared buffer swizzled by 32, 64 or 128 bytes, but it is '!ttg.memdesc<32x64xf16, #ttg.swizzled_shared}}
    // expected-error @+1 {{failed to legalize operation 'ttng.warp_group_dot'}}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #swizzled, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// A 64x16 buffer (32-byte rows) in a 128-byte swizzle layout: a swizzle row
// is wider than the tensor, no descriptor describes it.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#wide = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @a_rows_too_short(%a: tensor<64x16xf16, #blocked>, %b: tensor<16x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = ttg.local_alloc %a {alignment = 1024 : i32} : (tensor<64x16xf16, #blocked>) -> !ttg.memdesc<64x16xf16, #wide, #smem>
    %bs = ttg.local_alloc %b {alignment = 1024 : i32} : (tensor<16x64xf16, #blocked1>) -> !ttg.memdesc<16x64xf16, #wide, #smem>
    // expected-error @+2 {{'ttng.warp_group_dot' op operand a of type '!ttg.memdesc<64x16xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>' does not hold whole 128-byte swizzle rows for wgmma tiles of 64 x 16}}
    // expected-error @+1 {{failed to legalize operation 'ttng.warp_group_dot'}}
    %d = ttng.warp_group_dot %as, %bs, %c : !ttg.memdesc<64x16xf16, #wide, #smem> * !ttg.memdesc<16x64xf16, #wide, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}
