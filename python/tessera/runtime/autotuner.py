"""@tessera.autotune, @tessera.heuristics and tessera.Config.

    @tessera.autotune(configs=[tessera.Config({"BLOCK": 128}, num_warps=4),
                               tessera.Config({"BLOCK": 256}, num_warps=8)], key=["n"])
    @tessera.jit
    def kernel(x, n, BLOCK: tl.constexpr): ...

The first launch for each value of the `key` arguments (and the element types of the tensor
arguments) times every configuration with `do_bench` and keeps the fastest; later launches with
the same key use it directly. Configurations that do not fit the GPU (OutOfResources) or fail to
compile (CompilationError) are skipped, with the reason logged on the "tessera.autotune" logger.
Choices are stored in the disk cache (tessera.runtime.cache), per kernel source, configuration
list, key and GPU, so a new process does not time again.

Before timing, the configurations that need compiling are compiled at once in a pool of worker
processes (`spawn`ed, reused across tunings; TESSERA_AUTOTUNE_PROCESSES caps their number, 0 or 1
compiles them one at a time here): each configuration's warmup launch runs with the compiler
collecting (compiler.collect_compilation), so the workers get exactly what the launch would
compile, and their kernels are preloaded (compiler.preload) for the timed launches to take. A
configuration a worker could not compile, or a kernel that cannot be sent to a worker (a @jit
function defined inside a function, a lambda among the constexprs), is compiled here as before,
where its errors are reported as before.
"""

import atexit
import builtins
import concurrent.futures
import hashlib
import json
import logging
import math
import multiprocessing
import os
import pickle
import threading
import time

from .. import backends, testing
from ..compiler.errors import CompilationError
from . import cache, jit

log = logging.getLogger("tessera.autotune")


class Config:
    """One candidate: meta-parameters (constexpr kwargs) and launch options (checked as
    tessera.backends.Options)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        if not isinstance(kwargs, dict):
            raise TypeError(f"Config kwargs must be a dict, got {type(kwargs).__name__}")
        backends.Options.parse({"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas,
                                "maxnreg": maxnreg}, "tessera.Config")  # None: the launch default
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        """The kwargs and the launch options that are set, as passed to the kernel."""
        opts = {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas,
                "maxnreg": self.maxnreg}
        return {**self.kwargs, **{k: v for k, v in opts.items() if v is not None}}

    def __repr__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}", f"num_stages: {self.num_stages}",
                  f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    def __eq__(self, other):
        return isinstance(other, Config) and repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))


def _jit_of(fn):
    while not hasattr(fn, "arg_names") or not hasattr(fn, "src"):
        fn = fn.fn
    return fn


class _Wrapper:
    """Shared by Autotuner and Heuristics: `kernel[grid](...)` and attribute access pass through."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    @property
    def arg_names(self):
        return _jit_of(self.fn).arg_names

    def __getattr__(self, name):
        if name == "fn":
            raise AttributeError(name)
        return getattr(self.fn, name)


def _named_args(arg_names, args, kwargs):
    named = dict(zip(arg_names, args))
    named.update({k: v for k, v in kwargs.items() if k in arg_names})
    return named


# ---------------------------------------------------------------- compiling in worker processes

def compile_processes(todo=None):
    """How many worker processes compile `todo` configurations: min(todo, the CPUs this process
    may use, TESSERA_AUTOTUNE_PROCESSES when set); `todo` None: the most at once. Fewer than 2:
    none (configurations compile here, one after the other)."""
    raw = os.environ.get("TESSERA_AUTOTUNE_PROCESSES", "").strip()
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    if raw:
        try:
            cap = int(raw)
        except ValueError:
            cap = -1
        if cap < 0:
            raise ValueError(f"TESSERA_AUTOTUNE_PROCESSES must be a number of processes (0 or 1: compile "
                             f"configurations one at a time), got {raw!r}")
        n = builtins.min(n, cap)
    if todo is not None:
        n = builtins.min(n, todo)
    return n if n >= 2 else 0


