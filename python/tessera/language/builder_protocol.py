"""The operations a builder provides to the semantic layer (IR builder and interpreter alike).

semantic.py decides every result type (a `dtype` for scalars, a `block_type`
for tensors) and passes it as `ret_ty`; a builder never infers types. Handles
are opaque to the semantic layer: SSA values in the IR builder, arrays in the
interpreter. Operands always arrive already converted and broadcast to the
result's shape (except where stated).
"""


class BuilderProtocol:
    # ------------------------------------------------------------ conversions to Python
    def tensor_to_bool(self, t):
        """`bool(t)` for a language tensor `t` (only meaningful when values are concrete)."""
        raise NotImplementedError

    def tensor_to_python(self, t):
        """`int(t)`/`float(t)`/`t.__index__()`: the concrete value of a scalar tensor."""
        raise NotImplementedError

    def call_jit_function(self, jit_fn, args, kwargs):
        """A call of another @jit function from kernel code (also used for combine functions
        passed to tl.reduce/tl.associative_scan). The interpreter calls jit_fn.fn directly."""
        raise NotImplementedError

    # ------------------------------------------------------------ constants and program ids
    def constant(self, value, ret_ty):
        """A Python bool/int/float as a scalar of `ret_ty`, or splat into a block of `ret_ty`."""
        raise NotImplementedError

    def program_id(self, axis):
        """int32 scalar: this program's index along grid axis 0, 1 or 2."""
        raise NotImplementedError

    def num_programs(self, axis):
        raise NotImplementedError

    def prof_record(self, name, is_end):
        """The start (is_end False) or end of profiling scope `name` (a str): the IR builder emits
        a prof.record when the kernel is compiled with profiling scopes; the interpreter reports
        the host time to the active profiler session. No result."""
        raise NotImplementedError

    def global_scratch_alloc(self, nbytes, alignment, ret_ty):
        """Pointer to `nbytes` bytes of global memory private to this program."""
        raise NotImplementedError

    # ------------------------------------------------------------ creation and shape
    def make_range(self, start, end, ret_ty):
        """int32 block [start, end)."""
        raise NotImplementedError

    def splat(self, h, ret_ty):
        """Scalar -> block of ret_ty's shape."""
        raise NotImplementedError

    def broadcast(self, h, ret_ty):
        """Block with size-1 dims -> block of ret_ty's shape (same rank)."""
        raise NotImplementedError

    def expand_dims(self, h, axis, ret_ty):
        raise NotImplementedError

    def reshape(self, h, ret_ty, can_reorder):
        """Row-major reshape (the interpreter keeps row-major order even if can_reorder)."""
        raise NotImplementedError

    def trans(self, h, order, ret_ty):
        """Result dim i = source dim order[i]."""
        raise NotImplementedError

    def join(self, a, b, ret_ty):
        """Stack along a new last dim of size 2."""
        raise NotImplementedError

    def split(self, h, ret_ty):
        """Split along the last dim (size 2) -> (first, second)."""
        raise NotImplementedError

    def cat(self, a, b, ret_ty):
        """Concatenate along dim 0."""
        raise NotImplementedError

    # ------------------------------------------------------------ elementwise
    def binary(self, op, a, b, ret_ty):
        """Elementwise binary op named like MLIR's arith ops. Integer ops wrap around at the
        element width; the type's signedness is in ret_ty (ints) or the operands' type.

        op in: addi subi muli divsi divui remsi remui andi ori xori shli shrsi shrui
               maxsi maxui minsi minui (integers; divsi/remsi truncate toward zero like C)
               addf subf mulf divf remf (remf is C fmod) maxnumf minnumf (NaN-ignoring)
               maximumf minimumf (NaN-propagating) precise_divf (correctly rounded)
               mulhiui (high half of the unsigned product)
        """
        raise NotImplementedError

    def unary(self, op, x, ret_ty):
        """op in: negf absf absi exp exp2 log log2 sqrt rsqrt sin cos floor ceil erf precise_sqrt."""
        raise NotImplementedError

    def fma(self, a, b, c, ret_ty):
        raise NotImplementedError

    def cmp(self, pred, a, b, ret_ty):
        """Comparison giving int1. pred: eq ne slt sle sgt sge ult ule ugt uge (integers, and
        pointers as 64-bit) or oeq une olt ole ogt oge (floats; une is true for NaN)."""
        raise NotImplementedError

    def select(self, cond, a, b, ret_ty):
        raise NotImplementedError

    def cast(self, op, x, ret_ty, rounding=None):
        """op in: extsi extui trunci sitofp uitofp fptosi fptoui extf truncf (round to nearest
        even) fp_to_fp (with rounding 'rtne'/'rtz' for narrowing; fp8 conversions) bitcast
        int_to_ptr ptr_to_int."""
        raise NotImplementedError

    def clampf(self, x, lo, hi, propagate_nan, ret_ty):
        """Float clamp; propagate_nan is 0 (NaNs ignored) or 0xFFFF (NaN in -> NaN out)."""
        raise NotImplementedError

    # ------------------------------------------------------------ memory
    def addptr(self, ptr, offset, ret_ty):
        """ptr + offset * sizeof(element)."""
        raise NotImplementedError

    def load(self, ptr, mask, other, ret_ty, cache, evict, volatile):
        """mask/other may be None; masked-off lanes read nothing and give `other` (or 0)."""
        raise NotImplementedError

    def store(self, ptr, value, mask, cache, evict):
        raise NotImplementedError

    def descriptor_load(self, desc, offsets, ret_ty):
        """A block through a hardware tensor map (`desc`: a tensor_map_type value; offsets: int32
        scalars). Only builders of targets with tensor maps (TMA) get such values."""
        raise NotImplementedError

    def descriptor_store(self, desc, offsets, value):
        raise NotImplementedError

    def if_then_else(self, cond, result_types, then_fn, else_fn):
        """scf.if on an i1 scalar with both regions built by the functions (each returns the
        handles to yield); returns the results. Only the IR builder needs it (guards around
        tensor-map copies)."""
        raise NotImplementedError

    def make_block_ptr(self, base, shape, strides, offsets, order, ret_ty):
        """shape/strides: lists of int64 scalars; offsets: int32 scalars; ret_ty is
        pointer_type(block_type(...))."""
        raise NotImplementedError

    def advance(self, ptr, offsets, ret_ty):
        raise NotImplementedError

    def load_block(self, ptr, boundary_check, padding, ret_ty, cache, evict, volatile):
        """Load a whole block; dims in boundary_check are bounds-checked against the tensor's
        shape and padded (padding None/'zero' -> 0, 'nan' -> NaN); unchecked dims must be in
        bounds."""
        raise NotImplementedError

    def store_block(self, ptr, value, boundary_check, cache, evict):
        raise NotImplementedError

    def atomic_rmw(self, op, ptr, val, mask, sem, scope, ret_ty):
        """op in: add fadd max min umax umin and or xor exch. Returns the old values."""
        raise NotImplementedError

    def atomic_cas(self, ptr, cmp, val, sem, scope, ret_ty):
        raise NotImplementedError

    # ------------------------------------------------------------ compute
    def dot(self, a, b, acc, input_precision, max_num_imprecise_acc, ret_ty):
        """acc + a @ b (2-D, or 3-D batched), accumulating in ret_ty's element type."""
        raise NotImplementedError

    def reduce(self, inputs, axis, combine, ret_tys, kind):
        """Reduce `inputs` (same shape) along `axis`. `combine(handles)` takes 2N scalar-typed
        handles (N accumulated values then N new values) and returns N handles; the IR builder
        calls it once inside the region, the interpreter may call it with arrays (it is
        elementwise). `kind` names a builtin combiner when known: 'sum', 'max', 'min',
        'xor_sum', 'argmax', 'argmax_left', 'argmin', 'argmin_left' (argmax/argmin inputs are
        [values, int32 indices]), else None. Returns a list of handles of ret_tys."""
        raise NotImplementedError

    def scan(self, inputs, axis, combine, reverse, ret_tys, kind):
        """Inclusive scan along `axis` (from the end when reverse); kind: 'sum', 'prod' or None."""
        raise NotImplementedError

    def histogram(self, x, mask, ret_ty):
        """Counts of each value in [0, bins); values out of range and masked-off lanes are
        not counted."""
        raise NotImplementedError

    def gather(self, src, index, axis, ret_ty):
        raise NotImplementedError

    def extern_elementwise(self, symbol, np_name, args, ret_ty, libname="", libpath="", pure=True):
        """A libdevice function: `symbol` (e.g. __nv_tanhf) on the GPU, numpy.`np_name` here."""
        raise NotImplementedError

    def inline_asm(self, asm, constraints, args, ret_tys, is_pure, pack):
        raise NotImplementedError

    # ------------------------------------------------------------ hints and debugging
    def hint(self, h, kind, values, ret_ty):
        """kind: tt.divisibility, tt.contiguity or tt.constancy. Returns the (same) value."""
        raise NotImplementedError

    def device_print(self, prefix, handles, types, hex):
        raise NotImplementedError

    def device_assert(self, cond, msg, cond_ty):
        raise NotImplementedError

    def assume(self, cond):
        raise NotImplementedError

    def barrier(self):
        raise NotImplementedError
