// RUN: tessera-opt %s -split-input-file --pass-pipeline='builtin.module(convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)' | FileCheck %s

// (Modifiers an access cannot take, e.g. a store's 'wt' on a load, are
// verifier errors: test/Dialect/TT/invalid.mlir.)

// Cache modifiers and eviction policies of tt.load / tt.store reach the PTX
// (lib/Conversion/TTGToLLVM/LoadStoreOpToLLVM.cpp, qualifiers from
// third_party/nvidia/lib/TTGToLLVM/TargetInfo.cpp). Unmasked accesses with a
// hint go through the predicated access with a true predicate. A cache
// operator and an eviction priority together: the priority goes to L2 through
// createpolicy (sm_80+), as PTX takes only one of them at L1.

// CHECK-LABEL: llvm.func @hints_sm90
// CHECK: "mov.b32 $0, $1;\0A\09@$3 ld.global.cg.b32 $0, [ $2 + 0 ];"
// CHECK: "mov.b32 $0, $1;\0A\09@$3 ld.global.L1::evict_last.b32 $0, [ $2 + 0 ];"
// CHECK: createpolicy.fractional.L2::evict_first.b64 %tsr_policy, 1.0;{{.*}}@$3 ld.global.ca.L2::cache_hint.b32 $0, [ $2 + 0 ], %tsr_policy;
// CHECK: llvm.load volatile
// CHECK: "@$2 st.global.cs.b32 [ $0 + 0 ], $1;"
// CHECK: "@$2 st.global.L1::evict_first.b32 [ $0 + 0 ], $1;"
// CHECK: createpolicy.fractional.L2::evict_last.b64 %tsr_policy, 1.0;{{.*}}@$2 st.global.wb.L2::cache_hint.b32 [ $0 + 0 ], $1, %tsr_policy;
// CHECK: llvm.store
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @hints_sm90(%p: tensor<128x!tt.ptr<f32>, #blocked>, %m: tensor<128xi1, #blocked>) {
    %a = tt.load %p cacheModifier = cg : tensor<128x!tt.ptr<f32>, #blocked>
    %b = tt.load %p evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>, #blocked>
    %c = tt.load %p, %m cacheModifier = ca evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>, #blocked>
    %d = tt.load %p {isVolatile = true} : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %p, %a cacheModifier = cs : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %p, %b, %m evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %p, %c cacheModifier = wb evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>, #blocked>
    tt.store %p, %d : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Before sm_80 there is no createpolicy: the cache operator stays, the
// eviction hint (only a hint) is dropped.
// CHECK-LABEL: llvm.func @hints_sm75
// CHECK-NOT: createpolicy
// CHECK: @$3 ld.global.cg.b32 $0, [ $2 + 0 ];
// CHECK-NOT: createpolicy
// CHECK: llvm.return
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:75", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @hints_sm75(%p: tensor<128x!tt.ptr<f32>, #blocked1>) {
    %a = tt.load %p cacheModifier = cg evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>, #blocked1>
    tt.store %p, %a : tensor<128x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}
