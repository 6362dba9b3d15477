// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(prof-lower-records{max-shared=232448 buffer-bytes=2112}, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// 2112 bytes for 4 warps: a 64-byte header and counts, rings of 64 records.
// Records in a loop of unknown trip count may wrap a ring; with a
// power-of-two capacity a kernel keeps only its count in a register: the
// slot is count & 63, no second counter and no wrap test.
// CHECK: prof.records_per_warp = 64
// CHECK-NOT: prof.ring_never_wraps
// CHECK-LABEL: llvm.func @k
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NOT: llvm.alloca
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[C:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: %[[M:.*]] = llvm.mlir.constant(63 : i32) : i32
// CHECK: llvm.and %[[C]], %[[M]] : i32
// CHECK-NOT: llvm.select
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};"
// CHECK: llvm.add %[[C]], %{{.*}} : i32
// CHECK: llvm.store %{{.*}}, %[[CNT]]
// CHECK: nvvm.barrier
// CHECK: llvm.return
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      prof.record start "a"
      prof.record end "a"
    }
    tt.return
  }
}

// -----

// At most two records a warp: the ring never wraps and a record's slot is
// its count, with no mask.
// CHECK: prof.records_per_warp = 64
// CHECK-SAME: prof.ring_never_wraps
// CHECK-LABEL: llvm.func @bounded
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NOT: llvm.alloca
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[C:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK-NOT: llvm.and
// CHECK-NOT: llvm.urem
// CHECK: llvm.shl %[[C]], %{{.*}} : i32
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};"
// CHECK: llvm.return
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func public @bounded(%p: !tt.ptr<f32>) {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}
