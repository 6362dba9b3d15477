"""The user-written client of docs/language.md runs as written there."""
import os
import re

import torch

import tessera
import tessera.language as tl
from tessera import interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


@tessera.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def test_the_documented_client(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    with open(os.path.join(ROOT, "docs", "language.md")) as f:
        doc = f.read()
    block = re.search(r"```python\n(class LoadsPerProgram\(interpreter\.Client\):.*?)```", doc, re.S).group(1)
    x, y, z = torch.ones(3000), torch.ones(3000), torch.zeros(3000)
    scope = {"interpreter": interpreter, "kernel": add, "grid": (3,), "args": (x, y, z, 3000),
             "print": lambda *a: None}
    exec(compile(block.replace("kernel[grid](*args)", "kernel[grid](*args, BLOCK=1024)"), "language.md", "exec"),
         scope)
    assert scope["c"].count == {(0, 0, 0): 2048, (1, 0, 0): 2048, (2, 0, 0): 2 * (3000 - 2048)}
    torch.testing.assert_close(z, x + y)
