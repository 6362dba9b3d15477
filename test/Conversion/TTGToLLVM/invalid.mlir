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
// CHECK: error: unknown target 'rocm:gfx942'
module attributes {ttg.target = "rocm:gfx942"} {
  tt.func public @k() {
    tt.return
  }
}

// -----

// TTIR (tensors without layouts) given to the TTGIR lowering is reported at
// the first such op, not lowered with a missing layout.
// CHECK: error: 'arith.constant' op has a tensor 'tensor<8x16xf32>' without a layout encoding (convert-ttg-to-llvm lowers TTGIR: run convert-tt-to-ttg first)
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32} {
  tt.func public @k() -> tensor<8x16xf32> {
    %c = arith.constant dense<0.0> : tensor<8x16xf32>
    tt.return %c : tensor<8x16xf32>
  }
}

// -----

// A block argument without a layout is found too.
// CHECK: error: 'tt.func' op has a tensor 'tensor<64xi32>' without a layout encoding
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a: tensor<64xi32>) {
    tt.return
  }
}

// -----

// The positive case: with a layout, the same function lowers (no error here;
// the CHECK-NOT guards against one).
// CHECK-NOT: error:
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a: tensor<64xi32, #blocked>) {
    tt.return
  }
}

// -----

// An op at module level is not lowered as if it were in a function.
// CHECK: error: 'arith.constant' op must be inside a function (only functions and globals may appear at module level)
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32} {
  %c = arith.constant 1 : i32
  tt.func public @k() {
    tt.return
  }
}

// -----

// A pointer to a type without an LLVM equivalent (tf32 is a compute
// precision, not a storage type) is an error at the op, not a crash.
// CHECK: error: 'tt.addptr' op cannot step a pointer to 'tf32': the type has no LLVM equivalent
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32} {
  tt.func public @k(%p: !tt.ptr<tf32>, %i: i32) -> !tt.ptr<tf32> {
    %q = tt.addptr %p, %i : !tt.ptr<tf32>, i32
    tt.return %q : !tt.ptr<tf32>
  }
}
