"""GPU tests of the JIT runtime (marked `gpu`): the C++ launch path with every argument kind,
specialization on a GPU, streams, DLPack and __cuda_array_interface__ arguments, the disk cache
across processes, the autotuner and do_bench."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from ..unit.runtime.test_global_scratch import via_scratch  # noqa: E402
from . import ROOT, gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@tessera.jit
def kinds(out, i64, u64, f, flag, pair, maybe, n, BLOCK: tl.constexpr = 32):
    # One store per argument kind; `maybe` is None (a folded-away pointer).
    offs = tl.arange(0, BLOCK)
    first = tl.load(pair[0] + offs)
    second = tl.load(pair[1] + offs)
    v = first * 1000.0 + second + f + (i64 >> 33).to(tl.float32) + (u64 >> 62).to(tl.float32)
    if flag:
        v = v + 0.5
    tl.store(out + offs, v + n, mask=offs < n)


def test_every_argument_kind_reaches_the_kernel():
    a = torch.arange(32, device="cuda", dtype=torch.float32)
    b = torch.full((32,), 2.0, device="cuda")
    out = torch.zeros(32, device="cuda")
    kinds[(1,)](out, 3 << 33, (3 << 62) + 5, 0.25, True, (a, b), None, 32)
    ref = a * 1000 + 2 + 0.25 + 3 + 3 + 0.5 + 32
    torch.testing.assert_close(out, ref)
    out.zero_()
    kinds[(1,)](out, 3 << 33, (3 << 62) + 5, 0.25, False, (a, b), None, 1)  # n == 1: folded
    assert out[0].item() == pytest.approx(0 * 1000 + 2 + 0.25 + 3 + 3 + 1)
    assert torch.count_nonzero(out[1:]) == 0


@tessera.jit
def add_kernel(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def _add(x, y, z, n, **kw):
    return add_kernel[(tessera.cdiv(n, 256),)](x, y, z, n, BLOCK=256, **kw)


def test_specialization_picks_a_kernel_per_property():
    x = torch.rand(1024 + 8, device="cuda")
    y = torch.rand(1024 + 8, device="cuda")
    z = torch.zeros(1024 + 8, device="cuda")
    before = len(add_kernel._launch_cache)
    k16 = _add(x, y, z, 1024)
    k17 = _add(x, y, z, 1023)
    k_off = _add(x[1:], y[1:], z[1:], 1024)  # 4-byte aligned pointers
    assert len({id(k16), id(k17), id(k_off)}) == 3
    def divisible_args(k):
        head = next(line for line in k.asm["ttir"].splitlines() if "tt.func" in line)
        return head.count("tt.divisibility = 16")
    assert (divisible_args(k16), divisible_args(k17), divisible_args(k_off)) == (4, 3, 1)
    assert _add(x, y, z, 512) is k16  # same properties: same kernel
    assert len(add_kernel._launch_cache) == before + 3
    torch.testing.assert_close(z[1:1025], x[1:1025] + y[1:1025])


def test_streams_raw_and_object():
    x = torch.rand(4096, device="cuda")
    z = torch.zeros_like(x)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        _add(x, x, z, 4096)  # the current stream
    s.synchronize()
    torch.testing.assert_close(z, 2 * x)
    z.zero_()
    _add(x, x, z, 4096, stream=s)
    s.synchronize()
    torch.testing.assert_close(z, 2 * x)
    z.zero_()
    _add(x, x, z, 4096, stream=s.cuda_stream)
    s.synchronize()
    torch.testing.assert_close(z, 2 * x)


class DLPackOnly:
    def __init__(self, t):
        self._t = t

    def __dlpack__(self, stream=None):
        return self._t.__dlpack__()

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


class CAIOnly:
    def __init__(self, t):
        self._t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


def test_dlpack_and_cuda_array_interface_arguments():
    x = torch.rand(4096, device="cuda")
    y = torch.rand(4096, device="cuda")
    z = torch.zeros_like(x)
    _add(DLPackOnly(x), CAIOnly(y), z, 4096)
    torch.testing.assert_close(z, x + y)
    h = torch.rand(16)
    with pytest.raises(ValueError, match="argument 'x' of add_kernel is in host memory"):
        _add(DLPackOnly(h), y, z, 16)


def test_warmup_compiles_without_launching():
    x = torch.rand(256, device="cuda")
    z = torch.full_like(x, 3.0)
    k = add_kernel.warmup(x, x, z, 256, BLOCK=128, grid=(2,))
    assert k.asm["cubin"] and torch.all(z == 3.0)


def test_launch_options_make_separate_kernels():
    x = torch.rand(4096, device="cuda")
    z = torch.zeros_like(x)
    k4 = _add(x, x, z, 4096)
    k8 = _add(x, x, z, 4096, num_warps=8)
    kr = _add(x, x, z, 4096, maxnreg=32)
    assert k4.metadata["num_warps"] == 4 and k8.metadata["num_warps"] == 8 and kr is not k4
    assert kr.metadata["num_registers"] <= 32
    with pytest.raises(ValueError, match="num_warps=3"):
        _add(x, x, z, 4096, num_warps=3)


def test_disk_cache_across_processes(tmp_path):
    code = textwrap.dedent(f'''
        import json, sys, time
        sys.path.insert(0, {os.path.join(ROOT)!r})
        import torch, tessera, tessera.language as tl
        sys.path.insert(0, {str(tmp_path)!r})
        import cached_kernel as m
        x = torch.rand(1000, device="cuda"); z = torch.empty_like(x)
        k = m.double[(4,)](x, z, 1000, BLOCK=256)
        torch.cuda.synchronize()
        print(json.dumps({{"cache": k.metadata["cache"], "ok": bool(torch.equal(z, 2 * x))}}))
    ''')
    (tmp_path / "cached_kernel.py").write_text(textwrap.dedent('''
        import tessera, tessera.language as tl

        @tessera.jit
        def double(x, z, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(z + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)
    '''))
    env = dict(os.environ, TESSERA_CACHE_DIR=str(tmp_path / "cache"))
    import json
    runs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert runs[0] == {"cache": "miss", "ok": True} and runs[1] == {"cache": "hit", "ok": True}


def test_autotune_with_do_bench_on_the_gpu():
    @tessera.autotune(configs=[tessera.Config({"BLOCK": 128}, num_warps=4),
                               tessera.Config({"BLOCK": 1024}, num_warps=8)], key=["n"], warmup=5, rep=20,
                      cache_results=False)
    @tessera.jit
    def scale2(x, z, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(z + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)
    n = 1 << 22
    x = torch.rand(n, device="cuda")
    z = torch.zeros_like(x)
    scale2[lambda m: (tessera.cdiv(m["n"], m["BLOCK"]),)](x, z, n)
    torch.testing.assert_close(z, 2 * x)
    assert scale2.best_config in scale2.configs and len(scale2.configs_timings) == 2
    assert all(0 < t < 100 for t in scale2.configs_timings.values())


def test_do_bench_quantiles():
    x = torch.rand(1 << 20, device="cuda")
    z = torch.zeros_like(x)
    med, lo, hi = tessera.testing.do_bench(lambda: _add(x, x, z, 1 << 20), warmup=5, rep=20,
                                           quantiles=(0.5, 0.2, 0.8))
    assert 0 < lo <= med <= hi < 10


def test_changed_global_is_detected_on_the_fast_path(tmp_path):
    (tmp_path / "glob_kernel.py").write_text(textwrap.dedent('''
        import tessera, tessera.language as tl
        FACTOR = tl.constexpr(3)

        @tessera.jit
        def mul(x, z, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(z + offs, tl.load(x + offs, mask=offs < n) * FACTOR, mask=offs < n)
    '''))
    sys.path.insert(0, str(tmp_path))
    try:
        import glob_kernel as g
    finally:
        sys.path.pop(0)
    x = torch.rand(64, device="cuda")
    z = torch.zeros_like(x)
    g.mul[(1,)](x, z, 64, BLOCK=64)
    torch.testing.assert_close(z, 3 * x)
    g.FACTOR = tl.constexpr(4)
    with pytest.raises(RuntimeError, match="global variable 'FACTOR'.*changed from 3 to 4"):
        g.mul[(1,)](x, z, 64, BLOCK=64)


def test_global_scratch_from_the_user_allocator_and_the_default():
    calls = []

    def alloc(size, alignment, stream):
        calls.append((size, alignment, stream))
        return torch.empty(size, dtype=torch.uint8, device="cuda")
    programs = 2000
    x = torch.rand(programs * 64, device="cuda")
    want = x * 2 + torch.arange(programs, device="cuda").repeat_interleave(64)
    tessera.set_allocator(alloc)
    try:
        out = torch.zeros_like(x)
        via_scratch[(programs,)](x, out, 64, BLOCK=64)
        torch.testing.assert_close(out, want)
        assert calls == [(programs * 512, 128, torch.cuda.current_stream().cuda_stream)]
    finally:
        tessera.set_allocator(None)
    out = torch.zeros_like(x)
    via_scratch[(programs,)](x, out, 64, BLOCK=64)  # PyTorch's allocator
    torch.testing.assert_close(out, want)
    assert len(calls) == 1


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 GPUs")
def test_kernel_runs_where_its_tensors_are():
    assert torch.cuda.current_device() == 0
    for dev in (1, 0, 1):
        x = torch.rand(4096, device=f"cuda:{dev}")
        z = torch.zeros_like(x)
        k = _add(x, x, z, 4096)
        torch.cuda.synchronize(dev)
        torch.testing.assert_close(z, 2 * x)
        assert k.metadata["device"] == dev
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(1):
        x = torch.rand(4096, device="cuda:1")
        z = torch.zeros_like(x)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            _add(x, x, z, 4096)
        s.synchronize()
        torch.testing.assert_close(z, 2 * x)
    x0 = torch.rand(16, device="cuda:0")
    x1 = torch.rand(16, device="cuda:1")
    with pytest.raises(ValueError, match="argument 'y' of add_kernel is on cuda:1 but argument 'x' of add_kernel is on cuda:0"):
        _add(x0, x1, x0, 16)


@tessera.jit
def copy(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int16, torch.int32,
           torch.int64, torch.uint8, torch.bool] + [getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2")
                                                    if hasattr(torch, n)]


@pytest.mark.parametrize("dtype", _DTYPES, ids=str)
def test_every_torch_dtype_round_trips(dtype):
    raw = torch.randint(0, 256, (1000,), dtype=torch.uint8, device="cuda")
    size = torch.empty((), dtype=dtype).element_size()
    x = raw[: 1000 // size * size].view(dtype) if dtype != torch.bool else raw % 2 == 1
    out = torch.zeros_like(x)
    copy[(tessera.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    assert torch.equal(out.view(torch.uint8), x.view(torch.uint8))


@tessera.jit
def copy2d(x, out, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(x + rm[:, None] * sxm + rn[None, :] * sxn, mask=m)
    tl.store(out + rm[:, None] * som + rn[None, :] * son, v, mask=m)


def test_non_contiguous_views_by_their_strides():
    base = torch.rand(96, 80, device="cuda")
    for x in (base.t(), base[::2, 3:], base.t()[5:, ::3]):
        out = torch.empty(x.shape, device="cuda").t().contiguous().t()  # column-major output
        copy2d[(tessera.cdiv(x.shape[0], 32), tessera.cdiv(x.shape[1], 32))](
            x, out, x.shape[0], x.shape[1], x.stride(0), x.stride(1), out.stride(0), out.stride(1), BM=32, BN=32)
        assert torch.equal(out, x)


def test_debug_barrier_orders_scratch_between_threads():
    from ..unit.runtime.test_global_scratch import reverse_blocks
    x = torch.rand(1000 * 256, device="cuda")
    out = torch.zeros_like(x)
    reverse_blocks[(1000,)](x, out, BLOCK=256)
    assert torch.equal(out, x.view(1000, 256).flip(1).reshape(-1))


def test_shared_memory_reused_across_ops_and_noinline_calls():
    from ..unit.compiler.test_shared_memory import expected, sums
    x = torch.randn(500 * 1024, device="cuda")
    out = torch.zeros(500 * 4, device="cuda")
    for _ in range(3):  # races would show as differences between runs too
        sums[(500,)](x, out, BLOCK=1024)
        torch.testing.assert_close(out, expected(x, 1024), rtol=1e-4, atol=1e-3)


@tessera.jit
def copy_elements(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs))


def test_driver_and_reinterpret_on_the_gpu():
    from tessera.runtime import driver
    a = driver.active
    target = a.get_current_target()
    major, minor = torch.cuda.get_device_capability()
    assert target.backend == "cuda" and target.arch == major * 10 + minor and target.warp_size == 32
    assert a.get_active_torch_device() == torch.device("cuda", torch.cuda.current_device())
    props = a.utils.get_device_properties(torch.cuda.current_device())
    assert props["multiprocessor_count"] == torch.cuda.get_device_properties(0).multi_processor_count
    assert props["warpSize"] == 32 and props["max_shared_mem"] >= 48 * 1024 and props["max_num_regs"] >= 32768
    f = torch.tensor([1.0, -2.5, 0.0, 65504.0], dtype=torch.float16, device="cuda")
    out = torch.zeros(4, dtype=torch.float32, device="cuda")
    copy_elements[(1,)](tessera.reinterpret(f.view(torch.int16), tl.float16), out, N=4)
    assert out.tolist() == [1.0, -2.5, 0.0, 65504.0]


@tessera.jit
def hinted_copy(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    m = offs < N - 3
    a = tl.load(x + offs, cache_modifier=".cg", eviction_policy="evict_last")
    b = tl.load(x + offs, mask=m, other=-1.0, eviction_policy="evict_first")
    tl.store(out + offs, a, cache_modifier=".cs")
    tl.store(out + N + offs, b, mask=offs < N, cache_modifier=".wb", eviction_policy="evict_first")


def test_cache_hints_keep_results():
    x = torch.randn(256, device="cuda")
    out = torch.zeros(512, device="cuda")
    hinted_copy[(1,)](x, out, N=256)
    want = torch.cat([x, torch.where(torch.arange(256, device="cuda") < 253, x, torch.full_like(x, -1.0))])
    assert torch.equal(out, want)


@tessera.jit
def rows_kernel(out, x, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    # A parameter named like a launch option, as in Triton's softmax tutorial.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        offs = tl.arange(0, BLOCK)
        m = offs < n_cols
        tl.store(out + row * n_cols + offs, tl.load(x + row * n_cols + offs, mask=m) * 2, mask=m)


def test_warmed_up_kernel_reports_resources_and_launches():
    # The softmax tutorial's pattern: warmup, read registers and shared memory, launch the
    # compiled kernel itself on a persistent grid.
    x = torch.rand(37, 100, device="cuda")
    out = torch.zeros_like(x)
    k = rows_kernel.warmup(out, x, 37, 100, BLOCK=128, num_stages=2, num_warps=2, grid=(1,))
    k._init_handles()
    assert isinstance(k.n_regs, int) and 0 < k.n_regs <= 255
    assert isinstance(k.n_spills, int) and k.n_spills >= 0
    assert k.metadata.shared == k.metadata["shared"] and k.metadata.num_warps == 2
    k[(5, 1, 1)](out, x, 37, 100, 128, 2)
    torch.testing.assert_close(out, x * 2)
    # The launch reused the warmed-up binary (same options, no second compilation).
    assert len([c for c in rows_kernel.cache.values() if c.name == "rows_kernel"]) == 1


@tessera.jit
def wrap_gather(src, dst, start, n, BLOCK: tl.constexpr):
    # A signed remainder: with start >= 0 the kernel is specialized (tt.non_negative) and the
    # gather vectorizes; a negative start compiles without the fact and must still be right.
    offs = (start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(dst + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(src + offs + n))


@pytest.mark.parametrize("start", [0, 48, 2048, -2048, -1040, -16])
def test_signed_remainder_specialized_on_sign(start):
    n, block, programs = 1024, 256, 8
    src = torch.arange(2 * n, device="cuda", dtype=torch.float32)
    dst = torch.empty(block * programs, device="cuda")
    wrap_gather[(programs,)](src, dst, start, n, BLOCK=block)
    idx = torch.arange(block * programs, device="cuda", dtype=torch.int64) + start
    ref = src[torch.fmod(idx, n) + n]
    torch.testing.assert_close(dst, ref)
