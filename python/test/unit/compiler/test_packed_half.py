"""Elementwise math on 16-bit floats pairs into the packed instructions (add.f16x2, fma.rn.bf16x2,
...): the LLVM pipeline runs SLP vectorization over the per-element code the TTGIR lowering emits
(compile-only: the PTX). Results are checked on the GPU by the elementwise GPU tests."""
import re

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def half_math(x_ptr, y_ptr, z_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    if OP == "add":
        r = x + y
    elif OP == "mul":
        r = x * y
    elif OP == "sub":
        r = x - y
    else:
        r = x * y + z
    tl.store(out_ptr + offs, r, mask=m)


def _ptx(dtype, op):
    sig = {"x_ptr": f"*{dtype}:16", "y_ptr": f"*{dtype}:16", "z_ptr": f"*{dtype}:16", "out_ptr": f"*{dtype}:16",
           "n": "i32:16"}
    return tessera.compile(half_math, signature=sig, constexprs={"OP": op, "BLOCK": 1024}, target="cuda:90",
                           num_warps=4).asm["ptx"]


@pytest.mark.parametrize("dtype, suffix", [("fp16", "f16"), ("bf16", "bf16")])
@pytest.mark.parametrize("op, instr", [("add", "add"), ("mul", "mul"), ("sub", "sub"), ("fma", "fma.rn")])
def test_half_math_is_packed(dtype, suffix, op, instr):
    ptx = _ptx(dtype, op)
    packed = re.findall(rf"\b{re.escape(instr)}(\.rn)?\.{suffix}x2\b", ptx)
    scalar = re.findall(rf"\b{re.escape(instr)}(\.rn)?\.{suffix}\s", ptx)
    # 8 elements a thread: four packed instructions, no scalar one.
    assert len(packed) == 4 and not scalar, (len(packed), len(scalar))


@pytest.mark.parametrize("op, instr", [("add", "v_pk_add_f16"), ("mul", "v_pk_mul_f16"), ("fma", "v_pk_fma_f16")])
def test_half_math_is_packed_on_cdna(op, instr):
    # The AMDGPU backend pairs fp16 math itself (no SLP pass needed there).
    sig = {"x_ptr": "*fp16:16", "y_ptr": "*fp16:16", "z_ptr": "*fp16:16", "out_ptr": "*fp16:16", "n": "i32:16"}
    asm = tessera.compile(half_math, signature=sig, constexprs={"OP": op, "BLOCK": 1024}, target="hip:gfx942",
                          num_warps=4).asm["amdgcn"]
    assert instr in asm
