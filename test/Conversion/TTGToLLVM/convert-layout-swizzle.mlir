// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s
// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSMEM

// A transpose tile: rows 4-wide in, columns 4-wide out. The buffer is the
// 64 x 64 elements, unpadded (16 KiB); the two vectors cross, so the writes
// go 2-wide and the reads one element at a time, with lane bits XORed into
// the bank bits so that neither side has bank conflicts (ExchangeLayoutTest
// checks the banks; here the shape of the code).
// CHECK: module attributes {{.*}}ttg.shared = 16384 : i32
// CHECK-LABEL: llvm.func @transpose_tile
// CHECK: llvm.xor
// CHECK-COUNT-16: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// NOSMEM: convert-layout-swizzle.mlir:[[@LINE+5]]:{{.*}} error: this op moves data between threads through shared memory; run ttg-allocate-shared-memory first
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @transpose_tile(%x: tensor<64x64xf32, #rows>) -> tensor<64x64xf32, #cols> {
    %y = ttg.convert_layout %x : tensor<64x64xf32, #rows> -> tensor<64x64xf32, #cols>
    tt.return %y : tensor<64x64xf32, #cols>
  }
}

// -----

// Along the same dim, 4-wide on both sides: whole 16-byte vectors both ways.
// CHECK: module attributes {{.*}}ttg.shared = 16384 : i32
// CHECK-LABEL: llvm.func @same_dim
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
#a = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @same_dim(%x: tensor<32x128xf32, #a>) -> tensor<32x128xf32, #b> {
    %y = ttg.convert_layout %x : tensor<32x128xf32, #a> -> tensor<32x128xf32, #b>
    tt.return %y : tensor<32x128xf32, #b>
  }
}

// -----

// Booleans move one at a time: LLVM packs vectors of i1 into bits, which the
// other side, reading bytes, would not find.
// CHECK-LABEL: llvm.func @bool_tile
// CHECK-NOT: xi1>
// CHECK: llvm.store {{.*}} : i1, !llvm.ptr<3>
// CHECK-NOT: xi1>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i1
// CHECK-NOT: xi1>
// CHECK: llvm.return
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bool_tile(%x: tensor<64x64xi1, #rows>) -> tensor<64x64xi1, #cols> {
    %y = ttg.convert_layout %x : tensor<64x64xi1, #rows> -> tensor<64x64xi1, #cols>
    tt.return %y : tensor<64x64xi1, #cols>
  }
}
