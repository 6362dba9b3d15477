// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-ttg-to-llvm)' | FileCheck %s

// Which threads store (LoadStoreOpToLLVM.cpp, markOwnerStores). A store
// that nothing in the kernel reads back afterwards is done by one thread per
// element: a scalar by thread 0 of the program.
// CHECK-LABEL: llvm.func @scalar
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[BITS:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[OWN:.*]] = llvm.icmp "eq" %[[BITS]], %{{.*}} : i32
// CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[OWN]]
// CHECK-NOT: st.global
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scalar(%p: !tt.ptr<f32>, %v: f32) {
    tt.store %p, %v : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A load follows the store, which runs once: thread 0 stores and a barrier
// follows, so every thread reads the value back. The last store, which
// nothing reads back, needs no barrier.
// CHECK-LABEL: llvm.func @scalar_read_back
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[BITS:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[OWN:.*]] = llvm.icmp "eq" %[[BITS]], %{{.*}} : i32
// CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[OWN]]
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: @$2 st.global.b32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scalar_read_back(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %v: f32) {
    tt.store %p, %v : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.store %q, %w : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Negative: in a loop that loads, a later iteration's load follows the
// store (the load comes first in the body).
// CHECK-LABEL: llvm.func @loop_read_back
// CHECK-NOT: llvm.icmp "eq"
// CHECK: llvm.store
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop_read_back(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %w = tt.load %p : !tt.ptr<f32>
      %x = arith.addf %w, %w : f32
      tt.store %p, %x : !tt.ptr<f32>
    }
    tt.return
  }
}

// -----

// An atomic after the store reads memory too: the owner's store, then a
// barrier before the atomic.
// CHECK-LABEL: llvm.func @atomic_after
// CHECK: llvm.icmp "eq"
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: atom.relaxed.gpu.global.add.f32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @atomic_after(%p: !tt.ptr<f32>, %v: f32) {
    tt.store %p, %v : !tt.ptr<f32>
    %o = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (!tt.ptr<f32>, f32) -> f32
    tt.return
  }
}

// -----

// Negative: a noinline function's caller may read what it stored.
// CHECK-LABEL: llvm.func internal @callee
// CHECK-NOT: llvm.icmp "eq"
// CHECK: llvm.store
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @callee(%p: !tt.ptr<f32>, %v: f32) attributes {noinline = true} {
    tt.store %p, %v : !tt.ptr<f32>
    tt.return
  }
  tt.func public @caller(%p: !tt.ptr<f32>, %v: f32) {
    tt.call @callee(%p, %v) : (!tt.ptr<f32>, f32) -> ()
    %w = tt.load %p : !tt.ptr<f32>
    tt.store %p, %w : !tt.ptr<f32>
    tt.return
  }
}

// -----

// 16 elements over 128 threads: lanes 16-31 and warps 1-3 hold copies; only
// lanes 0-15 of warp 0 store (thread bits 4, 5 and 6 zero: mask 112).
// CHECK-LABEL: llvm.func @copies
// CHECK: %[[M:.*]] = llvm.mlir.constant(112 : i32) : i32
// CHECK: %[[BITS:.*]] = llvm.and %{{.*}}, %[[M]] : i32
// CHECK: llvm.icmp "eq" %[[BITS]]
// CHECK: st.global.b32
// CHECK-NOT: st.global
#copies = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copies(%p: tensor<16x!tt.ptr<f32>, #copies>, %v: tensor<16xf32, #copies>) {
    tt.store %p, %v : tensor<16x!tt.ptr<f32>, #copies>
    tt.return
  }
}

// -----

// Registers that repeat elements (2 elements, 4 registers per thread): each
// element is stored from its first register only (the same thread wrote it).
// CHECK-LABEL: llvm.func @register_copies
// CHECK-COUNT-2: st.global.b32
// CHECK-NOT: st.global
#regs = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @register_copies(%p: tensor<2x!tt.ptr<f32>, #regs>, %v: tensor<2xf32, #regs>, %m: tensor<2xi1, #regs>) {
    tt.store %p, %v, %m : tensor<2x!tt.ptr<f32>, #regs>
    tt.return
  }
}

// -----

