#!/usr/bin/env python3
"""Runs Triton's tutorials 01, 02, 03, 05 and 06 under the installed Triton and under Tessera,
changing only their imports. It checks each against PyTorch and times them side by side.

    python3 benchmarks/tutorials/run_tutorials.py                 # quick (default): a few x_vals
    python3 benchmarks/tutorials/run_tutorials.py --full          # the tutorials' own benchmark sizes
    python3 benchmarks/tutorials/run_tutorials.py --tutorials 01,06 --impls tessera
    python3 benchmarks/tutorials/run_tutorials.py --check-rewrite # show and check the import rewriting
    python3 benchmarks/tutorials/run_tutorials.py --compile-only  # tessera.compile each kernel, no GPU

The tutorials come from benchmarks/tutorials/upstream/. That folder is git-ignored: see
UPSTREAM.md. Results go to $OUT/tutorials.json (OUT defaults to ./out), with a log of every
child process in $OUT/tutorials_log.txt and a short table on stdout.

How one tutorial runs, for each implementation in turn (the order alternates between
tutorials), in its own subprocess with a time limit:
  * Only the imports are rewritten, for Tessera (REWRITE_RULES below; none for Triton). The file
    is written to a work folder and imported as a module.
  * Correctness: the harness wraps torch.allclose and torch.testing.assert_close and records
    every call made from the tutorial's own file (line, pass or fail, the largest difference).
    A failing `assert` still stops the module, as upstream. 01 only prints the largest
    difference; that line is parsed, and 0 passes. 03's "✅/❌ Triton and Torch match" lines are
    recorded as well.
  * pytest-parametrized test functions that the module does not call itself (06's test_op) are
    called for each parameter combination from their marks. pytest.skip counts as skipped. In
    --quick only QUICK_TEST_LIMITS' leading values of some parameters are kept.
  * The body of `if __name__ == "__main__":` (06's benchmark) runs after the tests.
  * Benchmarks: the implementation's testing.perf_report is wrapped, and the Mark it returns
    runs through the harness's own runner instead of Mark.run. The runner calls the tutorial's
    benchmark function (which times with the implementation's own testing.do_bench) for every
    x value and line, writes no plots and no files, needs neither matplotlib nor pandas, and
    prints and records the table (print_data). An error at one point is recorded and the run
    goes on. --quick keeps QUICK_POINTS of each Benchmark's x_vals (the first, the last and
    evenly spaced ones between); the Benchmark objects are changed in place when perf_report
    is called. The tutorial text is not edited.
  * Shims (harness-side, recorded in the JSON under "shims", off with --no-shims): for an
    implementation without testing.perf_report/Benchmark (Tessera has both since run 37, so
    none is used), the harness supplies stand-ins with the same fields, so that the tutorial's
    kernels still get checked and timed. Without them such a tutorial stops
    at the decorator. When pytest is not installed, a stub provides
    pytest.mark.parametrize/pytest.skip.
  * --quick also sets PYTEST_VERSION in the child. 06 reads it at import time and then uses
    its single test configuration (BLOCK_M=128, BLOCK_N=64, 2 stages, 4 warps) instead of
    autotuning over 18 configurations, exactly as under pytest.
"""

import argparse
import ast
import functools
import hashlib
import importlib
import itertools
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _build_commit():
    sys.path.insert(0, os.path.dirname(HERE))
    from _loader import build_commit  # benchmarks/_loader.py
    return build_commit()
UPSTREAM_DIR = os.path.join(HERE, "upstream")
UPSTREAM_COMMIT = "79b73d19e6e017cc08565f51f5ac6ac85d1a31e0"  # main at the 3.6 branch point (UPSTREAM.md)
UPSTREAM_RELEASE = "v3.6.0 (7c56a5e40f7fd928dfd5c72902d5def0097db73a)"

TUTORIALS = {
    "01": "01-vector-add.py",
    "02": "02-fused-softmax.py",
    "03": "03-matrix-multiplication.py",
    "05": "05-layer-norm.py",
    "06": "06-fused-attention.py",
}
IMPLS = ("triton", "tessera")

# Seconds per tutorial and implementation (whole subprocess, compile + checks + benchmark).
QUICK_TIMEOUT = {"01": 90, "02": 120, "03": 240, "05": 150, "06": 300}
FULL_TIMEOUT = {"01": 300, "02": 600, "03": 900, "05": 600, "06": 1800}
QUICK_POINTS = 3
# --quick: leading values kept of some pytest parameters, per tutorial (others: all values).
QUICK_TEST_LIMITS = {"06": {"Z": 1, "H": 1, "N_CTX": 2}}

# The import rewriting for Tessera: purely import-level, applied to every `import triton...` /
# `from triton... import ...` statement (found with ast, at any nesting). The module path keeps
# its tail: tessera mirrors triton's layout (tessera.language, tessera.runtime, tessera.testing).
# A module that Tessera lacks, such as triton.tools.tensor_descriptor, maps to a tessera path that
# does not exist, and the import fails there as it would for a user.
REWRITE_RULES = [
    ("import triton", "import tessera as triton"),
    ("import triton as X", "import tessera as X"),
    ("import triton.M as X", "import tessera.M as X"),
    ("import triton.M", "import tessera.M; import tessera as triton"),
    ("from triton import N", "from tessera import N"),
    ("from triton.M import N", "from tessera.M import N"),
]
# The rules used by these five tutorials (Tessera has every target module).
REWRITES_USED = {
    "import triton": "import tessera as triton",
    "import triton.language as tl": "import tessera.language as tl",
    "from triton.runtime import driver": "from tessera.runtime import driver",
    "from triton.tools.tensor_descriptor import TensorDescriptor":
        "from tessera.tools.tensor_descriptor import TensorDescriptor",
}


# ============================================================ import rewriting

def _map_module(name):
    return "tessera" + name[len("triton"):]


