"""Random numbers with 64-bit offsets use Philox4x64 (uint64 results), as Triton's tl.randint does;
uint_to_uniform_float accepts 64-bit integers. Checked in the interpreter against a plain-Python
Philox4x64, and compiled to TTIR."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from .helpers import interpret, ttir_for  # noqa: E402

M64 = (1 << 64) - 1


def philox4x64(seed, counter, rounds=10):
    """Reference Philox4x64-`rounds` (Random123 constants) on Python ints: counter (c0, 0, 0, 0),
    key (seed, 0)."""
    c = [counter & M64, 0, 0, 0]
    k0, k1 = seed & M64, 0
    for _ in range(rounds):
        p0 = 0xD2E7470EE14C6C93 * c[0]
        p1 = 0xCA5A826395121157 * c[2]
        c = [((p1 >> 64) ^ c[1] ^ k0) & M64, p1 & M64, ((p0 >> 64) ^ c[3] ^ k1) & M64, p0 & M64]
        k0 = (k0 + 0x9E3779B97F4A7C15) & M64
        k1 = (k1 + 0xBB67AE8584CAA73B) & M64
    return c


@tessera.jit
def randint64(out, seed, base, N: tl.constexpr):
    offs = base + tl.arange(0, N).to(tl.int64)
    r = tl.randint(seed, offs)
    tl.static_assert(r.dtype == tl.uint64)
    tl.store(out + tl.arange(0, N), r.to(tl.int64, bitcast=True))


@tessera.jit
def rand64(out, seed, base, N: tl.constexpr):
    offs = base + tl.arange(0, N).to(tl.int64)
    tl.store(out + tl.arange(0, N), tl.rand(seed, offs))


@tessera.jit
def uniform_of(x, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out + offs, tl.uint_to_uniform_float(tl.load(x + offs)))


def test_randint_int64_offsets_is_philox4x64():
    base = (1 << 40) + 12345
    out = torch.zeros(16, dtype=torch.int64)
    interpret(randint64, (1,), out, 1234567, base, N=16)
    want = [philox4x64(1234567, base + i)[0] for i in range(16)]
    assert [v & M64 for v in out.tolist()] == want


def test_rand_int64_offsets_in_unit_interval():
    out = torch.zeros(64, dtype=torch.float32)
    interpret(rand64, (1,), out, 7, 1 << 33, N=64)
    assert bool((out >= 0).all()) and bool((out < 1).all()) and len(set(out.tolist())) > 60


def test_uint_to_uniform_float_on_64_bit():
    x = torch.tensor([0, 1, -1, 2**62, -(2**63), 2**63 - 1, 12345, -12345], dtype=torch.int64)
    out = torch.zeros(8, dtype=torch.float32)
    interpret(uniform_of, (1,), x, out, N=8)
    assert bool((out >= 0).all()) and bool((out < 1).all())
    assert out[0].item() == 0.0 and out[2].item() == 0.0  # -1 -> 0, as in Triton
    assert abs(out[3].item() - 0.5) < 1e-6


def test_32_bit_offsets_unchanged():
    """int32 offsets still give uint32 from Philox4x32."""
    @tessera.jit
    def r32(out, seed, N: tl.constexpr):
        r = tl.randint(seed, tl.arange(0, N))
        tl.static_assert(r.dtype == tl.uint32)
        tl.store(out + tl.arange(0, N), r.to(tl.int32, bitcast=True))

    out = torch.zeros(4, dtype=torch.int32)
    interpret(r32, (1,), out, 42, N=4)
    assert len(set(out.tolist())) == 4


def test_compiles_to_64_bit_philox():
    text = ttir_for(randint64, torch.zeros(16, dtype=torch.int64), 1234567, 1 << 40, N=16)
    assert "tt.mulhiui" in text and "xi64>" in text
    k = tessera.compile(rand64, signature={"out": "*fp32", "seed": "i64", "base": "i64"}, constexprs={"N": 64},
                        target="cuda:90")
    assert "mul.hi.u64" in k.asm["ptx"]
