// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(ttg-allocate-shared-memory, ttg-membar, ttg-allocate-global-scratch, convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// The lowering of the ttng mbarrier and TMA operations to inline PTX
// (third_party/nvidia/lib/TTGToLLVM/TMAToLLVM.cpp) through the pipeline the
// cuda backend runs, and the kernel parameter a !tt.tensordesc argument
// becomes: the 128-byte CUtensorMap by value (byval, align 64,
// nvvm.grid_constant), whose address the copies use.

#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @copy_in(
  // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
  tt.func public @copy_in(%desc: !tt.tensordesc<tensor<64x128xf16>>, %x: i32, %y: i32, %out: !tt.ptr<f16>) {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #bar, #smem, mutable>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #nvmma, #smem, mutable>
    // CHECK: mbarrier.init.shared::cta.b64 [$1], 1;
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;
    ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // 128 halves are 256 bytes: two boxes of 64 columns (128-byte swizzle),
    // the second 64 x 128 bytes further in shared memory and 64 further
    // along the inner coordinate (listed first in PTX).
    // CHECK: %[[MAP:.*]] = llvm.ptrtoint %arg0 : !llvm.ptr to i64
    // CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r,~{memory}" %{{.*}}, %{{.*}}, %[[MAP]], %arg2, %arg1, %{{.*}} :
    // CHECK: llvm.getelementptr %{{.*}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    // CHECK: %[[X1:.*]] = llvm.add %arg2, %{{.*}} : i32
    // CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r,~{memory}" %{{.*}}, %{{.*}}, %[[MAP]], %[[X1]], %arg1, %{{.*}} :
    // CHECK-NOT: cp.async.bulk.tensor
    ttng.async_tma_copy_global_to_local %desc[%x, %y] %buf, %bar, %true : !tt.tensordesc<tensor<64x128xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x128xf16, #nvmma, #smem, mutable>
    // CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;
    // CHECK: @!done bra.uni tessera_wait_${:uid};
    ttng.wait_barrier %bar, %c0 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: mbarrier.inval.shared::cta.b64 [$1];
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    %v = ttg.local_load %buf : !ttg.memdesc<64x128xf16, #nvmma, #smem, mutable> -> tensor<64x128xf16, #blocked>
    %r0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %e0 = tt.expand_dims %r0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %e1 = tt.expand_dims %r1 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi32, #blocked>
    %c128 = arith.constant dense<128> : tensor<64x1xi32, #blocked>
    %m = arith.muli %e0, %c128 : tensor<64x1xi32, #blocked>
    %b0 = tt.broadcast %m : tensor<64x1xi32, #blocked> -> tensor<64x128xi32, #blocked>
    %b1 = tt.broadcast %e1 : tensor<1x128xi32, #blocked> -> tensor<64x128xi32, #blocked>
    %off = arith.addi %b0, %b1 : tensor<64x128xi32, #blocked>
    %p = tt.splat %out : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #blocked>
    %ptrs = tt.addptr %p, %off : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi32, #blocked>
    tt.store %ptrs, %v : tensor<64x128x!tt.ptr<f16>, #blocked>
    tt.return
  }

  // CHECK-LABEL: llvm.func @copy_out(
  tt.func public @copy_out(%desc: !tt.tensordesc<tensor<32x32xf32>>, %x: i32, %y: i32) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<32x32xf32, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>, #smem, mutable>
    // CHECK: "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$2, $3}], [$4];", "b,l,r,r,r,~{memory}"
    // CHECK-NOT: cp.async.bulk.tensor
    // CHECK: "@$0 cp.async.bulk.commit_group;", "b,~{memory}"
    ttng.async_tma_copy_local_to_global %desc[%x, %y] %buf : !tt.tensordesc<tensor<32x32xf32>>, !ttg.memdesc<32x32xf32, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>, #smem, mutable>
    // CHECK: "cp.async.bulk.wait_group.read 0;"
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}

// -----

// Before sm_90 there is no TMA: a descriptor kernel argument is an error.
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:80"} {
  // expected-error @+2 {{failed to legalize operation 'tt.func'}}
  // expected-error @+1 {{argument 0 is a tensor descriptor ('!tt.tensordesc<tensor<32x32xf32>>'), which this target passes to kernels only as the pointers, sizes and strides it is made of}}
  tt.func public @old(%desc: !tt.tensordesc<tensor<32x32xf32>>) {
    tt.return
  }
}

// -----

// A tensor map made on the device: the first warp zeroes 128 bytes of its
// shared scratch (on a 128-byte boundary), lane 0 writes every field, the
// warp copies the map to its global scratch with a release to the tensormap
// proxy; thread 0 acquires it before copying through it (a generic pointer).
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @device_map(
  tt.func public @device_map(%base: !tt.ptr<f16>, %M: i32, %K: i32, %row: i64, %x: i32) {
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %s = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    // CHECK: llvm.and %{{.*}}, %{{.*}} : i32
    // CHECK: "@$0 st.shared.b32 [$1], 0;", "b,r,~{memory}"
    // CHECK: "@$0 bar.warp.sync -1;"
    // CHECK: "@$0 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [$1], $2;", "b,r,l,~{memory}"
    // CHECK: "@$0 tensormap.replace.tile.rank.shared::cta.b1024.b32 [$1], 1;"
    // CHECK: "@$0 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$1], 0, $2;", "b,r,r,~{memory}"
    // CHECK: "@$0 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$1], 0, $2;"
    // CHECK: "@$0 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [$1], 0, $2;", "b,r,l,~{memory}"
    // CHECK: "@$0 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [$1], 0, $2;"
    // CHECK: "@$0 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$1], 1, $2;"
    // CHECK: "@$0 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$1], 1, $2;"
    // CHECK-NOT: global_stride
    // CHECK: "@$0 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [$1], 1, $2;"
    // CHECK: "@$0 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [$1], 1;"
    // CHECK: "@$0 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [$1], 0;"
    // CHECK: "@$0 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [$1], 3;"
    // CHECK: "@$0 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [$1], 0;"
    // CHECK: "@$0 bar.warp.sync -1;"
    // CHECK: "@$0 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$1], [$2], 128;", "b,l,r,~{memory}"
    ttng.tensormap_create %s, %base, [%c64, %c64], [%K, %M], [%row], [%c1, %c1] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    // CHECK: "@$0 fence.proxy.tensormap::generic.acquire.gpu [$1], 128;", "b,l,~{memory}"
    ttng.tensormap_fenceproxy_acquire %s : !tt.ptr<i8>
    // CHECK: %[[G:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
    // CHECK: llvm.ptrtoint %[[G]] : !llvm.ptr to i64
    // CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
    %d = ttng.reinterpret_tensor_descriptor %s : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16>>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #smem, mutable>
    ttng.async_tma_copy_local_to_global %d[%x, %x] %buf : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}

// -----

// Before sm_90 a tensor map cannot be made on the device.
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, "ttg.num-ctas" = 1 : i32, ttg.target = "cuda:80"} {
  tt.func public @old_map(%base: !tt.ptr<f16>, %M: i32, %row: i64) {
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %s = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    // expected-error @+2 {{'ttng.tensormap_create' op needs sm_90 or newer (tensormap.replace)}}
    // expected-error @+1 {{failed to legalize operation 'ttng.tensormap_create'}}
    ttng.tensormap_create %s, %base, [%c64, %c64], [%M, %M], [%row], [%c1, %c1] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    tt.return
  }
}
