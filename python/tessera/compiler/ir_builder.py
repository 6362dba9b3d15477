"""A builder that emits TTIR as MLIR text: one method per language operation, with locations.

Ops are kept as small objects until the module is rendered, so that hints
(tt.divisibility …) can still be attached to the op defining a value. The text
uses the custom assembly formats of the tt dialect (those Triton prints), and
is parsed and verified by the native core.

Besides the operations of the semantic layer (BuilderProtocol, shared with the
interpreter), the builder makes the structure that only compiled code has:
functions (tt.func, tt.call, tt.return), structured control flow (scf.for,
scf.if, scf.while with scf.yield and scf.condition), branches between the blocks
of a function (cf.br, cf.cond_br) and the module. The interpreter runs Python's
own control flow and calls, so these methods are not part of the protocol.
They check the types of what they are given (results yielded or returned
against those declared, call arguments against the callee's parameters, i1
conditions, loop bounds) and raise IRBuilderError on a mismatch: such an error
is a bug of the front end, whose own checks report a user's mistakes earlier as
a CompilationError.
"""

import contextlib
import math
import struct

from ..language import core
from ..language.builder_protocol import BuilderProtocol


class Value:
    """An SSA value: its name in the text and its language type."""
    __slots__ = ("name", "ty", "op", "arg_of")

    def __init__(self, name, ty, op=None, arg_of=None):
        self.name = name
        self.ty = ty
        self.op = op          # the defining Op, None for block arguments
        self.arg_of = arg_of  # (function, index) for function arguments

    @property
    def ir_type(self):
        return self.ty.to_ir()

    def __repr__(self):
        return f"{self.name}: {self.ir_type}"


def _attr_dict(attrs):
    if not attrs:
        return ""
    return " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"


class Op:
    """One operation: `prefix {attrs} suffix loc(...)`."""
    __slots__ = ("prefix", "suffix", "attrs", "loc")

    def __init__(self, prefix, suffix="", loc=None, attrs=None):
        self.prefix = prefix
        self.suffix = suffix
        self.attrs = dict(attrs or {})
        self.loc = loc

    def render(self, indent, out):
        loc = f" loc({self.loc})" if self.loc else ""
        out.append(" " * indent + self.prefix + _attr_dict(self.attrs) + self.suffix + loc)


class IRBuilderError(RuntimeError):
    """The front end asked the IR builder for ill-formed IR (an op given values of the wrong types,
    a terminator in the wrong place …). It is an internal error, a bug of Tessera: mistakes in
    kernel code are reported earlier, by the code generator, as CompilationError."""


def _types_str(types):
    return "(" + ", ".join(types) + ")"


class Block:
    """A list of ops with an optional label line (`^bb1(%a: i32):`).

    `owner` is what holds the block: a Function (its entry block and the blocks its branches
    reach), a region op (ForOp, IfOp, WhileOp), or None (a block not placed in the IR, such as
    a region of tt.reduce or a block whose ops are thrown away)."""

    def __init__(self, label=None, args=(), owner=None):
        self.label = label
        self.args = list(args)
        self.ops = []
        self.terminated = False
        self.owner = owner

    def header(self):
        if self.label is None:
            return None
        if not self.args:
            return f"{self.label}:"
        return f"{self.label}(" + ", ".join(f"{a.name}: {a.ir_type}" for a in self.args) + "):"

    def render(self, indent, out):
        h = self.header()
        if h is not None:
            out.append(" " * (indent - 2) + h)
        for op in self.ops:
            op.render(indent, out)


class RegionOp(Op):
    """An op with regions: parts alternate text and lists of blocks; attrs go after the last part
    (`attrs_inline` puts them right after the first part instead)."""
    __slots__ = ("parts", "attrs_at_end")

    opname = "an op with regions"

    def __init__(self, parts, loc=None, attrs=None, attrs_at_end=True):
        super().__init__("", "", loc, attrs)
        self.parts = parts
        self.attrs_at_end = attrs_at_end

    def regions(self):
        return [blk for part in self.parts if not isinstance(part, str) for blk in part]

    def terminator_of(self, block):
        """(terminator op name, the language types it must carry) for a block of this op."""
        return None, None

    def render(self, indent, out):
        pad = " " * indent
        line = pad
        for i, part in enumerate(self.parts):
            if isinstance(part, str):
                if line is None:
                    line = pad
                line += part
            else:
                out.append(line)
                line = None
                for blk in part:
                    blk.render(indent + 2, out)
        loc = f" loc({self.loc})" if self.loc else ""
        out.append((line or pad) + (_attr_dict(self.attrs) if self.attrs_at_end else "") + loc)


def _results_lhs(name, n):
    """The `%r = ` / `%r:n = ` prefix of an op with n results."""
    return "" if n == 0 else (f"{name} = " if n == 1 else f"{name}:{n} = ")


def _result_values(name, types, op):
    if len(types) == 1:
        return [Value(name, types[0], op)]
    return [Value(f"{name}#{i}", t, op) for i, t in enumerate(types)]


class ForOp(RegionOp):
    """scf.for: `body` takes the induction variable and the iteration arguments (`iter_args`);
    it ends with an scf.yield of the next values, and `results` are the last ones."""
    __slots__ = ("body", "induction_var", "iter_args", "results", "result_types")
    opname = "scf.for"

    def terminator_of(self, block):
        return "scf.yield", self.result_types


class IfOp(RegionOp):
    """scf.if: `then_block` and `else_block` each end with an scf.yield of `result_types`."""
    __slots__ = ("then_block", "else_block", "results", "result_types")
    opname = "scf.if"

    def terminator_of(self, block):
        return "scf.yield", self.result_types


class WhileOp(RegionOp):
    """scf.while: `before` (arguments of the init types) computes the condition and ends with
    scf.condition forwarding values of `result_types` to `after` (arguments of the result
    types) or to the results; `after` is the body and yields the next values of the init types."""
    __slots__ = ("before", "after", "results", "init_types", "result_types")
    opname = "scf.while"

    def terminator_of(self, block):
        if block is self.before:
            return "scf.condition", self.result_types
        return "scf.yield", self.init_types


