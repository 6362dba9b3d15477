"""GPU tests (marked `gpu`): run on a machine with an NVIDIA GPU, e.g. the H200 through tools/device."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import ROOT, gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@tessera.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@pytest.mark.parametrize("n", [1, 1000, 1 << 20, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_vector_add(n, dtype):
    x = (torch.rand(n, device="cuda") * 100).to(dtype)
    y = (torch.rand(n, device="cuda") * 100).to(dtype)
    z = torch.full_like(x, 7)
    add_kernel[(tessera.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)
    torch.testing.assert_close(z, x + y)


def test_compiled_kernel_artifacts_and_metadata():
    x = torch.rand(4096, device="cuda")
    z = torch.empty_like(x)
    k = add_kernel[(4,)](x, x, z, 4096, BLOCK=1024)
    for stage in ("ttir", "ttgir", "llir", "ptx"):
        assert k.asm[stage]
    assert k.metadata["num_registers"] > 0 and k.metadata["num_spills"] == 0
    assert k.metadata["target"].startswith("cuda:")


def test_cpu_tensor_is_a_value_error_naming_the_parameter():
    x = torch.rand(16, device="cuda")
    with pytest.raises(ValueError, match="argument 'y_ptr'"):
        add_kernel[(1,)](x, torch.rand(16), x, 16, BLOCK=1024)


def _run(code):
    """Runs `code` (its line `import tessera_gpu_kernels as k` loads gpu_kernels.py as k) in a new process."""
    code = textwrap.dedent(code).replace("import tessera_gpu_kernels as k", _KERNELS_IMPORT)
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_device_print():
    r = _run("""
        import torch, tessera, tessera.language as tl
        import tessera_gpu_kernels as k
        x = torch.arange(8, device="cuda", dtype=torch.int32)
        k.print_kernel[(1,)](x)
        torch.cuda.synchronize()
    """)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "x=" in l]
    assert len(lines) == 8
    assert "pid (0, 0, 0) idx (5) x=5" in r.stdout


def test_device_assert_raises_a_cuda_error():
    r = _run("""
        import torch, tessera, tessera.language as tl
        import tessera_gpu_kernels as k
        from tessera.backends.nvidia import CudaError
        x = torch.tensor([1, 2, -3, 4], device="cuda", dtype=torch.int32)
        try:
            k.assert_kernel[(1,)](x)
            torch.cuda.synchronize()
            from tessera import _C
            s = _C.cuda.synchronize()
            print("STATUS", s.name)
        except Exception as e:
            print("RAISED", type(e).__name__, e)
    """)
    out = r.stdout + r.stderr
    assert "x must be non-negative" in out
    assert "CUDA_ERROR_ASSERT" in out or "device-side assert" in out, out


_KERNELS_IMPORT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gpu_kernels", %r)
k = importlib.util.module_from_spec(spec); spec.loader.exec_module(k)
""" % os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu_kernels.py")


@tessera.jit
def convert_kernel(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(DST), mask=m)


FP8 = ([(torch.float8_e4m3fn, tl.float8e4nv, 448.0), (torch.float8_e5m2, tl.float8e5, 57344.0)]
       if hasattr(torch, "float8_e4m3fn") else [])  # PyTorch >= 2.1


@pytest.mark.parametrize("tdt,ldt,fmax", FP8)
@pytest.mark.parametrize("src", [torch.float32, torch.float16, torch.bfloat16])
def test_fp8_downcast_rounds_to_nearest_even_and_saturates(tdt, ldt, fmax, src):
    n = 5000
    x = (torch.randn(n, device="cuda") * fmax / 8).to(src)
    if src == torch.float16:
        x = x.clamp(-60000, 60000)
    x[:3] = torch.tensor([fmax * 4, -fmax * 4, 0.0])  # out of range saturates; torch would give NaN
    y = torch.empty(n, device="cuda", dtype=tdt)
    convert_kernel[(tessera.cdiv(n, 1024),)](x, y, n, DST=ldt, BLOCK=1024)
    got = y.float()
    assert got[:3].tolist() == [fmax, -fmax, 0.0]
    ref = x[3:].float().to(tdt).float()
    torch.testing.assert_close(got[3:], ref, atol=0, rtol=0)


@pytest.mark.parametrize("tdt,ldt,fmax", FP8)
@pytest.mark.parametrize("dst,tdst", [(tl.float32, torch.float32), (tl.float16, torch.float16),
                                      (tl.bfloat16, torch.bfloat16)])
def test_fp8_upcast_is_exact_for_every_bit_pattern(tdt, ldt, fmax, dst, tdst):
    x = torch.arange(256, device="cuda", dtype=torch.int32).to(torch.uint8).view(tdt)
    y = torch.empty(256, device="cuda", dtype=tdst)
    convert_kernel[(1,)](x, y, 256, DST=dst, BLOCK=256)
    torch.testing.assert_close(y, x.to(tdst), atol=0, rtol=0, equal_nan=True)


