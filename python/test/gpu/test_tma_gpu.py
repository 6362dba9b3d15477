"""GPU tests of TMA (marked `gpu`; sm_90+): TensorDescriptor arguments get a tensor map from the
launcher and their 2-D loads and stores become cp.async.bulk.tensor copies (ttng-tma-lowering).
Checked against torch with odd shapes, strided views, out-of-bounds blocks (zero fill on loads,
clipping on stores: bytes past the view stay untouched), several element sizes and swizzles, a
matmul with host descriptors and one with descriptors made in the kernel (tensor maps written on
the device, with pointer accesses where the tensor does not meet TMA's alignment), and the same
results with TESSERA_DISABLE_TMA."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from ..unit.compiler.test_tma_compile import carried_matmul, desc_add_one, device_copy  # noqa: E402
from ..unit.compiler.test_tma_compile import device_matmul as device_desc_matmul  # noqa: E402
from ..unit.language.test_tensor_descriptor import load_2d, ref_store, ref_tile, store_2d  # noqa: E402
from . import gpu_marks  # noqa: E402

pytestmark = gpu_marks() + [pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 9, reason="TMA needs sm_90")]


@pytest.fixture(autouse=True)
def _tma_everywhere(monkeypatch):
    """These tests check the TMA path itself: every guarded copy takes TMA (TESSERA_TMA_ALL_COPIES),
    not only those serving tensor cores (the default policy: test_default_policy_copies_by_pointers).
    Loaded kernels keep what they were compiled with: the caches are cleared around each test."""
    monkeypatch.setenv("TESSERA_TMA_ALL_COPIES", "1")
    kernels = [desc_add_one, device_copy, load_2d, store_2d, desc_tile_at, desc_matmul, device_desc_matmul,
               carried_matmul]
    for k in kernels:
        k.cache.clear()
    yield
    for k in kernels:
        k.cache.clear()


@tessera.jit
def desc_tile_at(src, out, om, on, BM: tl.constexpr, BN: tl.constexpr):
    # one block at (om, on), possibly out of bounds, stored densely through pointers
    v = src.load([om, on])
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    tl.store(out + rm[:, None] * BN + rn[None, :], v)


def _compiled_ptx(fn):
    return [k.asm["ptx"] for k in fn.cache.values() if "ptx" in k.asm]


def padded(rows, cols, cols_alloc, dtype, fill):
    """A rows x cols view of a rows x cols_alloc buffer whose extra columns hold `fill`."""
    big = torch.full((rows, cols_alloc), fill, device="cuda").to(dtype)
    return big, big[:, :cols]


@pytest.mark.parametrize("dtype,block", [(torch.float16, (64, 64)), (torch.float32, (32, 32)),
                                         (torch.bfloat16, (64, 256)), (torch.int8, (32, 64)),
                                         (torch.float32, (16, 8))], ids=str)
def test_copy_through_tma_with_odd_shapes(dtype, block):
    # 784 columns: 16-byte rows for every element size, not a multiple of any block; 800
    # allocated, so that a store past the view would show
    rows, cols, alloc = 1000, 784, 800
    _, src = padded(rows, cols, alloc, dtype, 0)
    src.copy_(torch.randint(-50, 50, (rows, cols), device="cuda").to(dtype))
    big_dst, dst = padded(rows, cols, alloc, dtype, -7)
    desc_add_one.cache.clear()
    grid = (tessera.cdiv(rows, block[0]), tessera.cdiv(cols, block[1]))
    desc_add_one[grid](TensorDescriptor(src, [rows, cols], list(src.stride()), list(block)),
                       TensorDescriptor(dst, [rows, cols], list(dst.stride()), list(block)),
                       BM=block[0], BN=block[1])
    torch.testing.assert_close(dst, src + 1)
    # the store is clipped to the view: the buffer's extra columns are untouched
    assert (big_dst[:, cols:] == -7).all()
    ptx = _compiled_ptx(desc_add_one)
    assert ptx and all("cp.async.bulk.tensor.2d.shared::cluster.global" in p for p in ptx)
    assert all("cp.async.bulk.tensor.2d.global.shared::cta" in p for p in ptx)


def test_rows_not_a_multiple_of_16_bytes_keep_pointer_accesses():
    # TMA stores write whole 16-byte chunks: 777 halves per row would overrun the view, so such a
    # descriptor gets no tensor map and its accesses are clipped exactly.
    rows, cols, alloc = 300, 777, 800
    _, src = padded(rows, cols, alloc, torch.float16, 0)
    src.copy_(torch.randn(rows, cols, device="cuda").half())
    big_dst, dst = padded(rows, cols, alloc, torch.float16, -7)
    desc_add_one.cache.clear()
    desc_add_one[(tessera.cdiv(rows, 64), tessera.cdiv(cols, 64))](
        TensorDescriptor(src, [rows, cols], list(src.stride()), [64, 64]),
        TensorDescriptor(dst, [rows, cols], list(dst.stride()), [64, 64]), BM=64, BN=64)
    torch.testing.assert_close(dst, src + 1)
    assert (big_dst[:, cols:] == -7).all()
    assert all("cp.async.bulk.tensor" not in p for p in _compiled_ptx(desc_add_one))


@pytest.mark.parametrize("offs", [(0, 0), (-5, -17), (990, 770), (2000, 0), (-64, -64)], ids=str)
def test_out_of_bounds_blocks_read_zero(offs):
    x = torch.randn(1000, 776, device="cuda")
    out = torch.full((32, 64), 9.0, device="cuda")
    desc_tile_at[(1,)](TensorDescriptor.from_tensor(x, [32, 64]), out, offs[0], offs[1], BM=32, BN=64)
    ref = torch.zeros(32, 64, device="cuda")
    r0, c0 = offs
    for i in range(32):
        r = r0 + i
        if 0 <= r < 1000:
            lo, hi = max(c0, 0), min(c0 + 64, 776)
            if lo < hi:
                ref[i, lo - c0:hi - c0] = x[r, lo:hi]
    torch.testing.assert_close(out, ref)


def test_disabling_tma_gives_the_same_results(monkeypatch):
    x = torch.randn(333, 264, device="cuda", dtype=torch.float16)
    y1, y2 = torch.zeros_like(x), torch.zeros_like(x)
    grid = (tessera.cdiv(333, 64), tessera.cdiv(264, 64))
    desc_add_one[grid](TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y1, [64, 64]),
                       BM=64, BN=64)
    monkeypatch.setenv("TESSERA_DISABLE_TMA", "1")
    desc_add_one[grid](TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y2, [64, 64]),
                       BM=64, BN=64)
    torch.testing.assert_close(y1, y2)
    assert any("cp.async.bulk.tensor" not in p for p in _compiled_ptx(desc_add_one))


@tessera.jit
def desc_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@pytest.mark.parametrize("mnk", [(1000, 777 + 7, 264), (129, 136, 72), (512, 512, 512)], ids=str)
def test_host_descriptor_matmul(mnk):
    M, N, K = mnk
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float16)
    BM, BN, BK = 128, 128, 64
    desc_matmul[(tessera.cdiv(M, BM), tessera.cdiv(N, BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
        TensorDescriptor.from_tensor(c, [BM, BN]), M, N, K, BM=BM, BN=BN, BK=BK, num_warps=8)
    torch.testing.assert_close(c, (a.float() @ b.float()).half(), atol=0.1, rtol=0.02)
    assert all("cp.async.bulk.tensor" in p for p in _compiled_ptx(desc_matmul))


# (1000, 784, 264), (129, 136, 72): every row 16-byte aligned, TMA throughout; (130, 100, 260):
# rows of B and C (200 bytes) and A (520 bytes) are not, so the copies fall back to pointers at
# run time; (64, 64, 0): no K iteration.
@pytest.mark.parametrize("mnk", [(1000, 784, 264), (129, 136, 72), (130, 100, 260), (64, 64, 0)], ids=str)
def test_device_descriptor_matmul(mnk):
    M, N, K = mnk
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), 7.0, device="cuda", dtype=torch.float16)
    device_desc_matmul[(tessera.cdiv(M, 128), tessera.cdiv(N, 128))](a, b, c, M, N, K, BM=128, BN=128, BK=64,
                                                                     num_warps=8)
    torch.testing.assert_close(c, (a.float() @ b.float()).half(), atol=0.1, rtol=0.02)
    ptx = _compiled_ptx(device_desc_matmul)
    assert ptx and all("tensormap.replace" in p and "cp.async.bulk.tensor" in p for p in ptx)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int8], ids=str)
@pytest.mark.parametrize("shape", [(1000, 784), (333, 80), (70, 60)], ids=str)
def test_device_descriptor_copy(shape, dtype):
    # rows of 16-byte multiples take TMA, others (70 x 60 int8 or fp16) fall back to pointers
    M, N = shape
    x = torch.randint(-100, 100, (M, N), device="cuda").to(dtype)
    y = torch.zeros_like(x)
    device_copy[(tessera.cdiv(M, 64), tessera.cdiv(N, 64))](x, y, M, N, BM=64, BN=64)
    assert torch.equal(y, x)


def test_device_descriptor_of_a_misaligned_base():
    # A tensor 2 bytes past a 16-byte boundary: the map's address check fails, pointers copy.
    buf = torch.randn(257 * 128 + 8, device="cuda", dtype=torch.float16)
    x = buf[1:1 + 257 * 128].view(257, 128)
    y = torch.zeros(257, 128, device="cuda", dtype=torch.float16)
    device_copy[(tessera.cdiv(257, 64), 2)](x, y, 257, 128, BM=64, BN=64)
    assert torch.equal(y, x)


@pytest.mark.parametrize("offs", [(0, 0), (40, 48), (-8, -16), (45, 60), (-5, -3)], ids=str)
def test_device_descriptor_out_of_bounds(offs):
    # 50 x 72 fp32: 288-byte rows, so TMA copies (inner offsets that are multiples of 4); the
    # hardware's zero fill and clipping match the pointer path's masks
    x = torch.randn(50, 72, device="cuda")
    out = torch.full((16, 32), 7.0, device="cuda")
    load_2d[(1,)](x, out, 50, 72, offs[0], offs[1], BM=16, BN=32, PAD="zero")
    import numpy as np
    np.testing.assert_array_equal(out.cpu().numpy(), ref_tile(x.cpu().numpy(), offs, (16, 32), 0.0))
    v = torch.randn(16, 32, device="cuda")
    y = torch.full((50, 72), -1.0, device="cuda")
    store_2d[(1,)](v, y, 50, 72, offs[0], offs[1], BM=16, BN=32)
    np.testing.assert_array_equal(y.cpu().numpy(),
                                  ref_store(np.full((50, 72), -1.0, np.float32), offs, v.cpu().numpy()))
    assert all("tensormap.replace" in p for p in _compiled_ptx(load_2d) + _compiled_ptx(store_2d))


def test_triton_host_descriptors_are_accepted():
    # Ported code that still imports triton.tools.tensor_descriptor passes Triton's objects.
    triton_td = pytest.importorskip("triton.tools.tensor_descriptor")
    x = torch.randn(300, 264, device="cuda", dtype=torch.float16)
    y = torch.zeros_like(x)
    desc_add_one.cache.clear()
    desc_add_one[(tessera.cdiv(300, 64), tessera.cdiv(264, 64))](
        triton_td.TensorDescriptor.from_tensor(x, [64, 64]), triton_td.TensorDescriptor.from_tensor(y, [64, 64]),
        BM=64, BN=64)
    torch.testing.assert_close(y, x + 1)
    assert all("cp.async.bulk.tensor" in p for p in _compiled_ptx(desc_add_one))


@pytest.mark.parametrize("mnk", [(1000, 784, 264), (256, 256, 1024)], ids=str)
def test_carried_offsets_pipeline(mnk):
    M, N, K = mnk
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float16)
    carried_matmul[(tessera.cdiv(M, 128), tessera.cdiv(N, 128))](
        TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [64, 128]), c, M, N, K,
        BM=128, BN=128, BK=64, num_warps=8, num_stages=3)
    torch.testing.assert_close(c, (a.float() @ b.float()).half(), atol=0.1, rtol=0.02)


def test_default_policy_copies_by_pointers(monkeypatch):
    # Without TESSERA_TMA_ALL_COPIES a copy takes pointer accesses (faster than one TMA round trip
    # per program) and a matmul TMA: both correct.
    monkeypatch.delenv("TESSERA_TMA_ALL_COPIES")
    x = torch.randn(1000, 784, device="cuda", dtype=torch.float16)
    y = torch.zeros_like(x)
    device_copy[(tessera.cdiv(1000, 64), tessera.cdiv(784, 64))](x, y, 1000, 784, BM=64, BN=64)
    assert torch.equal(y, x)
    assert all("cp.async.bulk.tensor" not in p for p in _compiled_ptx(device_copy))
    a = torch.randn(1000, 264, device="cuda", dtype=torch.float16)
    b = torch.randn(264, 784, device="cuda", dtype=torch.float16)
    c = torch.zeros(1000, 784, device="cuda", dtype=torch.float16)
    device_desc_matmul[(tessera.cdiv(1000, 128), tessera.cdiv(784, 128))](a, b, c, 1000, 784, 264, BM=128, BN=128,
                                                                           BK=64, num_warps=8)
    torch.testing.assert_close(c, (a.float() @ b.float()).half(), atol=0.1, rtol=0.02)
    assert all("cp.async.bulk.tensor" in p for p in _compiled_ptx(device_desc_matmul))


def test_clearing_the_cache_recompiles():
    # fn.cache.clear() also empties the C++ launcher's cache: the next launch compiles again
    # (what the fixture above relies on to apply TESSERA_TMA_ALL_COPIES).
    x = torch.randn(128, 128, device="cuda", dtype=torch.float16)
    y = torch.zeros_like(x)
    args = (TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y, [64, 64]))
    desc_add_one[(2, 2)](*args, BM=64, BN=64)
    assert desc_add_one.cache and desc_add_one._launch_cache
    desc_add_one.cache.clear()
    assert not desc_add_one.cache and not desc_add_one._launch_cache
    desc_add_one[(2, 2)](*args, BM=64, BN=64)
    assert len(desc_add_one.cache) == 1
    torch.testing.assert_close(y, x + 1)