_pool = None        # the ProcessPoolExecutor, created at first use, kept for later tunings
_pool_size = 0      # its max_workers (its processes start as work comes, so a tuning of fewer
                    # configurations starts fewer)
_pool_pid = None    # the process that created it (a forked child must not use its parent's)
_pool_lock = threading.Lock()


_spawning = threading.local()


def _spawn_without_main():
    """Make the pool's worker processes start without running the parent's main module:
    multiprocessing's `spawn` runs it again in each child (as `__mp_main__`), which re-runs a
    script without an `if __name__ == "__main__":` guard (its GPU work included) and cannot work
    for `python -` or `-c`. The workers need only Tessera and the kernels' modules, which
    unpickling the requests imports. Only processes started while _spawning.on is set in this
    thread (the pool's, in compile_in_pool) lose the main module; other spawns are untouched."""
    from multiprocessing import spawn
    original = spawn.get_preparation_data
    if getattr(original, "_tessera_wrapper", False):
        return

    def get_preparation_data(name):
        data = original(name)
        if getattr(_spawning, "on", False):
            data.pop("init_main_from_name", None)
            data.pop("init_main_from_path", None)
        return data
    get_preparation_data._tessera_wrapper = True
    spawn.get_preparation_data = get_preparation_data


def _executor():
    """The worker pool: the one kept from earlier tunings, unless compile_processes() changed
    (then a new one). `spawn`: the parent may hold a GPU context and threads, which a forked
    child must not inherit."""
    global _pool, _pool_size, _pool_pid
    size = compile_processes()
    with _pool_lock:
        if _pool is not None and _pool_pid != os.getpid():
            _pool = None  # inherited through fork: its threads and workers are the parent's
        if _pool is not None and _pool_size != size:
            _pool.shutdown(wait=False, cancel_futures=True)
            _pool = None
        if _pool is None:
            _spawn_without_main()
            _pool = concurrent.futures.ProcessPoolExecutor(size, mp_context=multiprocessing.get_context("spawn"))
            _pool_size, _pool_pid = size, os.getpid()
        return _pool


