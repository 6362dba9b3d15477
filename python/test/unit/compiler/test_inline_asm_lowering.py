"""tl.inline_asm_elementwise lowered for the GPU (compile-only: no GPU needed, ptxas checks the PTX)."""

import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia

needs_ptxas = pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")


@tessera.jit
def funnel_shift(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    r = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, 4;", "=r,r,r", [b, a],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, r, mask=m)


@tessera.jit
def u8_to_f32(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    r = tl.inline_asm_elementwise(
        "{ .reg .b8 a<4>; mov.b32 {a0, a1, a2, a3}, $4; cvt.rn.f32.u8 $0, a0; cvt.rn.f32.u8 $1, a1; "
        "cvt.rn.f32.u8 $2, a2; cvt.rn.f32.u8 $3, a3; }",
        "=r,=r,=r,=r,r", [x], dtype=tl.float32, is_pure=True, pack=4)
    tl.store(out_ptr + offs, r)


@needs_ptxas
def test_one_element_per_statement():
    k = tessera.compile(funnel_shift, signature={"a_ptr": "*i32", "b_ptr": "*i32", "out_ptr": "*i32", "n": "i32"},
                        constexprs={"BLOCK": 256})
    assert "shf.l.wrap.b32" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


@needs_ptxas
def test_four_bytes_share_a_register():
    k = tessera.compile(u8_to_f32, signature={"x_ptr": "*u8", "out_ptr": "*fp32"}, constexprs={"BLOCK": 512})
    assert "vector<4xi8>" in k.asm["ttgir"] or "cvt.rn.f32.u8" in k.asm["ptx"]
    assert k.asm["ptx"].count("cvt.rn.f32.u8") >= 4
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_wrong_constraint_count_is_reported():
    @tessera.jit
    def bad(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        r = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x_ptr + offs)], dtype=tl.float32,
                                      is_pure=True, pack=4)
        tl.store(out_ptr + offs, r)
    with pytest.raises(tessera.CompilationError) as e:
        tessera.compile(bad, signature={"x_ptr": "*u8", "out_ptr": "*fp32"}, constexprs={"BLOCK": 512})
    assert "needs 5 (4 result and 1 argument registers)" in str(e.value)
    assert "tl.inline_asm_elementwise(" in str(e.value)  # the kernel line is shown
