"""GPU test (marked `gpu`) of autotuning with the configurations compiled in worker processes
(TESSERA_AUTOTUNE_PROCESSES): the timed launches take the workers' kernels (nothing compiles in
this process), every configuration computes the right result, and the choice is the one made
with the configurations compiled here one at a time (TESSERA_AUTOTUNE_PROCESSES=0)."""
import os
import random

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
from tessera.compiler import compiler  # noqa: E402
from tessera.runtime import autotuner  # noqa: E402

from ..unit.runtime.autotune_pool_kernels import add_const_spin  # noqa: E402
from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks()

N = 1 << 22
BLOCK = 1024
# SPIN rounds of work per element that leave the value unchanged: SPIN=0 is clearly the fastest
# (memory-bound, ~10 us on an H100/H200; 64 rounds add tens of microseconds), so both tunings
# must choose it.
SPINS_AND_WARPS = [(64, 8), (0, 4), (1024, 2), (256, 4)]


def tune(c):
    configs = [tessera.Config({"BLOCK": BLOCK, "C": c, "SPIN": s}, num_warps=w) for s, w in SPINS_AND_WARPS]
    tuner = tessera.autotune(configs=configs, key=["n"], warmup=5, rep=20, cache_results=False)(add_const_spin)
    x = torch.randn(N, device="cuda")
    out = torch.zeros_like(x)
    tuner[lambda m: (tessera.cdiv(m["n"], m["BLOCK"]),)](x, out, N)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + c, rtol=0, atol=0)
    assert not tuner.skipped and len(tuner.configs_timings) == 4
    kernels = {k.metadata["constexprs"]["SPIN"]: k for k in add_const_spin.cache.values()
               if k.metadata["constexprs"].get("C") == c}
    assert sorted(kernels) == sorted(s for s, _ in SPINS_AND_WARPS)
    # Each configuration's kernel computes the right result.
    for spin, k in kernels.items():
        out.zero_()
        k[(tessera.cdiv(N, BLOCK),)](x, out, N, BLOCK, c, spin)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + c, rtol=0, atol=0)
    return tuner, kernels


def test_configurations_compiled_in_worker_processes_tune_as_serial(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "4")
    if autotuner.compile_processes(4) < 2:
        pytest.skip("needs 2 CPUs for a pool of workers")
    compiled_here = []
    make_ttir = compiler.make_ttir

    def counted(fn, *args, **kwargs):
        compiled_here.append(fn.__name__)
        return make_ttir(fn, *args, **kwargs)
    monkeypatch.setattr(compiler, "make_ttir", counted)
    c = random.randrange(1 << 10, 1 << 20)  # a constant nothing was compiled for

    # With the pool (an empty cache: the workers really compile).
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "pool"))
    pooled, kernels = tune(c)
    assert compiled_here == []
    assert {k.metadata["cache"] for k in kernels.values()} == {"preloaded"}
    pids = {k.metadata["compile_pid"] for k in kernels.values()}
    assert os.getpid() not in pids
    assert pooled.best_config.kwargs["SPIN"] == 0

    # Without it: compiled here, one at a time, from another empty cache.
    add_const_spin.cache.clear()
    monkeypatch.setenv("TESSERA_AUTOTUNE_PROCESSES", "0")
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "serial"))
    serial, serial_kernels = tune(c)
    assert compiled_here == ["add_const_spin"] * 4
    assert {k.metadata["cache"] for k in serial_kernels.values()} == {"miss"}
    assert not any("compile_pid" in k.metadata for k in serial_kernels.values())
    assert serial.best_config == pooled.best_config
    # The same binaries either way.
    for spin, k in kernels.items():
        assert serial_kernels[spin].metadata["kernel_key"] == k.metadata["kernel_key"]
        assert serial_kernels[spin].asm["cubin"] == k.asm["cubin"]
