"""The profiler's matmuls under Nsight Compute: argv[1] a case of benchmarks/profiler_overhead.py;
launches it 2 times in mode "kernels" then 2 times in mode "scopes" (ncu filters by kernel name)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
import torch  # noqa: E402
import profiler_overhead as po  # noqa: E402

fn = po._cases()[sys.argv[1]][0]
for mode in ("kernels", "scopes"):
    po._session(mode, fn, 2)
torch.cuda.synchronize()
