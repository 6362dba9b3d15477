"""The summary tree (tessera.profiler.summary) and Profile's totals, on profiles with known numbers."""

import pytest

import tessera.profiler as profiler
from tessera.profiler import summary

from ._profiles import sample_profile


def find(nodes, *names):
    node = None
    for name in names:
        node = next(n for n in nodes if n["name"] == name)
        nodes = node["children"]
    return node


def test_tree_holds_host_scopes_kernels_and_nested_scopes():
    prof = sample_profile()
    tree = prof.tree()
    roots = tree["root"]
    assert [(n["kind"], n["name"]) for n in roots] == [("host", "step"), ("kernel", "copy")]
    step = find(roots, "step")
    assert step["calls"] == 1 and step["total_ns"] > 0 and step["share"] is None
    mm = find(roots, "step", "matmul")
    assert (mm["kind"], mm["calls"], mm["total_ns"], mm["avg_ns"]) == ("kernel", 2, 20_000, 10_000)
    # per launch: 2 programs x 2 warps; two launches
    load, dot = find(roots, "step", "matmul", "load"), find(roots, "step", "matmul", "dot")
    assert (load["calls"], load["total_ns"], load["warps"], load["avg_ns"]) == (8, 1600, 8, 200)
    assert (dot["calls"], dot["total_ns"], dot["warps"], dot["avg_ns"]) == (8, 3200, 8, 400)
    assert load["share"] == pytest.approx(0.2) and dot["share"] == pytest.approx(0.4)  # of 1000 ns programs
    inner = find(roots, "step", "matmul", "dot", "inner")
    assert (inner["calls"], inner["total_ns"], inner["warps"], inner["avg_ns"]) == (8, 800, 4, 200)
    assert inner["share"] == pytest.approx(0.5)
    assert load["cycles"] == 1600 and inner["per"] == "warp"
    assert [c["name"] for c in mm["children"]] == ["dot", "load"]  # by time per warp
    copy = find(roots, "copy")
    assert copy["children"] == [] and copy["calls"] == 1 and copy["total_ns"] == 4000


def test_summary_text():
    text = sample_profile("textual").summary()
    lines = text.splitlines()
    assert lines[0].startswith("Tessera profile 'textual' (mode scopes): 3 kernel launches of 2 kernel(s)")
    assert lines[1].split() == ["name", "calls", "total", "avg", "of", "parent"]
    assert "step [host]" in text and "matmul [kernel]" in text and "copy [kernel]" in text
    load_line = next(line for line in lines if line.lstrip("|`- ").startswith("load "))
    assert load_line.split()[-6:] == ["8", "1.60", "us", "200", "ns/warp", "20.0%"]
    inner_line = next(line for line in lines if "inner" in line)
    assert inner_line.index("inner") > load_line.index("load")  # nested deeper than its parent's sibling
    assert inner_line.endswith("50.0%") and "200 ns/warp" in inner_line
    mm_line = next(line for line in lines if "matmul [kernel]" in line)
    assert "20.00 us" in mm_line and "10.00 us" in mm_line
    assert "records dropped" not in text and "unmatched" not in text
    assert "scopes: avg = time per warp and launch" in text


def test_summary_reports_dropped_and_unmatched_records():
    prof = sample_profile(wrapped=True)
    assert prof.dropped == 6 and prof.dropped_by_kernel() == {"wrapped": 6}
    text = prof.summary()
    assert "records dropped: 6 (wrapped: 6)" in text
    assert "unmatched" not in text  # whole pairs were lost


def test_max_depth_cuts_the_tree():
    text = sample_profile().summary(max_depth=2)
    assert "matmul [kernel]" in text and "load" not in text and "scopes: avg" not in text  # no scope rows


def test_scope_totals():
    prof = sample_profile()
    totals = prof.scope_totals()
    assert set(totals) == {"load", "dot", "inner"}
    assert totals["load"] == {"calls": 8, "total_ns": 1600, "warps": 8, "avg_ns_per_warp": 200, "total_cycles": 1600,
                              "kernels": ["matmul"]}
    assert totals["inner"]["warps"] == 4 and totals["inner"]["avg_ns_per_warp"] == 200
    assert prof.scope_totals(kernel="copy") == {}


def test_render_rejects_what_is_not_a_tree():
    with pytest.raises(ValueError, match="no 'root'"):
        summary.render({"name": "x"})


def test_format_ns():
    assert [summary.format_ns(v) for v in (None, 12, 1500, 2_500_000, 3_000_000_000)] == [
        "-", "12 ns", "1.50 us", "2.50 ms", "3.000 s"]


def test_empty_profile_says_nothing_was_recorded():
    profiler.start()
    prof = profiler.stop()
    assert "(nothing was recorded)" in prof.summary()
