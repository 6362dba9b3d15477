// RUN: tessera-opt %s -split-input-file --ttg-pipeline | FileCheck %s
// RUN: tessera-opt %s -split-input-file --ttg-pipeline='num-stages=4' | FileCheck %s --check-prefix=S4
// RUN: tessera-opt %s -split-input-file --ttg-pipeline='num-stages=1' | FileCheck %s --check-prefix=S1

// ttg-pipeline (lib/Dialect/TTG/Transforms/Pipeline.cpp). The K loop of a
// matmul whose trip count is a run-time value (K): both operand loads become
// rings of buffers (3 stages by default: 2 iterations started before the
// loop, each masked off past K), the loop waits for one group fewer than
// it has in flight, reads its operands straight into the dot operand
// layouts, starts the copies of the iteration 2 ahead, and after the loop
// everything is waited for and freed. The swizzles: 64-byte rows of A share
// a phase by twos (4 phases), 128-byte rows of B one each (8 phases).
// CHECK-DAG: #[[SA:.*]] = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-DAG: #[[SB:.*]] = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: tt.func public @mm
// CHECK: %[[RA:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #[[SA]], #smem, mutable>
// CHECK: %[[RB:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #[[SB]], #smem, mutable>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK-COUNT-2: ttg.async_copy_global_to_local {{.*}} {contiguity = 8 : i32}
// CHECK: ttg.async_commit_group
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK-COUNT-2: ttg.async_copy_global_to_local
// CHECK: ttg.async_commit_group
// CHECK: scf.for
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NOT: tt.load
// CHECK: ttg.local_load {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0
// CHECK: ttg.local_load {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1
// CHECK: tt.dot
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK-COUNT-2: ttg.async_copy_global_to_local
// CHECK: ttg.async_commit_group
// CHECK: scf.yield
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK: ttg.local_dealloc %[[RA]]
// CHECK: ttg.local_dealloc %[[RB]]
// Four stages: three iterations ahead, two groups left in flight.
// S4-LABEL: tt.func public @mm
// S4: ttg.local_alloc : () -> !ttg.memdesc<4x64x32xf16
// S4-COUNT-3: ttg.async_commit_group
// S4: scf.for
// S4-NEXT: ttg.async_wait {num = 2 : i32}
// Negative: one stage leaves the loop alone.
// S1-LABEL: tt.func public @mm
// S1-NOT: ttg.local_alloc
// S1-NOT: ttg.async_copy_global_to_local
// S1: scf.for
// S1: tt.load
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %3 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %7 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %8 = tt.splat %arg3 : i32 -> tensor<64x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked2>
    %10 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %21 = tt.expand_dims %3 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %25:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %33 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked2>
      %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %35 = ttg.convert_layout %33 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %38 = tt.addptr %arg5, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %38, %37, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %26 = arith.muli %7, %cst_0 : tensor<64x1xi32, #blocked>
    %27 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %28 = tt.addptr %27, %26 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %29 = tt.broadcast %28 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %30 = tt.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %31 = tt.addptr %29, %30 : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %32 = ttg.convert_layout %25#1 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tt.store %31, %32 : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// -----

