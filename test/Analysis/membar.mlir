// RUN: tessera-opt %s -split-input-file --ttg-allocate-shared-memory --test-print-membar -o /dev/null | FileCheck %s
// RUN: tessera-opt %s -split-input-file --ttg-allocate-shared-memory --ttg-membar | FileCheck %s --check-prefix=PASS

// The Membar analysis (lib/Analysis/Membar.cpp) and the ttg-membar pass: a
// barrier goes before an op whose shared-memory accesses would race with
// accesses since the last barrier. Reduces of 512 f32 over 4 warps use 16
// bytes of scratch, which ttg-allocate-shared-memory lets them share.

// Two reduces on the same bytes: a barrier before the second only.
// CHECK-LABEL: membar @two_reduces: 1 barriers
// CHECK-NEXT: barrier before tt.reduce loc({{.*}}:[[@LINE+13]]:
// PASS-LABEL: tt.func public @two_reduces
// PASS: "tt.reduce"
// PASS: ttg.barrier
// PASS-NEXT: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_reduces(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %b = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.maxnumf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %c = arith.addf %a, %b : f32
    tt.store %p, %c : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A barrier already there (tl.debug_barrier) is enough; a single op needs
// none. (Negative cases: nothing is inserted.)
// CHECK-LABEL: membar @already_synchronized: 0 barriers
// PASS-LABEL: tt.func public @already_synchronized
// PASS: "tt.reduce"
// PASS: ttg.barrier
// PASS-NOT: ttg.barrier
// PASS: tt.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @already_synchronized(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    ttg.barrier
    %b = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.maxnumf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %c = arith.addf %a, %b : f32
    tt.store %p, %c : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Explicit buffers: stores to one buffer and loads from another do not
// race; loading what was just stored does.
// CHECK-LABEL: membar @explicit: 1 barriers
// CHECK-NEXT: barrier before ttg.local_load loc({{.*}}:[[@LINE+10]]:
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @explicit(%x: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> {
    %a = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    ttg.local_store %x, %a : tensor<512xf32, #blocked> -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    %y = ttg.local_load %b : !ttg.memdesc<512xf32, #shared, #smem, mutable> -> tensor<512xf32, #blocked>
    %z = ttg.local_load %a : !ttg.memdesc<512xf32, #shared, #smem, mutable> -> tensor<512xf32, #blocked>
    %w = arith.addf %y, %z : tensor<512xf32, #blocked>
    tt.return %w : tensor<512xf32, #blocked>
  }
}

// -----

// In a loop, an iteration's reduce races with the previous iteration's:
// the barrier goes before it, inside the body; an if joins both arms, so the
// reduce after it needs one too.
// CHECK-LABEL: membar @loop_and_if: 2 barriers
// CHECK-NEXT: barrier before tt.reduce loc({{.*}}:[[@LINE+13]]:
// CHECK-NEXT: barrier before tt.reduce loc({{.*}}:[[@LINE+23]]:
// PASS-LABEL: tt.func public @loop_and_if
// PASS: scf.for
// PASS-NEXT: ttg.barrier
// PASS-NEXT: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop_and_if(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>, %n: i32, %cond: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
      %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%l: f32, %r2: f32):
        %s = arith.addf %l, %r2 : f32
        tt.reduce.return %s : f32
      }) : (tensor<512xf32, #blocked>) -> f32
      %t = arith.addf %acc, %a : f32
      scf.yield %t : f32
    }
    scf.if %cond {
      tt.store %p, %r : !tt.ptr<f32>
    }
    %b = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r2: f32):
      %s = arith.maxnumf %l, %r2 : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    tt.store %p, %b : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Call graph: the call's virtual buffer overlaps the kernel's earlier
