// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(prof-lower-records{max-shared=232448}, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// A kernel with scopes takes the global profile buffer after its own
// arguments (tessera.profile_arg); the callee finds the rings in the
// module's shared memory. Entry: the count of each warp's ring is zeroed and
// thread 0 writes start time, clock, SM and warps; a record: lane 0 appends
// (id << 1 | end) | clock << 32 at slot count % 510 and bumps the count;
// exit: barrier, end time and clock, barrier, the copy of header and counts
// (the slice is 16368 bytes).
// CHECK-LABEL: llvm.func internal @callee()
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[COUNT:.*]] = llvm.load
// CHECK: llvm.urem %[[COUNT]], %{{.*}} : i32
// CHECK: "@$2 st.shared.b64 [ $0 + 0 ], $1;"
// CHECK: "@$2 st.shared.b32 [ $0 + 0 ], $1;"
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @k(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>)
// CHECK-SAME: tessera.profile_arg = 1 : i32
// CHECK: "mov.u64 $0, %globaltimer;"
// CHECK: "mov.u32 $0, %clock;"
// CHECK: "mov.u32 $0, %smid;"
// The kernel's count and slot: allocas (registers after mem2reg), published
// to shared memory around the call of a function that records.
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: "mov.u32 $0, %clock;"
// CHECK: llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK: "@$2 st.shared.b64 [ $0 + 0 ], $1;"
// CHECK: llvm.store %{{.*}}, %[[CNT]]
// CHECK: llvm.select
// CHECK: llvm.store %{{.*}}, %[[SLOT]]
// CHECK: %[[PUB:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: "@$2 st.shared.b32 [ $0 + 0 ], $1;", "l,r,b,~{memory}" %{{.*}}, %[[PUB]]
// CHECK-NEXT: llvm.call @callee()
// CHECK: %[[BACK:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.store %[[BACK]], %[[CNT]]
// CHECK: llvm.urem %[[BACK]]
// CHECK: nvvm.barrier
// CHECK: "mov.u64 $0, %globaltimer;"
// CHECK: nvvm.barrier
// CHECK: llvm.mlir.constant(16368 : i64)
// CHECK: ^bb{{[0-9]+}}(%[[I:.*]]: i32):
// CHECK: llvm.icmp "ult" %[[I]], %{{.*}} : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<1>
// Then each warp's records, min(count, 510) of them, by its lanes.
// CHECK: %[[N:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[FITS:.*]] = llvm.icmp "ult" %[[N]], %[[CAP:.*]] : i32
// CHECK: %[[MIN:.*]] = llvm.select %[[FITS]], %[[N]], %[[CAP]] : i1, i32
// CHECK: ^bb{{[0-9]+}}(%[[J:.*]]: i32):
// CHECK: llvm.icmp "ult" %[[J]], %[[MIN]] : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<1>
// CHECK: llvm.return
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func private @callee() attributes {noinline = true} {
    prof.record start "inner"
    prof.record end "inner"
    tt.return
  }
  tt.func public @k(%p: !tt.ptr<f32>) {
    prof.record start "outer"
    tt.call @callee() : () -> ()
    prof.record end "outer"
    tt.return
  }
}

// -----

// AMD CDNA: s_memtime and s_memrealtime (100 MHz, scaled to ns).
// CHECK-LABEL: llvm.func @amd
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.memrealtime"()
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.memtime"()
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx942"} {
  tt.func public @amd() {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}

// -----

module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx1100"} {
  // expected-error @+2 {{'prof.init' op profiling scopes are not supported on this target (it has no cycle counter or global timer Tessera can read)}}
  // expected-error @+1 {{failed to legalize operation 'prof.init'}}
  tt.func public @rdna() {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}
