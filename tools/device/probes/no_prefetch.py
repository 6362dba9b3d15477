"""Runs a Python script (argv[1:]) with ttg-pipeline's register prefetch turned off (the pass
option register-prefetch=false in every compile), in its own cache directory: the baseline of
the prefetch measurements.   python3 tools/device/probes/no_prefetch.py SCRIPT [ARGS...]"""
import os
import runpy
import sys
import tempfile

os.environ["TESSERA_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessera-noprefetch-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from tessera.backends import base  # noqa: E402

_orig = base.kernel_stages


def _stages(*args, **kwargs):
    return [(name, pipe.replace("ttg-pipeline{", "ttg-pipeline{register-prefetch=false "))
            for name, pipe in _orig(*args, **kwargs)]


base.kernel_stages = _stages
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
