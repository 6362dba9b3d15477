"""The CPU interpreter of Tessera kernels (TESSERA_INTERPRET=1).

Like Triton's interpreter, the kernel's Python function runs directly, program by program,
with language tensors whose handles are numpy arrays; Python control flow works because the
values are concrete. Memory accesses go through a bounds-checked model of the argument
tensors (memory.py); an unmasked access outside them raises OutOfBoundsError naming the
kernel source line, the program id and the argument. Instrumentation clients (hooks.py,
clients.py) observe loads, stores, atomics, dots, reductions, scans, calls of @jit functions and
control flow (if/while decisions, for iterations). The programs of a launch run in batches with
the results of running them one after another (batch.py; TESSERA_INTERPRET_BATCH=0: serially).
"""

import contextlib
import operator
import os

import numpy as np

from ..language import core
from . import batch, hooks, numerics, source
from .assign import interpreted_function
from .builder import BlockPtr, InterpreterBuilder, register_extern
from .hooks import (AtomicRecord, BranchRecord, CallRecord, Client, DotRecord, KernelRecord, LoadRecord,
                    ReduceRecord, ScanRecord, StoreRecord, add_client, observe, remove_client)
from .memory import Memory, OutOfBoundsError

__all__ = [
    "run", "run_kernel", "last_launch", "OutOfBoundsError", "InterpreterBuilder", "BlockPtr", "Memory", "observe",
    "add_client", "register_extern",
    "remove_client", "Client", "LoadRecord", "StoreRecord", "AtomicRecord", "DotRecord", "ReduceRecord",
    "ScanRecord", "KernelRecord", "CallRecord", "BranchRecord",
]


def last_launch(kernel):
    """How the interpreter ran `kernel`'s last launch (a @jit function): a dict with 'batches'
    (batches run), 'runs' (runs of the kernel's Python, more than batches where programs took
    different paths), 'batched' and 'serial' (programs run each way) and 'fallback' (why programs
    ran serially: None, or e.g. 'TESSERA_INTERPRET_BATCH=0', 'clients attached', 'Conflict',
    'TooDivergent', 'tl.device_print', 'block pointers'); None before its first launch."""
    stats = getattr(kernel, "__dict__", {}).get("_interpreter_last_launch")
    return dict(stats) if stats is not None else None


def _is_torch_tensor(x):
    t = type(x)
    return t.__module__.startswith("torch") and hasattr(x, "data_ptr") and hasattr(x, "stride")


_TORCH_MAP = None


def _torch_elt(name, t):
    global _TORCH_MAP
    if _TORCH_MAP is None:
        _TORCH_MAP = numerics.torch_dtype_map()
    elt = _TORCH_MAP.get(t.dtype)
    if elt is None:
        raise TypeError(f"argument '{name}': torch dtype {t.dtype} is not supported by tessera kernels")
    return elt


def _wrap_descriptor(name, v, memory):
    """A TensorDescriptor argument (tessera.tools.tensor_descriptor) as the tl.tensor_descriptor the
    kernel sees: its sizes and strides as int32/int64 scalars like int arguments, the last stride
    the constant 1 (as in compiled kernels)."""
    shape, strides, block = v.launch_parts()
    base = _wrap_arg(f"{name}.base", v.base, memory)
    sizes = [_wrap_arg(f"{name}.shape[{i}]", s, memory) for i, s in enumerate(shape)]
    steps = [_wrap_arg(f"{name}.strides[{i}]", s, memory) for i, s in enumerate(strides[:-1])] + [1]
    elt = base.dtype.element_ty
    ty = core.tensor_descriptor_type(core.block_type(elt, block), [s.dtype for s in sizes],
                                     [s if isinstance(s, int) else s.dtype for s in steps], v.padding)
    return core.tensor_descriptor(base, sizes, steps, ty)


