// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// The AMD TargetInfo in the TTGIR -> LLVM lowering (third_party/amd): ROCDL
// special registers, masked loads and stores for predicated accesses,
// ds_bpermute for lane shuffles, LDS as a sized internal global, atomics
// under a branch on their mask with AMDGPU sync scopes, kernel attributes.

#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx942"} {
  // CHECK: llvm.mlir.global internal @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
  // CHECK-LABEL: llvm.func @kernel(
  // CHECK-SAME: rocdl.flat_work_group_size = "1,256"
  // CHECK-SAME: rocdl.kernel
  // CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
  tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    // CHECK: rocdl.workgroup.id.x : i32
    %pid = tt.get_program_id x : i32
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %bs = tt.splat %base : i32 -> tensor<1024xi32, #blocked>
    %offs = arith.addi %bs, %r : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    // CHECK: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr<1>, vector<1xi1>, vector<1xi32>) -> vector<1xi32>
    %v = tt.load %xp, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    // Across lanes: ds_bpermute (lane ^ 32, lane ^ 16, ...); across warps: LDS.
    // CHECK: rocdl.ds_bpermute
    // CHECK: llvm.mlir.addressof @global_smem : !llvm.ptr<3>
    // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
    // CHECK: rocdl.barrier
    %s = "tt.reduce"(%v) ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) {axis = 0 : i32} : (tensor<1024xf32, #blocked>) -> f32
    // An atomic where its mask holds: a branch around it.
    // CHECK: llvm.cond_br %{{.*}}, ^[[THEN:.*]], ^[[MERGE:.*]](%{{.*}} : f32)
    // CHECK: ^[[THEN]]:
    // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") acq_rel
    %true = arith.constant true
    %old = tt.atomic_rmw fadd, acq_rel, gpu, %out, %s, %true : (!tt.ptr<f32>, f32, i1) -> f32
    tt.return
  }
}

// -----

// An architecture the hip backend does not know.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
// expected-error @below {{a hip target is "hip:gfx<version>" naming an AMD GPU}}
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx800"} {
  tt.func public @old(%x: !tt.ptr<f32>) {
    tt.return
  }
}

// -----

// Pointer range (tt.pointer_range = 32: the tensor spans less than 2 GiB)
// with non-negative i32 offsets: buffer accesses through a raw buffer
// resource of the argument; a masked-off vector gets an out-of-range offset
// (2^31: loads read zero, stores are dropped) instead of a branch. Without
// the attribute, or with offsets not known non-negative: masked accesses.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx942"} {
  // CHECK-LABEL: llvm.func @ranged(
  tt.func public @ranged(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %pid = tt.get_program_id x : i32
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %bs = tt.splat %base : i32 -> tensor<1024xi32, #blocked>
    %offs = arith.addi %bs, %r : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    // CHECK: %[[RSRC:.*]] = rocdl.make.buffer.rsrc %arg0, %{{.*}}, %{{.*}}, %{{.*}} : <1> to <8>
    // CHECK: %[[OFF:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
    // CHECK: rocdl.raw.ptr.buffer.load %[[RSRC]], %[[OFF]], %{{.*}}, %{{.*}} : vector<4xi32>
    %v = tt.load %xp, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    // %y has no pointer range: a masked store.
    // CHECK-NOT: rocdl.raw.ptr.buffer.store
    // CHECK: llvm.intr.masked.store
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %yp = tt.addptr %ys, %offs : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %yp, %v, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    // Offsets that may be negative: a masked load, even with the pointer range.
    // CHECK-NOT: rocdl.raw.ptr.buffer.load
    // CHECK: llvm.intr.masked.load
    %neg = arith.subi %r, %bs : tensor<1024xi32, #blocked>
    %xq = tt.addptr %xs, %neg : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %w = tt.load %xq, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Rounding toward zero (tt.fp_to_fp rtz) without a target instruction: round
// to nearest, widen back, and where that rounded away from zero take the next
// value toward zero (magnitude bits less one). No inline assembly.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "hip:gfx942"} {
  // CHECK-LABEL: llvm.func @rtz(
  // CHECK-NOT: llvm.inline_asm
  // CHECK: %[[R:.*]] = llvm.fptrunc %{{.*}} : f32 to f16
  // CHECK: %[[B:.*]] = llvm.fpext %[[R]] : f16 to f32
  // CHECK: %[[AB:.*]] = llvm.intr.fabs(%[[B]])
  // CHECK: %[[AX:.*]] = llvm.intr.fabs(
  // CHECK: %[[AWAY:.*]] = llvm.fcmp "ogt" %[[AB]], %[[AX]]
  // CHECK: %[[BITS:.*]] = llvm.bitcast %[[R]] : f16 to i16
  // CHECK: %[[STEP:.*]] = llvm.sub %[[BITS]], %{{.*}} : i16
  // CHECK: llvm.select %[[AWAY]], %[[STEP]], %[[BITS]] : i1, i16
  // CHECK-NOT: llvm.inline_asm
  tt.func public @rtz(%x: tensor<64xf32, #blocked>) -> tensor<64xf16, #blocked> {
    %y = tt.fp_to_fp %x, rounding = rtz : tensor<64xf32, #blocked> -> tensor<64xf16, #blocked>
    tt.return %y : tensor<64xf16, #blocked>
  }
}
