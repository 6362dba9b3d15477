"""Instrumentation: composable clients observing one run."""

import numpy as np
import pytest

import tessera.language as tl
from tessera import interpreter
from tessera.interpreter import hooks
from tessera.interpreter.clients import AccessStats, Tracer

from ._util import jit, line_of


@jit
def traced_kernel(X, Y, H, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0.0)  # L-LOAD
    s = tl.sum(x, axis=0)
    c = tl.cumsum(x, axis=0)
    tl.store(Y + offs, c, mask=m)  # L-STORE
    tl.atomic_add(H, s)  # L-ATOMIC


def test_two_clients_observe_one_run():
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    h = np.zeros(1, np.float32)
    tr, st = Tracer(), AccessStats()

    class Counter(interpreter.Client):
        def __init__(self):
            self.n = 0
            self.kernels = []

        def on_load(self, rec):
            self.n += 1

        def on_kernel_end(self, rec):
            self.kernels.append(rec.kernel)

    c = Counter()
    with interpreter.observe(tr, st, c):
        traced_kernel[(4,)](x, y, h, 100, BLOCK=32)
    assert not hooks.active()
    assert h[0] == x.sum()
    loads = tr.of_type(interpreter.LoadRecord)
    stores = tr.of_type(interpreter.StoreRecord)
    assert len(loads) == 4 and len(stores) == 4 and c.n == 4 and c.kernels == ["traced_kernel"]
    assert len(tr.of_type(interpreter.AtomicRecord)) == 4
    assert len(tr.of_type(interpreter.ReduceRecord)) == 4 and len(tr.of_type(interpreter.ScanRecord)) == 4
    r = loads[3]
    assert r.kernel == "traced_kernel" and r.pid == (3, 0, 0) and r.arg_name == "X"
    assert r.lineno == line_of(traced_kernel, "# L-LOAD") and r.elem_bytes == 4
    np.testing.assert_array_equal(r.offsets, 96 + np.arange(32))
    assert r.mask.sum() == 4 and r.bytes == 16
    assert tr.of_type(interpreter.ReduceRecord)[0].kind == "sum"
    assert "load: 4 ops, 400 bytes" in tr.summary()
    e = st.by_line[(traced_kernel.fn.__code__.co_filename, line_of(traced_kernel, "# L-LOAD"))]
    assert e["bytes_loaded"] == 400 and e["loads"] == 4
    assert e["masked_ratio"] == pytest.approx(28 / 128)
    es = st.by_line[(traced_kernel.fn.__code__.co_filename, line_of(traced_kernel, "# L-STORE"))]
    assert es["bytes_stored"] == 400
    assert st.total_loaded == 400 + 16 and st.total_stored == 400 + 16
    rep = st.report()
    assert "X" in rep and "400" in rep


def test_add_remove_client_and_no_records_without_clients():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    h = np.zeros(1, np.float32)
    tr = Tracer()
    interpreter.add_client(tr)
    try:
        traced_kernel[(1,)](x, y, h, 64, BLOCK=64)
    finally:
        interpreter.remove_client(tr)
    n = len(tr.records)
    assert n == 5
    traced_kernel[(1,)](x, y, h, 64, BLOCK=64)
    assert len(tr.records) == n
    with pytest.raises(ValueError):
        interpreter.remove_client(tr)
    with pytest.raises(TypeError):
        interpreter.add_client(object())


def test_dot_and_block_ptr_records():
    @jit
    def k(A, C):
        ab = tl.make_block_ptr(A, shape=(16, 16), strides=(16, 1), offsets=(0, 0), block_shape=(16, 16),
                               order=(1, 0))
        a = tl.load(ab)
        r = tl.arange(0, 16)
        tl.store(C + r[:, None] * 16 + r[None, :], tl.dot(a, a))

    a = np.eye(16, dtype=np.float32)
    c = np.zeros((16, 16), np.float32)
    tr = Tracer()
    with interpreter.observe(tr):
        k[(1,)](a, c)
    np.testing.assert_array_equal(c, a)
    d = tr.of_type(interpreter.DotRecord)[0]
    assert d.a_shape == (16, 16) and d.out_shape == (16, 16) and d.flops == 2 * 16 ** 3
    ld = tr.of_type(interpreter.LoadRecord)[0]
    assert ld.block_ptr and ld.bytes == 1024 and ld.arg_name == "A"