def _wrap_arg(name, v, memory):
    if v is None:
        return None
    if getattr(type(v), "__tessera_tensor_descriptor__", False):  # checked before tuples: it is one
        return _wrap_descriptor(name, v, memory)
    wrapped_dtype = getattr(v, "dtype", None)
    if isinstance(wrapped_dtype, core.dtype) and hasattr(v, "base"):  # a TensorWrapper (reinterpret)
        base = _wrap_arg(name, v.base, memory)
        return core.tensor(numerics.make_ptr(np.array(base.handle, dtype=np.int64), wrapped_dtype),
                           core.pointer_type(wrapped_dtype))
    if _is_torch_tensor(v):
        dev = getattr(v, "device", None)
        if dev is not None and dev.type != "cpu":
            raise ValueError(f"argument '{name}' is a tensor on {dev}, but the interpreter (TESSERA_INTERPRET=1) "
                             f"runs on the CPU: pass CPU tensors (e.g. {name}.cpu()) or unset TESSERA_INTERPRET")
        elt = _torch_elt(name, v)
        base = memory.register(name, v, elt)
        return core.tensor(numerics.make_ptr(np.array(base, dtype=np.int64), elt), core.pointer_type(elt))
    if isinstance(v, np.ndarray):
        elt = numerics.numpy_to_tl(v.dtype)
        base = memory.register(name, v, elt)
        return core.tensor(numerics.make_ptr(np.array(base, dtype=np.int64), elt), core.pointer_type(elt))
    if isinstance(v, core.tensor):
        return v
    if isinstance(v, (bool, np.bool_)):
        return core.tensor(np.array(bool(v), dtype=np.bool_), core.int1)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if -2**31 <= v < 2**31:
            return core.tensor(np.array(v, dtype=np.int32), core.int32)
        if -2**63 <= v < 2**63:
            return core.tensor(np.array(v, dtype=np.int64), core.int64)
        if 2**63 <= v < 2**64:
            return core.tensor(np.array(v, dtype=np.uint64), core.uint64)
        raise ValueError(f"argument '{name}': integer {v} does not fit in 64 bits")
    if isinstance(v, (float, np.floating)):
        return core.tensor(np.array(float(v), dtype=np.float32), core.float32)
    if isinstance(v, (tuple, list)):
        return tuple(_wrap_arg(f"{name}[{i}]", x, memory) for i, x in enumerate(v))
    # As the compiled launch path says it (runtime/specialize.describe).
    raise TypeError(f"{name}: unsupported type {type(v).__name__} (expected a tensor, int, float, bool, "
                    f"None, or a tuple of them)")


def _normalize_grid(grid, bound, name="kernel"):
    """The grid as 3 ints, checked as the compiled launch path checks it (the same errors)."""
    if callable(grid):
        grid = grid(dict(bound))
    grid = core._unwrap(grid)
    if isinstance(grid, (int, np.integer)):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)):
        raise TypeError(f"grid of {name} must be an int, a tuple of 1 to 3 ints, or a callable of the "
                        f"arguments returning one; got {grid!r}")
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"grid of {name} must have 1 to 3 dimensions, got {grid!r}")
    out = []
    for i, g in enumerate(grid):
        g = core._unwrap(g)
        try:
            gi = operator.index(g)  # ints (and numpy ints); not floats or strings
        except TypeError:
            raise TypeError(f"grid of {name}: dimension {i} must be an int, got {g!r}") from None
        limit = 0x7FFFFFFF if i == 0 else 65535
        if not 0 <= gi <= limit:
            raise ValueError(f"grid of {name}: dimension {i} is {gi}, outside 0..{limit}")
        out.append(gi)
    while len(out) < 3:
        out.append(1)
    return tuple(out)


def _arg_type(v):
    if v is None:
        return None
    if isinstance(v, tuple):
        return tuple(_arg_type(x) for x in v)
    return v.type


def _language_check_key(jit_fn, types, consts):
    try:
        key = (jit_fn.src, tuple(sorted((k, str(t)) for k, t in types.items())),
               tuple(sorted((k, type(v).__name__, repr(v)) for k, v in consts.items())))
        hash(key)
        return key
    except (TypeError, RuntimeError, OSError):  # unhashable constants; no source (the check says so)
        return None


