"""Attention forward (benchmarks/attention_kernels.py, the same source for both compilers) under
Tessera and Triton: each configuration of CONFIGS at each shape, same inputs, checked against
PyTorch's scaled_dot_product_attention, do_bench medians in alternating rounds; each side's best
configuration and the ratio of the bests (issue 13: B4 H32 N4096 D64 and B2 H16 N8192 D128).
    python3 benchmarks/attention.py [--out f.json] [--rounds 3]
Needs a GPU and Triton."""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _best  # noqa: E402
import _loader  # noqa: E402

SHAPES = [(4, 32, 4096, 64), (2, 16, 8192, 128)]
# (BM, BN, num_warps, num_stages)
CONFIGS = [(128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3), (64, 64, 4, 3), (128, 64, 8, 2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench
    mods = {impl: _loader.load(impl, filename="attention_kernels.py") for impl in ("tessera", "triton")}
    results = []
    for B, H, N, D in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(N + D)
        q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        qk_scale = 1.0 / math.sqrt(D) * 1.4426950408889634
        flops = 4 * B * H * N * N * D
        launches = {}
        for cfg in CONFIGS:
            bm, bn, nw, ns = cfg
            grid = ((N + bm - 1) // bm, B * H)
            for impl, m in mods.items():
                o = torch.full_like(q, float("nan"))
                fn = (lambda m=m, o=o, bm=bm, bn=bn, nw=nw, ns=ns, grid=grid: m.attention_fwd[grid](
                    q, k, v, o, qk_scale, N, N * D, D, D=D, BM=bm, BN=bn, num_warps=nw, num_stages=ns))
                rec = {"impl": impl, "shape": f"B{B} H{H} N{N} D{D}", "config": "%dx%d w%d s%d" % cfg}
                try:
                    t0 = time.time()
                    fn()
                    torch.cuda.synchronize()
                    rec["first_call_s"] = time.time() - t0
                except Exception as e:  # noqa: BLE001 - a config one side cannot run is recorded
                    rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                    results.append(rec)
                    print(json.dumps(rec), flush=True)
                    continue
                err = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
                rec["rel_err"] = err
                rec["ok"] = bool(err < 1e-2)
                launches[(impl, cfg)] = (rec, fn)
        records, summary = _best.time_and_pick_best(launches, args.rounds, flops, do_bench, 100,
                                                    {"shape": f"B{B} H{H} N{N} D{D}"})
        results += records + [summary]
        del q, k, v, ref
        torch.cuda.empty_cache()
    _best.save_and_print(results, args.out, _loader.build_commit(), torch.cuda.get_device_name(),
                         lambda r: r["shape"])

if __name__ == "__main__":
    main()
