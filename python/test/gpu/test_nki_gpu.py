"""tessera.nki kernels compiled through tt and run on the GPU match the interpreter and PyTorch."""
import pytest

torch = pytest.importorskip("torch")

import tessera.nki as nki  # noqa: E402

from . import gpu_marks  # noqa: E402
from ..unit.nki.test_nki_compile import CASES  # noqa: E402 (the kernels and inputs)

pytestmark = gpu_marks()


@pytest.mark.parametrize("name", list(CASES))
def test_tutorial_kernels_on_the_gpu(name):
    kernel, make, grid = CASES[name]
    torch.manual_seed(0)
    args = make()
    expected = kernel[grid](*args)  # the interpreter, on the CPU
    dev = [a.cuda() if isinstance(a, torch.Tensor) else a for a in args]
    c = nki.compile(kernel, *dev, grid=grid)
    got = c(*[a for a in dev if isinstance(a, torch.Tensor)])
    torch.cuda.synchronize()
    tol = dict(atol=5e-2, rtol=1e-2) if name == "matmul" else dict(atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(got.cpu(), expected, **tol)
