// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s
// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSMEM
// RUN: sed -e 's/cuda:90/cuda:75/' %s | tessera-opt -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s --check-prefix=SM75

// Shared-memory buffers (MemoryOpToLLVM.cpp): a buffer is the address of its
// first element; its swizzled layout gives every element's offset.
// local_alloc from a tensor stores it (8 halves, 16 bytes, per access: the
// layout keeps runs of 8 whole); local_load into an mma A operand reads
// 8x8 matrices (ldmatrix.x4); the buffer comes from the allocator's offset.
// CHECK: ttg.shared = 4096
// CHECK-LABEL: llvm.func @alloc_and_load
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix
// SM75-LABEL: llvm.func @alloc_and_load
// SM75: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// NOSMEM: shared-memory.mlir:[[@LINE+8]]:{{.*}} error: a shared-memory buffer without an offset; run ttg-allocate-shared-memory first
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @alloc_and_load(%x: tensor<64x32xf16, #blocked>) -> tensor<64x32xf16, #dot> {
    %buf = ttg.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared, #smem>
    %a = ttg.local_load %buf : !ttg.memdesc<64x32xf16, #shared, #smem> -> tensor<64x32xf16, #dot>
    tt.return %a : tensor<64x32xf16, #dot>
  }
}

// -----

// A multi-buffered allocation filled by asynchronous copies: memdesc_index
// moves by whole buffers (2048 halves), each copy is a 16-byte cp.async that
// reads nothing where the mask is off (source size 0), grouped and waited for;
// a blocked local_load then reads vectors. Before sm_80 (SM75) there is no
// cp.async: the elements are loaded and stored at once.
// CHECK-LABEL: llvm.func @async_copies
// CHECK: llvm.mul {{.*}}, %{{.*}} : i32
// CHECK: llvm.select {{.*}} : i1, i32
// CHECK: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 0;
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// SM75-LABEL: llvm.func @async_copies
// SM75-NOT: cp.async
// SM75: llvm.store {{.*}} : f16, !llvm.ptr<3>
// SM75-NOT: cp.async
// SM75: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @async_copies(%p: tensor<64x32x!tt.ptr<f16>, #blocked>, %m: tensor<64x32xi1, #blocked>, %i: i32) -> tensor<64x32xf16, #blocked> {
    %zero = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
    %slot = ttg.memdesc_index %buf[%i] : !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %slot mask %m other %zero {contiguity = 8 : i32} : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t
    %w = ttg.async_wait %g {num = 0 : i32}
    %v = ttg.local_load %slot token %w : !ttg.memdesc<64x32xf16, #shared, #smem, mutable> -> tensor<64x32xf16, #blocked>
    ttg.local_dealloc %buf : !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
    tt.return %v : tensor<64x32xf16, #blocked>
  }
}
