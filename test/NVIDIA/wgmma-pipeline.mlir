// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=3}, cse)' | FileCheck %s --implicit-check-not=tt.load --implicit-check-not=fence_async_shared
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=4}, cse)' | FileCheck %s --check-prefix=S4 --implicit-check-not=fence_async_shared
// Negative: one stage pipelines nothing: no rings, no copies, no async dot.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=1}, cse)' | FileCheck %s --check-prefix=S1 --implicit-check-not=isAsync --implicit-check-not=warp_group_dot_wait --implicit-check-not=async_copy_global_to_local --implicit-check-not=async_commit_group --implicit-check-not=fence_async_shared

// ttg-pipeline (lib/Dialect/TTG/Transforms/Pipeline.cpp) on sm_90, after
// ttg-accelerate-matmul built a ttng.warp_group_dot (TTIR -> TTGIR as the
// cuda backend runs it). The K loop of a 128x128x32 matmul, A (M x K, row
// stride K) and B (K x N, row stride 128) from 16-byte aligned arguments.

// The loads stored into the dot's #ttg.nvmma_shared buffers become cp.async
// rings of those buffers' layouts and alignment (3 stages: two iterations
// started before the loop); the dot reads the ring slots directly (the
// local_allocs of the loaded tensors are gone), runs asynchronously with at
// most one dot in flight (warp_group_dot_wait {pendings = 1} right after it,
// before the copies of this iteration overwrite the slot the previous dot
// read), and after the loop every dot is waited for before the accumulator
// is used and the rings are freed.
// No RUN finds a ttng.fence_async_shared (implicit-check-not): the rings are
// written by cp.async, which needs no proxy fence before wgmma reads them (as
// in Triton 3.6), and the buffers stored with st.shared (one stage, or a
// loop-invariant operand) get their fence.proxy.async from the LLVM lowering
// of the local_alloc (wgmma-lowering.mlir), not in TTGIR (commit 4717ee9;
// before it ttg-accelerate-matmul put a fence before each dot, and the
// pipelined loop kept it).
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[SB:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @mm
// CHECK: %[[RA:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16, #[[SA]], #smem, mutable>
// CHECK-NEXT: %[[RB:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x32x128xf16, #[[SB]], #smem, mutable>
// The prologue: stages 0 and 1, one commit group each.
// CHECK: ttg.async_copy_global_to_local {{.*}} {contiguity = 8 : i32} : tensor<128x32x!tt.ptr<f16>, #{{blocked[0-9]*}}> -> <128x32xf16, #[[SA]], #smem, mutable>
// CHECK: ttg.async_copy_global_to_local {{.*}} {contiguity = 8 : i32} : tensor<32x128x!tt.ptr<f16>, #{{blocked[0-9]*}}> -> <32x128xf16, #[[SB]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x32xf16, #[[SA]], #smem, mutable>
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <32x128xf16, #[[SB]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK-NOT: ttng.warp_group_dot
// CHECK: %[[LOOP:.*]]:7 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[VA:.*]] = ttg.memdesc_index %[[RA]][%{{.*}}] : !ttg.memdesc<3x128x32xf16, #[[SA]], #smem, mutable> -> !ttg.memdesc<128x32xf16, #[[SA]], #smem, mutable>
// CHECK-NEXT: %[[VB:.*]] = ttg.memdesc_index %[[RB]][%{{.*}}] : !ttg.memdesc<3x32x128xf16, #[[SB]], #smem, mutable> -> !ttg.memdesc<32x128xf16, #[[SB]], #smem, mutable>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[VA]], %[[VB]], %[[ACC]] {isAsync = true} : !ttg.memdesc<128x32xf16, #[[SA]], #smem, mutable> * !ttg.memdesc<32x128xf16, #[[SB]], #smem, mutable> -> tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: %[[W:.*]]:3 = ttng.warp_group_dot_wait %[[D]], %[[VA]], %[[VB]] {pendings = 1 : i32} : tensor<128x128xf32, #[[MMA]]>, !ttg.memdesc<128x32xf16, #[[SA]], #smem, mutable>, !ttg.memdesc<32x128xf16, #[[SB]], #smem, mutable>
// The copies of iteration i + 2 come after that wait.
// CHECK-NOT: ttng.warp_group_dot
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x32xf16, #[[SA]], #smem, mutable>
// CHECK-NEXT: ttg.memdesc_index %[[RB]]
// CHECK-NEXT: tt.splat
// CHECK-NEXT: ttg.async_copy_global_to_local {{.*}} -> <32x128xf16, #[[SB]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK-NOT: ttng.warp_group_dot
// The waited-for accumulator is what the loop carries.
// CHECK: scf.yield %[[W]]#0, {{.*}} : tensor<128x128xf32, #[[MMA]]>,
// CHECK-NEXT: }
// CHECK-NEXT: %[[DONE:.*]] = ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32} : tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: ttg.async_wait {num = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc %[[RA]]
// CHECK-NEXT: ttg.local_dealloc %[[RB]]
// CHECK: ttg.convert_layout %[[DONE]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #{{blocked[0-9]*}}>
// CHECK: tt.return
// Four stages: rings of 4 slots, three iterations started ahead (two groups
// left in flight by the wait in the loop), still one dot in flight.
// S4-LABEL: tt.func public @mm
// S4: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<4x128x32xf16, #{{shared[0-9]*}}, #smem, mutable>
// S4-NEXT: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<4x32x128xf16, #{{shared[0-9]*}}, #smem, mutable>
// S4-COUNT-3: ttg.async_commit_group
// S4: scf.for
// S4-NEXT: ttg.async_wait {num = 2 : i32}
// S4: ttng.warp_group_dot {{.*}} {isAsync = true}
// S4-NEXT: ttng.warp_group_dot_wait {{.*}} {pendings = 1 : i32}
// S4: scf.yield
// S4-NEXT: }
// S4-NEXT: ttng.warp_group_dot_wait {{.*}} {pendings = 0 : i32}
// One stage: the loop keeps its loads, stored into the operand buffers each
// iteration, and the dot is synchronous.
// S1-LABEL: tt.func public @mm
// S1-NOT: memdesc<3x
// S1: scf.for
// S1-NEXT: %[[X:.*]] = tt.load {{.*}} : tensor<128x32x!tt.ptr<f16>
// S1-NEXT: %[[Y:.*]] = tt.load {{.*}} : tensor<32x128x!tt.ptr<f16>
// S1-NEXT: %[[A:.*]] = ttg.local_alloc %[[X]] {alignment = 1024 : i32}
// S1-NEXT: %[[B:.*]] = ttg.local_alloc %[[Y]] {alignment = 1024 : i32}
// S1-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %{{.*}} : !ttg.memdesc<128x32xf16, #{{shared[0-9]*}}, #smem> * !ttg.memdesc<32x128xf16, #{{shared[0-9]*}}, #smem> -> tensor<128x128xf32, #mma>
// S1: scf.yield %[[D]],
// S1: tt.return
tt.func public @mm(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %astep = arith.constant dense<32> : tensor<128x32xi32>
  %bstep = arith.constant dense<4096> : tensor<32x128xi32>
  %ld128k = arith.constant dense<128> : tensor<32x1xi32>
  %ld128m = arith.constant dense<128> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // A[m, k] at pa + m * K + k
  %am = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ks = tt.splat %K : i32 -> tensor<128x1xi32>
  %amk = arith.muli %am, %ks : tensor<128x1xi32>
  %abase = tt.splat %pa : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %ap0 = tt.addptr %abase, %amk : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %ap1 = tt.broadcast %ap0 : tensor<128x1x!tt.ptr<f16>> -> tensor<128x32x!tt.ptr<f16>>
  %ak = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ak1 = tt.broadcast %ak : tensor<1x32xi32> -> tensor<128x32xi32>
  %ap = tt.addptr %ap1, %ak1 : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
  // B[k, n] at pb + k * 128 + n
  %bk = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bkn = arith.muli %bk, %ld128k : tensor<32x1xi32>
  %bbase = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %bp0 = tt.addptr %bbase, %bkn : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bp1 = tt.broadcast %bp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x128x!tt.ptr<f16>>
  %bn = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %bn1 = tt.broadcast %bn : tensor<1x128xi32> -> tensor<32x128xi32>
  %bp = tt.addptr %bp1, %bn1 : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
  %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pA = %ap, %pB = %bp) -> (tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>) : i32 {
    %x = tt.load %pA : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %pB : tensor<32x128x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %nA = tt.addptr %pA, %astep : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %nB = tt.addptr %pB, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    scf.yield %d, %nA, %nB : tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>
  }
  // C[m, n] at pc + m * 128 + n
  %cm = arith.muli %am, %ld128m : tensor<128x1xi32>
  %cbase = tt.splat %pc : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
  %cp0 = tt.addptr %cbase, %cm : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
  %cp1 = tt.broadcast %cp0 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x128x!tt.ptr<f32>>
  %cn = tt.broadcast %bn : tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = tt.addptr %cp1, %cn : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32>
  tt.store %cp, %r#0 : tensor<128x128x!tt.ptr<f32>>
  tt.return
}

