// RUN: not tessera-opt %s --ttg-allocate-shared-memory -o /dev/null 2>&1 | FileCheck %s
// RUN: not tessera-opt %s --test-print-allocation -o /dev/null 2>&1 | FileCheck %s

// Recursion cannot be laid out.
// CHECK: allocation-invalid.mlir:[[@LINE+4]]:{{.*}} error: 'tt.call' op calls @f recursively: shared memory cannot be allocated for recursion
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @f(%x: i32) -> i32 attributes {noinline = true} {
    %y = tt.call @f(%x) : (i32) -> i32
    tt.return %y : i32
  }
  tt.func public @no_shared(%p: !tt.ptr<i32>) {
    tt.return
  }
}
