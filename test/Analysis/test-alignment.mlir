// RUN: tessera-opt %s -split-input-file -test-print-alignment -verify-diagnostics -o /dev/null

// AxisInfo (lib/Analysis/AxisInfo.cpp): contiguity, divisibility (bytes for
// pointers) and constancy per dimension, and the constant when known.

// The add kernel: 16-byte aligned arguments give 16-byte aligned, 1024-long
// contiguous pointers and a mask constant over runs of 16.
tt.func public @add(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %base = arith.muli %pid, %c1024 : i32
  // expected-remark @below {{contiguity = [1024], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1024], constant_value = <none>}}
  %b = tt.splat %base : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %b, %r : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1], constant_value = <none>}}
  %p = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %p, %m : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// -----

// Negative: without specialization attributes nothing is known about the
// arguments (divisibility 1), so neither the pointers nor the mask are aligned;
// an odd offset breaks the alignment of an aligned pointer.
tt.func public @unaligned(%x: !tt.ptr<f16>, %y: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %xs = tt.splat %x : !tt.ptr<f16> -> tensor<128x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1], constant_value = <none>}}
  %p = tt.addptr %xs, %r : tensor<128x!tt.ptr<f16>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = 1}}
  %one = arith.constant dense<1> : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [1], constancy = [1], constant_value = <none>}}
  %odd = arith.addi %r, %one : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %ys = tt.splat %y : !tt.ptr<f16> -> tensor<128x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [2], constancy = [1], constant_value = <none>}}
  %q = tt.addptr %ys, %odd : tensor<128x!tt.ptr<f16>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  // Subtracting a contiguous value is not contiguous.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %neg = arith.subi %one, %r : tensor<128xi32>
  tt.return
}

// -----

// 2-D: row offsets times a stride, plus columns. Broadcast keeps the columns'
// contiguity along dim 1 and makes dim 0 constant; the stride's divisibility
// (specialization) carries into the rows: i * stride divides by 16 although i
// alone (a contiguous range) does not.
tt.func public @tile(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [32], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 1], constant_value = <none>}}
  %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 1], constant_value = <none>}}
  %s = tt.splat %stride : i32 -> tensor<32x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1], constant_value = <none>}}
  %ro = arith.muli %r2, %s : tensor<32x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64], constant_value = <none>}}
  %rb = tt.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1], constant_value = <none>}}
  %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [32, 1], constant_value = <none>}}
  %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  // Each row starts at i * stride (a multiple of 16); along dim 0 the
  // elements are unaligned row offsets plus the column.
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1], constant_value = <none>}}
  %off = arith.addi %rb, %cb : tensor<32x64xi32>
  // expected-remark @below {{contiguity = [64, 1], divisibility = [16, 1], constancy = [1, 1], constant_value = <none>}}
  %t = tt.trans %off {order = array<i32: 1, 0>} : tensor<32x64xi32> -> tensor<64x32xi32>
  tt.return
}

// -----

// Hints (tl.multiple_of / max_contiguous / max_constancy) raise the facts of
// the op they sit on; division, remainder and shifts by powers of two.
tt.func public @hints_and_division(%n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %h = arith.addi %n, %n {tt.divisibility = dense<8> : tensor<1xi32>} : i32
  // expected-remark @below {{contiguity = [256], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [256], constant_value = 16}}
  %c16 = arith.constant dense<16> : tensor<256xi32>
  // r / 16 is constant over runs of 16 (0,0,...,1,1,...).
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %q = arith.divsi %r, %c16 : tensor<256xi32>
  // r % 16 restarts every 16.
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %m = arith.remsi %r, %c16 : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [256], constant_value = 2}}
  %c2 = arith.constant dense<2> : tensor<256xi32>
  // r << 2 is r * 4: no longer contiguous, every element divides by 4.
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %s = arith.shli %r, %c2 : tensor<256xi32>
  // r >> 2 is r / 4.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %t = arith.shrsi %r, %c2 : tensor<256xi32>
  // Negative: dividing by a non-power of two keeps only constancy.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [256], constant_value = 3}}
  %c3 = arith.constant dense<3> : tensor<256xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %u = arith.divsi %r, %c3 : tensor<256xi32>
  tt.return
}

// -----

// Loops: the induction variable divides by what its lower bound and step
// divide by; a loop-carried pointer advanced by an aligned step stays aligned
// (the fixed point joins the initial value and the yielded one).
tt.func public @loop(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %p0 = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %pend = scf.for %i = %c0 to %n step %c64 iter_args(%p = %p0) -> (tensor<64x!tt.ptr<f32>>) : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = <none>}}
    %is = tt.splat %i : i32 -> tensor<64xi32>
    // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
    %q = tt.addptr %p, %is : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %v = tt.load %q : tensor<64x!tt.ptr<f32>>
    // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = 64}}
    %step = arith.constant dense<64> : tensor<64xi32>
    // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
    %next = tt.addptr %p, %step : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// A loop without iter_args (nothing carried: the last loop of a layer norm):