// -----

// Negative: the dot's result is used by another op in the loop (scaled
// after the dot; the scaled value is what the loop carries): the operands are
// still pipelined, but the dot stays synchronous (no isAsync, no
// warp_group_dot_wait in or after the loop).
// CHECK-LABEL: tt.func public @mm_result_used
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16
// CHECK: %[[LOOP:.*]]:7 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[VA:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[VB:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[VA]], %[[VB]], %[[ACC]] : !ttg.memdesc<128x32xf16, #{{shared[0-9]*}}, #smem, mutable> * !ttg.memdesc<32x128xf16, #{{shared[0-9]*}}, #smem, mutable> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: %[[E:.*]] = arith.mulf %[[D]], %{{.*}} : tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_copy_global_to_local
// CHECK-NOT: warp_group_dot_wait
// CHECK: scf.yield %[[E]],
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.convert_layout %[[LOOP]]#0 : tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: tt.return
// S4-LABEL: tt.func public @mm_result_used
// S4-NOT: warp_group_dot_wait
// S4: ttng.warp_group_dot {{.*}} : !ttg.memdesc<128x32xf16
// S4-NOT: warp_group_dot_wait
// S4: tt.return
// S1-LABEL: tt.func public @mm_result_used
// S1: ttng.warp_group_dot
tt.func public @mm_result_used(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %half = arith.constant dense<5.000000e-01> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %astep = arith.constant dense<32> : tensor<128x32xi32>
  %bstep = arith.constant dense<4096> : tensor<32x128xi32>
  %ld128k = arith.constant dense<128> : tensor<32x1xi32>
  %ld128m = arith.constant dense<128> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // A[m, k] at pa + m * K + k
  %am = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ks = tt.splat %K : i32 -> tensor<128x1xi32>
  %amk = arith.muli %am, %ks : tensor<128x1xi32>
  %abase = tt.splat %pa : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %ap0 = tt.addptr %abase, %amk : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %ap1 = tt.broadcast %ap0 : tensor<128x1x!tt.ptr<f16>> -> tensor<128x32x!tt.ptr<f16>>
  %ak = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ak1 = tt.broadcast %ak : tensor<1x32xi32> -> tensor<128x32xi32>
  %ap = tt.addptr %ap1, %ak1 : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
  // B[k, n] at pb + k * 128 + n
  %bk = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bkn = arith.muli %bk, %ld128k : tensor<32x1xi32>
  %bbase = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %bp0 = tt.addptr %bbase, %bkn : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bp1 = tt.broadcast %bp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x128x!tt.ptr<f16>>
  %bn = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %bn1 = tt.broadcast %bn : tensor<1x128xi32> -> tensor<32x128xi32>
  %bp = tt.addptr %bp1, %bn1 : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
  %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pA = %ap, %pB = %bp) -> (tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>) : i32 {
    %x = tt.load %pA : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %pB : tensor<32x128x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %e = arith.mulf %d, %half : tensor<128x128xf32>
    %nA = tt.addptr %pA, %astep : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %nB = tt.addptr %pB, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    scf.yield %e, %nA, %nB : tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>
  }
  // C[m, n] at pc + m * 128 + n
  %cm = arith.muli %am, %ld128m : tensor<128x1xi32>
  %cbase = tt.splat %pc : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
  %cp0 = tt.addptr %cbase, %cm : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
  %cp1 = tt.broadcast %cp0 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x128x!tt.ptr<f32>>
  %cn = tt.broadcast %bn : tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = tt.addptr %cp1, %cn : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32>
  tt.store %cp, %r#0 : tensor<128x128x!tt.ptr<f32>>
  tt.return
}

