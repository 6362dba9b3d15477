"""Is a gap to Triton in the code or in the launch? For each memory-bound case named on the command
line, times in one process, round-robin, with the CUDA-graph timer and shared outputs:
  triton      Triton's kernel
  triton_b    Triton's kernel loaded a second time (an A/A control of the harness)
  tessera     Tessera's kernel
  tessera_tp  Triton's PTX (its trailing scratch parameters dropped) compiled and launched by Tessera
              (tools/device/probes/ptxas_swap.sh as TESSERA_PTXAS)
and, named in $SWAP_VARIANTS (comma-separated):
  tp_tptxas   tessera_tp assembled by Triton's own ptxas (the one its wheel carries)
  tptxas      Tessera's PTX assembled by Triton's ptxas
  raw         Tessera's kernel launched with cuLaunchKernel called through ctypes (not Tessera's launcher)
  rawex       the same through cuLaunchKernelEx with no launch attributes (as Triton 3.6 launches)
  file=PATH   the PTX in PATH (relative to this folder; an edit of Tessera's), where its entry is the
              case's kernel
  pad2        Tessera's PTX with two more (unused) 64-bit parameters, as Triton's kernels have,
              launched by ctypes with two null pointers more
  tcubin      Triton's cubin loaded by Tessera's loader, launched by ctypes (two null pointers more)
  tcubin_ct   Triton's cubin loaded by cuModuleLoadData through ctypes, launched by ctypes
  scubin_ct   Tessera's cubin loaded by cuModuleLoadData through ctypes, launched by ctypes
  copies=N    N more modules of each of the two cubins (tcopyK, scopyK; ctypes load and launch)
  (these tell a difference in the cubins from one in how, or where, the module is loaded;
  both cubins are written to $OUT/cubins/)
  nobarN      Tessera's PTX without its N-th bar.sync (from 0; a timing probe only: the result is not
              checked, the barrier may be needed)
Timer: $SWAP_TIMER "triton" (triton.testing.do_bench_cudagraph, the default), "warm" (the same with
one untimed replay of the whole graph first) or "rest" (1 s idle instead). $SWAP_DUMP_GRAPHS=1 also
writes each variant's captured graph of two launches ($OUT/graphs/*.dot) and prints its kernel
nodes' parameters byte for byte.
Writes $OUT/ptx_swap.json and prints a table of medians. Needs TESSERA_CACHE_DISABLE=1."""
import ctypes
import json
import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
os.environ["TESSERA_PTXAS"] = os.path.join(HERE, "ptxas_swap.sh")
import _loader  # noqa: E402
import memory_bound  # noqa: E402
import torch  # noqa: E402
from triton.testing import do_bench_cudagraph  # noqa: E402
from compiled import compiled_kernels  # noqa: E402

