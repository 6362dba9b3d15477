// RUN: not tessera-opt %s -split-input-file --convert-ttg-to-llvm 2>&1 | FileCheck %s

// The lowering needs to know the target.
// CHECK: error: convert-ttg-to-llvm needs the module attribute ttg.target
module {
  tt.func public @k() {
    tt.return
  }
}

// -----

// A target without a lowering backend is reported.
// CHECK: error: unknown target 'hip:gfx942'
module attributes {ttg.target = "hip:gfx942"} {
  tt.func public @k() {
    tt.return
  }
}
