"""Probe: the softmax tutorial's kernel (its source read from the git-ignored upstream copy) under
Tessera: registers, shared memory, the persistent grid it computes, and its time against a one
program per row grid. Prints one JSON line."""
import ast, json, os, sys, textwrap
import torch
import tessera as triton
import tessera.language as tl
from tessera.runtime import driver
from tessera.testing import do_bench

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "../../../benchmarks/tutorials/upstream/02-fused-softmax.py")).read()
tree = ast.parse(src)
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "softmax_kernel")
code = ast.get_source_segment(src, fn)
path = "/tmp/softmax_probe_kernel.py"
with open(path, "w") as f:
    # get_source_segment leaves out the decorator
    f.write("import tessera as triton\nimport tessera.language as tl\n\n@triton.jit\n" + code + "\n")
sys.path.insert(0, "/tmp")
from softmax_probe_kernel import softmax_kernel  # noqa: E402

props = driver.active.utils.get_device_properties(0)
res = {"props": props}
for n_cols in (256, 6400):
    x = torch.randn(4096, n_cols, device="cuda")
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols) if hasattr(triton, "next_power_of_2") else 1 << (n_cols - 1).bit_length()
    nw = 8 if BLOCK < 2048 else 16 if BLOCK >= 4096 else 8
    nw = 8
    k = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), 4096, n_cols, BLOCK_SIZE=BLOCK, num_stages=4,
                              num_warps=nw, grid=(1,))
    k._init_handles()
    occ = props["max_num_regs"] // (k.n_regs * 32 * nw)
    shared = k.metadata.shared
    occ2 = min(occ, props["max_shared_mem"] // shared) if shared else occ
    nprog = props["multiprocessor_count"] * occ2
    t_persist = do_bench(lambda: k[(nprog, 1, 1)](y, x, x.stride(0), y.stride(0), 4096, n_cols, BLOCK, 4))
    ok1 = torch.allclose(y, torch.softmax(x, -1), atol=1e-5)
    y.zero_()
    t_rows = do_bench(lambda: softmax_kernel[(4096,)](y, x, x.stride(0), y.stride(0), 4096, n_cols, BLOCK_SIZE=BLOCK,
                                                     num_stages=4, num_warps=nw))
    ok2 = torch.allclose(y, torch.softmax(x, -1), atol=1e-5)
    t_torch = do_bench(lambda: torch.softmax(x, -1))
    gbs = lambda ms: 2 * x.numel() * 4 / ms * 1e-6
    res[n_cols] = dict(n_regs=k.n_regs, n_spills=k.n_spills, shared=shared, occupancy=occ, occupancy_smem=occ2,
                       programs=nprog, persistent_gbs=gbs(t_persist), rows_grid_gbs=gbs(t_rows), torch_gbs=gbs(t_torch),
                       ok=[ok1, ok2], cache_entries=len(softmax_kernel.cache))
print(json.dumps(res, default=str))

# Host cost of the tutorial's per-call pattern: warmup + _init_handles + kernel[grid](...).
import time  # noqa: E402
x = torch.randn(4096, 256, device="cuda")
y = torch.empty_like(x)
host = {}
for name, call in [
    ("warmup", lambda: softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), 4096, 256, BLOCK_SIZE=256, num_stages=4,
                                             num_warps=8, grid=(1,))),
    ("warmup_no_option_param", lambda: softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), 4096, 256, 256, 4,
                                                             num_warps=8, grid=(1,))),
    ("launch_kw", lambda: softmax_kernel[(1188,)](y, x, x.stride(0), y.stride(0), 4096, 256, BLOCK_SIZE=256,
                                                  num_stages=4, num_warps=8)),
    ("launch_pos", lambda: softmax_kernel[(1188,)](y, x, x.stride(0), y.stride(0), 4096, 256, 256, 4, num_warps=8)),
]:
    call()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(200):
        call()
    torch.cuda.synchronize()
    host[name] = (time.perf_counter() - t) / 200 * 1e6
k = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), 4096, 256, BLOCK_SIZE=256, num_stages=4, num_warps=8, grid=(1,))
r = k[(1188, 1, 1)]
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(200):
    r(y, x, x.stride(0), y.stride(0), 4096, 256, 256, 4)
torch.cuda.synchronize()
host["compiled_runner"] = (time.perf_counter() - t) / 200 * 1e6
host["cache_entries"] = len(softmax_kernel.cache)
print(json.dumps({"host_us_per_call": host}))

# The tutorial calls is_hip() (driver.active.get_current_target()) on every softmax() call.
drv = {}
for name, call in [("driver.active", lambda: driver.active),
                   ("get_current_target", lambda: driver.active.get_current_target()),
                   ("get_device_properties", lambda: driver.active.utils.get_device_properties(0)),
                   ("get_active_torch_device", lambda: driver.active.get_active_torch_device()),
                   ("next_power_of_2", lambda: triton.next_power_of_2(6400))]:
    call()
    t = time.perf_counter()
    for _ in range(200):
        call()
    drv[name] = (time.perf_counter() - t) / 200 * 1e6
print(json.dumps({"driver_us_per_call": drv}))