// Negative: the rows of A and the columns of B come from loaded indices, so
// no load of the loop can be started ahead; the loop keeps its loads.
// CHECK-LABEL: tt.func public @mm_gather
// CHECK-NOT: ttg.local_alloc
// CHECK-NOT: ttg.async_copy_global_to_local
// CHECK: scf.for
// CHECK-COUNT-3: tt.load
// S4-LABEL: tt.func public @mm_gather
// S4-NOT: ttg.async_copy_global_to_local
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked4 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked5 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_gather(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_1 = arith.constant dense<64> : tensor<64xi32, #blocked1>
    %cst_2 = arith.constant dense<64> : tensor<32x1xi32, #blocked>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked1>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %5 = tt.splat %arg4 : i32 -> tensor<64x1xi32, #blocked3>
    %6 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked3>
    %7 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked>
    %8 = scf.for %arg5 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg6 = %cst) -> (tensor<64x64xf32, #mma>)  : i32 {
      %18 = arith.divsi %arg5, %c32_i32 : i32
      %19 = arith.muli %18, %c64_i32 : i32
      %20 = tt.addptr %arg2, %19 : !tt.ptr<i32>, i32
      %21 = tt.splat %20 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #blocked1>
      %22 = tt.addptr %21, %2 : tensor<64x!tt.ptr<i32>, #blocked1>, tensor<64xi32, #blocked1>
      %23 = tt.load %22 : tensor<64x!tt.ptr<i32>, #blocked1>
      %24 = ttg.convert_layout %23 : tensor<64xi32, #blocked1> -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
      %25 = tt.expand_dims %24 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked3}>> -> tensor<64x1xi32, #blocked3>
      %26 = arith.muli %25, %5 : tensor<64x1xi32, #blocked3>
      %27 = tt.addptr %6, %26 : tensor<64x1x!tt.ptr<f16>, #blocked3>, tensor<64x1xi32, #blocked3>
      %28 = tt.splat %arg5 : i32 -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %29 = tt.splat %arg5 : i32 -> tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %30 = arith.addi %28, %3 : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %31 = arith.addi %29, %4 : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %32 = tt.expand_dims %30 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
      %33 = ttg.convert_layout %27 : tensor<64x1x!tt.ptr<f16>, #blocked3> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
      %34 = tt.broadcast %33 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
      %35 = tt.broadcast %32 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
      %36 = tt.addptr %34, %35 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %37 = ttg.convert_layout %36 : tensor<64x32x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked4>
      %38 = tt.load %37 : tensor<64x32x!tt.ptr<f16>, #blocked4>
      %39 = tt.expand_dims %31 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
      %40 = arith.muli %39, %cst_2 : tensor<32x1xi32, #blocked>
      %41 = tt.addptr %7, %40 : tensor<32x1x!tt.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
      %42 = arith.remsi %23, %cst_1 : tensor<64xi32, #blocked1>
      %43 = ttg.convert_layout %42 : tensor<64xi32, #blocked1> -> tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked5}>>
      %44 = tt.expand_dims %43 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked5}>> -> tensor<1x64xi32, #blocked5>
      %45 = tt.broadcast %41 : tensor<32x1x!tt.ptr<f16>, #blocked> -> tensor<32x64x!tt.ptr<f16>, #blocked>
      %46 = ttg.convert_layout %44 : tensor<1x64xi32, #blocked5> -> tensor<1x64xi32, #blocked>
      %47 = tt.broadcast %46 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
      %48 = tt.addptr %45, %47 : tensor<32x64x!tt.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      %49 = tt.load %48 : tensor<32x64x!tt.ptr<f16>, #blocked>
      %50 = ttg.convert_layout %38 : tensor<64x32xf16, #blocked4> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %51 = ttg.convert_layout %49 : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %52 = tt.dot %50, %51, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      scf.yield %52 : tensor<64x64xf32, #mma>
    }
    %9 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %10 = arith.muli %9, %cst_0 : tensor<64x1xi32, #blocked>
    %11 = tt.splat %arg3 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %12 = tt.addptr %11, %10 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %13 = tt.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %14 = tt.broadcast %12 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %15 = tt.broadcast %13 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %16 = tt.addptr %14, %15 : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %17 = ttg.convert_layout %8 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tt.store %16, %17 : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// -----

