"""Memory-bound kernels, Tessera vs Triton (issue 12): vector add, row softmax, layer norm, RMSNorm,
cross-entropy loss, 2-D transpose and strided copy, at sizes that stream through DRAM.

    python3 benchmarks/memory_bound.py [--out results.json] [--quick] [--only SUBSTRING[,SUBSTRING...]] [--rounds 3]
    python3 benchmarks/memory_bound.py --interpret     # CPU only: the kernels under Tessera's interpreter

The kernels are written once against triton.language (benchmarks/memory_bound_kernels.py) and
loaded twice by benchmarks/_loader.py: as written for Triton, and with their imports pointed at
tessera. Each case creates its inputs once (the same tensors for both implementations), launches
each implementation once (first_call_s: compilation or cache load included), checks the result
against PyTorch, then times both with triton.testing.do_bench(warmup=25, rep=100, median) in
--rounds rounds that alternate the implementations (tessera, triton | triton, tessera | ...) so
that clock drift favours neither; an implementation's ms is the median of its round medians.
GB/s counts the bytes a kernel must move through DRAM (reads + writes; for the strided copy, the
whole 32-byte sectors its loads touch). ratio = triton_ms / tessera_ms (>= 1: Tessera at least
as fast), given when both results are correct.

Output: one JSON line per record as it goes ({"kind": "impl"} per case and implementation,
{"kind": "case"} with the ratio per case), a table at the end, all records in --out.
Needs a GPU, PyTorch and Triton; --interpret needs only PyTorch (CPU) and numpy.
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
IMPLS = ("tessera", "triton")


def next_pow2(n):
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def cdiv(a, b):
    return (a + b - 1) // b


def pow2_name(n):
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def softmax_warps(block):
    """num_warps as Triton's softmax tutorial chooses it."""
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


