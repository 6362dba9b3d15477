"""The shared conformance suite passes in the interpreter (the issue's acceptance command)."""

import os
import subprocess
import sys

from ...conftest import CONFORMANCE, ROOT


def test_runner_in_the_interpreter():
    env = dict(os.environ, TESSERA_INTERPRET="1", PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, os.path.join(CONFORMANCE, "runner.py"), "--impl", "tessera"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.stdout.strip().splitlines()[-1] == "15 passed, 0 failed", r.stdout + r.stderr
