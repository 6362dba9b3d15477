"""Compiling in worker processes and threads: compiled kernels and @jit functions pickle, a `spawn`
pool returns the same kernels as compiling here, and eight threads compile different kernels at
once (no shared-context misuse, no cache races)."""
import concurrent.futures
import multiprocessing
import pickle
import random
import threading

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def scaled_copy(x, y, n, alpha, BLOCK: tl.constexpr, K: tl.constexpr = 0):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m) * alpha + K, mask=m)


SIG = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32", "alpha": "fp32"}


def compile_block(block, k=0):
    """Run in a worker: compile for one BLOCK (and constant K) and return the CompiledKernel."""
    return tessera.compile(scaled_copy, signature=SIG, constexprs={"BLOCK": block, "K": k}, target="cuda:90")


def test_compiled_kernel_and_jit_function_pickle():
    k = compile_block(128)
    k2 = pickle.loads(pickle.dumps(k))
    assert k2.asm == k.asm and k2.metadata["effects"] == k.metadata["effects"]
    assert k2.metadata.name == "scaled_copy" and "used_globals" not in k2.metadata
    assert pickle.loads(pickle.dumps(scaled_copy)) is scaled_copy


def test_a_local_jit_function_names_why_it_cannot_pickle():
    @tessera.jit
    def local(x):
        pass
    with pytest.raises(pickle.PicklingError, match="defined inside another function"):
        pickle.dumps(local)


def test_spawn_pool_compiles_the_same_kernels(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    blocks = [64, 128, 256]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        remote = pool.map(compile_block, blocks)
    for block, k in zip(blocks, remote):
        local = compile_block(block)
        assert k.asm["ptx"] == local.asm["ptx"] and k.asm["cubin"] == local.asm["cubin"]


@pytest.mark.parametrize("cache", ["on", "off"])
def test_eight_threads_compile_different_kernels(monkeypatch, tmp_path, cache):
    if cache == "off":
        monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")
    else:
        monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    # Constants never compiled before in this process, so that every thread really compiles.
    base = random.randrange(1 << 20, 1 << 30)
    jobs = [(16 << i, base + i) for i in range(8)]
    start = threading.Barrier(8)

    def work(job):
        start.wait()
        return compile_block(*job)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        kernels = list(pool.map(work, jobs))
    for (block, k), kernel in zip(jobs, kernels):
        assert kernel.metadata["cache"] in ("miss", "off")
        assert f"tt.make_range {{end = {block} : i32" in kernel.asm["ttir"]
    # the same compilations done one at a time give the same code
    for job, kernel in zip(jobs, kernels):
        assert compile_block(*job).asm["ptx"] == kernel.asm["ptx"]


def test_a_kernel_from_a_spawn_worker_is_taken_instead_of_compiling(monkeypatch):
    # No disk cache: the parent can only avoid compiling by taking the worker's kernel.
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")
    k = random.randrange(1 << 20, 1 << 30)  # a constant this process never compiled
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        remote = pool.apply(compile_block, (128, k))
    assert remote.fn is scaled_copy and remote.metadata["kernel_key"]
    tessera.compiler.compiler.preload(remote)
    here = compile_block(128, k)
    assert here.metadata["cache"] == "preloaded"
    assert here.asm["cubin"] == remote.asm["cubin"] and here.asm["ttir"] == remote.asm["ttir"]
    # another specialization still compiles
    assert compile_block(256, k).metadata["cache"] == "off"


def test_only_a_fully_compiled_kernel_can_be_preloaded():
    k = tessera.compile(scaled_copy, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90", stages="ttir")
    with pytest.raises(ValueError, match="only a kernel compiled through every stage"):
        tessera.compiler.compiler.preload(k)
    with pytest.raises(RuntimeError, match="compiled but not loaded on a device"):
        k[(1,)]