class Function:
    """A tt.func: the entry block's arguments are its parameters (with attributes such as
    tt.divisibility in `arg_attrs`); `result_types` stays None until declared, since the code
    generator learns them at the first return; `blocks` are the entry block then those that
    branches reach (labelled ^bb1, ^bb2 …)."""

    def __init__(self, name, visibility, noinline, loc):
        self.name = name
        self.visibility = visibility
        self.noinline = noinline
        self.loc = loc
        self.arg_attrs = []
        self.result_types = None
        self.blocks = [Block(None, (), owner=self)]
        self.block_counter = 0

    @property
    def entry(self):
        return self.blocks[0]

    @property
    def args(self):
        return self.blocks[0].args

    def render(self, indent, out):
        args = []
        for v, attrs in zip(self.args, self.arg_attrs):
            args.append(f"{v.name}: {v.ir_type}" + _attr_dict(attrs))
        res = ""
        if self.result_types:
            res = " -> (" + ", ".join(t.to_ir() for t in self.result_types) + ")"
        head = f"tt.func {self.visibility} @{self.name}(" + ", ".join(args) + f"){res} attributes {{noinline = " \
               f"{'true' if self.noinline else 'false'}}} {{"
        RegionOp([head, self.blocks, "}"], self.loc).render(indent, out)


def _escape(s):
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if 32 <= ch < 127 and c not in '"\\':
            out.append(c)
        else:
            out.append(f"\\{ch:02X}")
    return "".join(out)


def quote(s):
    return '"' + _escape(s) + '"'


# ------------------------------------------------------------- float literals

def _fp8_table(exp_bits, man_bits, bias, has_inf):
    vals = []
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        if has_inf and e == (1 << exp_bits) - 1:
            vals.append(None)  # inf / nan
            continue
        if not has_inf and e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:
            vals.append(None)  # e4m3fn NaN
            continue
        if e == 0:
            v = m * 2.0 ** (1 - bias - man_bits)
        else:
            v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        vals.append(sign * v)
    return vals


def _fnuz_table(exp_bits, man_bits, bias):
    """An FNUZ format: no infinities, no negative zero, 0x80 its one NaN."""
    vals = _fp8_table(exp_bits, man_bits, bias, False)
    for code in range(256):
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        if e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:  # finite in FNUZ
            v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
            vals[code] = -v if code & 0x80 else v
    vals[0x80] = None
    return vals


# name -> (decode table, NaN code, infinity code; "nan": infinities become NaN; None: they
# saturate to the largest finite value (0x7F), as the interpreter's conversions do)
_FP8 = {"fp8e4nv": (_fp8_table(4, 3, 7, False), 0x7F, "nan"),
        "fp8e5": (_fp8_table(5, 2, 15, True), 0x7F, 0x7C),
        "fp8e4b8": (_fnuz_table(4, 3, 8), 0x80, None),
        "fp8e5b16": (_fnuz_table(5, 2, 16), 0x80, None)}


def _fp8_bits(v, name):
    table, nan, inf = _FP8[name]
    if math.isnan(v):
        return nan
    if math.isinf(v):
        if inf == "nan":
            return nan
        if inf is None:  # saturate to the largest finite value
            return 0x7F | (0x80 if v < 0 else 0)
        return inf | (0x80 if v < 0 else 0)
    # The nearest of the non-negative codes to |v| (ties to the even code, the
    # even mantissa), then v's sign; FNUZ formats have no negative zero.
    av = abs(v)
    best, best_err = None, None
    for code in range(0x80):
        cv = table[code]
        if cv is None:
            continue
        err = abs(cv - av)
        if best is None or err < best_err or (err == best_err and code % 2 == 0):
            best, best_err = code, err
    if math.copysign(1.0, v) < 0 and not (best == 0 and nan == 0x80):
        best |= 0x80
    return best


def float_bits(v, ty):
    """The bit pattern of Python float `v` in the float type `ty`, as a hex literal."""
    v = float(v)
    n = ty.name
    if n == "fp32":
        return "0x%08X" % struct.unpack(">I", struct.pack(">f", v))[0] if not _overflows(v, 3.4028234663852886e38) \
            else "0x%08X" % (0x7F800000 | (0x80000000 if v < 0 else 0))
    if n == "fp64":
        return "0x%016X" % struct.unpack(">Q", struct.pack(">d", v))[0]
    if n == "fp16":
        try:
            return "0x%04X" % struct.unpack(">H", struct.pack(">e", v))[0]
        except OverflowError:
            return "0x%04X" % (0x7C00 | (0x8000 if v < 0 else 0))
    if n == "bf16":
        if math.isnan(v):
            return "0x7FC0"
        if _overflows(v, 3.4028234663852886e38):
            bits = 0x7F800000 | (0x80000000 if v < 0 else 0)
        else:
            bits = struct.unpack(">I", struct.pack(">f", v))[0]
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return "0x%04X" % (rounded & 0xFFFF)
    if n in _FP8:
        return "0x%02X" % _fp8_bits(v, n)
    raise TypeError(f"not a float type: {ty}")


def _overflows(v, limit):
    return not math.isnan(v) and not math.isinf(v) and abs(v) > limit


def int_literal(v, ty):
    bits = ty.primitive_bitwidth
    if bits == 1:
        return "true" if v else "false"
    v = int(v) & ((1 << bits) - 1)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return str(v)


def scalar_literal(value, ty):
    if ty.is_floating():
        return float_bits(value, ty)
    if ty.is_int():
        return int_literal(value, ty)
    raise TypeError(f"cannot make a constant of type {ty}")


_SELECT_SCALAR = object()


