// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the ttng dialect
// (third_party/nvidia/lib/Dialect/TTNG/IR/Ops.cpp).

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32>) {
  // The custom form infers c's type from the result; the generic one need not.
  // expected-error @+1 {{'ttng.warp_group_dot' op expected the result to have the accumulator type 'tensor<64x64xf32>', but it is 'tensor<64x64xf16>'}}
  %d = "ttng.warp_group_dot"(%a, %b, %c) : (!ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem>, tensor<64x64xf32>) -> tensor<64x64xf16>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected b in shared memory (a !ttg.memdesc): wgmma reads B only from shared memory, but b is 'tensor<32x64xf16>'}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * tensor<32x64xf16> -> tensor<64x64xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<2x64x32xf16, #shared, #smem>, %b: !ttg.memdesc<2x32x64xf16, #shared, #smem>, %c: tensor<2x64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected a, b and c of rank 2, but they have ranks 3, 3 and 3}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<2x64x32xf16, #shared, #smem> * !ttg.memdesc<2x32x64xf16, #shared, #smem> -> tensor<2x64x64xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<16x64xf16, #shared, #smem>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected the K dimensions to match, but a is [64, 32] (K = 32) and b is [16, 64] (K = 16)}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<16x64xf16, #shared, #smem> -> tensor<64x64xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x128xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected the accumulator shape to be [M, N] = [64, 64], but it is [64, 128]}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x128xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xbf16, #shared, #smem>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected a and b of the same element type, but got 'f16' and 'bf16'}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xbf16, #shared, #smem> -> tensor<64x64xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xi8, #shared, #smem>, %b: !ttg.memdesc<32x64xi8, #shared, #smem>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected an i32 accumulator for integer operands, but it is 'f32'}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xi8, #shared, #smem> * !ttg.memdesc<32x64xi8, #shared, #smem> -> tensor<64x64xf32>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xbf16>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected an f32 or f16 accumulator for floating-point operands, but it is 'bf16'}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xbf16>
  tt.return
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected the accumulator to have a #ttg.nvidia_mma version 3 layout, but it has #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>}}
  %d = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: tensor<64x32xf16, #blocked>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected a in registers to have a #ttg.dot_op layout with opIdx = 0 and the accumulator's layout as parent, but it has #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}}
  %d = ttng.warp_group_dot %a, %b, %c : tensor<64x32xf16, #blocked> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot' op expected maxNumImpreciseAcc >= 0, but it is -1}}
  %d = ttng.warp_group_dot %a, %b, %c {maxNumImpreciseAcc = -1 : i32} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32>
  tt.return
}

// -----

tt.func @f() {
  // The custom form cannot even spell an empty operand list.
  // expected-error @+1 {{'ttng.warp_group_dot_wait' op expected at least one operand (the dot results and buffers the wait orders), but it has none}}
  "ttng.warp_group_dot_wait"() {pendings = 0 : i32} : () -> ()
  tt.return
}

// -----

tt.func @f(%c: tensor<64x64xf32>) {
  // expected-error @+1 {{'ttng.warp_group_dot_wait' op expected pendings >= 0 (dots left in flight), but it is -1}}
  %r = ttng.warp_group_dot_wait %c {pendings = -1 : i32} : tensor<64x64xf32>
  tt.return
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%bar: !ttg.memdesc<2xi64, #bar, #smem, mutable>) {
  // expected-error @+1 {{'ttng.init_barrier' op expected the operand to be an mbarrier, a 1xi64 buffer in shared memory, but it is '!ttg.memdesc<2xi64}}
  ttng.init_barrier %bar, 1 : !ttg.memdesc<2xi64, #bar, #smem, mutable>
  tt.return
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%bar: !ttg.memdesc<1xi64, #bar, #smem>) {
  // expected-error @+1 {{'ttng.arrive_barrier' op expected the operand to be mutable (the barrier's state changes)}}
  ttng.arrive_barrier %bar, 1 : !ttg.memdesc<1xi64, #bar, #smem>
  tt.return
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>) {
  // expected-error @+1 {{'ttng.init_barrier' op expected an arrival count in 1..1048575, but it is 0}}
  ttng.init_barrier %bar, 0 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
  tt.return
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %p: i1) {
  // expected-error @+1 {{'ttng.barrier_expect' op expected a byte count in 0..1048575, but it is 2097152}}
  ttng.barrier_expect %bar, 2097152, %p : !ttg.memdesc<1xi64, #bar, #smem, mutable>
  tt.return
}

