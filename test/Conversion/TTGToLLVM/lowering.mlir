// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// A kernel: an LLVM function marked as a kernel for 128 threads; program id,
// per-thread indices, predicated loads and stores through inline PTX.
// CHECK-LABEL: llvm.func @add
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 128>
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.inline_asm {{.*}}ld.global.b32
// CHECK: llvm.fadd
// CHECK: llvm.inline_asm has_side_effects {{.*}}st.global.b32
tt.func public @add(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %c = arith.constant 1024 : i32
  %base = arith.muli %pid, %c : i32
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %b = tt.splat %base : i32 -> tensor<1024xi32>
  %o = arith.addi %b, %r : tensor<1024xi32>
  %nn = tt.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %o, %nn : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %o : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %xp, %m : tensor<1024x!tt.ptr<f32>>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %o : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %yp, %w, %m : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// -----

// fp32 exp runs on ex2.approx (Triton's semantics: fast-math.mlir); a reduction over all warps uses shuffles, then
// shared memory: a store, a barrier, loads. Nothing used shared memory
// before it, so ttg-membar adds no barrier in front.
// CHECK-LABEL: llvm.func @softmax_like
// CHECK: ex2.approx.f32
// CHECK: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.mlir.addressof @global_smem
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
tt.func public @softmax_like(%p: !tt.ptr<f32>) {
  %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
  %q = tt.addptr %s, %r : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
  %v = tt.load %q : tensor<512x!tt.ptr<f32>>
  %e = math.exp %v : tensor<512xf32>
  %t = "tt.reduce"(%e) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %x = arith.addf %a, %b : f32
    tt.reduce.return %x : f32
  }) : (tensor<512xf32>) -> f32
  tt.store %p, %t : !tt.ptr<f32>
  tt.return
}

// -----

// The module records how much shared memory the kernel needs. An f16 dot
// with an f32 accumulator on sm_90 runs on tensor cores: 32x32 over 2x2
// warps, 16x16 each, is two mma.sync m16n8k16 per thread.
// CHECK: module attributes {{.*}}ttg.shared = {{[1-9][0-9]*}} : i32
// CHECK-LABEL: llvm.func @dot
// CHECK-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK-NOT: llvm.intr.fma
// CHECK: llvm.return
tt.func public @dot(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %p: !tt.ptr<f32>) {
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %s = "tt.reduce"(%d) <{axis = 1 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    tt.reduce.return %z : f32
  }) : (tensor<32x32xf32>) -> tensor<32xf32>
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %q = tt.addptr %ps, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  tt.store %q, %s : tensor<32x!tt.ptr<f32>>
  tt.return
}

// -----

// f32 inputs keep the exact FMA path (no tf32).
// CHECK-LABEL: llvm.func @dot_f32
// CHECK-NOT: mma.sync
// CHECK: llvm.intr.fma
tt.func public @dot_f32(%a: tensor<32x16xf32>, %b: tensor<16x32xf32>, %p: !tt.ptr<f32>) {
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tt.dot %a, %b, %c : tensor<32x16xf32> * tensor<16x32xf32> -> tensor<32x32xf32>
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %e = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %f = tt.broadcast %e : tensor<32x1xi32> -> tensor<32x32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %q = tt.addptr %ps, %f : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %q, %d : tensor<32x32x!tt.ptr<f32>>
  tt.return
}
