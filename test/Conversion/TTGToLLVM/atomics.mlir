// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s
// Without ttg-allocate-shared-memory, old values that other warps need have
// no scratch memory: an error (NOSMEM lines); the other cases need none.
// RUN: not tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-scf-to-cf, convert-ttg-to-llvm)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSMEM

// tt.atomic_rmw / tt.atomic_cas lowering (lib/Conversion/TTGToLLVM/
// AtomicOpToLLVM.cpp, PTX from third_party/nvidia/lib/TTGToLLVM/TargetInfo.cpp).

// A tensor whose elements each thread owns alone: one predicated atom per
// element, the mask as its predicate; the unused old values need nothing
// else.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-LABEL: llvm.func @histogram
// CHECK-DAG: [[P0:%.*]] = llvm.extractvalue %arg0[0]
// CHECK-DAG: [[M0:%.*]] = llvm.extractvalue %arg1[0]
// CHECK: llvm.inline_asm has_side_effects {{.*}}"mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.add.u32 $0, [ $1 + 0 ], $2;", "=r,l,r,b,~{memory}" [[P0]], %{{.*}}, [[M0]]
// CHECK-COUNT-1: atom.relaxed.gpu.global.add.u32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @histogram(%p: tensor<256x!tt.ptr<i32>, #blocked>, %m: tensor<256xi1, #blocked>) {
    %one = arith.constant dense<1> : tensor<256xi32, #blocked>
    // NOSMEM-NOT: atomics.mlir:[[@LINE+1]]
    %old = tt.atomic_rmw add, relaxed, gpu, %p, %one, %m : (tensor<256x!tt.ptr<i32>, #blocked>, tensor<256xi32, #blocked>, tensor<256xi1, #blocked>) -> tensor<256xi32, #blocked>
    tt.return
  }
}

// -----

// 64 elements over 4 warps: warps 2 and 3 hold copies of warps 0 and 1's
// (warp bit 1 has a zero basis). Only warps with that bit 0 act; they write
// the old values to shared memory for the copies, between barriers.
// CHECK: module attributes {{.*}}ttg.shared = 256 : i32
// CHECK-LABEL: llvm.func @copies_in_warps
// CHECK-DAG: [[TWO:%.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: [[ZERO:%.*]] = llvm.mlir.constant(0 : i32)
// CHECK: [[TID:%.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: [[WARP:%.*]] = llvm.lshr [[TID]]
// CHECK: [[BIT:%.*]] = llvm.and [[WARP]], [[TWO]]
// CHECK: [[ACT:%.*]] = llvm.icmp "eq" [[BIT]], [[ZERO]]
// CHECK: [[OLD:%.*]] = llvm.inline_asm {{.*}}atom.acquire.cta.global.max.s32{{.*}}, [[ACT]] :
// CHECK: llvm.inline_asm {{.*}}"@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b,~{memory}" %{{.*}}, [[OLD]], [[ACT]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: [[BCAST:%.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.insertvalue [[BCAST]]
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copies_in_warps(%p: tensor<64x!tt.ptr<i32>, #blocked>, %v: tensor<64xi32, #blocked>) -> tensor<64xi32, #blocked> {
    // NOSMEM: atomics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: using the result of this atomic needs shared memory; run ttg-allocate-shared-memory first
    %old = tt.atomic_rmw max, acquire, cta, %p, %v : (tensor<64x!tt.ptr<i32>, #blocked>, tensor<64xi32, #blocked>) -> tensor<64xi32, #blocked>
    tt.return %old : tensor<64xi32, #blocked>
  }
}

// -----

