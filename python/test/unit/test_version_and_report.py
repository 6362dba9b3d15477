"""One version everywhere, and `python -m tessera`'s environment report."""
import os
import re
import subprocess
import sys

import tessera
from tessera import _core

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(os.path.dirname(HERE))


def test_one_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", tessera.__version__)
    if _core._C is not None:  # the C++ core reads the same file (python/tessera/_version.py)
        assert _core._C.version() == tessera.__version__


def test_environment_report():
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    out = subprocess.run([sys.executable, "-m", "tessera"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith(f"tessera {tessera.__version__}\n")
    for needle in ("backend cuda:", "launches kernels:", "ptxas:", "interpreter mode", "cache:"):
        assert needle in text, (needle, text)
    if _core._C is not None:
        assert "LLVM/MLIR 22." in text
