"""Autotuning compiles its configurations in a pool of `spawn`ed worker processes
(TESSERA_AUTOTUNE_PROCESSES), without a GPU: compile requests are collected from warmup launches
(compiler.collect_compilation), compiled for cuda:90 in the pool (ptxas makes the cubins), and
preloaded; the timed launches go through a fake launch backend whose devices are "cuda:90" and
which runs the kernels in the interpreter, so results are checked too."""
import logging
import os
import random

import pytest
import torch

import tessera
import tessera.language as tl
from tessera import backends
from tessera.compiler import compiler
from tessera.interpreter import run_kernel
from tessera.runtime import autotuner

from . import autotune_pool_kernels as kernels
from .autotune_pool_kernels import add_const


class FakeCuda(backends.Backend):
    """Launches on "cuda:90" devices that are the host: kernels compile as for an H100 (the NVIDIA
    backend's specialization and options), load as their cubin and run in the interpreter."""
    name = "fakecuda"
    host_device = 0
    specialization = backends.get("cuda").specialization

    def __init__(self):
        self.loaded = []

    def is_available(self):
        return True

    def current_target(self, device):
        return "cuda:90"

    def load(self, kernel, device):
        assert kernel.asm["cubin"][:4] == b"\x7fELF"
        self.loaded.append(kernel)
        return kernel.asm["cubin"]

    def launch_entry(self, kernel, loaded, num_params, globals_):
        fn = kernel.fn
        names = [n for n in fn.arg_names if n not in fn.constexpr_names]
        consts = {k: v for k, v in kernel.metadata["constexprs"].items() if k in fn.constexpr_names}

        def launch(grid, stream, args):
            run_kernel(fn, tuple(grid), (), {**dict(zip(names, args)), **consts})
        return self.make_launch_entry(kernel, num_params, globals_, launch=launch)


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSERA_INTERPRET", raising=False)
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "2")
    backend = backends.register(FakeCuda())
    backends.set_active("fakecuda")
    try:
        yield backend
    finally:
        backends.set_active(None)
        backends.unregister("fakecuda")


@pytest.fixture
def two_processes(monkeypatch):
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "2")
    if autotuner.compile_processes(2) < 2:
        pytest.skip("a pool of workers needs 2 CPUs")


@pytest.fixture
def parent_compiles(monkeypatch):
    """The front end's runs in this process (each compilation starts with one)."""
    calls = []
    make_ttir = compiler.make_ttir

    def counted(fn, *args, **kwargs):
        calls.append(fn.__name__)
        return make_ttir(fn, *args, **kwargs)
    monkeypatch.setattr(compiler, "make_ttir", counted)
    return calls


class FakeTimer:
    """do_bench stand-in: runs the call once, returns a time chosen per BLOCK."""

    def __init__(self, times):
        self.times = times

    def __call__(self, fn, quantiles=None):
        fn()
        return self.times[fn.config.kwargs["BLOCK"]]


TIMES = {16: 3.0, 32: 1.0, 64: 2.0, 3: 0.5}


def tune(fn, blocks, **kw):
    """An autotuner over BLOCK in `blocks`, with a fresh constant C (so that nothing this process or
    the disk cache compiled before matches), run on 100 elements; (tuner, C, x, out)."""
    c = random.randrange(1 << 20, 1 << 24)
    configs = [tessera.Config({"BLOCK": b, "C": c}, num_warps=w) for b, w in zip(blocks, (1, 2, 4, 4))]
    tuner = tessera.autotune(configs=configs, key=["n"], do_bench=FakeTimer(TIMES), cache_results=False, **kw)(fn)
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    tuner[lambda m: (tessera.cdiv(m["n"], m["BLOCK"]),)](x, out, 100)
    return tuner, c, x, out


def launched(fn, c):
    """The kernels of `fn` the launcher took for constant C = c."""
    return [k for k in fn.cache.values() if k.metadata["constexprs"].get("C") == c]


def test_configurations_compile_in_worker_processes(fake_gpu, parent_compiles, two_processes):
    tuner, c, x, out = tune(add_const, [16, 32, 64])
    assert torch.equal(out, x + c)
    assert tuner.best_config.kwargs["BLOCK"] == 32
    ks = launched(add_const, c)
    assert len(ks) == 3 and {k.metadata["num_warps"] for k in ks} == {1, 2, 4}
    assert all(k.metadata["cache"] == "preloaded" for k in ks)
    pids = {k.metadata["compile_pid"] for k in ks}
    assert os.getpid() not in pids
    assert parent_compiles == []  # nothing compiled here
    # What the tuning preloaded is dropped once taken (the launcher keeps the loaded kernels).
    assert not any(k.metadata["kernel_key"] in compiler._PRELOADED for k in ks)


