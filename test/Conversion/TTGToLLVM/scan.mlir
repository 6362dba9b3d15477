// The last case is not supported: that run fails, the other cases print.
// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// Without ttg-allocate-shared-memory, a scan across warps has no scratch
// memory: an error (NOSMEM lines); a scan inside warps needs none.
// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-scf-to-cf, convert-ttg-to-llvm)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSMEM

// tt.scan lowering (lib/Conversion/TTGToLLVM/ScanOpToLLVM.cpp).

// convert-tt-to-ttg's default 1-D layout: register r of thread t holds
// element 128 * r + t, so the axis bits are: 5 lane bits, 2 warp bits, then
// the register bit. Lanes: a butterfly shuffle per lane bit and register;
// warps: every warp's totals to shared memory (4 slots of 4 bytes per
// register, 32 bytes), a barrier, the 4 totals back, a barrier.
// CHECK: module attributes {{.*}}ttg.shared = 32 : i32
// CHECK-LABEL: llvm.func @cumsum
// CHECK-DAG: [[X0:%.*]] = llvm.extractvalue %arg0[0]
// CHECK-DAG: [[X1:%.*]] = llvm.extractvalue %arg0[1]
// CHECK: nvvm.shfl.sync bfly %{{.*}}, [[X0]]
// CHECK: nvvm.shfl.sync bfly %{{.*}}, [[X1]]
// CHECK-COUNT-8: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cumsum(%x: tensor<256xi32, #blocked>) -> tensor<256xi32, #blocked> {
    // NOSMEM: scan.mlir:[[@LINE+1]]:{{[0-9]+}}: error: a scan across warps needs shared memory; run ttg-allocate-shared-memory first
    %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tt.scan.return %s : i32
    }) : (tensor<256xi32, #blocked>) -> tensor<256xi32, #blocked>
    tt.return %0 : tensor<256xi32, #blocked>
  }
}

// -----

// The scan-friendly layout (the register bit is the lowest axis bit) with
// reverse = true and a combiner that is not commutative (composition of
// affine maps x -> a * x + b, two operands): each thread first combines its
// own two elements, the later one (register 1) first; a lane is in the upper
// half of its block when its lane bit is 0.
// CHECK: module attributes {{.*}}ttg.shared = 32 : i32
// CHECK-LABEL: llvm.func @affine_reverse
// CHECK-DAG: [[ZERO:%.*]] = llvm.mlir.constant(0 : i32)
// CHECK-DAG: [[A0:%.*]] = llvm.extractvalue %arg0[0]
// CHECK-DAG: [[A1:%.*]] = llvm.extractvalue %arg0[1]
// CHECK-DAG: [[B0:%.*]] = llvm.extractvalue %arg1[0]
// CHECK-DAG: [[B1:%.*]] = llvm.extractvalue %arg1[1]
// CHECK: llvm.mul [[A1]], [[A0]]
// CHECK: [[T:%.*]] = llvm.mul [[B1]], [[A0]]
// CHECK: llvm.add [[T]], [[B0]]
// CHECK: llvm.icmp "eq" %{{.*}}, [[ZERO]]
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @affine_reverse(%a: tensor<256xi32, #blocked>, %b: tensor<256xi32, #blocked>) -> tensor<256xi32, #blocked> {
    // NOSMEM: scan.mlir:[[@LINE+1]]:{{[0-9]+}}: error: a scan across warps needs shared memory
    %0:2 = "tt.scan"(%a, %b) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a1: i32, %b1: i32, %a2: i32, %b2: i32):
      %m = arith.muli %a1, %a2 : i32
      %t = arith.muli %b1, %a2 : i32
      %u = arith.addi %t, %b2 : i32
      tt.scan.return %m, %u : i32, i32
    }) : (tensor<256xi32, #blocked>, tensor<256xi32, #blocked>) -> (tensor<256xi32, #blocked>, tensor<256xi32, #blocked>)
    tt.return %0#1 : tensor<256xi32, #blocked>
  }
}

// -----

// Rows of 64 along dim 1, each inside one warp (5 lane bits, then a register
// bit): shuffles only, no shared memory and no barrier.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-LABEL: llvm.func @rows_in_warps
// CHECK: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rows_in_warps(%x: tensor<8x64xf32, #blocked>) -> tensor<8x64xf32, #blocked> {
    // NOSMEM-NOT: scan.mlir:[[@LINE+1]]
    %0 = "tt.scan"(%x) <{axis = 1 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maximumf %a, %b : f32
      tt.scan.return %s : f32
    }) : (tensor<8x64xf32, #blocked>) -> tensor<8x64xf32, #blocked>
    tt.return %0 : tensor<8x64xf32, #blocked>
  }
}

// -----

// Along dim 0 of a 2-D tensor: lane bit 4, warp bits 0-1, register bits.
// The warp round writes one slot per (column, block of 2 rows): 64 x 16 x 4
// bytes.
// CHECK: module attributes {{.*}}ttg.shared = 4096 : i32
// CHECK-LABEL: llvm.func @columns
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @columns(%x: tensor<32x64xi32, #blocked>) -> tensor<32x64xi32, #blocked> {
    // NOSMEM: scan.mlir:[[@LINE+1]]:{{[0-9]+}}: error: a scan across warps needs shared memory
    %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tt.scan.return %s : i32
    }) : (tensor<32x64xi32, #blocked>) -> tensor<32x64xi32, #blocked>
    tt.return %0 : tensor<32x64xi32, #blocked>
  }
}

// -----

// 8-bit floats are stored as i8, which the combiner does not take.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp8(%x: tensor<128xf8E4M3FN, #blocked>) -> tensor<128xf8E4M3FN, #blocked> {
    // ERR: scan.mlir:[[@LINE+2]]:{{[0-9]+}}: error: the GPU lowering cannot lower this scan: its elements are f8E4M3FN (pointers and 8-bit floats are not supported)
    // NOSMEM: scan.mlir:[[@LINE+1]]:{{[0-9]+}}: error: the GPU lowering cannot lower this scan
    %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f8E4M3FN, %b: f8E4M3FN):
      %m = arith.maximumf %a, %b : f8E4M3FN
      tt.scan.return %m : f8E4M3FN
    }) : (tensor<128xf8E4M3FN, #blocked>) -> tensor<128xf8E4M3FN, #blocked>
    tt.return %0 : tensor<128xf8E4M3FN, #blocked>
  }
}