def _drop_executor(pool):
    """Forget a pool that broke (a worker died): the next tuning starts another."""
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def shutdown_pool():
    """Stop the worker processes (at exit, or to free them earlier; a later tuning starts others)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None and _pool_pid == os.getpid():
        pool.shutdown(wait=True, cancel_futures=True)


def _compile_in_worker(environ, payload):
    """Run in a worker process: compile one pickled compiler.CompileRequest under the parent's
    environment (which selects the cache, the Redis server, compile switches). Returns (the pickled
    CompiledKernel, None) or (None, why it failed): the parent compiles a failed configuration
    itself, where its error is reported, and never needs to unpickle an exception."""
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    try:
        request = pickle.loads(payload)
        kernel = request.compile()
        meta = kernel.metadata
        if "used_global_names" not in meta:  # (a cache hit's): the globals preload checks
            meta["used_global_names"] = [[m, f, n, gdict is None]
                                         for (m, f, n), (_, gdict, _) in meta.get("used_globals", {}).items()]
        meta["compile_pid"] = os.getpid()
        return pickle.dumps(kernel), None
    except Exception as e:  # noqa: BLE001 - reported by the parent's own compilation
        return None, f"{type(e).__name__}: {e}"


def compile_in_pool(requests):
    """Compile compiler.CompileRequests (compiler.collect_compilation's) in the worker pool, up to
    compile_processes(len(requests)) at once. Returns one (CompiledKernel, None) or (None, reason)
    per request, in order: the kernel's metadata["compile_pid"] is the worker's process id; a
    reason says why there is no kernel (the request cannot be pickled, compiling it failed, the
    worker's kernel key differs from the request's, the pool broke). None when no pool is used
    (fewer than 2 processes: TESSERA_AUTOTUNE_PROCESSES=0 or 1, one CPU, one request)."""
    processes = compile_processes(len(requests))
    if not processes or getattr(multiprocessing.current_process(), "_inheriting", False):
        # (_inheriting: this process is itself a spawned child still importing its parent's
        # main module, which cannot start processes)
        return None
    results = [None] * len(requests)
    environ = dict(os.environ)
    pool = _executor()
    futures = {}
    for i, request in enumerate(requests):
        if getattr(request.fn, "__module__", None) == "__main__":
            results[i] = (None, "defined in the main script, which worker processes do not run")
            continue
        try:
            payload = pickle.dumps(request)
        except Exception as e:  # noqa: BLE001 - e.g. a @jit function defined inside a function
            results[i] = (None, f"cannot be sent to a worker process ({type(e).__name__}: {e})")
            continue
        _spawning.on = True  # (submit starts a worker process when none is idle)
        try:
            futures[i] = pool.submit(_compile_in_worker, environ, payload)
        except RuntimeError as e:  # broken (a worker died) or shut down meanwhile
            _drop_executor(pool)
            results[i] = (None, f"the worker pool is unusable ({e})")
        finally:
            _spawning.on = False
    for i, future in futures.items():
        try:
            data, why = future.result()
            kernel = pickle.loads(data) if data is not None else None
        except concurrent.futures.process.BrokenProcessPool as e:
            _drop_executor(pool)
            kernel, why = None, f"the worker pool broke ({e})"
        except Exception as e:  # noqa: BLE001 - e.g. the kernel's module does not import here
            kernel, why = None, f"{type(e).__name__}: {e}"
        if kernel is not None and kernel.metadata.get("kernel_key") != requests[i].key:
            kernel, why = None, ("the worker compiled it under another kernel key (its Tessera build, "
                                 "environment or kernel source differs from this process's)")
        results[i] = (kernel, why)
    return results


class Autotuner(_Wrapper):
    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, warmup=25, rep=100, do_bench=None, cache_results=True):
        self.fn = fn
        self.configs = list(configs) if configs else [Config({})]
        for c in self.configs:
            if not isinstance(c, Config):
                raise TypeError(f"autotune configs must be tessera.Config objects, got {c!r}")
        names = _jit_of(fn).arg_names
        self.keys = list(key)
        for k in self.keys + list(reset_to_zero or []) + list(restore_value or []):
            if k not in names:
                raise ValueError(f"autotune: {_jit_of(fn).__name__} has no parameter {k!r}")
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        prune_configs_by = prune_configs_by or {}
        unknown = set(prune_configs_by) - {"perf_model", "top_k", "early_config_prune"}
        if unknown:
            raise ValueError(f"prune_configs_by: unknown entries {sorted(unknown)}")
        self.perf_model = prune_configs_by.get("perf_model")
        self.top_k = prune_configs_by.get("top_k")
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.warmup_ms, self.rep_ms = warmup, rep
        self._do_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}          # key -> best Config
        self.configs_timings = {}  # of the last tuning: Config -> timing (inf: skipped)
        self.skipped = {}        # of the last tuning: Config -> reason
        self.best_config = None
        self.bench_time = 0.0

    # ------------------------------------------------------------ helpers
    @property
    def do_bench(self):
        if self._do_bench is not None:
            return self._do_bench
        return lambda fn, quantiles=None: testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms,
                                                           quantiles=quantiles)

    def _key(self, named):
        key = [named[k] for k in self.keys if k in named]
        for name in _jit_of(self.fn).arg_names:
            v = named.get(name)
            if hasattr(v, "dtype"):
                key.append(str(v.dtype))
        return tuple(key)

    def prune_configs(self, named, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, named, **kwargs))
            if not configs:
                raise RuntimeError("autotune: early_config_prune left no configuration")
        if self.perf_model:
            top_k = self.top_k if self.top_k is not None else len(configs)
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            est = {c: self.perf_model(**{**named, **kwargs, **c.all_kwargs()}) for c in configs}
            configs = sorted(est, key=est.get)[:top_k]
        return configs

    def _disk_name(self, key):
        deps, _ = cache.dependencies(_jit_of(self.fn))
        gpu = "none"
        backend = backends.launch_backend()
        if backend is not None and backend.is_available():
            gpu = backend.current_target(backend.current_device())
        # the configurations' content, not their order (the same list sorted differently on
        # another machine finds the same entry)
        text = json.dumps({"kernel": deps, "build": cache.build_key(), "configs": sorted(repr(c) for c in self.configs),
                           "key": repr(key), "gpu": gpu}, sort_keys=True)
        return "autotune-" + hashlib.sha256(text.encode()).hexdigest()[:56]

    def _load(self, key):
        disk = cache.default() if self.cache_results else None
        if disk is None:
            return None
        name = self._disk_name(key)
        hit = disk.get(name)
        if hit is None:
            return None
        try:
            wanted = hit[1]["best"]
        except (KeyError, TypeError):
            return None
        return next((c for c in self.configs if repr(c) == wanted), None)

    def _store(self, key, best, timings):
        disk = cache.default() if self.cache_results else None
        if disk is None:
            return
        disk.put(self._disk_name(key), {}, {"best_index": self.configs.index(best), "best": repr(best),
                                            "timings": {repr(c): t for c, t in timings.items()}})

    # ------------------------------------------------------------ tuning
    def _precompile(self, args, kwargs, grid, configs):
        """Compile what the warmup launches of `configs` would compile in the worker pool and
        preload the kernels, so that their timed launches take them. Returns the kernel keys
        preloaded (for _forget once timed). Nothing is compiled here: anything that goes wrong
        (a kernel that cannot be pickled, a configuration that does not compile) leaves that
        configuration to compile at its first launch, as without the pool."""
        if (len(configs) < 2 or jit.interpret_mode() or not compile_processes(len(configs))
                or not backends.available()):
            return []
        from ..compiler import compiler  # (the compiler loads at the first launch miss)
        name = _jit_of(self.fn).__name__
        requests = {}
        for config in configs:
            current = {**kwargs, **config.all_kwargs()}
            if set(kwargs) & set(config.all_kwargs()):
                continue  # _bench reports it
            try:
                if config.pre_hook:  # (it may set what the launch specializes on, e.g. a
                    config.pre_hook(_named_args(self.arg_names, args, current))  # descriptor's block)
                request = compiler.collect_compilation(
                    lambda: self.fn.run(*args, grid=grid, warmup=True, **current))
            except Exception as e:  # noqa: BLE001 - met again, and reported, when it is timed
                log.debug("autotune %s: {%s} is not compiled ahead: %s: %s", name, config, type(e).__name__, e)
                continue
            if request is not None:
                requests.setdefault(request.key, (config, request))
        if len(requests) < 2:
            return []  # (one compilation: no faster in a worker)
        start = time.perf_counter()
        results = compile_in_pool([r for _, r in requests.values()])
        if results is None:
            return []
        preloaded = []
        for (config, request), (kernel, why) in zip(requests.values(), results):
            if kernel is not None:
                try:
                    compiler.preload(kernel)
                    preloaded.append(request.key)
                    continue
                except ValueError as e:  # e.g. no ptxas: nothing a launch can load as is
                    why = str(e)
            log.debug("autotune %s: {%s} compiles here (%s)", name, config, why)
        log.info("autotune %s: %d of %d configurations compiled in %d worker processes (%.2f s)", name,
                 len(preloaded), len(requests), compile_processes(len(requests)), time.perf_counter() - start)
        return preloaded

    def _bench(self, args, kwargs, grid, config):
        clash = set(kwargs) & set(config.all_kwargs())
        if clash:
            raise ValueError(f"autotune: {', '.join(sorted(clash))} given both at the call and by the "
                             f"configurations; leave it to the configurations")
        current = {**kwargs, **config.all_kwargs()}
        named = _named_args(self.arg_names, args, current)
        saved = {n: named[n].clone() for n in self.restore_value}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(named)
            for n in self.reset_to_zero:
                named[n].zero_()
            if self.user_pre_hook:
                self.user_pre_hook(named)
            self.fn.run(*args, grid=grid, **current)
            if self.user_post_hook:
                self.user_post_hook(named, None)
            for n, v in saved.items():
                named[n].copy_(v)
        kernel_call.config = config
        try:
            t = self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except Exception as e:  # noqa: BLE001 - only resource and compile failures are skipped
            if not isinstance(e, (backends.OutOfResources, CompilationError)):
                raise
            self.skipped[config] = f"{type(e).__name__}: {e}"
            log.warning("autotune %s: skipping config {%s}: %s", _jit_of(self.fn).__name__, config,
                        self.skipped[config].splitlines()[0])
            return math.inf
        finally:
            for n, v in saved.items():
                named[n].copy_(v)
        if isinstance(t, (list, tuple)):
            t = t[0]
        return float(t)

    def run(self, *args, grid, warmup=False, **kwargs):
        named = _named_args(self.arg_names, args, kwargs)
        key = self._key(named)
        best = self.cache.get(key)
        if best is None and len(self.configs) > 1:
            best = self._load(key)
            if best is None:
                start = time.perf_counter()
                configs = self.prune_configs(named, kwargs)
                self.skipped = {}
                preloaded = self._precompile(args, kwargs, grid, configs)
                try:
                    timings = {c: self._bench(args, kwargs, grid, c) for c in configs}
                finally:
                    _forget(preloaded)
                self.configs_timings = timings
                self.bench_time = time.perf_counter() - start
                finite = {c: t for c, t in timings.items() if t < math.inf}
                if not finite:
                    reasons = "; ".join(f"{{{c}}}: {r}" for c, r in self.skipped.items())
                    raise RuntimeError(f"autotune {_jit_of(self.fn).__name__}: no configuration runs ({reasons})")
                best = builtins.min(finite, key=finite.get)
                log.info("autotune %s: key %r -> {%s} (%.1f s of tuning)", _jit_of(self.fn).__name__, key, best,
                         self.bench_time)
                self._store(key, best, timings)
        if best is None:
            best = self.configs[0]
        self.cache[key] = best
        self.best_config = best
        current = {**kwargs, **best.all_kwargs()}
        if best.pre_hook:
            best.pre_hook(_named_args(self.arg_names, args, current))
        return self.fn.run(*args, grid=grid, warmup=warmup, **current)

    def warmup(self, *args, grid, **kwargs):
        configs = self.prune_configs(_named_args(self.arg_names, args, kwargs), kwargs)
        preloaded = self._precompile(args, kwargs, grid, configs)
        try:
            return [self.fn.run(*args, grid=grid, warmup=True, **kwargs, **c.all_kwargs()) for c in configs]
        finally:
            _forget(preloaded)


def _forget(keys):
    """Drop the kernels a tuning preloaded once its launches took them (the launcher keeps
    them loaded; the disk cache has them too)."""
    if keys:
        from ..compiler import compiler
        compiler.forget_preloaded(keys)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=25, rep=100, do_bench=None, cache_results=True):
    """Decorator: pick the fastest of `configs` for each value of the `key` arguments."""
    def decorate(fn):
        return Autotuner(fn, configs, key, prune_configs_by=prune_configs_by, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, pre_hook=pre_hook, post_hook=post_hook, warmup=warmup,
                         rep=rep, do_bench=do_bench, cache_results=cache_results)
    return decorate


class Heuristics(_Wrapper):
    def __init__(self, fn, values):
        self.fn = fn
        self.values = dict(values)
        for k, f in self.values.items():
            if not callable(f):
                raise TypeError(f"heuristics: the value of {k!r} must be a function of the arguments")

    def run(self, *args, grid, **kwargs):
        named = _named_args(self.arg_names, args, kwargs)
        for k, f in self.values.items():
            v = f({**kwargs, **named})
            kwargs[k] = v
            named[k] = v
        return self.fn.run(*args, grid=grid, **kwargs)


def heuristics(values):
    """Decorator: meta-parameters computed from the arguments, e.g.
    @tessera.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})."""
    def decorate(fn):
        return Heuristics(fn, values)
    return decorate
