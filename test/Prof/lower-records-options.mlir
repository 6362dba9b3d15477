// RUN: tessera-opt %s --prof-lower-records="max-shared=232448 metric=time buffer-bytes=4096" | FileCheck %s
// RUN: tessera-opt %s --prof-lower-records | FileCheck %s --check-prefix=DEFAULT

// The pass's options win over the module's attributes: 4096 bytes hold a
// 64-byte header and counts and 3968 bytes of records (4 warps x 124 x 8
// bytes: 126 fit, a multiple of 4 is kept).
// CHECK: module attributes {prof.buffer_bytes = 2048 : i32, prof.bytes_per_program = 4032 : i32, prof.metric = "time", prof.records_per_warp = 124 : i32
// Without options: the module's buffer_bytes (2048: 60 records) and
// metric; max-shared defaults to 48 KiB.
// DEFAULT: module attributes {prof.buffer_bytes = 2048 : i32, prof.bytes_per_program = 1984 : i32, prof.metric = "cycle", prof.records_per_warp = 60 : i32
module attributes {"ttg.num-warps" = 4 : i32, prof.buffer_bytes = 2048 : i32, prof.metric = "cycle"} {
  tt.func public @k() {
    prof.record start "a"
    prof.record end "a"
    tt.return
  }
}
