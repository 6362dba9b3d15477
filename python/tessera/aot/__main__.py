"""python -m tessera.aot FILE.py:KERNEL --signature "..." [--signature ...] [--constexpr NAME=VALUE ...]
[--target BACKEND:ARCH] [--num-warps 4] [--num-stages 3] [--name C_NAME] -o OUT_DIR

Writes OUT_DIR/<name>.h and OUT_DIR/<name>.c (see tessera.aot)."""

import argparse
import ast
import importlib.util
import os
import sys

from . import AOTError, generate


def _load(spec):
    path, sep, attr = spec.rpartition(":")
    if not sep or not path or not attr:
        raise AOTError(f"expected FILE.py:KERNEL, got {spec!r}")
    if not os.path.isfile(path):
        raise AOTError(f"{path}: no such file")
    name = "_tessera_aot_" + os.path.splitext(os.path.basename(path))[0]
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    if not hasattr(module, attr):
        raise AOTError(f"{path} defines no {attr!r}")
    return getattr(module, attr)


def _constexpr(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        v = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        v = value.strip()
    return name.strip(), v


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tessera.aot", description=__doc__.split("\n\n")[0])
    ap.add_argument("kernel", help="FILE.py:KERNEL, a @tessera.jit function")
    ap.add_argument("--signature", "-s", action="append", required=True,
                    help='types of the run-time parameters in order, e.g. "*fp16:16, *fp16:16, i32" (repeat for '
                         "more specializations, most specialized first)")
    ap.add_argument("--constexpr", "-c", action="append", type=_constexpr, default=[],
                    help="a tl.constexpr parameter's value, NAME=VALUE")
    ap.add_argument("--target", default=None, help="<backend>:<arch> (default: the first backend's default)")
    ap.add_argument("--num-warps", type=int, default=4)
    ap.add_argument("--num-stages", type=int, default=3)
    ap.add_argument("--name", help="the C function's name (default: the kernel's)")
    ap.add_argument("-o", "--out", required=True, help="the directory to write <name>.h and <name>.c to")
    args = ap.parse_args(argv)
    try:
        fn = _load(args.kernel)
        files = generate(fn, args.signature, dict(args.constexpr), target=args.target, num_warps=args.num_warps,
                         num_stages=args.num_stages, name=args.name, out_dir=args.out)
    except AOTError as e:
        print(f"tessera.aot: {e}", file=sys.stderr)
        return 2
    for fname in files:
        print(os.path.join(args.out, fname))
    return 0


if __name__ == "__main__":
    sys.exit(main())