def _is_triton(name):
    return name == "triton" or name.startswith("triton.")


def _rewrite_node(node):
    """The replacement text of one Import/ImportFrom statement, or None when it imports no triton."""
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module or not _is_triton(node.module):
            return None
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        return f"from {_map_module(node.module)} import {names}"
    if isinstance(node, ast.Import):
        if not any(_is_triton(a.name) for a in node.names):
            return None
        parts, bind_triton = [], False
        for a in node.names:
            if not _is_triton(a.name):
                parts.append(a.name + (f" as {a.asname}" if a.asname else ""))
            elif a.asname:
                parts.append(f"{_map_module(a.name)} as {a.asname}")
            elif a.name == "triton":
                parts.append("tessera as triton")
            else:  # `import triton.x` binds the name `triton`
                parts.append(_map_module(a.name))
                bind_triton = True
        text = "import " + ", ".join(parts)
        if bind_triton:
            text += "; import tessera as triton"
        return text
    return None


def rewrite_imports(src):
    """(new source, [(line, old, new)]): the triton imports of `src` rewritten for Tessera. Line
    numbers are kept: a statement spread over several lines becomes one line plus blank ones."""
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    changes = []
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))),
                       key=lambda n: n.lineno, reverse=True):
        new = _rewrite_node(node)
        if new is None:
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        head = lines[first][:node.col_offset]
        tail = lines[last][node.end_col_offset:]
        if head.strip() or (tail.strip() and not tail.strip().startswith(("#", ";"))):
            raise ValueError(f"line {node.lineno}: an import that shares its line with other code "
                             f"cannot be rewritten safely: {lines[first]!r}")
        old = "".join(lines[first:last + 1])
        eol = "\n" if old.endswith("\n") else ""
        new_text = head + new + tail.rstrip("\n") + eol
        lines[first:last + 1] = [new_text] + ["\n"] * (last - first)
        changes.append((node.lineno, old.strip(), (head + new).strip()))
    out = "".join(lines)
    changes.reverse()
    return out, changes


def tutorial_source(tut, impl):
    path = os.path.join(UPSTREAM_DIR, TUTORIALS[tut])
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: fetch the upstream tutorials first (benchmarks/tutorials/"
                                f"UPSTREAM.md)")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    sha = hashlib.sha256(src.encode()).hexdigest()
    if impl == "triton":
        return src, [], sha
    new, changes = rewrite_imports(src)
    return new, changes, sha


def check_rewrite():
    """Rewrite each tutorial, show the changed lines, check that the result is Python with the same
    number of lines and no triton import left."""
    ok = True
    for tut, fname in TUTORIALS.items():
        src, changes, sha = tutorial_source(tut, "tessera")
        orig, _, _ = tutorial_source(tut, "triton")
        problems = []
        try:
            compile(src, fname, "exec")
        except SyntaxError as e:
            problems.append(f"not valid Python: {e}")
        if len(src.splitlines()) != len(orig.splitlines()):
            problems.append("line count changed")
        for n in ast.walk(ast.parse(src)):
            mods = [a.name for a in n.names] if isinstance(n, ast.Import) else \
                [n.module or ""] if isinstance(n, ast.ImportFrom) else []
            if any(_is_triton(m) for m in mods):
                problems.append(f"line {n.lineno}: still imports triton")
        diff = [i + 1 for i, (a, b) in enumerate(zip(orig.splitlines(), src.splitlines())) if a != b]
        if sorted(diff) != sorted(c[0] for c in changes):
            problems.append(f"lines changed {diff} differ from the import statements {[c[0] for c in changes]}")
        print(f"== {fname} (sha256 {sha[:12]}): {len(changes)} import(s) rewritten, "
              f"{'OK' if not problems else 'PROBLEM'}")
        for line, old, new in changes:
            print(f"  {line:4d}: {old}\n     -> {new}")
        for p in problems:
            print(f"  !! {p}")
        ok &= not problems
    return 0 if ok else 1


# ============================================================ child: one tutorial, one implementation

class HarnessTimeout(BaseException):
    pass


class _Tee:
    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, s):
        self.parts.append(s)
        return self.stream.write(s)

    def flush(self):
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def text(self):
        return "".join(self.parts)


def _error_record(e, tb_lines=12):
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    text = "".join(tb).rstrip().splitlines()
    return {"type": f"{type(e).__module__}.{type(e).__qualname__}".replace("builtins.", ""),
            "message": str(e)[:2000], "traceback": text[-tb_lines * 2:]}


def _jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return repr(v)


def _pick(xs, k):
    xs = list(xs)
    if k <= 0 or len(xs) <= k:
        return xs
    if k == 1:
        return [xs[0]]
    idx = sorted({round(i * (len(xs) - 1) / (k - 1)) for i in range(k)})
    return [xs[i] for i in idx]


