# Triton 3.6's pipelined sm80 TTGIR of the matmul (cp.async, 4 / 3 stages, ldmatrix, mma.sync)
# lowered by Tessera (target switched to cuda:90), run from its cubin, against Triton's own
# compile of the same kernel and Tessera's JIT of it, same inputs. After h200_run.sh --setup-only:
#   python3 tools/device/probes/sm80_ttgir_matmul.py   (writes $OUT/sm80_ttgir.json)
import json, os, subprocess, sys
import numpy as np
import torch, cupy as cp, triton
from triton.testing import do_bench
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
here = os.path.join(ROOT, "dist", "exp80")  # written by sm80_ttgir_prepare.py
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import _loader
S = 4096
a = torch.randn(S, S, device="cuda", dtype=torch.float16)
b = torch.randn(S, S, device="cuda", dtype=torch.float16)
ref = (a.float() @ b.float())
out = {}
mods = {impl: _loader.load(impl, None, os.path.join(here, "ref_kernels.py")) for impl in ("tessera", "triton")}
for name, bk, nw, ns in (("mm", 32, 4, 4), ("mm64", 64, 8, 3)):
    subprocess.run(["ptxas", "-arch=sm_90", f"{here}/{name}.ptx", "-o", f"{here}/{name}.cubin"], check=True)
    meta = json.load(open(f"{here}/{name}.json"))
    f = cp.RawModule(path=f"{here}/{name}.cubin").get_function("matmul_kernel")
    f.max_dynamic_shared_size_bytes = meta["shared"]
    c = torch.empty(S, S, device="cuda", dtype=torch.float16)
    grid = ((S // 128) * (S // 128),)
    args = (np.uint64(a.data_ptr()), np.uint64(b.data_ptr()), np.uint64(c.data_ptr()), np.int32(S), np.int32(S),
            np.int32(S), np.int32(S), np.int32(S), np.int32(S))
    launch = lambda: f(grid, (32 * nw,), args, shared_mem=meta["shared"])
    launch(); torch.cuda.synchronize()
    err = (c.float() - ref).abs().max().item()
    rec = {"tessera_from_triton_ttgir": {"max_err": err, "ms": do_bench(launch, rep=200, return_mode="median")}}
    for impl, m in mods.items():
        cc = torch.empty(S, S, device="cuda", dtype=torch.float16)
        l2 = lambda m=m, cc=cc: m.matmul_kernel[grid](a, b, cc, S, S, S, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                                      cc.stride(0), cc.stride(1), BM=128, BN=128, BK=bk, GM=8,
                                                      num_warps=nw, num_stages=ns)
        l2(); torch.cuda.synchronize()
        rec[impl + "_jit"] = {"max_err": (cc.float() - ref).abs().max().item(), "ms": do_bench(l2, rep=200, return_mode="median")}
    for k, v in rec.items():
        v["tflops"] = 2 * S ** 3 / (v["ms"] * 1e-3) / 1e12
    out[f"128x128x{bk} w{nw} s{ns}"] = rec
    print(name, json.dumps(rec), flush=True)
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "sm80_ttgir.json"), "w"), indent=1)