def norm_block_warps(n, elt_size):
    """BLOCK_SIZE and num_warps as Triton's layer-norm tutorial chooses them."""
    block = min(65536 // elt_size, next_pow2(n))
    return block, min(max(block // 256, 1), 8)


class Case:
    """One benchmark case. setup(torch, device) returns a dict: "alloc" () -> the outputs of one
    implementation (NaN-filled), "launch" (module, outputs) -> None, "check" (outputs) -> None or
    a string saying what is wrong, "bytes"."""

    def __init__(self, name, family, size, setup):
        self.name, self.family, self.size, self.setup = name, family, size, setup


def _dtype(torch, name):
    return {"fp32": torch.float32, "fp16": torch.float16}[name]


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _randn(torch, shape, dtype, device, scale=1.0, shift=0.0):
    # Generated in fp32 (CPU torch has no fp16 randn everywhere), then cast.
    return (torch.randn(_shape(shape), device=device) * scale + shift).to(dtype)


def _nan_like(torch, shape, dtype, device):
    return torch.full(_shape(shape), float("nan"), dtype=dtype, device=device)


def _close(torch, what, got, ref, atol, rtol):
    got, ref = got.float(), ref.float()
    if torch.allclose(got, ref, atol=atol, rtol=rtol):
        return None
    err = (got - ref).abs()
    err = torch.where(torch.isnan(err), torch.full_like(err, float("inf")), err)
    i = int(err.argmax())
    return (f"{what}: max |err| {float(err.flatten()[i]):.3g} at flat index {i} "
            f"(got {float(got.flatten()[i]):.6g}, want {float(ref.flatten()[i]):.6g}; atol {atol}, rtol {rtol})")


def _equal(torch, what, got, ref):
    if torch.equal(got.float(), ref.float()):
        return None
    bad = (got.float() != ref.float()).flatten().nonzero()
    return f"{what}: {bad.numel()} elements differ, first at flat index {int(bad[0])}"


# ---------------------------------------------------------------------------------------------
# Cases


def add_case(dt, n, BLOCK=1024):
    def setup(torch, dev):
        dtype = _dtype(torch, dt)
        x = _randn(torch, n, dtype, dev)
        y = _randn(torch, n, dtype, dev)
        ref = (x.float() + y.float()).to(dtype)
        tol = (1e-6, 1e-6) if dt == "fp32" else (1e-3, 1e-3)
        return {
            "alloc": lambda: [_nan_like(torch, n, dtype, dev)],
            "launch": lambda m, o: m.add_kernel[(cdiv(n, BLOCK),)](x, y, o[0], n, BLOCK=BLOCK),
            "check": lambda o: _close(torch, "z", o[0], ref, *tol),
            "bytes": 3 * n * x.element_size(),
        }
    return Case(f"add {dt} n={pow2_name(n)}", f"add {dt}", n, setup)


def softmax_case(M, N):
    def setup(torch, dev):
        x = torch.randn(M, N, device=dev)
        ref = torch.softmax(x, dim=1)
        BLOCK = next_pow2(N)
        nw = softmax_warps(BLOCK)
        return {
            "alloc": lambda: [_nan_like(torch, (M, N), torch.float32, dev)],
            "launch": lambda m, o: m.softmax_kernel[(M,)](o[0], x, x.stride(0), o[0].stride(0), N, BLOCK=BLOCK,
                                                           num_warps=nw),
            "check": lambda o: _close(torch, "softmax", o[0], ref, 1e-6, 1e-4),
            "bytes": 2 * M * N * 4,
        }
    return Case(f"softmax fp32 {M}x{N}", "softmax fp32", M * N, setup)


def layer_norm_case(M, N, block=None, eps=1e-5):
    def setup(torch, dev):
        dt = torch.float16
        x = _randn(torch, (M, N), dt, dev, scale=2.0, shift=0.5)
        w = _randn(torch, N, dt, dev, scale=0.5, shift=1.0)
        b = _randn(torch, N, dt, dev, scale=0.5)
        xf = x.float()
        mean = xf.mean(dim=1)
        rstd = 1 / torch.sqrt(xf.var(dim=1, unbiased=False) + eps)
        ref = ((xf - mean[:, None]) * rstd[:, None] * w.float() + b.float()).to(dt)
        BLOCK, nw = norm_block_warps(N, x.element_size())
        if block is not None:
            BLOCK = block

        def check(o):
            return (_close(torch, "y", o[0], ref, 1e-2, 1e-2) or _close(torch, "mean", o[1], mean, 1e-4, 1e-3)
                    or _close(torch, "rstd", o[2], rstd, 1e-4, 1e-3))
        return {
            "alloc": lambda: [_nan_like(torch, (M, N), dt, dev), _nan_like(torch, M, torch.float32, dev),
                              _nan_like(torch, M, torch.float32, dev)],
            "launch": lambda m, o: m.layer_norm_fwd_kernel[(M,)](x, o[0], w, b, o[1], o[2], x.stride(0), N, eps,
                                                                  BLOCK_SIZE=BLOCK, num_warps=nw),
            "check": check,
            "bytes": 2 * M * N * 2 + 2 * N * 2 + 2 * M * 4,
        }
    return Case(f"layer_norm fp16 {M}x{N}", "layer_norm fp16", M * N, setup)


def rms_norm_case(M, N, eps=1e-6):
    def setup(torch, dev):
        dt = torch.float16
        x = _randn(torch, (M, N), dt, dev, scale=2.0)
        w = _randn(torch, N, dt, dev, scale=0.5, shift=1.0)
        xf = x.float()
        ref = (xf / torch.sqrt((xf * xf).mean(dim=1, keepdim=True) + eps) * w.float()).to(dt)
        BLOCK = next_pow2(N)
        _, nw = norm_block_warps(N, x.element_size())
        return {
            "alloc": lambda: [_nan_like(torch, (M, N), dt, dev)],
            "launch": lambda m, o: m.rms_norm_fwd_kernel[(M,)](x, o[0], w, x.stride(0), N, eps, BLOCK=BLOCK,
                                                                num_warps=nw),
            "check": lambda o: _close(torch, "y", o[0], ref, 1e-2, 1e-2),
            "bytes": 2 * M * N * 2 + N * 2,
        }
    return Case(f"rms_norm fp16 {M}x{N}", "rms_norm fp16", M * N, setup)


def cross_entropy_case(M, V, block=None):
    def setup(torch, dev):
        logits = torch.randn(M, V, device=dev) * 3
        labels = torch.randint(0, V, (M,), device=dev, dtype=torch.int64)
        ref = torch.nn.functional.cross_entropy(logits, labels, reduction="none")
        BLOCK = block or min(next_pow2(V), 16384)
        nw = softmax_warps(BLOCK)
        return {
            "alloc": lambda: [_nan_like(torch, M, torch.float32, dev)],
            "launch": lambda m, o: m.cross_entropy_fwd_kernel[(M,)](logits, labels, o[0], logits.stride(0), V,
                                                                     BLOCK=BLOCK, num_warps=nw),
            "check": lambda o: _close(torch, "loss", o[0], ref, 1e-4, 1e-4),
            "bytes": M * V * 4 + M * 8 + M * 4,
        }
    return Case(f"cross_entropy fp32 {M}x{V}", "cross_entropy fp32", M * V, setup)


def transpose_case(dt, M, N, BM=64, BN=64):
    def setup(torch, dev):
        dtype = _dtype(torch, dt)
        x = _randn(torch, (M, N), dtype, dev)
        ref = x.t().contiguous()
        grid = (cdiv(M, BM), cdiv(N, BN))
        return {
            "alloc": lambda: [_nan_like(torch, (N, M), dtype, dev)],
            "launch": lambda m, o: m.transpose_kernel[grid](x, o[0], M, N, x.stride(0), x.stride(1), o[0].stride(0),
                                                             o[0].stride(1), BM=BM, BN=BN),
            "check": lambda o: _equal(torch, "out", o[0], ref),
            "bytes": 2 * M * N * x.element_size(),
        }
    return Case(f"transpose {dt} {M}x{N}", f"transpose {dt}", M * N, setup)


def strided_case(n, stride, BLOCK=1024):
    def setup(torch, dev):
        x = torch.randn(n * stride, device=dev)
        ref = x[::stride].contiguous()
        elt = x.element_size()
        # DRAM moves 32-byte sectors: every sector is read while stride * elt <= 32.
        read = n * stride * elt if stride * elt <= 32 else n * 32
        return {
            "alloc": lambda: [_nan_like(torch, n, torch.float32, dev)],
            "launch": lambda m, o: m.strided_copy_kernel[(cdiv(n, BLOCK),)](x, o[0], n, stride, BLOCK=BLOCK),
            "check": lambda o: _equal(torch, "out", o[0], ref),
            "bytes": read + n * elt,
        }
    return Case(f"strided_copy fp32 n={pow2_name(n)} stride={stride}", "strided_copy fp32", n, setup)


def gpu_cases():
    cs = []
    for dt in ("fp32", "fp16"):
        for e in (20, 24, 28):
            cs.append(add_case(dt, 1 << e))
    cs += [softmax_case(4096, N) for N in (1024, 4096, 16384)]
    cs += [layer_norm_case(4096, N) for N in (1024, 8192)]
    cs += [rms_norm_case(4096, N) for N in (1024, 8192)]
    cs += [cross_entropy_case(4096, V) for V in (8192, 32768)]
    cs += [transpose_case(dt, 8192, 8192) for dt in ("fp32", "fp16")]
    cs += [strided_case(1 << 24, s) for s in (2, 3)]
    return cs


def interpret_cases():
    """Small shapes for the CPU interpreter; odd sizes so that every mask matters, and blocks
    smaller than the rows where a kernel loops over chunks."""
    return [
        add_case("fp32", 1000, BLOCK=256), add_case("fp16", 1000, BLOCK=256), add_case("fp32", 3000),
        softmax_case(5, 100), softmax_case(3, 300), softmax_case(2, 3000),
        layer_norm_case(4, 300, block=128), layer_norm_case(3, 64),
        rms_norm_case(4, 300), rms_norm_case(3, 64),
        cross_entropy_case(4, 1000, block=256), cross_entropy_case(3, 100), cross_entropy_case(2, 20000),
        transpose_case("fp32", 100, 70, BM=32, BN=32), transpose_case("fp16", 40, 72, BM=32, BN=32),
        strided_case(1000, 2, BLOCK=256), strided_case(1000, 3, BLOCK=256),
    ]


def select(cases, quick, only):
    if only:
        wanted = [w.strip().lower() for w in only.split(",") if w.strip()]
        cases = [c for c in cases if any(w in c.name.lower() for w in wanted)]
    if quick:
        smallest = {}
        for c in cases:
            smallest[c.family] = min(smallest.get(c.family, c.size), c.size)
        cases = [c for c in cases if c.size == smallest[c.family]]
    return cases


def _why(e):
    return f"{type(e).__name__}: {e}"[:600]


def emit(results, rec):
    print(json.dumps(rec), flush=True)
    results.append(rec)


# ---------------------------------------------------------------------------------------------
# CPU: the kernels under Tessera's interpreter


def run_interpret(args):
    os.environ["TESSERA_INTERPRET"] = "1"  # before tessera is imported
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, HERE)
    import torch
    import _loader
    torch.manual_seed(0)
    m = _loader.load("tessera", filename="memory_bound_kernels.py")
    results, t_all = [], time.perf_counter()
    for case in select(interpret_cases(), args.quick, args.only):
        rec = {"kind": "interpret", "case": case.name, "impl": "tessera"}
        try:
            st = case.setup(torch, "cpu")
            outs = st["alloc"]()
            t0 = time.perf_counter()
            st["launch"](m, outs)
            rec["s"] = round(time.perf_counter() - t0, 3)
            why = st["check"](outs)
            rec["ok"] = why is None
            if why:
                rec["why"] = why
        except Exception as e:  # one failure must not hide the others
            rec["ok"] = False
            rec["why"] = _why(e)
        emit(results, rec)
    n_ok = sum(r["ok"] for r in results)
    print(f"interpreter: {n_ok}/{len(results)} kernels correct in {time.perf_counter() - t_all:.1f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if n_ok == len(results) else 1


# ---------------------------------------------------------------------------------------------
# GPU: Tessera vs Triton


def bench_case(torch, do_bench, case, mods, load_why, rounds, device="cuda", outputs="shared"):
    """The records of one case: one per implementation, then the case's (the ratio). Each
    implementation's first call writes outputs of its own, which are checked; the timed calls then
    write the same buffers for every implementation (outputs="shared": the first checked
    implementation's, so that where the buffers lie in memory cannot favour one of them) or each
    its own (outputs="own")."""
    recs = {impl: {"kind": "impl", "case": case.name, "impl": impl, "ok": False} for impl in IMPLS}
    torch.manual_seed(0)
    try:
        st = case.setup(torch, device)
        torch.cuda.synchronize()
    except Exception as e:  # e.g. out of memory
        st = None
        for r in recs.values():
            r["why"] = f"setup: {_why(e)}"
    outs, live = {}, []
    for impl in IMPLS if st is not None else ():
        r = recs[impl]
        if impl not in mods:
            r["why"] = load_why.get(impl, "not loaded")
            continue
        try:
            outs[impl] = st["alloc"]()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            st["launch"](mods[impl], outs[impl])
            torch.cuda.synchronize()
            r["first_call_s"] = round(time.perf_counter() - t0, 4)
            why = st["check"](outs[impl])
            r["ok"] = why is None
            if why:
                r["why"] = why
            live.append(impl)
        except Exception as e:  # one failure must not hide the others
            r["why"] = _why(e)
    times = {impl: [] for impl in live}
    for k in range(rounds):  # tessera, triton | triton, tessera | ...
        for impl in (live if k % 2 == 0 else live[::-1]):
            if impl not in times:
                continue
            try:
                o = outs[live[0]] if outputs == "shared" else outs[impl]
                fn = lambda m=mods[impl], o=o: st["launch"](m, o)  # noqa: E731
                times[impl].append(do_bench(fn, rep=100, return_mode="median"))
            except Exception as e:
                recs[impl]["ok"] = False
                recs[impl]["why"] = f"timing: {_why(e)}"
                del times[impl]
    for impl, ms_list in times.items():
        r = recs[impl]
        r["round_ms"] = [round(x, 5) for x in ms_list]
        r["ms"] = statistics.median(ms_list)
        r["bytes"] = st["bytes"]
        r["gbps"] = round(st["bytes"] / (r["ms"] * 1e-3) / 1e9, 1)
    te, tr = recs["tessera"], recs["triton"]
    crec = {"kind": "case", "case": case.name, "tessera_ok": te["ok"], "triton_ok": tr["ok"],
            "tessera_ms": te.get("ms"), "triton_ms": tr.get("ms"), "ratio": None}
    if te["ok"] and tr["ok"] and te.get("ms") and tr.get("ms"):
        crec["ratio"] = round(tr["ms"] / te["ms"], 4)
    return [recs[impl] for impl in IMPLS] + [crec]


def run_gpu(args):
    import torch
    sys.path.insert(0, HERE)
    import _loader
    try:
        from triton.testing import do_bench, do_bench_cudagraph
    except ImportError:  # Triton missing: Tessera's copy of do_bench still times Tessera
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from tessera.testing import do_bench
        do_bench_cudagraph = None
    if args.timer == "cudagraph":
        if do_bench_cudagraph is None:
            raise SystemExit("--timer cudagraph needs triton.testing.do_bench_cudagraph")
        do_bench = do_bench_cudagraph  # noqa: F811 - the kernels' own time, replayed from a CUDA graph
    results = []
    env = {"kind": "env", "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "tessera_commit": _loader.build_commit(), "rounds": args.rounds, "timer": args.timer,
           "outputs": args.outputs}
    mods, load_why = {}, {}
    for impl in IMPLS:
        try:
            if impl == "tessera":
                sys.path.insert(0, os.path.join(ROOT, "python"))
            mods[impl] = _loader.load(impl, filename="memory_bound_kernels.py")
            env[impl] = getattr(sys.modules.get(impl), "__version__", None)
        except Exception as e:  # noqa: BLE001
            load_why[impl] = env[f"{impl}_why"] = _why(e)
    emit(results, env)
    t_all = time.perf_counter()
    for case in select(gpu_cases(), args.quick, args.only):
        for rec in bench_case(torch, do_bench, case, mods, load_why, args.rounds, outputs=args.outputs):
            emit(results, rec)
        # Free this case's tensors before the next one (2^28 fp32 add holds ~5 GiB).
        gc.collect()
        torch.cuda.empty_cache()
    print_table(results, time.perf_counter() - t_all)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def print_table(results, total_s):
    impl = {(r["case"], r["impl"]): r for r in results if r.get("kind") == "impl"}
    cases = [r for r in results if r.get("kind") == "case"]

    def cell(r):  # "wrong": ran and was timed, but its result differs from PyTorch's
        first = r.get("first_call_s", float("nan"))
        if "ms" not in r:
            return f"{'FAIL':>6} {'-':>9} {'-':>7} {first:>7.2f}"
        return f"{'ok' if r.get('ok') else 'wrong':>6} {r['ms']:>9.4f} {r['gbps']:>7.0f} {first:>7.2f}"
    print()
    print(f"{'case':<38} | {'tessera':>6} {'ms':>9} {'GB/s':>7} {'1st s':>7} | {'triton':>6} {'ms':>9} {'GB/s':>7} "
          f"{'1st s':>7} | {'tri/tes':>7}")
    for c in cases:
        t, r = impl.get((c["case"], "tessera"), {}), impl.get((c["case"], "triton"), {})
        ratio = f"{c['ratio']:.3f}" if c.get("ratio") else "-"
        print(f"{c['case']:<38} | {cell(t)} | {cell(r)} | {ratio:>7}")
    ratios = [c["ratio"] for c in cases if c.get("ratio")]
    if ratios:
        geo = 1.0
        for x in ratios:
            geo *= x
        geo **= 1 / len(ratios)
        print(f"ratio triton_ms/tessera_ms: geomean {geo:.3f}, min {min(ratios):.3f}, max {max(ratios):.3f} over "
              f"{len(ratios)} cases; {sum(x >= 1 for x in ratios)} cases >= 1")
    for c in cases:
        for name in ("tessera", "triton"):
            w = impl.get((c["case"], name), {}).get("why")
            if w:
                print(f"  {c['case']} [{name}]: {w[:200]}")
    print(f"total {total_s:.1f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="write all records to this JSON file")
    ap.add_argument("--quick", action="store_true", help="only the smallest shape of each family")
    ap.add_argument("--only", default=None, help="only cases whose name contains this (case-insensitive; several separated by commas)")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds per case, implementations alternating")
    ap.add_argument("--outputs", choices=["shared", "own"], default="shared",
                    help="shared: every implementation's timed calls write the same output buffers (each "
                         "implementation's own outputs are checked first); own: each writes its own")
    ap.add_argument("--timer", choices=["event", "cudagraph"], default="event",
                    help="event: do_bench (warmup 25 ms, rep 100 ms, L2 flushed before each launch); cudagraph: "
                         "do_bench_cudagraph (launches replayed from a CUDA graph, no host launch cost)")
    ap.add_argument("--interpret", action="store_true",
                    help="run the kernels under Tessera's CPU interpreter on small shapes (no GPU needed)")
    args = ap.parse_args()
    sys.exit(run_interpret(args) if args.interpret else run_gpu(args))


if __name__ == "__main__":
    main()
