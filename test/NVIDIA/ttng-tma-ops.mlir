// RUN: tessera-opt %s | tessera-opt | FileCheck %s

// The mbarrier and TMA operations of ttng print and parse back unchanged.

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: @barriers
  tt.func @barriers(%bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %phase: i32, %p: i1) {
    // CHECK: ttng.init_barrier %{{.*}}, 1 : !ttg.memdesc<1xi64, #{{.*}}, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.barrier_expect %{{.*}}, 8192, %{{.*}} : !ttg.memdesc<1xi64
    ttng.barrier_expect %bar, 8192, %p : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.arrive_barrier %{{.*}}, 1 : !ttg.memdesc<1xi64
    ttng.arrive_barrier %bar, 1 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.arrive_barrier %{{.*}}, 2, %{{.*}} : !ttg.memdesc<1xi64
    ttng.arrive_barrier %bar, 2, %p : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.wait_barrier %{{.*}}, %{{.*}} : !ttg.memdesc<1xi64
    ttng.wait_barrier %bar, %phase : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.inval_barrier %{{.*}} : !ttg.memdesc<1xi64
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    tt.return
  }

  // CHECK-LABEL: @copies
  tt.func @copies(%desc: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %y: i32,
                  %buf: !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>,
                  %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %p: i1) {
    // CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %{{.*}}, %{{.*}} : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, {{.*}}> -> !ttg.memdesc<64x64xf16, #{{.*}}, #smem, mutable>
    ttng.async_tma_copy_global_to_local %desc[%x, %y] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
    // CHECK: ttng.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}} : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16
    ttng.async_tma_copy_local_to_global %desc[%x, %y] %buf : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
    // CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // CHECK-LABEL: @device_maps
  tt.func @device_maps(%scratch: !tt.ptr<i8>, %base: !tt.ptr<f16>, %M: i32, %K: i32, %row: i64) {
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    // CHECK: ttng.tensormap_create %{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}], [%{{.*}}, %{{.*}}] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    ttng.tensormap_create %scratch, %base, [%c64, %c64], [%K, %M], [%row], [%c1, %c1] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    // CHECK: ttng.tensormap_fenceproxy_acquire %{{.*}} : !tt.ptr<i8>
    ttng.tensormap_fenceproxy_acquire %scratch : !tt.ptr<i8>
    // CHECK: ttng.reinterpret_tensor_descriptor %{{.*}} : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16>>
    %d = ttng.reinterpret_tensor_descriptor %scratch : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16>>
    tt.return
  }
}
