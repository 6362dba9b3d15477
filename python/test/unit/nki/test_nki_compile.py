"""tessera.nki.compile: the NKI tutorial kernels compiled through tt (compile-only here): each
gives TTIR, TTGIR, PTX (and a cubin where ptxas is installed) with its HBM outputs as further
pointer arguments; control flow on tile values is an NkiCompileError naming it."""
import re

import pytest
import torch

import tessera.nki as nki
import tessera.nki.language as nl

from . import kernels as K

CASES = {
    "tensor_add": (K.tensor_add, lambda: (torch.randn(256, 1024), torch.randn(256, 1024)), (2, 2)),
    "matmul": (K.matmul, lambda: (torch.randn(256, 128, dtype=torch.float16),
                                  torch.randn(256, 256, dtype=torch.float16)), (1,)),
    "softmax": (K.softmax, lambda: (torch.randn(200, 256),), (2,)),
    "rmsnorm": (K.rmsnorm, lambda: (torch.randn(200, 256), torch.randn(256), 1e-5), (1,)),
    "layernorm": (K.layernorm, lambda: (torch.randn(200, 256), torch.randn(256), torch.randn(256), 1e-5), (2,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_tutorial_kernels_compile_through_tt(name):
    kernel, make, grid = CASES[name]
    args = make()
    c = nki.compile(kernel, *args, grid=grid, target="cuda:90")
    for stage in ("ttir", "ttgir", "llir", "ptx"):
        assert c.asm.get(stage), stage
    # the tensors become pointer parameters, the output one more, in that order
    n_inputs = sum(isinstance(a, torch.Tensor) for a in args)
    params = re.search(r"\.entry \w+\((.*?)\)", c.asm["ptx"], re.S).group(1)
    assert params.count(".param .u64") == n_inputs + 1
    assert [k for _, k in c.params] == ["input"] * n_inputs + ["output"]
    assert c.outputs[0][1] == (tuple(args[0].shape) if name != "matmul" else (128, 256))
    if name == "matmul":
        assert "warp_group_dot" in c.asm["ttgir"] or "mma" in c.asm["ttgir"]  # nl.matmul on tensor cores
    if name in ("softmax", "rmsnorm", "layernorm"):
        assert re.search(r"tt.reduce", c.asm["ttir"])


@nki.jit
def branchy(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.arange(128)[:, None]
    j = nl.arange(64)[None, :]
    t = nl.load(x[i, j])
    if nl.max(t, axis=[0, 1]) > 0:  # a Python if on a tile's value
        t = t * 2
    nl.store(out[i, j], t)
    return out


def test_control_flow_on_tile_values_does_not_compile_and_says_why():
    with pytest.raises(nki.NkiCompileError, match="control flow on tile values"):
        nki.compile(branchy, torch.randn(128, 64), target="cuda:90")
    # the interpreter runs it
    x = torch.randn(128, 64)
    torch.testing.assert_close(branchy(x), x * 2 if x.max() > 0 else x)


def test_launching_checks_the_arguments():
    c = nki.compile(K.softmax, torch.randn(200, 256), grid=(2,), target="cuda:90")
    with pytest.raises((TypeError, RuntimeError)):
        c(torch.randn(200, 256))  # a CPU tensor (or no GPU here)
