"""Which copy of 8192^2 fp16 gets closest to torch's copy_: descriptor copies in both program
orders, pointer copies with streaming hints, flat copies; Tessera and Triton, alternating rounds.
    python3 tools/device/probes/copy_probe.py [--out copy_probe.json]"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import torch
    import triton
    from triton.testing import do_bench
    from triton.tools.tensor_descriptor import TensorDescriptor as TritonDesc
    from tessera.tools.tensor_descriptor import TensorDescriptor as TesseraDesc
    import _loader
    import shutil
    # _loader reads benchmarks/<file>: copy the probe kernels there under a private name.
    shutil.copy(os.path.join(HERE, "copy_kernels.py"), os.path.join(ROOT, "benchmarks", "_probe_copy_kernels.py"))
    mods = {i: _loader.load(i, filename="_probe_copy_kernels.py") for i in ("tessera", "triton")}
    base = {i: _loader.load(i, filename="tma_kernels.py") for i in ("tessera", "triton")}
    descs = {"tessera": TesseraDesc, "triton": TritonDesc}
    M = N = 8192
    x = torch.randn(M, N, device="cuda", dtype=torch.float16)
    nbytes = 2 * x.numel() * 2
    cases, checks = {}, {}
    yt = torch.empty_like(x)
    cases["torch copy_"] = lambda: yt.copy_(x)
    for impl in ("tessera", "triton"):
        D = descs[impl]
        for BM, BN, W in ((64, 128, 4), (64, 256, 4), (32, 128, 1)):
            for order in ("rows_first", "cols_first"):
                y = torch.empty_like(x)
                dx, dy = D.from_tensor(x, [BM, BN]), D.from_tensor(y, [BM, BN])
                if order == "rows_first":
                    k, grid = base[impl].desc_copy, (M // BM, N // BN)
                else:
                    k, grid = base[impl].desc_copy_row_bands, (N // BN, M // BM)
                name = f"desc {order} {impl} {BM}x{BN} w{W}"
                cases[name] = (lambda k=k, grid=grid, dx=dx, dy=dy, BM=BM, BN=BN, W=W:
                               k[grid](dx, dy, BM=BM, BN=BN, num_warps=W))
                checks[name] = y
        y = torch.empty_like(x)
        cases[f"ptr hints {impl} 64x128 w4"] = (lambda k=mods[impl].ptr_copy_hints, y=y:
                                               k[(M // 64, N // 128)](x, y, M, N, N, BM=64, BN=128))
        checks[f"ptr hints {impl} 64x128 w4"] = y
        for B, W in ((4096, 4), (8192, 8), (16384, 8)):
            y = torch.empty_like(x)
            cases[f"flat {impl} {B} w{W}"] = (lambda k=mods[impl].flat_copy, y=y, B=B, W=W:
                                             k[(x.numel() // B,)](x, y, x.numel(), BLOCK=B, num_warps=W))
            checks[f"flat {impl} {B} w{W}"] = y
    records = []
    for n, fn in cases.items():
        fn()
    torch.cuda.synchronize()
    for n, y in checks.items():
        records.append({"kind": "check", "case": n, "ok": bool(torch.equal(y, x))})
    names = list(cases)
    per = {n: [] for n in names}
    for r in range(args.rounds):
        for n in (names if r % 2 == 0 else names[::-1]):
            per[n].append(do_bench(cases[n], warmup=25, rep=100, return_mode="median"))
    ms = {n: statistics.median(v) for n, v in per.items()}
    ceiling = nbytes / (ms["torch copy_"] * 1e-3) / 1e9
    for n, t in ms.items():
        gbs = nbytes / (t * 1e-3) / 1e9
        records.append({"kind": "copy", "case": n, "ms": t, "GB/s": gbs, "of_torch_copy": gbs / ceiling,
                        "rounds_ms": per[n]})
    for r in records:
        print(json.dumps(r), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(), "records": records}, f, indent=1)


if __name__ == "__main__":
    main()
