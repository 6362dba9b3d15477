"""Memory-bound cases for profiling: impl, then case names (substrings of memory_bound.py's case
names). Launches each case 3 times (ncu: --launch-skip 2 per kernel) and writes the compiled
kernel's PTX / TTGIR / cubin to $OUT/<impl>_<kernel>[_<i>].{ptx,ttgir,cubin} where the
implementation returns them (every specialization, numbered from the second)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
import _loader  # noqa: E402
import memory_bound  # noqa: E402
import torch  # noqa: E402
from compiled import compiled_kernels  # noqa: E402

impl, wanted = sys.argv[1], sys.argv[2:]
out = os.environ.get("OUT", "/tmp/out")
m = _loader.load(impl, filename="memory_bound_kernels.py")
for case in memory_bound.gpu_cases():
    if not any(w == case.name for w in wanted):
        continue
    st = case.setup(torch, "cuda")
    o = st["alloc"]()
    for _ in range(3):
        st["launch"](m, o)
    torch.cuda.synchronize()
    assert st["check"](o) is None, case.name
for name in dir(m):
    for i, k in enumerate(compiled_kernels(getattr(m, name), impl)):
        for ext in ("ptx", "ttgir", "cubin"):
            try:
                data = k.asm[ext]
                with open(os.path.join(out, f"{impl}_{name}{'_%d' % i if i else ''}.{ext}"),
                          "wb" if isinstance(data, bytes) else "w") as f:
                    f.write(data)
            except Exception as e:  # noqa: BLE001
                print(impl, name, ext, type(e).__name__, e)
