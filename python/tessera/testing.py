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


class Benchmark:
    """One benchmark table for perf_report: `x_names` (argument names the x values go to, all the
    same value per point unless each x value is a tuple), `x_vals`, `line_arg` (the argument
    that selects a line), `line_vals`, `line_names` (labels), `plot_name`, `args` (fixed keyword
    arguments), and the plot's `xlabel`, `ylabel`, `x_log`, `y_log`, `styles`, `color`."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="",
                 ylabel="", x_log=False, y_log=False, styles=None, color=None):
        if isinstance(x_names, str):
            raise TypeError("Benchmark: x_names must be a list of argument names, got a string")
        if len(line_vals) != len(line_names):
            raise ValueError(f"Benchmark '{plot_name}': {len(line_vals)} line_vals but {len(line_names)} "
                             f"line_names")
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.styles, self.color = styles, color


class Mark:
    """A function decorated with perf_report: `run()` measures its tables."""

    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def _table(self, bench, **kwargs):
        """(column names, rows): one row per x value, with each line's result (of a function that
        returns (value, min, max), the value)."""
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xs) != len(bench.x_names):
                raise ValueError(f"Benchmark '{bench.plot_name}': x value {x!r} does not match x_names "
                                 f"{bench.x_names}")
            x_args = dict(zip(bench.x_names, xs))
            row = list(xs)
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                row.append(ret[0] if isinstance(ret, (tuple, list)) else ret)
            rows.append(row)
        return list(bench.x_names) + list(bench.line_names), rows

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, save_precision=6, **kwargs):
        # diff_col is accepted as Triton's Mark.run takes it; the tables have no difference column.
        import os
        columns, rows = self._table(bench, **kwargs)
        if print_data:
            print(bench.plot_name + ":")
            print("  ".join(f"{c:>14}" for c in columns))
            for r in rows:
                print("  ".join(f"{v:>14.6g}" if isinstance(v, float) else f"{v!s:>14}" for v in r))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", encoding="utf-8") as f:
                f.write(",".join(columns) + "\n")
                for r in rows:
                    f.write(",".join(f"{v:.{save_precision}g}" if isinstance(v, float) else str(v)
                                     for v in r) + "\n")
        if show_plots or save_path:
            try:
                import matplotlib.pyplot as plt
            except ImportError:  # plots are optional: the table is printed and saved without them
                plt = None
            if plt is not None:
                fig, ax = plt.subplots()
                first = bench.x_names[0]
                xs = [r[0] for r in rows]
                for i, name in enumerate(bench.line_names):
                    style = bench.styles[i] if bench.styles else None
                    ax.plot(xs, [r[len(bench.x_names) + i] for r in rows], label=name,
                            **({"color": style[0], "ls": style[1]} if style else {}))
                ax.set_xlabel(bench.xlabel or first)
                ax.set_ylabel(bench.ylabel)
                ax.set_xscale("log" if bench.x_log else "linear")
                ax.set_yscale("log" if bench.y_log else "linear")
                ax.legend()
                if save_path:
                    fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
                if show_plots:
                    plt.show()
                plt.close(fig)
        return columns, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Measure every table. return_df: return the table(s) as pandas DataFrames when pandas is
        installed, else as (columns, rows) pairs."""
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        results = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benches]
        if not return_df:
            return None
        try:
            import pandas as pd
            results = [pd.DataFrame(rows, columns=cols) for cols, rows in results]
        except ImportError:
            pass
        return results if isinstance(self.benchmarks, list) else results[0]


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` (or a list of them) turns a function that returns
    a figure (or (figure, min, max)) for one point into a Mark whose run() builds the tables."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["do_bench", "summarize", "Benchmark", "Mark", "perf_report"]
