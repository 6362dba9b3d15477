// RUN: tessera-opt %s -split-input-file --ttg-coalesce | FileCheck %s

// ttg-coalesce: each global access gets a blocked layout from what AxisInfo
// proves of its pointers (and mask); operands are converted to it and the
// result converted back.

// fp16 with 16-byte aligned pointers and bound: 8 halves (128 bits) per
// thread instead of the default 4, for the load and the store.
// CHECK-DAG: #[[DEF:.*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[WIDE:.*]] = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @fp16_copy
// CHECK: %[[P:.*]] = ttg.convert_layout %{{.*}} : tensor<1024x!tt.ptr<f16>, #[[DEF]]> -> tensor<1024x!tt.ptr<f16>, #[[WIDE]]>
// CHECK: %[[M:.*]] = ttg.convert_layout %{{.*}} : tensor<1024xi1, #[[DEF]]> -> tensor<1024xi1, #[[WIDE]]>
// CHECK: %[[V:.*]] = tt.load %[[P]], %[[M]] : tensor<1024x!tt.ptr<f16>, #[[WIDE]]>
// CHECK: ttg.convert_layout %[[V]] : tensor<1024xf16, #[[WIDE]]> -> tensor<1024xf16, #[[DEF]]>
// CHECK: tt.store {{.*}} : tensor<1024x!tt.ptr<f16>, #[[WIDE]]>
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp16_copy(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %pid = tt.get_program_id x : i32
    %c1024 = arith.constant 1024 : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %b = tt.splat %base : i32 -> tensor<1024xi32, #blocked>
    %offs = arith.addi %b, %r : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %xp, %m : tensor<1024x!tt.ptr<f16>, #blocked>
    %ys = tt.splat %y : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %yp = tt.addptr %ys, %offs : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %yp, %v, %m : tensor<1024x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// A 2-D tile whose pointers run along dim 0 (a column of a row-major
// matrix read down): the order puts dim 0 first, 4 fp32 per thread along it.
// CHECK: #[[COL:.*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tt.func public @column_major_tile
// CHECK: tt.load %{{.*}} : tensor<64x64x!tt.ptr<f32>, #[[COL]]>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @column_major_tile(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %ld: i32 {tt.divisibility = 16 : i32}) -> tensor<64x64xf32, #blocked> {
    %r0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %i = tt.expand_dims %r0 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %j = tt.expand_dims %r1 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %lds = tt.splat %ld : i32 -> tensor<1x64xi32, #blocked>
    %jl = arith.muli %j, %lds : tensor<1x64xi32, #blocked>
    %ib = tt.broadcast %i : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %jb = tt.broadcast %jl : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %offs = arith.addi %ib, %jb : tensor<64x64xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %offs : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %v = tt.load %p : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return %v : tensor<64x64xf32, #blocked>
  }
}

// -----

// Negative: nothing proven (an unaligned pointer through loaded indices, a
// gather): the access keeps its layout and no conversion is added.
// CHECK-LABEL: tt.func public @gather
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @gather(%x: !tt.ptr<f32>, %idx: tensor<1024x!tt.ptr<i32>, #blocked>) -> tensor<1024xf32, #blocked> {
    %i = tt.load %idx : tensor<1024x!tt.ptr<i32>, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %i : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %p : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return %v : tensor<1024xf32, #blocked>
  }
}

// -----

// Negative: a mask of unknown alignment (a bound not divisible by 16) keeps
// vectors at one element, so the 4-wide default only spreads each warp's
// access over gaps; one element per thread would close them, but not at the
// price of a conversion at the call below: the layout stays.
// CHECK-LABEL: tt.func public @unaligned_bound
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.call @use
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @use(%v: tensor<1024xf32, #blocked>) attributes {noinline = true} {
    tt.return
  }
  tt.func public @unaligned_bound(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %p, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.call @use(%v) : (tensor<1024xf32, #blocked>) -> ()
    tt.return
  }
}

// -----

// The same mask in a copy (the loaded value only reaches a store coalesced
// the same way): one element per thread, no gaps, no conversion.
// CHECK: #[[ONE:.*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @unaligned_bound_copy
// CHECK: %[[V:.*]] = tt.load %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #[[ONE]]>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #[[ONE]]>
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @unaligned_bound_copy(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %p = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %p, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %q = tt.addptr %ys, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %q, %v, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
