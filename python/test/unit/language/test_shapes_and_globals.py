"""Triton semantics of shapes, annotated globals and indexing of scalars, compiled (TTIR) and
interpreted: `x.shape == [N]` holds (also with tl.constexpr elements), a module-level
`BLOCK: tl.constexpr = 8` is a compile-time constant, and `s[None, None, :]` on a scalar adds two
dimensions (':' on a scalar is no dimension)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

from .helpers import interpret, ttir_for  # noqa: E402

BLOCK: tl.constexpr = 8
PLAIN_BLOCK = 8


@tessera.jit
def shape_equalities(out, N: tl.constexpr):
    x = tl.arange(0, N)
    tl.static_assert(x.shape == [N])
    tl.static_assert(x.shape == (N,))
    tl.static_assert(x.shape == [tl.constexpr(8)])
    tl.static_assert(x[:, None].shape == [N, 1])
    tl.static_assert(x.shape != [N, 1])
    tl.static_assert(not (x.shape == [N + 1]))
    tl.static_assert(x.shape[0] == N)
    tl.store(out + x, x)


@tessera.jit
def shape_mismatch(out, N: tl.constexpr):
    x = tl.arange(0, N)
    tl.static_assert(x.shape == [2 * N], "wrong shape")  # ERR
    tl.store(out + x, x)


@tessera.jit
def annotated_global(out):
    x = tl.arange(0, BLOCK)  # a run-time value would be rejected here
    tl.store(out + x, x * BLOCK)


@tessera.jit
def plain_global(out):
    x = tl.arange(0, PLAIN_BLOCK)
    tl.store(out + x, x)


@tessera.jit
def scalar_index(out, n):
    s = n + 1
    y = s[None, None, :]
    tl.static_assert(y.shape == [1, 1])
    tl.static_assert(s[None].shape == [1])
    tl.store(out + tl.arange(0, 1)[:, None], y)


def test_shape_equalities_compile_and_interpret():
    assert "tt.store" in ttir_for(shape_equalities, torch.zeros(8, dtype=torch.int32), N=8)
    out = torch.zeros(8, dtype=torch.int32)
    interpret(shape_equalities, (1,), out, N=8)
    assert out.tolist() == list(range(8))


def test_shape_mismatch_fails_static_assert_in_both_modes():
    with pytest.raises(tessera.CompilationError, match="wrong shape"):
        ttir_for(shape_mismatch, torch.zeros(8, dtype=torch.int32), N=8)
    with pytest.raises(tessera.CompilationError, match="wrong shape"):
        interpret(shape_mismatch, (1,), torch.zeros(8, dtype=torch.int32), N=8)


def test_shape_is_a_tuple():
    t = tl.block_type(tl.int32, [4, 8])
    assert t.shape == (4, 8) and t.shape == [4, 8] and hash(t.shape) == hash((4, 8))
    assert t.shape != [8, 4] and t.shape != "48" and t.shape != [4.0, 8] and not (t.shape == 4)
    assert {t.shape: 1}[(4, 8)] == 1


def test_annotated_global_is_a_constant():
    text = ttir_for(annotated_global, torch.zeros(8, dtype=torch.int32))
    assert "tt.make_range {end = 8 : i32, start = 0 : i32}" in text
    out = torch.zeros(8, dtype=torch.int32)
    interpret(annotated_global, (1,), out)
    assert out.tolist() == [8 * i for i in range(8)]


def test_unannotated_global_is_still_rejected():
    with pytest.raises(tessera.CompilationError, match="global variable 'PLAIN_BLOCK'"):
        ttir_for(plain_global, torch.zeros(8, dtype=torch.int32))
    with pytest.raises(tessera.CompilationError, match="global variable 'PLAIN_BLOCK'"):
        interpret(plain_global, (1,), torch.zeros(8, dtype=torch.int32))


def test_changed_annotated_global_is_noticed():
    """A kernel compiled with one value of an annotated global is not reused with another."""
    global BLOCK
    k = tessera.compile(annotated_global, signature={"out": "*i32"}, target="cuda:90", stages="ttir")
    assert "end = 8 : i32" in k.asm["ttir"]
    saved = BLOCK
    BLOCK = 4
    try:
        with pytest.raises(RuntimeError, match="global variable 'BLOCK'.*changed from 8 to 4"):
            tessera.compile(annotated_global, signature={"out": "*i32"}, target="cuda:90", stages="ttir")
    finally:
        BLOCK = saved


def test_scalar_indexing():
    assert "tt.store" in ttir_for(scalar_index, torch.zeros(1, dtype=torch.int32), 3)
    out = torch.zeros(1, dtype=torch.int32)
    interpret(scalar_index, (1,), out, 3)
    assert out.tolist() == [4]
