// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#ttg.amd_mfma supports instrShape [16, 16, K] with K 4 (fp32), 16 (16-bit operands, int8 on CDNA2) or 32 (int8 and fp8 on CDNA3), but it is [32, 32, 8]}}
tt.func @f(%a: tensor<32x32xf32, #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.amd_mfma supports version 2 (CDNA2) and 3 (CDNA3), but version is 4}}
tt.func @f(%a: tensor<32x32xf32, #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [16, 16, 16]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.dot_op with a #ttg.amd_mfma parent of instrShape [16, 16, 16] needs kWidth = 4 (K elements per lane of the instruction), but it is 2}}
tt.func @f(%a: tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16]}>, kWidth = 2}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.amd_wmma supports version 1 (RDNA3), but version is 2}}
tt.func @f(%a: tensor<32x32xf32, #ttg.amd_wmma<{version = 2, warpsPerCTA = [2, 2]}>>) {
  tt.return
}

// -----

// expected-error @+1 {{#ttg.dot_op with a #ttg.amd_wmma parent needs kWidth = 16 (K elements per lane of a 16x16x16 WMMA), but it is 4}}
tt.func @f(%a: tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #ttg.amd_wmma<{version = 1, warpsPerCTA = [2, 2]}>, kWidth = 4}>>) {
  tt.return
}
