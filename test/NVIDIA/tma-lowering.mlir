// RUN: tessera-opt %s -split-input-file -verify-diagnostics --ttng-tma-lowering=all-copies=true --mlir-print-local-scope | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttng-tma-lowering, ttg-allocate-shared-memory, ttg-membar)' | FileCheck %s --check-prefix=MEMBAR
// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttng-tma-lowering, canonicalize, cse)' | FileCheck %s --check-prefix=CANON
// RUN: tessera-opt %s -split-input-file -verify-diagnostics --ttng-tma-lowering --mlir-print-local-scope | FileCheck %s --check-prefix=POLICY

// ttng-tma-lowering: descriptor loads and stores of kernel-argument
// descriptors become TMA copies through 1024-byte aligned nvmma buffers.

#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @copy
  tt.func public @copy(%in: !tt.tensordesc<tensor<64x64xf16>>, %out: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %y: i32) {
    // The swizzle is the widest dividing the inner extent: 64 halves = 128 bytes.
    // CHECK: %[[BUF:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory, mutable>
    // CHECK: %[[BAR:.*]] = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{{.*}}>, #ttg.shared_memory, mutable>
    // CHECK: ttng.init_barrier %[[BAR]], 1
    // CHECK: ttng.barrier_expect %[[BAR]], 8192, %true
    // CHECK: ttng.async_tma_copy_global_to_local %arg0[%arg2, %arg3] %[[BUF]], %[[BAR]], %true
    // CHECK: ttng.wait_barrier %[[BAR]], %c0_i32
    // CHECK: ttng.inval_barrier %[[BAR]]
    // CHECK: %[[V:.*]] = ttg.local_load %[[BUF]] {ttng.tma_slot} : !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{{.*}}>, #ttg.shared_memory, mutable> -> tensor<64x64xf16, #ttg.blocked<{{.*}}>>
    %v = tt.descriptor_load %in[%x, %y] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    // A block stored as it was loaded goes out of the load's buffer.
    // CHECK: ttng.async_tma_copy_local_to_global %arg1[%arg3, %arg2] %[[BUF]]
    // CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
    // CHECK-NOT: tt.descriptor_
    tt.descriptor_store %out[%y, %x], %v : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    tt.return
  }

  // A computed block is stored into a buffer of the TMA layout first.
  // CHECK-LABEL: @add_one
  tt.func public @add_one(%in: !tt.tensordesc<tensor<64x64xf16>>, %out: !tt.tensordesc<tensor<64x64xf16>>, %x: i32) {
    %one = arith.constant dense<1.0> : tensor<64x64xf16, #blocked>
    %v = tt.descriptor_load %in[%x, %x] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %w = arith.addf %v, %one : tensor<64x64xf16, #blocked>
    // CHECK: %[[W:.*]] = arith.addf
    // CHECK: %[[S:.*]] = ttg.local_alloc %[[W]] {alignment = 1024 : i32} : (tensor<64x64xf16, #ttg.blocked<{{.*}}>>) -> !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, {{.*}}}>, #ttg.shared_memory>
    // CHECK: ttng.async_tma_copy_local_to_global %arg1[%arg2, %arg2] %[[S]]
    tt.descriptor_store %out[%x, %x], %w : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    tt.return
  }

  // Through membar: a barrier after the init (other threads wait on the
  // barrier word), none among the mbarrier's own atomic operations (expect,
  // the copy's completion, the wait), one after the wait (before the inval,
  // and the local_load of what TMA wrote), and one before the store's copy
  // (every thread's st.shared first).
  // The mbarrier's state changes and the store wait are not dead code.
  // CANON-LABEL: @copy
  // CANON: ttng.barrier_expect
  // CANON: ttng.wait_barrier
  // CANON: ttng.async_tma_store_wait
  // MEMBAR-LABEL: @copy
  // MEMBAR: ttng.init_barrier
  // MEMBAR-NEXT: ttg.barrier
  // MEMBAR-NEXT: ttng.barrier_expect
  // MEMBAR-NEXT: ttng.async_tma_copy_global_to_local
  // MEMBAR-NOT: ttg.barrier
  // MEMBAR: ttng.wait_barrier
  // MEMBAR-NEXT: ttg.barrier
  // MEMBAR-NEXT: ttng.inval_barrier
  // MEMBAR-LABEL: @add_one
  // MEMBAR: ttg.local_alloc %{{.*}} {alignment = 1024 : i32
  // MEMBAR-NEXT: ttg.barrier
  // MEMBAR-NEXT: ttng.async_tma_copy_local_to_global
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // 16 fp32 = 64 bytes: a 64-byte swizzle.
  // CHECK-LABEL: @narrow
  // CHECK: ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<16x16xf32, #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 32}>, #ttg.shared_memory, mutable>
  tt.func public @narrow(%in: !tt.tensordesc<tensor<16x16xf32>>, %x: i32) {
    %v = tt.descriptor_load %in[%x, %x] : !tt.tensordesc<tensor<16x16xf32>> -> tensor<16x16xf32, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
    tt.return
  }
}

