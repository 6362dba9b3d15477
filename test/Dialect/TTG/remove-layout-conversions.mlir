// RUN: tessera-opt %s -split-input-file --ttg-remove-layout-conversions | FileCheck %s

// ttg-remove-layout-conversions: load layouts carried forward, cheap values
// recomputed backward, never at a higher cost in shared-memory bytes.

// Forward through elementwise ops, a reduction to a scalar, a splat and a
// store in the load's layout: the row is never converted.
// CHECK-LABEL: tt.func public @softmax_row
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[X:.*]] = tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[W:.*]]>
// CHECK: "tt.reduce"(%[[X]])
// CHECK: math.exp {{.*}} : tensor<1024xf32, #[[W]]>
// CHECK: tt.store {{.*}} : tensor<1024x!tt.ptr<f32>, #[[W]]>
#def = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @softmax_row(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #def>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #def>
    %xp = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>, #def>, tensor<1024xi32, #def>
    %xpw = ttg.convert_layout %xp : tensor<1024x!tt.ptr<f32>, #def> -> tensor<1024x!tt.ptr<f32>, #wide>
    %vw = tt.load %xpw : tensor<1024x!tt.ptr<f32>, #wide>
    %v = ttg.convert_layout %vw : tensor<1024xf32, #wide> -> tensor<1024xf32, #def>
    %m = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<1024xf32, #def>) -> f32
    %ms = tt.splat %m : f32 -> tensor<1024xf32, #def>
    %d = arith.subf %v, %ms : tensor<1024xf32, #def>
    %e = math.exp %d : tensor<1024xf32, #def>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #def>
    %yp = tt.addptr %ys, %r : tensor<1024x!tt.ptr<f32>, #def>, tensor<1024xi32, #def>
    %ypw = ttg.convert_layout %yp : tensor<1024x!tt.ptr<f32>, #def> -> tensor<1024x!tt.ptr<f32>, #wide>
    %ew = ttg.convert_layout %e : tensor<1024xf32, #def> -> tensor<1024xf32, #wide>
    tt.store %ypw, %ew : tensor<1024x!tt.ptr<f32>, #wide>
    tt.return
  }
}

// -----

// Forward through a 2-D reduction, expand_dims and broadcast: the row
// maximum is subtracted in the load's layout.
// CHECK-LABEL: tt.func public @rows
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[V:.*]] = tt.load {{.*}} : tensor<4x256x!tt.ptr<f32>, #[[W:.*]]>
// CHECK: tt.expand_dims {{.*}} -> tensor<4x1xf32, #[[W]]>
// CHECK: arith.subf %[[V]], {{.*}} : tensor<4x256xf32, #[[W]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#def = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#wide = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rows(%p: tensor<4x256x!tt.ptr<f32>, #wide>, %q: tensor<4x256x!tt.ptr<f32>, #wide>) {
    %vw = tt.load %p : tensor<4x256x!tt.ptr<f32>, #wide>
    %v = ttg.convert_layout %vw : tensor<4x256xf32, #wide> -> tensor<4x256xf32, #def>
    %m = "tt.reduce"(%v) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4x256xf32, #def>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #def}>>
    %me = tt.expand_dims %m {axis = 1 : i32} : tensor<4xf32, #ttg.slice<{dim = 1, parent = #def}>> -> tensor<4x1xf32, #def>
    %mb = tt.broadcast %me : tensor<4x1xf32, #def> -> tensor<4x256xf32, #def>
    %d = arith.subf %v, %mb : tensor<4x256xf32, #def>
    %dw = ttg.convert_layout %d : tensor<4x256xf32, #def> -> tensor<4x256xf32, #wide>
    tt.store %q, %dw : tensor<4x256x!tt.ptr<f32>, #wide>
    tt.return
  }
}

// -----

