"""docs/debugging.md runs as written: its python blocks, one after the other, print exactly its
text blocks (kernel source lines are the page's own, numbered within each block)."""
import contextlib
import io
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
DOC = os.path.join(ROOT, "docs", "debugging.md")


def _blocks():
    with open(DOC) as f:
        text = f.read()
    return re.findall(r"```(python|text)\n(.*?)```", text, re.S)


def test_the_guide_prints_what_it_shows(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    scope = {"__name__": "debugging_doc"}
    expected, printed = [], []
    n_python = 0
    for kind, body in _blocks():
        if kind == "text":
            expected.append(body.strip())
            continue
        n_python += 1
        out = io.StringIO()
        # each block from a file of its own named like the page (kernels need their source in a
        # file): the kernels' lines are the block's lines
        path = tmp_path / f"block{n_python}" / "debugging.md"
        path.parent.mkdir()
        path.write_text(body)
        code = compile(body, str(path), "exec")
        with contextlib.redirect_stdout(out):
            exec(code, scope)
        if out.getvalue().strip():
            printed.append(out.getvalue().strip())
    assert n_python >= 5 and len(expected) >= 4
    # file names print as paths; the page shows their base name
    printed = [re.sub(r"\S*debugging\.md", "debugging.md", p) for p in printed]
    assert printed == expected
