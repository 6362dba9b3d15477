"""Shared memory across ops and calls: reused bytes with barriers from ttg-membar, and noinline
functions that get their shared-memory base from the caller (compile-only and interpreter)."""

import re

import torch

import tessera
import tessera.language as tl


@tessera.jit(noinline=True)
def block_sum(x):
    return tl.sum(x, axis=0)


@tessera.jit
def sums(x, out, BLOCK: tl.constexpr):
    # The kernel's own reductions and two calls of a noinline function that reduces across warps.
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + tl.program_id(0) * BLOCK + offs)
    m = tl.max(v, axis=0)
    a = block_sum(v)
    b = block_sum(v * 2)
    s = tl.sum(v * v, axis=0)
    tl.store(out + tl.program_id(0) * 4 + tl.arange(0, 4),
             tl.where(tl.arange(0, 4) == 0, m, tl.where(tl.arange(0, 4) == 1, a, tl.where(tl.arange(0, 4) == 2, b, s))))


def expected(x, block):
    v = x.view(-1, block).double()
    return torch.stack([v.max(1).values, v.sum(1), (2 * v).sum(1), (v * v).sum(1)], 1).float().reshape(-1)


def test_noinline_function_gets_its_shared_base():
    k = tessera.compile(sums, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"BLOCK": 1024})
    llir = k.asm["llir"]
    helper = next(line for line in llir.splitlines() if line.startswith("define") and "block_sum" in line)
    assert "ptr addrspace(3)" in helper
    # Every reduction shares the same bytes, so the kernel needs one reduction's worth (4 warps ×
    # 4 bytes), and barriers separate them.
    assert k.metadata["shared"] == 16
    kernel_body = llir[llir.index("define ptx_kernel"):]
    kernel_body = kernel_body[:kernel_body.index("\n}")]
    assert len(re.findall(r"barrier", kernel_body)) >= 4


def test_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.randn(3 * 1024)
    out = torch.zeros(12)
    sums[(3,)](x, out, BLOCK=1024)
    torch.testing.assert_close(out, expected(x, 1024), rtol=1e-4, atol=1e-3)