def _triton_ptxas():
    import glob
    import triton
    c = sorted(glob.glob(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas*")))
    return c[0] if c else None


TRITON_PTXAS = _triton_ptxas()
ROUNDS = int(os.environ.get("SWAP_ROUNDS", "8"))
TIMER = os.environ.get("SWAP_TIMER", "triton")


def warm_cudagraph(fn, rep=100, return_mode="median"):
    """do_bench_cudagraph's method with one untimed replay of the whole graph before the timed ones
    (SWAP_TIMER=warm), so that every variant is timed on a GPU that has just run the same load (not
    after however long its launcher took to capture the graph), or with 1 s idle instead
    (SWAP_TIMER=rest), so that every variant starts from the same rest."""
    import time
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(5):
            g.replay()
        b.record()
        torch.cuda.synchronize()
        n = max(1, int(rep / max(a.elapsed_time(b) / 5, 1e-6)))
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                fn()
        torch.cuda.synchronize()
        if TIMER == "rest":
            time.sleep(1.0)
        else:
            g.replay()
        ret = []
        for _ in range(10):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            g.replay()
            b.record()
            torch.cuda.synchronize()
            ret.append(a.elapsed_time(b) / n)
    return statistics.median(ret)


if TIMER != "triton":
    do_bench_cudagraph = warm_cudagraph  # noqa: F811
out_dir = os.environ.get("OUT", "/tmp/out")


def ptx_of(fn, impl):
    return compiled_kernels(fn, impl)[-1].asm["ptx"]


def strip_params(ptx, keep):
    """`ptx` with the entry's parameters from index `keep` on removed (Triton's scratch pointers)."""
    head, rest = ptx.split("(", 1)
    params, tail = rest.split(")", 1)
    lines = [ln for ln in params.split("\n") if ln.strip()]
    kept = [ln.rstrip().rstrip(",") for ln in lines if not re.search(r"_param_(\d+)$", ln.strip().rstrip(",")) or
            int(re.search(r"_param_(\d+)$", ln.strip().rstrip(",")).group(1)) < keep]
    return head + "(\n" + ",\n".join(kept) + "\n)" + tail


def n_params(ptx):
    return len(set(re.findall(r"\.param [^\n]*_param_(\d+)", ptx.split(")", 1)[0])))


class _Spy:
    """Stands in for a kernels module: records the grid and arguments of the launch."""

    def __getattr__(self, name):
        spy = self

        class _K:
            def __getitem__(self, grid):
                def call(*args, **kwargs):
                    spy.rec = (name, grid, args, kwargs)
                return call
        return _K()


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                ("numAttrs", ctypes.c_uint)]


def param_types(ptx):
    """The PTX types of the entry's parameters, in order (u64, u32, ...)."""
    return re.findall(r"\.param \.(\w+)[^\n]*_param_\d+", ptx.split(")", 1)[0])


def loaded_kernel(function, base_k):
    """Stands in for a compiled Tessera kernel whose loaded function is `function` (block size and
    metadata those of `base_k`), for raw_launcher."""
    k = type("Loaded", (), {})()
    k.loaded = type("L", (), {"function": function, "block": base_k.loaded.block})()
    k.metadata = base_k.metadata
    return k


def raw_launcher(st, kernel, ptx, ex, pad=0):
    """A callable launching the loaded Tessera `kernel` with the arguments st["launch"] passes, by
    ctypes; None where its parameters cannot be matched."""
    spy = _Spy()
    st["launch"](spy, st["_raw_out"])
    _, grid, args, kwargs = spy.rec
    if callable(grid):
        grid = grid(kwargs)
    grid = tuple(grid) + (1,) * (3 - len(grid))
    types = param_types(ptx)
    vals = []
    for a in args:
        vals.append(a.data_ptr() if hasattr(a, "data_ptr") else a)
    vals += [0] * pad
    if len(vals) != len(types):
        print("raw launch skipped: arguments", len(vals), "parameters", types)
        return None
    cvals = [(ctypes.c_uint64 if t in ("u64", "b64") else ctypes.c_int64 if t == "s64" else ctypes.c_int32)(int(v))
             for t, v in zip(types, vals)]
    params = (ctypes.c_void_p * len(cvals))(*[ctypes.cast(ctypes.pointer(c), ctypes.c_void_p) for c in cvals])
    lib = ctypes.CDLL("libcuda.so.1")
    fn = ctypes.c_void_p(kernel.loaded.function)
    block, shared = kernel.loaded.block, kernel.metadata["shared"]
    keep = (cvals, params)

    def launch():
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        if ex:
            cfg = _LaunchConfig(grid[0], grid[1], grid[2], block, 1, 1, shared, stream, None, 0)
            rc = lib.cuLaunchKernelEx(ctypes.byref(cfg), fn, params, None)
        else:
            rc = lib.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block, 1, 1, shared, stream, params, None)
        assert rc == 0, rc
        return keep
    return launch