// -----

// Before sm_90 the pass leaves descriptor accesses alone.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:80"} {
  // CHECK-LABEL: @ampere
  // CHECK: tt.descriptor_load
  tt.func public @ampere(%in: !tt.tensordesc<tensor<64x64xf16>>, %x: i32) {
    %v = tt.descriptor_load %in[%x, %x] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func public @rank1(%in: !tt.tensordesc<tensor<256xf32>>, %x: i32) {
    // expected-error @+1 {{'tt.descriptor_load' op a TMA copy of a block of rank 1 is not supported yet (2-D blocks only)}}
    %v = tt.descriptor_load %in[%x] : !tt.tensordesc<tensor<256xf32>> -> tensor<256xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  tt.func private @helper(%in: !tt.tensordesc<tensor<64x64xf16>>, %x: i32) attributes {noinline = true} {
    // expected-error @+1 {{'tt.descriptor_load' op a TMA copy needs the descriptor to be an argument of the kernel (the tensor map the launcher encodes) or made in it by tt.make_tensor_descriptor; this one is passed through a call}}
    %v = tt.descriptor_load %in[%x, %x] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

// The front end's guard around a copy whose inner offset it could not check
// (TMA needs it 16-byte aligned): folded to true where AxisInfo proves the
// divisibility (a multiple of 64, an argument specialized as divisible by
// 16): the then-branch replaces the if; kept where it cannot (a plain i32
// argument).
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @guards
  tt.func public @guards(%in: !tt.tensordesc<tensor<64x64xf16>>, %any: i32, %div16: i32 {tt.divisibility = 16 : i32}, %fallback: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c8 = arith.constant 8 : i32
    %c64 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %off = arith.muli %pid, %c64 : i32
    // CHECK-NOT: scf.if
    // CHECK: ttng.async_tma_copy_global_to_local %arg0[%{{.*}}, %{{.*}}]
    // CHECK-NOT: scf.if
    // CHECK: ttng.async_tma_copy_global_to_local %arg0[%{{.*}}, %arg2]
    %r1 = arith.remsi %off, %c8 : i32
    %g1 = arith.cmpi eq, %r1, %c0 : i32
    %v1 = scf.if %g1 -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%c0, %off] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      scf.yield %fallback : tensor<64x64xf16, #blocked>
    }
    %r2 = arith.remsi %div16, %c8 : i32
    %g2 = arith.cmpi eq, %r2, %c0 : i32
    %v2 = scf.if %g2 -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%c0, %div16] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      scf.yield %fallback : tensor<64x64xf16, #blocked>
    }
    // CHECK: %[[R3:.*]] = arith.remsi %arg1, %{{.*}} : i32
    // CHECK: %[[G3:.*]] = arith.cmpi eq, %[[R3]], %{{.*}} : i32
    // CHECK: scf.if %[[G3]]
    %r3 = arith.remsi %any, %c8 : i32
    %g3 = arith.cmpi eq, %r3, %c0 : i32
    %v3 = scf.if %g3 -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%c0, %any] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      scf.yield %fallback : tensor<64x64xf16, #blocked>
    }
    tt.return
  }
}

// -----

