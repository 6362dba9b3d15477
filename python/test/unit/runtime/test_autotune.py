"""@tessera.autotune, @tessera.heuristics, Config and the timing statistics, with a fake timer
(kernels run in the interpreter, so no GPU is needed)."""

import logging

import pytest
import torch

import tessera
import tessera.language as tl
from tessera.compiler.errors import CompilationError
from tessera.testing import summarize


@pytest.fixture(autouse=True)
def interpreter(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))


class FakeTimer:
    """do_bench stand-in: runs the call once and returns a time chosen per configuration."""

    def __init__(self, times):
        self.times = times
        self.calls = []

    def __call__(self, fn, quantiles=None):
        fn()
        block = fn.config.kwargs["BLOCK"]
        self.calls.append(block)
        t = self.times[block]
        if isinstance(t, Exception):
            raise t
        return [t, t * 0.9, t * 1.1] if quantiles else t


CONFIGS = [tessera.Config({"BLOCK": b}, num_warps=w) for b, w in ((16, 1), (32, 2), (64, 4))]


def make(timer, **kw):
    @tessera.autotune(configs=CONFIGS, key=["n"], do_bench=timer, **kw)
    @tessera.jit
    def add_one(x, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) + 1, mask=m)
    return add_one


def grid(meta):
    return (tessera.cdiv(meta["n"], meta["BLOCK"]),)


def test_picks_the_fastest_and_caches_per_key():
    timer = FakeTimer({16: 3.0, 32: 1.0, 64: 2.0})
    k = make(timer)
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    k[grid](x, out, 100)
    assert torch.equal(out, x + 1)
    assert k.best_config.kwargs == {"BLOCK": 32} and k.best_config.num_warps == 2
    assert sorted(timer.calls) == [16, 32, 64]
    assert k.configs_timings[CONFIGS[1]] == 1.0
    k[grid](x, out, 100)  # same key: no timing
    assert len(timer.calls) == 3
    x2, out2 = torch.arange(50, dtype=torch.float32), torch.zeros(50)
    timer.times = {16: 0.5, 32: 1.0, 64: 2.0}
    k[grid](x2, out2, 50)  # new key: timed again
    assert len(timer.calls) == 6 and k.best_config.kwargs == {"BLOCK": 16}
    assert torch.equal(out2, x2 + 1)
    # The element type of tensor arguments is part of the key too.
    k[grid](x.double(), out.double(), 100)
    assert len(timer.calls) == 9


def test_choice_is_stored_on_disk():
    timer = FakeTimer({16: 3.0, 32: 1.0, 64: 2.0})
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    make(timer)[grid](x, out, 100)
    assert len(timer.calls) == 3
    again = make(FakeTimer({16: 0.1, 32: 9.0, 64: 9.0}))  # a new process would see the same sources
    again[grid](x, out, 100)
    assert again.best_config.kwargs == {"BLOCK": 32} and again.do_bench.calls == []
    off = make(FakeTimer({16: 0.1, 32: 9.0, 64: 9.0}), cache_results=False)
    off[grid](x, out, 100)
    assert off.best_config.kwargs == {"BLOCK": 16}


def test_failing_configs_are_skipped_with_the_reason_logged(caplog):
    timer = FakeTimer({16: tessera.OutOfResources("needs 300000 bytes of shared memory"),
                       32: CompilationError("static_assert failed"), 64: 2.0})
    k = make(timer, cache_results=False)
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    with caplog.at_level(logging.WARNING, logger="tessera.autotune"):
        k[grid](x, out, 100)
    assert k.best_config.kwargs == {"BLOCK": 64}
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "skipping config {BLOCK: 16" in text and "shared memory" in text and "static_assert" in text
    assert set(k.skipped) == {CONFIGS[0], CONFIGS[1]}


def test_all_configs_failing_is_an_error():
    timer = FakeTimer({b: tessera.OutOfResources("too big") for b in (16, 32, 64)})
    k = make(timer, cache_results=False)
    with pytest.raises(RuntimeError, match="no configuration runs"):
        k[grid](torch.zeros(8), torch.zeros(8), 8)


def test_other_errors_are_not_swallowed():
    k = make(FakeTimer({16: ValueError("a real bug"), 32: 1.0, 64: 1.0}), cache_results=False)
    with pytest.raises(ValueError, match="a real bug"):
        k[grid](torch.zeros(8), torch.zeros(8), 8)