def test_inline_asm_funnel_shift_and_packed_bytes():
    from test.unit.compiler.test_inline_asm_lowering import funnel_shift, u8_to_f32
    n = 3000
    a = torch.randint(0, 2 ** 31 - 1, (n,), device="cuda", dtype=torch.int32)
    b = torch.randint(0, 2 ** 31 - 1, (n,), device="cuda", dtype=torch.int32)
    out = torch.empty_like(a)
    funnel_shift[(tessera.cdiv(n, 256),)](a, b, out, n, BLOCK=256)
    ref = ((a.long() << 4) & 0xFFFFFFFF) | (b.long() >> 28)
    ref = torch.where(ref >= 2 ** 31, ref - 2 ** 32, ref).to(torch.int32)
    assert torch.equal(out, ref)
    x = (torch.arange(1024, device="cuda") % 256).to(torch.uint8)
    y = torch.empty(1024, device="cuda", dtype=torch.float32)
    u8_to_f32[(2,)](x, y, BLOCK=512)
    assert torch.equal(y, x.float())


def test_join_split_reshape_cat_move_elements_between_threads():
    from test.unit.compiler.test_views_lowering import expected, views
    for B in (64, 256):
        x = torch.randn(2 * B, device="cuda")
        o = torch.zeros(6 * B, device="cuda")
        views[(1,)](x, o, B=B)
        assert torch.equal(o.cpu(), torch.from_numpy(expected(x.cpu().numpy(), B))), B


@pytest.mark.parametrize("N,BINS,warps", [(1024, 64, 4), (256, 256, 4), (32, 8, 4), (4096, 128, 8)])
def test_histogram_counts_each_element_once(N, BINS, warps):
    from test.unit.compiler.test_histogram_lowering import expected, hist
    x = torch.randint(-5, BINS + 5, (N,), device="cuda", dtype=torch.int32)
    o = torch.zeros(BINS, device="cuda", dtype=torch.int32)
    hist[(1,)](x, o, N - 3, N=N, BINS=BINS, num_warps=warps)
    assert np.array_equal(o.cpu().numpy(), expected(x.cpu().numpy(), N - 3, BINS))


def test_gather_along_rows_and_1d():
    from test.unit.compiler.test_gather_lowering import gather_1d, gather_rows
    M, N, K = 16, 32, 8
    src = torch.randn(M, N, device="cuda")
    idx = torch.randint(0, N, (M, K), device="cuda", dtype=torch.int32)
    out = torch.zeros(M, K, device="cuda")
    gather_rows[(1,)](src, idx, out, M=M, N=N, K=K)
    assert torch.equal(out, torch.gather(src, 1, idx.long()))
    src1 = torch.randn(256, device="cuda").half()
    idx1 = torch.randint(0, 256, (512,), device="cuda", dtype=torch.int64)
    out1 = torch.zeros(512, device="cuda").half()
    gather_1d[(1,)](src1, idx1, out1, N=256, K=512)
    assert torch.equal(out1, src1[idx1])


def on_tensor_cores(ptx):
    """mma.sync (sm_80+), or wgmma on a cc 9.0 GPU for tiles of whole warpgroups."""
    return "mma.sync" in ptx or "wgmma.mma_async" in ptx


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("shape, warps", [((16, 16, 16), 1), ((64, 64, 32), 4), ((128, 64, 64), 4),
                                          ((32, 128, 64), 8), ((64, 32, 16), 2), ((16, 128, 32), 4)])
