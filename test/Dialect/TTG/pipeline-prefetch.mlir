// RUN: tessera-opt %s -split-input-file --ttg-pipeline | FileCheck %s
// RUN: tessera-opt %s -split-input-file --ttg-pipeline='register-prefetch=false' | FileCheck %s --check-prefix=OFF

// ttg-pipeline's register prefetch (lib/Dialect/TTG/Transforms/Pipeline.cpp):
// operand loads that cannot be background copies -- here A, whose rows are
// %sa elements apart with nothing known of %sa, so a copy moves 2 bytes --
// are loaded one iteration ahead into registers: iteration 0's load before
// the loop (masked by lb < ub), iteration i + 1's at the top of iteration i
// (masked off past the end), before the ring wait, and carried by the loop.
// B (aligned rows) still goes through the ring.
// CHECK-LABEL: tt.func public @mm_unaligned
// CHECK: %[[RING:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %c0_i32, %{{.*}} : i32
// CHECK: %[[M0:.*]] = tt.splat %[[IN0]] : i1 -> tensor<64x32xi1
// CHECK: %[[A0:.*]] = tt.load %{{.*}}, %[[M0]] : tensor<64x32x!tt.ptr<f16>
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args({{.*}}, %[[ACUR:.*]] = %[[A0]]) -> ({{.*}}, tensor<64x32xf16, #{{.*}}>)
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]], %c32_i32 : i32
// CHECK: %[[ANEXT:.*]] = tt.load %{{.*}}, %{{.*}} : tensor<64x32x!tt.ptr<f16>
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK: ttg.convert_layout %[[ACUR]] : tensor<64x32xf16
// CHECK: ttg.local_load {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1
// CHECK: tt.dot
// CHECK: scf.yield {{.*}}, %[[ANEXT]] :
// OFF-LABEL: tt.func public @mm_unaligned
// OFF: scf.for
// OFF-NEXT: ttg.async_wait {num = 1 : i32}
// OFF-NEXT: tt.load %arg
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_unaligned(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32, %sb: i32, %flag: i1) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %sbs = tt.splat %sb : i32 -> tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %8 = tt.splat %sa : i32 -> tensor<64x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked2>
    %10 = tt.splat %pa : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %25:3 = scf.for %arg4 = %c0_i32 to %K step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %33 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked2>
      %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %35 = ttg.convert_layout %33 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %38 = tt.addptr %arg5, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %38, %37, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %s = "tt.reduce"(%25#1) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>
    %t = "tt.reduce"(%s) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>) -> f32
    tt.store %pc, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Neither operand can be a background copy (B's rows %sb apart too): no
// ring, both prefetched.
// CHECK-LABEL: tt.func public @mm_both
// CHECK-NOT: ttg.local_alloc
// CHECK: tt.load {{.*}} : tensor<64x32x!tt.ptr<f16>
// CHECK: tt.load {{.*}} : tensor<32x64x!tt.ptr<f16>
// CHECK: scf.for {{.*}} -> ({{.*}}, tensor<64x32xf16, #{{.*}}>, tensor<32x64xf16, #{{.*}}>)
// CHECK-NOT: ttg.async_wait
// CHECK: scf.yield
// OFF-LABEL: tt.func public @mm_both
// OFF: scf.for
// OFF-NEXT: tt.load %arg
// OFF-NEXT: tt.load %arg
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_both(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32, %sb: i32, %flag: i1) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %sbs = tt.splat %sb : i32 -> tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %8 = tt.splat %sa : i32 -> tensor<64x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked2>
    %10 = tt.splat %pa : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %sbs : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %25:3 = scf.for %arg4 = %c0_i32 to %K step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %33 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked2>
      %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %35 = ttg.convert_layout %33 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      %38 = tt.addptr %arg5, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %38, %37, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %s = "tt.reduce"(%25#1) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>
    %t = "tt.reduce"(%s) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>) -> f32
    tt.store %pc, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Negative: A is 256x32 over 128 threads, 64 elements a thread: too many
// registers to hold a second copy; it stays a load in the loop.
// CHECK-LABEL: tt.func public @mm_big
// CHECK: scf.for {{.*}} -> (tensor<256x32x!tt.ptr<f16>, #{{.*}}>, tensor<256x64xf32, #mma>, {{.*}}, i32, i32)
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: tt.load %arg
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_big(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32, %sb: i32, %flag: i1) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<256x64xf32, #mma>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<256x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %sbs = tt.splat %sb : i32 -> tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<256xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<256x1xi32, #blocked2>
    %8 = tt.splat %sa : i32 -> tensor<256x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<256x1xi32, #blocked2>
    %10 = tt.splat %pa : !tt.ptr<f16> -> tensor<256x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<256x1x!tt.ptr<f16>, #blocked2>, tensor<256x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<256x1x!tt.ptr<f16>, #blocked2> -> tensor<256x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<256x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<256x32x!tt.ptr<f16>, #blocked2>, tensor<256x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %25:3 = scf.for %arg4 = %c0_i32 to %K step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<256x32x!tt.ptr<f16>, #blocked2>, tensor<256x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %33 = tt.load %arg5 : tensor<256x32x!tt.ptr<f16>, #blocked2>
      %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %35 = ttg.convert_layout %33 : tensor<256x32xf16, #blocked2> -> tensor<256x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<256x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<256x64xf32, #mma>
      %38 = tt.addptr %arg5, %cst_2 : tensor<256x32x!tt.ptr<f16>, #blocked2>, tensor<256x32xi32, #blocked2>
      %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %38, %37, %39 : tensor<256x32x!tt.ptr<f16>, #blocked2>, tensor<256x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %s = "tt.reduce"(%25#1) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<256x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>
    %t = "tt.reduce"(%s) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>) -> f32
    tt.store %pc, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Negative: the loop is in the slow (else) branch ttg-version-nonnegative
