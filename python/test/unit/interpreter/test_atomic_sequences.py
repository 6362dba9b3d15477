"""Atomics apply lane after lane (programs in order, lanes in order within a program): the values
in memory and the old values each lane gets equal a per-lane simulation, for every atomic op and
element type, with few addresses hit by many lanes and many addresses hit by few (the
interpreter computes these sequences by different exact methods)."""

import numpy as np
import pytest
import torch

import tessera.language as tl

from ._util import jit


@jit
def rmw_kernel(Mem, Old, Idx, V, C, N: tl.constexpr, OP: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * N + tl.arange(0, N)
    i = tl.load(Idx + offs)
    v = tl.load(V + offs)
    m = (offs % 7) != 3
    if OP == "add":
        old = tl.atomic_add(Mem + i, v, mask=m)
    elif OP == "max":
        old = tl.atomic_max(Mem + i, v, mask=m)
    elif OP == "min":
        old = tl.atomic_min(Mem + i, v, mask=m)
    elif OP == "and":
        old = tl.atomic_and(Mem + i, v, mask=m)
    elif OP == "or":
        old = tl.atomic_or(Mem + i, v, mask=m)
    elif OP == "xor":
        old = tl.atomic_xor(Mem + i, v, mask=m)
    elif OP == "xchg":
        old = tl.atomic_xchg(Mem + i, v, mask=m)
    else:
        c = tl.load(C + offs)
        old = tl.atomic_cas(Mem + i, c, v)
    tl.store(Old + offs, old)


def _simulate(mem, idx, v, c, op, grid, n, tdt):
    """Lane-by-lane reference on torch scalars of the element type."""
    mem = mem.clone()
    old = torch.zeros(grid * n, dtype=tdt)
    for lane in range(grid * n):
        if op != "cas" and lane % 7 == 3:
            continue
        a = int(idx[lane])
        cur = mem[a].clone()
        old[lane] = cur
        x = v[lane]
        if op == "add":
            new = cur + x
        elif op == "max":
            new = torch.maximum(cur, x)
        elif op == "min":
            new = torch.minimum(cur, x)
        elif op == "and":
            new = cur & x
        elif op == "or":
            new = cur | x
        elif op == "xor":
            new = cur ^ x
        elif op == "xchg":
            new = x
        else:
            new = x if bool(cur == c[lane]) else cur
        mem[a] = new
    return mem, old


_CASES = [(torch.int32, op) for op in ("add", "max", "min", "and", "or", "xor", "xchg", "cas")] + \
    [(torch.int64, "add"), (torch.int64, "max"), (torch.int16, "add"),
     (torch.float32, "add"), (torch.float32, "max"), (torch.float32, "min"), (torch.float32, "xchg"),
     (torch.float64, "add"), (torch.float16, "add"), (torch.bfloat16, "add")]


@pytest.mark.parametrize("slots", [3, 300])
@pytest.mark.parametrize("tdt,op", _CASES)
def test_atomic_sequences_match_lane_by_lane(tdt, op, slots):
    grid, n = 3, 128
    g = torch.Generator().manual_seed(slots)
    idx = torch.randint(0, slots, (grid * n,), generator=g, dtype=torch.int32)
    if tdt.is_floating_point:
        v = (torch.randn(grid * n, generator=g) * 3).to(tdt)
        mem = (torch.randn(slots, generator=g) * 3).to(tdt)
        c = mem[idx.long()].clone()
    else:
        v = torch.randint(-1000, 1000, (grid * n,), generator=g).to(tdt)
        mem = torch.randint(-1000, 1000, (slots,), generator=g).to(tdt)
        c = torch.where(torch.arange(grid * n) % 3 == 0, mem[idx.long()], v)
    want_mem, want_old = _simulate(mem, idx, v, c, op, grid, n, tdt)
    old = torch.full((grid * n,), 7, dtype=tdt)
    rmw_kernel[(grid,)](mem, old, idx, v, c, N=n, OP=op)
    assert torch.equal(mem, want_mem)
    assert torch.equal(old, want_old)


def test_unsigned_atomic_max_min():
    # umax/umin compare as unsigned: 0xFFFFFFFF is the largest
    for op in ("max", "min"):
        idx = np.zeros(64, np.int32)
        v = np.arange(64, dtype=np.uint32) * np.uint32(0x05000000)
        mem = np.array([0x80000000], np.uint32)
        old = np.zeros(64, np.uint32)
        rmw_kernel[(1,)](mem, old, idx, v, v, N=64, OP=op)
        active = v[np.arange(64) % 7 != 3]
        want = max(0x80000000, int(active.max())) if op == "max" else min(0x80000000, int(active.min()))
        assert int(mem[0]) == want