class ShimBenchmark:
    """Stand-in for triton.testing.Benchmark (same constructor), for implementations without one."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names, self.x_vals, self.line_arg = list(x_names), list(x_vals), line_arg
        self.line_vals, self.line_names, self.plot_name = list(line_vals), list(line_names), plot_name
        self.args, self.xlabel, self.ylabel = dict(args), xlabel, ylabel
        self.x_log, self.y_log, self.styles, self.color = x_log, y_log, styles, color


class ShimMark:
    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks


class Child:
    def __init__(self, args):
        self.args = args
        self.tut, self.impl = args.child, args.impl
        self.quick = not args.full
        self.res = {"tutorial": TUTORIALS[self.tut], "impl": self.impl, "mode": "quick" if self.quick else "full",
                    "phase": "start", "imported_impl": False, "module_ok": False, "checks": [], "tests": [],
                    "benchmarks": [], "shims": [], "rewrites": [], "error": None, "times": {}}
        self.path = None
        self.t0 = time.perf_counter()

    # ------------------------------------------------------------ bookkeeping
    def dump(self):
        self.res["times"]["total_s"] = round(time.perf_counter() - self.t0, 3)
        tmp = self.args.result + ".tmp"
        with open(tmp, "w") as f:
            json.dump(_jsonable(self.res), f, indent=1)
        os.replace(tmp, self.args.result)

    def phase(self, name):
        now = time.perf_counter()
        prev = self.res["phase"]
        start = self.res.get("_phase_start", self.t0)
        self.res["times"][f"{prev}_s"] = round(now - start, 3)
        self.res["phase"], self.res["_phase_start"] = name, now
        self.dump()

    def add_check(self, rec):
        self.res["checks"].append(rec)
        self.dump()

    # ------------------------------------------------------------ hooks
    def _caller_in_tutorial(self, depth=2):
        """The frame that called the wrapped torch function, when it is the tutorial's own code."""
        f = sys._getframe(depth)
        return f if f.f_code.co_filename == self.path else None

    def install_torch_hooks(self, torch):
        child = self
        orig_allclose = torch.allclose
        orig_assert_close = torch.testing.assert_close

        def _maxdiff(a, b):
            try:
                return float((a.double() - b.double()).abs().max())
            except Exception:  # noqa: BLE001
                return None

        def allclose(a, b, *args, **kwargs):
            r = orig_allclose(a, b, *args, **kwargs)
            fr = child._caller_in_tutorial()
            if fr is not None:
                child.add_check({"kind": "torch.allclose", "line": fr.f_lineno, "in": fr.f_code.co_name,
                                 "passed": bool(r), "max_abs_diff": _maxdiff(a, b), "kwargs": _jsonable(kwargs),
                                 "test": child.res.get("_current_test")})
            return r

        def assert_close(actual, expected, *args, **kwargs):
            fr = child._caller_in_tutorial()
            try:
                orig_assert_close(actual, expected, *args, **kwargs)
            except AssertionError as e:
                if fr is not None:
                    child.add_check({"kind": "torch.testing.assert_close", "line": fr.f_lineno,
                                     "in": fr.f_code.co_name, "passed": False,
                                     "max_abs_diff": _maxdiff(actual, expected), "kwargs": _jsonable(kwargs),
                                     "message": str(e)[:600], "test": child.res.get("_current_test")})
                raise
            if fr is not None:
                child.add_check({"kind": "torch.testing.assert_close", "line": fr.f_lineno, "in": fr.f_code.co_name,
                                 "passed": True, "max_abs_diff": _maxdiff(actual, expected),
                                 "kwargs": _jsonable(kwargs), "test": child.res.get("_current_test")})

        torch.allclose = allclose
        torch.testing.assert_close = assert_close

    def install_pytest_stub(self):
        try:
            import pytest  # noqa: F401
            return
        except ImportError:
            pass
        import types

        class Skipped(Exception):
            pass

        class _MarkDecorator:
            def __init__(self, name, args, kwargs):
                self.name, self.args, self.kwargs = name, args, kwargs

            def __call__(self, fn):
                fn.pytestmark = list(getattr(fn, "pytestmark", [])) + [self]  # appended, as pytest does
                return fn

        class _MarkGen:
            def __getattr__(self, name):
                return lambda *a, **k: _MarkDecorator(name, a, k)

        def skip(reason=""):
            raise Skipped(reason)
        skip.Exception = Skipped
        mod = types.ModuleType("pytest")
        mod.mark, mod.skip, mod.__harness_stub__ = _MarkGen(), skip, True
        sys.modules["pytest"] = mod
        self.res["shims"].append("pytest (stub: mark.parametrize, skip)")

    def install_testing_hooks(self, impl_mod):
        testing = impl_mod.testing
        child = self
        orig = getattr(testing, "perf_report", None)
        if orig is None or not hasattr(testing, "Benchmark"):
            if self.args.no_shims:
                self.res["missing_testing_api"] = [n for n in ("perf_report", "Benchmark")
                                                   if not hasattr(testing, n)]
                return
            if not hasattr(testing, "Benchmark"):
                testing.Benchmark = ShimBenchmark
                self.res["shims"].append(f"{self.impl}.testing.Benchmark")
            if orig is None:
                self.res["shims"].append(f"{self.impl}.testing.perf_report")

        def perf_report(benchmarks):
            blist = benchmarks if isinstance(benchmarks, list) else [benchmarks]
            if child.quick:
                for b in blist:
                    full = list(b.x_vals)
                    b.x_vals = _pick(full, child.args.quick_points)
            deco = orig(benchmarks) if orig is not None else (lambda fn: ShimMark(fn, benchmarks))

            def wrap(fn):
                mark = deco(fn)
                mark.run = functools.partial(child.run_mark, fn, blist)
                return mark
            return wrap
        testing.perf_report = perf_report

    # ------------------------------------------------------------ benchmarks
    def run_mark(self, fn, benches, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """The harness's Mark.run: no plots, no files; prints and records the table."""
        if self.args.skip_bench:
            self.res["benchmarks"].append({"skipped": "--skip-bench"})
            return None
        for b in benches:
            rec = {"plot_name": b.plot_name, "x_names": list(b.x_names), "line_arg": b.line_arg,
                   "line_vals": _jsonable(list(b.line_vals)), "line_names": list(b.line_names),
                   "ylabel": getattr(b, "ylabel", ""), "args": _jsonable(b.args), "rows": []}
            self.res["benchmarks"].append(rec)
            for x in b.x_vals:
                xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(b.x_names)
                x_args = dict(zip(b.x_names, xs))
                row = {"x": x_args, "y": {}, "y_min": {}, "y_max": {}, "seconds": {}, "errors": {}}
                rec["rows"].append(row)
                for y, name in zip(b.line_vals, b.line_names):
                    t = time.perf_counter()
                    try:
                        ret = fn(**x_args, **{b.line_arg: y}, **b.args, **kwargs)
                    except HarnessTimeout:
                        raise
                    except Exception as e:  # noqa: BLE001 - recorded, the table goes on
                        row["errors"][name] = _error_record(e, 6)
                        row["y"][name] = None
                    else:
                        if isinstance(ret, (tuple, list)):
                            row["y"][name], row["y_min"][name], row["y_max"][name] = (float(v) for v in ret[:3])
                        else:
                            row["y"][name] = float(ret)
                    row["seconds"][name] = round(time.perf_counter() - t, 3)
                    self.dump()
            self._print_table(rec)  # print_data or not: the table is the point
        return None

    @staticmethod
    def _print_table(rec):
        cols = rec["x_names"][:1] if all(len(set(r["x"].values())) == 1 for r in rec["rows"]) else rec["x_names"]
        head = cols + rec["line_names"]
        print(f"{rec['plot_name']} ({rec['ylabel']}):")
        print("  " + "".join(f"{h:>16}" for h in head))
        for r in rec["rows"]:
            vals = [str(r["x"][c]) for c in cols]
            for n in rec["line_names"]:
                v = r["y"].get(n)
                vals.append("ERR" if n in r["errors"] else "-" if v is None else f"{v:.3f}")
            print("  " + "".join(f"{v:>16}" for v in vals))
        sys.stdout.flush()

    # ------------------------------------------------------------ tests (pytest-parametrized functions)
    def run_param_tests(self, mod, src_tree):
        called = {n.func.id for n in ast.walk(src_tree)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        pytest = sys.modules.get("pytest")
        skip_exc = getattr(getattr(pytest, "skip", None), "Exception", None)
        limits = QUICK_TEST_LIMITS.get(self.tut, {}) if self.quick else {}
        for name, fn in list(vars(mod).items()):
            if not name.startswith("test") or not callable(fn) or name in called:
                continue
            marks = [m for m in getattr(fn, "pytestmark", []) if getattr(m, "name", "") == "parametrize"]
            if not marks:
                continue
            params = []
            for m in reversed(marks):  # the decorator nearest the function comes last in pytestmark
                names = [s.strip() for s in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
                values = list(m.args[1])
                if len(names) == 1:
                    values = [(v, ) for v in values]
                if len(names) == 1 and names[0] in limits:
                    values = values[:limits[names[0]]]
                params.append((names, values))
            for combo in itertools.product(*[p[1] for p in params]):
                kwargs = {}
                for (names, _), vals in zip(params, combo):
                    kwargs.update(zip(names, vals))
                case = {"test": name, "params": _jsonable(kwargs)}
                label = f"{name}[{'-'.join(str(v) for v in kwargs.values())}]"
                self.res["_current_test"] = label
                t = time.perf_counter()
                try:
                    fn(**kwargs)
                    case["result"] = "passed"
                except HarnessTimeout:
                    raise
                except BaseException as e:  # noqa: BLE001
                    if skip_exc is not None and isinstance(e, skip_exc):
                        case["result"], case["reason"] = "skipped", str(e)[:200]
                    else:
                        case["result"] = "failed" if isinstance(e, AssertionError) else "error"
                        case["error"] = _error_record(e, 6)
                case["seconds"] = round(time.perf_counter() - t, 3)
                case["label"] = label
                self.res["tests"].append(case)
                self.res["_current_test"] = None
                self.dump()
                print(f"[harness] {label}: {case['result']}", flush=True)

    # ------------------------------------------------------------ the run
    def run(self):
        def on_term(signum, frame):
            raise HarnessTimeout(f"stopped by the harness (time limit {self.args.timeout} s)")
        signal.signal(signal.SIGTERM, on_term)
        tee = _Tee(sys.stdout)
        sys.stdout = tee
        try:
            self._run()
        except HarnessTimeout as e:
            self.res["timed_out"] = True
            self.res["error"] = {"phase": self.res["phase"], **_error_record(e, 8)}
        except BaseException as e:  # noqa: BLE001
            self.res["error"] = {"phase": self.res["phase"], **_error_record(e)}
        finally:
            sys.stdout = tee.stream
            self.parse_prints(tee.text())
            self.res.pop("_phase_start", None)
            self.res.pop("_current_test", None)
            self.dump()

    def parse_prints(self, out):
        if self.tut == "01":
            for m in re.finditer(r"maximum difference between torch and triton is (\S+)", out):
                try:
                    v = float(m.group(1))
                except ValueError:
                    v = None
                self.res["checks"].append({"kind": "printed max difference (01)", "value": v,
                                           "passed": v == 0.0})
        if self.tut == "03":
            for m in re.finditer(r"(✅|❌) Triton and Torch (match|differ)", out):
                self.res["checks"].append({"kind": "printed match (03)", "text": m.group(0),
                                           "passed": m.group(1) == "✅", "counted": False})

    def _run(self):
        self.phase("import_impl")
        if self.impl == "tessera":
            sys.path.insert(0, os.path.join(ROOT, "python"))
        import torch
        self.res["torch"] = torch.__version__
        self.res["cuda_available"] = torch.cuda.is_available()
        if torch.cuda.is_available():
            self.res["gpu"] = torch.cuda.get_device_name()
            self.res["capability"] = list(torch.cuda.get_device_capability())
        self.install_torch_hooks(torch)
        self.install_pytest_stub()
        impl_mod = importlib.import_module(self.impl)
        importlib.import_module(f"{self.impl}.testing")
        importlib.import_module(f"{self.impl}.language")
        self.res["imported_impl"] = True
        self.res["impl_version"] = getattr(impl_mod, "__version__", "?")
        self.res["impl_file"] = getattr(impl_mod, "__file__", "?")
        self.install_testing_hooks(impl_mod)

        self.phase("module")
        src, changes, sha = tutorial_source(self.tut, self.impl)
        self.res["upstream_sha256"] = sha
        self.res["rewrites"] = [{"line": ln, "old": o, "new": n} for ln, o, n in changes]
        d = os.path.join(self.args.workdir, "src", self.impl)
        os.makedirs(d, exist_ok=True)
        self.path = os.path.join(d, TUTORIALS[self.tut])
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(src)
        tree = ast.parse(src)
        modname = f"tutorial_{self.tut}_{self.impl}"
        spec = importlib.util.spec_from_file_location(modname, self.path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        try:
            spec.loader.exec_module(mod)
            self.res["module_ok"] = True
        except HarnessTimeout:
            raise
        except BaseException as e:  # noqa: BLE001 - the module stopped; record and stop
            self.res["error"] = {"phase": "module", **_error_record(e)}
            return

        self.phase("tests")
        self.run_param_tests(mod, tree)

        self.phase("main")
        mains = [n for n in tree.body if isinstance(n, ast.If) and isinstance(n.test, ast.Compare)
                 and isinstance(n.test.left, ast.Name) and n.test.left.id == "__name__"]
        for node in mains:
            code = compile(ast.Module(body=node.body, type_ignores=[]), self.path, "exec")
            exec(code, vars(mod))  # noqa: S102 - the tutorial's own __main__ block
        self.phase("done")


def child_main(args):
    c = Child(args)
    c.run()
    return 0


# ============================================================ parent: run everything, summarize

def _summarize_child(r):
    counted = [c for c in r.get("checks", []) if c.get("counted", True)]
    tests = r.get("tests", [])
    points = [(row, n) for b in r.get("benchmarks", []) for row in b.get("rows", []) for n in b.get("line_names", [])]
    r["summary"] = {
        "imported_impl": r.get("imported_impl", False),
        "module_ok": r.get("module_ok", False),
        "checks_passed": sum(bool(c.get("passed")) for c in counted),
        "checks_total": len(counted),
        "tests_passed": sum(t["result"] == "passed" for t in tests),
        "tests_failed": sum(t["result"] in ("failed", "error") for t in tests),
        "tests_skipped": sum(t["result"] == "skipped" for t in tests),
        "bench_points_ok": sum(row["y"].get(n) is not None for row, n in points),
        "bench_points": len(points),
        "completed": r.get("phase") == "done" and not r.get("error"),
    }
    s = r["summary"]
    s["correct"] = bool(s["module_ok"] and s["checks_total"] and s["checks_passed"] == s["checks_total"]
                        and not s["tests_failed"])
    return r


def run_one(tut, impl, args, workdir, log):
    sub = os.path.join(workdir, f"{tut}_{impl}")
    os.makedirs(sub, exist_ok=True)
    result = os.path.join(sub, "result.json")
    logfile = os.path.join(sub, "log.txt")
    timeout = args.timeout or (QUICK_TIMEOUT if not args.full else FULL_TIMEOUT)[tut]
    cmd = [sys.executable, os.path.abspath(__file__), "--child", tut, "--impl", impl, "--result", result,
           "--workdir", sub, "--timeout", str(timeout), "--quick-points", str(args.quick_points)]
    cmd += ["--full"] if args.full else []
    cmd += ["--no-shims"] if args.no_shims else []
    cmd += ["--skip-bench"] if args.skip_bench else []
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    if not args.full:
        env["PYTEST_VERSION"] = env.get("PYTEST_VERSION", "harness-quick")
    if impl == "tessera":
        env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    if not args.warm_cache:
        env["TRITON_CACHE_DIR"] = os.path.join(workdir, "cache", "triton")
        env["TESSERA_CACHE_DIR"] = os.path.join(workdir, "cache", "tessera")
    t = time.perf_counter()
    timed_out = False
    with open(logfile, "w") as lf:
        p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, cwd=sub, env=env, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            p.send_signal(signal.SIGTERM)  # the child records where it was and writes its JSON
            try:
                rc = p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
    wall = time.perf_counter() - t
    try:
        with open(result) as f:
            r = json.load(f)
    except (OSError, ValueError):
        r = {"tutorial": TUTORIALS[tut], "impl": impl, "phase": "?", "checks": [], "tests": [], "benchmarks": [],
             "error": {"phase": "child", "type": "ChildCrashed",
                       "message": f"the child wrote no result (exit status {rc})", "traceback": []}}
    with open(logfile, errors="replace") as f:
        text = f.read()
    r["wall_s"] = round(wall, 2)
    r["returncode"] = rc
    r["timeout_s"] = timeout
    if timed_out:
        r["timed_out"] = True
        if not r.get("error"):
            r["error"] = {"phase": r.get("phase"), "type": "Timeout", "message": f"over {timeout} s",
                          "traceback": []}
    elif rc != 0 and not r.get("error"):
        r["error"] = {"phase": r.get("phase"), "type": "ChildExit", "message": f"exit status {rc}",
                      "traceback": text.strip().splitlines()[-10:]}
    r["log_tail"] = text[-3000:]
    log.write(f"\n===== {TUTORIALS[tut]} [{impl}] exit {rc}, {wall:.1f} s =====\n")
    log.write(text if len(text) < 60000 else text[:20000] + "\n[... cut ...]\n" + text[-40000:])
    log.flush()
    return _summarize_child(r)


def print_summary(results, impls):
    print("\n== tutorials")
    print(f"{'tutorial':28} {'impl':8} {'import':6} {'module':6} {'checks':7} {'tests p/f/s':12} "
          f"{'bench':8} {'wall s':>7}  error")
    for tut, per in results.items():
        for impl in impls:
            r = per.get(impl)
            if r is None:
                continue
            s = r["summary"]
            err = r.get("error")
            e = f"[{err.get('phase')}] {err.get('type')}: {err.get('message', '').splitlines()[0][:90]}" \
                if err else ""
            tests = f"{s['tests_passed']}/{s['tests_failed']}/{s['tests_skipped']}" if r.get("tests") else "-"
            print(f"{TUTORIALS[tut]:28} {impl:8} {'ok' if s['imported_impl'] else 'FAIL':6} "
                  f"{'ok' if s['module_ok'] else 'FAIL':6} {s['checks_passed']}/{s['checks_total']:<5} "
                  f"{tests:12} {s['bench_points_ok']}/{s['bench_points']:<6} {r['wall_s']:7.1f}  {e}")
    # side by side: every benchmark line, the two implementations' numbers, and their ratio
    if len(impls) < 2:
        return
    a, b = impls[0], impls[1]
    lines = []
    for tut, per in results.items():
        if a not in per or b not in per:
            continue
        ba = {x["plot_name"]: x for x in per[a].get("benchmarks", []) if "plot_name" in x}
        bb = {x["plot_name"]: x for x in per[b].get("benchmarks", []) if "plot_name" in x}
        for name, ra in ba.items():
            rb = bb.get(name)
            if rb is None:
                continue
            for row_a, row_b in zip(ra["rows"], rb["rows"]):
                xs = ",".join(f"{k}={v}" for k, v in row_a["x"].items()) if len(set(row_a["x"].values())) > 1 \
                    else f"{ra['x_names'][0]}={list(row_a['x'].values())[0]}"
                for n in ra["line_names"]:
                    va, vb = row_a["y"].get(n), row_b["y"].get(n)
                    ratio = f"{vb / va:.2f}" if va and vb else "-"
                    fa = "ERR" if n in row_a["errors"] else "-" if va is None else f"{va:.2f}"
                    fb = "ERR" if n in row_b["errors"] else "-" if vb is None else f"{vb:.2f}"
                    lines.append(f"{name[:44]:44} {xs[:22]:22} {n[:14]:14} {fa:>10} {fb:>10} {ratio:>7}")
    if lines:
        print(f"\n== benchmarks side by side (the tutorial's own units; '{b}/{a}' is the ratio of "
              f"{b} to {a}, both measured with their own do_bench; lines other than 'Triton' are "
              f"the PyTorch or other reference, a check of the timing)")
        print(f"{'benchmark':44} {'x':22} {'line':14} {a:>10} {b:>10} {b + '/' + a:>7}")
        for ln in lines:
            print(ln)


def parent_main(args):
    out = args.out or os.environ.get("OUT") or os.path.join(os.getcwd(), "out")
    os.makedirs(out, exist_ok=True)
    tuts = [t.strip() for t in args.tutorials.split(",") if t.strip()]
    for t in tuts:
        if t not in TUTORIALS:
            sys.exit(f"unknown tutorial {t!r}; choose from {', '.join(TUTORIALS)}")
    impls = [i.strip() for i in args.impls.split(",") if i.strip()]
    workdir = args.workdir or tempfile.mkdtemp(prefix="tessera_tutorials_")
    os.makedirs(workdir, exist_ok=True)
    meta = {"started": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(), "python": sys.version,
            "mode": "full" if args.full else "quick", "quick_points": None if args.full else args.quick_points,
            "shims": not args.no_shims, "tessera_commit": _build_commit(), "upstream_commit": UPSTREAM_COMMIT,
            "upstream_release": UPSTREAM_RELEASE, "rewrite_rules": REWRITE_RULES, "rewrites_used": REWRITES_USED,
            "workdir": workdir, "impl_order": "alternating: even tutorials in the given order, odd reversed"}
    results = {}
    doc = {"meta": meta, "results": results}
    log_path = os.path.join(out, "tutorials_log.txt")
    t_all = time.perf_counter()
    with open(log_path, "w") as log:
        for i, tut in enumerate(tuts):
            order = impls if i % 2 == 0 else list(reversed(impls))
            results[tut] = {}
            for impl in order:
                print(f"-- {TUTORIALS[tut]} [{impl}] ...", flush=True)
                r = run_one(tut, impl, args, workdir, log)
                results[tut][impl] = r
                s = r["summary"]
                print(f"   {'ok' if s['completed'] else 'FAILED'}: checks {s['checks_passed']}/{s['checks_total']}, "
                      f"bench points {s['bench_points_ok']}/{s['bench_points']}, {r['wall_s']:.1f} s"
                      + (f", {r['error']['type']}: {r['error']['message'].splitlines()[0][:120]}"
                         if r.get("error") else ""), flush=True)
                meta["total_s"] = round(time.perf_counter() - t_all, 1)
                with open(os.path.join(out, "tutorials.json"), "w") as f:
                    json.dump(_jsonable(doc), f, indent=1)
    print_summary(results, impls)
    print(f"\nwrote {os.path.join(out, 'tutorials.json')} and {log_path} ({meta['total_s']} s in all)")
    return 0


# ============================================================ compile only (no GPU): tessera.compile per kernel

def _load_definitions(tut):
    """The tutorial's imports, function definitions and module-level assignments, run one by one
    under Tessera (each may fail: recorded), without its module-level calls, loops, ifs or
    benchmarks; returns (namespace, notes)."""
    src, _, _ = tutorial_source(tut, "tessera")
    d = os.path.join(tempfile.gettempdir(), "tessera_tutorials_compile_only")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, TUTORIALS[tut])
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    tree = ast.parse(src)
    import types
    mod = types.ModuleType(f"tutorial_{tut}_compile_only")
    mod.__file__ = path
    sys.modules[mod.__name__] = mod
    ns = vars(mod)
    notes = []
    own = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id in own:
            continue  # `y = softmax(x)`: a launch, not a definition
        if not isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign,
                                 ast.AnnAssign, ast.Try, ast.If)):
            continue
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            continue
        code = compile(ast.Module(body=[node], type_ignores=[]), path, "exec")
        try:
            exec(code, ns)  # noqa: S102
        except Exception as e:  # noqa: BLE001
            notes.append(f"line {node.lineno}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
    return ns, notes


def _jit(obj):
    """The @jit function under autotune/heuristics wrappers."""
    import tessera
    for _ in range(5):
        if obj is None or isinstance(obj, tessera.JITFunction):
            return obj
        obj = vars(obj).get("fn") if hasattr(obj, "__dict__") else None
    return None


def compile_specs(tut, ns):
    """[(label, kernel, signature, constexprs, options)] mirroring the launches of the tutorial on
    an H100 (the argument types and the specializations Triton would make: 16-divisible ints get
    ':16', strides of 1 become constants)."""
    P = "*fp16:16"
    specs = []
    if tut == "01":
        specs.append(("add_kernel BLOCK_SIZE=1024", "add_kernel",
                      {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "output_ptr": "*fp32:16", "n_elements": "i32:16"},
                      {"BLOCK_SIZE": 1024}, {}))
    elif tut == "02":
        specs.append(("softmax_kernel 1823x781 (BLOCK 1024, 4 stages, 8 warps)", "softmax_kernel",
                      {"output_ptr": "*fp32:16", "input_ptr": "*fp32:16", "input_row_stride": "i32",
                       "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
                      {"BLOCK_SIZE": 1024, "num_stages": 4}, {"num_warps": 8}))
    elif tut == "03":
        cfgs = ns["get_cuda_autotune_config"]() if "get_cuda_autotune_config" in ns else []
        for fp8 in (False, True):
            elt = "*fp8e5:16" if fp8 else P
            sig = {"a_ptr": elt, "b_ptr": elt, "c_ptr": P, "M": "i32:16", "N": "i32:16", "K": "i32:16",
                   "stride_am": "i32:16", "stride_cm": "i32:16"}
            strides = {"stride_ak": 1, "stride_cn": 1}
            if fp8:  # b = b.T: column-major, stride_bk == 1
                sig["stride_bn"] = "i32:16"
                strides["stride_bk"] = 1
            else:
                sig["stride_bk"] = "i32:16"
                strides["stride_bn"] = 1
            for c in cfgs:
                k = c.kwargs
                label = (f"matmul_kernel {'fp8e5' if fp8 else 'fp16'} {k['BLOCK_SIZE_M']}x{k['BLOCK_SIZE_N']}x"
                         f"{k['BLOCK_SIZE_K']} w{c.num_warps} s{c.num_stages}")
                specs.append((label, "matmul_kernel", sig, {**k, **strides, "ACTIVATION": ""},
                              {"num_warps": c.num_warps, "num_stages": c.num_stages}))
    elif tut == "05":
        specs.append(("_layer_norm_fwd_fused N=8192 fp16 (BLOCK 8192, 8 warps)", "_layer_norm_fwd_fused",
                      {"X": P, "Y": P, "W": P, "B": P, "Mean": "*fp32:16", "Rstd": "*fp32:16", "stride": "i32:16",
                       "N": "i32:16", "eps": "fp32"}, {"BLOCK_SIZE": 8192}, {"num_warps": 8}))
        specs.append(("_layer_norm_bwd_dx_fused N=8192 fp16 (GROUP 96, 8 warps)", "_layer_norm_bwd_dx_fused",
                      {"DX": P, "DY": P, "DW": P, "DB": P, "X": P, "W": P, "Mean": "*fp32:16", "Rstd": "*fp32:16",
                       "Lock": "*i32:16", "stride": "i32:16", "N": "i32:16"},
                      {"GROUP_SIZE_M": 96, "BLOCK_SIZE_N": 8192}, {"num_warps": 8}))
        specs.append(("_layer_norm_bwd_dwdb (32x128)", "_layer_norm_bwd_dwdb",
                      {"DW": P, "DB": P, "FINAL_DW": P, "FINAL_DB": P, "M": "i32:16", "N": "i32:16"},
                      {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128}, {}))
    elif tut == "06":
        for hd in (64, 128):
            for stage, ws in ((1, False), (3, False), (1, True)):
                base = {"sm_scale": "fp32", "M": "*fp32:16", "Z": "i32", "H": "i32", "N_CTX": "i32:16"}
                consts = {"HEAD_DIM": hd, "BLOCK_M": 128, "BLOCK_N": 64, "FP8_OUTPUT": False, "STAGE": stage,
                          "warp_specialize": ws, "IS_HOPPER": True}
                what = f"HEAD_DIM={hd} {'causal' if stage == 3 else 'non-causal'} ws={ws}"
                if not ws:
                    specs.append((f"_attn_fwd host TensorDescriptor {what}", "_attn_fwd",
                                  {**base, **{d: f"tensordesc<fp16[{128 if d in ('desc_q', 'desc_o') else 64}, {hd}]>"
                                              for d in ("desc_q", "desc_k", "desc_v", "desc_o")}},
                                  consts, {"num_warps": 4, "num_stages": 2}))
                specs.append((f"_attn_fwd device descriptors (pointers) {what}", "_attn_fwd",
                              {**base, "desc_q": P, "desc_k": P, "desc_v": P, "desc_o": P}, consts,
                              {"num_warps": 4, "num_stages": 2}))
            specs.append((f"_attn_bwd_preprocess HEAD_DIM={hd}", "_attn_bwd_preprocess",
                          {"O": P, "DO": P, "Delta": "*fp32:16", "Z": "i32", "H": "i32", "N_CTX": "i32:16"},
                          {"BLOCK_M": 128, "HEAD_DIM": hd}, {}))
            for causal in (False, True):
                specs.append((f"_attn_bwd HEAD_DIM={hd} causal={causal} (w4 s5)", "_attn_bwd",
                              {"Q": P, "K": P, "V": P, "sm_scale": "fp32", "DO": P, "DQ": P, "DK": P, "DV": P,
                               "M": "*fp32:16", "D": "*fp32:16", "stride_z": "i32:16", "stride_h": "i32:16",
                               "stride_tok": "i32:16", "H": "i32", "N_CTX": "i32:16"},
                              {"stride_d": 1, "BLOCK_M1": 32, "BLOCK_N1": 128, "BLOCK_M2": 128, "BLOCK_N2": 32,
                               "BLK_SLICE_FACTOR": 2, "HEAD_DIM": hd, "CAUSAL": causal},
                              {"num_warps": 4, "num_stages": 5}))
    return specs


def _pretend_h100():
    """compile-only runs on a machine without a GPU: make the tutorials' module-level code take its
    CUDA/sm_90 branches (driver target cuda:90, torch.cuda.get_device_capability() == (9, 0), H100
    device properties), with tensors on the CPU (nothing is launched)."""
    import collections
    import types
    import torch
    import tessera
    target = collections.namedtuple("GPUTarget", ["backend", "arch", "warp_size"])("cuda", 90, 32)
    props = {"multiprocessor_count": 132, "max_num_regs": 65536, "max_shared_mem": 232448, "warpSize": 32}
    fake = types.SimpleNamespace(get_current_target=lambda: target, get_current_device=lambda: 0,
                                 get_active_torch_device=lambda: torch.device("cpu"),
                                 utils=types.SimpleNamespace(get_device_properties=lambda dev: dict(props)))
    tessera.runtime.driver.set_active(fake)
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)


def _install_probe_stubs():
    """--probe: no-op stand-ins for missing language builtins, to see what fails after them."""
    import tessera.language as tl
    from tessera.language import builtins as B
    stubbed = []
    if not hasattr(tl, "assume"):
        @B.builtin
        def assume(cond):
            return None
        tl.assume = assume
        stubbed.append("tl.assume (no-op)")
    return stubbed


def compile_only_main(args):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tessera
    _pretend_h100()
    stubs = _install_probe_stubs() if args.probe else []
    if stubs:
        print(f"PROBE: harness stand-ins installed: {', '.join(stubs)} (not Tessera's; for finding the next gap)")
    out = args.out or os.environ.get("OUT") or os.path.join(os.getcwd(), "out")
    os.makedirs(out, exist_ok=True)
    results = []
    tuts = [t.strip() for t in args.tutorials.split(",") if t.strip()]
    for tut in tuts:
        ns, notes = _load_definitions(tut)
        print(f"== {TUTORIALS[tut]}" + (f"  (definitions that did not run here: {'; '.join(notes)})" if notes else ""))
        for label, kname, sig, consts, opts in compile_specs(tut, ns):
            rec = {"tutorial": TUTORIALS[tut], "kernel": kname, "label": label, "signature": sig,
                   "constexprs": _jsonable(consts), "options": opts, "target": args.target, "probe_stubs": stubs}
            t = time.perf_counter()
            try:
                fn = _jit(ns.get(kname))
                if fn is None:
                    raise NameError(f"{kname} was not defined (see the notes above)")
                k = tessera.compile(fn, signature=sig, constexprs=consts, target=args.target, **opts)
                rec["ok"] = True
                rec["stages"] = list(k.asm)
                rec["shared"] = k.metadata.get("shared")
                rec["cubin"] = "cubin" in k.asm
            except Exception as e:  # noqa: BLE001
                rec["ok"] = False
                msg = str(e).strip()
                rec["error"] = {"type": type(e).__name__, "message": msg[:3000]}
            rec["seconds"] = round(time.perf_counter() - t, 2)
            results.append(rec)
            if rec["ok"]:
                print(f"  ok    {label}  ({rec['seconds']} s, shared {rec['shared']} B, "
                      f"{'cubin' if rec['cubin'] else 'ptx only'})")
            else:
                first = rec["error"]["message"].splitlines()
                print(f"  FAIL  {label}: {rec['error']['type']}: {first[0][:200] if first else ''}")
                for ln in first[1:4]:
                    print(f"          {ln[:200]}")
            sys.stdout.flush()
    with open(os.path.join(out, "compile_only_probe.json" if stubs else "compile_only.json"), "w") as f:
        json.dump(results, f, indent=1)
    n_ok = sum(r["ok"] for r in results)
    print(f"\n{n_ok}/{len(results)} compiled for {args.target}" + (" (with probe stand-ins)" if stubs else ""))
    return 0


# ============================================================ main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="a few x_vals per benchmark (the default)")
    mode.add_argument("--full", action="store_true", help="the tutorials' own benchmark sizes")
    ap.add_argument("--tutorials", default=",".join(TUTORIALS), help="comma-separated: 01,02,03,05,06")
    ap.add_argument("--impls", default=",".join(IMPLS), help="comma-separated: triton,tessera")
    ap.add_argument("--out", help="output folder (default: $OUT, else ./out)")
    ap.add_argument("--workdir", help="work folder for rewritten sources, caches and logs (default: a new temp dir)")
    ap.add_argument("--timeout", type=int, default=0, help="seconds per tutorial and implementation "
                    "(default: per tutorial, see QUICK_TIMEOUT/FULL_TIMEOUT)")
    ap.add_argument("--quick-points", type=int, default=QUICK_POINTS, help="x values kept per benchmark in quick mode")
    ap.add_argument("--no-shims", action="store_true", help="no harness stand-ins for missing testing APIs")
    ap.add_argument("--skip-bench", action="store_true", help="checks and tests only, no benchmark tables")
    ap.add_argument("--warm-cache", action="store_true",
                    help="use the default kernel caches (default: fresh TRITON_CACHE_DIR/TESSERA_CACHE_DIR per run)")
    ap.add_argument("--check-rewrite", action="store_true", help="show and check the import rewriting, then exit")
    ap.add_argument("--compile-only", action="store_true",
                    help="tessera.compile each tutorial kernel for --target (no GPU needed), then exit")
    ap.add_argument("--target", default="cuda:90")
    ap.add_argument("--probe", action="store_true",
                    help="with --compile-only: no-op stand-ins for missing builtins (tl.assume), to find the next gap")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--impl", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.check_rewrite:
        return check_rewrite()
    if args.compile_only:
        return compile_only_main(args)
    if args.child:
        return child_main(args)
    return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
