// RUN: tessera-opt %s -split-input-file -verify-diagnostics --convert-ttg-to-llvm

// The GPU-side ops need prof-lower-records' layout.
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @unlowered() {
    // expected-error @+2 {{'prof.store' op has no profile buffer: run prof-lower-records first}}
    // expected-error @+1 {{failed to legalize operation 'prof.store'}}
    prof.store {scope_id = 0 : i32}
    tt.return
  }
}

// -----

// prof.finalize belongs in kernels.
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", prof.smem_offset = 0 : i32, prof.records_per_warp = 4 : i32} {
  tt.func private @helper() attributes {noinline = true} {
    // expected-error @+2 {{'prof.finalize' op is not in a kernel that takes a profile buffer}}
    // expected-error @+1 {{failed to legalize operation 'prof.finalize'}}
    prof.finalize
    tt.return
  }
}

// -----

// The count ops belong in kernels that prof.init set up.
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", prof.smem_offset = 0 : i32, prof.records_per_warp = 4 : i32} {
  tt.func private @helper() attributes {noinline = true} {
    // expected-error @+2 {{'prof.count_to_shared' op is not in a kernel with profiling records}}
    // expected-error @+1 {{failed to legalize operation 'prof.count_to_shared'}}
    prof.count_to_shared
    tt.return
  }
}
