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
"""

import builtins
import hashlib
import json
import logging
import math
import time

from .. import backends, testing
from ..compiler.errors import CompilationError
from . import cache

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
                timings = {c: self._bench(args, kwargs, grid, c) for c in configs}
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
        return [self.fn.run(*args, grid=grid, warmup=True, **kwargs, **c.all_kwargs())
                for c in self.prune_configs(_named_args(self.arg_names, args, kwargs), kwargs)]


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
