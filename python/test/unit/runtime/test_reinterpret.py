"""tessera.reinterpret / TensorWrapper: a tensor's memory passed to a kernel as another element
type (the kernel's pointer gets the wrapper's dtype; bounds and device are the base tensor's)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.runtime import specialize  # noqa: E402

from ..language.helpers import interpret  # noqa: E402


@tessera.jit
def copy_as_is(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs))


def test_reinterpret_int16_bits_as_float16_in_the_interpreter():
    f = torch.tensor([1.0, -2.5, 0.0, 65504.0], dtype=torch.float16)
    bits = f.view(torch.int16).clone()
    out = torch.zeros(4, dtype=torch.float32)
    interpret(copy_as_is, (1,), tessera.reinterpret(bits, tl.float16), out, N=4)
    assert out.tolist() == [1.0, -2.5, 0.0, 65504.0]


def test_reinterpret_output_and_bounds():
    out = torch.zeros(4, dtype=torch.uint8)
    interpret(copy_as_is, (1,), torch.tensor([-1, -2, 3, 4], dtype=torch.int8), tessera.reinterpret(out, tl.int8),
              N=4)
    assert out.tolist() == [255, 254, 3, 4]
    with pytest.raises(Exception, match="out of bounds|outside"):
        interpret(copy_as_is, (1,), tessera.reinterpret(torch.zeros(2, dtype=torch.int16), tl.float16),
                  torch.zeros(4, dtype=torch.float16), N=4)


def test_wrapper_specializes_as_its_dtype():
    bits = torch.zeros(8, dtype=torch.int16)
    types, _, _, _ = specialize.specialize(copy_as_is, {"x": tessera.reinterpret(bits, tl.float16),
                                                        "out": torch.zeros(8), "N": 8})
    assert types["x"] == tl.pointer_type(tl.float16) and types["out"] == tl.pointer_type(tl.float32)


def test_reinterpret_back_and_errors():
    bits = torch.zeros(8, dtype=torch.int16)
    w = tessera.reinterpret(bits, tl.float16)
    assert isinstance(w, tessera.TensorWrapper) and w.dtype == tl.float16 and w.element_size() == 2
    assert w.data_ptr() == bits.data_ptr() and w.shape == bits.shape and w.stride() == bits.stride()
    assert tessera.reinterpret(w, tl.int16) is bits
    assert tessera.reinterpret(w, tl.uint16).dtype == tl.uint16
    with pytest.raises(TypeError, match="dtype must be"):
        tessera.TensorWrapper(bits, torch.float16)
    with pytest.raises(TypeError, match="cannot reinterpret"):
        tessera.reinterpret([1, 2], tl.int8)