def run_programs(builder, grid3, program, profile_name=None):
    """Runs `program()` once per program of `grid3` (z, then y, then x outermost first) with
    `builder` installed and its pid set; returns the last program's result. With
    `profile_name`, an active tessera.profiler session is told of the launch and of each program
    (their host times)."""
    profiler = hooks.profiler() if profile_name is not None else None
    launch = None
    if profiler is not None:
        builder.profile_launch = launch = profiler.interpreter_launch(profile_name, grid3)
    result = None
    try:
        with numerics.quiet_run(), core.use_builder(builder):
            for z in range(grid3[2]):
                for y in range(grid3[1]):
                    for x in range(grid3[0]):
                        builder.pid = (x, y, z)
                        if launch is not None:
                            launch.program_start(builder.pid)
                        result = program()
    finally:
        if profiler is not None:
            profiler.interpreter_launch_end(launch)
    return result


def run_kernel(jit_fn, grid, args, kwargs, num_warps=4, num_stages=3, check=None, **ignored):
    """Run `jit_fn` on `grid` in the interpreter; stores land in the caller's tensors.

    check(jit_fn, arg_types, constexprs), when given, runs first, once per specialization: the
    launch path passes the compiler's front-end check, so that what the compiler rejects
    (`break`, `try`, comprehensions, `yield`, calls of plain Python functions, a variable
    defined on one branch only, ...) is rejected here too, with the same CompilationError at
    the same line, instead of running as the Python it also is."""
    bound = jit_fn.bind(args, kwargs)
    raw = {name: core._unwrap(v) for name, v in bound.items()}
    grid3 = _normalize_grid(grid, raw, jit_fn.__name__)
    memory = Memory()
    wrapped = {}
    for name, v in raw.items():
        if name in jit_fn.constexpr_names:
            wrapped[name] = v
        else:
            wrapped[name] = _wrap_arg(name, v, memory)
    consts = {n: v for n, v in wrapped.items() if n in jit_fn.constexpr_names}
    types = {n: _arg_type(v) for n, v in wrapped.items() if n not in jit_fn.constexpr_names}
    key = _language_check_key(jit_fn, types, consts)
    if check is not None:
        checked = jit_fn.__dict__.setdefault("_interpreter_checked", set())
        if key is None or key not in checked:
            check(jit_fn, types, consts)
            if key is not None:
                checked.add(key)
    builder = InterpreterBuilder(memory, grid3, jit_fn.__name__)
    fn = interpreted_function(jit_fn)
    source.register_code(fn.__code__)
    observing = hooks.active()
    if observing:
        krec = KernelRecord(jit_fn.__name__, grid3, jit_fn.fn.__code__.co_filename, dict(raw))
        hooks.kernel_start(krec)
    cap = batch.setting()
    total = grid3[0] * grid3[1] * grid3[2]
    verify = batch.verifying()
    why = batch.serial_reason(jit_fn, key, cap, total, observing, hooks.profiler() is not None, verify)
    if why is None:
        run = batch.run_verified if verify else batch.run_launch
        stats = run(jit_fn, key, fn, wrapped, memory, grid3, cap, builder)
    else:
        run_programs(builder, grid3, lambda: fn(**wrapped), profile_name=jit_fn.__name__)
        stats = batch.launch_stats(serial=total, fallback=why)
    jit_fn.__dict__["_interpreter_last_launch"] = stats
    if observing:
        hooks.kernel_end(krec)
    return None


def run(launch, *args, clients=(), **kwargs):
    """Run `launch(*args, **kwargs)` — a kernel with its grid, `kernel[grid]` — in the interpreter
    with `clients` attached for that run only (the functional form of `observe`); returns what the
    launch returns. The launch is interpreted whatever TESSERA_INTERPRET says."""
    old = os.environ.get("TESSERA_INTERPRET")
    os.environ["TESSERA_INTERPRET"] = "1"
    try:
        with observe(*clients) if clients else contextlib.nullcontext():
            return launch(*args, **kwargs)
    finally:
        if old is None:
            del os.environ["TESSERA_INTERPRET"]
        else:
            os.environ["TESSERA_INTERPRET"] = old
