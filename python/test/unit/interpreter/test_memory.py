"""The bounds-checked memory model: loads, stores, atomics, block pointers, arguments."""

import numpy as np
import pytest
import torch

import tessera.language as tl
from tessera.interpreter import OutOfBoundsError

from ._util import basename_of, jit, line_of


@jit
def copy_kernel(X, Y, n, BLOCK: tl.constexpr, USE_MASK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if USE_MASK:
        m = offs < n
        x = tl.load(X + offs, mask=m)
        tl.store(Y + offs, x, mask=m)
    else:
        x = tl.load(X + offs)  # LOAD-LINE
        tl.store(Y + offs, x + 1)  # STORE-LINE


@jit
def store_oob_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs + 2, x)  # STORE-OOB


def test_unmasked_oob_load_reports_file_line_pid_offset():
    x = torch.arange(4096, dtype=torch.float32)
    y = torch.zeros(4096)
    with pytest.raises(OutOfBoundsError) as ei:
        copy_kernel[(5,)](x, y, 4100, BLOCK=1024, USE_MASK=False)
    e = ei.value
    assert isinstance(e, IndexError)
    msg = str(e)
    line = line_of(copy_kernel, "# LOAD-LINE")
    assert msg.startswith(f"{basename_of(copy_kernel)}:{line}: out-of-bounds load in program (4, 0, 0)"), msg
    assert "element offset 4096 of 'X' is outside its 4096 elements (byte offset 16384)" in msg
    assert (e.lineno, e.pid, e.kind, e.arg_name, e.element_offset) == (line, (4, 0, 0), "load", "X", 4096)
    # programs 0..3 ran before the failing one and wrote their blocks
    assert torch.equal(y, x + 1)


def test_oob_store_writes_nothing_and_names_store():
    x = np.arange(16, dtype=np.int32)
    y = np.full(16, -1, np.int32)
    with pytest.raises(OutOfBoundsError) as ei:
        store_oob_kernel[(1,)](x, y, BLOCK=16)
    msg = str(ei.value)
    assert f":{line_of(store_oob_kernel, '# STORE-OOB')}: out-of-bounds store in program (0, 0, 0)" in msg
    assert "element offset 16 of 'Y' is outside its 16 elements (byte offset 64)" in msg
    assert (y == -1).all()  # the whole store was rejected


def test_masked_oob_is_fine():
    x = torch.rand(1000)
    y = torch.zeros(1000)
    copy_kernel[(4,)](x, y, 1000, BLOCK=256, USE_MASK=True)
    assert torch.equal(x, y)


def test_negative_offset_names_argument():
    @jit
    def k(X, Y):
        tl.store(Y + tl.arange(0, 4), tl.load(X - 1 + tl.arange(0, 4)))

    msg = r"element offset -1 of 'X' is outside its 4 elements \(byte offset -4\)"
    with pytest.raises(OutOfBoundsError, match=msg):
        k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32))


def test_strided_views_and_unaligned_access():
    base = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    view = base[1:5, ::2]  # strided view; its extent is rows 1..4
    out = torch.zeros(4, 4)

    @jit
    def k(X, Y, sx0, sx1):
        r = tl.arange(0, 4)
        x = tl.load(X + r[:, None] * sx0 + r[None, :] * sx1)
        tl.store(Y + r[:, None] * 4 + r[None, :], x)

    k[(1,)](view, out, view.stride(0), view.stride(1))
    assert torch.equal(out, view)
    # one row past the view's extent is inside the storage but outside the tensor: rejected
    with pytest.raises(OutOfBoundsError, match="reachable through its strides"):
        k[(1,)](view, out, view.stride(0) * 2, view.stride(1))

    @jit
    def unaligned(X, Y):
        p = (X.to(tl.pointer_type(tl.int8)) + 1 + tl.arange(0, 4) * 4).to(tl.pointer_type(tl.int32))
        tl.store(Y + tl.arange(0, 4), tl.load(p))

    raw = np.arange(20, dtype=np.uint8)
    y = np.zeros(4, np.int32)
    unaligned[(1,)](raw, y)
    np.testing.assert_array_equal(y, raw[1:17].view(np.int32))


def test_numpy_arrays_bool_and_scalar_args():
    @jit
    def k(B, Out, f, i, flag):
        r = tl.arange(0, 8)
        b = tl.load(B + r)
        v = tl.where(b, f, i.to(tl.float32))
        if flag:
            v = v * 2
        tl.store(Out + r, v)
        tl.store(B + r, ~b)

    b = np.array([True, False] * 4)
    out = np.zeros(8, np.float32)
    k[(1,)](b, out, 1.5, 3, True)
    np.testing.assert_array_equal(out, np.where([True, False] * 4, 3.0, 6.0))
    np.testing.assert_array_equal(b, [False, True] * 4)


def test_argument_errors():
    with pytest.raises(TypeError, match="copy_kernel"):
        copy_kernel[(1,)](np.zeros(4), BLOCK=4, USE_MASK=True)
    meta = torch.empty(4, device="meta")
    with pytest.raises(ValueError, match="argument 'X'"):
        copy_kernel[(1,)](meta, np.zeros(4, np.float32), 4, BLOCK=4, USE_MASK=True)


