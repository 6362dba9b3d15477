"""Runs each test of a pytest file in its own process (CUDA_LAUNCH_BLOCKING=1), so that a sticky
CUDA error shows which test caused it; prints one line per test. With --sanitize, the first
failing test runs again under compute-sanitizer (its first lines printed).

    cd python && python3 ../tools/device/probes/per_test.py test/gpu/test_tma_gpu.py [--sanitize]
"""
import os
import subprocess
import sys

path = sys.argv[1]
env = {**os.environ, "CUDA_LAUNCH_BLOCKING": "1"}
ids = [i for i in subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "gpu", path],
                                 capture_output=True, text=True).stdout.splitlines() if "::" in i]
# Node ids are relative to pytest's rootdir (the repository root: setup.py is there).
root = os.path.dirname(os.getcwd()) if ids and ids[0].startswith("python/") else os.getcwd()
first_bad = None
for t in ids:
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "gpu", t, "--tb=line", "-p", "no:cacheprovider"],
                       capture_output=True, text=True, env=env, cwd=root)
    lines = [x for x in r.stdout.splitlines() if x.strip()]
    errs = [x for x in lines if "Error" in x or "error" in x or x.startswith("E ")][:2]
    print(f"{t} :: {lines[-1] if lines else '?'} :: {' | '.join(e[:220] for e in errs)}", flush=True)
    if r.returncode and first_bad is None:
        first_bad = t
if first_bad and "--sanitize" in sys.argv:
    r = subprocess.run(["/usr/local/cuda/bin/compute-sanitizer", "--print-limit", "3", sys.executable, "-m", "pytest",
                        "-q", "-m", "gpu", first_bad, "--tb=no"], capture_output=True, text=True, env=env,
                       cwd=root)
    print("== compute-sanitizer", first_bad)
    print("\n".join((r.stdout + r.stderr).splitlines()[:60]))
