"""The autotuner and do_bench work in the interpreter: configurations are timed on the host clock
(they used to ask for CUDA events on the CPU)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402


@tessera.autotune(configs=[tessera.Config({"BLOCK": 32}), tessera.Config({"BLOCK": 64})], key=["n"],
                  warmup=1, rep=2)
@tessera.jit
def doubled(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) * 2, mask=m)


def test_autotune_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    doubled[lambda meta: (tessera.cdiv(100, meta["BLOCK"]),)](x, out, 100)
    assert torch.equal(out, x * 2)
    assert doubled.best_config.kwargs["BLOCK"] in (32, 64)


def test_do_bench_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x, out = torch.arange(64, dtype=torch.float32), torch.zeros(64)
    ms = tessera.testing.do_bench(lambda: doubled.fn[(1,)](x, out, 64, BLOCK=64), warmup=1, rep=2)
    assert ms > 0
