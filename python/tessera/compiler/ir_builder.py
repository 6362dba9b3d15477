"""A builder that emits TTIR as MLIR text: one method per language operation, with locations.

Ops are kept as small objects until the module is rendered, so that hints
(tt.divisibility …) can still be attached to the op defining a value. The text
uses the custom assembly formats of the tt dialect (those Triton prints), and
is parsed and verified by the native core.
"""

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


class Block:
    """A list of ops with an optional label line (`^bb1(%a: i32):`)."""

    def __init__(self, label=None, args=()):
        self.label = label
        self.args = list(args)
        self.ops = []
        self.terminated = False

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

    def __init__(self, parts, loc=None, attrs=None, attrs_at_end=True):
        super().__init__("", "", loc, attrs)
        self.parts = parts
        self.attrs_at_end = attrs_at_end

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


_FP8 = {"fp8e4nv": (_fp8_table(4, 3, 7, False), 0x7F, None),
        "fp8e5": (_fp8_table(5, 2, 15, True), 0x7F, 0x7C)}


def _fp8_bits(v, name):
    table, nan, inf = _FP8[name]
    if math.isnan(v):
        return nan
    if math.isinf(v):
        if inf is None:
            return nan
        return inf | (0x80 if v < 0 else 0)
    best, best_err = None, None
    for code, cv in enumerate(table):
        if cv is None or (math.copysign(1.0, cv) != math.copysign(1.0, v) and cv != 0):
            continue
        err = abs(cv - v)
        if best is None or err < best_err or (err == best_err and code % 2 == 0):
            best, best_err = code, err
    if v < 0 and best is not None and table[best] == 0:
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
        self.counter = 0
        self.loc = None
        self.functions = []       # rendered in order
        self.block = None         # current Block
        self.func = None          # current function record

    # ------------------------------------------------------------------ naming
    def fresh(self, prefix="%"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, prefix_fmt, suffix, ret_ty=None, attrs=None, nres=None):
        """Append an op to the current block; `prefix_fmt` is the text after `%r = `."""
        if self.block is None:
            raise RuntimeError("no insertion block")
        if self.block.terminated:
            raise RuntimeError("emitting after a terminator")
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
        self.block.ops.append(op)
        return op

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
            results = combine(args)
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

    def extern_elementwise(self, symbol, np_name, args, ret_ty):
        types = ", ".join(a.ir_type for a in args)
        attrs = {"libname": '""', "libpath": '""', "pure": "true", "symbol": quote(symbol)}
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

    def device_print(self, prefix, handles, types, hex):
        signed = ", ".join("1" if t.scalar.is_int_signed() else "0" for t in types)
        attrs = {"hex": "true" if hex else "false", "isSigned": f"array<i32{': ' + signed if signed else ''}>"}
        args = ""
        if handles:
            args = " : " + ", ".join(h.name for h in handles) + " : " + ", ".join(h.ir_type for h in handles)
        self.emit(f"tt.print {quote(prefix)}", args, None, attrs)

    def device_assert(self, cond, msg, cond_ty):
        self.emit(f"tt.assert {cond.name}, {quote(msg)}", f" : {cond.ir_type}")

    def barrier(self):
        self.emit("ttg.barrier", "")
