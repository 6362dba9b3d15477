"""A trace of the profiler opens in speedscope: served from 127.0.0.1 and rendered by headless
Chromium, it shows every thread of the trace as a profile and draws its events. Skipped (with the
reason) without chromium or tools/viewer's speedscope."""

import json

import pytest

import tessera.profiler as profiler

from . import speedscope
from ._profiles import sample_profile

pytestmark = pytest.mark.skipif(speedscope.missing() is not None, reason=speedscope.missing() or "")


def thread_count(obj):
    return sum(1 for e in obj["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name")


def colours(png):
    import matplotlib.image as mpimg
    img = (mpimg.imread(png)[..., :3] * 255).astype(int)
    return img, {tuple(c) for c in img.reshape(-1, 3)}


@pytest.fixture(scope="module")
def trace_obj(tmp_path_factory):
    obj = sample_profile("viewer", path=str(tmp_path_factory.mktemp("viewer") / "viewer.json")).trace()
    profiler.validate_trace(obj)
    return obj


def test_speedscope_lists_every_thread(trace_obj):
    with speedscope.serve(json.dumps(trace_obj).encode()) as url:
        page = speedscope.dom(url)
    n = thread_count(trace_obj)
    assert n == 10
    # the toolbar names the first profile (the host thread) and how many there are
    assert "host (pid 1), thread MainThread (tid 1)" in page, page[-2000:]
    # and its profile list has every program's warp
    assert "matmul (launch 1) (pid 4), program (1,0,0) warp 1 (tid 4)" in page
    assert f"(1/{n})" in page


def test_speedscope_draws_the_trace(trace_obj, tmp_path):
    with speedscope.serve(json.dumps(trace_obj).encode()) as url:
        shot = speedscope.screenshot(url, str(tmp_path / "trace.png"))
        landing = speedscope.screenshot(url.split("#")[0], str(tmp_path / "landing.png"))
    img, cols = colours(shot)
    assert img.shape[:2] == (900, 1400)
    # not blank: the flame chart's coloured blocks cover a good part of the window
    saturated = (img.max(axis=2) - img.min(axis=2)) > 40
    assert saturated.mean() > 0.05, saturated.mean()
    _, landing_cols = colours(landing)
    assert len(cols) > 20 and cols != landing_cols


def test_without_a_trace_speedscope_shows_no_profile(trace_obj):
    """The checks above can fail: speedscope's start page (no profileURL) lists no profile. (A file
    speedscope cannot read makes it call alert(), which blocks headless Chromium: not tried.)"""
    with speedscope.serve(json.dumps(trace_obj).encode()) as url:
        page = speedscope.dom(url.split("#")[0])
    assert "speedscope" in page and "(1/" not in page and "MainThread" not in page
