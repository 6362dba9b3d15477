"""The shared kernel cache (TESSERA_CACHE_REDIS) on the CPU machine, compile-only: the 8
configurations of a matmul compiled for cuda:90 by a first "machine" (an empty cache directory,
an empty Redis), then by a second one (another empty cache directory, the same Redis), each in a
fresh process. Reports both wall times and what the second one compiled (nothing, when every
kernel came from Redis). Starts its own redis-server on a free port. Writes JSON (--out)."""
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

WORKER = r'''
import json, sys, time
sys.path[:0] = [{python!r}, {examples!r}]
t0 = time.perf_counter()
import tessera
from kernels import matmul_kernel
t1 = time.perf_counter()
sig = {{k: "i32" for k in ["M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"]}}
sig.update(a_ptr="*fp16:16", b_ptr="*fp16:16", c_ptr="*fp16:16")
out = []
for bm, bn, bk, w, s in {configs!r}:
    k = tessera.compile(matmul_kernel, signature=sig, constexprs=dict(BM=bm, BN=bn, BK=bk), target="cuda:90",
                        num_warps=w, num_stages=s)
    out.append(k.metadata["cache"])
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "compile_s": t2 - t1, "cache": out}}))
'''

CONFIGS = [(128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4),
           (64, 64, 64, 4, 3), (128, 128, 32, 4, 4), (256, 128, 64, 8, 3), (64, 256, 32, 4, 4)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="shared_cache.json")
    args = ap.parse_args()
    redis = shutil.which("redis-server")
    if redis is None:
        sys.exit("redis-server is not installed (tools/setup installs it)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="tessera-shared-cache-")
    server = subprocess.Popen([redis, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        script = os.path.join(tmp, "worker.py")
        with open(script, "w") as f:
            f.write(WORKER.format(python=os.path.join(ROOT, "python"), examples=os.path.join(ROOT, "examples"),
                                  configs=CONFIGS))
        runs = {}
        for machine in ("first", "second"):
            env = dict(os.environ, TESSERA_CACHE_DIR=os.path.join(tmp, machine),
                       TESSERA_CACHE_REDIS=f"redis://127.0.0.1:{port}")
            env.pop("TESSERA_CACHE_DISABLE", None)
            t = time.perf_counter()
            p = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, check=True)
            rec = json.loads(p.stdout.strip().splitlines()[-1])
            rec["process_s"] = time.perf_counter() - t
            runs[machine] = rec
            print(machine, json.dumps(rec), flush=True)
        res = {"configs": CONFIGS, "runs": runs,
               "second_over_first_compile": runs["second"]["compile_s"] / runs["first"]["compile_s"]}
        print("second / first (compile time of the 8 configurations):", round(res["second_over_first_compile"], 4))
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
