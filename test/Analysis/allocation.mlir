// RUN: tessera-opt %s -split-input-file --test-print-allocation -o /dev/null | FileCheck %s

// The Allocation analysis (lib/Analysis/Allocation.cpp): explicit, scratch
// and virtual buffers, lifetimes in program points, offsets. A reduce of 512
// f32 over 4 warps needs 16 bytes of scratch (one f32 per warp).

// Two reductions one after the other share their bytes.
// CHECK-LABEL: allocation @two_reduces: 16 bytes
// CHECK-NEXT: scratch 16 bytes at 0, live [[[P1:[0-9]+]], [[P1]]]: tt.reduce
// CHECK-NEXT: scratch 16 bytes at 0, live [[[P2:[0-9]+]], [[P2]]]: tt.reduce
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
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

// An explicit buffer live across a reduce pushes the reduce's scratch past
// it; after its last use its bytes are free again.
// CHECK-LABEL: allocation @explicit_and_scratch: 2064 bytes
// CHECK-NEXT: explicit 2048 bytes at 0, live [{{[0-9]+}}, {{[0-9]+}}]: ttg.local_alloc
// CHECK-NEXT: scratch 16 bytes at 2048, live {{.*}}: tt.reduce
// CHECK-NEXT: scratch 16 bytes at 0, live {{.*}}: tt.reduce
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @explicit_and_scratch(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>) {
    %buf = ttg.local_alloc %x : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %y = ttg.local_load %buf : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked>
    %b = "tt.reduce"(%y) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tt.reduce.return %s : f32
    }) : (tensor<512xf32, #blocked>) -> f32
    %c = arith.addf %a, %b : f32
    tt.store %p, %c : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A buffer defined before a loop and used inside it stays live to the loop's
// end, so the reduce after its use in the body (same iteration, later point)
// cannot take its bytes.
// CHECK-LABEL: allocation @loop: 2064 bytes
// CHECK-NEXT: explicit 2048 bytes at 0
// CHECK-NEXT: scratch 16 bytes at 2048, live {{.*}}: tt.reduce
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop(%x: tensor<512xf32, #blocked>, %p: !tt.ptr<f32>, %n: i32) {
    %buf = ttg.local_alloc %x : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
      %y = ttg.local_load %buf : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked>
      %a = "tt.reduce"(%y) <{axis = 0 : i32}> ({
      ^bb0(%l: f32, %r2: f32):
        %s = arith.addf %l, %r2 : f32
        tt.reduce.return %s : f32
      }) : (tensor<512xf32, #blocked>) -> f32
      %t = arith.addf %acc, %a : f32
      scf.yield %t : f32
    }
    tt.store %p, %r : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Call graph: the noinline callee is analyzed first; each call of it is a
// virtual buffer of its size, live at the call. The kernel's own reduce,
// earlier, shares bytes with the calls.
// CHECK-LABEL: allocation @helper: 16 bytes
// CHECK-NEXT: scratch 16 bytes at 0, live {{.*}}: tt.reduce
// CHECK-LABEL: allocation @kernel: 16 bytes
// CHECK-NEXT: scratch 16 bytes at 0, live {{.*}}: tt.reduce
// CHECK-NEXT: virtual 16 bytes at 0, live {{.*}}: tt.call
// CHECK-NEXT: virtual 16 bytes at 0, live {{.*}}: tt.call
// CHECK: kernel shared memory: 16 bytes
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
    %c = tt.call @helper(%x) : (tensor<512xf32, #blocked>) -> f32
    %d = arith.addf %a, %b : f32
    %e = arith.addf %d, %c : f32
    tt.store %p, %e : !tt.ptr<f32>
    tt.return
  }
}


// -----

// A call's virtual buffer is as aligned as the callee's most aligned buffer
// (the callee's offsets are relative to it): after the kernel's 2048-byte
// buffer, at 4096, not 2048.
// CHECK-LABEL: allocation @aligned_callee: 1024 bytes
// CHECK-NEXT: explicit 1024 bytes at 0
// CHECK-LABEL: allocation @caller: 5120 bytes
// CHECK-NEXT: explicit 2048 bytes at 0
// CHECK-NEXT: virtual 1024 bytes at 4096
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @aligned_callee(%x: tensor<256xf32, #blocked>) attributes {noinline = true} {
    %b = ttg.local_alloc %x {alignment = 4096 : i32} : (tensor<256xf32, #blocked>) -> !ttg.memdesc<256xf32, #shared, #smem>
    tt.return
  }
  tt.func public @caller(%x: tensor<512xf32, #blocked>, %y: tensor<256xf32, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    tt.call @aligned_callee(%y) : (tensor<256xf32, #blocked>) -> ()
    ttg.local_store %x, %a : tensor<512xf32, #blocked> -> !ttg.memdesc<512xf32, #shared, #smem, mutable>
    tt.return
  }
}
