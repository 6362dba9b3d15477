"""Every memory-bound case's compiled kernels under one implementation: argv[1] impl; writes
$OUT/<impl>/<case>.ptx (the kernels a case compiled, in order) and prints ptxas-free facts."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
import _loader  # noqa: E402
import memory_bound  # noqa: E402
import torch  # noqa: E402

impl = sys.argv[1]
out = os.path.join(os.environ.get("OUT", "/tmp/out"), impl)
os.makedirs(out, exist_ok=True)
m = _loader.load(impl, filename="memory_bound_kernels.py")


def kernels():
    ks = []
    for name in sorted(dir(m)):
        fn = getattr(m, name)
        cache = getattr(fn, "cache", None) or getattr(fn, "device_caches", None)
        if not cache:
            continue
        if impl == "triton":
            for dev in cache.values():
                ks += [(name, id(k), k) for k in dev[0].values()]
        else:
            ks += [(name, id(k), k) for k in cache.values()]
    return ks


seen = set()
for case in memory_bound.gpu_cases():
    st = case.setup(torch, "cuda")
    o = st["alloc"]()
    st["launch"](m, o)
    torch.cuda.synchronize()
    new = [(n, i, k) for n, i, k in kernels() if i not in seen]
    seen |= {i for _, i, _ in new}
    fname = re.sub(r"[^A-Za-z0-9_.=^-]+", "_", case.name)
    with open(os.path.join(out, fname + ".ptx"), "w") as f:
        for n, _, k in new:
            f.write(f"// ===== {n}\n" + k.asm["ptx"] + "\n")
    print(case.name, [n for n, _, _ in new])
