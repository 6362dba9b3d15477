"""Stores nothing reads back are issued by one thread per element (compile-only: the PTX); stores
followed by a read keep every thread's copy. GPU checks in test/gpu/test_store_owners_gpu.py."""
import re

import tessera
import tessera.language as tl


@tessera.jit
def row_max(x, out, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + row * N + offs, mask=offs < N, other=-float("inf"))
    tl.store(out + row, tl.max(v, axis=0))


@tessera.jit
def store_then_read(x, out, tmp):
    v = tl.load(x)
    tl.store(tmp, v * 2.0)
    w = tl.load(tmp)  # every thread reads back what it wrote
    tl.store(out, w + 1.0)


@tessera.jit
def small_tile(x, out):
    # 16 elements over 4 warps: lanes 16-31 and warps 1-3 hold copies.
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.load(x + offs) + 1.0)


def _stores(ptx):
    return [l.strip() for l in ptx.splitlines() if "st.global" in l]


def _owner_test(ptx, store):
    """The condition the store's predicate tests, as (comparison, tid operand, constant): the
    predicate must be computed from %tid.x alone (directly or through one and)."""
    pred = re.match(r"@(%p\d+) st\.global", store).group(1)
    tid = re.search(r"mov\.u32\s+(%r\d+), %tid\.x;", ptx).group(1)
    cmp, reg, const = re.search(rf"setp\.(\w+\.\w+)\s+{re.escape(pred)}, (%r\d+), (\d+);", ptx).groups()
    if reg != tid:
        mask = re.search(rf"and\.b32\s+{re.escape(reg)}, {re.escape(tid)}, (\d+);", ptx).group(1)
        return cmp, f"tid&{mask}", int(const)
    return cmp, "tid", int(const)


def _ptx(fn, sig, cx=None, warps=4):
    return tessera.compile(fn, signature=sig, constexprs=cx or {}, target="cuda:90", num_warps=warps).asm["ptx"]


def test_scalar_result_stored_by_thread_zero():
    ptx = _ptx(row_max, {"x": "*fp32:16", "out": "*fp32:16", "N": "i32"}, {"BLOCK": 1024})
    (store,) = _stores(ptx)
    # tid & 127 == 0, which LLVM simplifies to tid == 0 (.reqntid 128).
    cmp, operand, const = _owner_test(ptx, store)
    assert cmp.startswith("eq") and operand in ("tid", "tid&127") and const == 0


def test_store_read_back_keeps_every_thread():
    ptx = _ptx(store_then_read, {"x": "*fp32:16", "out": "*fp32:16", "tmp": "*fp32:16"})
    stores = _stores(ptx)
    assert len(stores) == 2
    assert not stores[0].startswith("@"), "the store read back afterwards must be done by every thread"
    # The last store is read by nothing, but a store by every thread precedes it (to an address
    # it may share): issued by one thread, it could land before another thread's earlier write.
    assert not stores[1].startswith("@"), stores[1]


def test_replicated_tile_stored_once_per_element():
    ptx = _ptx(small_tile, {"x": "*fp32:16", "out": "*fp32:16"})
    # Thread bits 4 (lanes 16-31), 5 and 6 (warps 1-3) must be zero: tid & 112 == 0, which LLVM
    # simplifies to tid < 16 (.reqntid 128).
    (store,) = _stores(ptx)
    assert _owner_test(ptx, store) in (("lt.u32", "tid", 16), ("eq.b32", "tid&112", 0), ("eq.s32", "tid&112", 0))


@tessera.jit
def store_then_loop_read(tmp, out, n):
    pid = tl.program_id(0)
    tl.store(tmp + pid, pid.to(tl.float32))
    acc = tl.zeros((128,), tl.float32)
    for i in range(n):
        acc += tl.load(tmp + pid)
    tl.store(out + pid * 128 + tl.arange(0, 128), acc)


def test_store_read_back_in_a_later_block_keeps_every_thread():
    # The loop's load is in another block once the loop is lowered to branches.
    ptx = _ptx(store_then_loop_read, {"tmp": "*fp32:16", "out": "*fp32:16", "n": "i32"})
    first = _stores(ptx)[0]
    assert "st.global.b32" in first and not first.startswith("@"), first


@tessera.jit
def overwrite(x, y, out):
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.load(x + offs))
    tl.store(out + offs, tl.load(y + offs))


def test_overwrite_after_a_read_keeps_every_thread():
    # out is written by every copy holder first (a load follows); the second write of the same
    # elements must be issued by every copy holder too, or an earlier write by another warp could
    # land after it.
    ptx = _ptx(overwrite, {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16"})
    assert all(not s.startswith("@") for s in _stores(ptx)), _stores(ptx)


@tessera.jit
def two_results(x, a, b, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    tl.store(a, tl.max(v, axis=0))
    tl.store(b, tl.sum(v, axis=0))


def test_two_scalar_results_stored_by_thread_zero():
    # Two stores nothing reads back, both scalars: thread 0 stores both (in order).
    ptx = _ptx(two_results, {"x": "*fp32:16", "a": "*fp32:16", "b": "*fp32:16"}, {"BLOCK": 1024})
    stores = _stores(ptx)
    assert len(stores) == 2 and all(s.startswith("@") for s in stores), stores
