"""ttg-version-nonnegative (compile-only): the wrapped indices of Triton's grouped matmul tutorial,
`(pid_n * BN + tl.arange(0, BN)) % N`, are runs only where pid_n * BN >= 0, which AxisInfo cannot
prove (pid_n is a quotient by `min(num_pid_m - first_pid_m, GROUP_M)`). The compiler versions the
kernel on that sign, and in the version where it holds the B tile is copied 16 bytes at a time and
pipelined like A. The interpreter runs the kernel as written (no passes): results there and on the
GPU (test_version_nonnegative_gpu.py) are checked against PyTorch."""

import re

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def grouped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GM * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GM
    group_size_m = min(num_pid_m - first_pid_m, GM)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * sam + offs_k[None, :] * sak)
    b_ptrs = b_ptr + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@tessera.jit
def wrapped_copy(x, y, start, n, BLOCK: tl.constexpr):
    # y[i] = x[n + (start + i) % n] with C's remainder, in (-n, n): start may be negative.
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + n + (start + i) % n))


# What the launcher specializes for contiguous fp16 tensors of sizes divisible by 16 (strides of
# one are constants).
MM_SIG = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16:nonneg",
          "N": "i32:16:nonneg", "K": "i32:8:nonneg", "sam": "i32:8:nonneg", "sbk": "i32:16:nonneg",
          "scm": "i32:16:nonneg"}
MM_CONSTS = dict(sak=1, sbn=1, scn=1, BM=64, BN=64, BK=32, GM=4)


def _copies(ttgir):
    """(operand tile shape, contiguity) of every ttg.async_copy_global_to_local."""
    return re.findall(r"ttg\.async_copy_global_to_local .*\{contiguity = (\d+) : i32\} : "
                      r"tensor<(\d+x\d+)x!tt\.ptr", ttgir)


def _branches(ttgir):
    """The text of the versioned scf.if's then and else branches."""
    start = ttgir.index("scf.if")
    middle = ttgir.index("} else {", start)
    end = ttgir.index("} {tt.nonnegative_version}", middle)
    return ttgir[start:middle], ttgir[middle:end]


def test_grouped_matmul_b_tile_is_pipelined_in_the_nonnegative_version():
    k = tessera.compile(grouped_matmul, signature=MM_SIG, constexprs=MM_CONSTS, target="cuda:90")
    ttgir = k.asm["ttgir"]
    assert ttgir.count("tt.nonnegative_version") == 1
    then, other = _branches(ttgir)
    # Both tiles (A 64x32, B 32x64) go to shared memory 8 halves (16 bytes) at a time, in the
    # prologue and in the loop.
    assert sorted(set(_copies(then))) == [("8", "32x64"), ("8", "64x32")]
    assert "arith.maxsi" in then
    # The original code: B's columns are not proven consecutive, so B is loaded, not copied.
    assert ("8", "32x64") not in _copies(other)
    assert re.search(r"tt\.load .*tensor<32x64x!tt\.ptr<f16>", other)
    ptx = k.asm["ptx"]
    assert re.search(r"cp\.async\.cg\.shared\.global \[[^\]]+\], \[[^\]]+\], 16", ptx)


def test_known_nonnegative_bases_are_not_versioned():
    # pid_n = pid % num_pid_n is >= 0: no second copy of the kernel.
    @tessera.jit
    def plain_order(b_ptr, c_ptr, N, BN: tl.constexpr):
        pid_n = tl.program_id(0) % tl.cdiv(N, BN)
        offs = (pid_n * BN + tl.arange(0, BN)) % N
        tl.store(c_ptr + tl.program_id(0) * BN + tl.arange(0, BN), tl.load(b_ptr + offs))

    k = tessera.compile(plain_order, signature={"b_ptr": "*fp32:16", "c_ptr": "*fp32:16",
                                                "N": "i32:16:nonneg"}, constexprs={"BN": 1024},
                        target="cuda:90")
    assert "tt.nonnegative_version" not in k.asm["ttgir"]
    assert "ld.global.v4.b32" in k.asm["ptx"]


def test_wrapped_copy_versions_on_the_start_and_vectorizes_one_version():
    k = tessera.compile(wrapped_copy, signature={"x": "*fp32:16", "y": "*fp32:16", "start": "i32:16",
                                                 "n": "i32:16"}, constexprs={"BLOCK": 1024},
                        target="cuda:90")
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    assert ttgir.count("tt.nonnegative_version") == 1
    # The version for start >= 0 loads 4 floats at a time, the other one at a time.
    assert "ld.global.v4.b32" in ptx and "ld.global.b32" in ptx