// 8 elements over one warp: lanes 8-31 hold copies; lanes with bits 3-4
// equal to 0 act and the copies get the old values by a shuffle. 64-bit
// exchange, release, system scope.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-LABEL: llvm.func @copies_in_lanes
// CHECK-DAG: [[MASK:%.*]] = llvm.mlir.constant(24 : i32)
// CHECK-DAG: [[KEEP:%.*]] = llvm.mlir.constant(-25 : i32)
// CHECK: [[BITS:%.*]] = llvm.and %{{.*}}, [[MASK]]
// CHECK: [[ACT:%.*]] = llvm.icmp "eq" [[BITS]]
// CHECK: llvm.inline_asm {{.*}}"mov.b64 $0, 0;\0A\09@$3 atom.release.sys.global.exch.b64 $0, [ $1 + 0 ], $2;", "=l,l,l,b,~{memory}" {{.*}}, [[ACT]]
// CHECK: [[SRC:%.*]] = llvm.and %{{.*}}, [[KEEP]]
// CHECK: nvvm.shfl.sync idx %{{.*}}, %{{.*}}, [[SRC]]
// CHECK: nvvm.shfl.sync idx %{{.*}}, %{{.*}}, [[SRC]]
// CHECK-NOT: nvvm.barrier0
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copies_in_lanes(%p: tensor<8x!tt.ptr<i64>, #blocked>, %v: tensor<8xi64, #blocked>) -> tensor<8xi64, #blocked> {
    // NOSMEM-NOT: atomics.mlir:[[@LINE+1]]
    %old = tt.atomic_rmw exch, release, sys, %p, %v : (tensor<8x!tt.ptr<i64>, #blocked>, tensor<8xi64, #blocked>) -> tensor<8xi64, #blocked>
    tt.return %old : tensor<8xi64, #blocked>
  }
}

// -----

// A scalar pointer: thread 0 alone acts (lane bits and warp bits all 0) and
// gives the old value to everyone through shared memory.
// CHECK: module attributes {{.*}}ttg.shared = 4 : i32
// CHECK-LABEL: llvm.func @scalar_cas
// CHECK-DAG: [[LANES:%.*]] = llvm.mlir.constant(31 : i32)
// CHECK-DAG: [[FIVE:%.*]] = llvm.mlir.constant(5 : i32)
// CHECK: [[TID:%.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: [[L:%.*]] = llvm.and [[TID]], [[LANES]]
// CHECK: [[W:%.*]] = llvm.lshr [[TID]], [[FIVE]]
// CHECK: [[LZ:%.*]] = llvm.icmp "eq" [[L]]
// CHECK: [[WZ:%.*]] = llvm.icmp "eq" [[W]]
// CHECK: [[ACT:%.*]] = llvm.and [[LZ]], [[WZ]] : i1
// CHECK: [[OLD:%.*]] = llvm.inline_asm {{.*}}atom.acq_rel.gpu.global.cas.b32 $0, [ $1 + 0 ], $2, $3;", "=r,l,r,r,b,~{memory}" %arg0, %{{.*}}, %arg1, [[ACT]]
// CHECK: st.shared.b32{{.*}}[[OLD]], [[ACT]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: [[R:%.*]] = llvm.load
// CHECK-NEXT: llvm.return [[R]] : i32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scalar_cas(%p: !tt.ptr<i32>, %v: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    // NOSMEM: atomics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: using the result of this atomic needs shared memory
    %old = tt.atomic_cas acq_rel, gpu, %p, %c0, %v : (!tt.ptr<i32>, i32, i32) -> i32
    tt.return %old : i32
  }
}

// -----

