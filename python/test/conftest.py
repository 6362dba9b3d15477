"""pytest configuration: import tessera from the source tree (python/) and mark GPU tests."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

CONFORMANCE = os.environ.get(
    "TESSERA_CONFORMANCE_DIR",
    os.path.normpath(os.path.join(os.path.dirname(ROOT), "..", "shared", "conformance")),
)


def pytest_configure(config):
    # Tests never read or write the user's kernel cache: a fresh one per session, unless the
    # caller chose one (TESSERA_CACHE_DIR) or turned it off.
    if "TESSERA_CACHE_DIR" not in os.environ:
        import tempfile
        os.environ["TESSERA_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessera_test_cache_")
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU (run on the H200)")
