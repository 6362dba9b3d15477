"""PyTorch operators from Tessera kernels (tessera.torch).

    add = tessera.torch.custom_op(
        "mylib::add", add_kernel,
        signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32"},
        constexprs={"BLOCK": 1024},
        grid=lambda args: (tessera.cdiv(args["n"], 1024),))
    add(x, y, out, n)                 # or torch.ops.mylib.add(x, y, out, n)

registers `mylib::add` with torch.library: its schema has one argument per run-time parameter of
the kernel (pointers as Tensor, integers as int, floats as float, bools as bool), and the
parameters the kernel writes — found by Tessera's effects analysis of the kernel compiled for
`signature`, stores through device-created tensor descriptors included — are declared mutated
(`Tensor(a!) out`), so a graph compiler (torch.compile's functionalization) knows what the op
changes and what it only reads; the op returns nothing. `mutates_args` may name them instead
(the analysis then checks the list: a kernel that writes an argument the list leaves out is an
error, never a silently wrong graph). The implementation launches `kernel[grid(args)](...)` on
the arguments' device (and under TESSERA_INTERPRET=1 on CPU tensors); a Meta implementation
(nothing to compute: the op only mutates) lets fake tensors trace it.

The returned `Op` has `.schema`, `.mutated` (parameter names), `.effects` (the analysis' report)
and `.op` (the torch.ops overload).
"""

__all__ = ["custom_op", "Op"]

_LIBRARIES = {}  # namespace -> torch.library.Library (one "DEF" library per namespace)


def _schema_type(name, spec):
    from ..compiler.compiler import _parse_sig_entry
    ty, _ = _parse_sig_entry(name, spec)
    if ty.is_ptr():
        return "Tensor"
    if ty.is_bool():
        return "bool"
    if ty.is_int():
        return "int"
    if ty.is_floating():
        return "float"
    raise TypeError(f"parameter '{name}': {spec!r} has no PyTorch schema type (pointers, integers, floats, bools)")


class Op:
    """A registered operator: call it like the torch op."""

    def __init__(self, qualname, schema, mutated, effects, op):
        self.qualname, self.schema, self.mutated, self.effects, self.op = qualname, schema, mutated, effects, op

    def __call__(self, *args, **kwargs):
        return self.op(*args, **kwargs)

    def __repr__(self):
        return f"<tessera.torch op {self.schema}>"


