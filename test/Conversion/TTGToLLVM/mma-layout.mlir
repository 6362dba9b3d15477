// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// nvidia_mma (v2) and dot_op layouts have LinearLayouts (LayoutConversions.cpp),
// so tensors in them lower like any other: conversions through shared memory,
// elementwise ops per owned element (32x32 over 128 threads: 8 each). The
// conversion buffer is a permutation of the elements (no padding): 32 x 32 x 4
// bytes.
// CHECK: module attributes {{.*}}ttg.shared = 4096 : i32
// Accesses are vectors where the registers hold consecutive elements: the
// blocked side 4 consecutive columns (16 bytes), the mma side pairs (8 bytes).
// CHECK-LABEL: llvm.func @to_mma_and_back
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-COUNT-8: llvm.call @__nv_logf
// The second conversion reuses the bytes of the first: a barrier first.
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @to_mma_and_back(%x: tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked> {
    %m = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #mma>
    %e = math.log %m : tensor<32x32xf32, #mma>
    %b = ttg.convert_layout %e : tensor<32x32xf32, #mma> -> tensor<32x32xf32, #blocked>
    tt.return %b : tensor<32x32xf32, #blocked>
  }
}

// -----

// A dot operand (A of m16n8k16, f16, kWidth 2): 16x16 over one warp, 8 halves
// per thread: one 16-byte store of the thread's row segment, then one
// ldmatrix.x4 (the four 8x8 matrices of the tile, rows 16 contiguous bytes).
// CHECK-LABEL: llvm.func @dot_operand
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_operand(%x: tensor<16x16xf16, #blocked>) -> tensor<16x16xf16, #dot> {
    %a = ttg.convert_layout %x : tensor<16x16xf16, #blocked> -> tensor<16x16xf16, #dot>
    tt.return %a : tensor<16x16xf16, #dot>
  }
}

// -----

// Negative: before sm_75 there is no ldmatrix; the same operand is read with
// 32-bit shared loads (the fragment pairs).
// CHECK-LABEL: llvm.func @dot_operand_sm70
// CHECK: nvvm.barrier0
// CHECK-NOT: ldmatrix
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xf16>
// CHECK-NOT: ldmatrix
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:70", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_operand_sm70(%x: tensor<16x16xf16, #blocked>) -> tensor<16x16xf16, #dot> {
    %a = ttg.convert_layout %x : tensor<16x16xf16, #blocked> -> tensor<16x16xf16, #dot>
    tt.return %a : tensor<16x16xf16, #dot>
  }
}
