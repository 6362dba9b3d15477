"""fp16 matmul at 4096^3 under Tessera and Triton (same source: benchmarks/matmul_kernels.py, program
ids in row-major order, and with --kernel grouped|both also grouped as in Triton's tutorial), for a
few tile configurations, same inputs, alternating do_bench medians.
    python3 benchmarks/matmul.py [--out results.json] [--rounds 3] [--kernel rowmajor|grouped|both]
                                 [--size S | --shape M,N,K]
--shape gives a matmul that is not square (e.g. K = 4095: rows of A not 16-byte aligned).
Needs a GPU and Triton (the reference and its do_bench)."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _loader  # noqa: E402

CONFIGS = [(128, 128, 32, 4, 4), (128, 128, 64, 8, 3), (128, 128, 32, 4, 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--shape", help="M,N,K (default: --size for all three)")
    ap.add_argument("--kernel", choices=("rowmajor", "grouped", "both"), default="rowmajor")
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench
    S = args.size
    M, N, K = (int(x) for x in args.shape.split(",")) if args.shape else (S, S, S)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    mods = {impl: _loader.load(impl, filename="matmul_kernels.py") for impl in ("tessera", "triton")}
    results = []
    kernels = ["rowmajor", "grouped"] if args.kernel == "both" else [args.kernel]
    for kernel, (bm, bn, bk, nw, ns) in [(k, c) for k in kernels for c in CONFIGS]:
        grid = (-(-M // bm) * -(-N // bn),)
        rec = {"kernel": kernel, "config": f"{bm}x{bn}x{bk} w{nw} s{ns}", "size": S, "shape": [M, N, K]}
        extra = {"GM": 8} if kernel == "grouped" else {}
        launches = {}
        for impl, m in mods.items():
            c = torch.empty(M, N, device="cuda", dtype=torch.float16)
            launches[impl] = (c, lambda m=m, c=c: getattr(m, "matmul_" + kernel)[grid](
                a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                BM=bm, BN=bn, BK=bk, num_warps=nw, num_stages=ns, **extra))
            launches[impl][1]()
            torch.cuda.synchronize()
            rec[impl + "_max_err"] = (c.float() - ref).abs().max().item()
        times = {impl: [] for impl in launches}
        for _ in range(args.rounds):
            for impl, (c, launch) in launches.items():
                times[impl].append(do_bench(launch, rep=100, return_mode="median"))
        for impl, ts in times.items():
            ms = sorted(ts)[len(ts) // 2]
            rec[impl + "_ms"] = ms
            rec[impl + "_tflops"] = 2 * M * N * K / (ms * 1e-3) / 1e12
        rec["tessera_over_triton"] = rec["tessera_tflops"] / rec["triton_tflops"]
        print(json.dumps(rec), flush=True)
        results.append(rec)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