// reduce, so the call waits; the callee's reduce has nothing pending at the
// callee's entry.
// CHECK-LABEL: membar @helper: 0 barriers
// CHECK-LABEL: membar @kernel: 1 barriers
// CHECK-NEXT: barrier before tt.call loc({{.*}}:[[@LINE+17]]:
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @helper(%x: tensor<512xf32, #blocked>) -> f32 attributes {noinline = true} {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    tt.return %a : f32
  }
  tt.func public @kernel(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %b = tt.call @helper(%x) : (tensor<512xf32, #blocked>) -> f32
    %d = arith.addf %a, %b : f32
    tt.store %p, %d : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A while loop exits right after its `before` region: what that region left
// pending (the reduce in it) meets the reduce after the loop, which needs a
// barrier even though the `after` region ends with one (which is also why
// the reduce in the loop needs none).
// CHECK-LABEL: membar @while_exit: 1 barriers
// CHECK-NEXT: barrier before tt.reduce loc({{.*}}:[[@LINE+20]]:
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @while_exit(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %zero = arith.constant 0.0 : f32
    %r = scf.while (%acc = %zero) : (f32) -> f32 {
      %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%l: f32, %r2: f32):
        %s = arith.addf %l, %r2 : f32
        tt.reduce.return %s : f32
      }) : (tensor<512xf32, #blocked>) -> f32
      %c = arith.cmpf olt, %acc, %a : f32
      scf.condition(%c) %acc : f32
    } do {
    ^bb0(%v: f32):
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      ttg.barrier
      scf.yield %w : f32
    }
    %b = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r2: f32):
      %s = arith.maxnumf %l, %r2 : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %t = arith.addf %r, %b : f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Asynchronous copies write their destination buffer only: copies into two
// different buffers need no barrier between them (negative), the reads of a
// buffer after its copies need one, and a copy into a buffer that was read
// needs one before it.
// CHECK-LABEL: membar @async_copies: 2 barriers
// CHECK-NEXT: barrier before ttg.local_load loc({{.*}}:[[@LINE+20]]:
// CHECK-NEXT: barrier before ttg.async_copy_global_to_local loc({{.*}}:[[@LINE+20]]:
// PASS-LABEL: tt.func public @async_copies
// PASS: ttg.async_copy_global_to_local
// PASS-NEXT: ttg.async_copy_global_to_local
// PASS-NEXT: ttg.async_commit_group
// PASS-NEXT: ttg.async_wait
// PASS-NEXT: ttg.barrier
// PASS-NEXT: ttg.local_load
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @async_copies(%p: tensor<64x32x!tt.ptr<f16>, #blocked>) -> tensor<64x32xf16, #blocked> {
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %t1 = ttg.async_copy_global_to_local %p, %a : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %t2 = ttg.async_copy_global_to_local %p, %b : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t1, %t2
    %w = ttg.async_wait %g {num = 0 : i32}
    %v = ttg.local_load %a token %w : !ttg.memdesc<64x32xf16, #shared, #smem, mutable> -> tensor<64x32xf16, #blocked>
    %t3 = ttg.async_copy_global_to_local %p, %a : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    tt.return %v : tensor<64x32xf16, #blocked>
  }
}

// -----

// Slots of one ring: copies into two constant slots (a pipeline's prologue)
// touch different bytes and need no barrier between them (negative); a read
// of slot 0 after them needs one; a copy into slot 1 after a read of slot 0
// needs none (different bytes, negative), and a copy into a slot chosen at
// run time may be any slot, so it needs one.
// CHECK-LABEL: membar @ring_slots: 2 barriers
// CHECK-NEXT: barrier before ttg.local_load loc({{.*}}:[[@LINE+17]]:
// CHECK-NEXT: barrier before ttg.async_copy_global_to_local loc({{.*}}:[[@LINE+18]]:
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @ring_slots(%p: tensor<64x32x!tt.ptr<f16>, #blocked>, %i: i32) -> tensor<64x32xf16, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
    %s0 = ttg.memdesc_index %ring[%c0] : !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %s1 = ttg.memdesc_index %ring[%c1] : !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %si = ttg.memdesc_index %ring[%i] : !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %t1 = ttg.async_copy_global_to_local %p, %s0 : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %t2 = ttg.async_copy_global_to_local %p, %s1 : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t1, %t2
    %w = ttg.async_wait %g {num = 0 : i32}
    %v = ttg.local_load %s0 token %w : !ttg.memdesc<64x32xf16, #shared, #smem, mutable> -> tensor<64x32xf16, #blocked>
    %t3 = ttg.async_copy_global_to_local %p, %s1 : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    %t4 = ttg.async_copy_global_to_local %p, %si : tensor<64x32x!tt.ptr<f16>, #blocked> -> <64x32xf16, #shared, #smem, mutable>
    tt.return %v : tensor<64x32xf16, #blocked>
  }
}
