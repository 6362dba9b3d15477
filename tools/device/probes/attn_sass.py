"""SASS of the attention kernel under both compilers (benchmarks/attention_kernels.py): writes
$OUT/attn_<impl>.sass (cuobjdump -sass of each cubin) for D BM BN warps stages."""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks"))
import _loader  # noqa: E402
import torch  # noqa: E402

D, BM, BN, W, S = (int(x) for x in sys.argv[1:6])
out = os.environ.get("OUT", "/tmp/out")
q, k, v = (torch.randn(1, 1, 256, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
for impl in ("tessera", "triton"):
    m = _loader.load(impl, filename="attention_kernels.py")
    kern = m.attention_fwd[(256 // BM, 1)](q, k, v, o, 1.0 / math.sqrt(D), 256, 256 * D, D, D=D, BM=BM, BN=BN,
                                           num_warps=W, num_stages=S)
    path = os.path.join("/tmp", f"attn_{impl}.cubin")
    with open(path, "wb") as f:
        f.write(kern.asm["cubin"])
    sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
    with open(os.path.join(out, f"attn_{impl}.sass"), "w") as f:
        f.write(sass)
    print(impl, len(sass.splitlines()))
