"""32-bit integer warp reductions by redux.sync on the GPU against PyTorch/numpy: every kind, signed
and unsigned, over a whole block and along the rows of a 2-D tile."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from . import gpu_marks  # noqa: E402
from ..unit.compiler.test_redux import reduce_all  # noqa: E402

pytestmark = gpu_marks()


@pytest.mark.parametrize("kind", ["max", "min", "sum", "xor", "or"])
@pytest.mark.parametrize("warps", [1, 4, 8])
def test_block_reductions(kind, warps):
    g = torch.Generator().manual_seed(11)
    x = torch.randint(-2 ** 31, 2 ** 31 - 1, (1024,), generator=g, dtype=torch.int32)
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    reduce_all[(1,)](x.cuda(), out, KIND=kind, BLOCK=1024, num_warps=warps)
    a = x.numpy()
    want = {"max": a.max(), "min": a.min(), "sum": a.sum(dtype=np.int64).astype(np.int32),
            "xor": np.bitwise_xor.reduce(a), "or": np.bitwise_or.reduce(a)}[kind]
    assert out.item() == int(np.int32(want))


@tessera.jit
def row_max(x, out, N: tl.constexpr):
    rows = tl.arange(0, 16)
    cols = tl.arange(0, N)
    v = tl.load(x + rows[:, None] * N + cols[None, :])
    tl.store(out + rows, tl.max(v, axis=1))


@pytest.mark.parametrize("n", [32, 128, 1024])
def test_row_max(n):
    x = torch.randint(-1000, 1000, (16, n), dtype=torch.int32, device="cuda")
    out = torch.empty(16, dtype=torch.int32, device="cuda")
    row_max[(1,)](x, out, N=n)
    assert torch.equal(out, x.max(dim=1).values)
