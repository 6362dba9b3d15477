// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s
// Without ttg-allocate-shared-memory there is no buffer to exchange through: an error.
// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSMEM

// tt.reshape / tt.join / tt.split / tt.cat (lib/Conversion/TTGToLLVM/
// ViewOpToLLVM.cpp): elements go through shared memory by row-major
// position, between barriers.

// 64 f32 in, 64 out: a 256-byte buffer; each of the thread's 2 elements
// stored, then 2 loaded.
// CHECK: module attributes {{.*}}ttg.shared = 256 : i32
// CHECK-LABEL: llvm.func @reshape
// CHECK-COUNT-2: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// NOSMEM: views.mlir:[[@LINE+5]]:{{.*}} error: this op moves data between threads through shared memory; run ttg-allocate-shared-memory first
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @reshape(%x: tensor<8x8xf32, #blocked>) -> tensor<64xf32, #blocked1> {
    %r = tt.reshape %x : tensor<8x8xf32, #blocked> -> tensor<64xf32, #blocked1>
    tt.return %r : tensor<64xf32, #blocked1>
  }
}

// -----

// join: operand k lands at 2 * position + k.
// CHECK: module attributes {{.*}}ttg.shared = 512 : i32
// CHECK-LABEL: llvm.func @join
// CHECK-DAG: [[TWO:%.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: [[ONE:%.*]] = llvm.mlir.constant(1 : i32)
// CHECK: [[P:%.*]] = llvm.mul %{{.*}}, [[TWO]]
// CHECK: llvm.store
// CHECK: [[Q:%.*]] = llvm.add %{{.*}}, [[ONE]]
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> i32
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @join(%a: tensor<64xi32, #blocked1>, %b: tensor<64xi32, #blocked1>) -> tensor<64x2xi32, #blocked2> {
    %r = tt.join %a, %b : tensor<64xi32, #blocked1> -> tensor<64x2xi32, #blocked2>
    tt.return %r : tensor<64x2xi32, #blocked2>
  }
}

// -----

// split reads position * 2 + k; cat places rhs after lhs's 64 elements.
// CHECK-LABEL: llvm.func @split_cat
// CHECK-DAG: [[C64:%.*]] = llvm.mlir.constant(64 : i32)
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load
// split and cat share their scratch bytes: ttg-membar puts a barrier between.
// CHECK: nvvm.barrier0
// CHECK: llvm.add %{{.*}}, [[C64]]
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load
// CHECK: llvm.return
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @split_cat(%x: tensor<64x2xf16, #blocked2>) -> tensor<128xf16, #blocked3> {
    %l, %r = tt.split %x : tensor<64x2xf16, #blocked2> -> tensor<64xf16, #blocked1>
    %c = tt.cat %l, %r : tensor<64xf16, #blocked1> -> tensor<128xf16, #blocked3>
    tt.return %c : tensor<128xf16, #blocked3>
  }
}

// -----

// histogram: bins zeroed, one shared atomic add per owned element (adding
// 0 to bin 0 when the value is out of range or masked off), then read.
// 4 warps hold copies of one warp's 64 elements: only warp 0 counts.
// CHECK: module attributes {{.*}}ttg.shared = 64 : i32
// CHECK-LABEL: llvm.func @histogram
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "sge"
// CHECK: llvm.icmp "slt"
// CHECK: llvm.select
// CHECK: llvm.atomicrmw add {{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: llvm.atomicrmw add
// CHECK-NOT: llvm.atomicrmw
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked4 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @histogram(%x: tensor<64xi32, #blocked1>, %m: tensor<64xi1, #blocked1>) -> tensor<16xi32, #blocked4> {
    %h = tt.histogram %x, %m : tensor<64xi32, #blocked1> -> tensor<16xi32, #blocked4>
    tt.return %h : tensor<16xi32, #blocked4>
  }
}

// -----

// gather along axis 1: the source through shared memory, then each result
// element reads row * 32 + index, an index outside [0, 32) reading column 0.
// CHECK: module attributes {{.*}}ttg.shared = 2048 : i32
// CHECK-LABEL: llvm.func @gather
// CHECK-DAG: [[N:%.*]] = llvm.mlir.constant(32 : i32)
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: [[LO:%.*]] = llvm.icmp "sge"
// CHECK: [[HI:%.*]] = llvm.icmp "slt" %{{.*}}, [[N]]
// CHECK: [[OK:%.*]] = llvm.and [[LO]], [[HI]]
// CHECK: llvm.select [[OK]]
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @gather(%src: tensor<16x32xf32, #blocked>, %idx: tensor<16x8xi32, #blocked>) -> tensor<16x8xf32, #blocked> {
    %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x32xf32, #blocked>, tensor<16x8xi32, #blocked>) -> tensor<16x8xf32, #blocked>
    tt.return %g : tensor<16x8xf32, #blocked>
  }
}

// -----

// A reshape that leaves every element in its thread (8x8 over 4x8 lanes to
// 64 over 32 lanes, row-major) only renumbers registers: no shared memory.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-LABEL: llvm.func @reshape_in_registers
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @reshape_in_registers(%x: tensor<8x8xf32, #blocked>) -> tensor<64xf32, #blocked1> {
    %r = tt.reshape %x : tensor<8x8xf32, #blocked> -> tensor<64xf32, #blocked1>
    tt.return %r : tensor<64xf32, #blocked1>
  }
}