// Negative: the store is in one branch of an if in a loop, a load in the
// other; a later iteration may take the load's branch.
// CHECK-LABEL: llvm.func @loop_other_branch
// CHECK-NOT: st.global
// CHECK: llvm.store %{{.*}}, %arg0 : f32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop_other_branch(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %f = arith.constant 1.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> (f32) : i32 {
      %odd = arith.remsi %i, %c2 : i32
      %c = arith.cmpi eq, %odd, %c0 : i32
      %v = scf.if %c -> (f32) {
        tt.store %p, %acc : !tt.ptr<f32>
        scf.yield %acc : f32
      } else {
        %w = tt.load %p : !tt.ptr<f32>
        scf.yield %w : f32
      }
      scf.yield %v : f32
    }
    tt.store %q, %r : !tt.ptr<f32>
    tt.return
  }
}

// -----

// A store in a loop that reads nothing from global memory is still stored
// once per element (the loop's later iterations only store).
// CHECK-LABEL: llvm.func @loop_store_only
// CHECK: llvm.icmp "eq"
// CHECK: st.global.b32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop_store_only(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %f = arith.sitofp %i : i32 to f32
      tt.store %p, %f : !tt.ptr<f32>
    }
    tt.return
  }
}

// -----

// After convert-scf-to-cf (how the pipeline runs the lowering): the load is
// in a block the store's block branches to, on no cycle: the owner stores
// and the barrier comes before the branch.
// CHECK-LABEL: llvm.func @cfg_read_after
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.br
// CHECK: llvm.load
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cfg_read_after(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %v: f32) {
    tt.store %p, %v : !tt.ptr<f32>
    cf.br ^bb1
  ^bb1:
    %w = tt.load %p : !tt.ptr<f32>
    tt.store %q, %w : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Negative: a loop as blocks; the load comes before the store in the loop's
// block, and the back edge runs it again after the store.
// CHECK-LABEL: llvm.func @cfg_loop
// CHECK: llvm.load
// CHECK-NOT: st.global
// CHECK: llvm.store %{{.*}}, %arg0 : f32
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cfg_loop(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cf.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %w = tt.load %p : !tt.ptr<f32>
    %x = arith.addf %w, %w : f32
    tt.store %p, %x : !tt.ptr<f32>
    %j = arith.addi %i, %c1 : i32
    %more = arith.cmpi slt, %j, %n : i32
    cf.cond_br %more, ^bb1(%j : i32), ^bb2
  ^bb2:
    tt.return
  }
}

// -----

// A load between two stores of the same elements: the first is issued by
// the owners with a barrier after it (the load may read it back), the
// second by the same owners, so no other thread's earlier write can land
// after it.
// CHECK-LABEL: llvm.func @write_after_write
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: @$2 st.global.b32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#waw = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @write_after_write(%p: tensor<16x!tt.ptr<f32>, #waw>, %q: tensor<16x!tt.ptr<f32>, #waw>, %v: tensor<16xf32, #waw>) {
    tt.store %p, %v : tensor<16x!tt.ptr<f32>, #waw>
    %w = tt.load %q : tensor<16x!tt.ptr<f32>, #waw>
    tt.store %p, %w : tensor<16x!tt.ptr<f32>, #waw>
    tt.return
  }
}

// -----

// Two stores nothing reads back, of the same layout: the same thread owns
// each element in both, so both are issued by the owners.
// CHECK-LABEL: llvm.func @two_owned
// CHECK: @$2 st.global.b32
// CHECK: @$2 st.global.b32
#two = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_owned(%p: tensor<16x!tt.ptr<f32>, #two>, %v: tensor<16xf32, #two>, %w: tensor<16xf32, #two>) {
    tt.store %p, %v : tensor<16x!tt.ptr<f32>, #two>
    tt.store %p, %w : tensor<16x!tt.ptr<f32>, #two>
    tt.return
  }
}

// -----

