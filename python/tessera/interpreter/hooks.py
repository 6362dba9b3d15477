"""Instrumentation of interpreted kernels: normalized records delivered to composable clients.

    from tessera.interpreter import observe
    from tessera.interpreter.clients import Tracer, AccessStats

    tr, st = Tracer(), AccessStats()
    with observe(tr, st):
        kernel[grid](...)
    print(tr.summary()); print(st.report())

Any number of clients may observe one run; each gets every record through its on_* methods.
Clients are attached with `observe(...)` (a context manager) or `add_client`/`remove_client`.
When no client is attached the interpreter builds no records at all.
"""

import contextlib
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

import numpy as np

# ------------------------------------------------------------------ records


@dataclass
class _Base:
    kernel: str
    pid: Tuple[int, int, int]
    filename: Optional[str]
    lineno: Optional[int]


@dataclass
class AccessRecord(_Base):
    """Common fields of LoadRecord and StoreRecord."""
    arg_name: Optional[str]  # the argument the (first active) address points into
    offsets: np.ndarray      # element offsets into that argument (shape of the access)
    mask: np.ndarray         # bool, shape of the access: lanes that were accessed
    elem_bytes: int
    bytes: int               # bytes moved (active lanes * elem_bytes)
    dtype: Any = None        # element dtype (tessera.language dtype)
    block_ptr: bool = False  # through a block pointer (tl.make_block_ptr)
    misaligned: int = 0      # active lanes whose real address is not a multiple of elem_bytes


@dataclass
class LoadRecord(AccessRecord):
    pass


@dataclass
class StoreRecord(AccessRecord):
    pass


@dataclass
class AtomicRecord(_Base):
    op: str
    arg_name: Optional[str]
    offsets: np.ndarray
    mask: np.ndarray
    elem_bytes: int
    bytes: int
    dtype: Any = None
    misaligned: int = 0


@dataclass
class DotRecord(_Base):
    a_shape: tuple
    b_shape: tuple
    out_shape: tuple
    a_dtype: Any
    b_dtype: Any
    out_dtype: Any
    flops: int = 0


@dataclass
class ReduceRecord(_Base):
    shape: tuple
    axis: int
    kind: Optional[str]
    dtypes: list = field(default_factory=list)


@dataclass
class ScanRecord(_Base):
    shape: tuple
    axis: int
    kind: Optional[str]
    reverse: bool = False
    dtypes: list = field(default_factory=list)


@dataclass
class CallRecord(_Base):
    """A call of a @jit function from kernel code (`lineno`: the call's line); `returned` is False
    when it starts and True when it has returned."""
    callee: str
    returned: bool = False


@dataclass
class BranchRecord(_Base):
    """A decision of kernel control flow at `lineno`: kind "if" (taken: the then-branch runs),
    "while" (taken: another iteration runs) or "for" (an iteration starts; `iteration` counts
    from 0 per entry into the loop)."""
    kind: str
    taken: bool
    iteration: int = 0


@dataclass
class KernelRecord:
    kernel: str
    grid: Tuple[int, int, int]
    filename: Optional[str]
    args: dict = field(default_factory=dict)


# ------------------------------------------------------------------ clients


class Client:
    """Base class of instrumentation clients: override the callbacks you need."""

    def on_kernel_start(self, rec: KernelRecord):
        pass

    def on_kernel_end(self, rec: KernelRecord):
        pass

    def on_load(self, rec: LoadRecord):
        pass

    def on_store(self, rec: StoreRecord):
        pass

    def on_atomic(self, rec: AtomicRecord):
        pass

    def on_dot(self, rec: DotRecord):
        pass

    def on_reduce(self, rec: ReduceRecord):
        pass

    def on_call(self, rec: CallRecord):
        pass

    def on_branch(self, rec: BranchRecord):
        pass

    def on_scan(self, rec: ScanRecord):
        pass

    def on_kernel_tensor(self, rec: KernelRecord, name: str, value):
        """A tensor that joined the running launch after it started (an output a kernel of the
        tessera.nki front end made): `name` is its argument name in records, `value` the host
        array; rec.args has it too from now on."""
        pass

    def on_error(self, error: Exception):
        """An error the interpreter is about to raise for the running program (an out-of-bounds
        access: tessera.interpreter.OutOfBoundsError, with its location, program, argument and
        offsets). The error still propagates after the clients saw it."""
        pass


_CLIENTS = []


def add_client(client):
    if not isinstance(client, Client):
        raise TypeError(f"an instrumentation client must derive from tessera.interpreter.Client, got {client!r}")
    _CLIENTS.append(client)
    return client


def remove_client(client):
    for i, c in enumerate(_CLIENTS):
        if c is client:
            del _CLIENTS[i]
            return
    raise ValueError(f"{client!r} is not attached")


def clients():
    return list(_CLIENTS)


def active():
    return bool(_CLIENTS)


@contextlib.contextmanager
def observe(*cls):
    """Attach clients for the duration of a `with` block."""
    for c in cls:
        add_client(c)
    try:
        yield cls[0] if len(cls) == 1 else cls
    finally:
        for c in cls:
            try:
                remove_client(c)
            except ValueError:
                pass


_METHOD = {
    LoadRecord: "on_load", StoreRecord: "on_store", AtomicRecord: "on_atomic", DotRecord: "on_dot",
    ReduceRecord: "on_reduce", ScanRecord: "on_scan", CallRecord: "on_call", BranchRecord: "on_branch",
}


def emit(rec):
    name = _METHOD[type(rec)]
    for c in list(_CLIENTS):
        getattr(c, name)(rec)


def error(exc):
    for c in list(_CLIENTS):
        c.on_error(exc)


def kernel_start(rec):
    for c in list(_CLIENTS):
        c.on_kernel_start(rec)


def kernel_tensor(rec, name, value):
    rec.args[name] = value
    for c in list(_CLIENTS):
        c.on_kernel_tensor(rec, name, value)


def kernel_end(rec):
    for c in list(_CLIENTS):
        c.on_kernel_end(rec)


# ------------------------------------------------------------------ the profiler

# The active tessera.profiler session, installed by the profiler (which sits above this layer):
# run_kernel reports each launch to it (interpreter_launch(name, grid) -> launch, then
# launch.program_start(pid) per program and interpreter_launch_end(launch)), and the builder's
# prof_record reports scope records to the launch (launch.scope(pid, name, is_end)).
_PROFILER = None


def set_profiler(sink):
    """Install the profiler's session (None: none). Returns the previous one."""
    global _PROFILER
    prev, _PROFILER = _PROFILER, sink
    return prev


def profiler():
    return _PROFILER
