// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

// Round trip of every tt operation and type in its custom form.

// CHECK-LABEL: tt.func public @program_ids
// CHECK: tt.get_program_id x : i32
// CHECK: tt.get_program_id y : i32
// CHECK: tt.get_program_id z : i32
// CHECK: tt.get_num_programs x : i32
// CHECK: tt.return %{{.*}} : i32
tt.func public @program_ids() -> i32 {
  %0 = tt.get_program_id x : i32
  %1 = tt.get_program_id y : i32
  %2 = tt.get_program_id z : i32
  %3 = tt.get_num_programs x : i32
  %4 = arith.addi %0, %1 : i32
  %5 = arith.addi %4, %2 : i32
  %6 = arith.addi %5, %3 : i32
  tt.return %6 : i32
}

// -----

// CHECK-LABEL: tt.func @shapes
// CHECK: %[[R:.*]] = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: %[[E:.*]] = tt.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
// CHECK: %[[B:.*]] = tt.broadcast %[[E]] : tensor<64x1xi32> -> tensor<64x32xi32>
// CHECK: tt.splat %{{.*}} : i32 -> tensor<64x32xi32>
// CHECK: tt.reshape %[[B]] : tensor<64x32xi32> -> tensor<2048xi32>
// CHECK: tt.reshape %[[B]] allow_reorder : tensor<64x32xi32> -> tensor<32x64xi32>
// CHECK: tt.reshape %[[B]] allow_reorder efficient_layout : tensor<64x32xi32> -> tensor<2048xi32>
// CHECK: tt.trans %[[B]] {order = array<i32: 1, 0>} : tensor<64x32xi32> -> tensor<32x64xi32>
// CHECK: %[[J:.*]] = tt.join %[[B]], %[[B]] : tensor<64x32xi32> -> tensor<64x32x2xi32>
// CHECK: %{{.*}}, %{{.*}} = tt.split %[[J]] : tensor<64x32x2xi32> -> tensor<64x32xi32>
// CHECK: tt.cat %[[R]], %[[R]] : tensor<64xi32> -> tensor<128xi32>
tt.func @shapes(%s: i32) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %e = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %b = tt.broadcast %e : tensor<64x1xi32> -> tensor<64x32xi32>
  %sp = tt.splat %s : i32 -> tensor<64x32xi32>
  %f = tt.reshape %b : tensor<64x32xi32> -> tensor<2048xi32>
  %g = tt.reshape %b allow_reorder : tensor<64x32xi32> -> tensor<32x64xi32>
  %h = tt.reshape %b allow_reorder efficient_layout : tensor<64x32xi32> -> tensor<2048xi32>
  %t = tt.trans %b {order = array<i32: 1, 0>} : tensor<64x32xi32> -> tensor<32x64xi32>
  %j = tt.join %b, %b : tensor<64x32xi32> -> tensor<64x32x2xi32>
  %lo, %hi = tt.split %j : tensor<64x32x2xi32> -> tensor<64x32xi32>
  %c = tt.cat %r, %r : tensor<64xi32> -> tensor<128xi32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @casts