def test_tensor_core_dot_matches_torch(dtype, shape, warps):
    from test.unit.compiler.test_dot_lowering import dot_tile
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    BM, BN, BK = shape
    a = torch.randn(BM, BK, device="cuda").to(tdt)
    b = torch.randn(BK, BN, device="cuda").to(tdt)
    acc = torch.randn(BM, BN, device="cuda")
    c = torch.empty(BM, BN, device="cuda")
    k = dot_tile[(1,)](a, b, c, acc, BM=BM, BN=BN, BK=BK, num_warps=warps)
    assert on_tensor_cores(k.asm["ptx"])
    torch.testing.assert_close(c, acc + a.float() @ b.float(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("flag", [False, True])
@pytest.mark.parametrize("warps", [1, 4, 8])
def test_dot_accumulation_variants_on_tensor_cores(flag, warps):
    from test.unit.compiler.test_dot_lowering import dot_variants, expected_variants
    a = torch.randn(64, 128, device="cuda").half()
    b = torch.randn(128, 32, device="cuda").half()
    out = torch.zeros(2 * 64 * 32, device="cuda")
    sums = torch.zeros(64, device="cuda")
    k = dot_variants[(1,)](a, b, out, sums, K=128, FLAG=flag, BM=64, BN=32, BK=32, num_warps=warps)
    assert on_tensor_cores(k.asm["ptx"])
    acc, acc2, s = expected_variants(a.cpu(), b.cpu(), 128, 32, flag)
    torch.testing.assert_close(out[:2048].view(64, 32).cpu(), acc, rtol=1e-3, atol=1e-2)
    torch.testing.assert_close(out[2048:].view(64, 32).cpu(), acc2, rtol=1e-3, atol=1e-2)
    torch.testing.assert_close(sums.cpu(), s, rtol=1e-3, atol=1e-1)


@pytest.mark.skipif(not hasattr(torch, "float8_e5m2"), reason="torch without fp8")
@pytest.mark.parametrize("ta, tb", [("float8_e5m2", "float8_e5m2"), ("float8_e4m3fn", "float8_e5m2"),
                                    ("float8_e4m3fn", "float8_e4m3fn")])
def test_fp8_dot_matches_the_widened_product(ta, tb):
    from test.unit.compiler.test_fp8_lowering import fp8_dot
    a = (torch.randn(16, 16, device="cuda") * 4).to(getattr(torch, ta))
    b = (torch.randn(16, 16, device="cuda") * 4).to(getattr(torch, tb))
    c = torch.empty(16, 16, device="cuda")
    fp8_dot[(1,)](a, b, c)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_batched_dot_matches_bmm(dtype):
    from test.unit.compiler.test_dot_lowering import batched_dot
    a = torch.randn(4, 16, 32, device="cuda").to(dtype)
    b = torch.randn(4, 32, 16, device="cuda").to(dtype)
    c = torch.empty(4, 16, 16, device="cuda")
    batched_dot[(1,)](a, b, c, B=4, M=16, N=16, K=32)
    torch.testing.assert_close(c, torch.bmm(a.float(), b.float()), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("R, C, warps", [(8, 8, 1), (4, 32, 1), (16, 64, 4), (32, 32, 4), (2, 256, 4)])
def test_reshape_in_registers_keeps_row_major_order(R, C, warps):
    from test.unit.compiler.test_views_lowering import flatten_rows
    x = torch.randn(R, C, device="cuda")
    out = torch.empty(R * C, device="cuda")
    flatten_rows[(1,)](x, out, R=R, C=C, num_warps=warps)
    assert torch.equal(out, x.reshape(-1))


def test_while_loops_carrying_scalars_tensors_and_pointers():
    from ..unit.compiler.test_while_loops import count_to, mixed_carry
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    count_to[(1,)](out, 7)
    assert out.item() == 7
    buf = torch.zeros(5 + 128, device="cuda")
    mixed_carry[(1,)](buf, 5, BLOCK=128)
    assert torch.all(buf[5:] == 5.0) and torch.all(buf[:5] == 0.0)


def test_float_mod_is_floor_remainder_on_the_gpu():
    from ..unit.language.test_float_mod import _inputs, expected, fmod_kernel
    x, y, out = _inputs("cuda")
    fmod_kernel[(1,)](x, y, out, N=8)
    got = out.cpu().tolist()[:len(expected())]
    assert all(abs(g - w) < 1e-5 for g, w in zip(got, expected())), (got, expected())


@tessera.jit
def _row_stats(x, out_sum, out_max, out_arg, N, BLOCK: tl.constexpr):
    # Sum, max and argmax (a two-operand reduction) of one row per program, many warps per row.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * N + cols, mask=cols < N, other=float("-inf"))
    tl.store(out_sum + row, tl.sum(tl.where(cols < N, v, 0.0), axis=0))
    tl.store(out_max + row, tl.max(v, axis=0))
    tl.store(out_arg + row, tl.argmax(v, axis=0))


@tessera.jit
def _col_sums(x, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A 2-D tile reduced along rows: several output elements per thread.
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(x + rows * N + cols, mask=(rows < M) & (cols < N), other=0.0)
    tl.store(out + tl.arange(0, BN), tl.sum(v, axis=0), mask=tl.arange(0, BN) < N)


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8, 16, 32])
def test_reductions_across_many_warps(num_warps):
    M, N, BLOCK = 6, 5000, 8192
    x = torch.randn(M, N, device="cuda")
    s, mx = torch.empty(M, device="cuda"), torch.empty(M, device="cuda")
    arg = torch.empty(M, device="cuda", dtype=torch.int32)
    _row_stats[(M,)](x, s, mx, arg, N, BLOCK=BLOCK, num_warps=num_warps)
    torch.testing.assert_close(s, x.sum(1), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(mx, x.max(1).values)
    torch.testing.assert_close(arg.long(), x.argmax(1))
    y = torch.randn(100, 60, device="cuda")
    out = torch.empty(60, device="cuda")
    _col_sums[(1,)](y, out, 100, 60, BM=128, BN=64, num_warps=num_warps)
    torch.testing.assert_close(out, y.sum(0), rtol=1e-4, atol=1e-4)
