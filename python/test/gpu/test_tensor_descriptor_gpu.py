"""GPU tests of tensor descriptors (marked `gpu`): TensorDescriptor arguments and in-kernel
tl.make_tensor_descriptor, compiled to masked pointer accesses, against torch; a new block_shape
compiles a new kernel; the fused-attention tutorial's forward pass (Triton 3.6's 06, imports
changed) when its source is present (benchmarks/tutorials/upstream, git-ignored)."""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from ..unit.language.test_tensor_descriptor import (  # noqa: E402
    TUTORIAL, copy_1d, copy_3d, desc_atomic, gather_rows, host_scale, load_2d, load_tutorial, ref_store, ref_tile,
    row_sums, scatter_rows, store_2d, via_helpers)
from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_host_descriptors_scale_with_edges(dtype):
    x = torch.randn(1000, 200, device="cuda").to(dtype)
    y = torch.zeros_like(x)
    dx, dy = TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y, [64, 64])
    host_scale[(tessera.cdiv(1000, 64), tessera.cdiv(200, 64))](dx, dy, 1.5, BM=64, BN=64)
    torch.testing.assert_close(y, (x.float() * 1.5).to(dtype))


def test_host_descriptor_of_a_strided_view():
    big = torch.randn(300, 160, device="cuda")
    x = big[:, 16:144]
    y = torch.zeros(300, 128, device="cuda")
    dx = TensorDescriptor(x, list(x.shape), list(x.stride()), [32, 64])
    host_scale[(10, 2)](dx, TensorDescriptor.from_tensor(y, [32, 64]), -2.0, BM=32, BN=64)
    torch.testing.assert_close(y, -2 * x)


@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("offs", [(0, 0), (40, 48), (-5, -3), (45, 60)], ids=str)
def test_in_kernel_descriptor_tile(offs, pad):
    x = torch.randn(50, 70, device="cuda")
    out = torch.full((16, 32), 7.0, device="cuda")
    load_2d[(1,)](x, out, 50, 70, offs[0], offs[1], BM=16, BN=32, PAD=pad)
    ref = ref_tile(x.cpu().numpy(), offs, (16, 32), np.nan if pad == "nan" else 0.0)
    np.testing.assert_array_equal(out.cpu().numpy(), ref)


@pytest.mark.parametrize("offs", [(0, 0), (-7, -9), (49, 69)], ids=str)
def test_store_is_clipped(offs):
    v = torch.randn(16, 32, device="cuda")
    y = torch.full((50, 70), -1.0, device="cuda")
    store_2d[(1,)](v, y, 50, 70, offs[0], offs[1], BM=16, BN=32)
    np.testing.assert_array_equal(y.cpu().numpy(),
                                  ref_store(np.full((50, 70), -1.0, np.float32), offs, v.cpu().numpy()))


def test_1d_and_3d():
    x = torch.randn(1000, device="cuda")
    y = torch.zeros_like(x)
    copy_1d[(64,)](x, y, 1000, -7, B=16)  # tiles [-7, 1017): both ends straddle the tensor
    torch.testing.assert_close(y, 2 * x)
    big = torch.randn(5, 6, 48, device="cuda")
    x3 = big[:, :, 4:44]
    y3 = torch.zeros(5, 6, 40, device="cuda")
    copy_3d[(3, 2, 3)](x3, y3, 5, 6, 40, x3.stride(0), x3.stride(1), BA=2, BB=4, BC=16)
    torch.testing.assert_close(y3, x3 + 1)


