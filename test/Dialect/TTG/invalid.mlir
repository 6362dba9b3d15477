// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the ttg dialect: the layout parsers and
// verifiers (lib/Dialect/TTG/IR/Attributes.cpp), the memory-descriptor type
// (Types.cpp), the module attributes (Dialect.cpp) and the ops (Ops.cpp).
// A few checks cannot be reached from text because the parser or another
// check rejects the input first; the cases say so where it matters.

//===----------------------------------------------------------------------===//
// Layout bodies: keys and value kinds
//===----------------------------------------------------------------------===//

// expected-error @+1 {{#ttg.blocked needs 'order'}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{unknown key 'sizePerWarp' in #ttg.blocked}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], sizePerWarp = [1]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{expected 'order' of #ttg.blocked to be an array of non-negative integers, but it is [-1]}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [-1]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{expected 'dim' of #ttg.slice to be a non-negative integer, but it is true}}
tt.func @f(%a: tensor<4xf32, #ttg.slice<{dim = true, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
  tt.return
}

// -----

// expected-error @+1 {{expected 'transposed' of #ttg.nvmma_shared to be true or false, but it is 0 : i64}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = 0, elementBitWidth = 16}>, #ttg.shared_memory>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked needs CTAsPerCGA, CTASplitNum and CTAOrder together, or none of them}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCGA = [2]}>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// CTA layouts
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{a CTA layout needs CTAsPerCGA, CTASplitNum and CTAOrder of one length, but they have lengths 2, 1 and 2}}
tt.func @f() attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [1, 1], CTASplitNum = [1], CTAOrder = [1, 0]}>} {
  tt.return
}

// -----

// expected-error @+1 {{a CTA layout needs at least one dimension}}
tt.func @f() attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [], CTASplitNum = [], CTAOrder = []}>} {
  tt.return
}

// -----

// expected-error @+1 {{a CTA layout needs powers of two in CTAsPerCGA, but it is [3]}}
tt.func @f() attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [3], CTASplitNum = [1], CTAOrder = [0]}>} {
  tt.return
}

// -----

// expected-error @+1 {{a CTA layout needs CTAOrder to be a permutation of [0, 2), but it is [0, 0]}}
tt.func @f() attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [0, 0]}>} {
  tt.return
}

// -----

// expected-error @+1 {{a CTA layout needs CTASplitNum[0] = 4 to divide CTAsPerCGA[0] = 2}}
tt.func @f() attributes {cta = #ttg.cta_layout<{CTAsPerCGA = [2], CTASplitNum = [4], CTAOrder = [0]}>} {
  tt.return
}

//===----------------------------------------------------------------------===//
// #ttg.blocked
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{#ttg.blocked needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one length (the rank), but they have lengths 2, 2, 1 and 2}}
tt.func @f(%a: tensor<4x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4], order = [1, 0]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked needs a rank of at least 1}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked needs powers of two in threadsPerWarp, but it is [3, 32]}}
tt.func @f(%a: tensor<4x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [3, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked needs order to be a permutation of [0, 2), but it is [1, 2]}}
tt.func @f(%a: tensor<4x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 2]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked of rank 2 needs CTAsPerCGA, CTASplitNum and CTAOrder of length 2, but they have length 1}}
tt.func @f(%a: tensor<4x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>>) {
  tt.return
}

// -----

