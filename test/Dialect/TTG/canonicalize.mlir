// RUN: tessera-opt %s -split-input-file -canonicalize | FileCheck %s

// ttg.convert_layout folds: to its source when the layouts agree, a
// conversion of a conversion converts the original value directly, and a
// splat constant becomes the constant in the new layout.

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func @convert_layout
// CHECK-SAME: (%[[X:.*]]: tensor<128xf32, #blocked>)
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[X]] : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked1>
// CHECK-NEXT: tt.return %[[X]], %[[C]], %[[X]]
tt.func @convert_layout(%x: tensor<128xf32, #blocked>)
    -> (tensor<128xf32, #blocked>, tensor<128xf32, #blocked2>, tensor<128xf32, #blocked>) {
  %same = ttg.convert_layout %x : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked>
  %a = ttg.convert_layout %same : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked1>
  %b = ttg.convert_layout %a : tensor<128xf32, #blocked1> -> tensor<128xf32, #blocked2>
  %back = ttg.convert_layout %a : tensor<128xf32, #blocked1> -> tensor<128xf32, #blocked>
  tt.return %same, %b, %back : tensor<128xf32, #blocked>, tensor<128xf32, #blocked2>, tensor<128xf32, #blocked>
}

// -----

// A splat constant converts to the same constant in the new layout; a constant
// that is not a splat keeps its conversion.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[ONE:[a-z0-9]+]] = #ttg.blocked<{sizePerThread = [1]
// CHECK-DAG: #[[FOUR:[a-z0-9]+]] = #ttg.blocked<{sizePerThread = [4]
// CHECK-LABEL: tt.func @convert_constant
// CHECK-DAG: %[[S:.*]] = arith.constant dense<2.500000e+00> : tensor<128xf32, #[[FOUR]]>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #[[ONE]]>
// CHECK: %[[C:.*]] = ttg.convert_layout %[[R]] : tensor<4xi32, #[[ONE]]> -> tensor<4xi32, #[[FOUR]]>
// CHECK: tt.return %[[S]], %[[C]]
tt.func @convert_constant() -> (tensor<128xf32, #blocked1>, tensor<4xi32, #blocked1>) {
  %s = arith.constant dense<2.5> : tensor<128xf32, #blocked>
  %r = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #blocked>
  %a = ttg.convert_layout %s : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked1>
  %b = ttg.convert_layout %r : tensor<4xi32, #blocked> -> tensor<4xi32, #blocked1>
  tt.return %a, %b : tensor<128xf32, #blocked1>, tensor<4xi32, #blocked1>
}

// -----

// Memory effects: an unused allocation or load goes away; copies, stores,
// frees and waits stay.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// CHECK-LABEL: tt.func @effects
// CHECK-NOT: ttg.local_load
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<128xf32, #shared, #smem, mutable>
// CHECK-NEXT: ttg.async_copy_global_to_local %arg0, %[[BUF]]
// CHECK-NEXT: ttg.async_wait {num = 0 : i32}
// CHECK-NEXT: ttg.local_store %arg1, %[[BUF]]
// CHECK-NEXT: ttg.local_dealloc %[[BUF]]
// CHECK-NEXT: tt.return
tt.func @effects(%p: tensor<128x!tt.ptr<f32>, #blocked>, %t: tensor<128xf32, #blocked>) {
  %unused = ttg.local_alloc %t : (tensor<128xf32, #blocked>) -> !ttg.memdesc<128xf32, #shared, #smem>
  %buf = ttg.local_alloc : () -> !ttg.memdesc<128xf32, #shared, #smem, mutable>
  %tok = ttg.async_copy_global_to_local %p, %buf : tensor<128x!tt.ptr<f32>, #blocked> -> <128xf32, #shared, #smem, mutable>
  %w = ttg.async_wait {num = 0 : i32}
  %v = ttg.local_load %buf : !ttg.memdesc<128xf32, #shared, #smem, mutable> -> tensor<128xf32, #blocked>
  ttg.local_store %t, %buf : tensor<128xf32, #blocked> -> !ttg.memdesc<128xf32, #shared, #smem, mutable>
  ttg.local_dealloc %buf : !ttg.memdesc<128xf32, #shared, #smem, mutable>
  tt.return
}
