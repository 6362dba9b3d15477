"""tessera.testing.perf_report / Benchmark / Mark.run: the benchmark tables Triton's tutorials build."""

import os

import pytest

from tessera import testing


def _bench(**kw):
    args = dict(x_names=["N"], x_vals=[1, 2, 4], line_arg="impl", line_vals=["a", "b"],
                line_names=["A", "B"], plot_name="demo", args={"scale": 10}, ylabel="GB/s")
    args.update(kw)
    return testing.Benchmark(**args)


def test_run_calls_every_point_and_prints(capsys):
    calls = []

    @testing.perf_report(_bench())
    def bench(N, impl, scale):
        calls.append((N, impl, scale))
        return N * scale + (1 if impl == "b" else 0)

    assert isinstance(bench, testing.Mark)
    bench.run(print_data=True)
    assert calls == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10), (4, "b", 10)]
    out = capsys.readouterr().out
    assert "demo:" in out and "A" in out and "B" in out
    assert "41" in out  # N=4, impl b


def test_min_max_tuple_and_return_df():
    @testing.perf_report(_bench(x_vals=[3]))
    def bench(N, impl, scale):
        return (float(N), float(N - 1), float(N + 1))

    res = bench.run(return_df=True)
    try:
        import pandas  # noqa: F401
        cols, rows = list(res.columns), res.values.tolist()
    except ImportError:
        cols, rows = res
    assert cols == ["N", "A", "B"]
    assert rows == [[3, 3.0, 3.0]]


def test_tuple_x_values_and_save_path(tmp_path):
    @testing.perf_report([_bench(x_names=["M", "N"], x_vals=[(1, 2), (3, 4)], plot_name="pairs")])
    def bench(M, N, impl, scale):
        return float(M * N)

    assert bench.run(save_path=str(tmp_path)) is None
    text = (tmp_path / "pairs.csv").read_text()
    assert text.splitlines()[0] == "M,N,A,B"
    assert text.splitlines()[2] == "3,4,12,12"


def test_bad_benchmarks_are_rejected():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        _bench(line_names=["A"])
    with pytest.raises(TypeError, match="x_names must be a list"):
        _bench(x_names="N")

    @testing.perf_report(_bench(x_names=["M", "N"], x_vals=[(1, 2, 3)]))
    def bench(M, N, impl, scale):
        return 1.0

    with pytest.raises(ValueError, match="does not match x_names"):
        bench.run()
