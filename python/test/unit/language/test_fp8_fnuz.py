"""The FNUZ fp8 formats (tl.float8e4b8 = E4M3FNUZ, largest 240; tl.float8e5b16 = E5M2FNUZ,
largest 57344: no infinities, no negative zero, 0x80 their one NaN), which AMD CDNA3 (gfx940-942)
converts and multiplies: in the interpreter against a plain-Python decoder/encoder, as constants,
as dot operands, and compiled for hip:gfx942 (v_cvt_*fp8/bf8, v_mfma_f32_16x16x32_*), with clear
errors where a target lacks them (gfx90a, NVIDIA)."""

import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.compiler.errors import CompilationError

from .helpers import interpret

FORMATS = {"e4b8": (tl.float8e4b8, 4, 3, 8), "e5b16": (tl.float8e5b16, 5, 2, 16)}


def decode(code, ebits, mbits, bias):
    if code == 0x80:
        return math.nan
    s, e, m = code >> 7, (code >> mbits) & ((1 << ebits) - 1), code & ((1 << mbits) - 1)
    v = (m / (1 << mbits)) * 2.0 ** (1 - bias) if e == 0 else (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
    return -v if s else v


def encode(x, ebits, mbits, bias):
    """Round to nearest (ties to the even code), saturating; NaN -> 0x80; no negative zero."""
    if math.isnan(x):
        return 0x80
    top = decode(0x7F, ebits, mbits, bias)
    a = min(abs(x), top)
    best = min(range(128), key=lambda c: (abs(decode(c, ebits, mbits, bias) - a), c & 1))
    return best | (0x80 if x < 0 and best != 0 else 0)


@tessera.jit
def bits_to_f32(x, out, FMT: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + offs).to(FMT, bitcast=True)
    tl.store(out + offs, v.to(tl.float32))


@tessera.jit
def f32_to_bits(x, out, FMT: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + offs).to(FMT)
    tl.store(out + offs, v.to(tl.uint8, bitcast=True))


@tessera.jit
def fill(out, VALUE: tl.constexpr, FMT: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.full((N,), VALUE, FMT).to(tl.uint8, bitcast=True))


@tessera.jit
def fp8_dot(a, b, c, AF: tl.constexpr, BF: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(a + rm[:, None] * K + rk[None, :]).to(AF, bitcast=True)
    y = tl.load(b + rk[:, None] * N + rn[None, :]).to(BF, bitcast=True)
    tl.store(c + rm[:, None] * N + rn[None, :], tl.dot(x, y))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_code_decodes(fmt):
    ty, *f = FORMATS[fmt]
    codes = np.arange(256, dtype=np.uint8)
    out = np.zeros(256, np.float32)
    interpret(bits_to_f32, (1,), codes, out, FMT=ty, N=256)
    ref = np.array([decode(c, *f) for c in range(256)], np.float32)
    np.testing.assert_array_equal(out, ref)  # NaN only at 0x80
    assert np.isnan(out).sum() == 1 and out[0x7F] == (240.0 if fmt == "e4b8" else 57344.0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_conversions_round_to_nearest_even_and_saturate(fmt):
    ty, *f = FORMATS[fmt]
    rng = np.random.default_rng(1)
    special = [0.0, -0.0, 1.0, -1.0, 240.0, 241.0, 248.0, 1e6, -1e6, np.inf, -np.inf, np.nan, 57344.0, 61440.0,
               2.0 ** -10, 2.0 ** -11, 2.0 ** -17, 2.0 ** -18, 3 * 2.0 ** -18, -1e-9, 0.1, -0.3]
    vals = np.concatenate([np.array(special, np.float32),
                           (rng.standard_normal(490) * np.exp2(rng.integers(-18, 17, 490))).astype(np.float32)])
    out = np.zeros(vals.size, np.uint8)
    interpret(f32_to_bits, (1,), vals, out, FMT=ty, N=512)
    ref = np.array([encode(float(v), *f) for v in vals], np.uint8)
    np.testing.assert_array_equal(out, ref)
    assert out[1] == 0x00 and out[11] == 0x80  # -0 -> +0 (no negative zero); NaN -> 0x80
    assert out[9] == 0x7F and out[10] == 0xFF  # infinities saturate


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, -3.0, 1e9, float("inf"), float("nan"), -1e-12])
def test_constants_interpreted_and_compiled_alike(fmt, value):
    ty, *f = FORMATS[fmt]
    out = np.zeros(16, np.uint8)
    interpret(fill, (1,), out, VALUE=value, FMT=ty, N=16)
    assert set(out.tolist()) == {encode(value, *f)}
    k = tessera.compile(fill, signature={"out": "*u8"}, constexprs={"VALUE": value, "FMT": ty, "N": 16},
                        target="hip:gfx942", stages="ttir")
    ir_type = "f8E4M3FNUZ" if fmt == "e4b8" else "f8E5M2FNUZ"
    m = re.search(rf"arith.constant dense<([^>]+)> : tensor<16x{ir_type}>", k.asm["ttir"])
    code = encode(value, *f)
    if code == 0x80:
        assert m.group(1) == "0x80"  # MLIR prints the NaN by its bits
    else:
        assert float(m.group(1)) == decode(code, *f) and not m.group(1).startswith("-0")


@pytest.mark.parametrize("af,bf", [("e4b8", "e4b8"), ("e4b8", "e5b16"), ("e5b16", "e5b16")])
def test_dot_in_the_interpreter(af, bf):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 256, (32, 64), dtype=np.uint8)
    b = rng.integers(0, 256, (64, 32), dtype=np.uint8)
    a[a == 0x80] = 0
    b[b == 0x80] = 0
    da = np.vectorize(lambda c: decode(int(c), *FORMATS[af][1:]))(a)
    db = np.vectorize(lambda c: decode(int(c), *FORMATS[bf][1:]))(b)
    c = np.zeros((32, 32), np.float32)
    interpret(fp8_dot, (1,), a, b, c, AF=FORMATS[af][0], BF=FORMATS[bf][0], M=32, N=32, K=64)
    # every product is exact in fp32; the sums round: bound the error by the sum of magnitudes
    assert np.all(np.abs(c - da @ db) <= 1e-5 * (np.abs(da) @ np.abs(db)) + 1e-6)