// Negative: the two stores' layouts differ (other owners), so the second is
// issued by every copy holder; the first, which nothing precedes, by its
// owners.
// CHECK-LABEL: llvm.func @other_layouts
// CHECK: @$2 st.global.b32
// CHECK-NOT: st.global
// CHECK: llvm.store
#la = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#lb = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @other_layouts(%p: tensor<16x!tt.ptr<f32>, #la>, %v: tensor<16xf32, #la>, %q: tensor<16x!tt.ptr<f32>, #lb>, %w: tensor<16xf32, #lb>) {
    tt.store %p, %v : tensor<16x!tt.ptr<f32>, #la>
    tt.store %q, %w : tensor<16x!tt.ptr<f32>, #lb>
    tt.return
  }
}

// -----

// Negative: an earlier store of the same elements by every copy holder (it
// is in a loop that loads, so no barrier can follow it once); were the last
// store issued by its owners alone, another warp's earlier write could land
// after it. Both are issued by every thread.
// CHECK-LABEL: llvm.func @write_after_loop_write
// CHECK-NOT: st.global
// CHECK: llvm.store
// CHECK-NOT: st.global
// CHECK: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @write_after_loop_write(%p: !tt.ptr<f32>, %n: i32, %v: f32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %w = tt.load %p : !tt.ptr<f32>
      %x = arith.addf %w, %w : f32
      tt.store %p, %x : !tt.ptr<f32>
    }
    tt.store %p, %v : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Two scalar stores in a row, then loads (a layer norm's mean and rstd):
// both by thread 0, one barrier after the second.
// CHECK-LABEL: llvm.func @store_run_one_barrier
// CHECK: @$2 st.global.b32
// CHECK-NOT: nvvm.barrier0
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @store_run_one_barrier(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %r: !tt.ptr<f32>, %a: f32, %b: f32) -> f32 {
    tt.store %p, %a : !tt.ptr<f32>
    tt.store %q, %b : !tt.ptr<f32>
    %w = tt.load %r : !tt.ptr<f32>
    tt.return %w : f32
  }
}

// -----

// A load between two scalar stores: each store has its own barrier.
// CHECK-LABEL: llvm.func @store_load_store
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @store_load_store(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %a: f32) -> f32 {
    tt.store %p, %a : !tt.ptr<f32>
    %w = tt.load %q : !tt.ptr<f32>
    tt.store %q, %w : !tt.ptr<f32>
    %x = tt.load %p : !tt.ptr<f32>
    tt.return %x : f32
  }
}

// -----

// Negative: 128 elements over 128 threads, no copies, read back: every
// thread stores its element with no thread test and no barrier.
// CHECK-LABEL: llvm.func @no_copies_read_back
// CHECK-NOT: llvm.icmp "eq"
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#one = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @no_copies_read_back(%p: tensor<128x!tt.ptr<f32>, #one>, %v: tensor<128xf32, #one>) -> tensor<128xf32, #one> {
    tt.store %p, %v : tensor<128x!tt.ptr<f32>, #one>
    %w = tt.load %p : tensor<128x!tt.ptr<f32>, #one>
    tt.return %w : tensor<128xf32, #one>
  }
}

// -----

// A run of stores split by a branch: the first store's block ends before
// the second store, so each carries its own barrier.
// CHECK-LABEL: llvm.func @run_across_blocks
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.br
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @run_across_blocks(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %a: f32) -> f32 {
    tt.store %p, %a : !tt.ptr<f32>
    cf.br ^bb1
  ^bb1:
    tt.store %q, %a : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  }
}

// -----

// A scalar store, then a copied tile store of another layout (which the
// write-order rule leaves to every copy holder), then a load: the scalar's
// store carries the barrier; the tile's has no owner test and no barrier.
// CHECK-LABEL: llvm.func @run_with_a_dropped_store
// CHECK: %[[OWN:.*]] = llvm.icmp "eq"
// CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[OWN]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: llvm.icmp "eq"
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load
#drop = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @run_with_a_dropped_store(%p: !tt.ptr<f32>, %t: tensor<16x!tt.ptr<f32>, #drop>, %a: f32, %v: tensor<16xf32, #drop>) -> f32 {
    tt.store %p, %a : !tt.ptr<f32>
    tt.store %t, %v : tensor<16x!tt.ptr<f32>, #drop>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  }
}

// -----

