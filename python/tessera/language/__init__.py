"""The Tessera kernel language: `import tessera.language as tl` (follows triton.language).

The bottom layer of tessera: it imports nothing of the compiler, the runtime or the backends.
Inside it, core (types, tensors) is imported by semantic, builtins and math, and tl.tensor's
operators are attached by _tensor_methods, which builds on all of them.
"""

from . import _tensor_methods, extra, math, random, semantic  # noqa: F401
from .builtins import (  # noqa: F401
    advance, arange, argmax, argmin, associative_scan, assume, atomic_add, atomic_and, atomic_cas, atomic_max,
    atomic_min, atomic_or, atomic_xchg, atomic_xor, broadcast, broadcast_to, cast, cat, cdiv, clamp, flip,
    cumprod, cumsum, debug_barrier, device_assert, device_print, div_rn, dot, expand_dims, fdiv, fma,
    extern_elementwise, full, full_like, gather, histogram, inline_asm_elementwise, interleave, join, load, load_tensor_descriptor,
    make_block_ptr, make_tensor_descriptor, max, max_constancy, max_contiguous, maximum, min, minimum,
    multiple_of, num_programs, permute, program_id, range, ravel, reduce, reshape, sigmoid, softmax, sort,
    split, static_assert, static_print, static_range, store, store_tensor_descriptor, sum, swizzle2d, trans,
    umulhi, view, where, xor_sum, zeros, zeros_like,
)
from .core import (  # noqa: F401
    bfloat16, block_type, const, constexpr, dtype, float8e4b15, float8e4b8, float8e4nv, float8e5, float8e5b16, float16, float32, float64, int1, int8,
    int16, int32, int64, pi32_t, pointer_type, tensor, tensor_descriptor, tensor_descriptor_base,
    tensor_descriptor_base_type, tensor_descriptor_type, uint8, uint16, uint32, uint64,
)
from .math import (  # noqa: F401
    abs, ceil, cos, erf, exp, exp2, floor, log, log2, rsqrt, sin, sqrt, sqrt_rn,
)
from .random import (  # noqa: F401
    philox, philox_impl, rand, rand4x, randint, randint4x, randn, randn4x, uint_to_uniform_float,
)

PropagateNan = type("PropagateNan", (), {"NONE": semantic.PROPAGATE_NAN_NONE, "ALL": semantic.PROPAGATE_NAN_ALL})
TRITON_MAX_TENSOR_NUMEL = semantic.MAX_NUMEL
MAX_TENSOR_NUMEL = semantic.MAX_NUMEL

__all__ = [n for n in dir() if not n.startswith("_")]

# triton.language.core spellings used by device-library modules (@core.extern functions call
# core.extern_elementwise).
from . import builtins as _builtins, core as _core_module  # noqa: E402
_core_module.extern_elementwise = _builtins.extern_elementwise
