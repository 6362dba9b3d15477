"""Launch arguments are checked before anything is compiled or launched (no GPU needed): wrong
count, unknown or repeated names, unsupported types, host memory, mixed devices and bad grids each
raise a TypeError/ValueError naming the parameter."""

import pytest
import torch

import tessera
import tessera.language as tl


@tessera.jit
def add(x, y, out, n, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


class OnDevice(torch.Tensor):
    """A CPU tensor that reports a CUDA device, to test device checks without a GPU."""
    device_index = 0

    def get_device(self):
        return self.device_index


def on(device, n=64):
    t = torch.zeros(n).as_subclass(OnDevice)
    t.device_index = device
    return t


@pytest.fixture(autouse=True)
def compiled_mode(monkeypatch):
    monkeypatch.delenv("TESSERA_INTERPRET", raising=False)


def test_too_many_arguments():
    x = on(0)
    with pytest.raises(TypeError, match=r"add\(\) takes 5 arguments but 6 were given"):
        add[(1,)](x, x, x, 4, 64, 5)


def test_missing_argument():
    x = on(0)
    with pytest.raises(TypeError, match=r"add\(\) missing required argument 'n'"):
        add[(1,)](x, x, x)


def test_unknown_keyword():
    x = on(0)
    with pytest.raises(TypeError, match=r"add\(\) got an unexpected keyword argument 'm'"):
        add[(1,)](x, x, x, m=4)


def test_repeated_argument():
    x = on(0)
    with pytest.raises(TypeError, match=r"add\(\) got multiple values for argument 'n'"):
        add[(1,)](x, x, x, 4, n=4)


def test_unsupported_type_names_the_parameter():
    x = on(0)
    with pytest.raises(TypeError, match=r"argument 'n' of add: unsupported type str"):
        add[(1,)](x, x, x, "4")
    with pytest.raises(TypeError, match=r"argument 'y' of add: unsupported tensor element type torch.complex64"):
        add[(1,)](x, torch.zeros(4, dtype=torch.complex64), x, 4)


def test_integer_too_large():
    x = on(0)
    with pytest.raises(ValueError, match=r"argument 'n' of add: integer -?\d+ does not fit in 64 bits"):
        add[(1,)](x, x, x, -2 ** 63 - 1)


def test_host_tensor_is_rejected():
    x = on(0)
    with pytest.raises(ValueError, match=r"argument 'out' of add is in host memory.*\.cuda\(\)"):
        add[(1,)](x, x, torch.zeros(64), 4)


def test_tensors_on_different_devices():
    with pytest.raises(ValueError, match=r"argument 'y' of add is on cuda:1 but argument 'x' of add is on cuda:0"):
        add[(1,)](on(0), on(1), on(0), 4)


def test_tuple_leaves_are_named():
    @tessera.jit
    def pair(p, n):
        tl.store(p[0], tl.load(p[1]))

    with pytest.raises(ValueError, match=r"argument 'p\[1\]' of pair is in host memory"):
        pair[(1,)]((on(0), torch.zeros(4)), 4)


@pytest.mark.parametrize("grid, exc, msg", [
    ((1, 2, 3, 4), ValueError, "must have 1 to 3 dimensions"),
    ((), ValueError, "must have 1 to 3 dimensions"),
    ((-1,), ValueError, "dimension 0 is -1"),
    ((1, 70000), ValueError, "dimension 1 is 70000, outside 0..65535"),
    (("a",), TypeError, "dimension 0 must be an int"),
    ("a", TypeError, "must be an int, a tuple"),
    (lambda meta: (meta["n"], 1, 1, 1), ValueError, "must have 1 to 3 dimensions"),
])
def test_bad_grid(grid, exc, msg):
    x = on(0)
    with pytest.raises(exc, match=msg):
        add[grid](x, x, x, 4)


def test_grid_callable_sees_arguments_and_defaults():
    seen = {}

    def grid(meta):
        seen.update(meta)
        raise KeyError("stop here")
    x = on(0)
    with pytest.raises(KeyError):
        add[grid](x, x, x, 100)
    assert seen["n"] == 100 and seen["BLOCK"] == 64 and seen["x"] is x


def test_valid_arguments_reach_the_compiler():
    """Everything above is caught first; valid arguments on a machine without a GPU get the
    message that says so (or compile and launch where there is one)."""
    from tessera.compiler.compiler import gpu_backend_available
    if gpu_backend_available("cuda"):
        pytest.skip("a GPU is present")
    x = on(0)
    with pytest.raises(RuntimeError, match="cannot launch add on a GPU"):
        add[(1,)](x, x, x, 4)


def test_interpreter_still_binds_through_the_launcher(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, y, out = torch.rand(100), torch.rand(100), torch.empty(100)
    add[(2,)](x, y, out, 100)
    assert torch.equal(out, x + y)
    add.run(x, y, out, n=100, grid=(2,), BLOCK=64)
    assert torch.equal(out, x + y)


def test_launch_failures_map_to_exceptions():
    from tessera import backends
    raise_launch_error = backends.get("cuda").launch_error  # the launcher's hook
    with pytest.raises(tessera.OutOfResources, match="launching k: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.*maxnreg"):
        raise_launch_error(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested", "k")
    with pytest.raises(tessera.CudaError, match="launching k: CUDA_ERROR_ILLEGAL_ADDRESS: boom") as e:
        raise_launch_error(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "boom", "k")
    assert e.value.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and e.value.code == 700