def custom_op(qualname, kernel, *, signature, grid, constexprs=None, mutates_args="auto", target=None,
              num_warps=None, num_stages=None):
    """Registers `kernel` (a @tessera.jit function) as the PyTorch operator `qualname`
    ("namespace::name"). signature: {parameter: type} for its run-time parameters, as
    tessera.compile takes it (the effects analysis compiles the kernel to TTIR for it); grid:
    a tuple or a function of {parameter: value} returning one; constexprs: fixed values of its
    constexpr parameters; mutates_args: "auto" (from the effects analysis) or the names of the
    parameters it writes (checked against the analysis)."""
    import torch

    from .. import backends
    from ..runtime.jit import JITFunction
    if not isinstance(kernel, JITFunction):
        raise TypeError(f"tessera.torch.custom_op registers @tessera.jit kernels, got {kernel!r}")
    ns, sep, name = qualname.partition("::")
    if not sep or not ns.isidentifier() or not name.isidentifier():
        raise ValueError(f"an operator's name is 'namespace::name', got {qualname!r}")
    constexprs = dict(constexprs or {})
    params = [p for p in kernel.arg_names if p not in kernel.constexpr_names and p not in constexprs]
    missing = [p for p in params if p not in signature]
    extra = [p for p in signature if p not in params]
    if missing or extra:
        raise TypeError(f"signature of {qualname}: " + "; ".join(
            ([f"no type for {', '.join(missing)}"] if missing else [])
            + ([f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not a run-time parameter of "
                f"{kernel.__name__}"] if extra else [])))
    if not (callable(grid) or isinstance(grid, (tuple, list, int))):
        raise TypeError(f"grid of {qualname} must be a tuple or a function of the arguments, got {grid!r}")

    # What the kernel writes, from its TTIR.
    import tessera
    options = {k: v for k, v in (("num_warps", num_warps), ("num_stages", num_stages)) if v is not None}
    compiled = tessera.compile(kernel, signature=signature, constexprs=constexprs,
                               target=target or backends.default_target(), stages="ttir", **options)
    effects = compiled.metadata.get("effects")
    if effects is None:
        raise RuntimeError(f"{qualname}: the effects analysis of {kernel.__name__} failed, so what it writes is "
                           f"unknown and the operator is not registered: "
                           f"{compiled.metadata.get('effects_error', 'no report')}")
    written = [p for p in params if effects.get(p, {}).get("effect") in ("written", "read-write")]
    if mutates_args == "auto":
        mutated = written
    else:
        mutated = list(mutates_args)
        unknown = [p for p in mutated if p not in params or _schema_type(p, signature[p]) != "Tensor"]
        if unknown:
            raise ValueError(f"mutates_args of {qualname}: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} "
                             f"not tensor parameters of {kernel.__name__}")
        undeclared = [p for p in written if p not in mutated]
        if undeclared:
            where = "; ".join(f"{p}: " + ", ".join(f"{c['what']} at line {c['line']}"
                                                   for c in effects[p].get("causes", []) if c.get("write"))
                              for p in undeclared)
            raise ValueError(f"{qualname}: {kernel.__name__} writes {', '.join(undeclared)}, which mutates_args leaves "
                             f"out ({where}); a graph compiler would take them as unchanged")

    alias = iter("abcdefghijklmnopqrstuvwxyz")
    args = []
    for p in params:
        t = _schema_type(p, signature[p])
        if p in mutated:
            t = f"Tensor({next(alias)}!)"
        args.append(f"{t} {p}")
    schema = f"{name}({', '.join(args)}) -> ()"

    lib = _LIBRARIES.get(ns)
    if lib is None:
        try:  # a fragment: the namespace may hold the user's own operators too
            lib = torch.library.Library(ns, "FRAGMENT")
        except ValueError:  # (PyTorch 1.x has no fragments)
            lib = torch.library.Library(ns, "DEF")
        _LIBRARIES[ns] = lib
    try:
        lib.define(schema)
    except RuntimeError as e:
        raise ValueError(f"cannot register {qualname} ({schema}): {e}") from None

    def launch(*call_args):
        values = dict(zip(params, call_args))
        g = grid(values) if callable(grid) else grid
        kernel[g](**values, **constexprs, **options)  # (by name: constexprs may come first)

    def meta(*call_args):  # only mutations: nothing to compute for fake tensors
        return None

    # every device's tensors (the kernel's backend launches on its device), fake tensors apart;
    # autograd: nothing to differentiate, the call goes on below it (meta tensors too)
    lib.impl(name, launch, "CompositeExplicitAutograd")
    lib.impl(name, meta, "Meta")
    op = getattr(getattr(torch.ops, ns), name).default

    positions = [params.index(p) for p in mutated]
    increment = getattr(getattr(torch.autograd, "graph", None), "increment_version", None)

    def below_autograd(*call_args):
        guard = torch._C._AutoDispatchBelowAutograd()  # (a context manager in newer PyTorch, a guard in 1.x)
        if hasattr(guard, "__enter__"):
            with guard:
                op(*call_args)
        else:
            try:
                op(*call_args)
            finally:
                del guard
        # The written tensors changed: a tensor autograd saved before now fails its version check
        # instead of giving a wrong gradient.
        for i in positions:
            t = call_args[i]
            if increment is not None:
                increment(t)
            else:  # (PyTorch 1.x: an in-place self-copy bumps the version)
                with torch.no_grad():
                    t.copy_(t)
    lib.impl(name, below_autograd, "Autograd")
    return Op(qualname, f"{ns}::{schema}", mutated, effects, op)

