// RUN: tessera-opt %s -split-input-file --ttg-allocate-global-scratch | FileCheck %s --check-prefix=ALLOC
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-global-scratch, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s
// Without ttg-allocate-global-scratch the alloc has no offset: an error.
// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOALLOC

// ttg-allocate-global-scratch (lib/Conversion/TTGToLLVM/ConvertTTGToLLVM.cpp)
// and the lowering of ttg.global_scratch_alloc (FuncOpToLLVM.cpp): offsets
// within a program's region, aligned; the region size a multiple of the
// largest alignment; the kernel's hidden trailing !llvm.ptr<1>.

// 100 bytes at 0, then 64 bytes aligned to 128 at 128: 192 bytes, rounded
// up to 256 so that every program's region stays 128-aligned.
// ALLOC: module attributes {{.*}}ttg.global_scratch_memory_alignment = 128 : i32, ttg.global_scratch_memory_size = 256 : i32
// ALLOC: ttg.global_scratch_alloc {alignment = 4 : i32, nbytes = 100 : i32, ttg.global_scratch_offset = 0 : i32}
// ALLOC: ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 64 : i32, ttg.global_scratch_offset = 128 : i32}
// CHECK-LABEL: llvm.func @two_allocs
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[BASE:.*]]: !llvm.ptr<1>)
// CHECK-DAG: %[[PER:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG: %[[OFF:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[REGION:.*]] = llvm.mul %{{.*}}, %[[PER]] : i64
// CHECK: llvm.getelementptr %[[BASE]][%[[REGION]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[AT:.*]] = llvm.add %[[REGION]], %[[OFF]] : i64
// CHECK: llvm.getelementptr %[[BASE]][%[[AT]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// ttg.barrier (tl.debug_barrier) between the two stores (scalars nothing
// reads back: thread 0 stores them):
// CHECK: st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm {{.*}}st.global.b32
// NOALLOC: global-scratch.mlir:[[@LINE+3]]:{{.*}} error: 'ttg.global_scratch_alloc' op has no scratch offset: run ttg-allocate-global-scratch first
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_allocs(%x: !tt.ptr<f32>) {
    %a = ttg.global_scratch_alloc {alignment = 4 : i32, nbytes = 100 : i32} : !tt.ptr<i8>
    %b = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 64 : i32} : !tt.ptr<i8>
    %v = arith.constant 1.0 : f32
    %pa = tt.bitcast %a : !tt.ptr<i8> -> !tt.ptr<f32>
    tt.store %pa, %v : !tt.ptr<f32>
    ttg.barrier
    %pb = tt.bitcast %b : !tt.ptr<i8> -> !tt.ptr<f32>
    tt.store %pb, %v : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A module without scratch: size 0, and the kernel keeps its own arguments.
// ALLOC: module attributes {{.*}}ttg.global_scratch_memory_alignment = 1 : i32, ttg.global_scratch_memory_size = 0 : i32
// CHECK-LABEL: llvm.func @no_scratch
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>)
// CHECK-NOT: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @no_scratch(%x: !tt.ptr<f32>) {
    tt.return
  }
}
