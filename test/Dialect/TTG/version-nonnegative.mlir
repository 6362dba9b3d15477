// RUN: tessera-opt %s -split-input-file --ttg-version-nonnegative | FileCheck %s
// RUN: tessera-opt %s -split-input-file --ttg-version-nonnegative --ttg-version-nonnegative | FileCheck %s --check-prefix=TWICE

// The tutorial's wrapped column index: pid_n is a quotient by a minimum of a
// difference, so its sign is unknown. The tail after pid_n * 64 runs twice:
// for pid_n * 64 >= 0 with max(pid_n * 64, 0) in its place (AxisInfo can
// then keep the run of 64 through the remainder), else the original code.
// CHECK-LABEL: tt.func @wrapped_column
// CHECK: %[[BASE:.*]] = arith.muli %{{.*}}, %c64_i32 : i32
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[BASE]], %{{.*}} : i32
// CHECK: scf.if %[[GE]] {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[BASE]], %[[Z]] : i32
// CHECK: tt.splat %[[MAX]]
// CHECK: arith.remsi
// CHECK: tt.load
// CHECK: tt.store
// CHECK: } else {
// CHECK: tt.splat %[[BASE]]
// CHECK: arith.remsi
// CHECK: tt.load
// CHECK: tt.store
// CHECK: } {tt.nonnegative_version}
// CHECK-NEXT: tt.return
// TWICE-LABEL: tt.func @wrapped_column
// TWICE-COUNT-1: scf.if
// TWICE-NOT: scf.if
tt.func @wrapped_column(%b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f16> {tt.divisibility = 16 : i32},
                        %m: i32, %n: i32 {tt.divisibility = 16 : i32}) {
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %npm0 = arith.addi %m, %c63 : i32
  %npm = arith.divsi %npm0, %c64 : i32
  %gid = arith.divsi %pid, %c4 : i32
  %fpm = arith.muli %gid, %c4 : i32
  %left = arith.subi %npm, %fpm : i32
  %gsm = arith.minsi %left, %c4 : i32
  %pid_n = arith.divsi %pid, %gsm : i32
  %base = arith.muli %pid_n, %c64 : i32
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %s = tt.splat %base : i32 -> tensor<64xi32>
  %x = arith.addi %s, %r : tensor<64xi32>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %col = arith.remsi %x, %ns : tensor<64xi32>
  %bs = tt.splat %b : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>
  %bp = tt.addptr %bs, %col : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  %v = tt.load %bp : tensor<64x!tt.ptr<f16>>
  %cs = tt.splat %c : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>
  %cp = tt.addptr %cs, %r : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  tt.store %cp, %v : tensor<64x!tt.ptr<f16>>
  tt.return
}

// -----

// Two aligned bases of unknown sign (one for a pointer a loop advances), a
// function with a result: one scf.if on both conditions, yielding it. (An
// unaligned base would gain nothing: a run at an unknown offset is not a
// vector.)
// CHECK-LABEL: tt.func @two_bases_in_loop
// TWICE-LABEL: tt.func @two_bases_in_loop
// CHECK: %[[A:.*]] = arith.cmpi sge, %arg1
// CHECK: %[[B:.*]] = arith.cmpi sge, %arg2
// CHECK: %[[AB:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: %[[R:.*]] = scf.if %[[AB]] -> (f32) {
// CHECK: arith.maxsi %arg1
// CHECK: arith.maxsi %arg2
// CHECK: scf.for
// CHECK: "tt.reduce"
// CHECK: scf.yield %{{.*}} : f32
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.yield %{{.*}} : f32
// CHECK: tt.return %[[R]] : f32
tt.func @two_bases_in_loop(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %s0: i32 {tt.divisibility = 16 : i32},
                           %s1: i32 {tt.divisibility = 16 : i32},
                           %n: i32 {tt.divisibility = 16 : i32}) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ns = tt.splat %n : i32 -> tensor<32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %a = tt.splat %s0 : i32 -> tensor<32xi32>
  %ax = arith.addi %a, %r : tensor<32xi32>
  %ai = arith.remsi %ax, %ns : tensor<32xi32>
  %pa = tt.addptr %ps, %ai : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %va = tt.load %pa : tensor<32x!tt.ptr<f32>>
  %b = tt.splat %s1 : i32 -> tensor<32xi32>
  %bx = arith.addi %b, %r : tensor<32xi32>
  %bi = arith.remsi %bx, %ns : tensor<32xi32>
  %p0 = tt.addptr %ps, %bi : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %step = tt.splat %c32 : i32 -> tensor<32xi32>
  %res:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%pp = %p0, %acc = %va) -> (tensor<32x!tt.ptr<f32>>, tensor<32xf32>) : i32 {
    %v = tt.load %pp : tensor<32x!tt.ptr<f32>>
    %acc2 = arith.addf %acc, %v : tensor<32xf32>
    %pn = tt.addptr %pp, %step : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    scf.yield %pn, %acc2 : tensor<32x!tt.ptr<f32>>, tensor<32xf32>
  }
  %sum = "tt.reduce"(%res#1) <{axis = 0 : i32}> ({
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %x, %y : f32
    tt.reduce.return %t : f32
  }) : (tensor<32xf32>) -> f32
  tt.return %sum : f32
}

