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
            if not hasattr(ret, "asm"):  # both launchers return the compiled kernel
                print(impl, case.name, "returned no compiled kernel", flush=True)
                continue
            name = re.sub(r"[^\w]+", "_", case.name)
            d = os.path.join(out, impl)
            os.makedirs(d, exist_ok=True)
            for stage in ("ttgir", "llir", "ptx"):
                if stage in ret.asm:
                    text = ret.asm[stage]
                    with open(os.path.join(d, f"{name}.{stage}"), "w") as f:
                        f.write(text if isinstance(text, str) else text.decode())
            print(impl, case.name, "written", flush=True)
        del spec
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
