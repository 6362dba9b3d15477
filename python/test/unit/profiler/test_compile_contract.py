"""The compiler's side of the contract, compile-only (needs ptxas): a kernel compiled with
instrumentation (TESSERA_PROFILE_SCOPES=1, or a session of mode "scopes") describes its profile
buffer in metadata["profile"] as tessera.profiler.decode reads it; without, it has none."""

import inspect

import pytest

import tessera
import tessera.language as tl
import tessera.profiler as profiler
import tessera.profiler.language as pl
from tessera.backends import nvidia
from tessera.profiler import decode

from . import synthetic as syn

pytestmark = pytest.mark.skipif(not nvidia.find_ptxas(), reason="ptxas (CUDA toolkit) not installed")


@tessera.jit
def scoped(x, y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    with pl.scope("load"):
        v = tl.load(x + offs, mask=offs < n)
    pl.enter_scope("compute")
    v = v * 2
    pl.exit_scope("compute")
    tl.store(y + offs, v, mask=offs < n)


SIG = {"x": "*fp32", "y": "*fp32", "n": "i32"}


def compile_scoped(num_warps=4):
    return tessera.compile(scoped, signature=SIG, constexprs={"BLOCK": 256}, target="cuda:90", num_warps=num_warps)


def line_of(text):
    src, first = inspect.getsourcelines(scoped.fn)
    (i,) = [i for i, line in enumerate(src) if text in line]
    return first + i


@pytest.mark.parametrize("num_warps", [4, 8])
def test_instrumented_kernel_describes_its_buffer(monkeypatch, num_warps):
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")
    md = compile_scoped(num_warps).metadata["profile"]
    prof = decode.check_profile(md)
    W, C = prof["num_warps"], prof["records_per_warp"]
    assert W == num_warps and C >= 2 and prof["metric"] in ("cycle", "time")
    assert prof["bytes_per_program"] >= decode.records_offset(W) + W * C * decode.RECORD_BYTES
    assert [(s["name"], s["line"], s["function"]) for s in prof["scopes"]] == [
        ("load", line_of('pl.scope("load")'), "scoped"), ("compute", line_of('pl.enter_scope("compute")'), "scoped")]
    # a buffer laid out for this metadata decodes
    ev = syn.script(["load", "compute"], [("load", "start", 0), ("load", "end", 10), ("compute", "start", 10),
                                          ("compute", "end", 30)])
    (p,) = decode.decode_buffer(syn.program(md, [ev] * W, start_ns=0, end_ns=30, start_clock=0, end_clock=30), md,
                                (1, 1, 1))
    assert [[iv.name for iv in t.intervals] for t in p.tracks] == [["load", "compute"]] * W


def test_without_instrumentation_there_is_no_profile():
    assert profiler.instrumenting() is False
    assert compile_scoped().metadata.get("profile") is None


def test_a_scopes_session_turns_instrumentation_on():
    with profiler.profile(mode="kernels"):
        assert compile_scoped().metadata.get("profile") is None
    with profiler.profile(mode="scopes"):
        md = compile_scoped().metadata.get("profile")
    assert md is not None and [s["name"] for s in md["scopes"]] == ["load", "compute"]