// The tensor type checks its rank against the layout's (VerifiableTensorEncoding).
// expected-error @+1 {{a tensor of rank 1 cannot have the layout #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}> of rank 2}}
tt.func @f(%a: tensor<4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// #ttg.slice
//===----------------------------------------------------------------------===//

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{#ttg.slice needs a distributed parent layout, but the parent is #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}}
tt.func @f(%a: tensor<4xf32, #ttg.slice<{dim = 0, parent = #shared}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{#ttg.slice must leave at least one dimension, but its parent has rank 1}}
tt.func @f(%a: tensor<4xf32, #ttg.slice<{dim = 0, parent = #blocked}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{#ttg.slice needs dim < 2 (the parent's rank), but dim is 2}}
tt.func @f(%a: tensor<4xf32, #ttg.slice<{dim = 2, parent = #blocked}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{a tensor of rank 2 cannot have the layout #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}> of rank 1}}
tt.func @f(%a: tensor<4x4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// #ttg.dot_op
//===----------------------------------------------------------------------===//

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{#ttg.dot_op needs opIdx 0 (operand A) or 1 (operand B), but opIdx is 2}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 2, parent = #mma, kWidth = 2}>>) {
  tt.return
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// expected-error @+1 {{#ttg.dot_op needs a distributed parent layout, but the parent is #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #shared, kWidth = 2}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{#ttg.dot_op needs a parent of rank 2 (or 3 with a batch dimension), but its rank is 1}}
tt.func @f(%a: tensor<16xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @+1 {{#ttg.dot_op takes no kWidth with a #ttg.blocked parent, but kWidth is 2}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked, kWidth = 2}>>) {
  tt.return
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{#ttg.dot_op needs a non-zero kWidth with the tensor-core parent #ttg.nvidia_mma<}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #mma}>>) {
  tt.return
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// expected-error @+1 {{#ttg.dot_op with a #ttg.nvidia_mma version 3 parent must be operand A (opIdx = 0): wgmma reads B from shared memory}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
// expected-error @+1 {{#ttg.dot_op needs a #ttg.blocked or a tensor-core parent, but the parent is #ttg.slice<}}
tt.func @f(%a: tensor<16x16xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.slice<{dim = 0, parent = #blocked}>}>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// #ttg.nvidia_mma
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{#ttg.nvidia_mma supports versionMajor 2 (mma.sync) and 3 (wgmma), but versionMajor is 1}}
tt.func @f(%a: tensor<16x16xf32, #ttg.nvidia_mma<{versionMajor = 1, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvidia_mma needs powers of two in warpsPerCTA, but it is [3, 1]}}
tt.func @f(%a: tensor<16x16xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [3, 1], instrShape = [16, 8]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvidia_mma version 2 needs warpsPerCTA of rank 2 (or 3 with a batch dimension), but it is [4]}}
tt.func @f(%a: tensor<16xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4], instrShape = [16, 8]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvidia_mma version 2 of rank 3 needs instrShape [1, 16, 8], but it is [16, 8]}}
tt.func @f(%a: tensor<2x16x16xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2, 2], instrShape = [16, 8]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvidia_mma version 3 needs warpsPerCTA of rank 2, but it is [1, 4, 1]}}
tt.func @f(%a: tensor<2x64x64xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [1, 4, 1], instrShape = [16, 64, 16]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvidia_mma version 3 needs instrShape [16, N, K] with N a multiple of 8 in [8, 256] and K 8, 16 or 32, but it is [16, 60, 16]}}
tt.func @f(%a: tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 60, 16]}>>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// Shared layouts
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{#ttg.swizzled_shared needs a power of two as maxPhase, but it is 6}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 6, order = [1, 0]}>, #ttg.shared_memory>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.swizzled_shared needs an order of at least one dimension}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = []}>, #ttg.shared_memory>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvmma_shared needs swizzlingByteWidth 0, 32, 64 or 128, but it is 256}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 256, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvmma_shared needs elementBitWidth 8, 16, 32 or 64, but it is 12}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 12}>, #ttg.shared_memory>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.nvmma_shared with fp4Padded needs elementBitWidth 8, but it is 16}}
tt.func @f(%a: !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, fp4Padded = true}>, #ttg.shared_memory>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// !ttg.memdesc
//===----------------------------------------------------------------------===//

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor needs a rank of at least 1}}
tt.func @f(%a: !ttg.memdesc<f16, #shared, #smem>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor needs positive dimensions, but its shape is [0, 4]}}
tt.func @f(%a: !ttg.memdesc<0x4xf16, #shared, #smem>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor needs positive dimensions, but its allocation shape is [0, 4]}}
tt.func @f(%a: !ttg.memdesc<4x4xf16, #shared, #smem, mutable, 0x4>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{the allocation shape [2, 4] of a memory descriptor must hold at least its shape [4, 4]}}
tt.func @f(%a: !ttg.memdesc<4x4xf16, #shared, #smem, 2x4>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor needs an integer or floating-point element type, but it is '!tt.ptr<f16>'}}
tt.func @f(%a: !ttg.memdesc<4x!tt.ptr<f16>, #shared, #smem>) {
  tt.return
}

// -----

// expected-error @+1 {{a memory descriptor needs a shared layout (e.g. #ttg.swizzled_shared)}}
tt.func @f(%a: !ttg.memdesc<4xf16>) {
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor needs a shared layout (e.g. #ttg.swizzled_shared), but its layout is #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}}
tt.func @f(%a: !ttg.memdesc<4xf16, #blocked, #smem>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{a memory descriptor needs a memory space (#ttg.shared_memory)}}
tt.func @f(%a: !ttg.memdesc<4xf16, #shared, mutable>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{a memory descriptor needs the memory space #ttg.shared_memory, but it is "global"}}
tt.func @f(%a: !ttg.memdesc<4xf16, #shared, "global">) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{a memory descriptor may hold at most 2147483647 elements, but its allocation shape [65536, 65536] holds more}}
tt.func @f(%a: !ttg.memdesc<65536x65536xi8, #shared, #smem>) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// expected-error @+1 {{expected 'mutable' or an allocation shape}}
tt.func @f(%a: !ttg.memdesc<4x4xf16, #shared, #smem, mutable, >) {
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{#ttg.shared_memory takes no parameters}}
tt.func @f(%a: !ttg.memdesc<4xf16, #shared, #ttg.shared_memory<1>>) {
  tt.return
}

// -----

// expected-error @+1 {{!ttg.async.token takes no parameters}}
tt.func @f(%a: !ttg.async.token<4>) {
  tt.return
}

//===----------------------------------------------------------------------===//
// Module attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'builtin.module' op expected "ttg.num-warps" to be an i32 integer, but it is 4 : i64}}
module attributes {"ttg.num-warps" = 4 : i64} {
}

// -----

// expected-error @+1 {{'builtin.module' op expected "ttg.threads-per-warp" to be a positive power of two, but it is 48}}
module attributes {"ttg.threads-per-warp" = 48 : i32} {
}

// -----

// expected-error @+1 {{'builtin.module' op expected "ttg.target" to be a string "<backend>:<architecture>", but it is "sm_90"}}
module attributes {ttg.target = "sm_90"} {
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f() {
    // expected-error @+1 {{'tt.make_range' op has a tensor whose layout #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}> has threadsPerWarp [64] (64 threads), but the module has "ttg.threads-per-warp" = 32}}
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    tt.return
  }
}

// -----

// Slices are checked through their parent; function arguments too.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  // expected-error @+1 {{'tt.func' op has a tensor whose layout #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}> has warpsPerCTA [8, 1] (8 warps), but the module has "ttg.num-warps" = 4}}
  tt.func @f(%a: tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32} {
  tt.func @f() {
    // expected-error @+1 {{'tt.make_range' op has a tensor whose layout #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}> has CTAsPerCGA [2, 1] (2 CTAs), but the module has "ttg.num-ctas" = 1}}
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-warps" = 8 : i32} {
  tt.func @f() {
    // expected-error @+1 {{'arith.constant' op has a tensor whose layout #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}> has warpsPerCTA [4, 1] (4 warps), but the module has "ttg.num-warps" = 8}}
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    tt.return
  }
}

//===----------------------------------------------------------------------===//
// ttg.convert_layout
//===----------------------------------------------------------------------===//

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func @f(%a: tensor<128xf32, #blocked>) {
  // expected-error @+1 {{'ttg.convert_layout' op expected the result to have the shape of the source, [128], but it has [256]}}
  %0 = ttg.convert_layout %a : tensor<128xf32, #blocked> -> tensor<256xf32, #blocked1>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func @f(%a: tensor<128xf32, #blocked>) {
  // expected-error @+1 {{'ttg.convert_layout' op expected the result to have the element type of the source, 'f32', but it has 'f16'}}
  %0 = ttg.convert_layout %a : tensor<128xf32, #blocked> -> tensor<128xf16, #blocked1>
  tt.return
}

//===----------------------------------------------------------------------===//
// ttg.local_alloc, local_load, local_store
//===----------------------------------------------------------------------===//

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f() {
  // expected-error @+1 {{'ttg.local_alloc' op expected a whole allocation, whose allocation shape equals its shape [16, 64], but the allocation shape is [32, 64]}}
  %0 = ttg.local_alloc : () -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable, 32x64>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f() {
  // expected-error @+1 {{'ttg.local_alloc' op expected an alignment that is a positive power of two, but it is 24}}
  %0 = ttg.local_alloc {alignment = 24 : i32} : () -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f() {
  // expected-error @+1 {{'ttg.local_alloc' op expected a mutable buffer when there is no source (it would stay uninitialized), but the result is '!ttg.memdesc<16x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory>'}}
  %0 = ttg.local_alloc : () -> !ttg.memdesc<16x64xf16, #shared, #smem>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%t: tensor<16x32xf16, #blocked>) {
  // expected-error @+1 {{'ttg.local_alloc' op expected the buffer to have the shape of the source, [16, 32], but it has [16, 64]}}
  %0 = ttg.local_alloc %t : (tensor<16x32xf16, #blocked>) -> !ttg.memdesc<16x64xf16, #shared, #smem>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.local_load' op expected the result to have the element type of the buffer, 'f16', but it has 'f32'}}
  %0 = ttg.local_load %b : !ttg.memdesc<16x64xf16, #shared, #smem> -> tensor<16x64xf32, #blocked>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%t: tensor<16x64xf16, #blocked>, %b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.local_store' op expected the destination to be a mutable buffer, but it is '!ttg.memdesc<16x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory>'}}
  ttg.local_store %t, %b : tensor<16x64xf16, #blocked> -> !ttg.memdesc<16x64xf16, #shared, #smem>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%t: tensor<16x32xf16, #blocked>, %b: !ttg.memdesc<16x64xf16, #shared, #smem, mutable>) {
  // expected-error @+1 {{'ttg.local_store' op expected the stored tensor to have the shape of the buffer, [16, 64], but it has [16, 32]}}
  ttg.local_store %t, %b : tensor<16x32xf16, #blocked> -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%i: i32) {
  %buf = ttg.local_alloc : () -> !ttg.memdesc<2x16x64xf16, #shared, #smem, mutable>
  %b = ttg.memdesc_index %buf[%i] : !ttg.memdesc<2x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable>
  // expected-error @+1 {{'ttg.local_dealloc' op expected a buffer made by ttg.local_alloc, but the operand is a view made by 'ttg.memdesc_index'}}
  ttg.local_dealloc %b : !ttg.memdesc<16x64xf16, #shared, #smem, mutable>
  tt.return
}

//===----------------------------------------------------------------------===//
// Views: memdesc_index, memdesc_subslice, memdesc_trans, memdesc_reshape
//===----------------------------------------------------------------------===//

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<64xf16, #shared, #smem>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected a source of rank 2 or more (a stack of buffers), but it has shape [64]}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<64xf16, #shared, #smem> -> !ttg.memdesc<64xf16, #shared, #smem>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected the result shape [16, 64] (the source's without its first dimension), but it is [3, 16]}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<3x16xf16, #shared, #smem, mutable>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected the result's allocation shape [16, 64] (the source's without its first dimension), but it is [32, 64]}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable, 32x64>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected the result to have the source's element type 'f16', but it has 'bf16'}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xbf16, #shared, #smem, mutable>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected the result to have the source's layout #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, but it has #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf16, #shared1, #smem, mutable>
  tt.return
}

// -----

// (The memory-space check of views cannot fail: every !ttg.memdesc is in
// #ttg.shared_memory, the only memory space there is so far.)
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>, %i: i32) {
  // expected-error @+1 {{'ttg.memdesc_index' op expected the result to be mutable like the source, but it is immutable}}
  %0 = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf16, #shared, #smem>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_subslice' op expected a result of the source's rank 2, but its shape is [16]}}
  %0 = ttg.memdesc_subslice %b [0] : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16xf16, #shared, #smem, 16x64>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_subslice' op expected 2 offsets (one per dimension), but got 1}}
  %0 = ttg.memdesc_subslice %b [0] : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16x32xf16, #shared, #smem, 16x64>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_subslice' op expected the slice [48, 80) of dimension 1 to lie within [0, 64)}}
  %0 = ttg.memdesc_subslice %b [0, 48] : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16x32xf16, #shared, #smem, 16x64>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_subslice' op expected the result to keep the source's allocation shape [16, 64], but it is [16, 32]}}
  %0 = ttg.memdesc_subslice %b [0, 32] : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16x32xf16, #shared, #smem>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_trans' op expected order to be a permutation of [0, 2), but it is [1, 1]}}
  %0 = ttg.memdesc_trans %b {order = array<i32: 1, 1>} : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<64x16xf16, #shared, #smem>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_trans' op expected the result shape [64, 16] (the source's permuted by order), but it is [16, 64]}}
  %0 = ttg.memdesc_trans %b {order = array<i32: 1, 0>} : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16x64xf16, #shared, #smem>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @f(%b: !ttg.memdesc<16x64xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.memdesc_reshape' op expected the result to have the source's 1024 elements, but its shape [16, 32] has 512}}
  %0 = ttg.memdesc_reshape %b : !ttg.memdesc<16x64xf16, #shared, #smem> -> !ttg.memdesc<16x32xf16, #shared, #smem>
  tt.return
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<tensor<4xf16>>, #blocked>, %b: !ttg.memdesc<128xf16, #shared, #smem, mutable>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected a tensor of scalar pointers, but got 'tensor<128x!tt.ptr<tensor<4xf16>>, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'}}
  %0 = ttg.async_copy_global_to_local %p, %b : tensor<128x!tt.ptr<tensor<4xf16>>, #blocked> -> <128xf16, #shared, #smem, mutable>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<128xf16, #shared, #smem>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected the destination to be a mutable buffer}}
  %0 = ttg.async_copy_global_to_local %p, %b : tensor<128x!tt.ptr<f16>, #blocked> -> <128xf16, #shared, #smem>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<64xf16, #shared, #smem, mutable>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected the buffer to have the pointers' shape [128], but it has [64]}}
  %0 = ttg.async_copy_global_to_local %p, %b : tensor<128x!tt.ptr<f16>, #blocked> -> <64xf16, #shared, #smem, mutable>
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<128xf32, #shared, #smem, mutable>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected the buffer to hold the pointee type 'f16', but it holds 'f32'}}
  %0 = ttg.async_copy_global_to_local %p, %b : tensor<128x!tt.ptr<f16>, #blocked> -> <128xf32, #shared, #smem, mutable>
  tt.return
}

// -----

// The custom form infers the mask and other types from the pointers; the
// generic form can state others.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<128xf16, #shared, #smem, mutable>, %m: tensor<128xi1>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected a mask of type 'tensor<128xi1, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>', but it is 'tensor<128xi1>'}}
  %0 = "ttg.async_copy_global_to_local"(%p, %b, %m) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<128x!tt.ptr<f16>, #blocked>, !ttg.memdesc<128xf16, #shared, #smem, mutable>, tensor<128xi1>) -> !ttg.async.token
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<128xf16, #shared, #smem, mutable>, %o: tensor<128xf32, #blocked>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected other of type 'tensor<128xf16, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' (the loaded type), but it is 'tensor<128xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'}}
  %0 = "ttg.async_copy_global_to_local"(%p, %b, %o) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (tensor<128x!tt.ptr<f16>, #blocked>, !ttg.memdesc<128xf16, #shared, #smem, mutable>, tensor<128xf32, #blocked>) -> !ttg.async.token
  tt.return
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @f(%p: tensor<128x!tt.ptr<f16>, #blocked>, %b: !ttg.memdesc<128xf16, #shared, #smem, mutable>) {
  // expected-error @+1 {{'ttg.async_copy_global_to_local' op expected contiguity >= 1, but it is 0}}
  %0 = ttg.async_copy_global_to_local %p, %b {contiguity = 0 : i32} : tensor<128x!tt.ptr<f16>, #blocked> -> <128xf16, #shared, #smem, mutable>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'ttg.async_wait' op expected num >= 0 (groups left in flight), but it is -1}}
  %0 = ttg.async_wait {num = -1 : i32}
  tt.return
}

//===----------------------------------------------------------------------===//
// ttg.global_scratch_alloc
//===----------------------------------------------------------------------===//

// -----

tt.func @f() {
  // expected-error @+1 {{'ttg.global_scratch_alloc' op expected the result type '!tt.ptr<i8>', but it is '!tt.ptr<f32>'}}
  %0 = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 1024 : i32} : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'ttg.global_scratch_alloc' op expected nbytes >= 0, but it is -4}}
  %0 = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = -4 : i32} : !tt.ptr<i8>
  tt.return
}

// -----

tt.func @f() {
  // expected-error @+1 {{'ttg.global_scratch_alloc' op expected an alignment that is a positive power of two, but it is 0}}
  %0 = ttg.global_scratch_alloc {alignment = 0 : i32, nbytes = 1024 : i32} : !tt.ptr<i8>
  tt.return
}

// -----

// A tile past the largest tensor (2^20 elements) overflowed the layout
// arithmetic (LLVM ERROR) or took minutes to lower.
// expected-error @+1 {{#ttg.blocked covers more than 1048576 elements per CTA (sizePerThread [1, 2147483648], threadsPerWarp [1, 32], warpsPerCTA [4, 1])}}
#too_big = #ttg.blocked<{sizePerThread = [1, 2147483648], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
tt.func @f(%a: tensor<4x64xf32, #too_big>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.blocked covers more than 1048576 elements per CTA (sizePerThread [65536], threadsPerWarp [32], warpsPerCTA [4])}}
#big = #ttg.blocked<{sizePerThread = [65536], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func @g(%a: tensor<64xf32, #big>) {
  tt.return
}

// -----

#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{needs power-of-two dimensions, but dimension 0 is 63}}
tt.func @h(%a: tensor<63xf32, #b1>) {
  tt.return
}

// -----

// expected-error @+1 {{expected 'lane' of #ttg.linear to be a list of bases (lists of integers of one length), but it is [[0, 2, 1]]}}
#l1 = #ttg.linear<{register = [[0, 1]], lane = [[0, 2, 1]], warp = [], block = []}>

// -----

#l2 = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>
// expected-error @+1 {{#ttg.linear has a basis entry 8 along dim 1, outside the tensor's size 8}}
tt.func @linear_outside(%a: tensor<8x8xf32, #l2>) {
  tt.return
}

// -----

#l3 = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 1], [1, 0], [2, 0], [4, 0], [0, 0]], warp = [], block = []}>
// expected-error @+1 {{#ttg.linear's bases reach only 2^5 of the tensor's 2^6 elements}}
tt.func @linear_gap(%a: tensor<8x8xf32, #l3>) {
  tt.return
}
