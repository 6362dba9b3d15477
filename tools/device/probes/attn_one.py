"""One attention launch (benchmarks/attention_kernels.py) for profiling: impl B H N D BM BN warps stages."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks"))
import _loader  # noqa: E402
import torch  # noqa: E402

impl = sys.argv[1]
B, H, N, D, BM, BN, W, S = (int(x) for x in sys.argv[2:10])
m = _loader.load(impl, filename="attention_kernels.py")
q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
grid = ((N + BM - 1) // BM, B * H)
for _ in range(2):
    m.attention_fwd[grid](q, k, v, o, 1.0 / math.sqrt(D) * 1.4426950408889634, N, N * D, D, D=D, BM=BM, BN=BN,
                          num_warps=W, num_stages=S)
torch.cuda.synchronize()
