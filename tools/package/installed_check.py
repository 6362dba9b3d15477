"""Checks an installed Tessera (run by tools/package/wheel_check.sh with the virtual environment's
Python, from a folder outside the checkout): where it was imported from, the environment report,
a kernel compiled to a cubin for cuda:90, the bundled tessera-opt, and the native libraries'
dependencies. Exits non-zero with the reason on the first failure."""
import argparse
import glob
import os
import subprocess
import sys


def check(ok, what):
    if not ok:
        sys.exit(f"installed check: FAILED: {what}")
    print(f"ok: {what}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", required=True)
    ap.add_argument("--conformance", required=True)
    ap.add_argument("--opt", required=True, help="the console command tessera-opt")
    a = ap.parse_args()

    import tessera
    import tessera.language as tl
    pkg = os.path.dirname(os.path.realpath(tessera.__file__))
    check(not pkg.startswith(os.path.realpath(a.checkout) + os.sep),
          f"tessera imported from the installed package ({pkg}), not the checkout")
    from tessera import _C
    check(os.path.dirname(os.path.realpath(_C.__file__)) == pkg, "tessera._C is the installed extension")

    report = subprocess.run([sys.executable, "-m", "tessera"], capture_output=True, text=True)
    check(report.returncode == 0 and f"tessera {tessera.__version__}" in report.stdout,
          "python -m tessera prints the environment report")

    @tessera.jit
    def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)

    k = tessera.compile(scale, signature={"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32"},
                        constexprs={"BLOCK": 256}, target="cuda:90")
    cubin = k.asm.get("cubin")
    check(isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF",
          f"a kernel compiled to a cuda:90 cubin ({len(cubin or b'')} bytes; ptxas found)")
    check(".visible .entry scale" in k.asm["ptx"], "its PTX has the kernel entry")

    ttir = os.path.join(a.conformance, "triton-3.6", "add.ttir")
    r = subprocess.run([a.opt, ttir], capture_output=True, text=True)
    check(r.returncode == 0 and "tt.func" in r.stdout, f"installed tessera-opt ({a.opt}) reads {ttir}")
    r = subprocess.run([a.opt, ttir, "--pass-pipeline=builtin.module(convert-tt-to-ttg{num-warps=4 target=cuda:90})",
                        "-o", os.devnull],
                       capture_output=True, text=True)
    check(r.returncode == 0, "installed tessera-opt runs a pass")

    natives = [os.path.join(pkg, "libtessera.so"), os.path.join(pkg, "_bin", "tessera-opt")] + \
        glob.glob(os.path.join(pkg, "_C*.so"))
    for f in natives:
        deps = subprocess.run(["ldd", f], capture_output=True, text=True).stdout
        bad = [line.strip() for line in deps.splitlines() if "libLLVM" in line or "libMLIR" in line]
        missing = [line.strip() for line in deps.splitlines() if "not found" in line]
        check(not bad and not missing, f"{os.path.relpath(f, pkg)} needs no LLVM/MLIR shared library "
              f"and finds its own ({', '.join(bad + missing) or 'ldd clean'})")


if __name__ == "__main__":
    main()
