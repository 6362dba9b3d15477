"""Benchmarking and testing helpers: do_bench (the launch backend's timing events, L2 flushed between runs)."""

import math

from . import backends
from .runtime.jit import interpret_mode


class _HostTiming(backends.Backend):
    """Host-clock timing for kernels that run in the interpreter."""
    name = "host"


_HOST = _HostTiming()

_L2_FLUSH_BYTES = 256 * 1024 * 1024  # larger than any current GPU's L2 (H200: 60 MiB)


def summarize(times, quantiles=None, return_mode="median"):
    """The statistic of a list of timings: `quantiles` (a list, e.g. (0.5, 0.2, 0.8)) or
    `return_mode` ("median", "mean", "min", "max" or "all")."""
    if not times:
        raise ValueError("no timings")
    xs = sorted(float(t) for t in times)
    if quantiles is not None:
        out = []
        for q in quantiles:
            if not 0.0 <= q <= 1.0:
                raise ValueError(f"quantile {q} is outside [0, 1]")
            pos = q * (len(xs) - 1)
            lo, hi = math.floor(pos), math.ceil(pos)
            out.append(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))
        return out
    if return_mode == "median":
        return summarize(xs, (0.5,))[0]
    if return_mode == "mean":
        return sum(xs) / len(xs)
    if return_mode == "min":
        return xs[0]
    if return_mode == "max":
        return xs[-1]
    if return_mode == "all":
        return list(times)
    raise ValueError(f"return_mode must be median, mean, min, max or all, got {return_mode!r}")


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="median"):
    """Time `fn` on the current stream of the launch backend (tessera.backends.launch_backend) in
    milliseconds.

    Runs `fn` for about `warmup` ms, then times about `rep` ms of runs one by one with the backend's
    timing events, writing a 256 MiB buffer before each run so that no run finds its data in L2.
    Returns the median (or `return_mode`), or the given `quantiles` of the run times.
    """
    if interpret_mode():
        # Kernels run in the CPU interpreter: time them on the host clock (no device events,
        # no cache to flush, nothing to synchronize).
        backend = _HOST
    else:
        backend = backends.launch_backend()
    if backend is None:
        raise RuntimeError("do_bench: no registered backend launches kernels")
    fn()
    backend.synchronize()
    flush = backend.device_buffer(_L2_FLUSH_BYTES if backend is not _HOST else 64)
    start = backend.timing_event()
    end = backend.timing_event()
    start.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    backend.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    n_warmup = max(1, int(warmup / estimate))
    n_rep = max(1, int(rep / estimate))
    starts = [backend.timing_event() for _ in range(n_rep)]
    ends = [backend.timing_event() for _ in range(n_rep)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_rep):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    backend.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return summarize(times, quantiles, return_mode)


__all__ = ["do_bench", "summarize"]