def test_grid_callable_gets_bound_arguments():
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton_cdiv(meta["n"], meta["BLOCK"]),)

    def triton_cdiv(a, b):
        return (a + b - 1) // b
    x = torch.rand(300)
    y = torch.zeros(300)
    copy_kernel[grid](x, y, 300, BLOCK=128, USE_MASK=True)
    assert torch.equal(x, y)
    assert seen["BLOCK"] == 128 and seen["n"] == 300 and seen["X"] is x


def test_atomics_with_duplicate_addresses():
    @jit
    def k(H, Old, V, N: tl.constexpr):
        offs = tl.arange(0, N)
        b = tl.load(V + offs)
        old = tl.atomic_add(H + b, 1, mask=offs % 5 != 0)
        tl.store(Old + offs, old)

    v = np.array([0, 1, 0, 0, 2, 1, 0, 3] * 4, np.int32)
    h = np.zeros(4, np.int32)
    old = np.full(32, -7, np.int32)
    k[(3,)](h, old, v, N=32)
    active = np.arange(32) % 5 != 0
    np.testing.assert_array_equal(h, 3 * np.bincount(v[active], minlength=4))
    # the last program saw the counts after two programs; within it lanes apply in lane order
    seen = {b: 2 * int(np.bincount(v[active], minlength=4)[b]) for b in range(4)}
    want = []
    for i in range(32):
        if active[i]:
            want.append(seen[v[i]])
            seen[v[i]] += 1
        else:
            want.append(0)  # masked-off lanes return 0 and touch nothing
    np.testing.assert_array_equal(old, want)


def test_atomic_max_min_xchg_cas_fadd():
    @jit
    def k(P, F, Out, N: tl.constexpr):
        offs = tl.arange(0, N)
        vals = offs * 7 % 11 - 5
        tl.atomic_max(P + 0 * offs, vals)
        tl.atomic_min(P + 1 + 0 * offs, vals)
        old = tl.atomic_xchg(P + 2 + 0 * offs, offs)
        tl.store(Out + offs, old)
        tl.atomic_cas(P + 3 + 0 * offs, offs, offs + 100)  # succeeds only for lane P[3]'s value
        tl.atomic_add(F + offs % 2, 0.5)

    p = np.array([-100, 100, -1, 3], np.int32)
    f = np.zeros(2, np.float32)
    out = np.zeros(16, np.int32)
    k[(1,)](p, f, out, N=16)
    vals = np.arange(16) * 7 % 11 - 5
    assert p[0] == vals.max() and p[1] == vals.min()
    assert p[2] == 15 and out[0] == -1 and (out[1:] == np.arange(15)).all()
    assert p[3] == 103
    np.testing.assert_array_equal(f, [4.0, 4.0])


def test_block_pointers_with_boundary_check():
    @jit
    def k(X, Y, M, N, PAD: tl.constexpr):
        xb = tl.make_block_ptr(X, shape=(M, N), strides=(N, 1), offsets=(4, 6), block_shape=(8, 4), order=(1, 0))
        t = tl.load(xb, boundary_check=(0, 1), padding_option=PAD)
        yb = tl.make_block_ptr(Y, shape=(8, 4), strides=(4, 1), offsets=(0, 0), block_shape=(8, 4), order=(1, 0))
        tl.store(yb, t)
        xb2 = tl.advance(xb, (-4, -6))
        t2 = tl.load(xb2)
        zb = tl.make_block_ptr(X, shape=(M, N), strides=(N, 1), offsets=(8, 7), block_shape=(8, 4),
                               order=(1, 0))
        tl.store(zb, t2 * 0 - 1.0, boundary_check=(0, 1))

    M, N = 10, 9
    x = torch.arange(M * N, dtype=torch.float32).reshape(M, N)
    x0 = x.clone()
    y = torch.zeros(8, 4)
    k[(1,)](x, y, M, N, PAD="nan")
    want = torch.full((8, 4), float("nan"))
    want[:6, :3] = x0[4:10, 6:9]
    assert torch.equal(torch.isnan(y), torch.isnan(want)) and torch.equal(y[:6, :3], want[:6, :3])
    expect = x0.clone()
    expect[8:10, 7:9] = -1.0
    assert torch.equal(x, expect)
    # without boundary_check an access past the tensor is an OOB error
    with pytest.raises(OutOfBoundsError, match="out-of-bounds load"):
        @jit
        def bad(X, M, N):
            xb = tl.make_block_ptr(X, shape=(M, N), strides=(N, 1), offsets=(8, 0), block_shape=(4, 4),
                                   order=(1, 0))
            tl.load(xb)
        bad[(1,)](x, M, N)


def test_pointer_compare_and_where_on_pointers():
    @jit
    def k(A, B, Out):
        r = tl.arange(0, 8)
        p = tl.where(r < 4, A + r, B + r - 4)
        tl.store(Out + r, tl.load(p))

    a = np.arange(4, dtype=np.float32)
    b = np.arange(4, dtype=np.float32) + 10
    out = np.zeros(8, np.float32)
    k[(1,)](a, b, out)
    np.testing.assert_array_equal(out, np.concatenate([a, b]))
