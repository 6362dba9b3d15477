// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=3}, cse)' | FileCheck %s --implicit-check-not=tt.load
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=4}, cse)' | FileCheck %s --check-prefix=S4
// Negative: one stage pipelines nothing: no rings, no copies, no async dot.
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-coalesce, ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, ttg-remove-layout-conversions, canonicalize, ttg-pipeline{num-stages=1}, cse)' | FileCheck %s --check-prefix=S1 --implicit-check-not=isAsync --implicit-check-not=warp_group_dot_wait --implicit-check-not=async_copy_global_to_local --implicit-check-not=async_commit_group

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
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
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
// S1-NEXT: ttng.fence_async_shared
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

// Negative: the accumulator is also used in the loop before the dot (acc * 2
// is the dot's C, not the loop-carried value itself): the operands are still
// pipelined, but the dot stays synchronous (no isAsync, no
// warp_group_dot_wait in or after the loop).
// CHECK-LABEL: tt.func public @mm_acc_used
// CHECK: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x128x32xf16
// CHECK: %[[LOOP:.*]]:7 = scf.for {{.*}} iter_args(%[[ACC:arg[0-9]+]] = %{{[a-z0-9_]+}},
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: %[[VA:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[VB:.*]] = ttg.memdesc_index
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<128x128xf32, #mma>
// CHECK-NEXT: ttng.fence_async_shared
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[VA]], %[[VB]], %[[M]] : !ttg.memdesc<128x32xf16, #{{shared[0-9]*}}, #smem, mutable> * !ttg.memdesc<32x128xf16, #{{shared[0-9]*}}, #smem, mutable> -> tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_copy_global_to_local
// CHECK-NOT: warp_group_dot_wait
// CHECK: scf.yield %[[D]],
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK-NOT: warp_group_dot_wait
// CHECK: ttg.convert_layout %[[LOOP]]#0 : tensor<128x128xf32, #mma>
// CHECK-NOT: warp_group_dot_wait
// CHECK: tt.return
// S4-LABEL: tt.func public @mm_acc_used
// S4: ttng.warp_group_dot {{.*}} : !ttg.memdesc<128x32xf16
// S4-NOT: warp_group_dot_wait
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