LLVM_BIN = "/usr/lib/llvm-22/bin"
OBJDUMP = shutil.which("llvm-objdump-22") or os.path.join(LLVM_BIN, "llvm-objdump")


def _disassemble(hsaco, tmp_path):
    if not os.path.exists(OBJDUMP):
        pytest.skip("llvm-objdump (llvm-22) not installed")
    path = tmp_path / "k.hsaco"
    path.write_bytes(hsaco)
    return subprocess.run([OBJDUMP, "-d", "--mcpu=gfx942", str(path)], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("fmt,cvt", [("e4b8", "fp8"), ("e5b16", "bf8")])
def test_gfx942_converts_with_its_instructions(fmt, cvt, tmp_path):
    ty = FORMATS[fmt][0]
    to8 = tessera.compile(f32_to_bits, signature={"x": "*fp32:16", "out": "*u8:16"},
                          constexprs={"FMT": ty, "N": 256}, target="hip:gfx942")
    from8 = tessera.compile(bits_to_f32, signature={"x": "*u8:16", "out": "*fp32:16"},
                            constexprs={"FMT": ty, "N": 256}, target="hip:gfx942")
    assert f"v_cvt_pk_{cvt}_f32" in _disassemble(to8.asm["hsaco"], tmp_path)
    assert f"v_cvt_f32_{cvt}" in _disassemble(from8.asm["hsaco"], tmp_path)


@pytest.mark.parametrize("af,bf,instr", [("e4b8", "e4b8", "fp8_fp8"), ("e4b8", "e5b16", "fp8_bf8"),
                                         ("e5b16", "e4b8", "bf8_fp8"), ("e5b16", "e5b16", "bf8_bf8")])
def test_gfx942_dots_run_on_fp8_mfma(af, bf, instr, tmp_path):
    k = tessera.compile(fp8_dot, signature={"a": "*u8:16", "b": "*u8:16", "c": "*fp32:16"},
                        constexprs={"AF": FORMATS[af][0], "BF": FORMATS[bf][0], "M": 32, "N": 32, "K": 64},
                        target="hip:gfx942", num_warps=4)
    assert "instrShape = [16, 16, 32]" in k.asm["ttgir"]
    text = _disassemble(k.asm["hsaco"], tmp_path)
    # 32x32 over 2 x 2 warps: one 16x16 tile per warp, 2 steps of 32 along K
    assert text.count(f"v_mfma_f32_16x16x32_{instr}") == 2, text.count("v_mfma")


def test_targets_without_the_formats_say_so():
    sig = {"x": "*u8:16", "out": "*fp32:16"}
    with pytest.raises(CompilationError, match=r"gfx940-942 for float8e4b8/float8e5b16.*not gfx90a"):
        tessera.compile(bits_to_f32, signature=sig, constexprs={"FMT": tl.float8e4b8, "N": 256},
                        target="hip:gfx90a")
    with pytest.raises(CompilationError, match="FNUZ formats float8e4b8 and float8e5b16 are AMD CDNA3's"):
        tessera.compile(bits_to_f32, signature=sig, constexprs={"FMT": tl.float8e5b16, "N": 256},
                        target="cuda:90")
    with pytest.raises(CompilationError, match="gfx942 converts the FNUZ fp8 formats"):
        tessera.compile(bits_to_f32, signature=sig, constexprs={"FMT": tl.float8e4nv, "N": 256},
                        target="hip:gfx942")


@tessera.jit
def to_f16_rtz(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.load(x + offs).to(tl.float16, fp_downcast_rounding="rtz"))


def test_round_toward_zero_compiles_for_amd_without_inline_assembly():
    k = tessera.compile(to_f16_rtz, signature={"x": "*fp32:16", "out": "*fp16:16"}, constexprs={"N": 256},
                        target="hip:gfx942")
    assert "asm" not in k.asm["llir"] and k.asm["hsaco"][:4] == b"\x7fELF"


@pytest.mark.parametrize("ty", [tl.float8e4nv, tl.float8e5])
def test_ocp_zero_constants_are_positive_zero(ty):
    # the constant encoder once picked the code 0x80 (-0) for 0.0
    for value, text in ((0.0, "0.000000e+00"), (-0.0, "-0.000000e+00")):
        k = tessera.compile(fill, signature={"out": "*u8"}, constexprs={"VALUE": value, "FMT": ty, "N": 16},
                            target="cuda:90", stages="ttir")
        assert re.search(rf"arith.constant dense<{re.escape(text)}> : tensor<16xf8", k.asm["ttir"]), value