// its induction variable still divides by what lb and step divide by.
tt.func public @loop_without_iter_args(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @below {{contiguity = [1024], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1024], constant_value = <none>}}
  %xs = tt.splat %x : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
  scf.for %i = %c0 to %n step %c1024 : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1024], constant_value = <none>}}
    %is = tt.splat %i : i32 -> tensor<1024xi32>
    // expected-remark @below {{contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>}}
    %cols = arith.addi %is, %r : tensor<1024xi32>
    // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1], constant_value = <none>}}
    %p = tt.addptr %xs, %cols : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %v = tt.load %p : tensor<1024x!tt.ptr<f16>>
  }
  tt.return
}

// -----

// Negative: a loop that advances a pointer by an odd step loses the
// alignment the initial value had.
tt.func public @loop_unaligned(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %pend = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x) -> (!tt.ptr<f32>) : i32 {
    // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
    %next = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
    scf.yield %next : !tt.ptr<f32>
  }
  tt.return
}

// -----

// Calls: a private function's arguments get the join of its call sites. Two
// call sites with 16- and 8-byte aligned pointers: the callee sees 8.
tt.func private @callee(%p: !tt.ptr<f16>) {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [128], constant_value = <none>}}
  %ps = tt.splat %p : !tt.ptr<f16> -> tensor<128x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [8], constancy = [1], constant_value = <none>}}
  %q = tt.addptr %ps, %r : tensor<128x!tt.ptr<f16>>, tensor<128xi32>
  tt.return
}
tt.func public @caller(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = 4}}
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %y = tt.addptr %x, %c4 : !tt.ptr<f16>, i32
  tt.call @callee(%x) : (!tt.ptr<f16>) -> ()
  tt.call @callee(%y) : (!tt.ptr<f16>) -> ()
  tt.return
}

// -----

// Agreeing call sites keep their facts in the callee (a noinline helper
// vectorizes like inlined code); results flow back to the caller.
tt.func private @offset(%p: !tt.ptr<f32>, %k: i32) -> !tt.ptr<f32> {
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %q = tt.addptr %p, %k : !tt.ptr<f32>, i32
  tt.return %q : !tt.ptr<f32>
}
tt.func public @agree(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 32 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = tt.call @offset(%x, %c64) : (!tt.ptr<f32>, i32) -> !tt.ptr<f32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %b = tt.call @offset(%y, %c64) : (!tt.ptr<f32>, i32) -> !tt.ptr<f32>
  tt.return
}

// -----

// A function nothing calls is never reached (no facts to print), and a
// recursive function reaches a fixed point: its argument joins the kernel's
// (16) and its own recursive call's (n * 2: 32).
tt.func private @unused(%p: !tt.ptr<f32>) {
  // expected-remark @below {{<uninitialized>}}
  %c = arith.constant 1 : i32
  tt.return
}
tt.func private @rec(%n: i32) -> i32 {
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = 2}}
  %c2 = arith.constant 2 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  %m = arith.muli %n, %c2 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %done = arith.cmpi eq, %n, %c0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %r = scf.if %done -> i32 {
    scf.yield %n : i32
  } else {
    // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
    %x = tt.call @rec(%m) : (i32) -> i32
    scf.yield %x : i32
  }
  tt.return %r : i32
}
tt.func public @root(%n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %r = tt.call @rec(%n) : (i32) -> i32
  tt.return
}

// -----

// A pointer to pointers steps over 8-byte addresses.
tt.func public @pointers_to_pointers(%pp: !tt.ptr<!tt.ptr<f32>> {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %q = tt.addptr %pp, %c1 : !tt.ptr<!tt.ptr<f32>>, i32
  tt.return
}

// -----

// Which comparisons of a contiguous run with an aligned bound are constant
// over aligned blocks: x < n and x >= n (and n > x, n <= x) are; x <= n and
// x > n are not (they change inside the block that starts at n).
tt.func public @predicates(%n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %lt = arith.cmpi slt, %r, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %ge = arith.cmpi uge, %r, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %gt_swapped = arith.cmpi sgt, %ns, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %le = arith.cmpi sle, %r, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %gt = arith.cmpi sgt, %r, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %eq = arith.cmpi eq, %r, %ns : tensor<64xi32>
  tt.return
}

// -----

// Contiguity counts elements: reinterpreting a pointer as one to a smaller
// element, or as an integer, keeps the byte divisibility but not contiguity.
tt.func public @casts(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [128], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [128], constant_value = <none>}}
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %p = tt.addptr %xs, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %h = tt.bitcast %p : tensor<128x!tt.ptr<f32>> -> tensor<128x!tt.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %i = tt.bitcast %p : tensor<128x!tt.ptr<f32>> -> tensor<128x!tt.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = tt.ptr_to_int %p : tensor<128x!tt.ptr<f32>> -> tensor<128xi64>
  tt.return
}

// -----