// The PTX of each operation and type: float max/min through integer max/min
// on the bits (PTX has no 32/64-bit float atom.max), f16/bf16 fadd natively,
// 16-bit integer and f16/bf16 max/min through a compare-and-swap loop.
// CHECK-LABEL: llvm.func @kinds
// CHECK: setp.ge.s32 %tsr_nonneg, $2, 0;{{.*}}@%tsr_p0 atom.relaxed.gpu.global.max.s32 $0, [ $1 + 0 ], $2;{{.*}}@%tsr_p1 atom.relaxed.gpu.global.min.u32 $0, [ $1 + 0 ], $2;
// CHECK: setp.ge.s64 %tsr_nonneg, $2, 0;{{.*}}@%tsr_p0 atom.relaxed.gpu.global.min.s64 $0, [ $1 + 0 ], $2;{{.*}}@%tsr_p1 atom.relaxed.gpu.global.max.u64 $0, [ $1 + 0 ], $2;
// CHECK: atom.relaxed.gpu.global.add.noftz.f16 $0, [ $1 + 0 ], $2;", "=h,l,h,b,~{memory}"
// CHECK: atom.relaxed.gpu.global.add.noftz.bf16 $0, [ $1 + 0 ], $2;", "=h,l,h,b,~{memory}"
// CHECK: atom.relaxed.gpu.global.add.f32
// CHECK: atom.relaxed.gpu.global.add.f64
// CHECK: max.s16 %tsr_new, %tsr_old, $2;{{.*}}atom.relaxed.gpu.global.cas.b16 %tsr_cur
// CHECK: max.bf16 %tsr_new, %tsr_old, $2;{{.*}}atom.relaxed.gpu.global.cas.b16 %tsr_cur
// CHECK: atom.relaxed.gpu.global.min.u32
// CHECK: atom.relaxed.gpu.global.max.u64
// CHECK: atom.relaxed.gpu.global.and.b32
// CHECK: atom.relaxed.gpu.global.or.b64
// CHECK: atom.relaxed.gpu.global.xor.b32
// CHECK: atom.relaxed.gpu.global.cas.b16
// CHECK: atom.relaxed.gpu.global.cas.b64
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @kinds(%pf32: !tt.ptr<f32>, %pf64: !tt.ptr<f64>, %pf16: !tt.ptr<f16>, %pbf16: !tt.ptr<bf16>,
                        %pi16: !tt.ptr<i16>, %pi32: !tt.ptr<i32>, %pi64: !tt.ptr<i64>,
                        %f32: f32, %f64: f64, %f16: f16, %bf16: bf16, %i16: i16, %i32: i32, %i64: i64) {
    %0 = tt.atomic_rmw max, relaxed, gpu, %pf32, %f32 : (!tt.ptr<f32>, f32) -> f32
    %1 = tt.atomic_rmw min, relaxed, gpu, %pf64, %f64 : (!tt.ptr<f64>, f64) -> f64
    %2 = tt.atomic_rmw fadd, relaxed, gpu, %pf16, %f16 : (!tt.ptr<f16>, f16) -> f16
    %3 = tt.atomic_rmw fadd, relaxed, gpu, %pbf16, %bf16 : (!tt.ptr<bf16>, bf16) -> bf16
    %4 = tt.atomic_rmw fadd, relaxed, gpu, %pf32, %f32 : (!tt.ptr<f32>, f32) -> f32
    %5 = tt.atomic_rmw fadd, relaxed, gpu, %pf64, %f64 : (!tt.ptr<f64>, f64) -> f64
    %6 = tt.atomic_rmw max, relaxed, gpu, %pi16, %i16 : (!tt.ptr<i16>, i16) -> i16
    %7 = tt.atomic_rmw max, relaxed, gpu, %pbf16, %bf16 : (!tt.ptr<bf16>, bf16) -> bf16
    %8 = tt.atomic_rmw umin, relaxed, gpu, %pi32, %i32 : (!tt.ptr<i32>, i32) -> i32
    %9 = tt.atomic_rmw umax, relaxed, gpu, %pi64, %i64 : (!tt.ptr<i64>, i64) -> i64
    %10 = tt.atomic_rmw and, relaxed, gpu, %pi32, %i32 : (!tt.ptr<i32>, i32) -> i32
    %11 = tt.atomic_rmw or, relaxed, gpu, %pi64, %i64 : (!tt.ptr<i64>, i64) -> i64
    %12 = tt.atomic_rmw xor, relaxed, gpu, %pi32, %i32 : (!tt.ptr<i32>, i32) -> i32
    %13 = tt.atomic_cas relaxed, gpu, %pf16, %f16, %f16 : (!tt.ptr<f16>, f16, f16) -> f16
    %14 = tt.atomic_cas relaxed, gpu, %pf64, %f64, %f64 : (!tt.ptr<f64>, f64, f64) -> f64
    tt.return
  }
}
