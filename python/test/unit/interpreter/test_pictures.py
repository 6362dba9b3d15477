"""AccessMap (tessera.interpreter.pictures): which elements of each tensor each program loaded and
stored in one launch -- checked element by element for a tiled 2-D copy, a strided view, atomics
and overlapping programs -- drawn as a PNG (matplotlib) and as a standalone HTML page rendered in
headless Chromium (Debian's chromium), whose screenshot is compared with the picture's colours."""
import os
import shutil
import subprocess

import numpy as np
import pytest
import torch

import tessera
import tessera.language as tl
from tessera.interpreter import observe
from tessera.interpreter.pictures import AccessMap

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@tessera.jit
def tile_copy(x, y, M, N, sx, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(x + rm[:, None] * sx + rn[None, :], mask=mask)
    tl.store(y + rm[:, None] * N + rn[None, :], v, mask=mask)


@tessera.jit
def halo_sum(x, out, n, BLOCK: tl.constexpr):
    # each program reads its block and the next element (shared with its neighbour), and adds
    # into one bin per program with an atomic
    r = tl.arange(0, 2 * BLOCK)
    offs = tl.program_id(0) * BLOCK + r
    v = tl.load(x + offs, mask=(offs < n) & (r <= BLOCK), other=0.0)
    tl.atomic_add(out + tl.program_id(0), tl.sum(v, axis=0))


def run_tile_copy(M=20, N=24, BM=8, BN=16):
    x = torch.arange(M * N, dtype=torch.float32).reshape(M, N)
    y = torch.zeros_like(x)
    amap = AccessMap()
    with observe(amap):
        tile_copy[(tessera.cdiv(M, BM), tessera.cdiv(N, BN))](x, y, M, N, N, BM=BM, BN=BN)
    assert torch.equal(x, y)  # the client changes nothing
    return amap


def expected_owner(M, N, BM, BN, gx):
    rows, cols = np.meshgrid(np.arange(M), np.arange(N), indexing="ij")
    return (rows // BM) + gx * (cols // BN)  # program = pid_x + gx * pid_y


def test_tiles_belong_to_their_program():
    M, N, BM, BN = 20, 24, 8, 16
    amap = run_tile_copy(M, N, BM, BN)
    gx = tessera.cdiv(M, BM)
    assert amap.programs == gx * tessera.cdiv(N, BN)
    own = expected_owner(M, N, BM, BN, gx)
    for name, kind in (("x", "load"), ("y", "store")):
        np.testing.assert_array_equal(amap.first(name, kind), own)
        np.testing.assert_array_equal(amap.count(name, kind), np.ones((M, N), dtype=np.int64))
    assert (amap.first("x", "store") == -1).all() and (amap.first("y", "load") == -1).all()
    # program 1 is pid (1, 0): rows 8..15, columns 0..15
    got = amap.program_elements("x", "load", 1)
    want = np.ravel_multi_index(np.meshgrid(np.arange(8, 16), np.arange(16), indexing="ij"), (M, N)).ravel()
    np.testing.assert_array_equal(np.sort(got), np.sort(want))


def test_views_are_drawn_in_their_own_shape():
    big = torch.arange(20 * 40, dtype=torch.float32).reshape(20, 40)
    x = big[:, 8:32]  # a strided view: 20 x 24, row stride 40
    y = torch.zeros(20, 24)
    amap = AccessMap()
    with observe(amap):
        tile_copy[(3, 2)](x, y, 20, 24, 40, BM=8, BN=16)
    assert torch.equal(x, y)
    np.testing.assert_array_equal(amap.first("x", "load"), expected_owner(20, 24, 8, 16, 3))


def test_overlaps_and_atomics():
    n, B = 40, 8
    x = torch.ones(n)
    out = torch.zeros(n // B)
    amap = AccessMap()
    with observe(amap):
        halo_sum[(n // B,)](x, out, n, BLOCK=B)
    counts = amap.count("x", "load")
    # element 8k is read by programs k-1 and k (the halo); the others once
    assert [int(c) for c in counts[:17]] == [1] * 8 + [2] + [1] * 7 + [2]
    assert amap.first("x", "load")[8] == 0
    # atomics count as loads and stores of their bins
    np.testing.assert_array_equal(amap.first("out", "store"), np.arange(n // B))
    np.testing.assert_array_equal(amap.first("out", "load"), np.arange(n // B))


def test_png(tmp_path):
    pytest.importorskip("matplotlib")
    amap = run_tile_copy()
    path = amap.save_png(str(tmp_path / "access.png"))
    import matplotlib.image as mpimg
    img = mpimg.imread(path)
    assert img.shape[0] > 200 and img.shape[1] > 500
    # the panels hold several distinct colours (programs) besides white
    px = (img[..., :3] * 255).astype(int).reshape(-1, 3)
    assert len({tuple(p) for p in px[::7]}) > 6


def test_empty_map_is_an_error():
    with pytest.raises(ValueError, match="no tensor accesses were recorded"):
        AccessMap().figure()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium (Debian's headless browser) is not installed")
def test_html_renders_in_headless_chromium(tmp_path):
    amap = run_tile_copy()
    page = amap.save_html(str(tmp_path / "access.html"))
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=800,700", f"file://{page}"],
                   check=True, capture_output=True, timeout=120)
    import matplotlib.image as mpimg
    img = (mpimg.imread(str(shot))[..., :3] * 255).astype(int)
    colours = {tuple(p) for p in img.reshape(-1, 3)[::5]}
    # the canvases drew the programs: several saturated colours, not a blank page
    saturated = [c for c in colours if max(c) - min(c) > 60]
    assert len(saturated) >= 6, len(saturated)


def test_element_indices_through_any_strides():
    from tessera.interpreter.pictures import _Tensor
    # a size-1 dimension with a stride that is no multiple of anything (as torch may give it)
    t = _Tensor("t", (1, 4), (7, 1))
    assert t.indices([0, 1, 3, 4, 7]).tolist() == [0, 1, 3]
    # negative strides (a reversed numpy view): offsets below the base name elements
    r = _Tensor("r", (2, 3), (-3, 1))   # rows reversed
    assert r.indices([0, 2, -3, -1, 1 - 6]).tolist() == [0, 2, 3, 5]
    # an overlapping view (stride 0): an offset names the first element that has it
    b = _Tensor("b", (3, 2), (0, 1))
    assert b.indices([0, 1, 2]).tolist() == [0, 1]
    # the usual row-major case, and offsets outside dropped
    m = _Tensor("m", (2, 3), (3, 1))
    assert m.indices([5, 0, 6, -1]).tolist() == [5, 0]