// Forward into a loop: the accumulator is carried in the load's layout (its
// zero init recomputed there); nothing is converted inside the loop.
// CHECK-LABEL: tt.func public @accumulate
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, #[[W:.*]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (tensor<1024xf32, #[[W]]>)
// CHECK-NOT: ttg.convert_layout
// CHECK: scf.yield
#def = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @accumulate(%p: tensor<1024x!tt.ptr<f16>, #wide>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<1024xf32, #def>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<1024xf32, #def>) : i32 {
      %vw = tt.load %p : tensor<1024x!tt.ptr<f16>, #wide>
      %v = ttg.convert_layout %vw : tensor<1024xf16, #wide> -> tensor<1024xf16, #def>
      %f = arith.extf %v : tensor<1024xf16, #def> to tensor<1024xf32, #def>
      %s = arith.addf %a, %f : tensor<1024xf32, #def>
      scf.yield %s : tensor<1024xf32, #def>
    }
    %t = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %c = arith.addf %x, %y : f32
      tt.reduce.return %c : f32
    }) : (tensor<1024xf32, #def>) -> f32
    tt.return %t : f32
  }
}

// -----

// Backward: a convert of a cheap value (offsets from make_range and splat) is
// replaced by recomputing it in the destination layout.
// CHECK-LABEL: tt.func public @recompute
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.make_range {{.*}} : tensor<1024xi32, #[[W:.*]]>
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[W]]>
#def = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @recompute(%x: !tt.ptr<f32>) -> tensor<1024xf32, #wide> {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #def>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #def>
    %xp = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>, #def>, tensor<1024xi32, #def>
    %xpw = ttg.convert_layout %xp : tensor<1024x!tt.ptr<f32>, #def> -> tensor<1024x!tt.ptr<f32>, #wide>
    %v = tt.load %xpw : tensor<1024x!tt.ptr<f32>, #wide>
    tt.return %v : tensor<1024xf32, #wide>
  }
}

// -----

// Negative: carrying the fp16 load's layout forward would move the
// conversion after the extension to fp32 (twice the bytes): the pass leaves
// the conversion of the fp16 value where it is. Loads are never recomputed.
// CHECK-LABEL: tt.func public @not_after_widening
// CHECK: %[[V:.*]] = tt.load {{.*}} : tensor<1024x!tt.ptr<f16>, #[[W:[a-z0-9]+]]>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[V]] : tensor<1024xf16, #[[W]]> -> tensor<1024xf16, #[[D:[a-z0-9]+]]>
// CHECK-NEXT: arith.extf %[[C]] : tensor<1024xf16, #[[D]]> to tensor<1024xf32, #[[D]]>
#def = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @not_after_widening(%p: tensor<1024x!tt.ptr<f16>, #wide>, %q: tensor<1024x!tt.ptr<f32>, #def>) {
    %vw = tt.load %p : tensor<1024x!tt.ptr<f16>, #wide>
    %v = ttg.convert_layout %vw : tensor<1024xf16, #wide> -> tensor<1024xf16, #def>
    %f = arith.extf %v : tensor<1024xf16, #def> to tensor<1024xf32, #def>
    tt.store %q, %f : tensor<1024x!tt.ptr<f32>, #def>
    tt.return
  }
}

// -----

// Negative: a conversion into a dot operand layout is a requirement, not a
// layout to carry; it stays.
// CHECK-LABEL: tt.func public @dot_operand
// CHECK: ttg.convert_layout {{.*}} -> tensor<16x16xf16, #ttg.dot_op
#def = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_operand(%p: tensor<16x16x!tt.ptr<f16>, #def>) -> tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> {
    %v = tt.load %p : tensor<16x16x!tt.ptr<f16>, #def>
    %a = ttg.convert_layout %v : tensor<16x16xf16, #def> -> tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    tt.return %a : tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
  }
}

// -----

// A tensor-core result is carried through its epilogue: the fp32 accumulator
// is narrowed to fp16 in the mma layout and converted once, at half the bytes,
// for the store.
// CHECK-LABEL: tt.func public @epilogue
// CHECK: %[[D:.*]] = tt.dot
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[D]] : tensor<64x64xf32, #[[MMA:[a-z0-9]+]]> to tensor<64x64xf16, #[[MMA]]>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[T]] : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #{{[a-z0-9]+}}>
// CHECK-NEXT: tt.store %{{.*}}, %[[C]]
#acc = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#out = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @epilogue(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                           %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>,
                           %p: tensor<64x64x!tt.ptr<f16>, #out>) {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tt.dot %a, %b, %z : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    %c = ttg.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #acc>
    %t = arith.truncf %c : tensor<64x64xf32, #acc> to tensor<64x64xf16, #acc>
    %o = ttg.convert_layout %t : tensor<64x64xf16, #acc> -> tensor<64x64xf16, #out>
    tt.store %p, %o : tensor<64x64x!tt.ptr<f16>, #out>
    tt.return
  }
}