// Remainders by a run-time value divisible by 16 (the matmul idiom
// (pid * BN + arange(0, BN)) % N): runs of 16 survive when the dividend is
// known to be >= 0; a signed remainder of a value that may be negative keeps
// nothing ((-4..-1) % 4 is 0, -3, -2, -1), and neither does a power-of-two one.
tt.func public @remainder_runs(%n: i32 {tt.divisibility = 16 : i32}, %k: i32) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  %base = arith.muli %pid, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = <none>}}
  %bs = tt.splat %base : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %x = arith.addi %bs, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %m = arith.remsi %x, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %mu = arith.remui %x, %ns : tensor<64xi32>
  // Negative: x - k may be negative.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %ks = tt.splat %k : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1], constancy = [1], constant_value = <none>}}
  %y = arith.subi %x, %ks : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %my = arith.remsi %y, %ns : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [64], constant_value = 4}}
  %c4 = arith.constant dense<4> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %my4 = arith.remsi %y, %c4 : tensor<64xi32>
  // Negative: a signed quotient truncates toward zero ((-8..-5) / 4 is -2, -1, -1, -1).
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %dy4 = arith.divsi %y, %c4 : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [4], constant_value = <none>}}
  %dx4 = arith.divsi %x, %c4 : tensor<64xi32>
  // Negative: a divisor of unknown divisibility keeps no run.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %mk = arith.remsi %x, %ks : tensor<64xi32>
  tt.return
}

// -----

// The grouped tile ordering: pid_m = (pid / (GM * cdiv(N, 64))) * GM + ...,
// and (pid_m * 64 + arange) % M. With %n marked tt.non_negative (the launcher
// saw n >= 0) the quotient, and so the dividend, is >= 0 and the runs of 16
// survive the remainder; with %n unmarked (the negative case, @grouped_unknown)
// n may be negative, the quotient too, and nothing survives.
tt.func public @grouped_nonneg(%m: i32 {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32, tt.non_negative = unit}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 63}}
  %c63 = arith.constant 63 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = 8}}
  %c8 = arith.constant 8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %t = arith.addi %n, %c63 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %npn = arith.divsi %t, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %nig = arith.muli %npn, %c8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %gid = arith.divsi %pid, %nig : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %fpm = arith.muli %gid, %c8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [512], constancy = [1], constant_value = <none>}}
  %row = arith.muli %fpm, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [512], constancy = [64], constant_value = <none>}}
  %rs = tt.splat %row : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [512], constancy = [1], constant_value = <none>}}
  %x = arith.addi %rs, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %ms = tt.splat %m : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %offs = arith.remsi %x, %ms : tensor<64xi32>
  tt.return
}

tt.func public @grouped_unknown(%m: i32 {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = 8}}
  %c8 = arith.constant 8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant_value = <none>}}
  %nig = arith.muli %n, %c8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %gid = arith.divsi %pid, %nig : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %fpm = arith.muli %gid, %c8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [64], constant_value = <none>}}
  %rs = tt.splat %fpm : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [8], constancy = [1], constant_value = <none>}}
  %x = arith.addi %rs, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %ms = tt.splat %m : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %offs = arith.remsi %x, %ms : tensor<64xi32>
  tt.return
}

// -----

// tl.assume(pid_n >= 0) (and 0 < x, x > -1) at the top of the kernel makes
// pid_n non-negative for the remainder. Negative cases: an assume inside an
// scf.if may not run; x >= -1 allows -1.
tt.func public @assumed(%pn: i32, %q: i32, %w: i32, %m: i32 {tt.divisibility = 16 : i32}, %flag: i1) {
  // expected-remark @below {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %cm1 = arith.constant -1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %ge = arith.cmpi sge, %pn, %c0 : i32
  llvm.intr.assume %ge : i1
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %lt = arith.cmpi slt, %cm1, %q : i32
  llvm.intr.assume %lt : i1
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %weak = arith.cmpi sge, %w, %cm1 : i32
  llvm.intr.assume %weak : i1
  scf.if %flag {
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
    %c = arith.cmpi sge, %m, %c0 : i32
    llvm.intr.assume %c : i1
  }
  // expected-remark @below {{contiguity = [64], divisibility = [1073741824], constancy = [1], constant_value = <none>}}
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [64], constant_value = <none>}}
  %ms = tt.splat %m : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  %bp = arith.muli %pn, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = <none>}}
  %sp = tt.splat %bp : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %xp = arith.addi %sp, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %okp = arith.remsi %xp, %ms : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  %bq = arith.muli %q, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = <none>}}
  %sq = tt.splat %bq : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %xq = arith.addi %sq, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %okq = arith.remsi %xq, %ms : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = <none>}}
  %bw = arith.muli %w, %c64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [64], constant_value = <none>}}
  %sw = tt.splat %bw : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %xw = arith.addi %sw, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %badw = arith.remsi %xw, %ms : tensor<64xi32>
  // The divisor %m is assumed >= 0 only inside the scf.if: the dividend
  // m + arange keeps no run through % m.
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %xm = arith.addi %ms, %r : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %badm = arith.remsi %xm, %ms : tensor<64xi32>
  tt.return
}
