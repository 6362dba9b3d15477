"""tessera.nki kernels compiled through `tt` for a GPU (tessera.nki.compile).

The kernel's Python runs once with the compiler's IR builder instead of the interpreter's: its
tiles become `tt` values, its HBM tensors kernel arguments (shapes and strides fixed by the
arguments it is compiled for; the outputs it makes with nl.ndarray become further pointer
arguments), Python loops (`nl.affine_range`, `sequential_range`, `static_range`) unroll. What
maps: everything tessera.nki provides whose control flow does not depend on tile values —
loads and stores with index tiles and masks, elementwise math, reductions, nl.matmul (tl.dot),
transposes, program ids. What does not: a Python `if`/`while` on a tile's value (a
CompilationError naming the construct). The result is compiled by the target's backend and
launched by it (Backend.launch_loaded) with the arguments' device pointers."""

import numpy as np

from .. import backends
from ..language import core
from . import _runtime
from ._tensor import Tensor


class NkiCompileError(RuntimeError):
    """A tessera.nki kernel uses a construct that does not compile through tt."""


class CompiledNki:
    """A tessera.nki kernel compiled for `target`: `asm` (ttir, ttgir, llir, ptx, cubin …),
    `metadata`, `outputs` [(name, shape, tl dtype)]; call it with device tensors shaped like the
    ones it was compiled for (`kernel(*args)`), or with a grid (`kernel[grid](*args)`), to run it."""

    def __init__(self, name, asm, metadata, params, outputs, shapes, grid):
        self.name = name
        self.asm = asm
        self.metadata = metadata
        self.params = params      # [(argument name or None for an output, kind)]
        self.outputs = outputs
        self.shapes = shapes      # {argument name: (shape, strides)} compiled for
        self.grid = grid
        self._loaded = {}

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self._run(grid, args, kwargs)

    def __call__(self, *args, **kwargs):
        return self._run(self.grid, args, kwargs)

    def _run(self, grid, args, kwargs):
        import torch
        backend, _ = backends.for_target(self.metadata["target"])
        if not backend.is_available():
            raise RuntimeError(f"{self.name}: cannot launch on a GPU ({backend.unavailable_reason()})")
        if self.metadata.get("global_scratch_size"):
            raise RuntimeError(f"{self.name}: the compiled kernel needs global scratch memory, which "
                               f"tessera.nki's launcher does not pass")
        names = list(self.shapes)
        bound = dict(zip(names, args))
        bound.update(kwargs)
        device = None
        for n, (shape, strides) in self.shapes.items():
            t = bound.get(n)
            if not isinstance(t, torch.Tensor) or t.device.type != backend.torch_device_type():
                raise TypeError(f"{self.name}: argument '{n}' must be a tensor on the GPU "
                                f"(device type '{backend.torch_device_type()}')")
            if tuple(t.shape) != shape or tuple(t.stride()) != strides:
                raise ValueError(f"{self.name}: argument '{n}' is {list(t.shape)} with strides {list(t.stride())}; "
                                 f"the kernel was compiled for {list(shape)} with strides {list(strides)}")
            device = t.device.index
        from ..interpreter import numerics
        inverse = {v: k for k, v in numerics.torch_dtype_map().items()}
        where = torch.device(backend.torch_device_type(), device)
        outs = [torch.empty(shape, dtype=inverse[dt], device=where) for _, shape, dt in self.outputs]
        ptrs = []
        k = 0
        for name, kind in self.params:
            if kind == "output":
                ptrs.append(outs[k].data_ptr())
                k += 1
            else:
                ptrs.append(bound[name].data_ptr())
        loaded = self._loaded.get(device)
        if loaded is None:
            loaded = self._loaded[device] = backend.load(self, device)
        grid3 = tuple(grid) + (1,) * (3 - len(grid))
        backend.launch_loaded(self, loaded, grid3, ptrs, backend.current_stream(device))
        return outs[0] if len(outs) == 1 else tuple(outs)


