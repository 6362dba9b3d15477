"""Specialization properties, per backend: the launcher's key, the TTIR attributes and the disk
cache key change together (no GPU needed: keys come from the C++ launcher's specialize entry)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import backends
from tessera.backends import specialization
from tessera.compiler import compiler
from tessera.runtime import cache, specialize


@tessera.jit
def scale(x, y, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m) * alpha, mask=m)


@tessera.jit(do_not_specialize=["n"])
def scale_nospec(x, y, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * alpha, mask=offs < n)


@tessera.jit(do_not_specialize_on_alignment=[0, "n"])
def scale_noalign(x, y, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * alpha, mask=offs < n)


def _buf(dtype=np.float32, offset_bytes=0, n=256):
    """A host array whose address is 64-byte aligned plus offset_bytes."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + 128 + offset_bytes, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset_bytes
    return raw[start:start + n * itemsize].view(dtype)


def spec_of(kernel, backend="cuda", **args):
    args.setdefault("BLOCK", 64)
    types, consts, attrs, key = specialize.specialize(kernel, args, backend=backend)
    ttir, _ = compiler.make_ttir(kernel, types, consts, attrs)
    disk, _ = cache.kernel_key(kernel, types, consts, attrs, f"{backend}:90" if backend == "cuda" else
                               "hip:gfx942", {"num_warps": 4})
    return {"types": types, "consts": consts, "attrs": attrs, "key": key, "ttir": ttir, "disk": disk}


def _func_line(ttir):
    return next(line for line in ttir.splitlines() if "tt.func" in line)


