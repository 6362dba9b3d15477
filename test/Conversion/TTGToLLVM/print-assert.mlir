// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tt-to-ttg{num-warps=1 target=cuda:90}, ttg-allocate-shared-memory, convert-scf-to-cf, convert-ttg-to-llvm)' | FileCheck %s

// One printf per element a thread holds, with the program id and the index.
// CHECK: llvm.mlir.global internal constant @printf_format_0("pid (%d, %d, %d) idx (%d) x=%d\0A\00")
// CHECK-LABEL: llvm.func @print
// CHECK-COUNT-2: llvm.call @vprintf
tt.func public @print(%p: !tt.ptr<i32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  tt.print "x=" {hex = false, isSigned = array<i32: 1>} : %r : tensor<64xi32>
  tt.return
}

// -----

// A failed assertion calls __assertfail with the message and the user's line;
// the kernel goes on after the check.
// CHECK-DAG: @assert_message_0("x must be non-negative\00")
// CHECK-DAG: @assert_file_0("kernel.py\00")
// CHECK-LABEL: llvm.func @check
// CHECK: llvm.cond_br %{{.*}}, ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK: ^[[FAIL]]:
// CHECK: llvm.call @__assertfail
// CHECK: llvm.br ^[[OK]]
tt.func public @check(%x: i32) {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sge, %x, %c0 : i32
  tt.assert %ok, "x must be non-negative" : i1 loc("kernel.py":12:3)
  tt.return
}