def checked_raw_launcher(st, kernel, ptx, ex, out, pad=0):
    """raw_launcher's launch writing `out`, once its result on a fresh buffer is checked; None where
    the parameters cannot be matched."""
    st["_raw_out"] = fresh = st["alloc"]()
    f = raw_launcher(st, kernel, ptx, ex, pad)
    if f is None:
        return None
    f()
    torch.cuda.synchronize()
    assert st["check"](fresh) is None, ("raw launch", ex, pad)
    st["_raw_out"] = out
    return raw_launcher(st, kernel, ptx, ex, pad)


tmp = tempfile.mkdtemp()
results = []
for case in memory_bound.gpu_cases():
    if case.name not in sys.argv[1:]:
        continue
    torch.manual_seed(0)
    st = case.setup(torch, "cuda")
    mods = {"triton": _loader.load("triton", filename="memory_bound_kernels.py"),
            "triton_b": _loader.load("triton", directory=os.path.join(tmp, "b"), filename="memory_bound_kernels.py"),
            "tessera": _loader.load("tessera", filename="memory_bound_kernels.py")}
    outs = {}
    for impl in ("triton", "triton_b", "tessera"):
        outs[impl] = st["alloc"]()
        st["launch"](mods[impl], outs[impl])
        torch.cuda.synchronize()
        assert st["check"](outs[impl]) is None, (case.name, impl)
    kname = [n for n in dir(mods["tessera"]) if n.endswith("_kernel") and
             getattr(getattr(mods["tessera"], n), "cache", None)]
    assert len(kname) == 1, kname
    tptx = ptx_of(getattr(mods["tessera"], kname[0]), "tessera")
    rptx = ptx_of(getattr(mods["triton"], kname[0]), "triton")
    swapped = strip_params(rptx, n_params(tptx))
    p = os.path.join(tmp, f"{kname[0]}_triton.ptx")
    with open(p, "w") as f:
        f.write(swapped)
    variants = [("tessera_tp", p, None, True)]
    for v in filter(None, os.environ.get("SWAP_VARIANTS", "").split(",")):
        if v == "tp_tptxas":
            variants.append((v, p, TRITON_PTXAS, True))
        elif v == "tptxas":
            q = os.path.join(tmp, f"{kname[0]}_tessera.ptx")
            with open(q, "w") as f:
                f.write(tptx)
            variants.append((v, q, TRITON_PTXAS, True))
        elif v.startswith("file="):  # a PTX file (an edit of Tessera's): used where its entry is this kernel
            q = os.path.join(HERE, v[5:])
            if f".entry {kname[0]}(" in open(q).read():
                variants.append((os.path.splitext(os.path.basename(q))[0], q, None, True))
        elif v == "pad2":
            head, rest = tptx.split(")", 1)
            ent = re.findall(r"(\S+)_param_(\d+)", head)
            stem, last = ent[-1][0], int(ent[-1][1])
            pad_ptx = head.rstrip() + "".join(f",\n\t.param .u64 .ptr .global .align 1 {stem}_param_{last + k}"
                                              for k in (1, 2)) + "\n)" + rest
        elif v.startswith("nobar"):
            n = int(v[5:])
            parts = re.split(r"(\n\s*bar\.sync\s+0;)", tptx)
            bars = [i for i in range(1, len(parts), 2)]
            if n >= len(bars):
                print(case.name, v, "skipped:", len(bars), "barriers")
                continue
            parts[bars[n]] = "\n\t// bar.sync removed by ptx_swap"
            q = os.path.join(tmp, f"{kname[0]}_{v}.ptx")
            with open(q, "w") as f:
                f.write("".join(parts))
            variants.append((v, q, None, False))
    for name, ptx_file, real, check in variants:
        os.environ["SWAP_PTX"] = ptx_file
        if real:
            os.environ["REAL_PTXAS"] = real
        mods[name] = _loader.load("tessera", directory=os.path.join(tmp, name), filename="memory_bound_kernels.py")
        outs[name] = st["alloc"]()
        st["launch"](mods[name], outs[name])
        torch.cuda.synchronize()
        del os.environ["SWAP_PTX"]
        os.environ.pop("REAL_PTXAS", None)
        if check:
            assert st["check"](outs[name]) is None, (case.name, name)
        assert ptx_of(getattr(mods[name], kname[0]), "tessera") == tptx  # the PTX on record is Tessera's
    o = outs["tessera"]
    raws = {}
    for v in ("raw", "rawex"):
        if v in os.environ.get("SWAP_VARIANTS", "").split(","):
            k = compiled_kernels(getattr(mods["tessera"], kname[0]), "tessera")[-1]
            f = checked_raw_launcher(st, k, tptx, v == "rawex", o)
            if f:
                raws[v] = f
    if "pad2" in os.environ.get("SWAP_VARIANTS", "").split(","):
        # Assembled and loaded here, never launched by Tessera's launcher (it passes 4 arguments).
        from tessera import _core
        from tessera.backends import nvidia as nv
        base_k = compiled_kernels(getattr(mods["tessera"], kname[0]), "tessera")[-1]
        cubin = nv.assemble(pad_ptx, 90, kname[0])
        status, info = _core._native().cuda.load_kernel(cubin, kname[0], torch.cuda.current_device(),
                                                         base_k.metadata["shared"])
        assert status, status
        raws["pad2"] = checked_raw_launcher(st, loaded_kernel(info.function, base_k), pad_ptx, False, o, pad=2)
    want = os.environ.get("SWAP_VARIANTS", "").split(",")
    if {"tcubin", "tcubin_ct", "scubin_ct"} & set(want) or any(v.startswith("copies=") for v in want):
        from tessera import _core
        base_k = compiled_kernels(getattr(mods["tessera"], kname[0]), "tessera")[-1]
        tri_k = compiled_kernels(getattr(mods["triton"], kname[0]), "triton")[-1]
        tcubin, scubin = tri_k.asm["cubin"], base_k.asm["cubin"]
        os.makedirs(os.path.join(out_dir, "cubins"), exist_ok=True)
        tag = re.sub(r"\W+", "_", case.name)
        for who, data in (("triton", tcubin), ("tessera", scubin)):
            with open(os.path.join(out_dir, "cubins", f"{tag}_{who}.cubin"), "wb") as f:
                f.write(data)
        tname = tri_k.metadata.name if hasattr(tri_k.metadata, "name") else kname[0]
        tpad = n_params(rptx) - n_params(tptx)

        def ct_load(data, name):
            lib = ctypes.CDLL("libcuda.so.1")
            buf = ctypes.create_string_buffer(bytes(data), len(data))
            mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
            assert lib.cuModuleLoadData(ctypes.byref(mod), buf) == 0
            assert lib.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()) == 0
            return fn.value

        def loaded(function):
            return loaded_kernel(function, base_k)
        if "tcubin" in want:
            status, info = _core._native().cuda.load_kernel(tcubin, tname, torch.cuda.current_device(),
                                                             base_k.metadata["shared"])
            assert status, status
            raws["tcubin"] = checked_raw_launcher(st, loaded(info.function), rptx, False, o, pad=tpad)
        if "tcubin_ct" in want:
            raws["tcubin_ct"] = checked_raw_launcher(st, loaded(ct_load(tcubin, tname)), rptx, False, o, pad=tpad)
        if "scubin_ct" in want:
            raws["scubin_ct"] = checked_raw_launcher(st, loaded(ct_load(scubin, kname[0])), tptx, False, o)
        # "copies=N": N more modules of each cubin (ctypes load and launch): how far identical code
        # loaded again spreads, the placement lottery
        ncopies = [int(v[7:]) for v in want if v.startswith("copies=")]
        for c in range(ncopies[0] if ncopies else 0):
            raws[f"tcopy{c}"] = checked_raw_launcher(st, loaded(ct_load(tcubin, tname)), rptx, False, o, pad=tpad)
            raws[f"scopy{c}"] = checked_raw_launcher(st, loaded(ct_load(scubin, kname[0])), tptx, False, o)
    impls = list(mods) + list(raws)
    if os.environ.get("SWAP_DUMP_GRAPHS"):  # each variant's CUDA graph of two launches, as DOT
        gdir = os.path.join(out_dir, "graphs")
        os.makedirs(gdir, exist_ok=True)
        lib = ctypes.CDLL("libcuda.so.1")
        for impl in impls:
            fn = raws[impl] if impl in raws else (lambda m=mods[impl]: st["launch"](m, o))  # noqa: E731
            s_ = torch.cuda.Stream()
            graph = ctypes.c_void_p()
            with torch.cuda.stream(s_):
                assert lib.cuStreamBeginCapture_v2(ctypes.c_void_p(s_.cuda_stream), 2) == 0  # relaxed
                fn()
                fn()
                assert lib.cuStreamEndCapture(ctypes.c_void_p(s_.cuda_stream), ctypes.byref(graph)) == 0
            path = os.path.join(gdir, re.sub(r"\W+", "_", case.name) + f"_{impl}.dot")
            rc = lib.cuGraphDebugDotPrint(graph, path.encode(), ctypes.c_uint(0x3fff))
            # the captured kernel nodes' parameters, byte for byte
            nodes, count = (ctypes.c_void_p * 8)(), ctypes.c_size_t(8)
            assert lib.cuGraphGetNodes(graph, nodes, ctypes.byref(count)) == 0

            class _KP(ctypes.Structure):
                _fields_ = [("func", ctypes.c_void_p), ("gx", ctypes.c_uint), ("gy", ctypes.c_uint),
                            ("gz", ctypes.c_uint), ("bx", ctypes.c_uint), ("by", ctypes.c_uint),
                            ("bz", ctypes.c_uint), ("shared", ctypes.c_uint),
                            ("params", ctypes.POINTER(ctypes.c_void_p)), ("extra", ctypes.c_void_p),
                            ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]
            ptx_here = rptx if impl.startswith(("triton", "tcopy", "tcubin")) else tptx
            sizes = [8 if t in ("u64", "b64", "s64") else 4 for t in param_types(ptx_here)]
            for i in range(count.value):
                kp = _KP()
                rc2 = lib.cuGraphKernelNodeGetParams_v2(ctypes.c_void_p(nodes[i]), ctypes.byref(kp))
                vals = []
                for j, sz in enumerate(sizes):
                    if kp.params and rc2 == 0:
                        vals.append(hex(ctypes.cast(kp.params[j], ctypes.POINTER(
                            ctypes.c_uint64 if sz == 8 else ctypes.c_uint32)).contents.value))
                print("graph", impl, rc, "node", i, rc2, hex(kp.func or 0), kp.gx, kp.bx, kp.by, kp.bz, kp.shared,
                      "extra", kp.extra, "kern", kp.kern, "ctx", kp.ctx, vals, flush=True)
    times = {i: [] for i in impls}
    for k in range(ROUNDS):
        order = impls if k % 2 == 0 else impls[::-1]
        for impl in order:
            fn = raws[impl] if impl in raws else (lambda m=mods[impl]: st["launch"](m, o))  # noqa: E731
            times[impl].append(do_bench_cudagraph(fn, rep=100, return_mode="median"))
    med = {i: statistics.median(v) for i, v in times.items()}
    rec = {"case": case.name, "median_ms": med, "rounds_ms": times,
           "ratio_vs_triton": {i: med["triton"] / med[i] for i in impls}}
    results.append(rec)
    print(case.name, " ".join(f"{i}={med[i]*1e3:.3f}us({med['triton']/med[i]:.4f})" for i in impls), flush=True)
with open(os.path.join(out_dir, "ptx_swap.json"), "w") as f:
    json.dump(results, f, indent=1)
