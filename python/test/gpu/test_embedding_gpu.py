"""GPU tests of embedding Tessera (marked `gpu`): kernels registered as PyTorch operators, run
eagerly and under torch.compile against eager PyTorch; the ahead-of-time C example program
(examples/aot) built with the system compiler and run."""

import os
import shutil
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
import tessera.torch as ttorch  # noqa: E402

from . import ROOT, gpu_marks  # noqa: E402

pytestmark = gpu_marks()


@tessera.jit
def scale_add(x, y, out, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, a * tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@tessera.jit
def relu_inplace(x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    tl.store(x + offs, tl.where(v > 0, v, 0.0), mask=m)


def _grid(args):
    return (tessera.cdiv(args["n"], 1024),)


_OPS = {}


def ops():
    if not _OPS:
        _OPS["scale_add"] = ttorch.custom_op(
            "tessera_gpu::scale_add", scale_add, constexprs={"BLOCK": 1024}, grid=_grid,
            signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "a": "fp32", "n": "i32"})
        _OPS["relu_"] = ttorch.custom_op("tessera_gpu::relu_", relu_inplace, constexprs={"BLOCK": 1024},
                                         grid=_grid, signature={"x": "*fp32", "n": "i32"})
    return _OPS


def model(x, y, w):
    """A model-like step: h = 0.5 x + y (an op writing a new buffer), relu in place, a matmul."""
    o = ops()
    h = torch.empty_like(x)
    o["scale_add"](x, y, h, 0.5, x.numel())
    o["relu_"](h, h.numel())
    return h.view(-1, w.shape[0]) @ w


def reference(x, y, w):
    return torch.relu(0.5 * x + y).view(-1, w.shape[0]) @ w


def test_operators_eager_and_under_torch_compile():
    assert ops()["relu_"].mutated == ["x"] and ops()["scale_add"].mutated == ["out"]
    x = torch.randn(64 * 256, device="cuda")
    y = torch.randn(64 * 256, device="cuda")
    w = torch.randn(256, 32, device="cuda")
    torch.testing.assert_close(model(x, y, w), reference(x, y, w))
    compiled = torch.compile(model, fullgraph=True)
    for _ in range(2):
        torch.testing.assert_close(compiled(x, y, w), reference(x, y, w))


def test_the_aot_example_runs(tmp_path):
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    env = dict(os.environ, PYTHON=sys.executable, CC=shutil.which("cc") or shutil.which("gcc"))
    cap = torch.cuda.get_device_capability()
    target = f"cuda:{cap[0]}{cap[1]}"
    repo = os.path.dirname(ROOT)  # (ROOT is the python directory)
    build = subprocess.run(["bash", os.path.join(repo, "examples", "aot", "build.sh"), str(tmp_path), target],
                           capture_output=True, text=True, env=env)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "aot_example")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("OK") and "0 wrong" in run.stdout