// -----

// The accumulator is also used by another op in the body before the dot
// (acc * 2 is the dot's C, not the loop-carried value itself). The operands
// are still pipelined. The dot must not be left in flight into the next
// iteration's mulf of its result: no wait with pendings = 1. The dot runs
// asynchronously and the next iteration waits for it completely (pendings =
// 0) right before the carried value's first use, the mulf (commit 1493b6a;
// before it, this dot stayed synchronous); after the loop, a wait for all.
// CHECK-LABEL: tt.func public @mm_acc_used
// CHECK-NOT: {pendings = 1 : i32}
// CHECK: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16
// CHECK: %[[LOOP:.*]]:7 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[VA:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[VB:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[W:.*]] = ttng.warp_group_dot_wait %[[ACC]] {pendings = 0 : i32} : tensor<128x128xf32, #mma>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[W]], %{{.*}} : tensor<128x128xf32, #mma>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[VA]], %[[VB]], %[[M]] {isAsync = true} : !ttg.memdesc<128x32xf16, #{{shared[0-9]*}}, #smem, mutable> * !ttg.memdesc<32x128xf16, #{{shared[0-9]*}}, #smem, mutable> -> tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_copy_global_to_local
// CHECK-NOT: warp_group_dot_wait
// CHECK: scf.yield %[[D]],
// CHECK-NEXT: }
// CHECK-NEXT: ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// CHECK-NOT: {pendings = 1 : i32}
// CHECK: tt.return
// The same with four stages.
// S4-LABEL: tt.func public @mm_acc_used
// S4-NOT: {pendings = 1 : i32}
// S4: ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// S4-NEXT: arith.mulf
// S4: ttng.warp_group_dot {{.*}} {isAsync = true} : !ttg.memdesc<128x32xf16
// S4-NOT: {pendings = 1 : i32}
// S4: tt.return
// S1-LABEL: tt.func public @mm_acc_used
// S1: ttng.warp_group_dot
tt.func public @mm_acc_used(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %two = arith.constant dense<2.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %astep = arith.constant dense<32> : tensor<128x32xi32>
  %bstep = arith.constant dense<4096> : tensor<32x128xi32>
  %ld128k = arith.constant dense<128> : tensor<32x1xi32>
  %ld128m = arith.constant dense<128> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // A[m, k] at pa + m * K + k
  %am = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ks = tt.splat %K : i32 -> tensor<128x1xi32>
  %amk = arith.muli %am, %ks : tensor<128x1xi32>
  %abase = tt.splat %pa : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %ap0 = tt.addptr %abase, %amk : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %ap1 = tt.broadcast %ap0 : tensor<128x1x!tt.ptr<f16>> -> tensor<128x32x!tt.ptr<f16>>
  %ak = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ak1 = tt.broadcast %ak : tensor<1x32xi32> -> tensor<128x32xi32>
  %ap = tt.addptr %ap1, %ak1 : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
  // B[k, n] at pb + k * 128 + n
  %bk = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bkn = arith.muli %bk, %ld128k : tensor<32x1xi32>
  %bbase = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %bp0 = tt.addptr %bbase, %bkn : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bp1 = tt.broadcast %bp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x128x!tt.ptr<f16>>
  %bn = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %bn1 = tt.broadcast %bn : tensor<1x128xi32> -> tensor<32x128xi32>
  %bp = tt.addptr %bp1, %bn1 : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
  %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pA = %ap, %pB = %bp) -> (tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>) : i32 {
    %x = tt.load %pA : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %pB : tensor<32x128x!tt.ptr<f16>>
    %acc2 = arith.mulf %acc, %two : tensor<128x128xf32>
    %d = tt.dot %x, %y, %acc2 : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %nA = tt.addptr %pA, %astep : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %nB = tt.addptr %pB, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    scf.yield %d, %nA, %nB : tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>
  }
  // C[m, n] at pc + m * 128 + n
  %cm = arith.muli %am, %ld128m : tensor<128x1xi32>
  %cbase = tt.splat %pc : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
  %cp0 = tt.addptr %cbase, %cm : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
  %cp1 = tt.broadcast %cp0 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x128x!tt.ptr<f32>>
  %cn = tt.broadcast %bn : tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = tt.addptr %cp1, %cn : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32>
  tt.store %cp, %r#0 : tensor<128x128x!tt.ptr<f32>>
  tt.return
}

