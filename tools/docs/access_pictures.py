"""Makes the access-pattern pictures of docs/user-guide.md (docs/images/access-matmul.png and the
headless-Chromium screenshot access-matmul-html.png) from a tiled matmul run in the interpreter.

    TESSERA_INTERPRET=1 PYTHONPATH=python /usr/bin/python3 tools/docs/access_pictures.py
"""
import os
import shutil
import subprocess
import sys
import tempfile

import torch

import tessera
import tessera.language as tl
from tessera.interpreter import observe
from tessera.interpreter.pictures import AccessMap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@tessera.jit
def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M)
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def main():
    os.environ["TESSERA_INTERPRET"] = "1"
    M, N, K = 48, 64, 32
    a, b = torch.randn(M, K), torch.randn(K, N)
    c = torch.zeros(M, N)
    amap = AccessMap()
    with observe(amap):
        matmul[(3, 4)](a, b, c, M, N, K, BM=16, BN=16, BK=16)
    torch.testing.assert_close(c, a @ b, atol=1e-4, rtol=1e-4)
    out = os.path.join(ROOT, "docs", "images")
    os.makedirs(out, exist_ok=True)
    amap.save_png(os.path.join(out, "access-matmul.png"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (tools/setup installs Debian's)")
    with tempfile.TemporaryDirectory() as d:
        page = amap.save_html(os.path.join(d, "access.html"))
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={os.path.join(out, 'access-matmul-html.png')}",
                        "--window-size=760,980", f"file://{page}"], check=True, capture_output=True, timeout=120)
    print("wrote docs/images/access-matmul.png and docs/images/access-matmul-html.png")


if __name__ == "__main__":
    main()
