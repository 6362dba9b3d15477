// RUN: not tessera-opt %s --convert-tt-to-ttg="num-warps=3" 2>&1 | FileCheck %s
// The number of warps must be a power of two.
// CHECK: error: num-warps must be a power of two, got 3
tt.func public @k() {
  tt.return
}