def test_without_processes_the_same_choice_is_compiled_here(fake_gpu, parent_compiles, monkeypatch):
    def no_pool():
        raise AssertionError("TESSERA_AUTOTUNE_PROCESSES=0 must not start a pool")
    monkeypatch.setattr(autotuner, "_executor", no_pool)
    for off in ("0", "1"):
        monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", off)
        del parent_compiles[:]
        tuner, c, x, out = tune(add_const, [16, 32, 64])
        assert torch.equal(out, x + c) and tuner.best_config.kwargs["BLOCK"] == 32
        ks = launched(add_const, c)
        assert sorted(k.metadata["cache"] for k in ks) == ["miss"] * 3
        assert not any("compile_pid" in k.metadata for k in ks) and len(parent_compiles) == 3


def test_a_configuration_that_fails_in_a_worker_is_compiled_and_reported_here(fake_gpu, parent_compiles,
                                                                                two_processes, caplog):
    with caplog.at_level(logging.WARNING, logger="tessera.autotune"):
        tuner, c, x, out = tune(add_const, [16, 32, 3])  # BLOCK=3: arange needs a power of 2
    assert torch.equal(out, x + c) and tuner.best_config.kwargs["BLOCK"] == 32
    bad = next(cfg for cfg in tuner.configs if cfg.kwargs["BLOCK"] == 3)
    assert set(tuner.skipped) == {bad} and tuner.configs_timings[bad] == float("inf")
    assert tuner.skipped[bad].startswith("CompilationError: ") and "power of 2" in tuner.skipped[bad]
    assert "skipping config {BLOCK: 3" in caplog.text and "power of 2" in caplog.text
    assert parent_compiles == ["add_const"]  # only the failing one, to report its error
    assert sorted(k.metadata["cache"] for k in launched(add_const, c)) == ["preloaded", "preloaded"]


def test_a_kernel_that_cannot_be_pickled_compiles_here_silently(fake_gpu, parent_compiles, two_processes,
                                                               caplog):
    @tessera.jit
    def local_add(x, out, n, BLOCK: tl.constexpr, C: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) + C, mask=m)
    with caplog.at_level(logging.DEBUG, logger="tessera.autotune"):
        tuner, c, x, out = tune(local_add, [16, 32, 64])
    assert torch.equal(out, x + c) and tuner.best_config.kwargs["BLOCK"] == 32
    assert sorted(k.metadata["cache"] for k in launched(local_add, c)) == ["miss"] * 3
    assert len(parent_compiles) == 3
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "cannot be sent to a worker process" in caplog.text and "defined inside another function" in caplog.text


def test_under_heuristics_and_in_warmup(fake_gpu, parent_compiles, two_processes):
    c = random.randrange(1 << 20, 1 << 24)
    configs = [tessera.Config({"BLOCK": b}, num_warps=w) for b, w in ((16, 1), (32, 2), (64, 4))]
    tuner = tessera.autotune(configs=configs, key=["n"], do_bench=FakeTimer(TIMES), cache_results=False)(
        tessera.heuristics({"C": lambda args: c})(add_const))
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    tuner[lambda m: (tessera.cdiv(m["n"], m["BLOCK"]),)](x, out, 100)
    assert torch.equal(out, x + c) and tuner.best_config.kwargs["BLOCK"] == 32
    assert sorted(k.metadata["cache"] for k in launched(add_const, c)) == ["preloaded"] * 3
    # Autotuner.warmup compiles the configurations in the pool too.
    c += 1
    tuner = tessera.autotune(configs=[tessera.Config({"BLOCK": b, "C": c}) for b in (16, 32)], key=["n"])(add_const)
    assert [k.metadata["cache"] for k in tuner.warmup(x, out, 100, grid=(1,))] == ["preloaded"] * 2
    assert parent_compiles == []


def test_collecting_compiles_nothing_and_caches_nothing(fake_gpu, parent_compiles):
    c = random.randrange(1 << 20, 1 << 24)
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    before, launch_cache = dict(add_const.cache), dict(add_const._launch_cache)

    def warm():
        return add_const.run(x, out, 100, grid=(1,), warmup=True, BLOCK=128, C=c)
    request = compiler.collect_compilation(warm)
    assert isinstance(request, compiler.CompileRequest) and request.target == "cuda:90"
    assert request.consts == {"BLOCK": 128, "C": c} and str(request.arg_types["x"]) == "pointer<float32>"
    assert request.arg_attrs["x"] == {"tt.divisibility": "16 : i32"} and request.options.num_warps == 4
    assert parent_compiles == [] and dict(add_const.cache) == before
    assert dict(add_const._launch_cache) == launch_cache
    # A real launch afterwards compiles it, under the key the request announced.
    k = warm()
    assert k.metadata["cache"] == "miss" and k.metadata["kernel_key"] == request.key
    # Only true misses are collected: a launch the launcher has, or the disk cache holds, is not.
    assert compiler.collect_compilation(warm) is None
    add_const.cache.clear()
    assert compiler.collect_compilation(warm) is None
    assert launched(add_const, c)[0].metadata["cache"] == "hit" and parent_compiles == ["add_const"]