// made; prefetching there would cost the whole kernel registers.
// CHECK-LABEL: tt.func public @mm_slow
// CHECK: } else {
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tt.ptr<f16>, #{{.*}}>, tensor<64x64xf32, #mma>, {{.*}}, i32, i32)
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK-NEXT: tt.load %arg
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_slow(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32, %sb: i32, %flag: i1) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %sbs = tt.splat %sb : i32 -> tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %8 = tt.splat %sa : i32 -> tensor<64x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked2>
    %10 = tt.splat %pa : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %r = scf.if %flag -> (tensor<64x64xf32, #mma>) {
      scf.yield %cst : tensor<64x64xf32, #mma>
    } else {
      %25:3 = scf.for %arg4 = %c0_i32 to %K step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
        %33 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked2>
        %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
        %35 = ttg.convert_layout %33 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
        %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
        %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
        %38 = tt.addptr %arg5, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
        %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
        scf.yield %38, %37, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
      }
      scf.yield %25#1 : tensor<64x64xf32, #mma>
    } {tt.nonnegative_version}
    %s = "tt.reduce"(%r) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>
    %t = "tt.reduce"(%s) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>) -> f32
    tt.store %pc, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Negative: the loop stores; a load issued an iteration early could miss
// what it writes, so nothing is pipelined or prefetched.
// CHECK-LABEL: tt.func public @mm_store
// CHECK-NOT: ttg.local_alloc
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tt.ptr<f16>, #{{.*}}>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #{{.*}}>)
// CHECK-NEXT: tt.load %arg
// CHECK-NEXT: tt.load %arg
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_store(%pa: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32, %sb: i32, %flag: i1) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_1 = arith.constant dense<2048> : tensor<32x64xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked2>
    %cst_3 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %sbs = tt.splat %sb : i32 -> tensor<32x1xi32, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %c0_f32 = arith.constant 0.000000e+00 : f32
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %8 = tt.splat %sa : i32 -> tensor<64x1xi32, #blocked2>
    %9 = arith.muli %6, %8 : tensor<64x1xi32, #blocked2>
    %10 = tt.splat %pa : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %12 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x32x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
    %16 = tt.expand_dims %5 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %17 = arith.muli %16, %cst_3 : tensor<32x1xi32, #blocked1>
    %18 = tt.splat %pb : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked1>
    %19 = tt.addptr %18, %17 : tensor<32x1x!tt.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
    %20 = tt.expand_dims %2 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %19 : tensor<32x1x!tt.ptr<f16>, #blocked1> -> tensor<32x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %25:3 = scf.for %arg4 = %c0_i32 to %K step %c32_i32 iter_args(%arg5 = %15, %arg6 = %cst, %arg7 = %24) -> (tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>)  : i32 {
      %33 = tt.load %arg5 : tensor<64x32x!tt.ptr<f16>, #blocked2>
      %34 = tt.load %arg7 : tensor<32x64x!tt.ptr<f16>, #blocked1>
      %35 = ttg.convert_layout %33 : tensor<64x32xf16, #blocked2> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
      %36 = ttg.convert_layout %34 : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
      %37 = tt.dot %35, %36, %arg6, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
      tt.store %pc, %c0_f32 : !tt.ptr<f32>
      %38 = tt.addptr %arg5, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x32xi32, #blocked2>
      %39 = tt.addptr %arg7, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %38, %37, %39 : tensor<64x32x!tt.ptr<f16>, #blocked2>, tensor<64x64xf32, #mma>, tensor<32x64x!tt.ptr<f16>, #blocked1>
    }
    %s = "tt.reduce"(%25#1) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>
    %t = "tt.reduce"(%s) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<64xf32, #ttg.slice<{dim = 0, parent = #mma}>>) -> f32
    tt.store %pc, %t : !tt.ptr<f32>
    tt.return
  }
}