// CHECK: tt.bitcast %{{.*}} : tensor<16xf32> -> tensor<16xi32>
// CHECK: tt.fp_to_fp %{{.*}}, rounding = rtne : tensor<16xf32> -> tensor<16xf8E4M3FN>
// CHECK: tt.fp_to_fp %{{.*}} : tensor<16xf8E5M2> -> tensor<16xf16>
// CHECK: tt.int_to_ptr %{{.*}} : i64 -> !tt.ptr<f32>
// CHECK: tt.ptr_to_int %{{.*}} : !tt.ptr<f32> -> i64
// CHECK: tt.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = all : tensor<16xf32>
// CHECK: tt.precise_sqrt %{{.*}} : tensor<16xf32>
// CHECK: tt.precise_divf %{{.*}}, %{{.*}} : tensor<16xf32>
// CHECK: tt.mulhiui %{{.*}}, %{{.*}} : tensor<16xi32>
tt.func @casts(%x: tensor<16xf32>, %f8: tensor<16xf8E5M2>, %i: i64, %u: tensor<16xi32>) {
  %0 = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>
  %1 = tt.fp_to_fp %x, rounding = rtne : tensor<16xf32> -> tensor<16xf8E4M3FN>
  %2 = tt.fp_to_fp %f8 : tensor<16xf8E5M2> -> tensor<16xf16>
  %3 = tt.int_to_ptr %i : i64 -> !tt.ptr<f32>
  %4 = tt.ptr_to_int %3 : !tt.ptr<f32> -> i64
  %5 = tt.clampf %x, %x, %x, propagateNan = all : tensor<16xf32>
  %6 = tt.precise_sqrt %x : tensor<16xf32>
  %7 = tt.precise_divf %x, %x : tensor<16xf32>
  %8 = tt.mulhiui %u, %u : tensor<16xi32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @external
// CHECK: tt.extern_elementwise %{{.*}} {libname = "libdevice", libpath = "/path/libdevice.bc", pure = true, symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>
// CHECK: tt.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xi32>, tensor<16xi32>, tensor<16xi32> -> tensor<16xi32>
tt.func @external(%x: tensor<16xf32>, %i: tensor<16xi32>) {
  %0 = tt.extern_elementwise %x {libname = "libdevice", libpath = "/path/libdevice.bc", pure = true, symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = tt.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;" {constraints = "=r,r,r,r", packed_element = 1 : i32, pure = true} %i, %i, %i : tensor<16xi32>, tensor<16xi32>, tensor<16xi32> -> tensor<16xi32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @memory
// CHECK-SAME: !tt.ptr<f32, 3>
// CHECK: tt.addptr %{{.*}}, %{{.*}} : !tt.ptr<f32>, i32
// CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32>>, tensor<16xi64>
// CHECK: tt.load %{{.*}} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = cg evictionPolicy = evict_last {isVolatile = true} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}} : !tt.ptr<f32>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} cacheModifier = wt : tensor<16x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %{{.*}} evictionPolicy = evict_first : !tt.ptr<f32>
// CHECK: tt.atomic_rmw fadd, relaxed, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
// CHECK: tt.atomic_rmw exch, acq_rel, sys, %{{.*}}, %{{.*}} : (!tt.ptr<f32>, f32) -> f32
// CHECK: tt.atomic_rmw add, acquire, cta, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32) -> i32
// CHECK: tt.atomic_cas release, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32, i32) -> i32
tt.func @memory(%p: !tt.ptr<f32>, %ip: !tt.ptr<i32>, %o: i32, %m: tensor<16xi1>, %s: !tt.ptr<f32, 3>) {
  %q = tt.addptr %p, %o : !tt.ptr<f32>, i32
  %ps = tt.splat %q : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %r64 = arith.extsi %r : tensor<16xi32> to tensor<16xi64>
  %ptrs = tt.addptr %ps, %r64 : tensor<16x!tt.ptr<f32>>, tensor<16xi64>
  %a = tt.load %ptrs : tensor<16x!tt.ptr<f32>>
  %b = tt.load %ptrs, %m : tensor<16x!tt.ptr<f32>>
  %c = tt.load %ptrs, %m, %a cacheModifier = cg evictionPolicy = evict_last {isVolatile = true} : tensor<16x!tt.ptr<f32>>
  %d = tt.load %p : !tt.ptr<f32>
  tt.store %ptrs, %b : tensor<16x!tt.ptr<f32>>
  tt.store %ptrs, %c, %m cacheModifier = wt : tensor<16x!tt.ptr<f32>>
  tt.store %p, %d evictionPolicy = evict_first : !tt.ptr<f32>
  %e = tt.atomic_rmw fadd, relaxed, gpu, %ptrs, %a, %m : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  %f = tt.atomic_rmw exch, acq_rel, sys, %p, %d : (!tt.ptr<f32>, f32) -> f32
  %g = tt.atomic_rmw add, acquire, cta, %ip, %o : (!tt.ptr<i32>, i32) -> i32
  %h = tt.atomic_cas release, gpu, %ip, %o, %g : (!tt.ptr<i32>, i32, i32) -> i32
  tt.return
}

// -----

// CHECK-LABEL: tt.func @block_pointers
// CHECK: %[[BP:.*]] = tt.make_tensor_ptr %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {order = array<i32: 1, 0>} : <tensor<32x64xf32>>
// CHECK: tt.load %[[BP]] {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x64xf32>>
// CHECK: tt.store %[[BP]], %{{.*}} {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<32x64xf32>>
// CHECK: tt.advance %[[BP]], [%{{.*}}, %{{.*}}] : <tensor<32x64xf32>>
tt.func @block_pointers(%x: !tt.ptr<f32>, %m: i64, %n: i64, %off: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %bp = tt.make_tensor_ptr %x, [%m, %n], [%n, %c1], [%off, %c0] {order = array<i32: 1, 0>} : <tensor<32x64xf32>>
  %t = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x64xf32>>
  tt.store %bp, %t {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<32x64xf32>>
  %next = tt.advance %bp, [%c0, %c64] : <tensor<32x64xf32>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @descriptors
// CHECK: %[[D:.*]] = tt.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] : <f16>, <tensor<64x64xf16>>
// CHECK: tt.descriptor_load %[[D]][%{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK: tt.descriptor_load %[[D]][%{{.*}}, %{{.*}}] cacheModifier = ca : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK: tt.descriptor_store %[[D]][%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
// CHECK: tt.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<1x64xf16>> -> tensor<64xf16>
tt.func @descriptors(%base: !tt.ptr<f16>, %m: i32, %n: i32, %s: i64, %d1: !tt.tensordesc<tensor<1x64xf16>>) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %d = tt.make_tensor_descriptor %base, [%m, %n], [%s, %c1] : !tt.ptr<f16>, !tt.tensordesc<tensor<64x64xf16>>
  %t = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %u = tt.descriptor_load %d[%c0, %c0] cacheModifier = ca : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tt.descriptor_store %d[%c0, %c0], %t : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  %v = tt.descriptor_load %d1[%c0, %c0] : !tt.tensordesc<tensor<1x64xf16>> -> tensor<64xf16>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @dots
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32x3 {maxNumImpreciseAcc = 32 : i32} : tensor<2x16x32xf32> * tensor<2x32x16xf32> -> tensor<2x16x16xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
tt.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>,
              %x: tensor<16x16xf32>, %ba: tensor<2x16x32xf32>, %bb: tensor<2x32x16xf32>, %bc: tensor<2x16x16xf32>,
              %f8a: tensor<16x32xf8E4M3FN>, %f8b: tensor<32x16xf8E5M2>,
              %ia: tensor<16x32xi8>, %ib: tensor<32x16xi8>, %ic: tensor<16x16xi32>) {
  %0 = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = tt.dot %x, %x, %x : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %2 = tt.dot %ba, %bb, %bc, inputPrecision = tf32x3 {maxNumImpreciseAcc = 32 : i32} : tensor<2x16x32xf32> * tensor<2x32x16xf32> -> tensor<2x16x16xf32>
  %3 = tt.dot %f8a, %f8b, %x : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  %4 = tt.dot %ia, %ib, %ic : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @reductions
// CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}> ({
// CHECK: tt.reduce.return %{{.*}} : f32
// CHECK: }) : (tensor<128xf32>) -> f32
// CHECK: "tt.reduce"(%{{.*}}, %{{.*}}) <{axis = 1 : i32}> ({
// CHECK: tt.reduce.return %{{.*}}, %{{.*}} : f32, i32
// CHECK: }) : (tensor<4x32xf32>, tensor<4x32xi32>) -> (tensor<4xf32>, tensor<4xi32>)
// CHECK: "tt.scan"(%{{.*}}) <{axis = 0 : i32, reverse = true}> ({
// CHECK: tt.scan.return %{{.*}} : f32
// CHECK: }) : (tensor<128xf32>) -> tensor<128xf32>
// CHECK: tt.histogram %{{.*}} : tensor<128xi32> -> tensor<16xi32>
// CHECK: tt.histogram %{{.*}}, %{{.*}} : tensor<128xi32> -> tensor<16xi32>
// CHECK: tt.gather %{{.*}}[%{{.*}}] {axis = 1 : i32} : (tensor<4x32xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
tt.func @reductions(%x: tensor<128xf32>, %v: tensor<4x32xf32>, %i: tensor<4x32xi32>, %h: tensor<128xi32>, %m: tensor<128xi1>, %idx: tensor<4x8xi32>) {
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<128xf32>) -> f32
  %mv:2 = "tt.reduce"(%v, %i) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %rv = arith.select %gt, %a, %b : f32
    %ri = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %rv, %ri : f32, i32
  }) : (tensor<4x32xf32>, tensor<4x32xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  %c = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    tt.scan.return %r : f32
  }) : (tensor<128xf32>) -> tensor<128xf32>
  %hist = tt.histogram %h : tensor<128xi32> -> tensor<16xi32>
  %hm = tt.histogram %h, %m : tensor<128xi32> -> tensor<16xi32>
  %g = tt.gather %v[%idx] {axis = 1 : i32} : (tensor<4x32xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @debug
// CHECK: tt.print " x: " {hex = false, isSigned = array<i32: 1, 0>} : %{{.*}}, %{{.*}} : tensor<16xi32>, f32
// CHECK: tt.print "hello" {hex = true, isSigned = array<i32>}
// CHECK: tt.assert %{{.*}}, "x must be positive" : tensor<16xi1>
tt.func @debug(%x: tensor<16xi32>, %f: f32, %ok: tensor<16xi1>) {
  tt.print " x: " {hex = false, isSigned = array<i32: 1, 0>} : %x, %f : tensor<16xi32>, f32
  tt.print "hello" {hex = true, isSigned = array<i32>}
  tt.assert %ok, "x must be positive" : tensor<16xi1>
  tt.return
}

// -----

// CHECK-LABEL: tt.func private @callee
// CHECK-SAME: attributes {noinline = true}
// CHECK-LABEL: tt.func public @caller
// CHECK: %{{.*}}:2 = tt.call @callee(%{{.*}}, %{{.*}}) : (tensor<16xf32>, f32) -> (tensor<16xf32>, i32)
// CHECK-LABEL: tt.func private @declared
tt.func private @callee(%x: tensor<16xf32>, %s: f32) -> (tensor<16xf32>, i32) attributes {noinline = true} {
  %t = tt.splat %s : f32 -> tensor<16xf32>
  %y = arith.mulf %x, %t : tensor<16xf32>
  %c = arith.constant 1 : i32
  tt.return %y, %c : tensor<16xf32>, i32
}
tt.func public @caller(%x: tensor<16xf32>, %s: f32) {
  %r:2 = tt.call @callee(%x, %s) : (tensor<16xf32>, f32) -> (tensor<16xf32>, i32)
  tt.return
}
tt.func private @declared(i32) -> i32

// -----

// Types: pointers to pointers, address spaces, block pointers as arguments.
// CHECK-LABEL: tt.func @types
// CHECK-SAME: !tt.ptr<!tt.ptr<f32>>
// CHECK-SAME: !tt.ptr<bf16, 3>
// CHECK-SAME: !tt.ptr<tensor<16x16xf16>>
// CHECK-SAME: !tt.tensordesc<tensor<8x32xi8>>
tt.func @types(%a: !tt.ptr<!tt.ptr<f32>>, %b: !tt.ptr<bf16, 3>, %c: !tt.ptr<tensor<16x16xf16>>, %d: !tt.tensordesc<tensor<8x32xi8>>) {
  tt.return
}
