// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-ttg-to-llvm)' | FileCheck %s

// Which threads store (LoadStoreOpToLLVM.cpp, markUnreadStores). A store
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

// Negative: a load follows the store; each thread may read back its own
// write without a barrier, so every thread stores, with no thread test.
// CHECK-LABEL: llvm.func @scalar_read_back
// CHECK-NOT: llvm.icmp
// CHECK: llvm.store
// CHECK: llvm.load
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

// Negative: an atomic after the store reads memory too.
// CHECK-LABEL: llvm.func @atomic_after
// CHECK-NOT: llvm.icmp "eq"
// CHECK: llvm.store
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

// Negative, after convert-scf-to-cf (how the pipeline runs the lowering):
// the load is in a block the store's block branches to.
// CHECK-LABEL: llvm.func @cfg_read_after
// CHECK-NOT: st.global
// CHECK: llvm.store %{{.*}}, %arg0 : f32
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

// Negative: an earlier store of the same elements by every copy holder (a
// load between keeps it so); were the last store issued by its owners
// alone, another warp's earlier write could land after it. Both stores are
// issued by every thread.
// CHECK-LABEL: llvm.func @write_after_write
// CHECK-NOT: st.global
// CHECK: llvm.store
// CHECK: llvm.load
// CHECK-NOT: st.global
// CHECK: llvm.store
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
