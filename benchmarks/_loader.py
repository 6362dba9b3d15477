"""Loads a kernels module (launch_kernels.py unless told otherwise) for one implementation from a
fixed path (so that a later process finds the same file, and so the same cache entries). The file
is written against triton; for another implementation its `import triton` lines are rewritten."""
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(impl, directory=None, filename="launch_kernels.py"):
    """The module `filename` (in benchmarks/) as `impl` ("triton", or e.g. "tessera") sees it."""
    with open(os.path.join(HERE, filename)) as f:
        src = f.read()
    if impl != "triton":
        src = src.replace("import triton.language as tl", f"import {impl}.language as tl")
        src = src.replace("import triton\n", f"import {impl} as triton\n")
    d = directory or os.path.join(tempfile.gettempdir(), "tessera_bench_kernels")
    os.makedirs(d, exist_ok=True)
    name = f"{os.path.splitext(os.path.basename(filename))[0]}_{impl}"
    path = os.path.join(d, name + ".py")
    if not os.path.exists(path) or open(path).read() != src:
        with open(path, "w") as f:
            f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def build_commit():
    """The commit of the Tessera build being measured: on the GPU machine the tree is a copy whose
    git metadata may be stale, so the packed build's dist/COMMIT (tools/device/pack.sh) comes
    first, else the checkout's HEAD, else None."""
    root = os.path.dirname(HERE)
    packed = os.path.join(root, "dist", "COMMIT")
    if os.path.exists(packed):
        with open(packed, encoding="utf-8") as f:
            return f.read().strip() or None
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001
        return None
