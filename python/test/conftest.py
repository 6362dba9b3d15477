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
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU (run on the H200)")