// -----

// An accumulator layout also goes through reductions (the result in a
// #ttg.slice of it): the reduction of the dot result is computed in the mma
// layout, with no convert before it; only its 64 row sums are converted, to
// the slice layout the function returns. (Before commit e1fbcd5 accumulator
// layouts went through elementwise ops only, and the whole 64x64 result was
// converted to the blocked layout before the reduce.)
// CHECK-LABEL: tt.func public @epilogue_reduce
// CHECK: %[[D:.*]] = tt.dot
// CHECK-SAME: -> tensor<64x64xf32, #[[MMA:[a-z0-9]+]]>
// CHECK-NEXT: %[[S:.*]] = "tt.reduce"(%[[D]]) <{axis = 1 : i32}>
// CHECK: }) : (tensor<64x64xf32, #[[MMA]]>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[S]] : tensor<64xf32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>> -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #{{blocked[0-9]*}}}>>
// CHECK-NEXT: tt.return %[[C]]
#acc = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @epilogue_reduce(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                                  %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>)
      -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #acc}>> {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tt.dot %a, %b, %z : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    %c = ttg.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #acc>
    %s = "tt.reduce"(%c) <{axis = 1 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %r = arith.addf %x, %y : f32
      tt.reduce.return %r : f32
    }) : (tensor<64x64xf32, #acc>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #acc}>>
    tt.return %s : tensor<64xf32, #ttg.slice<{dim = 1, parent = #acc}>>
  }
}

// -----

// A softmax over a dot result (attention's scores): the row maxima (a reduce
// to a slice of the mma layout), expand_dims back to the mma layout, the
// broadcast, the subtraction and the exp all stay in the accumulator's layout;
// one conversion, of the final values, for the store.
// CHECK-LABEL: tt.func public @epilogue_softmax
// CHECK: %[[D:.*]] = tt.dot
// CHECK-SAME: -> tensor<64x64xf32, #[[MMA:[a-z0-9]+]]>
// CHECK-NEXT: %[[M:.*]] = "tt.reduce"(%[[D]]) <{axis = 1 : i32}>
// CHECK: }) : (tensor<64x64xf32, #[[MMA]]>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>>
// CHECK-NEXT: %[[E:.*]] = tt.expand_dims %[[M]] {axis = 1 : i32} : tensor<64xf32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>> -> tensor<64x1xf32, #[[MMA]]>
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %[[E]] : tensor<64x1xf32, #[[MMA]]> -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[D]], %[[B]] : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[X:.*]] = math.exp %[[S]] : tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[X]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #{{blocked[0-9]*}}>
// CHECK-NEXT: tt.store %{{.*}}, %[[C]]
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#acc = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @epilogue_softmax(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                                   %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>,
                                   %p: tensor<64x64x!tt.ptr<f32>, #acc>) {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tt.dot %a, %b, %z : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    %c = ttg.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #acc>
    %m = "tt.reduce"(%c) <{axis = 1 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %r = arith.maxnumf %x, %y : f32
      tt.reduce.return %r : f32
    }) : (tensor<64x64xf32, #acc>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #acc}>>
    %e = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #ttg.slice<{dim = 1, parent = #acc}>> -> tensor<64x1xf32, #acc>
    %bc = tt.broadcast %e : tensor<64x1xf32, #acc> -> tensor<64x64xf32, #acc>
    %s = arith.subf %c, %bc : tensor<64x64xf32, #acc>
    %x = math.exp %s : tensor<64x64xf32, #acc>
    tt.store %p, %x : tensor<64x64x!tt.ptr<f32>, #acc>
    tt.return
  }
}

// -----