class _Trace:
    """The compile's stand-in for a launch: outputs become further pointer arguments."""

    def __init__(self, func, params):
        self.func = func
        self.params = params
        self.outputs = []

    def output(self, shape, dtype, name):
        from ..compiler.ir_builder import Value
        label = name or f"output{len(self.outputs)}"
        ty = core.pointer_type(dtype)
        v = Value(f"%{label}_{len(self.func.entry.args)}", ty)
        self.func.entry.args.append(v)
        self.func.arg_attrs.append({"tt.divisibility": "16 : i32"})
        self.params.append((label, "output"))
        strides = tuple(int(np.prod(shape[d + 1:])) for d in range(len(shape)))
        t = Tensor(label, None, core.tensor(v, ty), shape, strides, dtype)
        self.outputs.append((label, tuple(shape), dtype))
        return t


def compile(kernel, *args, grid=(1,), target=None, num_warps=4, **kwargs):
    """Compile `kernel` (a tessera.nki.jit function) for the tensors `args` (torch tensors on any
    device, or numpy arrays: their shapes, strides and dtypes are what it is compiled for) and
    `grid` (program ids it may take). Returns a CompiledNki."""
    from .. import _core
    from ..compiler import compiler
    from ..compiler.errors import CompilationError
    from ..compiler.ir_builder import IRBuilder
    from ..interpreter import numerics
    fn = kernel.fn
    bound = kernel.signature.bind(*args, **kwargs)
    bound.apply_defaults()
    target = target or backends.default_target()
    b = IRBuilder()
    types, attrs, names, params = [], [], [], []
    tensors = {}
    for name, v in bound.arguments.items():
        if hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, (int, float)):
            if hasattr(v, "stride") and callable(v.stride):
                strides = tuple(v.stride())
                dt = numerics.torch_dtype_map().get(v.dtype)
            else:
                strides = tuple(s // v.itemsize for s in v.strides)
                dt = numerics.numpy_to_tl(v.dtype)
            if dt is None:
                raise TypeError(f"argument '{name}': dtype {v.dtype} is not supported")
            tensors[name] = (tuple(v.shape), strides, dt)
            types.append(core.pointer_type(dt))
            attrs.append({"tt.divisibility": "16 : i32"})
            names.append(name)
            params.append((name, "input"))
    func = b.create_func(fn.__name__, types, attrs, result_types=[], visibility="public", arg_names=names)
    b.block, b.func = func.entry, func
    wrapped = {}
    for name, v in bound.arguments.items():
        if name in tensors:
            shape, strides, dt = tensors[name]
            i = names.index(name)
            wrapped[name] = Tensor(name, None, core.tensor(func.args[i], types[i]), shape, strides, dt)
        else:
            wrapped[name] = v
    trace = _Trace(func, params)
    previous = getattr(_runtime._state, "launch", None)
    _runtime._state.launch = trace
    try:
        with core.use_builder(b):
            fn(**wrapped)
    except TypeError as e:
        if "only known when the kernel runs" in str(e):
            raise NkiCompileError(f"{fn.__name__}: {e} — control flow on tile values does not compile through "
                                  f"tt; it runs in the interpreter") from None
        raise
    finally:
        _runtime._state.launch = previous
    b.create_return([])
    b.finish_func(func)
    text = b.render_module()
    res = _core._native().run_passes(text, compiler.TTIR_PIPELINE, f"{fn.__name__}.ttir")
    if not res.ok:
        msgs = "; ".join(d.message for d in res.diagnostics)
        raise NkiCompileError(f"{fn.__name__}: its tt does not verify ({msgs})")
    try:
        asm, meta = compiler.compile_ttir(res.module, fn.__name__, target, {"num_warps": num_warps})
    except CompilationError as e:
        raise NkiCompileError(f"{fn.__name__}: {e}") from None
    asm = {"ttir": res.module, **asm}
    meta.update(name=fn.__name__, target=target, num_warps=num_warps, num_stages=3)
    shapes = {n: (shape, strides) for n, (shape, strides, _) in tensors.items()}
    return CompiledNki(fn.__name__, asm, meta, trace.params, trace.outputs, shapes, tuple(grid))