def test_helpers_loops_and_ifs():
    x, y = torch.randn(40, 64, device="cuda"), torch.zeros(40, 64, device="cuda")
    via_helpers[(3, 2)](TensorDescriptor.from_tensor(x, [16, 32]), y, 40, 64, BM=16, BN=32)
    torch.testing.assert_close(y, 3 * x)
    a = torch.randn(40, 70, device="cuda")
    out = torch.zeros(40, device="cuda")
    row_sums[(3,)](a, out, 40, 70, BM=16, BK=32)
    ref = a.sum(1)
    ref[:16] = -ref[:16]
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["add", "max", "xor"])
def test_atomics(op):
    y0 = torch.randint(-50, 50, (20, 24), device="cuda", dtype=torch.int32)
    v = torch.randint(-50, 50, (16, 16), device="cuda", dtype=torch.int32)
    y = y0.clone()
    desc_atomic[(1,)](y, v, 20, 24, 10, 12, OP=op, BM=16, BN=16)
    fn = {"add": np.add, "max": np.maximum, "xor": np.bitwise_xor}[op]
    y0n = y0.cpu().numpy()
    ref = ref_store(y0n, (10, 12), fn(ref_tile(y0n, (10, 12), (16, 16)), v.cpu().numpy()))
    np.testing.assert_array_equal(y.cpu().numpy(), ref)


def test_gather_scatter():
    x = torch.randn(12, 40, device="cuda")
    rows = torch.tensor([0, 3, 11, -1, 12, 5, 6, 7], device="cuda", dtype=torch.int32)
    out = torch.full((8, 16), 9.0, device="cuda")
    gather_rows[(1,)](x, rows, out, 12, 40, 30, NR=8, BN=16)
    xn = x.cpu().numpy()
    ref = np.stack([ref_tile(xn, (r, 30), (1, 16))[0] for r in rows.tolist()])
    np.testing.assert_array_equal(out.cpu().numpy(), ref)
    y = torch.zeros(12, 40, device="cuda")
    v = torch.randn(8, 16, device="cuda")
    scatter_rows[(1,)](v, rows, y, 12, 40, 30, NR=8, BN=16)
    ref = np.zeros((12, 40), np.float32)
    for i, r in enumerate(rows.tolist()):
        ref = ref_store(ref, (r, 30), v.cpu().numpy()[i:i + 1])
    np.testing.assert_array_equal(y.cpu().numpy(), ref)


def test_new_block_shape_compiles_a_new_kernel():
    x = torch.randn(128, 128, device="cuda")
    y = torch.zeros_like(x)
    dx, dy = TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor.from_tensor(y, [16, 32])
    host_scale[(8, 4)](dx, dy, 2.0, BM=16, BN=32)
    n = len(host_scale._launch_cache)
    host_scale[(8, 4)](dx, dy, 3.0, BM=16, BN=32)
    assert len(host_scale._launch_cache) == n  # the same kernel
    torch.testing.assert_close(y, 3 * x)
    dx.block_shape = dy.block_shape = [32, 64]
    host_scale[(4, 2)](dx, dy, 4.0, BM=32, BN=64)
    assert len(host_scale._launch_cache) == n + 1
    torch.testing.assert_close(y, 4 * x)


# ------------------------------------------------------------------ the fused-attention tutorial


@pytest.mark.skipif(not os.path.exists(TUTORIAL), reason="the upstream tutorial source is not present")
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("warp_specialize", [False, True], ids=["host_descriptors", "in_kernel_descriptors"])
def test_fused_attention_tutorial_forward(tmp_path, monkeypatch, causal, warp_specialize):
    monkeypatch.setenv("PYTEST_VERSION", os.environ.get("PYTEST_VERSION", "1"))  # the tutorial's single config
    mod = load_tutorial(tmp_path)
    Z, H, N_CTX, HEAD_DIM = 1, 2, 256, 64
    torch.manual_seed(20)
    q, k, v = (torch.empty((Z, H, N_CTX, HEAD_DIM), dtype=torch.float16, device="cuda").normal_(0.0, 0.5)
               for _ in range(3))
    sm_scale = 0.5
    p = torch.matmul(q, k.transpose(2, 3)) * sm_scale
    if causal:
        p[:, :, torch.tril(torch.ones((N_CTX, N_CTX), device="cuda")) == 0] = float("-inf")
    ref = torch.matmul(torch.softmax(p.float(), dim=-1).half(), v).half()
    try:
        out = mod.attention(q, k, v, causal, sm_scale, warp_specialize).half()
    finally:
        tessera.set_allocator(None)  # forward() installs its own
    torch.testing.assert_close(out, ref, atol=1e-2, rtol=0)
