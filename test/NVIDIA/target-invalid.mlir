// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// The cuda backend checks the architecture of a "cuda:<arch>" target when the
// IR is verified; the core only knows the "<backend>:<architecture>" form.

// expected-error @+1 {{'builtin.module' op expected "ttg.target" to name an architecture of backend 'cuda' (a cuda target is "cuda:<compute capability>" with a capability of 70 or more (e.g. "cuda:90"), not "cuda:sm_90"), but it is "cuda:sm_90"}}
module attributes {ttg.target = "cuda:sm_90"} {
}

// -----

// expected-error @+1 {{'builtin.module' op expected "ttg.target" to name an architecture of backend 'cuda' (a cuda target is "cuda:<compute capability>" with a capability of 70 or more (e.g. "cuda:90"), not "cuda:60"), but it is "cuda:60"}}
module attributes {ttg.target = "cuda:60"} {
}

// -----

// A target of a backend this build does not have parses (the lowering
// rejects it: test/Conversion/TTGToLLVM/invalid.mlir).
module attributes {ttg.target = "other:1"} {
}

// -----

// expected-error @+1 {{'builtin.module' op expected "ttg.target" to be a string "<backend>:<architecture>", but it is "cuda:"}}
module attributes {ttg.target = "cuda:"} {
}
