// RUN: tessera-opt %s -split-input-file -verify-diagnostics --prof-lower-records="max-shared=232448" | FileCheck %s

// The buffer goes after the shared memory the kernel uses (aligned to 16),
// 16 KiB at most: 4 warps, header 32 + counts 16 padded to 32 (rings on
// 32-byte sectors), then as many records as fit in multiples of 4: 510 fit,
// 508 kept, 64 + 4 * 508 * 8 = 16320 bytes. Scope ids follow
// first appearance; the table names function and line. The callee's records
// use the same rings; only the kernel sets them up and copies them out.
// CHECK: module attributes {prof.bytes_per_program = 16448 : i32, prof.metric = "cycle", prof.records_per_warp = 512 : i32
// CHECK-NOT: prof.ring_never_wraps
// CHECK-SAME: prof.scopes = "[{\22function\22:\22callee\22,\22name\22:\22inner\22},{\22function\22:\22k\22,\22name\22:\22outer\22}]"
// CHECK-SAME: prof.smem_offset = 1024 : i32
// CHECK-SAME: ttg.shared = 17472 : i32
module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 1016 : i32} {
  // CHECK-LABEL: tt.func private @callee
  // CHECK-NOT: prof.init
  // CHECK: prof.store {scope_id = 0 : i32}
  // CHECK-NEXT: prof.store {isEnd, scope_id = 0 : i32}
  // CHECK-NOT: prof.finalize
  // CHECK: tt.return
  tt.func private @callee() attributes {noinline = true} {
    prof.record start "inner" loc(unknown)
    prof.record end "inner" loc(unknown)
    tt.return
  }
  tt.func private @quiet() attributes {noinline = true} {
    tt.return
  }
  // The kernel keeps its counts in registers: they go to shared memory
  // around a call of a function that records, not around other calls.
  // (The callee's records run in a loop of unknown trip count: no bound, so
  // the rings take what is free up to 16 KiB.)
  // CHECK-LABEL: tt.func public @k
  // CHECK-NEXT: prof.init
  // CHECK: prof.store {scope_id = 1 : i32}
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: prof.count_to_shared
  // CHECK-NEXT: tt.call @callee
  // CHECK-NEXT: prof.count_from_shared
  // CHECK: tt.call @quiet
  // CHECK-NEXT: prof.store {isEnd, scope_id = 1 : i32}
  // CHECK-NEXT: prof.finalize
  // CHECK-NEXT: tt.return
  tt.func public @k(%c: i1, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    prof.record start "outer" loc(unknown)
    scf.for %i = %c0 to %n step %c1 : i32 {
      tt.call @callee() : () -> ()
    }
    tt.call @quiet() : () -> ()
    prof.record end "outer" loc(unknown)
    tt.return
  }
}

// -----

// Nearly full shared memory: what is left (2448 bytes) holds 74 records per
// warp, 64 kept (a power of two: a record's slot is one `and`).
// CHECK: module attributes {prof.bytes_per_program = 2112 : i32
// CHECK-SAME: prof.records_per_warp = 64 : i32
// CHECK-SAME: prof.smem_offset = 230000 : i32
// CHECK-SAME: ttg.shared = 232112 : i32
module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 230000 : i32} {
  tt.func public @nearly_full(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      prof.record start "a"
      prof.record end "a"
    }
    tt.return
  }
}

// -----

// A bound on the records a warp writes sizes the rings: 1 + max(2 + 2 from
// the callee, 0) + 4 trips x 2 + 1 = 14 records, rounded up to 16 (whole
// 32-byte sectors): 64 + 4 * 16 * 8 = 576 bytes. The rings never wrap.
// CHECK: module attributes {prof.bytes_per_program = 576 : i32
// CHECK-SAME: prof.records_per_warp = 16 : i32
// CHECK-SAME: prof.ring_never_wraps
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func private @two() attributes {noinline = true} {
    prof.record start "c"
    prof.record end "c"
    tt.return
  }
  tt.func public @bounded(%c: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c7 = arith.constant 7 : i32
    prof.record start "a"
    scf.if %c {
      prof.record start "b"
      prof.record end "b"
      tt.call @two() : () -> ()
    }
    scf.for %i = %c0 to %c7 step %c2 : i32 {
      prof.record start "l"
      prof.record end "l"
    }
    prof.record end "a"
    tt.return
  }
}

// -----

// No bound through a recursion: the default 16 KiB of rings (512 records a
// warp), which may wrap.
// CHECK: module attributes {prof.bytes_per_program = 16448 : i32
// CHECK-SAME: prof.records_per_warp = 512 : i32
// CHECK-NOT: prof.ring_never_wraps
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func private @rec(%c: i1) attributes {noinline = true} {
    prof.record start "r"
    scf.if %c {
      tt.call @rec(%c) : (i1) -> ()
    }
    prof.record end "r"
    tt.return
  }
  tt.func public @recursive(%c: i1) {
    tt.call @rec(%c) : (i1) -> ()
    tt.return
  }
}

// -----

// No bound in a while loop either.
// CHECK: module attributes {prof.bytes_per_program = 16448 : i32
// CHECK-SAME: prof.records_per_warp = 512 : i32
// CHECK-NOT: prof.ring_never_wraps
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @spins(%c: i1) {
    scf.while : () -> () {
      scf.condition(%c)
    } do {
      prof.record start "w"
      prof.record end "w"
      scf.yield
    }
    tt.return
  }
}

// -----

// A module without records is left alone.
// CHECK: module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 64 : i32} {
// CHECK-NEXT: tt.func public @plain
// CHECK-NEXT: tt.return
module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 64 : i32} {
  tt.func public @plain() {
    tt.return
  }
}

// -----

// Early returns: a copy-out before each.
// CHECK-LABEL: @two_returns
// CHECK: prof.finalize
// CHECK-NEXT: tt.return
// CHECK: prof.finalize
// CHECK-NEXT: tt.return
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @two_returns(%c: i1) {
    cf.cond_br %c, ^a, ^b
  ^a:
    prof.record start "x"
    prof.record end "x"
    tt.return
  ^b:
    tt.return
  }
}

// -----

module attributes {"ttg.num-warps" = 8 : i32, ttg.shared = 232400 : i32} {
  tt.func public @full() {
    // expected-error @+1 {{profiling scopes need at least 128 bytes of shared memory for 8 warps, but the kernel uses 232400 of the 232448 bytes a program may have; use fewer stages or smaller blocks, or profile without scopes (mode="kernels")}}
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}

// -----

// expected-error @+1 {{a profile buffer of 100000 bytes does not fit: the kernel uses 200000 of the 232448 bytes of shared memory a program may have}}
module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 200000 : i32, prof.buffer_bytes = 100000 : i32} {
  tt.func public @too_big() {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}

// -----

// expected-error @+1 {{unknown profiling metric 'instructions' (cycle or time)}}
module attributes {"ttg.num-warps" = 4 : i32, prof.metric = "instructions"} {
  tt.func public @bad_metric() {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}

// -----

// The scopes are checked first.
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @unmatched() {
    // expected-error @+1 {{ends scope 'a', which is not open here}}
    prof.record end "a"
    tt.return
  }
}