// -----

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %buf: !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %p: i1) {
  // expected-error @+1 {{'ttng.async_tma_copy_global_to_local' op expected 2 coordinates (one per dimension of the block [64, 64]), but it has 1}}
  ttng.async_tma_copy_global_to_local %desc[%x] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
  tt.return
}

// -----

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %buf: !ttg.memdesc<64x32xf16, #nvmma, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %p: i1) {
  // expected-error @+1 {{'ttng.async_tma_copy_global_to_local' op expected the destination to hold the block 'tensor<64x64xf16>', but it is '!ttg.memdesc<64x32xf16}}
  ttng.async_tma_copy_global_to_local %desc[%x, %x] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x32xf16, #nvmma, #smem, mutable>
  tt.return
}

// -----

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %buf: !ttg.memdesc<64x64xf16, #nvmma, #smem>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %p: i1) {
  // expected-error @+1 {{'ttng.async_tma_copy_global_to_local' op expected a mutable destination buffer}}
  ttng.async_tma_copy_global_to_local %desc[%x, %x] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nvmma, #smem>
  tt.return
}

// -----

#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<64x64xf16>>, %x: i32, %buf: !ttg.memdesc<64x64xf16, #sw, #smem>) {
  // expected-error @+1 {{'ttng.async_tma_copy_local_to_global' op expected the source in the #ttg.nvmma_shared layout (the swizzle TMA writes and reads), but its layout is}}
  ttng.async_tma_copy_local_to_global %desc[%x, %x] %buf : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #sw, #smem>
  tt.return
}

// -----

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<64x4xf16>>, %x: i32, %buf: !ttg.memdesc<64x4xf16, #nvmma, #smem>) {
  // expected-error @+1 {{'ttng.async_tma_copy_local_to_global' op expected the block's innermost extent to be a multiple of 16 bytes (TMA's granule), but it is 8 bytes (4 x 16-bit elements)}}
  ttng.async_tma_copy_local_to_global %desc[%x, %x] %buf : !tt.tensordesc<tensor<64x4xf16>>, !ttg.memdesc<64x4xf16, #nvmma, #smem>
  tt.return
}

// -----

#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @f(%desc: !tt.tensordesc<tensor<512x64xf16>>, %x: i32, %buf: !ttg.memdesc<512x64xf16, #nvmma, #smem>) {
  // expected-error @+1 {{'ttng.async_tma_copy_local_to_global' op expected every block dimension to be at most 256 (TMA's box limit), but dimension 0 is 512}}
  ttng.async_tma_copy_local_to_global %desc[%x, %x] %buf : !tt.tensordesc<tensor<512x64xf16>>, !ttg.memdesc<512x64xf16, #nvmma, #smem>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'ttng.async_tma_store_wait' op expected pendings >= 0 (stores left reading shared memory), but it is -1}}
  ttng.async_tma_store_wait {pendings = -1 : i32}
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected 2 box dimensions (one per global dimension), but it has 1}}
  ttng.tensormap_create %s, %b, [%c], [%c, %c], [%r], [%c, %c] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i64, i32, i32) -> ()
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected 1 global strides (one per global dimension but the innermost), but it has 0}}
  ttng.tensormap_create %s, %b, [%c, %c], [%c, %c], [], [%c, %c] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i32, i32) -> ()
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected 2 element strides (one per global dimension), but it has 1}}
  ttng.tensormap_create %s, %b, [%c, %c], [%c, %c], [%r], [%c] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32) -> ()
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected elem_type in 0..15 (its tensormap.replace encoding), but it is 16}}
  ttng.tensormap_create %s, %b, [%c, %c], [%c, %c], [%r], [%c, %c] {elem_type = 16 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected every box dimension in 1..256 (TMA's box limit), but one is 512}}
  ttng.tensormap_create %s, %b, [%big, %c], [%c, %c], [%r], [%c, %c] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
  tt.return
}

// -----

tt.func @f(%s: !tt.ptr<i8>, %b: !tt.ptr<f16>, %r: i64) {
  %c = arith.constant 64 : i32
  %big = arith.constant 512 : i32
  // expected-error @+1 {{'ttng.tensormap_create' op expected 1 to 5 global dimensions (a tensor map's rank), but it has 0}}
  ttng.tensormap_create %s, %b, [], [], [], [] {elem_type = 1 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>) -> ()
  tt.return
}