// -----

// The loop-carried accumulator is read by another op (its row maxima are
// summed at the top of the body, before the loads) and is also the dot's C.
// A dot left in flight with pendings = 1 would be read by that reduce in the
// next iteration before any wait covering it (PTX: reading a wgmma's
// accumulator registers before a wait_group that covers it is undefined):
// there must be no pendings = 1 wait here. (Before commit 4717ee9 there was:
// a dot whose C was the carried value was always left in flight.) The dot is
// still asynchronous; the next iteration waits for it completely (pendings
// = 0) right before the carried value's first use, the reduce, and both the
// reduce and the dot read the waited value; after the loop, a wait for all.
// CHECK-LABEL: tt.func public @mm_acc_read
// CHECK-NOT: {pendings = 1 : i32}
// CHECK: %[[LOOP:.*]]:8 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[W:.*]] = ttng.warp_group_dot_wait %[[ACC]] {pendings = 0 : i32} : tensor<128x128xf32, #mma>
// CHECK-NEXT: "tt.reduce"(%[[W]]) <{axis = 1 : i32}>
// CHECK-NOT: warp_group_dot_wait
// CHECK: %[[VA:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[VB:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[VA]], %[[VB]], %[[W]] {isAsync = true} : !ttg.memdesc<128x32xf16, #{{shared[0-9]*}}, #smem, mutable> * !ttg.memdesc<32x128xf16, #{{shared[0-9]*}}, #smem, mutable> -> tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_copy_global_to_local
// CHECK-NOT: warp_group_dot_wait
// CHECK: scf.yield %[[D]], {{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// CHECK-NOT: {pendings = 1 : i32}
// CHECK: tt.return
// The same with four stages.
// S4-LABEL: tt.func public @mm_acc_read
// S4-NOT: {pendings = 1 : i32}
// S4: scf.for
// S4-NEXT: ttg.async_wait {num = 2 : i32}
// S4-NEXT: %[[W:.*]] = ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// S4-NEXT: "tt.reduce"(%[[W]])
// S4: ttng.warp_group_dot {{.*}}, %[[W]] {isAsync = true}
// S4-NOT: {pendings = 1 : i32}
// S4: tt.return
// S1-LABEL: tt.func public @mm_acc_read
// S1: "tt.reduce"(%arg
// S1: ttng.warp_group_dot
tt.func public @mm_acc_read(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %astep = arith.constant dense<32> : tensor<128x32xi32>
  %bstep = arith.constant dense<4096> : tensor<32x128xi32>
  %ld128k = arith.constant dense<128> : tensor<32x1xi32>
  %ld128m = arith.constant dense<128> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // A[m, k] at pa + m * K + k
  %am = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ks = tt.splat %K : i32 -> tensor<128x1xi32>
  %amk = arith.muli %am, %ks : tensor<128x1xi32>
  %abase = tt.splat %pa : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %ap0 = tt.addptr %abase, %amk : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %ap1 = tt.broadcast %ap0 : tensor<128x1x!tt.ptr<f16>> -> tensor<128x32x!tt.ptr<f16>>
  %ak = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ak1 = tt.broadcast %ak : tensor<1x32xi32> -> tensor<128x32xi32>
  %ap = tt.addptr %ap1, %ak1 : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
  // B[k, n] at pb + k * 128 + n
  %bk = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bkn = arith.muli %bk, %ld128k : tensor<32x1xi32>
  %bbase = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %bp0 = tt.addptr %bbase, %bkn : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bp1 = tt.broadcast %bp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x128x!tt.ptr<f16>>
  %bn = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %bn1 = tt.broadcast %bn : tensor<1x128xi32> -> tensor<32x128xi32>
  %bp = tt.addptr %bp1, %bn1 : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
  %zrow = arith.constant dense<0.0> : tensor<128xf32>
  %r:4 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pA = %ap, %pB = %bp, %sum = %zrow) -> (tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>, tensor<128xf32>) : i32 {
    %mx = "tt.reduce"(%acc) <{axis = 1 : i32}> ({
    ^bb0(%l: f32, %rr: f32):
      %mm = arith.maxnumf %l, %rr : f32
      tt.reduce.return %mm : f32
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %sum2 = arith.addf %sum, %mx : tensor<128xf32>
    %x = tt.load %pA : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %pB : tensor<32x128x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %nA = tt.addptr %pA, %astep : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %nB = tt.addptr %pB, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    scf.yield %d, %nA, %nB, %sum2 : tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>, tensor<128xf32>
  }
  // C[m, n] at pc + m * 128 + n
  %cm = arith.muli %am, %ld128m : tensor<128x1xi32>
  %cbase = tt.splat %pc : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
  %cp0 = tt.addptr %cbase, %cm : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
  %cp1 = tt.broadcast %cp0 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x128x!tt.ptr<f32>>
  %cn = tt.broadcast %bn : tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = tt.addptr %cp1, %cn : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32>
  tt.store %cp, %r#0 : tensor<128x128x!tt.ptr<f32>>
  %rows = tt.splat %pc : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %rowp = tt.addptr %rows, %rm : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %rowp, %r#3 : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// An attention-like loop (online softmax): s = dot(q, trans(k)); the row
// maxima and sums of s; acc = acc * alpha (the carried output rescaled);
// acc = dot(exp(s - m).to(f16), v, acc). Q (128x64) is loaded once, before
// the loop, and stored there (not pipelined: it stays a tt.load). K and V
// (128x64 tiles, row-major, D contiguous) become cp.async rings. K^T is read
// through a transposed view of its ring slot: the pipeline follows the
// ttg.memdesc_trans of the loaded tile, the ring takes the layout of K's
// buffer (nvmma_shared, transposed = false: the tile as loaded, rows of
// 64 x 2 = 128 bytes) and the dot reads memdesc_trans of the slot
// (transposed = true: K-major for wgmma). The Q x K^T dot is synchronous (its
// C is a zero, its result read right away). The P x V dot (P in registers,
// in the dot_op layout of its accumulator) is asynchronous; its carried
// output is first rescaled, so the next iteration waits for it completely
// (pendings = 0) right before that rescale, and there is no pendings = 1
// wait. After the loop, the last dot is waited for before the rings are
// freed and the output normalised.
// CHECK-DAG: #[[MS:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[MO:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[S:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[ST:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @attention
// CHECK: %[[Q:.*]] = tt.load %{{.*}} : tensor<128x64x!tt.ptr<f16>, #[[L:blocked[0-9]*]]>
// CHECK-NEXT: %[[QS:.*]] = ttg.local_alloc %[[Q]] {alignment = 1024 : i32} : (tensor<128x64xf16, #[[L]]>) -> !ttg.memdesc<128x64xf16, #[[S]], #smem>
// CHECK-NEXT: %[[RK:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: %[[RV:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x64xf16, #[[S]], #smem, mutable>
// The prologue: K and V of stages 0 and 1, one commit group each.
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK-NOT: ttng.warp_group_dot
// CHECK: %[[LOOP:.*]]:9 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[KV:.*]] = ttg.memdesc_index %[[RK]][%[[SLOT:arg[0-9]+]]] : !ttg.memdesc<3x128x64xf16, #[[S]], #smem, mutable> -> !ttg.memdesc<128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: %[[KT:.*]] = ttg.memdesc_trans %[[KV]] {order = array<i32: 1, 0>} : !ttg.memdesc<128x64xf16, #[[S]], #smem, mutable> -> !ttg.memdesc<64x128xf16, #[[ST]], #smem, mutable>
// CHECK-NEXT: %[[SC:.*]] = ttng.warp_group_dot %[[QS]], %[[KT]], %[[ZERO:cst[_0-9]*]] : !ttg.memdesc<128x64xf16, #[[S]], #smem> * !ttg.memdesc<64x128xf16, #[[ST]], #smem, mutable> -> tensor<128x128xf32, #[[MS]]>
// CHECK-NEXT: "tt.reduce"(%[[SC]])
// CHECK-NOT: warp_group_dot_wait
// CHECK: %[[W:.*]] = ttng.warp_group_dot_wait %[[ACC]] {pendings = 0 : i32} : tensor<128x64xf32, #[[MO]]>
// CHECK-NEXT: %[[RS:.*]] = arith.mulf %[[W]], %{{.*}} : tensor<128x64xf32, #[[MO]]>
// CHECK-NEXT: %[[VV:.*]] = ttg.memdesc_index %[[RV]][%[[SLOT]]] : !ttg.memdesc<3x128x64xf16, #[[S]], #smem, mutable> -> !ttg.memdesc<128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: %[[P:.*]] = arith.truncf %{{.*}} : tensor<128x128xf32, #[[MS]]> to tensor<128x128xf16, #[[MS]]>
// CHECK-NEXT: %[[PA:.*]] = ttg.convert_layout %[[P]] : tensor<128x128xf16, #[[MS]]> -> tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MO]], kWidth = 2}>>
// CHECK-NEXT: %[[O:.*]] = ttng.warp_group_dot %[[PA]], %[[VV]], %[[RS]] {isAsync = true} : tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MO]], kWidth = 2}>> * !ttg.memdesc<128x64xf16, #[[S]], #smem, mutable> -> tensor<128x64xf32, #[[MO]]>
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK: ttg.async_copy_global_to_local {{.*}} -> <128x64xf16, #[[S]], #smem, mutable>
// CHECK-NEXT: ttg.async_commit_group
// CHECK-NOT: warp_group_dot_wait
// CHECK: scf.yield %[[O]], {{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: %[[DONE:.*]] = ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32} : tensor<128x64xf32, #[[MO]]>
// CHECK-NEXT: ttg.async_wait {num = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc %[[RK]]
// CHECK-NEXT: ttg.local_dealloc %[[RV]]
// CHECK: arith.divf %[[DONE]], %{{.*}} : tensor<128x64xf32, #[[MO]]>
// CHECK: tt.return
// Four stages: rings of 4 slots, the same dots and wait.
// S4-LABEL: tt.func public @attention
// S4-NOT: {pendings = 1 : i32}
// S4: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<4x128x64xf16, #[[S:shared[0-9]*]], #smem, mutable>
// S4-NEXT: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<4x128x64xf16, #[[S]], #smem, mutable>
// S4: scf.for
// S4-NEXT: ttg.async_wait {num = 2 : i32}
// S4-NEXT: ttg.memdesc_index
// S4-NEXT: ttg.memdesc_trans
// S4-NEXT: ttng.warp_group_dot %{{[0-9]+}}, %{{[0-9]+}}, %cst{{[_0-9]*}} : !ttg.memdesc<128x64xf16
// S4-NOT: {pendings = 1 : i32}
// S4: ttng.warp_group_dot_wait %arg{{[0-9]+}} {pendings = 0 : i32}
// S4-NEXT: arith.mulf
// S4-NOT: {pendings = 1 : i32}
// S4: ttng.warp_group_dot {{.*}} {isAsync = true} : tensor<128x128xf16, #ttg.dot_op
// S4-NOT: {pendings = 1 : i32}
// S4: tt.return
// One stage: K and V are stored in the loop (K as loaded, read through
// memdesc_trans), both dots synchronous.
// S1-LABEL: tt.func public @attention
// S1: scf.for
// S1-NEXT: %[[K:.*]] = tt.load
// S1-NEXT: %[[KS:.*]] = ttg.local_alloc %[[K]] {alignment = 1024 : i32} : (tensor<128x64xf16, #{{blocked[0-9]*}}>) -> !ttg.memdesc<128x64xf16, #[[S:shared[0-9]*]], #smem>
// S1-NEXT: %[[KT:.*]] = ttg.memdesc_trans %[[KS]] {order = array<i32: 1, 0>} : !ttg.memdesc<128x64xf16, #[[S]], #smem> -> !ttg.memdesc<64x128xf16, #{{shared[0-9]*}}, #smem>
// S1-NEXT: ttng.warp_group_dot %{{.*}}, %[[KT]], %{{.*}}
// S1: %[[V:.*]] = tt.load
// S1: ttg.local_alloc %[[V]]
// S1: ttng.warp_group_dot
// S1: scf.yield
tt.func public @attention(%pq: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pk: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pv: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %po: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}) {
  %zacc = arith.constant dense<0.0> : tensor<128x64xf32>
  %zs = arith.constant dense<0.0> : tensor<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %zrow = arith.constant dense<0.0> : tensor<128xf32>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %kvstep = arith.constant dense<8192> : tensor<128x64xi32>
  %ld64m = arith.constant dense<64> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rd = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // [row, d] at base + row * 64 + d, for Q, K, V and the output
  %row = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %roff = arith.muli %row, %ld64m : tensor<128x1xi32>
  %roff2 = tt.broadcast %roff : tensor<128x1xi32> -> tensor<128x64xi32>
  %col = tt.expand_dims %rd {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %col2 = tt.broadcast %col : tensor<1x64xi32> -> tensor<128x64xi32>
  %off = arith.addi %roff2, %col2 : tensor<128x64xi32>
  %qbase = tt.splat %pq : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %qp = tt.addptr %qbase, %off : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
  %kbase = tt.splat %pk : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %kp = tt.addptr %kbase, %off : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
  %vbase = tt.splat %pv : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
  %vp = tt.addptr %vbase, %off : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
  %q = tt.load %qp : tensor<128x64x!tt.ptr<f16>>
  %r:5 = scf.for %n = %c0 to %N step %c128 iter_args(%acc = %zacc, %m_i = %ninf, %l_i = %zrow, %pK = %kp, %pV = %vp) -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x64x!tt.ptr<f16>>, tensor<128x64x!tt.ptr<f16>>) : i32 {
    %k = tt.load %pK : tensor<128x64x!tt.ptr<f16>>
    %kt = tt.trans %k {order = array<i32: 1, 0>} : tensor<128x64xf16> -> tensor<64x128xf16>
    %s = tt.dot %q, %kt, %zs : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    %mx = "tt.reduce"(%s) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      tt.reduce.return %x : f32
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %m_ij = arith.maxnumf %m_i, %mx : tensor<128xf32>
    %me = tt.expand_dims %m_ij {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %mb = tt.broadcast %me : tensor<128x1xf32> -> tensor<128x128xf32>
    %sd = arith.subf %s, %mb : tensor<128x128xf32>
    %p = math.exp %sd : tensor<128x128xf32>
    %dm = arith.subf %m_i, %m_ij : tensor<128xf32>
    %alpha = math.exp %dm : tensor<128xf32>
    %ps = "tt.reduce"(%p) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.addf %a, %b : f32
      tt.reduce.return %x : f32
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %la = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_ij = arith.addf %la, %ps : tensor<128xf32>
    %ae = tt.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tt.broadcast %ae : tensor<128x1xf32> -> tensor<128x64xf32>
    %accs = arith.mulf %acc, %ab : tensor<128x64xf32>
    %v = tt.load %pV : tensor<128x64x!tt.ptr<f16>>
    %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
    %o = tt.dot %p16, %v, %accs : tensor<128x128xf16> * tensor<128x64xf16> -> tensor<128x64xf32>
    %nK = tt.addptr %pK, %kvstep : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
    %nV = tt.addptr %pV, %kvstep : tensor<128x64x!tt.ptr<f16>>, tensor<128x64xi32>
    scf.yield %o, %m_ij, %l_ij, %nK, %nV : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128x64x!tt.ptr<f16>>, tensor<128x64x!tt.ptr<f16>>
  }
  %le = tt.expand_dims %r#2 {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tt.broadcast %le : tensor<128x1xf32> -> tensor<128x64xf32>
  %out = arith.divf %r#0, %lb : tensor<128x64xf32>
  %obase = tt.splat %po : !tt.ptr<f32> -> tensor<128x64x!tt.ptr<f32>>
  %op = tt.addptr %obase, %off : tensor<128x64x!tt.ptr<f32>>, tensor<128x64xi32>
  tt.store %op, %out : tensor<128x64x!tt.ptr<f32>>
  tt.return
}

// -----

// A loop with profiling records: the wait after the loop only on the path
// where the loop ran (the other path waits on its own, for nothing, and
// yields the initial accumulator). Otherwise that path materializes the
// initial accumulator in a block of its own that reaches the wait, and
// ptxas serializes the loop's wgmma pipeline (C7515; run 115's SASS).
// CHECK-LABEL: tt.func public @mm_records
// CHECK: %[[RA:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16
// CHECK: %[[LOOP:.*]]:7 = scf.for %{{.*}} = %[[LB:[a-z0-9_]+]] to %[[UB:[a-z0-9_]+]] step {{.*}} iter_args(%{{[a-z0-9_]+}} = %[[INIT:[a-z0-9_]+]],
// CHECK: prof.record start "dot"
// CHECK: ttng.warp_group_dot_wait {{.*}} {pendings = 1 : i32}
// CHECK: prof.record end "dot"
// CHECK: scf.yield
// CHECK: %[[RAN:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : i32
// CHECK-NEXT: %[[DONE:.*]] = scf.if %[[RAN]] -> (tensor<128x128xf32, #{{mma[0-9]*}}>) {
// CHECK-NEXT: %[[W:.*]] = ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// CHECK-NEXT: scf.yield %[[W]]
// CHECK-NEXT: } else {
// CHECK-NEXT: ttng.warp_group_dot_wait %[[RA]] {pendings = 0 : i32}
// CHECK-NEXT: scf.yield %[[INIT]]
// CHECK: ttg.convert_layout %[[DONE]]
// Negative (@mm above): without records the wait stands alone after the loop.
// S1-LABEL: tt.func public @mm_records
tt.func public @mm_records(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}) {
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %astep = arith.constant dense<32> : tensor<128x32xi32>
  %bstep = arith.constant dense<4096> : tensor<32x128xi32>
  %ld128k = arith.constant dense<128> : tensor<32x1xi32>
  %ld128m = arith.constant dense<128> : tensor<128x1xi32>
  %rm = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // A[m, k] at pa + m * K + k
  %am = tt.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ks = tt.splat %K : i32 -> tensor<128x1xi32>
  %amk = arith.muli %am, %ks : tensor<128x1xi32>
  %abase = tt.splat %pa : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>>
  %ap0 = tt.addptr %abase, %amk : tensor<128x1x!tt.ptr<f16>>, tensor<128x1xi32>
  %ap1 = tt.broadcast %ap0 : tensor<128x1x!tt.ptr<f16>> -> tensor<128x32x!tt.ptr<f16>>
  %ak = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ak1 = tt.broadcast %ak : tensor<1x32xi32> -> tensor<128x32xi32>
  %ap = tt.addptr %ap1, %ak1 : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
  // B[k, n] at pb + k * 128 + n
  %bk = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bkn = arith.muli %bk, %ld128k : tensor<32x1xi32>
  %bbase = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %bp0 = tt.addptr %bbase, %bkn : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bp1 = tt.broadcast %bp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x128x!tt.ptr<f16>>
  %bn = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %bn1 = tt.broadcast %bn : tensor<1x128xi32> -> tensor<32x128xi32>
  %bp = tt.addptr %bp1, %bn1 : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
  %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pA = %ap, %pB = %bp) -> (tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>) : i32 {
    %x = tt.load %pA : tensor<128x32x!tt.ptr<f16>>
    %y = tt.load %pB : tensor<32x128x!tt.ptr<f16>>
    prof.record start "dot"
    %d = tt.dot %x, %y, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    prof.record end "dot"
    %nA = tt.addptr %pA, %astep : tensor<128x32x!tt.ptr<f16>>, tensor<128x32xi32>
    %nB = tt.addptr %pB, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    scf.yield %d, %nA, %nB : tensor<128x128xf32>, tensor<128x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>
  }
  // C[m, n] at pc + m * 128 + n
  %cm = arith.muli %am, %ld128m : tensor<128x1xi32>
  %cbase = tt.splat %pc : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
  %cp0 = tt.addptr %cbase, %cm : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
  %cp1 = tt.broadcast %cp0 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x128x!tt.ptr<f32>>
  %cn = tt.broadcast %bn : tensor<1x128xi32> -> tensor<128x128xi32>
  %cp = tt.addptr %cp1, %cn : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32>
  tt.store %cp, %r#0 : tensor<128x128x!tt.ptr<f32>>
  tt.return
}
