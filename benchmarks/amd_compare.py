"""Compile-only comparison on an AMD target (issue 15): every conformance kernel compiled for
hip:gfx942 by Tessera and by Triton 3.6 (whose wheel carries the AMD backend and compiles for AMD
targets without an AMD GPU), and their AMDGCN side by side: instructions, VGPRs, SGPRs, LDS,
scratch.

    python3 benchmarks/amd_compare.py --impl tessera --out tessera.json   # here (CPU)
    python3 benchmarks/amd_compare.py --impl triton --out triton.json     # where Triton is
    python3 benchmarks/amd_compare.py --merge tessera.json triton.json    # the table

Each kernel is compiled for the launches the conformance case makes (its arguments specialize
it as a launch would), on CPU tensors for Tessera and on the GPU machine's tensors for Triton
(whose specialization reads the arguments the same way). Counts come from the assembly's
`.amdhsa_*` directives and its instruction lines (tessera.backends.amd.kernel_resources, the
same parser for both); `shared` is the shared memory (LDS) each compiler allocates for the kernel
(Tessera: static LDS in the code object; Triton: dynamic LDS, from its metadata).
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
CONFORMANCE = os.environ.get("TESSERA_CONFORMANCE_DIR", os.path.join(ROOT, "..", "shared", "conformance"))

_DIRECTIVES = {"kernarg_size": r"\.amdhsa_kernarg_size\s+(\d+)",
               "lds": r"\.amdhsa_group_segment_fixed_size\s+(\d+)",
               "scratch": r"\.amdhsa_private_segment_fixed_size\s+(\d+)",
               "vgprs": r"\.amdhsa_next_free_vgpr\s+(\d+)",
               "sgprs": r"\.amdhsa_next_free_sgpr\s+(\d+)"}


def resources(amdgcn):
    """As tessera.backends.amd.kernel_resources (kept here so that the script runs without
    Tessera on the Triton side)."""
    out = {k: int(m.group(1)) for k, p in _DIRECTIVES.items() if (m := re.search(p, amdgcn))}
    out["instructions"] = sum(1 for line in amdgcn.splitlines()
                              if (t := line.strip()) and not t.startswith((".", ";", "//")) and not t.endswith(":"))
    return out


def run_cases(impl, compile_launch):
    """Runs every conformance case with kernel[grid](...) replaced by compile_launch(fn, args,
    kwargs) -> amdgcn text; returns {kernel: resources or {"error": ...}}."""
    sys.path.insert(0, CONFORMANCE)
    import runner
    import torch
    dev = "cuda" if impl == "triton" and torch.cuda.is_available() else "cpu"
    mod = runner.load_kernels(impl)
    out = {}
    for name, make in mod.CASES.items():
        torch.manual_seed(0)
        case = make(torch, dev)
        try:
            case["launch"]()
        except Exception as e:  # noqa: BLE001 -- one case must not hide the others
            out.setdefault(name, {"error": f"{type(e).__name__}: {e}"[:300]})
    return compile_launch.results or out


class _Collector:
    def __init__(self, compile_fn):
        self.compile_fn = compile_fn
        self.results = {}

    def __call__(self, fn, args, kwargs):
        name = fn.__name__
        try:
            amdgcn, shared = self.compile_fn(fn, args, kwargs)
            self.results[name] = dict(resources(amdgcn), shared=shared)
        except Exception as e:  # noqa: BLE001
            self.results[name] = {"error": f"{type(e).__name__}: {e}"[:300]}


def tessera_side(arch):
    from tessera.compiler import compiler
    from tessera.runtime import specialize
    from tessera.runtime.jit import JITFunction

    def compile_fn(fn, args, kwargs):
        num_warps = kwargs.pop("num_warps", 4)
        kwargs.pop("num_stages", None)
        types, consts, attrs, _ = specialize.specialize(fn, fn.bind(args, kwargs))
        ttir, _ = compiler.make_ttir(fn, types, consts, attrs)
        asm, meta = compiler.compile_ttir(ttir, fn.__name__, f"hip:{arch}", {"num_warps": num_warps})
        return asm["amdgcn"], meta["shared"]
    col = _Collector(compile_fn)
    JITFunction.__getitem__ = lambda self, grid: (lambda *a, **k: col(self, a, dict(k)))
    return run_cases("tessera", col)


def triton_side(arch):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.runtime.jit import JITFunction
    triton.runtime.driver.active.get_current_target = lambda: GPUTarget("hip", arch, 64)

    def compile_fn(fn, args, kwargs):
        k = fn.warmup(*args, grid=(1,), **kwargs)
        return k.asm["amdgcn"], k.metadata.shared
    col = _Collector(compile_fn)
    JITFunction.__getitem__ = lambda self, grid: (lambda *a, **k: col(self, a, dict(k)))
    return run_cases("triton", col)


def merge(paths):
    sides = [json.load(open(p)) for p in paths]
    names = sorted(set().union(*[s["kernels"] for s in sides]))
    keys = ["instructions", "vgprs", "sgprs", "shared", "scratch"]
    head = "| kernel | " + " | ".join(f"{k} (Tessera / Triton)" for k in keys) + " | instructions ratio |"
    lines = [head, "|" + "---|" * (len(keys) + 2)]
    for n in names:
        a, b = (s["kernels"].get(n, {"error": "absent"}) for s in sides)
        if "error" in a or "error" in b:
            def cell(x, k):
                return "error" if "error" in x else str(x.get(k, "-"))
            why = "; ".join(f"{side}: {x['error'].splitlines()[0][:80]} ... {x['error'].splitlines()[-1][:120]}"
                            for side, x in (("Tessera", a), ("Triton", b)) if "error" in x)
            lines.append(f"| {n} | " + " | ".join(f"{cell(a, k)} / {cell(b, k)}" for k in keys) + f" | {why} |")
            continue
        cells = [f"{a.get(k, '-')} / {b.get(k, '-')}" for k in keys]
        ratio = a["instructions"] / max(1, b["instructions"])
        lines.append(f"| {n} | " + " | ".join(cells) + f" | {ratio:.2f}{' **>1.5**' if ratio > 1.5 else ''} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=["tessera", "triton"])
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--out")
    ap.add_argument("--merge", nargs=2)
    args = ap.parse_args()
    if args.merge:
        print(merge(args.merge))
        return
    kernels = tessera_side(args.arch) if args.impl == "tessera" else triton_side(args.arch)
    rec = {"impl": args.impl, "target": f"hip:{args.arch}", "kernels": kernels}
    if args.impl == "triton":
        import triton
        rec["triton"] = triton.__version__
    text = json.dumps(rec, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