// A loop's own tl.range(num_stages=2) wins over the option (S4 too), and only
// the load that can be computed ahead (B, a pointer tile bumped each
// iteration) is pipelined; A's rows come from a load and stay a tt.load.
// CHECK-LABEL: tt.func public @mm_partial
// CHECK: ttg.local_alloc : () -> !ttg.memdesc<2x32x64xf16
// CHECK-NOT: ttg.local_alloc
// CHECK-COUNT-1: ttg.async_copy_global_to_local
// CHECK: scf.for
// CHECK-NEXT: ttg.async_wait {num = 0 : i32}
// CHECK: tt.load
// CHECK: tt.load
// CHECK: ttg.local_load {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1
// S4-LABEL: tt.func public @mm_partial
// S4: ttg.local_alloc : () -> !ttg.memdesc<2x32x64xf16
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_partial(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %3 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %6 = tt.expand_dims %4 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %7 = arith.muli %6, %cst_2 : tensor<32x1xi32, #blocked1>
    %8 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %9 = tt.addptr %8, %7 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %10 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %11 = tt.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %12 = tt.broadcast %9 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %13 = tt.broadcast %10 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %14 = tt.addptr %12, %13 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %15 = tt.splat %arg4 : i32 -> tensor<64x1xi32, #blocked2>
    %16 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %17:2 = scf.for %arg5 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg6 = %cst, %arg7 = %14) -> (tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %26 = arith.divsi %arg5, %c32_i32 : i32
      %27 = arith.muli %26, %c64_i32 : i32
      %28 = tt.addptr %arg2, %27 : !tt.ptr<i32>, i32
      %29 = tt.splat %28 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %30 = tt.addptr %29, %2 : tensor<64x!tt.ptr<i32>, #ttg.slice<{dim = 1, parent = #blocked2}>>, tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %31 = tt.load %30 : tensor<64x!tt.ptr<i32>, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %32 = tt.expand_dims %31 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
      %33 = arith.muli %32, %15 : tensor<64x1xi32, #blocked2>
      %34 = tt.addptr %16, %33 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %35 = tt.splat %arg5 : i32 -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %36 = arith.addi %35, %5 : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %37 = tt.expand_dims %36 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
      %38 = tt.broadcast %34 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
      %39 = tt.broadcast %37 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
      %40 = tt.addptr %38, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %41 = ttg.convert_layout %40 : tensor<64x32x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked3>
      %42 = tt.load %41 : tensor<64x32x!tt.ptr<f16>, #blocked3>
      %43 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %44 = ttg.convert_layout %42 : tensor<64x32xf16, #blocked3> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %45 = ttg.convert_layout %43 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %46 = tt.dot %44, %45, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %47 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %46, %47 : tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    } {tt.num_stages = 2 : i32}
    %18 = tt.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %19 = arith.muli %18, %cst_0 : tensor<64x1xi32, #blocked>
    %20 = tt.splat %arg3 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %21 = tt.addptr %20, %19 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %22 = tt.broadcast %21 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %23 = tt.broadcast %11 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %24 = tt.addptr %22, %23 : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %25 = ttg.convert_layout %17#0 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tt.store %24, %25 : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// -----

// Negative: the loop stores every iteration; a load started ahead could miss
// what the loop writes, so nothing is pipelined.
// CHECK-LABEL: tt.func public @mm_stores
// CHECK-NOT: ttg.async_copy_global_to_local
// CHECK: scf.for
// CHECK: tt.load
// CHECK: tt.store
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_stores(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_0 = arith.constant dense<2048> : tensor<32x64xi32, #blocked>
    %cst_1 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_2 = arith.constant dense<64> : tensor<64x1xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %3 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %7 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %8 = tt.splat %arg3 : i32 -> tensor<64x1xi32, #blocked1>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked1>
    %10 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked1>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x32xi32, #blocked1>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked1> -> tensor<64x32x!tt.ptr<f16>, #blocked1>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked>
    %18 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %21 = tt.expand_dims %3 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x64xi32, #blocked2>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked> -> tensor<32x64x!tt.ptr<f16>, #blocked>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %25 = arith.muli %7, %cst_2 : tensor<64x1xi32, #blocked2>
    %26 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked2>
    %27 = tt.addptr %26, %25 : tensor<64x1x!tt.ptr<f32>, #blocked2>, tensor<64x1xi32, #blocked2>
    %28 = tt.broadcast %27 : tensor<64x1x!tt.ptr<f32>, #blocked2> -> tensor<64x64x!tt.ptr<f32>, #blocked2>
    %29 = tt.broadcast %21 : tensor<1x64xi32, #blocked2> -> tensor<64x64xi32, #blocked2>
    %30 = tt.addptr %28, %29 : tensor<64x64x!tt.ptr<f32>, #blocked2>, tensor<64x64xi32, #blocked2>
    %31:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked>)  : i32 {
      %32 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked1>
      %33 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked>
      %34 = ttg.convert_layout %32 : tensor<64x32xf16, #blocked1> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %35 = ttg.convert_layout %33 : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %36 = tt.dot %34, %35, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %37 = ttg.convert_layout %36 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked2>
      tt.store %30, %37 : tensor<64x64x!tt.ptr<f32>, #blocked2>
      %38 = tt.addptr %arg5, %cst_1 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %39 = tt.addptr %arg7, %cst_0 : tensor<32x64x!tt.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %38, %36, %39 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked>
    }
    tt.return
  }
}
// -----

// A's columns need k // D, a division that may trap for iterations past the
// end: A keeps its load, B is pipelined (3 stages: 2 + 1 copies).
// CHECK-LABEL: tt.func public @mm_divide
// CHECK: ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16
// CHECK-NOT: ttg.local_alloc
// CHECK-COUNT-2: ttg.async_copy_global_to_local
// CHECK: scf.for
// CHECK: arith.divsi
// CHECK: tt.load
// CHECK-COUNT-1: ttg.async_copy_global_to_local
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_divide(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %3 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %6 = tt.expand_dims %4 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %7 = arith.muli %6, %cst_2 : tensor<32x1xi32, #blocked1>
    %8 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %9 = tt.addptr %8, %7 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %10 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %11 = tt.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %12 = tt.broadcast %9 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %13 = tt.broadcast %10 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %14 = tt.addptr %12, %13 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %15 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %16 = tt.splat %arg3 : i32 -> tensor<64x1xi32, #blocked2>
    %17 = arith.muli %15, %16 : tensor<64x1xi32, #blocked2>
    %18 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %19 = tt.addptr %18, %17 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %20 = tt.broadcast %19 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %21:2 = scf.for %arg5 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg6 = %cst, %arg7 = %14) -> (tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %30 = arith.divsi %arg5, %arg4 : i32
      %31 = arith.muli %30, %c32_i32 : i32
      %32 = tt.splat %31 : i32 -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %33 = arith.addi %32, %5 : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
      %34 = tt.expand_dims %33 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
      %35 = tt.broadcast %34 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
      %36 = tt.addptr %20, %35 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %37 = tt.load %36 : tensor<64x32x!tt.ptr<f16>, #blocked2>
      %38 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %39 = ttg.convert_layout %37 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %40 = ttg.convert_layout %38 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %41 = tt.dot %39, %40, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %42 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %41, %42 : tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %22 = tt.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %23 = arith.muli %22, %cst_0 : tensor<64x1xi32, #blocked>
    %24 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %25 = tt.addptr %24, %23 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %26 = tt.broadcast %25 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %27 = tt.broadcast %11 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %28 = tt.addptr %26, %27 : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %29 = ttg.convert_layout %21#0 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tt.store %28, %29 : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}