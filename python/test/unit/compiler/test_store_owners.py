"""Stores nothing reads back are issued by one thread per element (compile-only: the PTX); so are
stores followed by a read that run at most once (outside loops), with a barrier after them; stores
read back in a loop keep every thread's copy. GPU checks in test/gpu/test_store_owners_gpu.py."""
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
    w = tl.load(tmp)  # every thread reads back what thread 0 wrote, after a barrier
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


def _lines(ptx):
    """The PTX's instructions and labels, without comments (the inline-asm markers)."""
    return [l.strip() for l in ptx.splitlines() if l.strip() and not l.strip().startswith("//")]


def test_store_read_back_once_is_thread_zeros_with_a_barrier():
    ptx = _ptx(store_then_read, {"x": "*fp32:16", "out": "*fp32:16", "tmp": "*fp32:16"})
    stores = _stores(ptx)
    assert len(stores) == 2
    # Both by thread 0: the first, read back afterwards, with a barrier right after it (before
    # the load); the last, which nothing reads, with none.
    for st in stores:
        cmp, operand, const = _owner_test(ptx, st)
        assert cmp.startswith("eq") and operand in ("tid", "tid&127") and const == 0, st
    lines = _lines(ptx)
    i = lines.index(stores[0])
    assert lines[i + 1].startswith("bar.sync"), lines[i:i + 3]
    assert ptx.count("bar.sync") == 1
    # The load of tmp comes after the barrier (the load of x before the first store).
    loads = [j for j, l in enumerate(lines) if re.match(r"(@%p\d+ )?ld\.global", l)]
    assert len(loads) == 2 and loads[0] < i < i + 1 < loads[1], (loads, i)


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


def test_store_read_back_in_a_later_block_gets_a_barrier():
    # The loop's load is in another block once the loop is lowered to branches; the store runs
    # once, before the loop: thread 0 stores, a barrier follows, and none is in the loop.
    ptx = _ptx(store_then_loop_read, {"tmp": "*fp32:16", "out": "*fp32:16", "n": "i32"})
    first = _stores(ptx)[0]
    assert "st.global.b32" in first and first.startswith("@"), first
    lines = _lines(ptx)
    assert lines[lines.index(first) + 1].startswith("bar.sync")
    assert ptx.count("bar.sync") == 1


@tessera.jit
def loop_store_read(tmp, out, n):
    pid = tl.program_id(0)
    acc = tl.zeros((128,), tl.float32)
    for i in range(n):
        tl.store(tmp + pid, i * 1.0)
        acc += tl.load(tmp + pid)
    tl.store(out + pid * 128 + tl.arange(0, 128), acc)


def test_store_read_back_in_a_loop_keeps_every_thread():
    # In a loop a barrier would run every iteration: every thread stores instead, no barrier.
    ptx = _ptx(loop_store_read, {"tmp": "*fp32:16", "out": "*fp32:16", "n": "i32"})
    first = _stores(ptx)[0]
    assert "st.global.b32" in first and not first.startswith("@"), first
    assert "bar.sync" not in ptx


@tessera.jit
def overwrite(x, y, out):
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.load(x + offs))
    tl.store(out + offs, tl.load(y + offs))


def test_overwrite_after_a_read_has_the_same_owners():
    # out is written by its owners first, with a barrier (a load follows); the second write of
    # the same elements (same layout) by the same owners, so no other thread's earlier write can
    # land after it.
    ptx = _ptx(overwrite, {"x": "*fp32:16", "y": "*fp32:16", "out": "*fp32:16"})
    stores = _stores(ptx)
    assert len(stores) == 2 and all(s.startswith("@") for s in stores), stores
    assert _owner_test(ptx, stores[0]) == _owner_test(ptx, stores[1])
    assert ptx.count("bar.sync") == 1


@tessera.jit
def loop_then_overwrite(x, out, n):
    offs = tl.arange(0, 16)
    for i in range(n):
        tl.store(out + offs, tl.load(out + offs) + tl.load(x + offs))
    tl.store(out + offs, tl.load(x + offs))


def test_overwrite_after_a_loop_store_keeps_every_thread():
    # The loop's store is by every copy holder (it is read back in the loop); the later write of
    # the same elements must be too, or an earlier write by another warp could land after it.
    ptx = _ptx(loop_then_overwrite, {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"})
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