// A K loop's descriptor loads are pipelined over 3 stages: rings of 3
// buffers and 3 mbarriers, iterations 0 and 1 started before the loop,
// iteration j waits on barrier j % 3 (phase (j / 3) & 1) and starts
// iteration j + 2 (predicated on it existing), the barriers invalidated
// after the loop.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @kloop
  // CHECK: %[[RING:.*]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x64x64xf16
  // CHECK: %[[BARS:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64
  // CHECK-COUNT-3: ttng.init_barrier
  // CHECK: ttng.barrier_expect %{{.*}}, 8192, %{{.*}}
  // CHECK: ttng.async_tma_copy_global_to_local
  // CHECK: ttng.barrier_expect %{{.*}}, 8192, %{{.*}}
  // CHECK: ttng.async_tma_copy_global_to_local
  // CHECK: scf.for %[[IV:.*]] = %[[LB:.*]] to
  // CHECK:   %[[J:.*]] = arith.divsi
  // CHECK:   %[[SLOT:.*]] = arith.remsi %[[J]], %c3_i32
  // CHECK:   %[[PH:.*]] = arith.andi
  // CHECK:   %[[B:.*]] = ttg.memdesc_index %[[BARS]][%[[SLOT]]]
  // CHECK:   ttng.wait_barrier %[[B]], %[[PH]]
  // CHECK:   %[[V:.*]] = ttg.memdesc_index %[[RING]][%[[SLOT]]]
  // CHECK:   ttg.local_load %[[V]]
  // CHECK:   ttng.barrier_expect
  // CHECK:   ttng.async_tma_copy_global_to_local
  // CHECK:   scf.yield
  // CHECK-COUNT-3: ttng.inval_barrier
  // CHECK-NOT: tt.descriptor_load
  tt.func public @kloop(%in: !tt.tensordesc<tensor<64x64xf16>>, %n: i32, %acc0: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf16, #blocked>) : i32 {
      %off = arith.muli %k, %c64 : i32
      %t = tt.descriptor_load %in[%c0, %off] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %s = arith.addf %acc, %t : tensor<64x64xf16, #blocked>
      scf.yield %s : tensor<64x64xf16, #blocked>
    }
    tt.return
  }

  // A loop that stores keeps its loads synchronous.
  // CHECK-LABEL: @writes
  // CHECK: scf.for
  // CHECK: ttng.init_barrier
  // CHECK: ttng.wait_barrier %{{.*}}, %c0_i32
  tt.func public @writes(%in: !tt.tensordesc<tensor<64x64xf16>>, %out: !tt.tensordesc<tensor<64x64xf16>>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %t = tt.descriptor_load %in[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      tt.descriptor_store %out[%c0, %c0], %t : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    }
    tt.return
  }
}

// -----

// A loop-carried coordinate (offset += 64, as attention's K/V offsets):
// the loop also carries its value 2 iterations ahead; the prologue steps it
// for iterations 0 and 1.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @carried
  // CHECK: %[[O1:.*]] = arith.addi %arg2, %c64_i32
  // CHECK: ttng.async_tma_copy_global_to_local %arg0[%arg2, %c0_i32]
  // CHECK: %[[O2:.*]] = arith.addi %[[O1]], %c64_i32
  // CHECK: ttng.async_tma_copy_global_to_local %arg0[%[[O1]], %c0_i32]
  // CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %arg3, %[[OFF:.*]] = %arg2, %[[AHEAD:.*]] = %[[O2]])
  // CHECK:   ttng.wait_barrier
  // CHECK:   ttg.local_load
  // CHECK:   %[[NEXT:.*]] = arith.addi %[[AHEAD]], %c64_i32
  // CHECK:   ttng.async_tma_copy_global_to_local %arg0[%[[AHEAD]], %c0_i32]
  // CHECK:   scf.yield %{{.*}}, %{{.*}}, %[[NEXT]]
  tt.func public @carried(%in: !tt.tensordesc<tensor<64x64xf16>>, %n: i32, %start: i32, %acc0: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %off = %start) -> (tensor<64x64xf16, #blocked>, i32) : i32 {
      %t = tt.descriptor_load %in[%off, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %s = arith.addf %acc, %t : tensor<64x64xf16, #blocked>
      %next = arith.addi %off, %c64 : i32
      scf.yield %s, %next : tensor<64x64xf16, #blocked>, i32
    }
    tt.return
  }
}

// -----