// Negative: an accumulator layout does not go through tt.trans (the pass
// transposes blocked layouts only): the dot result is converted to the
// blocked layout before the trans, as written, and the trans keeps its
// blocked operand and result.
// CHECK-LABEL: tt.func public @epilogue_trans
// CHECK: %[[D:.*]] = tt.dot
// CHECK-SAME: -> tensor<64x64xf32, #[[MMA:[a-z0-9]+]]>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[D]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[ACC:blocked[0-9]*]]>
// CHECK-NEXT: %[[T:.*]] = tt.trans %[[C]] {order = array<i32: 1, 0>} : tensor<64x64xf32, #[[ACC]]> -> tensor<64x64xf32, #[[TR:blocked[0-9]*]]>
// CHECK-NEXT: tt.return %[[T]] : tensor<64x64xf32, #[[TR]]>
#acc = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#tr = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @epilogue_trans(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                                 %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>)
      -> tensor<64x64xf32, #tr> {
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tt.dot %a, %b, %z : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    %c = ttg.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #acc>
    %t = tt.trans %c {order = array<i32: 1, 0>} : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #tr>
    tt.return %t : tensor<64x64xf32, #tr>
  }
}

// -----

// A pointer tile the loop bumps each iteration and only converts to the
// load's layout is carried in that layout: one conversion before the loop
// (and one of the invariant stride), none inside.
// CHECK-LABEL: tt.func public @carried_pointers
// CHECK: %[[P0:.*]] = ttg.convert_layout %arg0 : tensor<64x32x!tt.ptr<f16>, #{{[a-z0-9]+}}> -> tensor<64x32x!tt.ptr<f16>, #[[W:[a-z0-9]+]]>
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %[[P0]], {{.*}}) -> (tensor<64x32x!tt.ptr<f16>, #[[W]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.load %[[P]] : tensor<64x32x!tt.ptr<f16>, #[[W]]>
// CHECK: tt.addptr %[[P]], %{{.*}} : tensor<64x32x!tt.ptr<f16>, #[[W]]>
// CHECK: scf.yield
#def = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#wide = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @carried_pointers(%p: tensor<64x32x!tt.ptr<f16>, #def>, %n: i32) -> tensor<64x32xf16, #wide> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<32> : tensor<64x32xi32, #def>
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #wide>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%ptr = %p, %acc = %z) -> (tensor<64x32x!tt.ptr<f16>, #def>, tensor<64x32xf16, #wide>) : i32 {
      %pw = ttg.convert_layout %ptr : tensor<64x32x!tt.ptr<f16>, #def> -> tensor<64x32x!tt.ptr<f16>, #wide>
      %v = tt.load %pw : tensor<64x32x!tt.ptr<f16>, #wide>
      %s = arith.addf %acc, %v : tensor<64x32xf16, #wide>
      %next = tt.addptr %ptr, %step : tensor<64x32x!tt.ptr<f16>, #def>, tensor<64x32xi32, #def>
      scf.yield %next, %s : tensor<64x32x!tt.ptr<f16>, #def>, tensor<64x32xf16, #wide>
    }
    tt.return %r#1 : tensor<64x32xf16, #wide>
  }
}

// -----

// Negative: the loop also stores through the pointers in their own layout,
// so they stay carried in it and converted each iteration.
// CHECK-LABEL: tt.func public @carried_pointers_used
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tt.ptr<f16>, #[[D:[a-z0-9]+]]>
// CHECK: ttg.convert_layout %{{.*}} : tensor<64x32x!tt.ptr<f16>, #[[D]]> -> tensor<64x32x!tt.ptr<f16>, #{{[a-z0-9]+}}>
#def = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#wide = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @carried_pointers_used(%p: tensor<64x32x!tt.ptr<f16>, #def>, %n: i32, %x: tensor<64x32xf16, #def>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<32> : tensor<64x32xi32, #def>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ptr = %p) -> (tensor<64x32x!tt.ptr<f16>, #def>) : i32 {
      %pw = ttg.convert_layout %ptr : tensor<64x32x!tt.ptr<f16>, #def> -> tensor<64x32x!tt.ptr<f16>, #wide>
      %v = tt.load %pw : tensor<64x32x!tt.ptr<f16>, #wide>
      tt.store %ptr, %x : tensor<64x32x!tt.ptr<f16>, #def>
      %next = tt.addptr %ptr, %step : tensor<64x32x!tt.ptr<f16>, #def>, tensor<64x32xi32, #def>
      scf.yield %next : tensor<64x32x!tt.ptr<f16>, #def>
    }
    tt.return
  }
}
