// RUN: tessera-opt %s -split-input-file -test-print-effects -verify-diagnostics -o /dev/null

// A load from one argument, a masked store through pointer arithmetic to
// another; an argument nothing touches; an integer argument is not listed.
// expected-remark @below {{effects: %arg0 = read, %arg1 = written, %arg2 = untouched}}
tt.func public @copy(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %z: !tt.ptr<f32>, %n: i32) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  // expected-remark @below {{%arg0 of @copy read by load}}
  %v = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  // expected-remark @below {{%arg1 of @copy written by store}}
  tt.store %yp, %v, %m : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// A store through a select of two arguments writes both; an argument read
// and written; an atomic reads and writes.
// expected-remark @below {{effects: %arg0 = written, %arg1 = written, %arg2 = read-write, %arg3 = read-write}}
tt.func public @select_inout_atomic(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>, %d: !tt.ptr<f32>, %f: i1) {
  %p = arith.select %f, %a, %b : !tt.ptr<f32>
  %one = arith.constant 1.0 : f32
  // expected-remark @below {{%arg0 of @select_inout_atomic written by store}}
  // expected-remark @below {{%arg1 of @select_inout_atomic written by store}}
  tt.store %p, %one : !tt.ptr<f32>
  // expected-remark @below {{%arg2 of @select_inout_atomic read by load}}
  %v = tt.load %c : !tt.ptr<f32>
  // expected-remark @below {{%arg2 of @select_inout_atomic written by store}}
  tt.store %c, %v : !tt.ptr<f32>
  // expected-remark @below {{%arg3 of @select_inout_atomic read and written by atomic}}
  %o = tt.atomic_rmw fadd, relaxed, gpu, %d, %v : (!tt.ptr<f32>, f32) -> f32
  tt.return
}

// -----

// A pointer carried by a loop and advanced each iteration; a pointer chosen
// by scf.if.
// expected-remark @below {{effects: %arg0 = written, %arg1 = written, %arg2 = untouched}}
tt.func public @loop_and_if(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>, %f: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %one = arith.constant 1.0 : f32
  %e = scf.for %i = %c0 to %c8 step %c1 iter_args(%p = %a) -> (!tt.ptr<f32>) : i32 {
    // expected-remark @below {{%arg0 of @loop_and_if written by store}}
    tt.store %p, %one : !tt.ptr<f32>
    %q = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
    scf.yield %q : !tt.ptr<f32>
  }
  %s = scf.if %f -> (!tt.ptr<f32>) {
    scf.yield %b : !tt.ptr<f32>
  } else {
    scf.yield %e : !tt.ptr<f32>
  }
  // expected-remark @below {{%arg0 of @loop_and_if written by store}}
  // expected-remark @below {{%arg1 of @loop_and_if written by store}}
  tt.store %s, %one : !tt.ptr<f32>
  tt.return
}

// -----

// A noinline callee writes through its argument: each kernel's argument
// passed to it is written; a pointer returned by a callee keeps its origin.
tt.func private @fill(%p: !tt.ptr<f32>) {
  %one = arith.constant 1.0 : f32
  // expected-remark @below {{%arg1 of @first written by store}}
  // expected-remark @below {{%arg0 of @second written by store}}
  tt.store %p, %one : !tt.ptr<f32>
  tt.return
}
tt.func private @next(%p: !tt.ptr<f32>) -> !tt.ptr<f32> {
  %c1 = arith.constant 1 : i32
  %q = tt.addptr %p, %c1 : !tt.ptr<f32>, i32
  tt.return %q : !tt.ptr<f32>
}
// expected-remark @below {{effects: %arg0 = read, %arg1 = written}}
tt.func public @first(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  %n = tt.call @next(%x) : (!tt.ptr<f32>) -> !tt.ptr<f32>
  // expected-remark @below {{%arg0 of @first read by load}}
  %v = tt.load %n : !tt.ptr<f32>
  tt.call @fill(%y) : (!tt.ptr<f32>) -> ()
  tt.return
}
// expected-remark @below {{effects: %arg0 = written, %arg1 = untouched}}
tt.func public @second(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  tt.call @fill(%x) : (!tt.ptr<f32>) -> ()
  tt.return
}

