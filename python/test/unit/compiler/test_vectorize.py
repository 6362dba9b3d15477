"""Vector global accesses (compile-only: the PTX is enough): AxisInfo proves
aligned, consecutive addresses from the launch's specialization (16-byte divisible pointers and
sizes), and loads/stores become ld.global.v4 / st.global.v4; without the proof they stay scalar."""

import re

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def add(x, y, o, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@tessera.jit(noinline=True)
def copy_block(src, dst, start, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))


@tessera.jit
def calls_copy(src, dst, BLOCK: tl.constexpr):
    copy_block(src, dst, tl.program_id(0) * BLOCK, BLOCK)


def _accesses(kernel):
    return set(re.findall(r"\b(ld\.global[.\w]*|st\.global[.\w]*)", kernel.asm["ptx"]))


def _compile(fn, sig, **consts):
    return tessera.compile(fn, signature=sig, constexprs=consts, target="cuda:90")


def test_aligned_fp32_add_uses_128_bit_accesses():
    k = _compile(add, {"x": "*fp32:16", "y": "*fp32:16", "o": "*fp32:16", "n": "i32:16"}, BLOCK=1024)
    assert _accesses(k) == {"ld.global.v4.b32", "st.global.v4.b32"}


FP16_ADD = {"x": "*fp16:16", "y": "*fp16:16", "o": "*fp16:16", "n": "i32:16"}


def test_fp16_gets_eight_element_vectors():
    # ttg-coalesce widens the default 4 elements per thread to 8 halves: 128-bit accesses.
    k = _compile(add, FP16_ADD, BLOCK=1024)
    assert "sizePerThread = [8]" in k.asm["ttgir"]
    assert "ttg.convert_layout" not in k.asm["ttgir"]
    assert _accesses(k) == {"ld.global.v4.b32", "st.global.v4.b32"}


