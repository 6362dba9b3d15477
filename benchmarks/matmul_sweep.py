"""Matmul under Tessera and Triton at several sizes and dtypes (issue 13's table): for each
(dtype, size), every configuration of CONFIGS under both compilers on the same inputs (same source:
benchmarks/matmul_kernels.py), do_bench medians in alternating rounds; each side's best
configuration and the ratio of the bests. With --sm80, Tessera's cuda:80 code path
(TESSERA_CUDA_ARCH=80: mma.sync + cp.async + ldmatrix) is timed beside it.
    python3 benchmarks/matmul_sweep.py [--sizes 1024 4096 8192] [--dtypes fp16 bf16] [--out f.json]
        [--timer event|cudagraph] [--rounds N] [--sm80]
Needs a GPU and Triton (the reference and its do_bench)."""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _best  # noqa: E402
import _loader  # noqa: E402

# (BM, BN, BK, num_warps, num_stages)
CONFIGS = [(128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (128, 128, 32, 4, 4), (64, 128, 64, 4, 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096, 8192])
    ap.add_argument("--dtypes", nargs="+", default=["fp16", "bf16"])
    ap.add_argument("--sm80", action="store_true")
    ap.add_argument("--timer", choices=["event", "cudagraph"], default="event",
                    help="event: do_bench (launches from Python, host cost included where it exceeds "
                         "the kernel's); cudagraph: do_bench_cudagraph (the launches replayed from a "
                         "CUDA graph: the kernels' own time, for sizes where launching dominates)")
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench, do_bench_cudagraph
    if args.timer == "cudagraph":
        do_bench = do_bench_cudagraph  # noqa: F811 - same call shape (fn, rep=, return_mode=)
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16}
    mods = {impl: _loader.load(impl, filename="matmul_kernels.py") for impl in ("tessera", "triton")}
    if args.sm80:
        # A second copy of the module: its own JIT functions (and caches), compiled for cuda:80.
        mods["tessera_sm80"] = _loader.load("tessera", filename="matmul_kernels.py",
                                            directory=os.path.join(HERE, ".sm80_kernels"))
    results = []
    for dname in args.dtypes:
        for S in args.sizes:
            g = torch.Generator(device="cuda").manual_seed(S)
            a = torch.randn(S, S, device="cuda", dtype=dtypes[dname], generator=g)
            b = torch.randn(S, S, device="cuda", dtype=dtypes[dname], generator=g)
            ref = a.float() @ b.float()
            launches = {}
            for cfg in CONFIGS:
                bm, bn, bk, nw, ns = cfg
                grid = (triton_cdiv(S, bm) * triton_cdiv(S, bn),)
                for impl, m in mods.items():
                    c = torch.full((S, S), float("nan"), device="cuda", dtype=dtypes[dname])
                    fn = (lambda m=m, c=c, bm=bm, bn=bn, bk=bk, nw=nw, ns=ns, grid=grid: m.matmul_rowmajor[grid](
                        a, b, c, S, S, S, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BM=bm, BN=bn, BK=bk, num_warps=nw, num_stages=ns))
                    rec = {"impl": impl, "dtype": dname, "size": S, "config": "%dx%dx%d w%d s%d" % cfg}
                    try:
                        if impl == "tessera_sm80":
                            os.environ["TESSERA_CUDA_ARCH"] = "80"
                        t0 = time.time()
                        fn()
                        torch.cuda.synchronize()
                        rec["first_call_s"] = time.time() - t0
                    except Exception as e:  # noqa: BLE001 - a config one side cannot run is recorded
                        rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                        results.append(rec)
                        continue
                    finally:
                        os.environ.pop("TESSERA_CUDA_ARCH", None)
                    err = ((c.float() - ref).norm() / ref.norm()).item()
                    rec["rel_err"] = err
                    rec["ok"] = bool(err < 1e-2)
                    launches[(impl, cfg)] = (rec, fn)
            records, summary = _best.time_and_pick_best(launches, args.rounds, 2 * S ** 3, do_bench, 60,
                                                        {"dtype": dname, "size": S, "timer": args.timer})
            results += records + [summary]
            del a, b, ref
            torch.cuda.empty_cache()
    _best.save_and_print(results, args.out, _loader.build_commit(), torch.cuda.get_device_name(),
                         lambda r: f"{r['dtype']} {r['size']}")

def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main()
