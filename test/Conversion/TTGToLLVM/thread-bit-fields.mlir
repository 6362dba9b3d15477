// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// Thread-id bits read as fields. A blocked layout's lanes and warps continue
// one run of offsets (lane bits 0-4 give 4..64, warp bits 5-8 give
// 128..1024): the offset is one field of the thread id, (tid & 511) * 4, with
// no separate warp term.
// CHECK-LABEL: llvm.func @range16
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C511:.*]] = llvm.mlir.constant(511 : i32)
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT: %[[F:.*]] = llvm.and %[[T]], %[[C511]]
// CHECK-NEXT: llvm.mul %[[F]], %[[C4]]
// CHECK-NOT: llvm.lshr
// CHECK: llvm.return
#b16 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [16], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 16 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @range16(%p: !tt.ptr<i32>) {
    %r = tt.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32, #b16>
    %s = tt.splat %p : !tt.ptr<i32> -> tensor<2048x!tt.ptr<i32>, #b16>
    %a = tt.addptr %s, %r : tensor<2048x!tt.ptr<i32>, #b16>, tensor<2048xi32, #b16>
    tt.store %a, %r : tensor<2048x!tt.ptr<i32>, #b16>
    tt.return
  }
}

// -----

// A reduction over sixteen warps: the warp's slot among the partials is
// one field, (tid >> 5) & 15, not four one-bit terms.
// CHECK-LABEL: llvm.func @group16
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-DAG: %[[C15:.*]] = llvm.mlir.constant(15 : i32)
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NOT: llvm.lshr
// CHECK: %[[W:.*]] = llvm.lshr %[[T]], %[[C5]]
// CHECK-NEXT: llvm.and %[[W]], %[[C15]]
// CHECK-NOT: llvm.lshr
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
#b16 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [16], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 16 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @group16(%p: !tt.ptr<f32>, %x: tensor<2048xf32, #b16>) {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<2048xf32, #b16>) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Where the bits of one dimension are not consecutive in the thread id they
// stay separate fields (the negative case): column = (tid & 1) + ((tid >> 5)
// & 1) * 2, lane bits 1-4 lying between them along the rows. The warps along
// the reduced rows are warp bits 1-2: one field shifted down by one.
// CHECK-LABEL: llvm.func @split
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : i32)
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT: %[[W:.*]] = llvm.lshr %[[T]], %[[C5]]
// CHECK-NEXT: %[[W1:.*]] = llvm.lshr %[[W]], %[[C1]]
// CHECK-NEXT: llvm.and %[[W1]], %[[C3]]
// CHECK-NEXT: %[[LO:.*]] = llvm.and %[[T]], %[[C1]]
// CHECK-NEXT: %[[HI:.*]] = llvm.and %[[W]], %[[C1]]
// CHECK-NEXT: %[[HI2:.*]] = llvm.mul %[[HI]], %[[C2]]
// CHECK-NEXT: llvm.add %[[LO]], %[[HI2]]
#d = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @split(%x: tensor<64x4xf32, #d>) -> tensor<4xf32, #ttg.slice<{dim = 0, parent = #d}>> {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<64x4xf32, #d>) -> tensor<4xf32, #ttg.slice<{dim = 0, parent = #d}>>
    tt.return %t : tensor<4xf32, #ttg.slice<{dim = 0, parent = #d}>>
  }
}