def test_disable_coalesce_keeps_default_layouts_and_changes_the_cache_key(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    assert _accesses(_compile(add, FP16_ADD, BLOCK=1024)) == {"ld.global.v4.b32", "st.global.v4.b32"}
    monkeypatch.setenv("TESSERA_DISABLE_COALESCE", "1")
    k = _compile(add, FP16_ADD, BLOCK=1024)
    assert k.metadata["cache"] in ("miss", "off")
    assert "sizePerThread = [4]" in k.asm["ttgir"]
    assert _accesses(k) == {"ld.global.v2.b32", "st.global.v2.b32"}


@pytest.mark.parametrize("sig", [
    {"x": "*fp32", "y": "*fp32:16", "o": "*fp32:16", "n": "i32:16"},   # x of unknown alignment
    {"x": "*fp32:16", "y": "*fp32:16", "o": "*fp32:16", "n": "i32"},   # mask bound of unknown alignment
])
def test_without_the_proof_accesses_stay_scalar(sig):
    acc = _accesses(_compile(add, sig, BLOCK=1024))
    if sig["n"] == "i32":
        assert acc == {"ld.global.b32", "st.global.b32"}
    else:  # only the loads through x stay scalar
        assert "ld.global.b32" in acc and "st.global.v4.b32" in acc


def test_noinline_callee_called_with_aligned_pointers_vectorizes():
    k = _compile(calls_copy, {"src": "*fp32:16", "dst": "*fp32:16"}, BLOCK=512)
    assert "tt.call" in k.asm["ttir"]  # the callee stays a function
    assert {"ld.global.v4.b32", "st.global.v4.b32"} <= _accesses(k)
    k = _compile(calls_copy, {"src": "*fp32", "dst": "*fp32:16"}, BLOCK=512)
    assert "ld.global.v4.b32" not in _accesses(k)


def test_disable_switch_turns_vectors_off_and_changes_the_cache_key(monkeypatch, tmp_path):
    # TESSERA_DISABLE_VECTORIZE=1 (to bisect a miscompile): scalar accesses, and a cached vector
    # kernel is not served for it.
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    sig = {"x": "*fp32:16", "y": "*fp32:16", "o": "*fp32:16", "n": "i32:16"}
    assert _accesses(_compile(add, sig, BLOCK=1024)) == {"ld.global.v4.b32", "st.global.v4.b32"}
    monkeypatch.setenv("TESSERA_DISABLE_VECTORIZE", "1")
    k = _compile(add, sig, BLOCK=1024)
    assert k.metadata["cache"] in ("miss", "off")
    assert _accesses(k) == {"ld.global.b32", "st.global.b32"}
    monkeypatch.setenv("TESSERA_DISABLE_VECTORIZE", "0")
    assert _accesses(_compile(add, sig, BLOCK=1024)) == {"ld.global.v4.b32", "st.global.v4.b32"}


@tessera.jit
def transpose_tile(x, y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    t = tl.load(x + rm[:, None] * BN + rn[None, :])
    tl.store(y + rn[None, :] * BM + rm[:, None], t)


def test_transpose_exchange_is_swizzled_with_32_bit_shared_addresses():
    # The rows are loaded 4-wide and the columns stored 4-wide: the values cross threads through
    # shared memory, in a buffer of exactly the tile (no padding), 2-wide writes and scalar reads
    # (ExchangeLayout), addressed with 32-bit shared pointers.
    k = _compile(transpose_tile, {"x": "*fp32:16", "y": "*fp32:16"}, BM=64, BN=64)
    ptx = k.asm["ptx"]
    assert set(re.findall(r"\bst\.global[.\w]*", ptx)) == {"st.global.v4.b32"}
    assert set(re.findall(r"\b(st\.shared[.\w]*)", ptx)) == {"st.shared.v2.b32"}
    assert set(re.findall(r"\b(ld\.shared[.\w]*)", ptx)) == {"ld.shared.b32"}
    assert not re.search(r"\b(?:ld|st)\.shared[.\w]*\s+[^;]*\[%rd", ptx), "64-bit shared address"
    assert k.metadata["shared"] == 64 * 64 * 4


def test_loads_of_an_exchanged_tile_all_come_before_its_shared_stores():
    # A barrier before the exchange's stores as well as after them: ptxas keeps every global load
    # of the tile ahead of it (without it, it interleaved the shared stores with the loads and
    # reused the first load's registers for a later one). A value that was not loaded keeps one.
    ptx = _compile(transpose_tile, {"x": "*fp32:16", "y": "*fp32:16"}, BM=64, BN=64).asm["ptx"]
    first_store, fence = ptx.index("st.shared"), ptx.index("bar.sync")
    assert ptx.count("bar.sync") == 2 and fence < first_store
    assert ptx.count("ld.global.v4") == 8 and ptx.rindex("ld.global") < fence
    ptx = _compile(transpose_scaled_pair, {"x": "*fp32:16", "y": "*fp32:16"}, BM=64, BN=64).asm["ptx"]
    assert ptx.count("bar.sync") == 1 and ptx.index("st.shared") < ptx.index("bar.sync")


@tessera.jit
def transpose_scaled_pair(x, y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    a = tl.load(x + rm[:, None] * BN + rn[None, :])
    b = tl.load(x + BM * BN + rm[:, None] * BN + rn[None, :])
    tl.store(y + rn[None, :] * BM + rm[:, None], a + b)


@tessera.jit
def rem_copy(x, y, n, k, HINT: tl.constexpr):
    # Columns wrapped modulo n, as a matmul's `% N`; the start may be negative (k is any int).
    base = tl.program_id(0) * 512 - k
    offs = (base + tl.arange(0, 512)) % n
    if HINT:
        offs = tl.max_contiguous(tl.multiple_of(offs, 16), 16)
    tl.store(y + offs, tl.load(x + offs))


@tessera.jit
def rem_copy_nonneg(x, y, n):
    offs = (tl.program_id(0) * 512 + tl.arange(0, 512)) % n
    tl.store(y + offs, tl.load(x + offs))


REM_SIG = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32:16", "k": "i32"}


def test_remainder_of_a_possibly_negative_run_stays_scalar():
    # (-4..-1) % 4 is 0, -3, -2, -1: not a run, so no vector access without a proof or a hint.
    assert _accesses(_compile(rem_copy, REM_SIG, HINT=False)) == {"ld.global.b32", "st.global.b32"}
    assert _accesses(_compile(rem_copy, REM_SIG, HINT=True)) == {"ld.global.v4.b32", "st.global.v4.b32"}


def test_remainder_of_a_non_negative_run_vectorizes():
    sig = {"x": "*fp32:16", "y": "*fp32:16", "n": "i32:16"}
    assert _accesses(_compile(rem_copy_nonneg, sig)) == {"ld.global.v4.b32", "st.global.v4.b32"}
    # n of unknown divisibility: no run survives the remainder.
    assert _accesses(_compile(rem_copy_nonneg, dict(sig, n="i32"))) == {"ld.global.b32", "st.global.b32"}


@tessera.jit
def wrap_copy(src, dst, start, n, BLOCK: tl.constexpr):
    # (start + arange) % n: contiguous runs survive the signed remainder only when the dividend is
    # known to be >= 0 (a negative run crossing a multiple of n is not contiguous).
    offs = (start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(dst + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(src + offs))


WRAP = {"src": "*fp32:16", "dst": "*fp32:16", "n": "i32:16"}


def test_remainder_of_a_non_negative_argument_vectorizes():
    # 'nonneg' in a signature is what the launcher's specialization adds for an integer >= 0.
    k = _compile(wrap_copy, dict(WRAP, start="i32:16:nonneg"), BLOCK=1024)
    assert _accesses(k) == {"ld.global.v4.b32", "st.global.v4.b32"}
    assert "tt.nonnegative_version" not in k.asm["ttgir"]


def test_remainder_of_an_argument_of_unknown_sign_is_versioned():
    # Without 'nonneg' the kernel runs in two versions (ttg-version-nonnegative): vector loads
    # where start + pid * BLOCK >= 0, scalar ones otherwise.
    k = _compile(wrap_copy, dict(WRAP, start="i32:16"), BLOCK=1024)
    assert k.asm["ttgir"].count("tt.nonnegative_version") == 1
    assert _accesses(k) == {"ld.global.v4.b32", "ld.global.b32", "st.global.v4.b32"}


@tessera.jit
def wrap_copy_assumed(src, dst, start, n, BLOCK: tl.constexpr):
    tl.assume(start >= 0)
    offs = (start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(dst + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(src + offs))


def test_tl_assume_of_non_negativity_vectorizes_the_remainder():
    k = _compile(wrap_copy_assumed, dict(WRAP, start="i32:16"), BLOCK=1024)
    assert "ld.global.v4.b32" in _accesses(k)


@pytest.mark.parametrize("sig, err", [("i32:nonneg:16:8", "expected a power-of-two"),
                                      ("*fp32:nonneg", "'nonneg' applies to integers"),
                                      ("i32:12", "expected a power-of-two"),
                                      ("i32:soon", "expected a power-of-two")])
def test_signature_facts_are_checked(sig, err):
    with pytest.raises(ValueError, match=err):
        _compile(wrap_copy, dict(WRAP, start=sig), BLOCK=1024)


@tessera.jit
def gather_by_label(logits, labels, out, stride):
    # A scalar i64 load (an 8-byte-aligned label) then a dependent load.
    row = tl.program_id(0)
    label = tl.load(labels + row)
    tl.store(out + row, tl.load(logits + row * stride + label))


def test_scalar_i64_loads_are_one_8_byte_access():
    # The LLVM module carries the NVPTX data layout (i64 aligned to 8), so the label is one
    # ld.global.b64, not two 4-byte halves.
    k = _compile(gather_by_label, {"logits": "*fp32:16", "labels": "*i64:16", "out": "*fp32:16", "stride": "i32"})
    ptx = k.asm["ptx"]
    assert re.search(r"ld\.global(\.nc)?\.b64", ptx), ptx
    assert not re.search(r"ld\.global(\.nc)?\.b32\s+%rd", ptx)
