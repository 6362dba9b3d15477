// RUN: tessera-opt %s -split-input-file --convert-tt-to-ttg="num-warps=4 target=cuda:90" | FileCheck %s
// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90}, ttg-allocate-shared-memory, ttg-membar, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s --check-prefix=LLVM

// scf.while carries values of every kind: scalars keep their types (this
// crashed convert-tt-to-ttg), tensors take a layout and keep it around the
// loop, pointers pass through; and everything lowers to the LLVM dialect.

// CHECK-LABEL: tt.func public @scalar
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32
// CHECK: scf.condition(%{{.*}}) %{{.*}} : i32
// LLVM-LABEL: llvm.func @scalar
// LLVM-NOT: tt.
// LLVM-NOT: scf.
tt.func public @scalar(%n: i32, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%j: i32):
    %k = arith.addi %j, %c1 : i32
    scf.yield %k : i32
  }
  tt.store %p, %r : !tt.ptr<i32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func public @mixed
// CHECK: scf.while ({{.*}}) : (i32, tensor<128xf32, #[[B:blocked[0-9]*]]>, !tt.ptr<f32>) -> (i32, tensor<128xf32, #[[B]]>, !tt.ptr<f32>)
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} : i32, tensor<128xf32, #[[B]]>, !tt.ptr<f32>
// LLVM-LABEL: llvm.func @mixed
// LLVM-NOT: tt.
// LLVM-NOT: scf.
tt.func public @mixed(%n: i32, %p: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %r:3 = scf.while (%i = %c0, %acc = %z, %q = %p) : (i32, tensor<128xf32>, !tt.ptr<f32>) -> (i32, tensor<128xf32>, !tt.ptr<f32>) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i, %acc, %q : i32, tensor<128xf32>, !tt.ptr<f32>
  } do {
  ^bb0(%j: i32, %a: tensor<128xf32>, %qq: !tt.ptr<f32>):
    %k = arith.addi %j, %c1 : i32
    %b = arith.addf %a, %one : tensor<128xf32>
    %q2 = tt.addptr %qq, %c1 : !tt.ptr<f32>, i32
    scf.yield %k, %b, %q2 : i32, tensor<128xf32>, !tt.ptr<f32>
  }
  %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %base = tt.splat %r#2 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %base, %range : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ptrs, %r#1 : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// The after region receives fewer values than the loop carries.
// CHECK-LABEL: tt.func public @fewer_results
// CHECK: scf.while ({{.*}}) : (i32, tensor<64xi32, #{{.*}}>) -> i32
// LLVM-LABEL: llvm.func @fewer_results
tt.func public @fewer_results(%n: i32, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %t = arith.constant dense<3> : tensor<64xi32>
  %r = scf.while (%i = %c0, %v = %t) : (i32, tensor<64xi32>) -> i32 {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%j: i32):
    %k = arith.addi %j, %n : i32
    scf.yield %k, %t : i32, tensor<64xi32>
  }
  tt.store %p, %r : !tt.ptr<i32>
  tt.return
}
