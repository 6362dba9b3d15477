"""Call and control-flow hooks of the interpreter: CallRecord when a kernel calls a @jit function
(start and return, at the call's line) and BranchRecord for each `if`/`while` decision and each
`for` iteration, with the program id and line; none of them changes what the kernel computes, and
nothing is recorded without a client."""
import torch

import tessera
import tessera.language as tl
from tessera import interpreter
from tessera.interpreter import BranchRecord, CallRecord, observe
from tessera.interpreter.clients import Tracer


@tessera.jit
def twice(v):
    return v * 2


@tessera.jit
def flow(x, y, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    if pid % 2 == 0:
        v = twice(v)
    for i in range(STEPS):
        v = v + 1
    k = 0
    while k < 2:
        k += 1
    tl.store(y + offs, v, mask=offs < n)


def lines_of(fn, text):
    import inspect
    src, first = inspect.getsourcelines(fn.fn)
    return [first + i for i, line in enumerate(src) if text in line]


def test_calls_and_control_flow_are_reported():
    x = torch.arange(32, dtype=torch.float32)
    y = torch.zeros(32)
    tr = Tracer()
    with observe(tr):
        flow[(4,)](x, y, 32, STEPS=3, BLOCK=8)
    ref = x.clone().reshape(4, 8)
    ref[0::2] *= 2
    torch.testing.assert_close(y, ref.reshape(-1) + 3)
    (if_line,) = lines_of(flow, "if pid % 2 == 0")
    (for_line,) = lines_of(flow, "for i in range")
    (while_line,) = lines_of(flow, "while k < 2")
    (call_line,) = lines_of(flow, "v = twice(v)")
    branches = tr.of_type(BranchRecord)
    ifs = [(r.pid[0], r.taken) for r in branches if r.kind == "if"]
    assert ifs == [(0, True), (1, False), (2, True), (3, False)]
    assert all(r.lineno == if_line for r in branches if r.kind == "if")
    fors = [(r.pid[0], r.iteration) for r in branches if r.kind == "for"]
    assert fors == [(p, i) for p in range(4) for i in range(3)]
    assert all(r.lineno == for_line for r in branches if r.kind == "for")
    whiles = [r.taken for r in branches if r.kind == "while" and r.pid[0] == 0]
    assert whiles == [True, True, False] and all(r.lineno == while_line for r in branches if r.kind == "while")
    calls = tr.of_type(CallRecord)
    assert [(r.pid[0], r.callee, r.returned) for r in calls] == [
        (0, "twice", False), (0, "twice", True), (2, "twice", False), (2, "twice", True)]
    assert all(r.lineno == call_line for r in calls)
    assert "call: 4 ops" in tr.summary() and "branch:" in tr.summary()


def test_a_client_sees_only_what_it_overrides():
    class Ifs(interpreter.Client):
        def __init__(self):
            self.taken = []

        def on_branch(self, rec):
            if rec.kind == "if":
                self.taken.append(rec.taken)

    c = Ifs()
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    with observe(c):
        flow[(2,)](x, y, 16, STEPS=1, BLOCK=8)
    assert c.taken == [True, False]


def test_no_client_no_records():
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    flow[(2,)](x, y, 16, STEPS=2, BLOCK=8)  # runs without any client attached
    torch.testing.assert_close(y[:8], x[:8] * 2 + 2)
