// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-ttg-to-llvm)' | FileCheck %s

// Sixteen warps along the axis, every warp holding the one output element:
// after the warps' partials are in shared memory, the lanes of the first
// warp alone (tid < 32) read one each and four butterfly shuffles over the
// lanes along the axis combine them; the lanes of group 0 of the first warp
// store the total, a second barrier, and every thread reads it back.
// CHECK-LABEL: llvm.func @sixteen_warps
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = llvm.icmp "ult" %[[TID]], %{{.*}} : i32
// CHECK: llvm.inline_asm {{.*}}"mov.b32 $0, $1;\0A\09@$3 ld.shared.b32 $0, [ $2 + 0 ];", "=r,r,r,b" {{.*}}, %[[FIRST]]
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[G0:.*]] = llvm.icmp "eq"
// CHECK: %[[STORER:.*]] = llvm.and %[[FIRST]], %[[G0]]
// CHECK: llvm.inline_asm {{.*}}"@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b,~{memory}" {{.*}}, %[[STORER]]
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.return
#b16 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [16], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 16 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sixteen_warps(%p: !tt.ptr<f32>, %x: tensor<8192xf32, #b16>) {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<8192xf32, #b16>) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Four warps: not the first-warp form. Every thread reads the four partials
// itself (no shuffles, no predicated reads, no second barrier): with four
// partials or fewer the second barrier costs more than the reads.
// CHECK-LABEL: llvm.func @four_warps
// CHECK: nvvm.barrier0
// CHECK-NOT: ld.shared
// CHECK-COUNT-4: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: st.shared
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#b4 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @four_warps(%p: !tt.ptr<f32>, %x: tensor<2048xf32, #b4>) {
    %t = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<2048xf32, #b4>) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Eight warps along the axis but one lane bit: the lanes along the axis
// cannot hold eight partials of one row, so every thread reads its row's
// eight partials (the negative case of the shuffle form).
// CHECK-LABEL: llvm.func @few_axis_lanes
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#b2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @few_axis_lanes(%x: tensor<16x16xf32, #b2>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>> {
    %t = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<16x16xf32, #b2>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>>
    tt.return %t : tensor<16xf32, #ttg.slice<{dim = 1, parent = #b2}>>
  }
}

// -----

// Sixteen rows a thread, reduced across the four warps: every partial is
// stored through one pointer to this warp's row of the buffer plus the row's
// constant position, so LLVM can merge the sixteen stores into vectors (an
// index folded into one sum per store hides that they are adjacent).
// CHECK-LABEL: llvm.func @rows_in_registers
// CHECK: %[[ROW:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-COUNT-16: llvm.getelementptr %[[ROW]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: nvvm.barrier0
#r = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rows_in_registers(%x: tensor<16x128xf32, #r>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>> {
    %t = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<16x128xf32, #r>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>>
    tt.return %t : tensor<16xf32, #ttg.slice<{dim = 1, parent = #r}>>
  }
}

// -----

// Eight warps along the axis and two along the rows: the first warp holds
// only the first row, so every warp reads and combines its own row's
// partials (no predicated reads, no second barrier).
// CHECK-LABEL: llvm.func @warps_on_two_dims
// CHECK: nvvm.barrier0
// CHECK-NOT: ld.shared
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3>
// CHECK-COUNT-3: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: st.shared
// CHECK: llvm.return
#b28 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 8], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 16 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @warps_on_two_dims(%x: tensor<2x1024xf32, #b28>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #b28}>> {
    %t = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<2x1024xf32, #b28>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #b28}>>
    tt.return %t : tensor<2xf32, #ttg.slice<{dim = 1, parent = #b28}>>
  }
}

// -----

// The first-warp form with two operands (an argmax) and 8-bit and 16-bit
// elements: each operand is read under the first-warp predicate and its
// total stored and read back at its own width.
// CHECK-LABEL: llvm.func @argmax_first_warp
// CHECK: nvvm.barrier0
// CHECK-DAG: llvm.inline_asm {{.*}}"mov.b16 $0, $1;\0A\09@$3 ld.shared.b8 $0, [ $2 + 0 ];", "=h,h,r,b"
// CHECK-DAG: llvm.inline_asm {{.*}}"mov.b16 $0, $1;\0A\09@$3 ld.shared.b16 $0, [ $2 + 0 ];", "=h,h,r,b"
// CHECK: llvm.inline_asm {{.*}}"@$2 st.shared.b8 [ $0 + 0 ], $1;", "r,h,b,~{memory}"
// CHECK: llvm.inline_asm {{.*}}"@$2 st.shared.b16 [ $0 + 0 ], $1;", "r,h,b,~{memory}"
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.return
#b8w = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @argmax_first_warp(%v: tensor<1024xi8, #b8w>, %i: tensor<1024xi16, #b8w>) -> (i8, i16) {
    %m, %j = "tt.reduce"(%v, %i) <{axis = 0 : i32}> ({
    ^bb0(%a: i8, %ai: i16, %b: i8, %bi: i16):
      %gt = arith.cmpi sgt, %a, %b : i8
      %mv = arith.select %gt, %a, %b : i8
      %mi = arith.select %gt, %ai, %bi : i16
      tt.reduce.return %mv, %mi : i8, i16
    }) : (tensor<1024xi8, #b8w>, tensor<1024xi16, #b8w>) -> (i8, i16)
    tt.return %m, %j : i8, i16
  }
}
