// RUN: tessera-opt %s -split-input-file -verify-diagnostics --prof-check-scopes | FileCheck %s

// Balanced scopes: nested, around a loop, in both branches of an if, in a
// noinline function; left unchanged.
// CHECK-LABEL: @balanced
// CHECK: prof.record start "outer"
// CHECK: prof.record end "outer"
module {
  tt.func private @callee() attributes {noinline = true} {
    prof.record start "callee"
    prof.record end "callee"
    tt.return
  }
  tt.func public @balanced(%n: i32, %c: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    prof.record start "outer"
    scf.for %i = %c0 to %n step %c1 : i32 {
      prof.record start "body"
      tt.call @callee() : () -> ()
      prof.record end "body"
    }
    scf.if %c {
      prof.record start "branch"
    } else {
      prof.record start "branch"
    }
    prof.record end "branch"
    prof.record end "outer"
    tt.return
  }
}

// -----

module {
  tt.func public @unended(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @+1 {{scope 'a' is started in a loop body but not ended before its end}}
      prof.record start "a"
    }
    tt.return
  }
}

// -----

module {
  tt.func public @open_at_return() {
    // expected-error @+1 {{scope 'a' is still open when the function returns}}
    prof.record start "a"
    // expected-note @+1 {{the return}}
    tt.return
  }
}

// -----

module {
  tt.func public @not_open() {
    // expected-error @+1 {{ends scope 'a', which is not open here}}
    prof.record end "a"
    tt.return
  }
}

// -----

module {
  tt.func public @crossed() {
    prof.record start "a"
    prof.record start "b"
    // expected-error-re @+1 {{ends scope 'a' while scope 'b' (started at {{.*}}) is open inside it: end scopes in the reverse order of their starts}}
    prof.record end "a"
    prof.record end "b"
    tt.return
  }
}

// -----

module {
  tt.func public @one_branch(%c: i1) {
    // expected-error @+1 {{the branches of this if leave different profiling scopes open: ['a'] after the then-branch, [] after the (empty) else-branch}}
    scf.if %c {
      prof.record start "a"
    }
    prof.record end "a"
    tt.return
  }
}

// -----

module {
  tt.func public @loop_carried(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    prof.record start "a"
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @+1 {{ends scope 'a', which is not open here (a scope started outside a loop body is ended outside it)}}
      prof.record end "a"
      prof.record start "a"
    }
    prof.record end "a"
    tt.return
  }
}

// -----

// Early returns (several blocks): every path into a block must bring the
// same open scopes.
module {
  tt.func public @paths(%c: i1) {
    cf.cond_br %c, ^a, ^b
  ^a:
    prof.record start "x"
    // expected-error @+1 {{paths that meet here leave different profiling scopes open: [] and ['x']}}
    cf.br ^join
  ^b:
    cf.br ^join
  ^join:
    tt.return
  }
}

// -----

module {
  tt.func public @bad_kind() {
    // expected-error @+1 {{expected 'start' or 'end', got 'begin'}}
    prof.record begin "a"
    tt.return
  }
}

// -----

module {
  tt.func public @empty_name() {
    // expected-error @+1 {{'prof.record' op needs a scope name}}
    prof.record start ""
    prof.record end ""
    tt.return
  }
}