class IRBuilder(BuilderProtocol):
    """Emits TTIR text for one module."""

    def __init__(self, codegen=None):
        self.codegen = codegen
        # The compile's extern_libs option ({library name: path}) that tl.extern_elementwise
        # resolves library names through; None: paths are not needed (a kernel checked for the
        # interpreter, which runs registered Python implementations).
        self.extern_libs = {}
        # Whether tl.make_tensor_descriptor also makes a TMA tensor map on the device (the
        # target's backend says: Backend.device_tensor_maps).
        self.device_tensor_maps = False
        self.profile_scopes = False  # tessera.profiler scopes become prof.record ops
        self.has_profile_records = False
        self.counter = 0
        self.loc = None
        self.functions = []       # finished functions, rendered in order
        self.block = None         # current Block (the insertion point: ops go at its end)
        self.func = None          # the Function being built (tt.return refers to it)
        self._func_names = set()

    # ------------------------------------------------------------------ naming
    def fresh(self, prefix="%"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, prefix_fmt, suffix, ret_ty=None, attrs=None, nres=None):
        """Append an op to the current block; `prefix_fmt` is the text after `%r = `."""
        self._insertion_block(prefix_fmt.split(" ", 1)[0])
        if ret_ty is None:
            op = Op(prefix_fmt, suffix, self.loc, attrs)
            self.block.ops.append(op)
            return op
        name = self.fresh()
        if nres is None:
            op = Op(f"{name} = {prefix_fmt}", suffix, self.loc, attrs)
            self.block.ops.append(op)
            return Value(name, ret_ty, op)
        op = Op(f"{name}:{nres} = {prefix_fmt}", suffix, self.loc, attrs)
        self.block.ops.append(op)
        return [Value(f"{name}#{i}", t, op) for i, t in enumerate(ret_ty)]

    def append(self, op):
        self._insertion_block(getattr(op, "opname", "op")).ops.append(op)
        return op

    def _insertion_block(self, opname):
        if self.block is None:
            raise IRBuilderError(f"{opname}: no insertion block")
        if self.block.terminated:
            raise IRBuilderError(f"{opname}: the insertion block already ends with a terminator")
        return self.block

    # ------------------------------------------------------------------ protocol: python values
    def tensor_to_bool(self, t):
        raise TypeError("this tensor's value is only known when the kernel runs, so it cannot be used as a "
                        "Python bool here (use it in an if/while condition, or use tl.where)")

    def tensor_to_python(self, t):
        raise TypeError("this tensor's value is only known when the kernel runs; a compile-time constant "
                        "(tl.constexpr) is needed here")

    def call_jit_function(self, jit_fn, args, kwargs):
        return self.codegen.call_jit(jit_fn, list(args), dict(kwargs))

    # ------------------------------------------------------------------ constants
    def constant(self, value, ret_ty):
        elt = ret_ty.scalar
        if elt.is_ptr():
            raise TypeError("cannot make a pointer constant")
        if isinstance(value, float) and elt.is_int():
            value = int(value)
        lit = scalar_literal(value, elt)
        if ret_ty.is_block():
            return self.emit(f"arith.constant dense<{lit}> : {ret_ty.to_ir()}", "", ret_ty)
        if elt.is_bool():
            return self.emit(f"arith.constant {lit}", "", ret_ty)
        return self.emit(f"arith.constant {lit} : {elt.to_ir()}", "", ret_ty)

    def global_scratch_alloc(self, nbytes, alignment, ret_ty):
        return self.emit("ttg.global_scratch_alloc", " : !tt.ptr<i8>", ret_ty,
                         attrs={"alignment": f"{alignment} : i32", "nbytes": f"{nbytes} : i32"})

    def program_id(self, axis):
        return self.emit(f"tt.get_program_id {'xyz'[axis]}", " : i32", core.int32)

    def num_programs(self, axis):
        return self.emit(f"tt.get_num_programs {'xyz'[axis]}", " : i32", core.int32)

    # ------------------------------------------------------------------ shapes
    def make_range(self, start, end, ret_ty):
        return self.emit("tt.make_range", f" : {ret_ty.to_ir()}", ret_ty,
                         {"end": f"{end} : i32", "start": f"{start} : i32"})

    def _unop_arrow(self, name, h, ret_ty, attrs=None):
        return self.emit(f"{name} {h.name}", f" : {h.ir_type} -> {ret_ty.to_ir()}", ret_ty, attrs)

    def splat(self, h, ret_ty):
        return self._unop_arrow("tt.splat", h, ret_ty)

    def broadcast(self, h, ret_ty):
        return self._unop_arrow("tt.broadcast", h, ret_ty)

    def expand_dims(self, h, axis, ret_ty):
        return self._unop_arrow("tt.expand_dims", h, ret_ty, {"axis": f"{axis} : i32"})

    def reshape(self, h, ret_ty, can_reorder):
        kw = " allow_reorder" if can_reorder else ""
        return self.emit(f"tt.reshape {h.name}{kw}", f" : {h.ir_type} -> {ret_ty.to_ir()}", ret_ty)

    def trans(self, h, order, ret_ty):
        return self._unop_arrow("tt.trans", h, ret_ty, {"order": "array<i32: " + ", ".join(map(str, order)) + ">"})

    def join(self, a, b, ret_ty):
        return self.emit(f"tt.join {a.name}, {b.name}", f" : {a.ir_type} -> {ret_ty.to_ir()}", ret_ty)

    def split(self, h, ret_ty):
        a, b = self.emit(f"tt.split {h.name}", f" : {h.ir_type} -> {ret_ty.to_ir()}", [ret_ty, ret_ty], nres=2)
        return a, b

    def cat(self, a, b, ret_ty):
        return self.emit(f"tt.cat {a.name}, {b.name}", f" : {a.ir_type} -> {ret_ty.to_ir()}", ret_ty)

    # ------------------------------------------------------------------ elementwise
    _TT_BINARY = {"mulhiui": "tt.mulhiui", "precise_divf": "tt.precise_divf"}

    def binary(self, op, a, b, ret_ty):
        name = self._TT_BINARY.get(op, f"arith.{op}")
        return self.emit(f"{name} {a.name}, {b.name}", f" : {ret_ty.to_ir()}", ret_ty)

    _UNARY = {"negf": "arith.negf", "absf": "math.absf", "absi": "math.absi", "exp": "math.exp",
              "exp2": "math.exp2", "log": "math.log", "log2": "math.log2", "sqrt": "math.sqrt",
              "rsqrt": "math.rsqrt", "sin": "math.sin", "cos": "math.cos", "floor": "math.floor",
              "ceil": "math.ceil", "erf": "math.erf", "precise_sqrt": "tt.precise_sqrt",
              "tanh": "math.tanh", "trunc": "math.trunc"}

    def unary(self, op, x, ret_ty):
        return self.emit(f"{self._UNARY[op]} {x.name}", f" : {ret_ty.to_ir()}", ret_ty)

    def fma(self, a, b, c, ret_ty):
        return self.emit(f"math.fma {a.name}, {b.name}, {c.name}", f" : {ret_ty.to_ir()}", ret_ty)

    def cmp(self, pred, a, b, ret_ty):
        kind = "cmpf" if a.ty.scalar.is_floating() else "cmpi"
        return self.emit(f"arith.{kind} {pred}, {a.name}, {b.name}", f" : {a.ir_type}", ret_ty)

    def select(self, cond, a, b, ret_ty):
        if cond.ty.is_block():
            return self.emit(f"arith.select {cond.name}, {a.name}, {b.name}",
                             f" : {cond.ir_type}, {ret_ty.to_ir()}", ret_ty)
        return self.emit(f"arith.select {cond.name}, {a.name}, {b.name}", f" : {ret_ty.to_ir()}", ret_ty)

    def cast(self, op, x, ret_ty, rounding=None):
        if op in ("fp_to_fp",):
            r = f", rounding = {rounding}" if rounding else ""
            return self.emit(f"tt.fp_to_fp {x.name}", f"{r} : {x.ir_type} -> {ret_ty.to_ir()}", ret_ty)
        if op in ("bitcast", "int_to_ptr", "ptr_to_int"):
            return self._unop_arrow(f"tt.{op}", x, ret_ty)
        return self.emit(f"arith.{op} {x.name}", f" : {x.ir_type} to {ret_ty.to_ir()}", ret_ty)

    def clampf(self, x, lo, hi, propagate_nan, ret_ty):
        pn = "all" if propagate_nan else "none"
        return self.emit(f"tt.clampf {x.name}, {lo.name}, {hi.name}, propagateNan = {pn}",
                         f" : {ret_ty.to_ir()}", ret_ty)

    # ------------------------------------------------------------------ memory
    def addptr(self, ptr, offset, ret_ty):
        return self.emit(f"tt.addptr {ptr.name}, {offset.name}", f" : {ret_ty.to_ir()}, {offset.ir_type}", ret_ty)

    @staticmethod
    def _modifiers(cache, evict):
        s = ""
        if cache and cache != "none":
            s += f" cacheModifier = {cache}"
        if evict and evict != "evict_normal":
            s += f" evictionPolicy = {evict}"
        return s

    def load(self, ptr, mask, other, ret_ty, cache, evict, volatile):
        ops = ptr.name + (f", {mask.name}" if mask is not None else "") + (f", {other.name}" if other is not None else "")
        attrs = {"isVolatile": "true"} if volatile else None
        return self.emit(f"tt.load {ops}{self._modifiers(cache, evict)}", f" : {ptr.ir_type}", ret_ty, attrs)

    def store(self, ptr, value, mask, cache, evict):
        ops = f"{ptr.name}, {value.name}" + (f", {mask.name}" if mask is not None else "")
        self.emit(f"tt.store {ops}{self._modifiers(cache, evict)}", f" : {ptr.ir_type}")

    def descriptor_load(self, desc, offsets, ret_ty, guarded=False):
        return self.emit(f"tt.descriptor_load {desc.name}[" + ", ".join(o.name for o in offsets) + "]",
                         f" : {desc.ir_type} -> {ret_ty.to_ir()}", ret_ty,
                         {"tt.tma_guarded": "unit"} if guarded else None)

    def in_noinline_function(self):
        """Whether code is being generated into a noinline function (not the kernel)."""
        return bool(self.func is not None and self.func.noinline)

    def make_tensor_descriptor(self, base, shape, strides, ret_ty):
        lst = lambda vs: "[" + ", ".join(v.name for v in vs) + "]"  # noqa: E731
        return self.emit(f"tt.make_tensor_descriptor {base.name}, {lst(shape)}, {lst(strides)}",
                         f" : {base.ir_type}, {ret_ty.to_ir()}", ret_ty)

    def descriptor_store(self, desc, offsets, value, guarded=False):
        self.emit(f"tt.descriptor_store {desc.name}[" + ", ".join(o.name for o in offsets) + f"], {value.name}",
                  f" : {desc.ir_type}, {value.ir_type}", attrs={"tt.tma_guarded": "unit"} if guarded else None)

    def make_block_ptr(self, base, shape, strides, offsets, order, ret_ty):
        lst = lambda vs: "[" + ", ".join(v.name for v in vs) + "]"  # noqa: E731
        return self.emit(f"tt.make_tensor_ptr {base.name}, {lst(shape)}, {lst(strides)}, {lst(offsets)}",
                         f" : {ret_ty.to_ir()}", ret_ty, {"order": "array<i32: " + ", ".join(map(str, order)) + ">"})

    def advance(self, ptr, offsets, ret_ty):
        return self.emit(f"tt.advance {ptr.name}, [" + ", ".join(o.name for o in offsets) + "]",
                         f" : {ret_ty.to_ir()}", ret_ty)

    def load_block(self, ptr, boundary_check, padding, ret_ty, cache, evict, volatile):
        attrs = {}
        if boundary_check:
            attrs["boundaryCheck"] = "array<i32: " + ", ".join(map(str, boundary_check)) + ">"
            attrs["padding"] = ("2" if padding == "nan" else "1") + " : i32"
        if volatile:
            attrs["isVolatile"] = "true"
        return self.emit(f"tt.load {ptr.name}{self._modifiers(cache, evict)}", f" : {ptr.ir_type}", ret_ty, attrs)

    def store_block(self, ptr, value, boundary_check, cache, evict):
        attrs = {}
        if boundary_check:
            attrs["boundaryCheck"] = "array<i32: " + ", ".join(map(str, boundary_check)) + ">"
        self.emit(f"tt.store {ptr.name}, {value.name}{self._modifiers(cache, evict)}", f" : {ptr.ir_type}",
                  None, attrs)

    def atomic_rmw(self, op, ptr, val, mask, sem, scope, ret_ty):
        ops = [ptr, val] + ([mask] if mask is not None else [])
        types = ", ".join(o.ir_type for o in ops)
        return self.emit(f"tt.atomic_rmw {op}, {sem}, {scope}, " + ", ".join(o.name for o in ops),
                         f" : ({types}) -> {ret_ty.to_ir()}", ret_ty)

    def atomic_cas(self, ptr, cmp, val, sem, scope, ret_ty):
        ops = [ptr, cmp, val]
        types = ", ".join(o.ir_type for o in ops)
        return self.emit(f"tt.atomic_cas {sem}, {scope}, " + ", ".join(o.name for o in ops),
                         f" : ({types}) -> {ret_ty.to_ir()}", ret_ty)

    # ------------------------------------------------------------------ compute
    def dot(self, a, b, acc, input_precision, max_num_imprecise_acc, ret_ty):
        attrs = {"maxNumImpreciseAcc": f"{max_num_imprecise_acc} : i32"} if max_num_imprecise_acc else None
        return self.emit(f"tt.dot {a.name}, {b.name}, {acc.name}, inputPrecision = {input_precision}",
                         f" : {a.ir_type} * {b.ir_type} -> {ret_ty.to_ir()}", ret_ty, attrs)

    def _combine_region(self, elt_types, combine, terminator):
        args = [Value(self.fresh(), t) for t in elt_types + elt_types]
        block = Block("^bb0", args)
        saved = self.block
        self.block = block
        try:
            results = list(combine(args))
            self._check_types(terminator, "the combined values", results, elt_types,
                              "the element types of the operands are")
            types = ", ".join(r.ir_type for r in results)
            self.emit(f"{terminator} " + ", ".join(r.name for r in results), f" : {types}")
            block.terminated = True
        finally:
            self.block = saved
        return block

    def _generic_multi(self, opname, props, inputs, block, ret_tys):
        name = self.fresh()
        n = len(ret_tys)
        lhs = name if n == 1 else f"{name}:{n}"
        in_types = ", ".join(h.ir_type for h in inputs)
        out_types = ", ".join(t.to_ir() for t in ret_tys)
        if n > 1:
            out_types = f"({out_types})"
        parts = [f'{lhs} = "{opname}"(' + ", ".join(h.name for h in inputs) + f") <{{{props}}}> ({{", [block],
                 f"}}) : ({in_types}) -> {out_types}"]
        op = RegionOp(parts, self.loc)
        self.block.ops.append(op)
        if n == 1:
            return [Value(name, ret_tys[0], op)]
        return [Value(f"{name}#{i}", t, op) for i, t in enumerate(ret_tys)]

    def reduce(self, inputs, axis, combine, ret_tys, kind):
        block = self._combine_region([h.ty.scalar for h in inputs], combine, "tt.reduce.return")
        return self._generic_multi("tt.reduce", f"axis = {axis} : i32", inputs, block, ret_tys)

    def scan(self, inputs, axis, combine, reverse, ret_tys, kind):
        block = self._combine_region([h.ty.scalar for h in inputs], combine, "tt.scan.return")
        props = f"axis = {axis} : i32, reverse = {'true' if reverse else 'false'}"
        return self._generic_multi("tt.scan", props, inputs, block, ret_tys)

    def histogram(self, x, mask, ret_ty):
        m = f", {mask.name}" if mask is not None else ""
        return self.emit(f"tt.histogram {x.name}{m}", f" : {x.ir_type} -> {ret_ty.to_ir()}", ret_ty)

    def gather(self, src, index, axis, ret_ty):
        return self.emit(f"tt.gather {src.name}[{index.name}]",
                         f" : ({src.ir_type}, {index.ir_type}) -> {ret_ty.to_ir()}", ret_ty,
                         {"axis": f"{axis} : i32"})

    def extern_elementwise(self, symbol, np_name, args, ret_ty, libname="", libpath="", pure=True):
        types = ", ".join(a.ir_type for a in args)
        attrs = {"libname": quote(libname), "libpath": quote(libpath), "pure": "true" if pure else "false",
                 "symbol": quote(symbol)}
        return self.emit("tt.extern_elementwise " + ", ".join(a.name for a in args),
                         f" : ({types}) -> {ret_ty.to_ir()}", ret_ty, attrs)

    def inline_asm(self, asm, constraints, args, ret_tys, is_pure, pack):
        name = self.fresh()
        n = len(ret_tys)
        lhs = name if n == 1 else f"{name}:{n}"
        attrs = {"constraints": quote(constraints), "packed_element": f"{pack} : i32",
                 "pure": "true" if is_pure else "false"}
        arg_txt = (" " + ", ".join(a.name for a in args) + " : " + ", ".join(a.ir_type for a in args)) if args else ""
        op = Op(f"{lhs} = tt.elementwise_inline_asm {quote(asm)}",
                f"{arg_txt} -> " + ", ".join(t.to_ir() for t in ret_tys), self.loc, attrs)
        self.block.ops.append(op)
        if n == 1:
            return [Value(name, ret_tys[0], op)]
        return [Value(f"{name}#{i}", t, op) for i, t in enumerate(ret_tys)]

    # ------------------------------------------------------------------ hints and debug
    def hint(self, h, kind, values, ret_ty):
        dense = f"dense<{values[0]}>" if len(set(values)) == 1 else "dense<[" + ", ".join(map(str, values)) + "]>"
        attr = f"{dense} : tensor<{len(values)}xi32>"
        if h.op is not None:
            h.op.attrs[kind] = attr
        elif h.arg_of is not None:
            func, idx = h.arg_of
            if kind == "tt.divisibility" and not ret_ty.is_block():
                func.arg_attrs[idx][kind] = f"{values[0]} : i32"
            else:
                func.arg_attrs[idx][kind] = attr
        return h

    def prof_record(self, name, is_end):
        """The start or end of profiling scope `name` (tessera.profiler.language): a prof.record
        when the kernel is compiled with profiling scopes, else nothing (identical code)."""
        if not self.profile_scopes:
            return
        self.has_profile_records = True
        self.emit(f"prof.record {'end' if is_end else 'start'} {quote(name)}", "")

    def device_print(self, prefix, handles, types, hex):
        signed = ", ".join("1" if t.scalar.is_int_signed() else "0" for t in types)
        attrs = {"hex": "true" if hex else "false", "isSigned": f"array<i32{': ' + signed if signed else ''}>"}
        args = ""
        if handles:
            args = " : " + ", ".join(h.name for h in handles) + " : " + ", ".join(h.ir_type for h in handles)
        self.emit(f"tt.print {quote(prefix)}", args, None, attrs)

    def device_assert(self, cond, msg, cond_ty):
        self.emit(f"tt.assert {cond.name}, {quote(msg)}", f" : {cond.ir_type}")

    def assume(self, cond):
        self.emit(f"llvm.intr.assume {cond.name}", " : i1")

    def barrier(self):
        self.emit("ttg.barrier", "")

    # ================================================================== structure (compiled code only)
    # Functions, calls, structured control flow, branches and the module. The code generator
    # builds all of its IR through these methods; they check the types they are given and raise
    # IRBuilderError (a front-end bug) on a mismatch.

    @staticmethod
    def file_loc(filename, line, col):
        """The location `"file":line:col` (1-based column), for `self.loc` and functions."""
        return f"{quote(filename)}:{line}:{col}"

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _check_value(opname, v, what):
        if not isinstance(v, Value):
            raise IRBuilderError(f"{opname}: {what} must be an SSA value (ir_builder.Value), got "
                                 f"{type(v).__name__} {v!r}")

    def _check_types(self, opname, what, values, expected, expected_what):
        for v in values:
            self._check_value(opname, v, what)
        got = [v.ir_type for v in values]
        want = [t.to_ir() for t in expected]
        if got != want:
            raise IRBuilderError(f"{opname}: {what} have types {_types_str(got)} but {expected_what} "
                                 f"{_types_str(want)}")

    def _check_condition(self, opname, cond):
        self._check_value(opname, cond, "the condition")
        if cond.ir_type != "i1":
            raise IRBuilderError(f"{opname}: the condition must be an i1 scalar, got {cond.ir_type}")

    def _terminate(self, opname, text):
        blk = self._insertion_block(opname)
        blk.ops.append(Op(text, "", self.loc))
        blk.terminated = True

    @staticmethod
    def _operands(values):
        """`%a, %b : t1, t2` (empty for no values)."""
        if not values:
            return ""
        return ", ".join(v.name for v in values) + " : " + ", ".join(v.ir_type for v in values)

    # ------------------------------------------------------------------ blocks
    def create_block(self, arg_types=(), func=None):
        """A new block with arguments of `arg_types`. With `func`, a block of that function that
        branches can reach (labelled ^bbN); without, a block placed nowhere yet (for create_if to
        take as a region, or whose ops are thrown away)."""
        if func is None:
            return Block(None, [Value(self.fresh(), t) for t in arg_types])
        if not isinstance(func, Function):
            raise IRBuilderError(f"create_block: func must be a Function, got {type(func).__name__}")
        func.block_counter += 1
        blk = Block(f"^bb{func.block_counter}", [Value(self.fresh(), t) for t in arg_types], owner=func)
        func.blocks.append(blk)
        return blk

    def placeholder(self, ty):
        """A value of type `ty` defined nowhere: stands for one in code built only to be thrown away
        (see discarding)."""
        return Value(self.fresh(), ty)

    def set_unreachable(self):
        """Nothing that follows can run: insert into a block placed nowhere, already terminated."""
        self.block = Block()
        self.block.terminated = True

    @contextlib.contextmanager
    def discarding(self):
        """A context in which everything built is thrown away afterwards: ops go to a block placed
        nowhere, and the blocks added to the current function and the result types declared for it
        are dropped on exit (functions finished meanwhile, e.g. called ones, are kept)."""
        func = self.func
        saved_block = self.block
        nblocks = len(func.blocks) if func is not None else 0
        result_types = func.result_types if func is not None else None
        self.block = Block()
        try:
            yield
        finally:
            self.block, self.func = saved_block, func
            if func is not None:
                del func.blocks[nblocks:]
                func.result_types = result_types

    # ------------------------------------------------------------------ functions and the module
    def create_func(self, name, arg_types, arg_attrs=None, result_types=None, visibility="private",
                    noinline=False, arg_names=None, arg_hints=False, loc=None):
        """A tt.func (not yet in the module: see finish_func). Its parameters are the entry block's
        arguments (`func.args`), named after `arg_names` when given; `arg_attrs` are dicts of
        attribute name -> text; `result_types` None means declared later (declare_results). With
        `arg_hints`, hints on a parameter (tl.multiple_of …) become attributes of the argument (a
        kernel's); without, they are dropped (as for called functions)."""
        opname = f"tt.func @{name}"
        if visibility not in ("public", "private"):
            raise IRBuilderError(f"{opname}: visibility must be 'public' or 'private', got {visibility!r}")
        if name in self._func_names:
            raise IRBuilderError(f"{opname}: a function of this name already exists")
        arg_types = list(arg_types)
        arg_attrs = [dict(a or {}) for a in arg_attrs] if arg_attrs is not None else [{} for _ in arg_types]
        if len(arg_attrs) != len(arg_types) or (arg_names is not None and len(arg_names) != len(arg_types)):
            raise IRBuilderError(f"{opname}: {len(arg_types)} argument types but {len(arg_attrs)} attribute "
                                 f"dicts" + ("" if arg_names is None else f" and {len(arg_names)} names"))
        self._func_names.add(name)
        func = Function(name, visibility, bool(noinline), loc)
        used = set()
        for i, t in enumerate(arg_types):
            vname = f"%{arg_names[i]}" if arg_names is not None else None
            if vname is None or vname in used:
                vname = self.fresh()
            used.add(vname)
            func.entry.args.append(Value(vname, t, arg_of=(func, i) if arg_hints else None))
        func.arg_attrs = arg_attrs
        func.result_types = list(result_types) if result_types is not None else None
        return func

    def declare_results(self, func, result_types):
        """Fix the result types of `func` (if already declared, they must be the same)."""
        result_types = list(result_types)
        if func.result_types is None:
            func.result_types = result_types
            return
        old = [t.to_ir() for t in func.result_types]
        new = [t.to_ir() for t in result_types]
        if old != new:
            raise IRBuilderError(f"tt.func @{func.name}: result types {_types_str(old)} were declared, now "
                                 f"{_types_str(new)}")

    def finish_func(self, func):
        """Check that every block of `func` (regions included) ends with a terminator, and add it to
        the module."""
        if func.result_types is None:
            raise IRBuilderError(f"tt.func @{func.name}: its result types were never declared")

        def check(blocks, where):
            for blk in blocks:
                if not blk.terminated:
                    label = blk.label or ("the entry block" if blk is func.entry else "a block")
                    raise IRBuilderError(f"tt.func @{func.name}: {label} of {where} has no terminator")
                for op in blk.ops:
                    if isinstance(op, RegionOp):
                        check(op.regions(), f"a region of {op.opname}")
        check(func.blocks, "the function body")
        self.functions.append(func)

    def render_module(self):
        """The module's text: the finished functions in the order they were finished."""
        out = ["module {"]
        for func in self.functions:
            func.render(2, out)
        out.append("}")
        return "\n".join(out) + "\n"

    def create_call(self, func, args):
        """tt.call of `func` with `args`; returns the list of its results."""
        opname = f"tt.call @{func.name}"
        if func.result_types is None:
            raise IRBuilderError(f"{opname}: the callee's result types are not declared yet")
        args = list(args)
        self._check_types(opname, "the arguments", args, [a.ty for a in func.args],
                          "the callee's parameters are")
        sig = "(" + ", ".join(a.ir_type for a in args) + ") -> (" + \
              ", ".join(t.to_ir() for t in func.result_types) + ")"
        text = f"tt.call @{func.name}(" + ", ".join(a.name for a in args) + ")"
        blk = self._insertion_block(opname)
        n = len(func.result_types)
        name = self.fresh() if n else None
        op = Op(_results_lhs(name, n) + text, f" : {sig}", self.loc)
        blk.ops.append(op)
        return _result_values(name, func.result_types, op) if n else []

    def create_return(self, values=()):
        """tt.return of `values` from the current function (self.func)."""
        values = list(values)
        func = self.func
        if func is None:
            raise IRBuilderError("tt.return: not inside a function")
        owner = self._insertion_block("tt.return").owner
        if isinstance(owner, RegionOp):
            raise IRBuilderError(f"tt.return: inside a region of {owner.opname}; a return must be in a block "
                                 f"of the tt.func (branch there with cf)")
        if func.result_types is None:
            raise IRBuilderError(f"tt.return: the result types of @{func.name} are not declared yet")
        self._check_types("tt.return", "the returned values", values, func.result_types,
                          f"@{func.name} returns")
        ops = self._operands(values)
        self._terminate("tt.return", "tt.return" + (" " if ops else "") + ops)

    # ------------------------------------------------------------------ branches (cf)
    def _dest(self, opname, dest, values):
        if not isinstance(dest, Block) or not isinstance(dest.owner, Function) or dest.label is None:
            raise IRBuilderError(f"{opname}: a branch can only go to a labelled block of a function "
                                 f"(made with create_block(func=...))")
        if self.func is not None and dest.owner is not self.func:
            raise IRBuilderError(f"{opname}: the destination {dest.label} belongs to @{dest.owner.name}, not to "
                                 f"@{self.func.name}")
        values = list(values)
        self._check_types(opname, f"the operands for {dest.label}", values, [a.ty for a in dest.args],
                          "the block's arguments are")
        if not values:
            return dest.label
        return f"{dest.label}(" + self._operands(values) + ")"

    def _check_branch_source(self, opname):
        owner = self._insertion_block(opname).owner
        if isinstance(owner, RegionOp):
            raise IRBuilderError(f"{opname}: inside a region of {owner.opname}; branches can only leave blocks "
                                 f"of the function")

    def create_br(self, dest, values=()):
        """cf.br to block `dest` of the current function, passing `values` to its arguments."""
        self._check_branch_source("cf.br")
        self._terminate("cf.br", "cf.br " + self._dest("cf.br", dest, values))

    def create_cond_br(self, cond, true_dest, false_dest, true_values=(), false_values=()):
        """cf.cond_br on the i1 `cond` to `true_dest` or `false_dest`."""
        self._check_branch_source("cf.cond_br")
        self._check_condition("cf.cond_br", cond)
        t = self._dest("cf.cond_br", true_dest, true_values)
        f = self._dest("cf.cond_br", false_dest, false_values)
        self._terminate("cf.cond_br", f"cf.cond_br {cond.name}, {t}, {f}")

    # ------------------------------------------------------------------ structured control flow (scf)
    _LOOP_ATTRS = {"num_stages": "tt.num_stages", "loop_unroll_factor": "tt.loop_unroll_factor",
                   "disallow_acc_multi_buffer": "tt.disallow_acc_multi_buffer", "flatten": "tt.flatten",
                   "warp_specialize": "tt.warp_specialize"}

    def create_for(self, lb, ub, step, inits=(), num_stages=None, loop_unroll_factor=None,
                   disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        """scf.for from `lb` to `ub` by `step` (scalar integers of one type) carrying `inits`,
        inserted at the current point. Build the body in `op.body` (arguments: `op.induction_var`
        then `op.iter_args`) and end it with create_yield; `op.results` are the loop's values.
        The keyword arguments are the pipelining hints of tl.range (tt.num_stages …)."""
        opname = "scf.for"
        for v, what in ((lb, "lower bound"), (ub, "upper bound"), (step, "step")):
            self._check_value(opname, v, f"the {what}")
            if v.ty.is_block() or v.ty.is_ptr() or not v.ty.is_int():
                raise IRBuilderError(f"{opname}: the {what} must be a scalar integer, got {v.ir_type}")
        if not lb.ir_type == ub.ir_type == step.ir_type:
            raise IRBuilderError(f"{opname}: the bounds and step must have one type, got lower bound "
                                 f"{lb.ir_type}, upper bound {ub.ir_type}, step {step.ir_type}")
        inits = list(inits)
        for v in inits:
            self._check_value(opname, v, "an initial value")
        blk = self._insertion_block(opname)
        iv = Value(self.fresh(), lb.ty)
        args = [Value(self.fresh(), v.ty) for v in inits]
        types = [v.ty for v in inits]
        name = self.fresh()
        n = len(inits)
        iter_args = ""
        if n:
            iter_args = " iter_args(" + ", ".join(f"{a.name} = {i.name}" for a, i in zip(args, inits)) + \
                        ") -> (" + ", ".join(t.to_ir() for t in types) + ")"
        head = f"{_results_lhs(name, n)}scf.for {iv.name} = {lb.name} to {ub.name} step {step.name}" \
               f"{iter_args} : {lb.ir_type} {{"
        attrs = {}
        for key, value in (("num_stages", num_stages), ("loop_unroll_factor", loop_unroll_factor)):
            if value is not None:
                attrs[self._LOOP_ATTRS[key]] = f"{int(value)} : i32"
        for key, value in (("disallow_acc_multi_buffer", disallow_acc_multi_buffer), ("flatten", flatten),
                           ("warp_specialize", warp_specialize)):
            if value:
                attrs[self._LOOP_ATTRS[key]] = "unit"
        body = Block(None, [iv] + args)
        op = ForOp([head, [body], "}"], self.loc, attrs)
        body.owner = op
        op.body, op.induction_var, op.iter_args, op.result_types = body, iv, args, types
        op.results = _result_values(name, types, op) if n else []
        blk.ops.append(op)
        return op

    def create_if(self, cond, result_types=(), then_block=None, else_block=None):
        """scf.if on the i1 `cond` producing `result_types`, inserted at the current point. Its
        regions are `then_block` and `else_block`: new ones, or blocks from create_block() that
        already hold ops; each must end with create_yield. `op.results` are its values."""
        opname = "scf.if"
        self._check_condition(opname, cond)
        blocks = []
        for blk, which in ((then_block, "then"), (else_block, "else")):
            if blk is None:
                blk = Block()
            elif not isinstance(blk, Block) or blk.owner is not None or blk.args or blk.terminated:
                raise IRBuilderError(f"{opname}: the {which} region must be a new block from create_block() "
                                     f"with no arguments and no terminator")
            blocks.append(blk)
        parent = self._insertion_block(opname)
        types = list(result_types)
        n = len(types)
        name = self.fresh()
        res = "" if n == 0 else " -> (" + ", ".join(t.to_ir() for t in types) + ")"
        op = IfOp([f"{_results_lhs(name, n)}scf.if {cond.name}{res} {{", [blocks[0]], "} else {", [blocks[1]],
                   "}"], self.loc)
        op.then_block, op.else_block, op.result_types = blocks[0], blocks[1], types
        for blk in blocks:
            blk.owner = op
        op.results = _result_values(name, types, op) if n else []
        parent.ops.append(op)
        return op

    def if_then_else(self, cond, result_types, then_fn, else_fn):
        """scf.if on the i1 `cond` whose regions are built by `then_fn` and `else_fn` (each
        emits its ops at the insertion point and returns the values to yield, of
        `result_types`); returns the if's results."""
        then_blk, else_blk = Block(), Block()
        op = self.create_if(cond, result_types, then_blk, else_blk)
        for blk, fn in ((then_blk, then_fn), (else_blk, else_fn)):
            saved = self.block
            self.block = blk
            try:
                self.create_yield(list(fn() or []))
            finally:
                self.block = saved
        return op.results

    def create_while(self, inits, result_types=None):
        """scf.while carrying `inits`, inserted at the current point. `op.before` (arguments of the
        init types) computes the condition and ends with create_condition; `op.after` (arguments
        of `result_types`, by default the init types) is the body and ends with create_yield of
        values of the init types; `op.results` are the values when the condition is false."""
        opname = "scf.while"
        inits = list(inits)
        for v in inits:
            self._check_value(opname, v, "an initial value")
        init_types = [v.ty for v in inits]
        types = list(result_types) if result_types is not None else list(init_types)
        parent = self._insertion_block(opname)
        before = Block(None, [Value(self.fresh(), t) for t in init_types])
        after = Block("^bb0", [Value(self.fresh(), t) for t in types])
        name = self.fresh()
        n = len(types)
        inits_txt = ", ".join(f"{a.name} = {i.name}" for a, i in zip(before.args, inits))
        head = f"{_results_lhs(name, n)}scf.while ({inits_txt}) : (" + ", ".join(t.to_ir() for t in init_types) + \
               ") -> (" + ", ".join(t.to_ir() for t in types) + ") {"
        op = WhileOp([head, [before], "} do {", [after], "}"], self.loc)
        before.owner = after.owner = op
        op.before, op.after, op.init_types, op.result_types = before, after, init_types, types
        op.results = _result_values(name, types, op) if n else []
        parent.ops.append(op)
        return op

    def _region_terminator(self, opname):
        blk = self._insertion_block(opname)
        owner = blk.owner
        if not isinstance(owner, RegionOp):
            raise IRBuilderError(f"{opname}: the insertion block is not a region of scf.for, scf.if or scf.while")
        kind, types = owner.terminator_of(blk)
        if kind != opname:
            raise IRBuilderError(f"{opname}: this region of {owner.opname} must end with {kind}")
        return owner, types

    def create_yield(self, values=()):
        """scf.yield ending a region of scf.for, scf.if or the body of scf.while; the values must
        have the types that region produces."""
        values = list(values)
        owner, types = self._region_terminator("scf.yield")
        self._check_types("scf.yield", "the yielded values", values, types,
                          f"the enclosing {owner.opname} expects")
        ops = self._operands(values)
        self._terminate("scf.yield", "scf.yield" + (" " if ops else "") + ops)

    def create_condition(self, cond, values=()):
        """scf.condition ending the `before` region of scf.while: continue with `values` (of the
        loop's result types) while the i1 `cond` holds, else they are the results."""
        values = list(values)
        owner, types = self._region_terminator("scf.condition")
        self._check_condition("scf.condition", cond)
        self._check_types("scf.condition", "the forwarded values", values, types,
                          "the scf.while results are")
        ops = self._operands(values)
        self._terminate("scf.condition", f"scf.condition({cond.name})" + (" " if ops else "") + ops)