BACKENDS = ["cuda", "hip"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_pointer_divisibility(backend):
    x, y = _buf(), _buf()
    a = spec_of(scale, backend, x=x, y=y, n=100, alpha=2.0)
    b = spec_of(scale, backend, x=_buf(offset_bytes=4), y=y, n=100, alpha=2.0)
    assert a["attrs"]["x"]["tt.divisibility"] == "16 : i32"
    assert "tt.divisibility" not in b["attrs"]["x"]
    assert a["key"] != b["key"] and a["disk"] != b["disk"]
    assert "%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32" in _func_line(a["ttir"])
    assert "%arg0: !tt.ptr<f32> {tt.divisibility" not in _func_line(b["ttir"])
    # 8-byte alignment is still "not divisible by 16": the same compilation.
    c = spec_of(scale, backend, x=_buf(offset_bytes=8), y=y, n=100, alpha=2.0)
    assert c["key"] == b["key"] and c["disk"] == b["disk"] and c["ttir"] == b["ttir"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_divisibility_and_width(backend):
    x, y = _buf(), _buf()
    s32 = spec_of(scale, backend, x=x, y=y, n=4096, alpha=1.5)
    s17 = spec_of(scale, backend, x=x, y=y, n=17, alpha=1.5)
    s33 = spec_of(scale, backend, x=x, y=y, n=33, alpha=1.5)
    s64 = spec_of(scale, backend, x=x, y=y, n=2 ** 40, alpha=1.5)
    assert s32["attrs"]["n"] == {"tt.divisibility": "16 : i32", "tt.non_negative": "unit"}
    assert str(s32["types"]["n"]) == "int32"
    assert s17["attrs"]["n"] == {"tt.non_negative": "unit"}
    assert s17["key"] == s33["key"] and s17["disk"] == s33["disk"]
    assert s32["key"] != s17["key"] and s32["disk"] != s17["disk"]
    assert str(s64["types"]["n"]) == "int64" and s64["key"] != s32["key"]
    assert "%arg2: i64 {tt.divisibility = 16 : i32, tt.non_negative}" in _func_line(s64["ttir"])
    u = spec_of(scale, backend, x=x, y=y, n=2 ** 63 + 16, alpha=1.5)
    # read as a signed 64-bit value it is negative: no tt.non_negative
    assert str(u["types"]["n"]) == "uint64" and u["attrs"]["n"] == {"tt.divisibility": "16 : i32"}
    with pytest.raises(ValueError, match="argument 'n' of scale: integer .* does not fit in 64 bits"):
        spec_of(scale, backend, x=x, y=y, n=2 ** 64, alpha=1.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_sign(backend):
    x, y = _buf(), _buf()
    pos = spec_of(scale, backend, x=x, y=y, n=48, alpha=1.0)
    zero = spec_of(scale, backend, x=x, y=y, n=0, alpha=1.0)
    neg = spec_of(scale, backend, x=x, y=y, n=-48, alpha=1.0)
    big_neg = spec_of(scale, backend, x=x, y=y, n=-2 ** 40, alpha=1.0)
    assert pos["attrs"]["n"] == zero["attrs"]["n"] == {"tt.divisibility": "16 : i32", "tt.non_negative": "unit"}
    assert neg["attrs"]["n"] == {"tt.divisibility": "16 : i32"}
    assert big_neg["attrs"]["n"] == {"tt.divisibility": "16 : i32"} and str(big_neg["types"]["n"]) == "int64"
    assert pos["key"] == zero["key"] and pos["disk"] == zero["disk"]
    assert pos["key"] != neg["key"] and pos["disk"] != neg["disk"] and pos["ttir"] != neg["ttir"]
    assert "%arg2: i32 {tt.divisibility = 16 : i32, tt.non_negative}" in _func_line(pos["ttir"])
    assert "%arg2: i32 {tt.divisibility = 16 : i32}" in _func_line(neg["ttir"])
    # do_not_specialize: one compilation for every sign
    a = spec_of(scale_nospec, backend, x=x, y=y, n=48, alpha=1.0)
    b = spec_of(scale_nospec, backend, x=x, y=y, n=-48, alpha=1.0)
    assert a["key"] == b["key"] and a["attrs"]["n"] == {}


@pytest.mark.parametrize("backend", BACKENDS)
def test_equal_to_one_is_folded(backend):
    x, y = _buf(), _buf()
    one = spec_of(scale, backend, x=x, y=y, n=1, alpha=2.0)
    two = spec_of(scale, backend, x=x, y=y, n=2, alpha=2.0)
    assert one["consts"]["n"] == 1 and "n" not in one["types"]
    assert "%arg3" not in _func_line(one["ttir"]) and "%arg2: f32" in _func_line(one["ttir"])
    assert "%arg2: i32" in _func_line(two["ttir"]) and "%arg3: f32" in _func_line(two["ttir"])
    assert one["key"] != two["key"] and one["disk"] != two["disk"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_and_bools_are_never_value_specialized(backend):
    x, y = _buf(), _buf()
    a = spec_of(scale, backend, x=x, y=y, n=7, alpha=1.0)
    b = spec_of(scale, backend, x=x, y=y, n=7, alpha=16.0)
    assert a["key"] == b["key"] and a["disk"] == b["disk"] and str(a["types"]["alpha"]) == "float32"
    assert a["attrs"]["alpha"] == {}
    t = spec_of(scale, backend, x=x, y=y, n=7, alpha=True)
    f = spec_of(scale, backend, x=x, y=y, n=7, alpha=False)
    assert t["key"] == f["key"] and str(t["types"]["alpha"]) == "int1" and "alpha" not in t["consts"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_do_not_specialize(backend):
    x, y = _buf(), _buf()
    one = spec_of(scale_nospec, backend, x=x, y=y, n=1, alpha=2.0)
    big = spec_of(scale_nospec, backend, x=x, y=y, n=4096, alpha=2.0)
    assert "n" in one["types"] and one["attrs"]["n"] == {} and big["attrs"]["n"] == {}
    assert one["key"] == big["key"] and one["disk"] == big["disk"]
    # pointers of a do_not_specialize kernel still specialize when not listed
    assert one["attrs"]["x"]["tt.divisibility"] == "16 : i32"


@pytest.mark.parametrize("backend", BACKENDS)
def test_do_not_specialize_on_alignment(backend):
    x, y = _buf(), _buf()
    a = spec_of(scale_noalign, backend, x=x, y=y, n=4096, alpha=2.0)
    b = spec_of(scale_noalign, backend, x=_buf(offset_bytes=4), y=y, n=4095, alpha=2.0)
    assert a["attrs"]["x"].get("tt.divisibility") is None and a["attrs"]["n"] == {"tt.non_negative": "unit"}
    assert a["attrs"]["y"] == b["attrs"]["y"]
    assert a["key"] == b["key"]
    # equal to 1 still folds: only alignment is off
    assert spec_of(scale_noalign, backend, x=x, y=y, n=1, alpha=2.0)["consts"]["n"] == 1


def test_do_not_specialize_rejects_unknown_names():
    with pytest.raises(ValueError, match="no parameter 'm'"):
        tessera.jit(do_not_specialize=["m"])(scale.fn)
    with pytest.raises(ValueError, match="index 9 out of range"):
        tessera.jit(do_not_specialize=[9])(scale.fn)


def test_pointer_range_is_amd_only():
    x, y = _buf(), _buf()
    amd = spec_of(scale, "hip", x=x, y=y, n=16, alpha=2.0)
    nv = spec_of(scale, "cuda", x=x, y=y, n=16, alpha=2.0)
    assert amd["attrs"]["x"] == {"tt.divisibility": "16 : i32", "tt.pointer_range": "32 : i32"}
    assert "tt.pointer_range" not in nv["attrs"]["x"]
    assert "tt.pointer_range = 32 : i32" in _func_line(amd["ttir"])
    # A tensor spanning 2 GiB does not get it (the memory is reserved, never touched).
    huge = np.empty(2 ** 31, np.uint8)
    big = spec_of(scale, "hip", x=huge, y=y, n=16, alpha=2.0)
    assert "tt.pointer_range" not in big["attrs"]["x"] and big["attrs"]["y"] == amd["attrs"]["y"]
    assert big["key"] != amd["key"] and big["disk"] != amd["disk"]
    # 2 GiB - 1 byte still fits in a signed 32-bit offset.
    fits = spec_of(scale, "hip", x=huge[:2 ** 31 - 1], y=y, n=16, alpha=2.0)
    assert "tt.pointer_range" in fits["attrs"]["x"]


def test_finer_divisibility_levels_and_a_python_property():
    class Even(specialization.Property):
        """A property computed in Python: an integer's parity (pointers: always 0)."""
        name = "even"

        def compute(self, value):
            return 1 if isinstance(value, int) and value % 2 == 0 else 0

        def attrs(self, leaf, bits, is_ptr):
            return {"test.even": "unit"} if bits else {}

    spec = specialization.Specialization("test", [specialization.Divisibility((2, 4, 8, 16)),
                                                  specialization.EqualsOne(), Even()])
    x, y = _buf(), _buf()

    def run(n):
        key, _ = scale._specialize((), dict(x=x, y=y, n=n, alpha=1.0, BLOCK=64), spec.config())
        return key, specialize.decode(scale, key, spec).attrs["n"]
    k12, a12 = run(12)
    k20, a20 = run(20)
    k24, a24 = run(24)
    k7, a7 = run(7)
    assert a12 == {"tt.divisibility": "4 : i32", "test.even": "unit"}
    assert k12 == k20 and k12 != k24 and a24["tt.divisibility"] == "8 : i32"
    assert a7 == {} and k7 != k12


def test_dtypes_of_tensor_arguments():
    x = _buf(np.float16)
    y = _buf(np.int8)
    s = spec_of(scale, "cuda", x=x, y=y, n=64, alpha=1.0)
    assert str(s["types"]["x"]) == "pointer<float16>" and str(s["types"]["y"]) == "pointer<int8>"
    with pytest.raises(TypeError, match="argument 'x' of scale.*complex64|x.*unsupported"):
        spec_of(scale, "cuda", x=np.zeros(4, np.complex64), y=y, n=64, alpha=1.0)


def test_numpy_scalars_are_ints_and_floats():
    x, y = _buf(), _buf()
    a = spec_of(scale, "cuda", x=x, y=y, n=np.int64(32), alpha=np.float32(2.0))
    b = spec_of(scale, "cuda", x=x, y=y, n=32, alpha=2.0)
    assert a["key"] == b["key"]


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'tpu' \\(known: cuda, hip"):
        backends.get("tpu")
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        specialize.specialize(scale, {}, backend="tpu")


@tessera.jit
def pair_kernel(p, out, SCALE: tl.constexpr):
    tl.store(out, tl.load(p[0]) * p[1] * SCALE)


def test_ones_inside_tuples_are_not_folded():
    x, y = _buf(), _buf()
    types, consts, attrs, key = specialize.specialize(pair_kernel, {"p": (x, 1), "out": y, "SCALE": 2})
    assert str(types["p"][1]) == "int32" and "p" not in consts
    ttir, _ = compiler.make_ttir(pair_kernel, types, consts, attrs)
    assert "%arg1: i32" in _func_line(ttir)


def test_constexpr_values_key_by_type_and_exact_value():
    x, y = _buf(), _buf()

    def key(scale):
        return specialize.specialize(pair_kernel, {"p": (x, 3), "out": y, "SCALE": scale})[3]
    assert key(1) != key(True) != key(1.0)
    assert key(0.0) != key(-0.0)
    assert key((1, 2)) != key((1, 2.0)) and key((True,)) != key((1,))
    assert key([1, 2]) != key("[1, 2]")
    assert key(2.5) == key(2.5) and key((1, 2)) == key((1, 2))
    # The compiled constant is the value itself, not its key form.
    _, consts, _, _ = specialize.specialize(pair_kernel, {"p": (x, 3), "out": y, "SCALE": -0.0})
    assert consts["SCALE"] == 0.0 and str(consts["SCALE"]) == "-0.0"
