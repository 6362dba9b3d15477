"""Which arguments a kernel reads and writes (the C++ effects analysis, tessera/Analysis/Effects.h),
named after the kernel's parameters.

`analyze(ttir, jit_fn, arg_types, constexprs)` returns {parameter: {"effect": ..., "causes": [...]}}
for every pointer-like parameter: "read", "written", "read-write" or "untouched", and the
operations that cause it with their source lines. The analysis never misses a write: where it
cannot follow a pointer it assumes the worst and the cause says why. A tensor descriptor
parameter reports the effect on its base; a tuple's pointers are named "t[0]", "t[1]", ...
"""
import json

from .. import _core
from ..language import core

def leaf_names(jit_fn, arg_types, constexprs):
    """The name of each function argument of the kernel's TTIR, in order (descriptor leaves carry
    the descriptor's name)."""
    names = []

    def walk(label, ty):
        if ty is None:
            return
        if isinstance(ty, core.tensor_descriptor_type):
            names.extend([label] * len(ty.leaf_types()))
            return
        if isinstance(ty, tuple):
            for i, t in enumerate(ty):
                walk(f"{label}[{i}]", t)
            return
        names.append(label)

    for pname in jit_fn.arg_names:
        if pname in constexprs:
            continue
        walk(pname, arg_types.get(pname))
    return names


def _merge(a, b):
    r = (a in ("read", "read-write") or b in ("read", "read-write"),
         a in ("written", "read-write") or b in ("written", "read-write"))
    return {(False, False): "untouched", (True, False): "read", (False, True): "written",
            (True, True): "read-write"}[r]


def analyze(ttir, jit_fn, arg_types, constexprs):
    result = _core._native().kernel_effects(ttir, f"{jit_fn.__name__}.ttir")
    if not result.ok:
        raise RuntimeError("effects analysis of the kernel's TTIR failed: " +
                           "; ".join(str(d) for d in result.diagnostics))
    kernels = json.loads(result.module)
    if len(kernels) != 1:
        raise RuntimeError(f"expected one kernel in the TTIR of {jit_fn.__name__}, found {len(kernels)}")
    names = leaf_names(jit_fn, arg_types, constexprs)
    out = {}
    for arg in kernels[0]["arguments"]:
        name = names[arg["index"]] if arg["index"] < len(names) else f"%arg{arg['index']}"
        causes = [{k: c[k] for k in ("what", "read", "write", "file", "line", "column") if k in c}
                  for c in arg["causes"]]
        if name in out:  # a descriptor's leaves
            out[name]["effect"] = _merge(out[name]["effect"], arg["effect"])
            out[name]["causes"] += causes
        else:
            out[name] = {"effect": arg["effect"], "causes": causes}
    return out


def _merge_reports(a, b):
    out = {k: {"effect": v["effect"], "causes": list(v["causes"])} for k, v in a.items()}
    for k, v in b.items():
        if k not in out:
            out[k] = {"effect": v["effect"], "causes": list(v["causes"])}
            continue
        out[k]["effect"] = _merge(out[k]["effect"], v["effect"])
        out[k]["causes"] += [c for c in v["causes"] if c not in out[k]["causes"]]
    return out
