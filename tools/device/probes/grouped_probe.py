"""The grouped matmul (benchmarks/matmul_kernels.py) at 4096^3 fp16 128x128x64 w8 s3 beside the
row-major one: registers and spills of each cubin (cuobjdump -res-usage), SASS to $OUT, and
do_bench medians for the grouped kernel with its default (version-capped) registers and with
explicit maxnreg values, Triton's grouped kernel beside. Run after h200_run.sh --setup-only."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import _loader  # noqa: E402
import torch  # noqa: E402
from triton.testing import do_bench  # noqa: E402

out = os.environ.get("OUT", "/tmp/out")
S = 4096
a = torch.randn(S, S, device="cuda", dtype=torch.float16)
b = torch.randn(S, S, device="cuda", dtype=torch.float16)
c = torch.empty(S, S, device="cuda", dtype=torch.float16)
ref = a.float() @ b.float()
mods = {impl: _loader.load(impl, filename="matmul_kernels.py") for impl in ("tessera", "triton")}
grid = ((S // 128) * (S // 128),)


def launch(impl, kernel, **extra):
    fn = getattr(mods[impl], "matmul_" + kernel)
    kw = dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3, **extra)
    if kernel == "grouped":
        kw["GM"] = 8
    return lambda: fn[grid](a, b, c, S, S, S, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), **kw)


variants = {"tessera_rowmajor": launch("tessera", "rowmajor"), "tessera_grouped": launch("tessera", "grouped"),
            "tessera_grouped_r128": launch("tessera", "grouped", maxnreg=128),
            "tessera_grouped_r168": launch("tessera", "grouped", maxnreg=168),
            "tessera_grouped_r255": launch("tessera", "grouped", maxnreg=255),
            "triton_grouped": launch("triton", "grouped"), "triton_rowmajor": launch("triton", "rowmajor")}
res = {}
for name, f in variants.items():
    k = f()
    torch.cuda.synchronize()
    res[name] = {"max_err": (c.float() - ref).abs().max().item()}
    if name.startswith("tessera"):
        cub = k.asm.get("cubin")
        res[name]["version_maxnreg"] = k.metadata.get("version_maxnreg")
        if cub:
            with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as t:
                t.write(cub)
            usage = subprocess.run(["cuobjdump", "-res-usage", t.name], capture_output=True, text=True).stdout
            res[name]["res_usage"] = " ".join(l.strip() for l in usage.splitlines() if "REG" in l)
            if name in ("tessera_grouped", "tessera_rowmajor"):
                sass = subprocess.run(["cuobjdump", "-sass", t.name], capture_output=True, text=True).stdout
                open(os.path.join(out, name + ".sass"), "w").write(sass)
                res[name]["spill_instrs"] = sum(1 for l in sass.splitlines() if " STL" in l or " LDL" in l)
times = {n: [] for n in variants}
for _ in range(3):
    for n, f in variants.items():
        times[n].append(do_bench(f, rep=100, return_mode="median"))
for n in variants:
    ms = sorted(times[n])[1]
    res[n]["ms"] = ms
    res[n]["tflops"] = 2 * S ** 3 / (ms * 1e-3) / 1e12
print(json.dumps(res, indent=1))
json.dump(res, open(os.path.join(out, "grouped_probe.json"), "w"), indent=1)