// -----

// Not versioned: the wrapped index is a row index scaled by a row stride of
// unknown value, so even as a run it widens no access (the columns are the
// run, as they are without the assumption).
// CHECK-LABEL: tt.func @rows_gain_nothing
// CHECK-NOT: scf.if
// CHECK: tt.return
tt.func @rows_gain_nothing(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %s: i32, %m: i32 {tt.divisibility = 16 : i32},
                           %stride: i32) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ss = tt.splat %s : i32 -> tensor<64xi32>
  %x = arith.addi %ss, %r : tensor<64xi32>
  %ms = tt.splat %m : i32 -> tensor<64xi32>
  %rows = arith.remsi %x, %ms : tensor<64xi32>
  %rc = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %st = tt.splat %stride : i32 -> tensor<64x1xi32>
  %ro = arith.muli %rc, %st : tensor<64x1xi32>
  %cc = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tt.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tt.broadcast %cc : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
  %pp = tt.addptr %ps, %off : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
  %v = tt.load %pp : tensor<64x64x!tt.ptr<f16>>
  tt.store %pp, %v : tensor<64x64x!tt.ptr<f16>>
  tt.return
}

// -----

// Not versioned: the base is known >= 0 (a program id times a constant),
// the specialization marked the argument >= 0, the remainder is of a
// splat (no run to keep), the remainder feeds a stored value rather than
// an address, or the base is computed inside a loop.
// CHECK-LABEL: tt.func @not_versioned
// CHECK-NOT: scf.if
// CHECK-NOT: arith.maxsi
// CHECK: tt.return
tt.func @not_versioned(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %s: i32 {tt.non_negative},
                       %u: i32, %n: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c64 : i32
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %ps = tt.splat %p : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
  // program id based
  %bs = tt.splat %base : i32 -> tensor<64xi32>
  %x0 = arith.addi %bs, %r : tensor<64xi32>
  %i0 = arith.remsi %x0, %ns : tensor<64xi32>
  %p0 = tt.addptr %ps, %i0 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  tt.store %p0, %r : tensor<64x!tt.ptr<i32>>
  // specialized >= 0
  %ss = tt.splat %s : i32 -> tensor<64xi32>
  %x1 = arith.addi %ss, %r : tensor<64xi32>
  %i1 = arith.remsi %x1, %ns : tensor<64xi32>
  %p1 = tt.addptr %ps, %i1 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  tt.store %p1, %r : tensor<64x!tt.ptr<i32>>
  // a splat: constant, not a run
  %us = tt.splat %u : i32 -> tensor<64xi32>
  %i2 = arith.remsi %us, %ns : tensor<64xi32>
  %p2 = tt.addptr %ps, %i2 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  tt.store %p2, %r : tensor<64x!tt.ptr<i32>>
  // a value, not an address
  %x3 = arith.addi %us, %r : tensor<64xi32>
  %i3 = arith.remsi %x3, %ns : tensor<64xi32>
  %p3 = tt.addptr %ps, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
  tt.store %p3, %i3 : tensor<64x!tt.ptr<i32>>
  // a base computed in a loop
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %lb = arith.subi %u, %i : i32
    %ls = tt.splat %lb : i32 -> tensor<64xi32>
    %x4 = arith.addi %ls, %r : tensor<64xi32>
    %i4 = arith.remsi %x4, %ns : tensor<64xi32>
    %p4 = tt.addptr %ps, %i4 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %p4, %r : tensor<64x!tt.ptr<i32>>
  }
  tt.return
}

// -----

// ttg-drop-slow-versions keeps the then branch of a versioned if (what the
// NVIDIA backend compiles to learn its register need) and leaves other ifs.
// RUN: tessera-opt %s -split-input-file --ttg-drop-slow-versions | FileCheck %s --check-prefix=DROP
// DROP-LABEL: tt.func @drop
// DROP-NOT: arith.constant 2.0
// DROP: %[[M:.*]] = arith.maxsi %arg0
// DROP-NEXT: %[[F:.*]] = arith.sitofp %[[M]]
// DROP-NEXT: %[[K:.*]] = scf.if %arg1 -> (f32) {
// DROP: tt.return %[[F]], %[[K]] : f32, f32
tt.func @drop(%s: i32, %c: i1) -> (f32, f32) {
  %z = arith.constant 0 : i32
  %ge = arith.cmpi sge, %s, %z : i32
  %r = scf.if %ge -> (f32) {
    %m = arith.maxsi %s, %z : i32
    %f = arith.sitofp %m : i32 to f32
    scf.yield %f : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  } {tt.nonnegative_version}
  %k = scf.if %c -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %three = arith.constant 3.0 : f32
    scf.yield %three : f32
  }
  tt.return %r, %k : f32, f32
}