// A masked tile store that is read back: the mask and the owner test
// together predicate it, and the barrier follows.
// CHECK-LABEL: llvm.func @masked_read_back
// CHECK: %[[OWN:.*]] = llvm.icmp "eq"
// CHECK: %[[PRED:.*]] = llvm.and %{{.*}}, %[[OWN]]
// CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[PRED]]
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
#mask = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @masked_read_back(%t: tensor<16x!tt.ptr<f32>, #mask>, %v: tensor<16xf32, #mask>, %m: tensor<16xi1, #mask>) -> tensor<16xf32, #mask> {
    tt.store %t, %v, %m : tensor<16x!tt.ptr<f32>, #mask>
    %w = tt.load %t : tensor<16x!tt.ptr<f32>, #mask>
    tt.return %w : tensor<16xf32, #mask>
  }
}

// -----

// A call to a noinline function after the store (it may read memory): the
// barrier comes before the call.
// CHECK-LABEL: llvm.func @store_then_call
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.call @reader
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @reader(%p: !tt.ptr<f32>) -> f32 attributes {noinline = true} {
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  }
  tt.func public @store_then_call(%p: !tt.ptr<f32>, %a: f32) -> f32 {
    tt.store %p, %a : !tt.ptr<f32>
    %w = tt.call @reader(%p) : (!tt.ptr<f32>) -> f32
    tt.return %w : f32
  }
}

// -----

// Negative: the store's block is reached through a branch on a loaded flag
// (another program may be writing it, so threads may disagree): no barrier
// there; every thread stores.
// CHECK-LABEL: llvm.func @branch_on_a_loaded_flag
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %arg0 : f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @branch_on_a_loaded_flag(%p: !tt.ptr<f32>, %flag: !tt.ptr<i32>, %a: f32) -> f32 {
    %f = tt.load %flag {isVolatile = true} : !tt.ptr<i32>
    %c0 = arith.constant 0 : i32
    %set = arith.cmpi ne, %f, %c0 : i32
    cf.cond_br %set, ^bb1, ^bb2
  ^bb1:
    tt.store %p, %a : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  ^bb2:
    tt.return %a : f32
  }
}

// -----

// A branch on a kernel argument (the same in every thread): the store's
// block is reached by all threads together, so the owner stores and the
// barrier follows.
// CHECK-LABEL: llvm.func @branch_on_an_argument
// CHECK: llvm.cond_br
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @branch_on_an_argument(%p: !tt.ptr<f32>, %n: i32, %a: f32) -> f32 {
    %c0 = arith.constant 0 : i32
    %set = arith.cmpi ne, %n, %c0 : i32
    cf.cond_br %set, ^bb1, ^bb2
  ^bb1:
    tt.store %p, %a : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  ^bb2:
    tt.return %a : f32
  }
}

// -----

// A loaded value passed along a branch whose condition is an argument's:
// only the condition decides which block runs, so the store's block is
// still reached by all threads together.
// CHECK-LABEL: llvm.func @loaded_value_forwarded
// CHECK: @$2 st.global.b32
// CHECK-NEXT: nvvm.barrier0
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loaded_value_forwarded(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32, %a: f32) -> f32 {
    %v = tt.load %q : !tt.ptr<f32>
    %c0 = arith.constant 0 : i32
    %set = arith.cmpi ne, %n, %c0 : i32
    cf.cond_br %set, ^bb1(%v : f32), ^bb2(%a : f32)
  ^bb1(%x: f32):
    tt.store %p, %x : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  ^bb2(%y: f32):
    tt.return %y : f32
  }
}

// -----

// Negative: a loaded value reaches a later branch's condition through a
// block argument: no barrier in the block it chooses.
// CHECK-LABEL: llvm.func @loaded_condition_through_an_argument
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loaded_condition_through_an_argument(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %a: f32) -> f32 {
    %v = tt.load %q : !tt.ptr<f32>
    cf.br ^bb1(%v : f32)
  ^bb1(%x: f32):
    %z = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %z : f32
    cf.cond_br %pos, ^bb2, ^bb3
  ^bb2:
    tt.store %p, %a : !tt.ptr<f32>
    %w = tt.load %p : !tt.ptr<f32>
    tt.return %w : f32
  ^bb3:
    tt.return %a : f32
  }
}