// A descriptor made in the kernel (tl.make_tensor_descriptor) becomes a
// tensor map written into this program's global scratch: the box is the
// block with its inner extent cut to the swizzle (64 halves = 128 bytes),
// every list innermost first, the row stride in bytes; the acquire before
// TMA reads it. An unused one is dropped.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @device_map
  tt.func public @device_map(%base: !tt.ptr<f16>, %M: i32, %N: i32, %sm: i64, %x: i32) {
    %c1 = arith.constant 1 : i64
    // CHECK: %[[S:.*]] = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    // CHECK: %[[ROW:.*]] = arith.muli %arg3, %c2_i64 : i64
    // CHECK: ttng.tensormap_create %[[S]], %arg0, [%c64_i32, %c32_i32], [%arg2, %arg1], [%[[ROW]]], [%c1_i32, %c1_i32{{.*}}] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32}
    // CHECK: ttng.tensormap_fenceproxy_acquire %[[S]] : !tt.ptr<i8>
    // CHECK: %[[D:.*]] = ttng.reinterpret_tensor_descriptor %[[S]] : !tt.ptr<i8> to !tt.tensordesc<tensor<32x128xf16>>
    // CHECK-NOT: tt.make_tensor_descriptor
    %d = tt.make_tensor_descriptor %base, [%M, %N], [%sm, %c1] : !tt.ptr<f16>, !tt.tensordesc<tensor<32x128xf16>>
    %unused = tt.make_tensor_descriptor %base, [%M, %N], [%sm, %c1] : !tt.ptr<f16>, !tt.tensordesc<tensor<32x128xf16>>
    // Two boxes of 64 columns.
    // CHECK: ttng.async_tma_copy_global_to_local %[[D]][%arg4, %arg4]
    %v = tt.descriptor_load %d[%x, %x] : !tt.tensordesc<tensor<32x128xf16>> -> tensor<32x128xf16, #blocked>
    // CHECK: ttng.async_tma_copy_local_to_global %[[D]][%arg4, %arg4]
    tt.descriptor_store %d[%x, %x], %v : !tt.tensordesc<tensor<32x128xf16>>, tensor<32x128xf16, #blocked>
    tt.return
  }
}

// -----

