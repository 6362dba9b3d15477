"""The PTX peephole that fuses an address's wide multiply and add (mul.wide + add.s64 ->
mad.wide) where the address is uniform across the block and read in the kernel's entry block
(third_party/nvidia/lib/Target/PTXPeephole.cpp; its cases in unittest/NVIDIA). Compile-only."""
import re

import tessera
import tessera.language as tl


@tessera.jit
def row_scale(out_ptr, in_ptr, in_stride, out_stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row * out_stride + cols, x * 2.0, mask=cols < n)


@tessera.jit
def row_sum_loop(out_ptr, in_ptr, in_stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = in_ptr + row * in_stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(base + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


SIG = {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32", "n": "i32"}


def _ptx(fn, sig):
    return tessera.compile(fn, signature=sig, constexprs={"BLOCK": 1024}, target="cuda:90").asm["ptx"]


def test_row_bases_from_the_program_id_are_fused():
    ptx = _ptx(row_scale, SIG)
    # Both rows' bases (the program id times a stride, plus a pointer argument): one mad.wide
    # each, whose addend is a parameter's register.
    mads = re.findall(r"mad\.wide\.s32\s+(%rd\d+), (%r\d+), 4, (%rd\d+);", ptx)
    assert len(mads) == 2, ptx
    params = set(re.findall(r"ld\.param\.b64\s+(%rd\d+),", ptx))
    assert {m[2] for m in mads} <= params
    # The per-thread column offset (from %tid) is not fused.
    assert "mul.wide.u32" in ptx


def test_a_base_read_in_a_loop_stays_a_multiply_and_an_add():
    ptx = _ptx(row_sum_loop, {k: v for k, v in SIG.items() if k != "out_stride"})
    assert "mad.wide" not in ptx
    assert "mul.wide.s32" in ptx
