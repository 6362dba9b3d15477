// RUN: tessera-opt %s -split-input-file --convert-ttg-to-llvm | FileCheck %s
// RUN: tessera-opt %s -split-input-file --convert-ttg-to-llvm=vectorize=false | FileCheck %s --check-prefix=OFF
// With vectorize=false (TESSERA_DISABLE_VECTORIZE=1 in Python) every access is
// one element.
// OFF-LABEL: llvm.func @aligned
// OFF-NOT: vector<4xf32>
// OFF-NOT: .v4.
// OFF: @$3 ld.global.b32 $0, [ $2 + 0 ]
// OFF-NOT: vector<4xf32>
// OFF-NOT: .v4.
// OFF: llvm.return
// OFF-LABEL: llvm.func @half
// OFF-NOT: .v2.
// OFF: llvm.return

// Loads and stores become vector accesses where AxisInfo proves 4 (or more)
// consecutive registers of a thread consecutive and aligned in memory, and the
// mask constant across them; else one access per element.

#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
// CHECK-LABEL: llvm.func @aligned
// The masked load: one predicated ld.global.v4 per 4 elements (2 per thread).
// CHECK-COUNT-2: ld.global.v4.b32 {$0, $1, $2, $3}
// The unmasked load: LLVM vector loads aligned to 16 bytes.
// CHECK-COUNT-2: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-2: st.global.v4.b32 [ $0 + 0 ], {$1, $2, $3, $4}
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  tt.func public @aligned(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %b = tt.splat %base : i32 -> tensor<1024xi32, #blocked>
    %offs = arith.addi %b, %r : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %p, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    %w = tt.load %p : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.store %p, %v, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.store %p, %w : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Negative cases, each one access per element: a pointer of unknown
// alignment; a mask whose bound is not known to be a multiple of 4; a
// volatile load.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
// CHECK-LABEL: llvm.func @not_vectorized
// CHECK-NOT: vector<4xf32>
// CHECK-NOT: .v4.
// CHECK: llvm.return
  tt.func public @not_vectorized(%x: !tt.ptr<f32>, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %a = tt.load %p : tensor<512x!tt.ptr<f32>, #blocked>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %q = tt.addptr %ys, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<512xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #blocked>
    %b = tt.load %q, %m : tensor<512x!tt.ptr<f32>, #blocked>
    %c = tt.load %q {isVolatile = true} : tensor<512x!tt.ptr<f32>, #blocked>
    %s = arith.addf %a, %b : tensor<512xf32, #blocked>
    %t = arith.addf %s, %c : tensor<512xf32, #blocked>
    tt.store %p, %t : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// fp16: 4 registers are 8 bytes, loaded as two 32-bit words.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {ttg.target = "cuda:90", "ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
// CHECK-LABEL: llvm.func @half
// CHECK: ld.global.v2.b32 {$0, $1}
// CHECK: st.global.v2.b32 [ $0 + 0 ], {$1, $2}
  tt.func public @half(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<512xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>, #blocked>
    %p = tt.addptr %xs, %r : tensor<512x!tt.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
    %v = tt.load %p, %m : tensor<512x!tt.ptr<f16>, #blocked>
    tt.store %p, %v, %m : tensor<512x!tt.ptr<f16>, #blocked>
    tt.return
  }
}
