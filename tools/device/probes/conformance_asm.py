"""Runs every conformance case once under Tessera and Triton and writes each compiled kernel's
PTX and SASS (cuobjdump of the cubin) to $OUT/casm/<impl>/<case>.{ptx,sass}, to compare what the
two compilers make of the small kernels. Run after tools/device/h200_run.sh --setup-only, with
dist/conformance present:
    python3 tools/device/probes/conformance_asm.py [--only CASE ...]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    conf = os.environ.get("TESSERA_CONFORMANCE_DIR", os.path.join(ROOT, "dist", "conformance"))
    sys.path.insert(0, conf)
    import runner
    import torch
    out = os.path.join(os.environ.get("OUT", "/tmp/out"), "casm")
    for impl in ("tessera", "triton"):
        mod = runner.load_kernels(impl)
        d = os.path.join(out, impl)
        os.makedirs(d, exist_ok=True)
        for name, make in mod.CASES.items():
            if args.only and name not in args.only:
                continue
            try:
                case = make(torch, "cuda")
                ret = case["launch"]()
                torch.cuda.synchronize()
            except Exception as e:  # one failure must not hide the rest
                print(impl, name, "failed:", e, flush=True)
                continue
            if not hasattr(ret, "asm"):
                print(impl, name, "returned no compiled kernel", flush=True)
                continue
            for stage in ("ttgir", "ptx"):
                if stage in ret.asm:
                    t = ret.asm[stage]
                    with open(os.path.join(d, f"{name}.{stage}"), "w") as f:
                        f.write(t if isinstance(t, str) else t.decode())
            cubin = ret.asm.get("cubin")
            if cubin:
                path = os.path.join(d, f"{name}.cubin")
                with open(path, "wb") as f:
                    f.write(cubin)
                sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True)
                with open(os.path.join(d, f"{name}.sass"), "w") as f:
                    f.write(sass.stdout or sass.stderr)
                os.remove(path)
            print(impl, name, "written", flush=True)


if __name__ == "__main__":
    main()
