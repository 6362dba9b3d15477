// RUN: not tessera-opt %s -split-input-file --ttg-allocate-global-scratch -o /dev/null 2>&1 | FileCheck %s

// Only kernels receive the scratch base: an alloc in a noinline function is
// rejected where it is.
// CHECK: global-scratch-invalid.mlir:[[@LINE+3]]:{{.*}} error: 'ttg.global_scratch_alloc' op global scratch is only supported in kernels (public functions that are not noinline); inline the function that allocates it
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @helper() attributes {noinline = true} {
    %a = ttg.global_scratch_alloc {alignment = 16 : i32, nbytes = 64 : i32} : !tt.ptr<i8>
    tt.return
  }
  tt.func public @kernel() {
    tt.call @helper() : () -> ()
    tt.return
  }
}
