// RUN: tessera-opt %s | FileCheck %s
// The check against dense arrays of index (checkParserHazards) leaves other
// dense arrays, strings and comments that mention one alone: array<index: 1>
// CHECK: tt.dims = array<i64: 1, 0, 0>
// CHECK-SAME: tt.note = "array<index: 1>"
!index = i64
module attributes {tt.dims = array<i64: 1, 0, 0>, tt.note = "array<index: 1>"} {
}