// The guards of copies through maps made in the kernel also test what TMA
// needs of the tensor at run time: conditions AxisInfo proves are dropped
// (the address and the row stride divisible by 16 bytes); the rest (sizes
// positive) does not change in the K loop, which is unswitched: where it
// holds, the loop copies by TMA, pipelined; otherwise the pointer branch of
// every guard that tests exactly that.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @unswitch
  tt.func public @unswitch(%base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32, %K: i32 {tt.divisibility = 16 : i32}, %n: i32, %fallback: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
    %c0 = arith.constant 0 : i32
    %c0_64 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c16_64 = arith.constant 16 : i64
    %c64 = arith.constant 64 : i32
    %one = arith.constant 1 : i64
    %sk = arith.extsi %K : i32 to i64
    %d = tt.make_tensor_descriptor %base, [%M, %K], [%sk, %one] : !tt.ptr<f16>, !tt.tensordesc<tensor<64x64xf16>>
    %addr = tt.ptr_to_int %base : !tt.ptr<f16> -> i64
    %ra = arith.remsi %addr, %c16_64 : i64
    %aligned = arith.cmpi eq, %ra, %c0_64 : i64
    %mpos = arith.cmpi sgt, %M, %c0 : i32
    %kpos = arith.cmpi sgt, %K, %c0 : i32
    %rk = arith.remsi %K, %c8 : i32
    %krow = arith.cmpi eq, %rk, %c0 : i32
    %v0 = arith.andi %aligned, %mpos : i1
    %v1 = arith.andi %v0, %kpos : i1
    %valid = arith.andi %v1, %krow : i1
    // CHECK: %[[MP:.*]] = arith.cmpi sgt, %arg1
    // CHECK: %[[KP:.*]] = arith.cmpi sgt, %arg2
    // CHECK: %[[C:.*]] = arith.andi %[[MP]], %[[KP]] : i1
    // CHECK-NEXT: scf.if %[[C]]
    // CHECK: ttng.init_barrier
    // CHECK: scf.for
    // CHECK: ttng.wait_barrier
    // CHECK-NOT: scf.if
    // CHECK: scf.yield
    // CHECK: } else {
    // CHECK: scf.for
    // CHECK-NOT: ttng.async_tma_copy_global_to_local
    // CHECK: tt.load %{{.*}} : tensor<64x64x!tt.ptr<f16>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %fallback) -> (tensor<64x64xf16, #blocked>) : i32 {
      %off = arith.muli %k, %c64 : i32
      %ro = arith.remsi %off, %c8 : i32
      %go = arith.cmpi eq, %ro, %c0 : i32
      %g = arith.andi %valid, %go : i1
      %t = scf.if %g -> (tensor<64x64xf16, #blocked>) {
        %l = tt.descriptor_load %d[%c0, %off] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        scf.yield %l : tensor<64x64xf16, #blocked>
      } else {
        %p = tt.splat %base : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
        %l = tt.load %p : tensor<64x64x!tt.ptr<f16>, #blocked>
        scf.yield %l : tensor<64x64xf16, #blocked>
      }
      %s = arith.addf %acc, %t : tensor<64x64xf16, #blocked>
      scf.yield %s : tensor<64x64xf16, #blocked>
    }
    tt.return %r : tensor<64x64xf16, #blocked>
  }

  // A condition that changes in the loop (an offset no one proves aligned)
  // keeps the guard in place, and the loop as it is.
  // CHECK-LABEL: @no_unswitch
  tt.func public @no_unswitch(%base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32, %n: i32, %fallback: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c64_64 = arith.constant 64 : i64
    %one = arith.constant 1 : i64
    %c64 = arith.constant 64 : i32
    %d = tt.make_tensor_descriptor %base, [%M, %c64], [%c64_64, %one] : !tt.ptr<f16>, !tt.tensordesc<tensor<64x64xf16>>
    %mpos = arith.cmpi sgt, %M, %c0 : i32
    // CHECK-NOT: scf.if
    // CHECK: scf.for
    // CHECK: scf.if
    // CHECK: ttng.async_tma_copy_global_to_local
    // CHECK: } else {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %fallback) -> (tensor<64x64xf16, #blocked>) : i32 {
      %ro = arith.remsi %k, %c8 : i32
      %go = arith.cmpi eq, %ro, %c0 : i32
      %g = arith.andi %mpos, %go : i1
      %t = scf.if %g -> (tensor<64x64xf16, #blocked>) {
        %l = tt.descriptor_load %d[%c0, %k] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        scf.yield %l : tensor<64x64xf16, #blocked>
      } else {
        scf.yield %acc : tensor<64x64xf16, #blocked>
      }
      scf.yield %t : tensor<64x64xf16, #blocked>
    }
    tt.return %r : tensor<64x64xf16, #blocked>
  }
}

// -----

