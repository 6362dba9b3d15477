"""Kernels for the autotuner's worker-pool tests (test_autotune_pool.py and the GPU test): at module
level, so that worker processes find them by name, and without torch, so that a worker starts in a
fraction of a second."""
import os
import time

import tessera
import tessera.language as tl


@tessera.jit
def add_const(x, out, n, BLOCK: tl.constexpr, C: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + C, mask=m)


@tessera.jit
def add_const_spin(x, out, n, BLOCK: tl.constexpr, C: tl.constexpr, SPIN: tl.constexpr):
    """out = x + C, after SPIN rounds of data-dependent selects that leave the value unchanged
    for |x| < 1e30 but cannot be folded away: configurations with more SPIN are clearly slower."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m, other=0.0)
    for _ in range(SPIN):
        v = tl.where(v > 1e30, v * 0.5 + 1.0, v)
    tl.store(out + offs, v + C, mask=m)


class Meet:
    """A stand-in for the int `value` inside a compile request: unpickled in a worker process it
    is `value`, once `n` different processes have unpickled one in `where` (or after `timeout` s).
    Each of the first `n` requests to arrive thus holds its worker until another worker has one:
    they complete only when compiled in `n` processes at once."""

    def __init__(self, value, where, n, timeout=60.0):
        self.value, self.where, self.n, self.timeout = value, where, n, timeout

    def __reduce__(self):
        return meet, (self.value, self.where, self.n, self.timeout)


def meet(value, where, n, timeout):
    open(os.path.join(where, str(os.getpid())), "w").close()
    deadline = time.monotonic() + timeout
    while len(os.listdir(where)) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    return value
