"""The conformance matmul (its small shape) launched with Tessera's default registers (the
version cap), with maxnreg 96 and 255 (no cap), and under Triton, in that order, 5 rounds; run it
under ncu (`ncu --metrics gpu__time_duration.sum,launch__registers_per_thread -k regex:matmul`)
to time each launch. Run after h200_run.sh --setup-only with TESSERA_CONFORMANCE_DIR set."""
import os
import sys

sys.path.insert(0, os.environ["TESSERA_CONFORMANCE_DIR"])
import runner  # noqa: E402
import torch  # noqa: E402

mods = {impl: runner.load_kernels(impl) for impl in ("tessera", "triton")}
M, N, K = 384, 320, 200
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
ref = (a.float() @ b.float())
grid = ((M + 63) // 64 * ((N + 63) // 64),)
variants = [("tessera", {}), ("tessera", {"maxnreg": 96}), ("tessera", {"maxnreg": 255}), ("triton", {})]
for r in range(5):
    for impl, extra in variants:
        mods[impl].matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                       c.stride(0), c.stride(1), BM=64, BN=64, BK=32, GM=4, num_warps=4, **extra)
        torch.cuda.synchronize()
        if r == 0:
            print(impl, extra, "max err", (c.float() - ref).abs().max().item(), flush=True)