// Stores by TMA are also guarded by non-negative coordinates: proven for
// pid * 64 (the then-branch replaces the if), kept for a plain argument.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @store_guards
  tt.func public @store_guards(%out: !tt.tensordesc<tensor<64x64xf16>>, %any: i32 {tt.divisibility = 16 : i32}, %v: tensor<64x64xf16, #blocked>, %p: !tt.ptr<f16>) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %off = arith.muli %pid, %c64 : i32
    // CHECK-NOT: scf.if
    // CHECK: ttng.async_tma_copy_local_to_global %arg0[%{{.*}}, %{{.*}}]
    %g1 = arith.cmpi sge, %off, %c0 : i32
    scf.if %g1 {
      tt.descriptor_store %out[%off, %off], %v {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    } else {
      %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
      tt.store %ps, %v : tensor<64x64x!tt.ptr<f16>, #blocked>
    }
    // CHECK: %[[G:.*]] = arith.cmpi sge, %arg1, %{{.*}} : i32
    // CHECK: scf.if %[[G]]
    %g2 = arith.cmpi sge, %any, %c0 : i32
    scf.if %g2 {
      tt.descriptor_store %out[%any, %any], %v {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    } else {
      %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
      tt.store %ps, %v : tensor<64x64x!tt.ptr<f16>, #blocked>
    }
    tt.return
  }
}

// -----

// The default policy (POLICY): a guarded copy takes TMA where it serves
// tensor cores -- a block that reaches a dot's operand, a store of what a dot
// computed -- and its pointer branch elsewhere (here the copy of %in to %out
// and the store of a plain block). all-copies keeps TMA for all (CHECK).
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#acc = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // POLICY-LABEL: @policy
  // CHECK-LABEL: @policy
  tt.func public @policy(%in: !tt.tensordesc<tensor<64x64xf16>>, %out: !tt.tensordesc<tensor<64x64xf16>>, %g: i1, %p: !tt.ptr<f16>, %fallback: tensor<64x64xf16, #blocked>) {
    %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %c0 = arith.constant 0 : i32
    // A copy: pointers.
    // POLICY: %[[V:.*]] = tt.load
    // POLICY: tt.store %{{.*}}, %[[V]]
    // CHECK: ttng.async_tma_copy_global_to_local %arg0
    // CHECK: ttng.async_tma_copy_local_to_global %arg1
    %v = scf.if %g -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%c0, %c0] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      %t = tt.load %ps : tensor<64x64x!tt.ptr<f16>, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    }
    scf.if %g {
      tt.descriptor_store %out[%c0, %c0], %v {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    } else {
      tt.store %ps, %v : tensor<64x64x!tt.ptr<f16>, #blocked>
    }
    // Dot operands and the store of the dot's result: TMA.
    // POLICY: ttng.async_tma_copy_global_to_local %arg0
    // POLICY: tt.dot
    // POLICY: ttng.async_tma_copy_local_to_global %arg1
    %a = scf.if %g -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%c0, %c0] {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      scf.yield %fallback : tensor<64x64xf16, #blocked>
    }
    %ad = ttg.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #acc}>>
    %bd = ttg.convert_layout %fallback : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #acc}>>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tt.dot %ad, %bd, %z : tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #acc}>> * tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #acc}>> -> tensor<64x64xf32, #acc>
    %h = arith.truncf %d : tensor<64x64xf32, #acc> to tensor<64x64xf16, #acc>
    %hb = ttg.convert_layout %h : tensor<64x64xf16, #acc> -> tensor<64x64xf16, #blocked>
    scf.if %g {
      tt.descriptor_store %out[%c0, %c0], %hb {tt.tma_guarded} : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    } else {
      tt.store %ps, %hb : tensor<64x64x!tt.ptr<f16>, #blocked>
    }
    tt.return
  }
}

// -----

// A user's own if around a descriptor access is not a guard (its copy is
// not marked tt.tma_guarded): it stays, with both branches, even where its
// condition is proven true or does not change in a loop; the copy in it is
// lowered in place.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @user_if
  // POLICY-LABEL: @user_if
  tt.func public @user_if(%in: !tt.tensordesc<tensor<64x64xf16>>, %p: !tt.ptr<f16>, %flag: i1, %n: i32, %fallback: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %off = arith.muli %pid, %c64 : i32
    %g = arith.cmpi sge, %off, %c0 : i32
    // CHECK: scf.if
    // CHECK: ttng.async_tma_copy_global_to_local
    // CHECK: } else {
    // CHECK: tt.load
    // POLICY: scf.if
    // POLICY: } else {
    // POLICY: tt.load
    %v = scf.if %g -> (tensor<64x64xf16, #blocked>) {
      %t = tt.descriptor_load %in[%off, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    } else {
      %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
      %t = tt.load %ps : tensor<64x64x!tt.ptr<f16>, #blocked>
      scf.yield %t : tensor<64x64xf16, #blocked>
    }
    // Not unswitched: one loop, the user's if inside it.
    // CHECK: scf.for
    // CHECK: scf.if %arg2
    // CHECK: ttng.async_tma_copy_global_to_local
    // CHECK: } else {
    // CHECK-NOT: scf.for
    // CHECK: tt.return
    // POLICY: scf.for
    // POLICY: scf.if %arg2
    // POLICY-NOT: scf.for
    // POLICY: tt.return
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (tensor<64x64xf16, #blocked>) : i32 {
      %t = scf.if %flag -> (tensor<64x64xf16, #blocked>) {
        %l = tt.descriptor_load %in[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        scf.yield %l : tensor<64x64xf16, #blocked>
      } else {
        scf.yield %fallback : tensor<64x64xf16, #blocked>
      }
      %s = arith.addf %acc, %t : tensor<64x64xf16, #blocked>
      scf.yield %s : tensor<64x64xf16, #blocked>
    }
    tt.return %r : tensor<64x64xf16, #blocked>
  }
}
