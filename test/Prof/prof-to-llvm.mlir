// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(prof-lower-records{max-shared=232448 buffer-bytes=16320}, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// A kernel with scopes takes the global profile buffer after its own
// arguments (tessera.profile_arg); the callee finds the rings in the
// module's shared memory. Entry: thread 0 alone reads start time, clock and
// SM into the header; each warp's count (and slot: the calls in a loop of
// unknown trip count can wrap the rings, and 508 is not a power of two) in
// registers. A record: lane 0 appends the words (id << 1 | end, clock) at
// its slot with one two-word store and bumps the count. Exit: a call of the
// module's one noinline flush function with the buffer and the warp's count
// (nothing else of the exit lives in the kernel): one barrier, then thread 0
// writes the header to the program's 16320-byte slice (end time and clock
// read then), each warp's lane 0 its count, and its lanes its records (the
// count rounded up to whole 32-byte sectors, at most 508).
// CHECK-LABEL: llvm.func internal @callee()
// CHECK: "mov.u32 $0, %clock;"
// CHECK: %[[COUNT:.*]] = llvm.load
// CHECK: llvm.urem %[[COUNT]], %{{.*}} : i32
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};", "r,r,r,b,~{memory}"
// CHECK: "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b,~{memory}"
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @k(%arg0: !llvm.ptr<1>, %arg1: i32, %arg2: !llvm.ptr<1>)
// CHECK-SAME: tessera.profile_arg = 2 : i32
// CHECK: %[[CNT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[T0]], ^[[HDR:bb[0-9]+]], ^[[GO:bb[0-9]+]]
// CHECK: ^[[HDR]]:
// CHECK-NEXT: "mov.u64 $0, %globaltimer;"
// CHECK-NEXT: "mov.u32 $0, %clock;"
// CHECK-NEXT: "mov.u32 $0, %smid;"
// CHECK: ^[[GO]]:
// CHECK: "mov.u32 $0, %clock;"
// CHECK: llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK: "@$3 st.shared.v2.b32 [ $0 + 0 ], {$1, $2};"
// CHECK: llvm.store %{{.*}}, %[[CNT]]
// CHECK: llvm.select
// CHECK: llvm.store %{{.*}}, %[[SLOT]]
// Published to shared memory around the call of a function that records.
// CHECK: %[[PUB:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK: "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b,~{memory}" %{{.*}}, %[[PUB]]
// CHECK-NEXT: llvm.call @callee()
// CHECK: %[[BACK:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.store %[[BACK]], %[[CNT]]
// CHECK: llvm.urem %[[BACK]]
// The last record, then the exit.
// CHECK: "mov.u32 $0, %clock;"
// CHECK: llvm.store %{{.*}}, %[[SLOT]]
// CHECK: %[[N:.*]] = llvm.load %[[CNT]] : !llvm.ptr -> i32
// CHECK-NEXT: llvm.call @__tessera_prof_flush(%arg2, %[[N]]) : (!llvm.ptr<1>, i32) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NOT: nvvm.read.ptx.sreg.ctaid
// CHECK-LABEL: llvm.func internal @__tessera_prof_flush(%arg0: !llvm.ptr<1>, %arg1: i32)
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.barrier
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.nctaid.y
// CHECK: llvm.mlir.constant(16320 : i64)
// CHECK: llvm.cond_br %{{.*}}, ^[[END:bb[0-9]+]], ^[[COUNTS:bb[0-9]+]]
// CHECK: ^[[END]]:
// CHECK-NEXT: "mov.u64 $0, %globaltimer;"
// CHECK-NEXT: "mov.u32 $0, %clock;"
// CHECK-COUNT-6: llvm.store %{{.*}}, %{{.*}} : i{{32|64}}, !llvm.ptr<1>
// CHECK: ^[[COUNTS]]:
// CHECK: llvm.cond_br
// CHECK: llvm.store %arg1, %{{.*}} : i32, !llvm.ptr<1>
// Whole sectors: the count rounded up to 4 records, at most 508.
// CHECK: %[[N3:.*]] = llvm.add %arg1, %{{.*}} : i32
// CHECK: %[[UP:.*]] = llvm.and %[[N3]], %{{.*}} : i32
// CHECK: %[[FITS:.*]] = llvm.icmp "ult" %[[UP]], %[[CAP:.*]] : i32
// CHECK: %[[MIN:.*]] = llvm.select %[[FITS]], %[[UP]], %[[CAP]] : i1, i32
// CHECK: ^bb{{[0-9]+}}(%[[J:.*]]: i32):
// CHECK: llvm.icmp "ult" %[[J]], %[[MIN]] : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<1>
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func private @callee() attributes {noinline = true} {
    prof.record start "inner"
    prof.record end "inner"
    tt.return
  }
  tt.func public @k(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    prof.record start "outer"
    scf.for %i = %c0 to %n step %c1 : i32 {
      tt.call @callee() : () -> ()
    }
    prof.record end "outer"
    tt.return
  }
}

// -----

// A function of the user's named like the flush keeps its name; the flush
// takes the next free one.
// CHECK-LABEL: llvm.func internal @__tessera_prof_flush()
// CHECK-LABEL: llvm.func @uses_the_name
// CHECK: llvm.call @__tessera_prof_flush() : () -> ()
// CHECK: llvm.call @__tessera_prof_flush_1(%{{.*}}, %{{.*}}) : (!llvm.ptr<1>, i32) -> ()
// CHECK: llvm.func internal @__tessera_prof_flush_1(%arg0: !llvm.ptr<1>, %arg1: i32)
// CHECK-SAME: tessera.prof_flush
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func private @__tessera_prof_flush() attributes {noinline = true} {
    tt.return
  }
  tt.func public @uses_the_name() {
    prof.record start "a"
    tt.call @__tessera_prof_flush() : () -> ()
    prof.record end "a"
    tt.return
  }
}

// -----

// AMD CDNA: s_memtime and s_memrealtime (100 MHz, scaled to ns).
// CHECK-LABEL: llvm.func @amd
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.memrealtime"()
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.memtime"()
// CHECK: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 8 : i32} : vector<2xi32>, vector<2xi1> into !llvm.ptr<3>
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
