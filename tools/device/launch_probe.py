"""Diagnostic (H200): where does Tessera's launch path block the host? Times each of 400 launches
while the GPU sleeps ~0.1 s; a launch that waits for the GPU shows up as a ~0.1 s outlier.
Prints JSON lines."""
import gc
import json
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.compiler import compiler as C  # noqa: E402


@tessera.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def probe(name, f, reps=400, gc_off=False):
    f()
    torch.cuda.synchronize()
    if gc_off:
        gc.disable()
    torch.cuda._sleep(200_000_000)
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    gc.enable()
    torch.cuda.synchronize()
    us = sorted(t * 1e6 for t in ts)
    slow = [i for i, t in enumerate(ts) if t > 1e-3]
    print(json.dumps({"probe": name, "gc_off": gc_off, "median_us": us[len(us) // 2], "max_us": us[-1],
                      "total_ms": sum(ts) * 1e3, "slow_indices": slow[:10]}), flush=True)


n = 1 << 20
x = torch.rand(n, device="cuda")
y = torch.rand(n, device="cuda")
z = torch.empty_like(x)
grid = ((n + 1023) // 1024,)
probe("tessera launch", lambda: add[grid](x, y, z, n, BLOCK=1024))
probe("tessera launch", lambda: add[grid](x, y, z, n, BLOCK=1024), gc_off=True)
probe("gpu_backend_available", lambda: C.gpu_backend_available("cuda"))
probe("torch.empty", lambda: torch.empty(16, device="cuda"))
kernel = next(iter(add.cache.values()))
bound = add.bind((x, y, z, n), {"BLOCK": 1024})
from tessera.runtime import specialize  # noqa: E402
nv = C._nvidia()
at, consts, attrs, key = specialize.specialize(add, bound)
blob, offs = nv.pack_args(nv.leaf_types(at, bound, consts))
stream = C._current_stream(torch, 0)
probe("driver launch only", lambda: kernel.loaded.launch(grid, blob, offs, stream))
try:
    import triton
    import triton.language as ttl

    @triton.jit
    def tadd(x, y, z, n, BLOCK: ttl.constexpr):
        offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
        m = offs < n
        ttl.store(z + offs, ttl.load(x + offs, mask=m) + ttl.load(y + offs, mask=m), mask=m)
    probe("triton launch", lambda: tadd[grid](x, y, z, n, BLOCK=1024))
except Exception as e:  # noqa: BLE001
    print(json.dumps({"probe": "triton", "error": str(e)[:200]}))
