"""Warp reductions of 32-bit integers in one redux.sync on sm_80+ (compile-only: the PTX), and the
same results as before in the interpreter; GPU checks in test/gpu/test_redux_gpu.py."""
import re

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def reduce_all(x, out, KIND: tl.constexpr, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    if KIND == "max":
        r = tl.max(v, axis=0)
    elif KIND == "min":
        r = tl.min(v, axis=0)
    elif KIND == "sum":
        r = tl.sum(v, axis=0)
    elif KIND == "xor":
        r = tl.xor_sum(v, axis=0)
    else:
        r = tl.reduce(v, 0, _or)
    tl.store(out, r)


@tessera.jit
def _or(a, b):
    return a | b


def _ptx(kind, dtype="i32", target="cuda:90"):
    k = tessera.compile(reduce_all, signature={"x": f"*{dtype}:16", "out": f"*{dtype}:16"},
                        constexprs={"KIND": kind, "BLOCK": 1024}, target=target)
    return k.asm["ptx"]


@pytest.mark.parametrize("kind, instr", [("max", "redux.sync.max.s32"), ("min", "redux.sync.min.s32"),
                                         ("sum", "redux.sync.add.s32"), ("xor", "redux.sync.xor.b32"),
                                         ("or", "redux.sync.or.b32")])
def test_int32_reductions_use_redux(kind, instr):
    ptx = _ptx(kind)
    assert instr in ptx
    # One redux per warp replaces the lane butterflies (shuffles remain only between warps' partials,
    # if any).
    assert ptx.count("redux.sync") == 1


@pytest.mark.parametrize("kind", ["max", "sum"])
def test_unsigned_max_and_sum(kind):
    ptx = _ptx(kind, dtype="u32")
    assert ("redux.sync.max.u32" if kind == "max" else "redux.sync.add") in ptx


@pytest.mark.parametrize("dtype, target", [("fp32", "cuda:90"), ("i64", "cuda:90"), ("i32", "cuda:75"),
                                           ("i16", "cuda:90")])
def test_no_redux_where_it_does_not_apply(dtype, target):
    ptx = _ptx("max", dtype=dtype, target=target)
    assert "redux" not in ptx
    assert re.search(r"shfl\.sync\.bfly", ptx)


@pytest.mark.parametrize("kind", ["max", "min", "sum", "xor", "or"])
def test_results_in_the_interpreter(kind, monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-2 ** 31, 2 ** 31 - 1, (1024,), generator=g, dtype=torch.int32)
    out = torch.zeros(1, dtype=torch.int32)
    reduce_all[(1,)](x, out, KIND=kind, BLOCK=1024)
    a = x.numpy()
    want = {"max": a.max(), "min": a.min(), "sum": a.sum(dtype=np.int64).astype(np.int32),
            "xor": np.bitwise_xor.reduce(a), "or": np.bitwise_or.reduce(a)}[kind]
    assert out.item() == int(np.int32(want))
