"""The register budget of kernels without tensor cores (NvidiaBackend.make_cubin): a kernel whose
registers leave room below the occupancy they give is assembled again with `.minnctapersm` at
that occupancy, and keeps that cubin where ptxas then uses more registers: its register target is
the budget there, not its own soft guess.
Compile-only (needs ptxas, not a GPU)."""
import re

import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@pytest.fixture(autouse=True)
def _needs_ptxas(monkeypatch):
    if nvidia.find_ptxas() is None:
        pytest.skip("needs ptxas (CUDA toolkit)")
    monkeypatch.delenv("TESSERA_DISABLE_REGISTER_BUDGET", raising=False)


@tessera.jit
def row_norm(x, y, w, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x + row * stride + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x + row * stride + cols, mask=cols < n, other=0.0).to(tl.float32)
        g = tl.load(w + cols, mask=cols < n, other=0.0).to(tl.float32)
        tl.store(y + row * stride + cols, ((v - mean) * g).to(tl.float16), mask=cols < n)


ROW_SIG = {"x": "*fp16:16", "y": "*fp16:16", "w": "*fp16:16", "stride": "i32:16", "n": "i32"}


@tessera.jit
def small_dot(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    tl.store(c + rm[:, None] * BN + rn[None, :], tl.dot(x, y))


def _compile(num_warps=4, block=1024, **kw):
    return tessera.compile(row_norm, signature=ROW_SIG, constexprs={"BLOCK": block}, target="cuda:90",
                           num_warps=num_warps, **kw)


def test_a_kernel_with_room_gets_its_occupancy_as_min_blocks():
    k = _compile()
    threads, shared = 128, k.metadata["shared"]
    full = nvidia.ptxas_registers(k.asm["ptx"], 90)
    blocks = nvidia.blocks_per_sm(90, threads, shared, full)
    assert nvidia.occupancy_register_bound(90, threads, shared, full) > full  # room: the budget applies
    assert k.metadata["min_blocks_per_sm"] == blocks
    # Assembled with the directive, the kernel keeps the blocks per SM ptxas's own count gave.
    bounded = nvidia.ptxas_registers(nvidia.with_min_blocks(k.asm["ptx"], blocks), 90)
    assert nvidia.blocks_per_sm(90, threads, shared, bounded) >= blocks
    # The PTX the user reads is ptxas's input unchanged; the directive is added for the cubin only.
    assert ".minnctapersm" not in k.asm["ptx"]


def test_tensor_core_kernels_keep_ptxas_target():
    k = tessera.compile(small_dot, signature={"a": "*fp16:16", "b": "*fp16:16", "c": "*fp32:16"},
                        constexprs={"BM": 64, "BN": 64, "BK": 32}, target="cuda:90", num_warps=4)
    assert re.search(r"\b(wgmma|mma)\.", k.asm["ptx"])
    assert "min_blocks_per_sm" not in k.metadata


def test_a_users_maxnreg_and_the_switch_turn_it_off(monkeypatch):
    assert "min_blocks_per_sm" not in _compile(maxnreg=96).metadata
    monkeypatch.setenv("TESSERA_DISABLE_REGISTER_BUDGET", "1")
    assert "min_blocks_per_sm" not in _compile().metadata
    assert nvidia.NvidiaBackend().compile_environment()["register_budget"] is False
    monkeypatch.setenv("TESSERA_DISABLE_REGISTER_BUDGET", "0")
    assert nvidia.NvidiaBackend().compile_environment()["register_budget"] is True


def test_a_kernel_at_its_budget_is_assembled_once(monkeypatch):
    calls = []
    real = nvidia._ptxas

    def counting(ptx, *a, **kw):
        calls.append(ptx)
        return real(ptx, *a, **kw)
    monkeypatch.setattr(nvidia, "_ptxas", counting)
    # Kernels not compiled before in this process (the in-memory cache). BLOCK=2048: 52 registers
    # by ptxas 13.0, room up to 56 at 9 blocks per SM; BLOCK=512: 32 registers, the budget of 16.
    roomy = _compile(block=2048)
    assert len(calls) == 2 and ".minnctapersm" not in calls[0]
    assert f".minnctapersm {roomy.metadata['min_blocks_per_sm']}" in calls[1]
    calls.clear()
    full = _compile(block=512)
    registers = real(full.asm["ptx"], 90)[1]
    if nvidia.occupancy_register_bound(90, 128, full.metadata["shared"], registers) > registers:
        pytest.skip(f"this ptxas gives BLOCK=512 {registers} registers, below its budget")
    assert len(calls) == 1 and "min_blocks_per_sm" not in full.metadata


def test_with_min_blocks_marks_every_entry_and_replaces_an_earlier_one():
    ptx = (".visible .entry a(\n\t.param .u64 a_param_0\n)\n.reqntid 128\n{\n\tret;\n}\n"
           ".visible .entry b()\n.minnctapersm 2\n{\n\tret;\n}\n")
    out = nvidia.with_min_blocks(ptx, 8)
    assert out.count(".minnctapersm 8") == 2 and ".minnctapersm 2" not in out
    assert out.index(".reqntid 128") < out.index(".minnctapersm 8")


def test_the_bounded_cubin_is_kept_only_where_ptxas_uses_the_room(monkeypatch):
    # ptxas reporting the same count with the directive as without it: the kernel keeps the
    # first cubin (ptxas's own choice) and no min_blocks_per_sm.
    k = _compile()
    answers = iter([(b"own", 30), (b"bounded", 30)])
    monkeypatch.setattr(nvidia, "_ptxas", lambda ptx, *a, **kw: next(answers))
    backend = nvidia.NvidiaBackend()
    meta = {"arch": 90, "name": "row_norm", "shared": k.metadata["shared"]}
    assert backend.make_cubin(k.asm["ptx"], meta, backend.parse_options({"num_warps": 4})) == b"own"
    assert "min_blocks_per_sm" not in meta
    answers = iter([(b"own", 30), (b"bounded", 32)])
    assert backend.make_cubin(k.asm["ptx"], meta, backend.parse_options({"num_warps": 4})) == b"bounded"
    assert meta["min_blocks_per_sm"] == 16