def test_disable_coalesce_turns_versioning_off(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TESSERA_DISABLE_COALESCE", "1")
    k = tessera.compile(wrapped_copy, signature={"x": "*fp32:16", "y": "*fp32:16", "start": "i32:16",
                                                 "n": "i32:16"}, constexprs={"BLOCK": 1024},
                        target="cuda:90")
    assert "tt.nonnegative_version" not in k.asm["ttgir"]


def test_amd_target_versions_too():
    k = tessera.compile(wrapped_copy, signature={"x": "*fp32:16", "y": "*fp32:16", "start": "i32:16",
                                                 "n": "i32:16"}, constexprs={"BLOCK": 1024},
                        target="hip:gfx942")
    assert k.asm["ttgir"].count("tt.nonnegative_version") == 1


@pytest.mark.parametrize("start", [-1000, -5, 0, 7, 4096])
def test_wrapped_copy_in_the_interpreter(start, monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    n, block, grid = 512, 128, 4
    x = torch.arange(2 * n, dtype=torch.float32)
    y = torch.empty(block * grid, dtype=torch.float32)
    wrapped_copy[(grid,)](x, y, start, n, BLOCK=block)
    assert torch.equal(y, x[n + torch.fmod(start + torch.arange(block * grid), n)])


def test_grouped_matmul_in_the_interpreter(monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    M, N, K = 96, 80, 40
    g = torch.Generator().manual_seed(0)
    a = torch.randn(M, K, generator=g).half()
    b = torch.randn(K, N, generator=g).half()
    c = torch.empty(M, N, dtype=torch.float16)
    grid = (tessera.cdiv(M, 32) * tessera.cdiv(N, 32),)
    grouped_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         c.stride(0), c.stride(1), BM=32, BN=32, BK=16, GM=2)
    np.testing.assert_allclose(c.float().numpy(), (a.float() @ b.float()).numpy(), atol=5e-2, rtol=1e-2)


@tessera.jit
def wrapped_copy_assumed(x, y, start, n, BLOCK: tl.constexpr):
    tl.assume(start >= 0)
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + n + (start + i) % n))


def test_tl_assume_makes_one_vector_version():
    k = tessera.compile(wrapped_copy_assumed, signature={"x": "*fp32:16", "y": "*fp32:16",
                                                         "start": "i32:16", "n": "i32:16"},
                        constexprs={"BLOCK": 1024}, target="cuda:90")
    assert "tt.nonnegative_version" not in k.asm["ttgir"]
    assert set(re.findall(r"ld\.global[.\w]*", k.asm["ptx"])) == {"ld.global.v4.b32"}


def test_registers_are_capped_at_the_fast_versions_need():
    # The version for bases below zero loads B without vectors (64-bit pointers per element) and
    # needs many more registers than the one that runs; ptxas gives a kernel what its hungriest
    # path needs, so the backend caps it at the fast version's own need (what ptxas reports for
    # the kernel compiled with only the then branches).
    from tessera.backends import nvidia
    if nvidia.find_ptxas() is None:
        pytest.skip("needs ptxas (CUDA toolkit)")
    consts = dict(MM_CONSTS, BM=128, BN=128, BK=64, GM=8)
    k = tessera.compile(grouped_matmul, signature=MM_SIG, constexprs=consts, target="cuda:90",
                        num_warps=8, num_stages=3)
    cap = k.metadata["version_maxnreg"]
    assert isinstance(cap, int) and cap <= 128  # two 256-thread programs per SM, as without versions
    assert nvidia.ptxas_registers(k.asm["ptx"], 90) > cap
    # The cap is a .maxnreg directive (ptxas's --maxrregcount leaves .reqntid kernels alone).
    assert nvidia.ptxas_registers(nvidia.with_maxnreg(k.asm["ptx"], cap), 90) <= cap
    # A user's maxnreg is kept as given.
    k = tessera.compile(grouped_matmul, signature=MM_SIG, constexprs=consts, target="cuda:90",
                        num_warps=8, num_stages=3, maxnreg=200)
    assert "version_maxnreg" not in k.metadata