def requests_for(blocks, c):
    """The compile requests of tessera.compile for these BLOCKs (cuda:90)."""
    sig = {"x": "*fp32:16", "out": "*fp32:16", "n": "i32"}
    return [compiler.collect_compilation(lambda b=b: tessera.compile(add_const, signature=sig, target="cuda:90",
                                                                     constexprs={"BLOCK": b, "C": c}))
            for b in blocks]


def test_the_pool_compiles_requests_at_once_in_several_processes(monkeypatch, tmp_path, two_processes):
    # No cache: the workers compile, and so does the comparison here.
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")
    c = random.randrange(1 << 20, 1 << 24)
    requests = requests_for([32, 64, 128, 6], c)
    assert all(isinstance(r, compiler.CompileRequest) for r in requests)
    # The first two hold their workers until both have arrived: they complete only if two
    # processes compile at once (else the first waits out the 60 s and the pids agree).
    (tmp_path / "meet").mkdir()
    sent = [r._replace(consts={**r.consts, "C": kernels.Meet(c, str(tmp_path / "meet"), 2)}) if i < 2 else r
            for i, r in enumerate(requests)]
    results = autotuner.compile_in_pool(sent)
    assert len(results) == 4
    (k0, e0), (k1, e1), (k2, e2), (k3, e3) = results
    assert e0 is None and e1 is None and e2 is None
    assert len(os.listdir(tmp_path / "meet")) == 2
    assert k0.metadata["compile_pid"] != k1.metadata["compile_pid"]
    assert os.getpid() not in {k.metadata["compile_pid"] for k in (k0, k1, k2)}
    # The same kernels as compile_cached gives here: same keys, same binaries.
    for request, k in zip(requests, (k0, k1, k2)):
        here = request.compile()
        assert here.metadata["cache"] == "off" and "compile_pid" not in here.metadata
        assert k.metadata["kernel_key"] == here.metadata["kernel_key"] == request.key
        assert k.asm["cubin"] == here.asm["cubin"] and k.asm["ttir"] == here.asm["ttir"]
    # BLOCK=6 does not compile: no kernel, the reason (the caller compiles it itself).
    assert k3 is None and e3.startswith("CompilationError: ") and "power of 2" in e3


def test_the_pool_refuses_what_it_cannot_send_and_checks_the_key(monkeypatch, tmp_path, two_processes):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))
    c = random.randrange(1 << 20, 1 << 24)
    a, b = requests_for([32, 64], c)
    results = autotuner.compile_in_pool([a._replace(consts={**a.consts, "C": lambda: 1}), b._replace(key="0" * 64)])
    (k0, e0), (k1, e1) = results
    assert k0 is None and "cannot be sent to a worker process" in e0
    assert k1 is None and "another kernel key" in e1


def test_processes_setting(monkeypatch):
    cpus = {0, 1, 2, 3, 4, 5}
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus, raising=False)
    monkeypatch.delenv("TESSERA_AUTOTUNE_PROCESSES", raising=False)
    assert autotuner.compile_processes(1) == 0  # one compilation: no pool
    assert autotuner.compile_processes(4) == 4 and autotuner.compile_processes(64) == 6
    assert autotuner.compile_processes() == 6
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "3")
    assert autotuner.compile_processes(2) == 2 and autotuner.compile_processes(64) == 3
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "64")
    assert autotuner.compile_processes(64) == 6
    for off in ("0", "1"):
        monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", off)
        assert autotuner.compile_processes(64) == 0
        assert autotuner.compile_in_pool(requests_for([32, 64], random.randrange(1 << 24))) is None
    monkeypatch.delenv("TESSERA_AUTOTUNE_PROCESSES")
    cpus = {0}  # one CPU: no pool
    assert autotuner.compile_processes(64) == 0
    for bad in ("two", "-1"):
        monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", bad)
        with pytest.raises(ValueError, match="TESSERA_AUTOTUNE_PROCESSES must be a number of processes"):
            autotuner.compile_processes(4)