def test_reset_to_zero_and_restore_value():
    seen = []

    class Timer(FakeTimer):
        def __call__(self, fn, quantiles=None):
            fn()
            seen.append((acc.clone(), out.clone()))
            return 1.0

    @tessera.autotune(configs=CONFIGS[:2], key=["n"], reset_to_zero=["acc"], restore_value=["out"],
                      do_bench=Timer({}), cache_results=False)
    @tessera.jit
    def accumulate(x, acc, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x + offs, mask=m)
        tl.atomic_add(acc + offs, v, mask=m)
        tl.store(out + offs, v * 2, mask=m)
    x = torch.ones(32)
    acc = torch.full((32,), 5.0)
    out = torch.full((32,), 7.0)
    accumulate[grid](x, acc, out, 32)
    # Each timed run started from zero and left `out` as it was.
    for a, o in seen:
        assert torch.equal(a, torch.ones(32)) and torch.equal(o, torch.full((32,), 7.0))
    # The real launch after tuning: acc was reset by the last timed run, then added to once more.
    assert torch.equal(out, torch.full((32,), 2.0))


def test_prune_configs_by():
    timer = FakeTimer({16: 1.0, 32: 2.0, 64: 3.0})

    def early(configs, named, **kwargs):
        return [c for c in configs if c.kwargs["BLOCK"] <= named["n"]]

    def model(**kw):
        return -kw["BLOCK"]  # predicts bigger is faster
    k = make(timer, prune_configs_by={"early_config_prune": early, "perf_model": model, "top_k": 1},
             cache_results=False)
    k[grid](torch.zeros(40), torch.zeros(40), 40)
    assert timer.calls == [32] and k.best_config.kwargs == {"BLOCK": 32}
    with pytest.raises(ValueError, match="unknown entries"):
        make(timer, prune_configs_by={"bogus": 1})


def test_config_clash_with_call_arguments():
    k = make(FakeTimer({16: 1.0, 32: 2.0, 64: 3.0}), cache_results=False)
    with pytest.raises(ValueError, match="BLOCK given both at the call and by the configurations"):
        k[grid](torch.zeros(8), torch.zeros(8), 8, BLOCK=16)


def test_bad_autotune_arguments():
    with pytest.raises(ValueError, match="has no parameter 'm'"):
        make(FakeTimer({}), reset_to_zero=["m"])
    with pytest.raises(TypeError, match="tessera.Config"):
        tessera.autotune(configs=[{"BLOCK": 1}], key=[])(make(FakeTimer({})).fn)


def test_heuristics_feed_meta_parameters():
    @tessera.heuristics({"BLOCK": lambda args: tessera.next_power_of_2(args["n"]) // 2,
                         "EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @tessera.jit
    def fill(out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(out + offs, offs.to(tl.float32))
        else:
            tl.store(out + offs, offs.to(tl.float32), mask=offs < n)
    out = torch.zeros(24)
    fill[lambda m: (tessera.cdiv(m["n"], m["BLOCK"]),)](out, 24)
    assert torch.equal(out, torch.arange(24, dtype=torch.float32))


def test_heuristics_under_autotune():
    timer = FakeTimer({16: 2.0, 32: 1.0, 64: 3.0})

    @tessera.autotune(configs=CONFIGS, key=["n"], do_bench=timer, cache_results=False)
    @tessera.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @tessera.jit
    def add_one(x, out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(out + offs, tl.load(x + offs) + 1)
        else:
            m = offs < n
            tl.store(out + offs, tl.load(x + offs, mask=m) + 1, mask=m)
    x, out = torch.arange(64, dtype=torch.float32), torch.zeros(64)
    add_one[grid](x, out, 64)
    assert torch.equal(out, x + 1) and add_one.best_config.kwargs == {"BLOCK": 32}
    assert add_one.arg_names == ["x", "out", "n", "BLOCK", "EVEN"]


def test_config_repr_and_all_kwargs():
    c = tessera.Config({"BLOCK": 64}, num_warps=8, num_stages=2, maxnreg=128)
    assert repr(c) == "BLOCK: 64, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: 128"
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_stages": 2, "num_ctas": 1, "maxnreg": 128}
    assert "maxnreg" not in tessera.Config({}).all_kwargs()
    with pytest.raises(TypeError):
        tessera.Config([("BLOCK", 1)])


def test_summarize():
    xs = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert summarize(xs) == 3.0
    assert summarize(xs, quantiles=(0.5, 0.0, 1.0, 0.25)) == [3.0, 1.0, 5.0, 2.0]
    assert summarize(xs, return_mode="mean") == 3.0
    assert summarize(xs, return_mode="min") == 1.0 and summarize(xs, return_mode="max") == 5.0
    with pytest.raises(ValueError):
        summarize(xs, quantiles=(1.5,))
    with pytest.raises(ValueError):
        summarize([])


def test_perf_model_with_keyword_arguments():
    timer = FakeTimer({16: 1.0, 32: 2.0, 64: 3.0})
    k = make(timer, prune_configs_by={"perf_model": lambda **kw: kw["n"] - kw["BLOCK"], "top_k": 1},
             cache_results=False)
    k[grid](torch.zeros(40), torch.zeros(40), n=40)
    assert timer.calls == [64]
