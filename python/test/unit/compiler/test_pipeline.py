"""ttg-pipeline in the NVIDIA pipeline (compile-only: the PTX is enough): a matmul's operand loads
become cp.async rings from sm_80 with the launch's num_stages; one stage, the disable switch, an
older target or copies under 4 bytes leave the loads synchronous. The PTX is cuda:80's (mma.sync
operands read with ldmatrix); cuda:90's wgmma path is test_wgmma.py's."""
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    offs_am = (pid // npn * BM + tl.arange(0, BM)) % M
    offs_bn = (pid % npn * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * sam + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    tl.store(c_ptr + (pid // npn * BM + tl.arange(0, BM))[:, None] * scm + (pid % npn * BN + tl.arange(0, BN))[None, :],
             acc.to(tl.float16))


SIG = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16", "N": "i32:16",
       "K": "i32:16", "sam": "i32:16", "sbk": "i32:16", "scm": "i32:16"}
TILE = {"BM": 128, "BN": 128, "BK": 32}


def _ptx(target="cuda:80", **opts):
    return tessera.compile(matmul, signature=SIG, constexprs=TILE, target=target, num_warps=4, **opts).asm["ptx"]


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_operand_loads_become_async_copy_rings(stages):
    ptx = _ptx(num_stages=stages)
    # 128x32 + 32x128 halves over 128 threads, 16 bytes per copy: 4 + 4 copies per stage.
    assert ptx.count("cp.async.cg.shared.global") == 8 * stages
    assert f"cp.async.wait_group {stages - 2};" in ptx and "cp.async.wait_group 0;" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert not any(l.strip().startswith("ld.global") or "ld.global.v4" in l for l in ptx.splitlines()
                   if "cp.async" not in l), "a synchronous operand load is left"


def test_one_stage_keeps_synchronous_loads():
    ptx = _ptx(num_stages=1)
    assert "cp.async" not in ptx and "ld.global.v4.b32" in ptx


def test_disable_switch_and_cache_key(monkeypatch):
    monkeypatch.setenv("TESSERA_DISABLE_PIPELINE", "1")
    assert "cp.async" not in _ptx(num_stages=3)
    monkeypatch.delenv("TESSERA_DISABLE_PIPELINE")
    assert "cp.async" in _ptx(num_stages=3)


def test_no_background_copies_before_sm80():
    assert "cp.async" not in _ptx(target="cuda:75", num_stages=3)


def test_unaligned_k_keeps_the_loads_it_cannot_copy():
    # K of unknown divisibility: A's mask changes along its contiguous dim (K), so its copies would
    # move 2 bytes and A keeps synchronous loads; B's mask is constant along its rows (N) and B
    # still goes through a ring.
    ptx = tessera.compile(matmul, signature=dict(SIG, K="i32"), constexprs=TILE, target="cuda:90",
                          num_warps=4, num_stages=3).asm["ptx"]
    assert ptx.count("cp.async.cg.shared.global") == 4 * 3
    assert "ld.global.b16" in ptx


def _loop_line(ttgir):
    return next(l for l in ttgir.splitlines() if "scf.for" in l)


def test_unaligned_operand_is_prefetched_into_registers():
    # A's rows sam elements apart, sam of unknown divisibility: copies of 2 bytes cannot be
    # background copies, so A is loaded an iteration ahead into registers: the loop carries the
    # 128x32 tile, and its load comes before the ring's wait (B, aligned, keeps its ring).
    k = tessera.compile(matmul, signature=dict(SIG, K="i32", sam="i32"), constexprs=TILE, target="cuda:90",
                        num_warps=4, num_stages=3)
    ttgir = k.asm["ttgir"]
    assert "tensor<128x32xf16" in _loop_line(ttgir)
    body = ttgir.split("scf.for", 1)[1]
    assert body.index("tt.load") < body.index("ttg.async_wait")
    assert k.asm["ptx"].count("cp.async.cg.shared.global") == 4 * 3


def test_prefetch_needs_pipelining():
    # One stage: no pipelining, no prefetch (the launch asked for synchronous loads).
    k = tessera.compile(matmul, signature=dict(SIG, K="i32", sam="i32"), constexprs=TILE, target="cuda:90",
                        num_warps=4, num_stages=1)
    assert "xf16" not in _loop_line(k.asm["ttgir"]).split("->")[1]


def test_prefetch_leaves_large_tiles_alone():
    # A 256x64 tile over 128 threads holds 128 elements a thread: not prefetched.
    k = tessera.compile(matmul, signature=dict(SIG, K="i32", sam="i32"),
                        constexprs={"BM": 256, "BN": 64, "BK": 64}, target="cuda:90", num_warps=4, num_stages=3)
    assert "tensor<256x64xf16" not in _loop_line(k.asm["ttgir"])
