"""Autotuning with a shared cache (issue 18's figure): examples/kernels.py's fp16 matmul under
@tessera.autotune over 8 configurations, run by two "machines" in turn, each a fresh process:

  first   an empty cache directory A and an empty Redis (TESSERA_CACHE_REDIS): compiles the 8
          configurations, times each with do_bench, keeps the fastest; kernels and the choice go to
          A and to Redis;
  second  another empty cache directory B, the same Redis: should take the choice and the chosen
          kernel from Redis, compiling and timing nothing.

Each machine's figure is the wall time from its first call (matmul[grid](...)) to the result on the
host side (a device synchronize), with inputs already on the GPU and CUDA initialized, so imports
and PyTorch's start are not in it (they are reported apart). Compilations are counted three ways
in each process: the front end (make_ttir), the backend's stages (compile_ttir) and ptxas runs
(nvidia.assemble), all wrapped before the first call; the kernels the JIT loaded report where they
came from (metadata["cache"]: "miss", "hit", "shared"). The result is checked against torch.matmul.

    python3 benchmarks/autotune_shared_cache.py --redis redis://127.0.0.1:6399/0 --out out.json
    python3 benchmarks/autotune_shared_cache.py --out out.json   # starts redis-server itself
    python3 benchmarks/autotune_shared_cache.py --dry --out out.json   # CPU: the plumbing only

--dry (no GPU): kernels run in the CPU interpreter (TESSERA_INTERPRET=1) on a small matmul, so the
autotuning choice goes through Redis but nothing is compiled for it; to exercise the kernel cache
too, each machine then compiles for cuda:90 (tessera.compile, no launch) what the GPU run would:
the first all 8 configurations, the second the chosen one. Its times say nothing about the GPU.
Writes JSON (--out); the Redis database is emptied (FLUSHDB) before the first machine.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "examples")]

# (BM, BN, BK, num_warps, num_stages): the 8 configurations of benchmarks/shared_cache.py.
CONFIGS = [(128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4),
           (64, 64, 64, 4, 3), (128, 128, 32, 4, 4), (256, 128, 64, 8, 3), (64, 256, 32, 4, 4)]
SIG = dict({k: "i32" for k in ["M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"]},
           a_ptr="*fp16:16", b_ptr="*fp16:16", c_ptr="*fp16:16")


# ------------------------------------------------------------------ one machine (a fresh process)

def worker(machine, size, dry):
    t_start = time.perf_counter()
    import torch
    import tessera
    from tessera.backends import nvidia
    from tessera.compiler import compiler
    from tessera.runtime import cache
    import kernels
    t_imported = time.perf_counter()

    # Count compilations: every miss of compile_cached runs make_ttir (the front end) and
    # compile_ttir (the backend's stages, which run ptxas through nvidia.assemble).
    counts = {"make_ttir": 0, "compile_ttir": 0, "ptxas": 0}

    def counting(module, name, key):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            counts[key] += 1
            return original(*args, **kwargs)
        setattr(module, name, wrapper)
    counting(compiler, "make_ttir", "make_ttir")
    counting(compiler, "compile_ttir", "compile_ttir")
    counting(nvidia, "assemble", "ptxas")
    # And what the shared cache served: lookups, hits and the time spent in them.
    redis = {"gets": 0, "hits": 0, "get_s": 0.0, "puts": 0}
    redis_get, redis_put = cache.RedisCache.get, cache.RedisCache.put

    def timed_get(self, key):
        t = time.perf_counter()
        hit = redis_get(self, key)
        redis["get_s"] += time.perf_counter() - t
        redis["gets"] += 1
        redis["hits"] += hit is not None
        return hit

    def counted_put(self, key, asm, meta):
        redis["puts"] += 1
        return redis_put(self, key, asm, meta)
    cache.RedisCache.get, cache.RedisCache.put = timed_get, counted_put

    configs = [tessera.Config({"BM": bm, "BN": bn, "BK": bk}, num_warps=w, num_stages=s)
               for bm, bn, bk, w, s in CONFIGS]
    matmul = tessera.autotune(configs=configs, key=["M", "N", "K"])(kernels.matmul_kernel)

    dev = "cpu" if dry else "cuda"
    M = N = K = size
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = (torch.randn(M, K, generator=gen) * 0.1).to(device=dev, dtype=torch.float16)
    b = (torch.randn(K, N, generator=gen) * 0.1).to(device=dev, dtype=torch.float16)
    c = torch.zeros(M, N, device=dev, dtype=torch.float16)

    def sync():
        if not dry:
            torch.cuda.synchronize()
    ref = (a.float() @ b.float()).to(torch.float16) if dry else torch.matmul(a, b)
    sync()
    grid = lambda m: (tessera.cdiv(M, m["BM"]), tessera.cdiv(N, m["BN"]))  # noqa: E731
    args = (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))

    # The figure: first call to result.
    t0 = time.perf_counter()
    matmul[grid](*args)
    sync()
    first_call_s = time.perf_counter() - t0
    counts_after_call, redis_after_call = dict(counts), dict(redis)
    # Reference: the same call again in the same process (nothing left to find or compile).
    t0 = time.perf_counter()
    matmul[grid](*args)
    sync()
    second_call_s = time.perf_counter() - t0

    err = (c.float() - ref.float()).abs().max().item()
    ok = bool(torch.allclose(c.float(), ref.float(), rtol=1e-2, atol=1e-2))
    jit_fn = kernels.matmul_kernel
    loaded = [k.metadata.get("cache") for k in getattr(jit_fn, "cache", {}).values()
              if hasattr(k, "metadata")]
    rec = {
        "machine": machine,
        "cache_dir": os.environ.get("TESSERA_CACHE_DIR"),
        "device": "cpu (interpreter)" if dry else torch.cuda.get_device_name(),
        "import_s": t_imported - t_start,
        "first_call_s": first_call_s,
        "second_call_in_process_s": second_call_s,
        "compilations": counts_after_call,
        "redis_during_first_call": redis_after_call,
        "loaded_kernels_cache": loaded,
        "tuned": bool(matmul.configs_timings),
        "bench_time_s": matmul.bench_time,
        "timings_ms": {repr(k): (v if v < float("inf") else None) for k, v in matmul.configs_timings.items()},
        "skipped": {repr(k): v for k, v in matmul.skipped.items()},
        "best_config": repr(matmul.best_config),
        "max_abs_err": err,
        "correct": ok,
    }
    if dry:
        # The kernel-cache half of the GPU run, compile-only: what the GPU machine would compile
        # (all 8 on the first machine while tuning; only the chosen one on the second).
        best = matmul.best_config
        todo = CONFIGS if machine == "first" else [
            (best.kwargs["BM"], best.kwargs["BN"], best.kwargs["BK"], best.num_warps, best.num_stages)]
        t0 = time.perf_counter()
        where = []
        for bm, bn, bk, w, s in todo:
            k = tessera.compile(jit_fn, signature=SIG, constexprs=dict(BM=bm, BN=bn, BK=bk), target="cuda:90",
                                num_warps=w, num_stages=s)
            where.append(k.metadata["cache"])
        rec["dry_compile"] = {"configs": len(todo), "compile_s": time.perf_counter() - t0, "cache": where,
                              "compilations": {k: counts[k] - counts_after_call[k] for k in counts}}
    rec["redis_keys"] = len(cache.shared().conn.command(b"KEYS", b"tessera:*") or [])
    print(json.dumps(rec), flush=True)


# ------------------------------------------------------------------ the driver

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url, timeout=20):
    from tessera.runtime import cache
    conn = cache.RedisConnection(url)
    deadline = time.time() + timeout
    while True:
        try:
            if conn.command(b"PING") == b"PONG":
                return conn
        except OSError:
            pass
        if time.time() > deadline:
            raise SystemExit(f"no Redis answers at {url}")
        time.sleep(0.05)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="autotune_shared_cache.json")
    ap.add_argument("--redis", help="URL of a running Redis to use (its database is emptied); default: start "
                                    "redis-server on a free local port")
    ap.add_argument("--redis-server", default=shutil.which("redis-server"), help="redis-server to start")
    ap.add_argument("--size", type=int, help="M = N = K (default 4096; 64 with --dry)")
    ap.add_argument("--dry", action="store_true", help="no GPU: the interpreter, and compile-only kernels")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    size = args.size or (64 if args.dry else 4096)
    if args.worker:
        worker(args.worker, size, args.dry)
        return

    tmp = tempfile.mkdtemp(prefix="tessera-autotune-shared-")
    server = None
    try:
        url = args.redis
        if url is None:
            if not args.redis_server:
                sys.exit("redis-server is not installed; pass --redis URL or --redis-server PATH")
            port = _free_port()
            server = subprocess.Popen([args.redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                       "--appendonly", "no", "--dir", tmp],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            url = f"redis://127.0.0.1:{port}/0"
        conn = _wait_for(url)
        conn.command(b"FLUSHDB")
        info = conn.command(b"INFO", b"server").decode(errors="replace")
        redis_version = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                              if line.startswith("redis_version:")), "unknown")
        conn.close()
        runs = {}
        for machine in ("first", "second"):
            env = dict(os.environ, TESSERA_CACHE_DIR=os.path.join(tmp, f"cache-{machine}"),
                       TESSERA_CACHE_REDIS=url, PYTHONUNBUFFERED="1")
            env.pop("TESSERA_CACHE_DISABLE", None)
            if args.dry:
                env["TESSERA_INTERPRET"] = "1"
            else:
                env.pop("TESSERA_INTERPRET", None)
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", machine, "--size", str(size)]
            if args.dry:
                cmd.append("--dry")
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                sys.stderr.write(p.stderr)
                sys.exit(f"machine {machine} failed (exit status {p.returncode})")
            rec = json.loads(p.stdout.strip().splitlines()[-1])
            rec["process_s"] = time.perf_counter() - t
            rec["stderr_tail"] = p.stderr.strip().splitlines()[-5:]
            runs[machine] = rec
            print(f"{machine}: first call {rec['first_call_s']:.3f} s, compilations {rec['compilations']}, "
                  f"tuned {rec['tuned']}, kernels {rec['loaded_kernels_cache']}, best {{{rec['best_config']}}}, "
                  f"correct {rec['correct']} (max error {rec['max_abs_err']:.2e}), Redis during the call "
                  f"{rec['redis_during_first_call']}, keys after {rec['redis_keys']}",
                  flush=True)
        first, second = runs["first"], runs["second"]
        ratio = second["first_call_s"] / first["first_call_s"]
        checks = {
            "second_compiled_nothing": not any(second["compilations"].values()),
            "second_tuned_nothing": not second["tuned"],
            "second_kernels_from_redis": bool(second["loaded_kernels_cache"]) and
                                         all(w == "shared" for w in second["loaded_kernels_cache"]),
            "same_choice": first["best_config"] == second["best_config"],
            "results_correct": first["correct"] and second["correct"],
            "under_5_percent": ratio < 0.05,
        }
        if args.dry:  # no kernel is loaded in the interpreter: the compile-only half says it instead
            checks["second_kernels_from_redis"] = all(w == "shared" for w in second["dry_compile"]["cache"])
            checks["second_compiled_nothing"] = not any(second["dry_compile"]["compilations"].values()) and \
                checks["second_compiled_nothing"]
            checks.pop("under_5_percent")  # interpreter times: not the figure
        res = {"dry": args.dry, "size": size, "dtype": "fp16", "redis_version": redis_version,
               "configs": [dict(BM=bm, BN=bn, BK=bk, num_warps=w, num_stages=s) for bm, bn, bk, w, s in CONFIGS],
               "runs": runs, "second_over_first": ratio, "checks": checks, "ok": all(checks.values())}
        print(f"second / first (first call to result): {ratio:.4f}; checks: {checks}", flush=True)
        print("PASS" if res["ok"] else "FAIL", flush=True)
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
        if not res["ok"]:
            sys.exit(1)
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
