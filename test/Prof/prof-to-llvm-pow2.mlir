// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(prof-lower-records{max-shared=232448 buffer-bytes=2112}, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// 2112 bytes for 4 warps: a 64-byte header and counts, rings of 64 records.
// Records in a loop of unknown trip count may wrap a ring; with a
// power-of-two capacity a kernel keeps only its count in a register, in
// bytes (8 a record): the record's place in the ring is bytes & 511 (64
// records of 8 bytes), no second counter and no wrap test; the count the
// exit's flush gets is bytes >> 3.
// CHECK: prof.records_per_warp = 64
// CHECK-NOT: prof.ring_never_wraps
// CHECK-LABEL: llvm.func @k
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NOT: llvm.alloca
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[C:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: %[[M:.*]] = llvm.mlir.constant(511 : i32) : i32
// CHECK: llvm.and %[[C]], %[[M]] : i32
// CHECK-NOT: llvm.select
// CHECK-NOT: llvm.shl
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};"
// CHECK: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: llvm.add %[[C]], %[[EIGHT]] : i32
// CHECK: llvm.store %{{.*}}, %[[CNT]]
// CHECK: llvm.store %{{.*}}, %[[CNT]]
// CHECK: %[[BYTES:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[N:.*]] = llvm.lshr %[[BYTES]], %[[THREE]] : i32
// CHECK-NEXT: llvm.call @__tessera_prof_flush(%{{.*}}, %[[N]])
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

// At most two records a warp: the ring never wraps and a record's place is
// its byte count, with no mask and no shift.
// CHECK: prof.records_per_warp = 64
// CHECK-SAME: prof.ring_never_wraps
// CHECK-LABEL: llvm.func @bounded
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NOT: llvm.alloca
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[C:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK-NOT: llvm.and
// CHECK-NOT: llvm.urem
// CHECK-NOT: llvm.shl
// CHECK: llvm.add %{{.*}}, %[[C]] : i32
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};"
// CHECK: llvm.return
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func public @bounded(%p: !tt.ptr<f32>) {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}
