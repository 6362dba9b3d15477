"""tl.float8e4b15 (Triton's fp8 with 4 exponent bits of bias 15 and 3 mantissa bits, no inf/NaN,
largest 1.875): conversions to and from fp16/fp32 (round to nearest even, saturating), bitcasts,
loads and stores through reinterpreted uint8 tensors, arithmetic via fp16; interpreter against a
plain-Python decoder/encoder, compiled to TTIR and PTX."""

import math

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from .helpers import interpret  # noqa: E402


def decode(b):
    s, e, m = b >> 7, (b >> 3) & 15, b & 7
    v = (m / 8) * 2.0 ** -14 if e == 0 else (1 + m / 8) * 2.0 ** (e - 15)
    return -v if s else v


VALUES = sorted({decode(b) for b in range(128)})  # the non-negative values, 0 .. 1.875


def encode(x):
    """Round to nearest (ties to the even code), saturating at 1.875."""
    a = min(abs(x), 1.875) if not math.isnan(x) else 1.875
    best = min(range(128), key=lambda c: (abs(decode(c) - a), c & 1))
    return best | (0x80 if math.copysign(1, x) < 0 else 0)


@tessera.jit
def to_fp32(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + offs)
    tl.static_assert(v.dtype == tl.float8e4b15)
    tl.store(out + offs, v.to(tl.float32))


@tessera.jit
def from_fp32(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs).to(tl.float8e4b15))


@tessera.jit
def arith(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + offs, mask=offs < N - 1, other=0.5)
    w = v * 2 + tl.full([N], 0.25, tl.float8e4b15)
    tl.static_assert(w.dtype == tl.float16)
    bits = v.to(tl.uint8, bitcast=True)
    tl.store(out + offs, w.to(tl.float32) + bits.to(tl.float32) * 0)


def test_decode_all_codes():
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    out = torch.zeros(256, dtype=torch.float32)
    interpret(to_fp32, (1,), tessera.reinterpret(codes, tl.float8e4b15), out, N=256)
    assert out.tolist() == [decode(b) for b in range(256)]


def test_encode_rounds_to_nearest_even_and_saturates():
    xs = [0.0, -0.0, 1.0, -1.5, 1.875, 1.9, 2.0, 100.0, -1e9, float("inf"), 2.0 ** -17, 2.0 ** -18,
          3 * 2.0 ** -18, 1.0 + 1 / 16, 1.0 + 3 / 16, 0.3, -0.7, 2.0 ** -14, 1e-9]
    # midpoints between neighbours, which must go to the even code
    xs += [(a + b) / 2 for a, b in zip(VALUES[:-1], VALUES[1:])][::7]
    x = torch.tensor(xs, dtype=torch.float32)
    n = 64
    x = torch.cat([x, torch.zeros(n - len(xs))])
    out = torch.zeros(n, dtype=torch.uint8)
    interpret(from_fp32, (1,), x, tessera.reinterpret(out, tl.float8e4b15), N=n)
    assert out.tolist() == [encode(float(v)) for v in x.half().float().tolist()]


def test_arithmetic_goes_through_fp16_and_other_is_converted():
    codes = torch.tensor([encode(v) for v in [0.5, 1.0, -0.25, 0.125, 1.5, 0.0, 1.875, 0.75]], dtype=torch.uint8)
    out = torch.zeros(8, dtype=torch.float32)
    interpret(arith, (1,), tessera.reinterpret(codes, tl.float8e4b15), out, N=8)
    assert out.tolist() == [1.25, 2.25, -0.25, 0.5, 3.25, 0.25, 4.0, 1.25]


def test_names_and_properties():
    assert tl.float8e4b15.is_fp8() and tl.float8e4b15.is_floating()
    assert tl.float8e4b15.primitive_bitwidth == 8 and tl.float8e4b15.fp_mantissa_width == 3
    assert tl.float8e4b15.exponent_bias == 15


def test_compiles_to_integer_code():
    k = tessera.compile(to_fp32, signature={"x": "*fp8e4b15", "out": "*fp32"}, constexprs={"N": 128},
                        target="cuda:90")
    assert "!tt.ptr<i8>" in k.asm["ttir"] and "ld.global" in k.asm["ptx"]
    k = tessera.compile(from_fp32, signature={"x": "*fp32", "out": "*fp8e4b15"}, constexprs={"N": 128},
                        target="cuda:80")
    assert "st.global" in k.asm["ptx"]
    k = tessera.compile(arith, signature={"x": "*fp8e4b15", "out": "*fp32"}, constexprs={"N": 128},
                        target="cuda:90")
    assert "ptx" in k.asm
