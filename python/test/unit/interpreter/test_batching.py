"""Batched execution (interpreter/batch.py): the programs of a launch run together and give what
running them one after another gives, byte for byte; each reason to run serially does so and
still gives the serial result."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera.language as tl
from tessera import interpreter
from tessera.interpreter import OutOfBoundsError
from tessera.interpreter.clients import Tracer

from ...conftest import CONFORMANCE, ROOT
from ._util import jit


def _bytes(t):
    if isinstance(t, np.ndarray):
        return t.tobytes()
    return t.detach().contiguous().view(torch.uint8).numpy().tobytes()


def both(monkeypatch, kernel, grid, make_args, **consts):
    """Runs kernel[grid](*make_args(), **consts) serially and batched on fresh arguments; returns
    (serial args, batched args, batched launch's stats). The arguments' bytes must be equal."""
    out = {}
    for mode in ("0", "1"):
        monkeypatch.setenv("TESSERA_INTERPRET_BATCH", mode)
        args = make_args()
        kernel[grid](*args, **consts)
        out[mode] = (args, interpreter.last_launch(kernel))
    monkeypatch.delenv("TESSERA_INTERPRET_BATCH")
    (sa, sst), (ba, bst) = out["0"], out["1"]
    assert sst["fallback"] == "TESSERA_INTERPRET_BATCH=0" and sst["batched"] == 0
    for i, (s, b) in enumerate(zip(sa, ba)):
        if isinstance(s, (np.ndarray, torch.Tensor)):
            assert _bytes(s) == _bytes(b), f"argument {i} differs"
    return sa, ba, bst


# ------------------------------------------------------------------ batched as serial


@jit
def shapes_kernel(X, W, Out, Red, Dots, Scan, Arg, Hist, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    x = tl.load(X + pid * M * N + rm[:, None] * N + rn[None, :])          # [M, N], per program
    w = tl.load(W + rn[:, None] * K + rk[None, :])                         # [N, K], shared
    a = tl.dot(x, w)                                                       # [M, K]
    a = tl.dot(x, w, a)
    tl.store(Dots + pid * M * K + rm[:, None] * K + rk[None, :], a)
    s0 = tl.sum(x, axis=0)                                                 # [N]
    s1 = tl.sum(x * 3.0, axis=1, keep_dims=True)                           # [M, 1]
    s2 = tl.sum(s1, axis=0)                                                # [1]
    mx = tl.max(tl.trans(x), axis=0)                                       # [M]
    t3 = tl.reshape(x, (M, N // 4, 4))
    s3 = tl.sum(t3, axis=1)                                                # [M, 4]
    tl.store(Red + pid * (N + M + 1 + M + 4 * M) + tl.arange(0, N), s0)
    tl.store(Red + pid * (N + M + 1 + M + 4 * M) + N + rm[:, None], s1)
    tl.store(Red + pid * (N + M + 1 + M + 4 * M) + N + M + tl.arange(0, 1), s2)
    tl.store(Red + pid * (N + M + 1 + M + 4 * M) + N + M + 1 + rm, mx)
    tl.store(Red + pid * (N + M + 1 + M + 4 * M) + N + 2 * M + 1 + rm[:, None] * 4 + tl.arange(0, 4)[None, :], s3)
    c = tl.cumsum(x, axis=0)
    p = tl.associative_scan(x, 1, _mul)
    tl.store(Scan + pid * 2 * M * N + rm[:, None] * N + rn[None, :], c)
    tl.store(Scan + pid * 2 * M * N + M * N + rm[:, None] * N + rn[None, :], p)
    i0 = tl.argmin(x, axis=0)
    i1 = tl.argmax(x, axis=1)
    tl.store(Arg + pid * (N + M) + rn, i0)
    tl.store(Arg + pid * (N + M) + N + rm, i1)
    h = tl.histogram((tl.reshape(x, (M * N,)) * 4.0).to(tl.int32) + 8, 16)
    tl.store(Hist + pid * 16 + tl.arange(0, 16), h)


@jit
def _mul(a, b):
    return a * b + 0.5


def test_reductions_dots_scans_equal_serial_bytes(monkeypatch):
    P, M, N, K = 12, 16, 32, 16

    def make():
        g = torch.Generator().manual_seed(1)
        x = torch.randn(P * M * N, generator=g) * 100
        w = torch.randn(N * K, generator=g)
        return [x, w, torch.zeros(P * M * K), torch.zeros(P * (N + 6 * M + 1)), torch.zeros(P * M * K),
                torch.zeros(2 * P * M * N), torch.zeros(P * (N + M), dtype=torch.int32),
                torch.zeros(P * 16, dtype=torch.int32)]
    sa, ba, st = both(monkeypatch, shapes_kernel, (P,), make, M=M, N=N, K=K)
    assert st["fallback"] is None and st["batched"] == P
    # and the values are right (not only equal): the dot and a reduction against torch
    x = sa[0].view(P, M, N)
    d = x @ sa[1].view(N, K)
    torch.testing.assert_close(ba[4].view(P, M, K), 2 * d, rtol=1e-4, atol=1e-2)
    torch.testing.assert_close(ba[3].view(P, -1)[:, :N], x.sum(1), rtol=1e-5, atol=1e-3)


def _case_tensors(d):
    """The tensors a conformance case's launch closes over (its inputs and outputs)."""
    seen, out = set(), []
    for f in (d["launch"],):
        for cell in f.__closure__ or ():
            v = cell.cell_contents
            if isinstance(v, torch.Tensor) and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def test_conformance_batched_equals_serial(monkeypatch):
    sys.path.insert(0, CONFORMANCE)
    try:
        import runner
        mod = runner.load_kernels("tessera")
    finally:
        sys.path.remove(CONFORMANCE)
    for name, make in mod.CASES.items():
        res = {}
        for mode in ("0", "1"):
            monkeypatch.setenv("TESSERA_INTERPRET_BATCH", mode)
            torch.manual_seed(0)
            d = make(torch, "cpu")
            d["launch"]()
            ts = _case_tensors(d)
            assert ts, name
            res[mode] = ([_bytes(t) for t in ts], interpreter.last_launch(mod.KERNELS[name]))
        assert res["0"][0] == res["1"][0], name
        st = res["1"][1]
        assert st["fallback"] is None and st["serial"] == 0 and st["batched"] > 1, (name, st)
    monkeypatch.delenv("TESSERA_INTERPRET_BATCH")


def test_interpreter_tests_kernels_batched_equal_serial():
    """The interpreter's and the language's tests with TESSERA_INTERPRET_BATCH_VERIFY=1: every
    batched launch is run again serially from the same memory and must leave the same bytes
    (single-program launches are batched too); counts the launches so verified."""
    if os.environ.get("TESSERA_INTERPRET_BATCH_VERIFY"):
        pytest.skip("running inside the verified run")
    driver = (
        "import sys, pytest\n"
        "from tessera.interpreter import batch\n"
        "n = [0, 0]\n"
        "orig = batch.run_verified\n"
        "def counted(*a, **k):\n"
        "    st = orig(*a, **k)\n"
        "    n[0] += 1\n"
        "    n[1] += st['batched']\n"
        "    return st\n"
        "batch.run_verified = counted\n"
        "rc = pytest.main(['-q', '-x', '-p', 'no:cacheprovider', 'test/unit/interpreter', 'test/unit/language'])\n"
        "print('VERIFIED', n[0], n[1])\n"
        "sys.exit(rc)\n")
    env = dict(os.environ, TESSERA_INTERPRET_BATCH_VERIFY="1", PYTHONPATH=ROOT)
    env.pop("TESSERA_INTERPRET_BATCH", None)
    r = subprocess.run([sys.executable, "-c", driver], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("VERIFIED")][-1]
    launches, programs = map(int, line.split()[1:])
    assert launches > 300 and programs > 1000, line


# ------------------------------------------------------------------ splits on divergence


@jit
def parity_kernel(X, Acc, Out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(Acc + pid)
    tl.store(Acc + pid, a + 1)  # before the split: undone when the group runs again
    x = tl.load(X + offs)
    if pid % 2 == 0:
        y = x * 2
    else:
        y = x * 3
    for i in range(pid % 3):  # a range bound that differs between programs
        y += 1
    tl.store(Out + offs, y)


def test_divergent_control_flow_splits_and_undoes(monkeypatch):
    def make():
        return [torch.arange(16 * 8, dtype=torch.float32), torch.zeros(16), torch.zeros(16 * 8)]
    sa, ba, st = both(monkeypatch, parity_kernel, (16,), make, BLOCK=8)
    assert st["fallback"] is None and st["batched"] == 16
    assert st["runs"] >= 4  # split by parity, then by pid % 3
    assert torch.equal(ba[1], torch.ones(16))  # each program incremented its counter once
    pid = torch.arange(16).repeat_interleave(8)
    want = ba[0] * torch.where(pid % 2 == 0, 2.0, 3.0) + (pid % 3)
    assert torch.equal(ba[2], want)


@jit
def range_kernel(Out):
    pid = tl.program_id(0)
    k = 0
    for i in range(pid):  # a different trip count in every program
        k += 1
    tl.store(Out + pid, k)


def test_too_many_groups_run_serially(monkeypatch):
    sa, ba, st = both(monkeypatch, range_kernel, (64,), lambda: [torch.zeros(64, dtype=torch.int32)])
    assert st["fallback"] == "TooDivergent" and st["serial"] == 64
    assert torch.equal(ba[0], torch.arange(64, dtype=torch.int32))


@jit
def walk_kernel(X, N, Steps, Last, Trace, LIMIT: tl.constexpr):
    # each program walks its own row until a zero: a `while` whose trip count differs by program
    pid = tl.program_id(0)
    p = X + pid * N
    count = 0
    last = tl.load(p)
    v = last
    while v != 0:
        tl.device_assert(count < LIMIT, "walked too far")  # checked for the programs still walking
        tl.store(Trace + pid * N + count, v * 10)          # stores of programs that left are off
        last = v
        count += 1
        p += 1
        v = tl.load(p)                                      # so are loads: they would run past the row
        inner = 0
        while inner < v % 3:                                # a nested loop, diverging too
            inner += 1
        tl.atomic_add(Steps + pid, inner)
    tl.store(Last + pid, last + count * 1000)


def test_divergent_while_loops_run_batched(monkeypatch):
    N, P = 12, 16

    def make():
        g = torch.Generator().manual_seed(5)
        x = torch.randint(1, 9, (P, N), generator=g, dtype=torch.int32)
        for r in range(P):
            x[r, (r * 5) % (N - 1)] = 0  # row r stops at a different place
        x[:, N - 1] = 0
        return [x.reshape(-1), N, torch.zeros(P, dtype=torch.int32), torch.zeros(P, dtype=torch.int32),
                torch.zeros(P * N, dtype=torch.int32)]
    sa, ba, st = both(monkeypatch, walk_kernel, (P,), make, LIMIT=N)
    assert st["fallback"] is None and st["batched"] == P and st["runs"] == 1  # no split at all
    x = ba[0].view(P, N)
    for r in range(P):
        n = int((x[r] != 0).int().cumprod(0).sum())
        want_last = int(x[r, n - 1]) if n else int(x[r, 0])
        assert int(ba[3][r]) == want_last + n * 1000
        assert torch.equal(ba[4].view(P, N)[r, :n], x[r, :n] * 10) and not ba[4].view(P, N)[r, n:].any()
        assert int(ba[2][r]) == int((x[r, 1:n + 1] % 3).sum())


@jit
def early_return_loop_kernel(Out):
    pid = tl.program_id(0)
    k = 0
    while k < 10:
        if k == pid % 4:
            tl.store(Out + pid, k)
            return
        k += 1


def test_a_loop_that_returns_splits_the_batch(monkeypatch):
    sa, ba, st = both(monkeypatch, early_return_loop_kernel, (12,), lambda: [torch.full((12,), -1, dtype=torch.int32)])
    assert st["fallback"] is None and st["runs"] > 1
    assert torch.equal(ba[0], torch.arange(12, dtype=torch.int32) % 4)


# ------------------------------------------------------------------ conflicts between programs


@jit
def running_sum_kernel(Buf):
    # each program adds its predecessor's (already updated) value: a chain through memory
    pid = tl.program_id(0)
    v = tl.load(Buf + pid)
    prev = tl.load(Buf + pid - 1, mask=pid > 0, other=0)
    tl.store(Buf + pid, v + prev)


def test_reading_another_programs_write_runs_serially(monkeypatch):
    sa, ba, st = both(monkeypatch, running_sum_kernel, (32,), lambda: [torch.arange(1, 33, dtype=torch.int32)])
    assert st["fallback"] == "Conflict" and st["serial"] == 32
    # undone before the serial run: otherwise values would be added twice
    assert torch.equal(ba[0], torch.cumsum(torch.arange(1, 33), 0).to(torch.int32))


@jit
def last_writer_kernel(Out):
    pid = tl.program_id(0)
    tl.store(Out, pid)
    tl.store(Out + 1 + pid, pid * 2)


def test_two_programs_writing_one_address_run_serially(monkeypatch):
    sa, ba, st = both(monkeypatch, last_writer_kernel, (10,), lambda: [torch.zeros(11, dtype=torch.int32)])
    assert st["fallback"] == "Conflict"
    assert int(ba[0][0]) == 9 and torch.equal(ba[0][1:], torch.arange(10, dtype=torch.int32) * 2)


@jit
def inplace_kernel(X, Y, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs + SHIFT, tl.load(X + offs) + 1)


def test_aliased_arguments_are_one_memory(monkeypatch):
    # the same tensor as input and output, each program in its own block: batched
    def same():
        x = torch.arange(64, dtype=torch.float32)
        return [x, x]
    sa, ba, st = both(monkeypatch, inplace_kernel, (8,), same, BLOCK=8, SHIFT=0)
    assert st["fallback"] is None and torch.equal(ba[0], torch.arange(64, dtype=torch.float32) + 1)

    # the output a view one element further: each program writes into the next one's input
    def shifted():
        x = torch.arange(65, dtype=torch.float32)
        return [x, x[1:]]
    sa, ba, st = both(monkeypatch, inplace_kernel, (8,), shifted, BLOCK=8, SHIFT=0)
    assert st["fallback"] == "Conflict"
    x = torch.arange(65, dtype=torch.float32)
    for p in range(8):  # serial semantics, program after program
        x[p * 8 + 1: p * 8 + 9] = x[p * 8: p * 8 + 8].clone() + 1
    assert torch.equal(ba[0], x)


# ------------------------------------------------------------------ atomics


@jit
def counts_kernel(X, H, Old, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(X + offs, mask=m, other=0)
    old = tl.atomic_add(H + v % NB, 1, mask=m)
    tl.store(Old + offs, old, mask=m)


def test_atomics_of_one_op_stay_batched_with_serial_old_values(monkeypatch):
    def make():
        g = torch.Generator().manual_seed(3)
        return [torch.randint(0, 1000, (5000,), generator=g, dtype=torch.int32), torch.zeros(8, dtype=torch.int32),
                torch.zeros(5000, dtype=torch.int32)]
    sa, ba, st = both(monkeypatch, counts_kernel, (20,), lambda: make() + [5000], NB=8, BLOCK=256)
    assert st["fallback"] is None and st["batched"] == 20
    assert torch.equal(ba[1], torch.bincount((ba[0] % 8).long(), minlength=8).to(torch.int32))
    # the old values: the k-th lane (in program order) hitting a bin sees k
    seen = [0] * 8
    for i, b in enumerate((ba[0] % 8).tolist()):
        assert int(ba[2][i]) == seen[b]
        seen[b] += 1


@jit
def float_acc_kernel(X, Acc, R: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(R):
        tl.atomic_add(Acc, tl.load(X + pid * R + i))


def test_float_atomics_out_of_program_order_run_serially(monkeypatch):
    vals = torch.tensor([1e8, 1.0, -1e8, 3.0, 1e-3, 7.0, 1e7, -1.0, 0.5] * 4, dtype=torch.float32)
    sa, ba, st = both(monkeypatch, float_acc_kernel, (12,), lambda: [vals.clone(), torch.zeros(1)], R=3)
    assert st["fallback"] == "Conflict"
    acc = np.float32(0)
    for v in vals.numpy():  # program after program, in order
        acc = np.float32(acc + v)
    assert ba[1].numpy()[0] == acc


@jit
def ticket_kernel(C, Out):
    pid = tl.program_id(0)
    tl.atomic_add(C, 1)
    tl.store(Out + pid, tl.load(C))  # a plain read of what other programs update atomically


def test_plain_read_of_an_atomic_counter_runs_serially(monkeypatch):
    sa, ba, st = both(monkeypatch, ticket_kernel, (16,), lambda: [torch.zeros(1, dtype=torch.int32),
                                                                   torch.zeros(16, dtype=torch.int32)])
    assert st["fallback"] == "Conflict"
    assert torch.equal(ba[1], torch.arange(1, 17, dtype=torch.int32))


# ------------------------------------------------------------------ what runs serially


@jit
def print_kernel(X, MODE: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    if MODE == 0:
        tl.device_print("x", x)
    elif MODE == 1:
        tl.static_print("program", MODE)
    else:
        print("program", MODE)
    tl.store(X + pid, x + 1)


@pytest.mark.parametrize("mode,reason", [(0, "tl.device_print"), (1, "tl.static_print"), (2, "print")])
def test_prints_run_serially(monkeypatch, capfd, mode, reason):
    print_kernel.__dict__.pop("_interpreter_unbatchable", None)
    print_kernel[(1,)](torch.zeros(1, dtype=torch.int32), MODE=mode)  # the front end's check may print once
    capfd.readouterr()
    printed = {}
    for batch_mode in ("0", "1"):
        monkeypatch.setenv("TESSERA_INTERPRET_BATCH", batch_mode)
        print_kernel.__dict__.pop("_interpreter_unbatchable", None)
        x = torch.arange(6, dtype=torch.int32)
        print_kernel[(6,)](x, MODE=mode)
        assert torch.equal(x, torch.arange(1, 7, dtype=torch.int32))
        printed[batch_mode] = capfd.readouterr().out
        st = interpreter.last_launch(print_kernel)
    assert printed["0"] == printed["1"] and len(printed["1"].splitlines()) == 6
    assert st["fallback"] == reason and st["serial"] == 6
    # remembered: the next launch is serial from the start
    print_kernel[(6,)](x, MODE=mode)
    capfd.readouterr()
    assert interpreter.last_launch(print_kernel)["fallback"] == reason
    monkeypatch.delenv("TESSERA_INTERPRET_BATCH")


@jit
def bp_kernel(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(X, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0), block_shape=(BM, BN),
                           order=(1, 0))
    yb = tl.make_block_ptr(Y, shape=(N, M), strides=(M, 1), offsets=(0, pid * BM), block_shape=(BN, BM),
                           order=(1, 0))
    for _ in range(0, tl.cdiv(N, BN)):
        t = tl.load(xb, boundary_check=(0, 1), padding_option="nan")
        tl.store(yb, tl.trans(t) * 2, boundary_check=(0, 1))
        xb = tl.advance(xb, (0, BN))
        yb = tl.advance(yb, (BN, 0))


def test_block_pointers_batched(monkeypatch):
    def make():
        return [torch.arange(37 * 45, dtype=torch.float32), torch.full((45 * 37,), -1.0), 37, 45]
    sa, ba, st = both(monkeypatch, bp_kernel, (5,), make, BM=8, BN=16)
    assert st["fallback"] is None and st["batched"] == 5
    assert torch.equal(ba[1].view(45, 37), (torch.arange(37 * 45, dtype=torch.float32).view(37, 45) * 2).t())


@jit
def scratch_kernel(X, Out, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.extra.global_scratch(BLOCK * 4, 16).to(tl.pointer_type(tl.float32))
    tl.store(s + offs, tl.load(X + pid * BLOCK + offs) + pid)
    tl.store(Out + pid * BLOCK + offs, tl.load(s + (BLOCK - 1 - offs)))


def test_global_scratch_is_per_program_in_a_batch(monkeypatch):
    sa, ba, st = both(monkeypatch, scratch_kernel, (6,), lambda: [torch.arange(48, dtype=torch.float32),
                                                                    torch.zeros(48)], BLOCK=8)
    assert st["fallback"] is None and st["batched"] == 6
    want = (torch.arange(48, dtype=torch.float32).view(6, 8) + torch.arange(6)[:, None]).flip(1).reshape(-1)
    assert torch.equal(ba[1], want)


@jit
def oob_kernel(X, Y, BAD: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * 8 + tl.arange(0, 8)
    tl.store(Y + offs, pid + 1)
    if pid == BAD:
        offs = offs + 1000
    tl.store(Y + offs + 1, tl.load(X + offs))


@jit
def assert_kernel(X, Y):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    tl.store(Y + pid, x)
    tl.device_assert(x < 5, "x too large")


@pytest.mark.parametrize("what", ["oob", "assert"])
def test_errors_are_raised_as_serially(monkeypatch, what):
    res = {}
    for mode in ("0", "1"):
        monkeypatch.setenv("TESSERA_INTERPRET_BATCH", mode)
        if what == "oob":
            args = [torch.arange(80, dtype=torch.int32), torch.zeros(90, dtype=torch.int32)]
            with pytest.raises(OutOfBoundsError) as ei:
                oob_kernel[(10,)](*args, BAD=6)
            assert ei.value.pid == (6, 0, 0)
        else:
            args = [torch.arange(10, dtype=torch.int32), torch.zeros(10, dtype=torch.int32)]
            with pytest.raises(AssertionError) as ei:
                assert_kernel[(10,)](*args)
            assert "program (5, 0, 0)" in str(ei.value)
        res[mode] = (str(ei.value), [_bytes(a) for a in args])
    assert res["0"] == res["1"]  # the same message, and memory as the serial run left it
    monkeypatch.delenv("TESSERA_INTERPRET_BATCH")


def test_clients_and_the_switch_run_serially(monkeypatch):
    x = torch.arange(64, dtype=torch.float32)
    y = torch.zeros(64)
    tr = Tracer()
    with interpreter.observe(tr):
        inplace_kernel[(8,)](x, y, BLOCK=8, SHIFT=0)
    assert interpreter.last_launch(inplace_kernel)["fallback"] == "clients attached"
    pids = [r.pid for r in tr.of_type(interpreter.StoreRecord)]
    assert pids == [(p, 0, 0) for p in range(8)]
    monkeypatch.setenv("TESSERA_INTERPRET_BATCH", "0")
    inplace_kernel[(8,)](x, y, BLOCK=8, SHIFT=0)
    assert interpreter.last_launch(inplace_kernel) == {"batches": 0, "runs": 0, "batched": 0, "serial": 8,
                                                       "fallback": "TESSERA_INTERPRET_BATCH=0"}
    monkeypatch.setenv("TESSERA_INTERPRET_BATCH", "3")  # at most 3 programs per batch
    inplace_kernel[(8,)](x, y, BLOCK=8, SHIFT=0)
    st = interpreter.last_launch(inplace_kernel)
    assert st["batches"] == 3 and st["batched"] == 8
    monkeypatch.setenv("TESSERA_INTERPRET_BATCH", "many")
    with pytest.raises(ValueError, match="TESSERA_INTERPRET_BATCH"):
        inplace_kernel[(8,)](x, y, BLOCK=8, SHIFT=0)


def test_reads_kept_as_spans_past_the_log_budget(monkeypatch):
    from tessera.interpreter import batch
    monkeypatch.setattr(batch, "_LOG_BUDGET", 0)  # every read of unwritten memory keeps spans only
    # disjoint spans: still batched
    sa, ba, st = both(monkeypatch, inplace_kernel, (8,), lambda: [torch.arange(64, dtype=torch.float32),
                                                                    torch.zeros(64)], BLOCK=8, SHIFT=0)
    assert st["fallback"] is None and torch.equal(ba[1], torch.arange(64, dtype=torch.float32) + 1)
    # overlapping spans of memory read before it was written: serially, and right
    sa, ba, st = both(monkeypatch, running_sum_kernel, (32,), lambda: [torch.arange(1, 33, dtype=torch.int32)])
    assert st["fallback"] == "Conflict"
    assert torch.equal(ba[0], torch.cumsum(torch.arange(1, 33), 0).to(torch.int32))
