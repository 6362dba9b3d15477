// Both ways of naming passes verify the input before any pass runs (the
// --pass-pipeline form used to run passes on IR that does not verify).
// RUN: not tessera-opt %s -canonicalize 2>&1 | FileCheck %s
// RUN: not tessera-opt %s --pass-pipeline='builtin.module(canonicalize)' 2>&1 | FileCheck %s
// RUN: not tessera-opt %s --pass-pipeline='builtin.module()' 2>&1 | FileCheck %s
// CHECK: pass-pipeline-verifies.mlir:[[@LINE+3]]:8: error: 'tt.make_range' op expected the result to have end - start = 3 elements, but it has 4
// CHECK-NOT: tt.func
tt.func @f() {
  %r = tt.make_range {end = 3 : i32, start = 0 : i32} : tensor<4xi32>
  tt.return
}
