"""Launches the memory-bound benchmark's cases once under Tessera and Triton and writes each
compiled kernel's stages (ttgir, llir, ptx) to $OUT/asm/<impl>/<case>.<stage>, to compare what
the two compilers make of the same source. Run after tools/device/h200_run.sh --setup-only:
    python3 tools/device/probes/dump_asm.py [--only SUBSTRING ...]
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import memory_bound as mb  # noqa: E402
import _loader  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    import torch
    out = os.path.join(os.environ.get("OUT", "/tmp/out"), "asm")
    mods = {impl: _loader.load(impl, filename="memory_bound_kernels.py") for impl in mb.IMPLS}
    for case in mb.gpu_cases():
        if args.only and not any(o in case.name for o in args.only):
            continue
        spec = case.setup(torch, "cuda")
        for impl, m in mods.items():
            o = spec["alloc"]()
            ret = spec["launch"](m, o)
            torch.cuda.synchronize()
            kernels = [ret] if ret is not None and hasattr(ret, "asm") else []
            if not kernels:  # find the compiled kernel through the module's jit functions
                for v in vars(m).values():
                    cache = getattr(v, "device_caches", None) or getattr(v, "cache", None)
                    if isinstance(cache, dict):
                        for c in cache.values():
                            vals = c[0].values() if isinstance(c, tuple) else (c.values() if isinstance(c, dict) else [])
                            kernels += [k for k in vals if hasattr(k, "asm")]
            name = re.sub(r"[^\w]+", "_", case.name)
            d = os.path.join(out, impl)
            os.makedirs(d, exist_ok=True)
            for i, k in enumerate(kernels[-1:]):
                for stage in ("ttgir", "llir", "ptx"):
                    if stage in k.asm:
                        with open(os.path.join(d, f"{name}.{stage}"), "w") as f:
                            f.write(k.asm[stage] if isinstance(k.asm[stage], str) else k.asm[stage].decode())
            print(impl, case.name, "kernels found:", len(kernels), flush=True)
        del spec
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