def test_with_maxnreg_bounds_every_entry_and_replaces_an_earlier_bound():
    from tessera.backends import nvidia
    ptx = (".visible .entry a(\n\t.param .u64 a_param_0\n)\n.reqntid 128\n{\n\tret;\n}\n"
           ".visible .entry b()\n.maxnreg 200\n{\n\tret;\n}\n")
    out = nvidia.with_maxnreg(ptx, 64)
    assert out.count(".maxnreg 64") == 2 and ".maxnreg 200" not in out
    assert ".reqntid 128\n.maxnreg 64\n{" in out


def test_occupancy_arithmetic_of_the_register_bound():
    from tessera.backends.nvidia import blocks_per_sm, occupancy_register_bound
    # 256 threads, 96 KiB of shared memory on sm_90: two blocks fit by shared memory; 202
    # registers allow one, 128 two.
    assert blocks_per_sm(90, 256, 98304, 202) == 1
    assert blocks_per_sm(90, 256, 98304, 128) == 2
    assert occupancy_register_bound(90, 256, 98304, 120) == 128
    # 128 threads, 16 KiB: 80 registers give 6 blocks, 116 (rounded to 120) give 4.
    assert blocks_per_sm(90, 128, 16384, 80) == 6
    assert blocks_per_sm(90, 128, 16384, 116) == 4
    assert occupancy_register_bound(90, 128, 16384, 80) == 80
    # Shared memory or threads bind first: the bound goes up to what they allow.
    assert occupancy_register_bound(90, 1024, 0, 40) == 64
    assert blocks_per_sm(80, 128, 200 * 1024, 32) == 0


def test_amd_versioned_kernel_keeps_the_fast_versions_waves():
    # On CDNA the other version's VGPRs would halve the waves per SIMD (287 VGPRs: one wave, where
    # the fast version alone needs two waves' worth); the kernel is compiled again with
    # amdgpu-waves-per-eu at the fast version's count, and the other version spills.
    from tessera.backends.amd import waves_per_simd
    consts = dict(MM_CONSTS, BM=128, BN=128, BK=64, GM=8)
    k = tessera.compile(grouped_matmul, signature=MM_SIG, constexprs=consts, target="hip:gfx942",
                        num_warps=4, num_stages=2)
    waves = k.metadata["version_waves_per_eu"]
    assert waves >= 2
    assert waves_per_simd("gfx942", k.metadata["amdgpu_vgprs"]) >= waves
    # A user's waves_per_eu is kept as given.
    k = tessera.compile(grouped_matmul, signature=MM_SIG, constexprs=consts, target="hip:gfx942",
                        num_warps=4, num_stages=2, waves_per_eu=1)
    assert "version_waves_per_eu" not in k.metadata


def test_waves_per_simd():
    from tessera.backends.amd import waves_per_simd
    assert waves_per_simd("gfx942", 176) == 2 and waves_per_simd("gfx942", 287) == 1
    assert waves_per_simd("gfx90a", 64) == 8 and waves_per_simd("gfx942", 24) == 8
    assert waves_per_simd("gfx1100", 64) is None


@tessera.jit(noinline=True)
def _wrapped_block(x, y, start, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(y + start + n + i, tl.load(x + n + (start + i) % n))


@tessera.jit
def calls_wrapped(x, y, n, BLOCK: tl.constexpr):
    # The base passed to the noinline callee may be negative (program 0 starts at -BLOCK).
    _wrapped_block(x, y, (tl.program_id(0) - 1) * BLOCK, n, BLOCK)


def test_noinline_callee_is_versioned_on_its_argument():
    k = tessera.compile(calls_wrapped, signature={"x": "*fp32:16", "y": "*fp32:16", "n": "i32:16"},
                        constexprs={"BLOCK": 1024}, target="cuda:90")
    assert "tt.call" in k.asm["ttgir"]
    assert k.asm["ttgir"].count("tt.nonnegative_version") == 1
    assert "ld.global.v4.b32" in k.asm["ptx"] and "ld.global.b32" in k.asm["ptx"]


def test_noinline_callee_results_in_the_interpreter(monkeypatch):
    import torch
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    n, block, grid = 2048, 256, 4
    x = torch.arange(2 * n, dtype=torch.float32)
    y = torch.full((n + block * grid,), -1.0)
    calls_wrapped[(grid,)](x, y, n, BLOCK=block)
    for p in range(grid):
        start = (p - 1) * block
        idx = torch.fmod(start + torch.arange(block), n)
        assert torch.equal(y[start + n: start + n + block], x[n + idx])
