"""Cache modifiers and eviction policies of tl.load / tl.store, and atomic semantics and scopes,
reach the PTX (compile-only; ptxas assembles the result where installed)."""

import re

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def hinted(x, y, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    m = offs < N - 1
    a = tl.load(x + offs, cache_modifier=".cg")
    b = tl.load(y + offs, mask=m, eviction_policy="evict_first")
    c = tl.load(y + offs, cache_modifier=".ca", eviction_policy="evict_last")
    d = tl.load(x + offs, cache_modifier=".cv")
    tl.store(out + offs, a + b, cache_modifier=".cs")
    tl.store(out + N + offs, c, mask=m, eviction_policy="evict_last")
    tl.store(out + 2 * N + offs, d, cache_modifier=".wt", eviction_policy="evict_first")
    tl.atomic_add(out + offs, a, sem="acquire", scope="cta")
    tl.atomic_xchg(out + offs, b, mask=m, sem="release", scope="sys")
    tl.atomic_cas(out.to(tl.pointer_type(tl.int32), bitcast=True) + offs, 0, 1, sem="acq_rel", scope="gpu")


def _instrs(ptx):
    return set(re.findall(r"\b(?:ld\.global|st\.global|atom|createpolicy)[a-zA-Z0-9_.:]*", ptx))


def test_hints_reach_the_ptx_sm90():
    k = tessera.compile(hinted, signature={"x": "*fp32", "y": "*fp32", "out": "*fp32"}, constexprs={"N": 128},
                        target="cuda:90")
    got = _instrs(k.asm["ptx"])
    for want in ("ld.global.cg.b32", "ld.global.L1::evict_first.b32", "ld.global.ca.L2::cache_hint.b32",
                 "createpolicy.fractional.L2::evict_last.b64", "ld.global.cv.b32", "st.global.cs.b32",
                 "st.global.L1::evict_last.b32", "st.global.wt.L2::cache_hint.b32",
                 "createpolicy.fractional.L2::evict_first.b64", "atom.acquire.cta.global.add.f32",
                 "atom.release.sys.global.exch.b32", "atom.acq_rel.gpu.global.cas.b32"):
        assert want in got, (want, sorted(got))


def test_before_sm80_the_eviction_hint_next_to_a_cache_operator_is_dropped():
    k = tessera.compile(hinted, signature={"x": "*fp32", "y": "*fp32", "out": "*fp32"}, constexprs={"N": 128},
                        target="cuda:75")
    got = _instrs(k.asm["ptx"])
    assert "ld.global.ca.b32" in got and not any(i.startswith("createpolicy") for i in got)


@tessera.jit
def wrong_modifier(x, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x + offs, tl.load(x + offs), cache_modifier=".ca")  # ERR


def test_a_load_modifier_on_a_store_is_an_error():
    with pytest.raises(tessera.CompilationError, match="cache modifier"):
        tessera.compile(wrong_modifier, signature={"x": "*fp32"}, constexprs={"N": 128}, target="cuda:90",
                        stages="ttir")