// -----

// Block pointers and descriptors made on the device from an argument.
// expected-remark @below {{effects: %arg0 = read, %arg1 = written}}
tt.func public @block_and_desc(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %s: i64) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c1 = arith.constant 1 : i64
  %n64 = arith.extsi %n : i32 to i64
  %bp = tt.make_tensor_ptr %x, [%n64], [%c1], [%c0] {order = array<i32: 0>} : <tensor<16xf32>>
  %bq = tt.advance %bp, [%c16] : <tensor<16xf32>>
  // expected-remark @below {{%arg0 of @block_and_desc read by load}}
  %v = tt.load %bq : !tt.ptr<tensor<16xf32>>
  %d = tt.make_tensor_descriptor %y, [%n], [%c1] : !tt.ptr<f32>, !tt.tensordesc<tensor<16xf32>>
  // expected-remark @below {{%arg1 of @block_and_desc written by descriptor store}}
  tt.descriptor_store %d[%c0], %v : !tt.tensordesc<tensor<16xf32>>, tensor<16xf32>
  tt.return
}

// -----

// What the analysis cannot follow: a pointer made from an integer may be any
// argument (all pointer arguments written); an address turned into an integer
// and a pointer given to inline assembly are read and written.
// expected-remark @below {{effects: %arg0 = written, %arg1 = written}}
tt.func public @from_int(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %addr: i64) {
  %p = tt.int_to_ptr %addr : i64 -> !tt.ptr<f32>
  %one = arith.constant 1.0 : f32
  // expected-remark @below {{%arg0 of @from_int written by store through a pointer of unknown origin}}
  // expected-remark @below {{%arg1 of @from_int written by store through a pointer of unknown origin}}
  tt.store %p, %one : !tt.ptr<f32>
  tt.return
}
// An address turned into an integer that may reach memory again (here
// passed on to a call's argument, i.e. beyond what is followed) is read and
// written.
// expected-remark @below {{effects: %arg0 = read-write, %arg1 = untouched}}
tt.func public @to_int(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  // expected-remark @below {{%arg0 of @to_int read and written by address converted to an integer}}
  %i = tt.ptr_to_int %x : !tt.ptr<f32> -> i64
  %c16 = arith.constant 16 : i64
  %j = arith.addi %i, %c16 : i64
  %q = tt.int_to_ptr %j : i64 -> !tt.ptr<f32>
  tt.return
}

// -----

// An address turned into an integer only to test its alignment (what the
// front end emits for tensor maps made in the kernel) does not escape.
// expected-remark @below {{effects: %arg0 = untouched}}
tt.func public @alignment_check(%x: !tt.ptr<f32>) {
  %i = tt.ptr_to_int %x : !tt.ptr<f32> -> i64
  %c16 = arith.constant 16 : i64
  %c0 = arith.constant 0 : i64
  %r = arith.remsi %i, %c16 : i64
  %ok = arith.cmpi eq, %r, %c0 : i64
  scf.if %ok {
    tt.print "aligned" {hex = false, isSigned = array<i32: 0>} : %c16 : i64
  }
  tt.return
}

// -----

// Inline assembly given a pointer may write through it, even when marked pure.
// expected-remark @below {{effects: %arg0 = read-write, %arg1 = untouched}}
tt.func public @asm(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  // expected-remark @below {{%arg0 of @asm read and written by inline asm}}
  %r = tt.elementwise_inline_asm "mov.b64 $0, $1;" {constraints = "=l,l", packed_element = 1 : i32, pure = true} %x : !tt.ptr<f32> -> i64
  tt.return
}

// -----

// Global scratch is the kernel's own memory: accesses to it touch no argument.
// expected-remark @below {{effects: %arg0 = read, %arg1 = untouched}}
tt.func public @scratch(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
  %s = ttg.global_scratch_alloc {alignment = 16 : i32, nbytes = 64 : i32} : !tt.ptr<i8>
  %f = tt.bitcast %s : !tt.ptr<i8> -> !tt.ptr<f32>
  // expected-remark @below {{%arg0 of @scratch read by load}}
  %v = tt.load %x : !tt.ptr<f32>
  tt.store %f, %v : !tt.ptr<f32>
  tt.return
}
