"""The main job: compile and run the example kernels, check them against PyTorch, print results and timings.

    python3 examples/run.py            # on a GPU if Tessera can run there, else in the interpreter
    python3 examples/run.py --installed   # the same with an installed Tessera (pip), not the checkout's

Each kernel is compiled to TTIR (verified by the native core) and then run:
on an NVIDIA GPU when one is present, otherwise on the CPU in the
interpreter (TESSERA_INTERPRET=1).
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INSTALLED = "--installed" in sys.argv[1:]
if not INSTALLED:
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)


def main():
    import torch

    import tessera
    from tessera.compiler import compiler
    from tessera.runtime import specialize
    from tessera.runtime.jit import JITFunction

    gpu = torch.cuda.is_available() and compiler.gpu_backend_available("cuda")
    os.environ["TESSERA_INTERPRET"] = "0" if gpu else "1"
    dev = "cuda" if gpu else "cpu"
    import kernels

    print(f"tessera {tessera.__version__} (LLVM {tessera.llvm_version()}), running on "
          f"{'the GPU' if gpu else 'the CPU interpreter'}"
          + (f"; installed at {os.path.dirname(tessera.__file__)}" if INSTALLED else ""))
    print(f"{'kernel':<12} {'TTIR compile':>13} {'run':>10} {'result':>8}  {'TTIR ops':>8}")
    failures = 0
    orig_getitem = JITFunction.__dict__.get("__getitem__")
    for name, make in kernels.EXAMPLES.items():
        torch.manual_seed(0)
        d = make(torch, dev)
        # Compile once with the real arguments to get the TTIR and its compile time.
        info = {}

        def compile_then_run(self, *args, grid, **kw):
            opts = {k: kw.pop(k) for k in list(kw) if k in ("num_warps", "num_stages")}
            t0 = time.perf_counter()
            types, consts, attrs, _ = specialize.specialize(self, self.bind(args, kw))
            info["ttir"], _ = compiler.make_ttir(self, types, consts, attrs)
            info["compile_s"] = time.perf_counter() - t0
            return self.run(*args, grid=grid, **kw, **opts)
        # kernel[grid] goes to the C++ launcher; a Python __getitem__ on the class takes over.
        JITFunction.__getitem__ = lambda self, grid: (lambda *a, **k: compile_then_run(self, *a, grid=grid, **k))
        try:
            t0 = time.perf_counter()
            d["launch"]()
            if gpu:
                torch.cuda.synchronize()
            run_s = time.perf_counter() - t0 - info.get("compile_s", 0.0)
        finally:
            if orig_getitem is None:
                del JITFunction.__getitem__
            else:
                JITFunction.__getitem__ = orig_getitem
        out, ref = d["out"](), d["ref"]()
        ok = out.dtype == ref.dtype and torch.allclose(out.float(), ref.float(), atol=d["tol"], rtol=d["tol"])
        failures += not ok
        nops = sum(1 for line in info["ttir"].splitlines() if " = " in line and not line.startswith("#"))
        print(f"{name:<12} {info['compile_s'] * 1e3:>10.1f} ms {run_s * 1e3:>7.1f} ms {'ok' if ok else 'WRONG':>8}"
              f"  {nops:>8}")
    print(f"{len(kernels.EXAMPLES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
