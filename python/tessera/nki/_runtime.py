"""Launching tessera.nki kernels on the interpreter's core (see tessera.nki.jit)."""

import threading

import numpy as np

from ..interpreter import hooks, numerics, source
from ..interpreter.builder import InterpreterBuilder
from ..interpreter.memory import Memory
from ..language import core
from ._tensor import Tensor

_state = threading.local()


class _Launch:
    def __init__(self, name, memory, use_torch):
        self.name = name
        self.memory = memory
        self.use_torch = use_torch
        self.outputs = []       # the launch's HBM outputs, in the order programs make them
        self.made = 0           # how many the running program has asked for
        self.record = None      # the KernelRecord clients got, when observed


def _numpy_dtype(dt):
    for np_dt, tl_dt in numerics._NUMPY_TO_TL.items():
        if tl_dt == dt:
            return np_dt
    return None


def _wrap(name, value, memory):
    """An argument as the kernel sees it: a torch tensor or numpy array as a Tensor in HBM
    (registered with the interpreter's memory like a tessera.language argument), a scalar as is."""
    from .. import interpreter
    is_torch = interpreter._is_torch_tensor(value)
    if not is_torch and not isinstance(value, np.ndarray):
        return value
    if is_torch:
        dev = getattr(value, "device", None)
        if dev is not None and dev.type != "cpu":
            raise ValueError(f"argument '{name}' is a tensor on {dev}; tessera.nki runs kernels on the CPU "
                             f"interpreter: pass CPU tensors")
        strides = tuple(value.stride())
    else:
        if any(s % value.itemsize for s in value.strides):
            raise ValueError(f"argument '{name}': strides {value.strides} are not whole elements")
        strides = tuple(s // value.itemsize for s in value.strides)
    ptr = interpreter._wrap_arg(name, value, memory)
    return Tensor(name, value, ptr, tuple(value.shape), strides, ptr.dtype.element_ty)


def output(shape, dtype, name):
    """The running program's next HBM output (nl.ndarray in HBM): made by the launch's first
    program, the same tensor for every later one."""
    launch = getattr(_state, "launch", None)
    if launch is None:
        raise RuntimeError("nl.ndarray in HBM is only available while a tessera.nki kernel runs")
    if not isinstance(launch, _Launch):  # compiling (tessera.nki.compile): a further kernel argument
        return launch.output(shape, dtype, name)
    k = launch.made
    launch.made += 1
    if k < len(launch.outputs):
        t = launch.outputs[k]
        if t.shape != shape or t.dtype != dtype:
            raise ValueError(f"output {k} of {launch.name}: a program asked for {list(shape)} {dtype}, but the "
                             f"first program made it {list(t.shape)} {t.dtype}: every program must make the same "
                             f"outputs in the same order")
        return t
    label = name or f"output{k}"
    if launch.use_torch:
        import torch
        inverse = {v: t for t, v in numerics.torch_dtype_map().items()}
        if dtype not in inverse:
            raise TypeError(f"{label}: dtype {dtype} has no torch equivalent")
        array = torch.zeros(shape, dtype=inverse[dtype])
    else:
        np_dt = _numpy_dtype(dtype)
        if np_dt is None:
            raise TypeError(f"{label}: dtype {dtype} has no numpy equivalent (pass torch tensors to use it)")
        array = np.zeros(shape, dtype=np_dt)
    t = _wrap(label, array, launch.memory)
    launch.outputs.append(t)
    if launch.record is not None:  # clients learn of the new tensor (its accesses name it)
        hooks.kernel_tensor(launch.record, label, array)
    return t


def _unwrap_result(result):
    if isinstance(result, Tensor):
        return result.array
    if isinstance(result, (tuple, list)):
        return type(result)(_unwrap_result(r) for r in result)
    if isinstance(result, core.tensor):
        raise TypeError("a tessera.nki kernel returns tensors in HBM (nl.ndarray(..., buffer=nl.shared_hbm)), "
                        "not tiles: store the tile into an output and return that")
    return result


def launch(kernel, grid, args, kwargs):
    """Runs `kernel` (a tessera.nki.jit function) on every program of `grid`; returns what the
    kernel returns, with its HBM tensors as the host arrays they live in."""
    from .. import interpreter
    fn = kernel.fn
    bound = kernel.signature.bind(*args, **kwargs)
    bound.apply_defaults()
    grid3 = interpreter._normalize_grid(grid, dict(bound.arguments), fn.__name__)
    memory = Memory()
    use_torch = any(interpreter._is_torch_tensor(v) for v in bound.arguments.values())
    wrapped = {name: _wrap(name, v, memory) for name, v in bound.arguments.items()}
    builder = InterpreterBuilder(memory, grid3, fn.__name__)
    source.register_code(fn.__code__)
    run = _Launch(fn.__name__, memory, use_torch)
    observing = hooks.active()
    if observing:
        krec = hooks.KernelRecord(fn.__name__, grid3, fn.__code__.co_filename, dict(bound.arguments))
        hooks.kernel_start(krec)
        run.record = krec
    previous = getattr(_state, "launch", None)
    _state.launch = run

    def program():
        run.made = 0  # (each program asks for the launch's outputs in order)
        return fn(**wrapped)
    try:
        result = interpreter.run_programs(builder, grid3, program)
    finally:
        _state.launch = previous
    if observing:
        hooks.kernel_end(krec)
    return _unwrap_result(result)
