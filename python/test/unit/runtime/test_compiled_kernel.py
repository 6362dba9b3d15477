"""CompiledKernel as Triton code uses it: metadata read as attributes; a kernel that is not loaded
on a device says so when asked for registers or a launch (the loaded forms are GPU tests)."""

import pytest

import tessera
import tessera.language as tl
from tessera.compiler.compiler import KernelMetadata


@tessera.jit
def copy(x, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))


def test_metadata_reads_as_attributes():
    k = tessera.compile(copy, signature={"x": "*fp32", "y": "*fp32"}, constexprs={"BLOCK": 64},
                        target="cuda:90", num_warps=2)
    assert isinstance(k.metadata, KernelMetadata)
    assert k.metadata.num_warps == 2 == k.metadata["num_warps"]
    assert k.metadata.name == "copy"
    with pytest.raises(AttributeError, match="kernel metadata has no 'nonexistent'"):
        k.metadata.nonexistent


def test_a_kernel_not_loaded_says_how_to_get_a_loaded_one():
    k = tessera.compile(copy, signature={"x": "*fp32", "y": "*fp32"}, constexprs={"BLOCK": 64},
                        target="cuda:90", stages="ttir")
    for use in (lambda: k.n_regs, lambda: k.n_spills, lambda: k[(1,)], k._init_handles):
        with pytest.raises(RuntimeError, match=r"copy was compiled but not loaded on a device: get it from "
                                               r"copy.warmup\(\.\.\., grid=\.\.\.\)"):
            use()


def test_metadata_survives_json_and_pickle():
    import json
    import pickle
    m = KernelMetadata(shared=128, name="k")
    assert json.loads(json.dumps(m)) == {"shared": 128, "name": "k"}
    m2 = pickle.loads(pickle.dumps(m))
    assert isinstance(m2, KernelMetadata) and m2.shared == 128
