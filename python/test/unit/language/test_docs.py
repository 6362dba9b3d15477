"""The language guide lists every public builtin of tessera.language and tl.math."""

import os
import re

import tessera.language as tl

from .helpers import ROOT

INTERNAL = {"builtins", "builder_protocol", "core", "semantic", "builtin", "block_type", "pi32_t", "extra", "random", "math",
            "MAX_TENSOR_NUMEL", "N_ROUNDS_DEFAULT", "PHILOX_KEY_A", "PHILOX_KEY_B", "PHILOX_ROUND_A",
            "PHILOX_ROUND_B"}


def test_every_builtin_is_documented():
    with open(os.path.join(os.path.dirname(ROOT), "docs", "language.md")) as f:
        doc = f.read()
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", doc))
    names = {n for n in dir(tl) if not n.startswith("_")} | {n for n in dir(tl.math) if not n.startswith("_")}
    dtypes = {n for n in names if isinstance(getattr(tl, n, None), tl.dtype)}
    missing = sorted(n for n in names - INTERNAL - dtypes if n not in words)
    assert not missing, f"docs/language.md does not mention: {missing}"
