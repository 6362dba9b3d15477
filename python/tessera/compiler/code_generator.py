"""The front end: walks a @jit function's Python AST and emits TTIR through the IR builder.

Expressions evaluate to language values (tensors whose handles are SSA values,
constexprs, or plain Python objects) by calling the same semantic layer the
interpreter uses. Statements become structured control flow (scf.if/for/while)
or, inside a construct that contains a `return`, branches between blocks (cf).
Every jit function a kernel calls becomes its own tt.func reached by tt.call;
the inliner pass later inlines all of them except those with noinline=True.
All IR, functions and control flow included, is made by the IRBuilder's methods;
this module decides what to build and reports the user's mistakes
(CompilationError), and writes no IR text itself.
"""

import ast
import builtins
import linecache
import operator
import types

from ..language import core, semantic
from ..language.builtins import range as tl_range, static_range
from ..language.core import constexpr, tensor
from ..runtime.jit import JITFunction
from .errors import CompilationError
from .ir_builder import IRBuilder, IRBuilderError

_PY_BUILTINS = {
    "range": builtins.range, "min": builtins.min, "max": builtins.max, "print": builtins.print,
    "len": builtins.len, "int": builtins.int, "float": builtins.float, "bool": builtins.bool,
    "isinstance": builtins.isinstance, "abs": builtins.abs, "tuple": builtins.tuple, "list": builtins.list,
    "zip": builtins.zip, "enumerate": builtins.enumerate, "getattr": builtins.getattr,
    "hasattr": builtins.hasattr, "type": builtins.type, "str": builtins.str, "round": builtins.round,
    "divmod": builtins.divmod, "all": builtins.all, "any": builtins.any, "reversed": builtins.reversed,
    "sorted": builtins.sorted, "slice": builtins.slice,
    "True": True, "False": False, "None": None,
}


class _Unreachable(Exception):
    """Raised internally to stop visiting a block after a terminator."""


def _contains_return(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Return):
            return True
    return False


def _is_tensor(v):
    return isinstance(v, tensor)


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def _is_python_number(v):
    v = _unwrap(v)
    return isinstance(v, (bool, int, float)) and not isinstance(v, tensor)


def _is_desc(v):
    return isinstance(v, core.tensor_descriptor)


def _is_runtime(v):
    """A value known only at run time: a tensor, a tensor descriptor, or a tuple holding one."""
    v = _unwrap(v)
    if isinstance(v, (tuple, list)):
        return any(_is_runtime(x) for x in v)
    return _is_tensor(v) or _is_desc(v)


class _Const:
    """A compile-time element of a tuple passed to a @jit function: it stays a constant in the
    callee and specializes it (as in Triton), instead of becoming an argument."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def _key(self):
        return (type(self.value), _hashable(self.value))

    def __eq__(self, other):
        return isinstance(other, _Const) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"_Const({self.value!r})"


def _flatten(v, consts=False):
    """Leaves of nested tuples/lists; a tensor descriptor's leaves are its run-time values. With
    `consts`, compile-time leaves are left out (they are _Const nodes of _structure's)."""
    if isinstance(v, (tuple, list)):
        out = []
        for x in v:
            out.extend(_flatten(x, consts))
        return out
    if _is_desc(v):
        return v._leaves()
    if consts and not _is_tensor(v):
        return []
    return [v]


def _structure(v, consts=False):
    """The shape of a value for _rebuild: None for a leaf, a tuple for a tuple, a descriptor's
    type for a descriptor (its constants are in the type); with `consts`, a _Const for a
    compile-time leaf."""
    if isinstance(v, (tuple, list)):
        return tuple(_structure(x, consts) for x in v)
    if _is_desc(v):
        return v.type
    if consts and not _is_tensor(v):
        return _Const(_unwrap(v))
    return None


def _rebuild(struct, leaves):
    it = iter(leaves)

    def go(s):
        if s is None:
            return next(it)
        if isinstance(s, _Const):
            return constexpr(s.value)
        if isinstance(s, core.tensor_descriptor_type):
            return core.tensor_descriptor._from_leaves(s, [next(it) for _ in s.leaf_types()])
        return tuple(go(x) for x in s)
    return go(struct)


class FuncRecord:
    """A function being generated: the builder's Function (`fn`) and how its results look in
    Python (a tuple structure, whether it returns a value)."""

    def __init__(self, fn):
        self.fn = fn
        self.ret_struct = None
        self.has_return_value = False

    @property
    def name(self):
        return self.fn.name

    @property
    def ret_types(self):
        """The language types of the results: None until the first return."""
        return self.fn.result_types


class _ArgSlot:
    """Where a kernel parameter goes before the function (and so its arguments) exists."""

    def __init__(self, index):
        self.index = index


class _DescSlots:
    """Where a tensor descriptor parameter's leaves (base, run-time sizes and strides) go."""

    def __init__(self, ty, slots):
        self.ty = ty
        self.slots = slots


class Scope:
    def __init__(self, values=None, undefined=None):
        self.values = dict(values or {})
        # names a join left undefined (defined on some paths only): name -> line of the join's if
        self.undefined = dict(undefined or {})

    def copy(self):
        return Scope(self.values, self.undefined)


class CodeGenerator(ast.NodeVisitor):
    """Generates one function (a kernel or a called device function)."""

    def __init__(self, module, jit_fn, func, scope):
        self.module = module          # ModuleGenerator
        self.builder = module.builder
        self.jit_fn = jit_fn
        self.func = func
        self.scope = scope
        self.filename = jit_fn.filename
        self.gscope = jit_fn.fn.__globals__
        code = jit_fn.fn.__code__
        self.closure = {}
        if jit_fn.fn.__closure__:
            for name, cell in zip(code.co_freevars, jit_fn.fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.cur_node = None

    # ================================================================ errors
    def error(self, node, message, cause=None):
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        src = linecache.getline(self.filename, line) if line else None
        return CompilationError(message, self.filename, line, col, src or None)

    def visit(self, node):
        has_loc = hasattr(node, "lineno")
        saved_loc, saved_node = self.builder.loc, self.cur_node
        if has_loc:
            self.builder.loc = self.builder.file_loc(self.filename, node.lineno, node.col_offset + 1)
            self.cur_node = node
        try:
            return super().visit(node)
        except (CompilationError, _Unreachable, IRBuilderError):
            raise
        except RecursionError as e:
            if len(__import__("traceback").extract_tb(e.__traceback__)) < 400:
                raise
            raise self.error(node, "kernel code nests too deeply to compile") from None
        except Exception as e:  # user errors from the semantic layer, named by their message
            msg = str(e) or type(e).__name__
            if not isinstance(e, (TypeError, ValueError, AssertionError, IndexError, NotImplementedError,
                                  ZeroDivisionError, OverflowError)):
                msg = f"{type(e).__name__}: {msg}"
            raise self.error(node, msg) from e
        finally:
            self.builder.loc, self.cur_node = saved_loc, saved_node

    def generic_visit(self, node):
        raise self.error(node, f"unsupported construct in kernel code: {type(node).__name__}")

    # ================================================================ names
    def lookup(self, name, node):
        if name in self.scope.values:
            return self.scope.values[name]
        if name in self.closure:
            return self._check_global(name, self.closure[name], node, closure=True)
        if name in self.gscope:
            return self._check_global(name, self.gscope[name], node)
        if name in _PY_BUILTINS:
            return _PY_BUILTINS[name]
        if name in self.scope.undefined:
            raise self.error(node, f"'{name}' is defined on only some paths through the if at line "
                                   f"{self.scope.undefined[name]} (or differs between them as a compile-time "
                                   f"value), so it is undefined here; define it before the if or on every path")
        raise self.error(node, f"undefined name '{name}'")

    def _check_global(self, name, value, node, closure=False):
        if not closure and not isinstance(value, constexpr) and self._annotated_constexpr(name):
            # `BLOCK: tl.constexpr = 1024` at module level: a constant, as in Triton
            self.module.used_globals[(self.jit_fn.fn.__module__, self.jit_fn.__name__, name)] = (
                value, self.gscope, name)
            return constexpr(value)
        ok = isinstance(value, (constexpr, JITFunction, types.ModuleType, core.dtype, type)) or callable(value) \
            or value is None
        if not ok:
            where = "captured variable" if closure else "global variable"
            raise self.error(node, f"cannot use {where} '{name}' (a {type(value).__name__}) in a kernel: only "
                                   f"globals created as tl.constexpr(...) are allowed, e.g. "
                                   f"{name} = tl.constexpr({value!r})")
        if isinstance(value, constexpr) or isinstance(value, JITFunction):
            self.module.used_globals[(self.jit_fn.fn.__module__, self.jit_fn.__name__, name)] = (
                value, self.gscope if not closure else None, name)
        return value

    def _annotated_constexpr(self, name):
        ann = self.gscope.get("__annotations__", {}).get(name, None)
        if ann is None:
            return False
        if ann is core.constexpr:
            return True
        return isinstance(ann, str) and ann.replace(" ", "").split(".")[-1] == "constexpr"

    # ================================================================ function body
    def run_body(self, stmts):
        try:
            for s in stmts:
                if self.builder.block.terminated:
                    break
                self.visit(s)
        except _Unreachable:
            pass

    def visit_FunctionDef(self, node):
        raise self.error(node, "nested function definitions are not supported in kernels; define a separate "
                               "@jit function")

    def visit_Pass(self, node):
        return None

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # docstring
        self.visit(node.value)

    # ================================================================ assignment
    def assign_target(self, target, value):
        if isinstance(target, ast.Name):
            if isinstance(value, (list,)):
                value = tuple(value)
            self.scope.values[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            v = _unwrap(value)
            if not isinstance(v, (tuple, list)):
                raise self.error(target, f"cannot unpack a {type(v).__name__} into {len(target.elts)} names")
            if len(v) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(v)} values into {len(target.elts)} names")
            for t, x in zip(target.elts, v):
                self.assign_target(t, x)
        elif isinstance(target, ast.Subscript):
            raise self.error(target, "tensors are immutable: item assignment is not supported; build a new "
                                     "tensor (e.g. with tl.where)")
        elif isinstance(target, ast.Attribute):
            raise self.error(target, "attribute assignment is not supported in kernels")
        elif isinstance(target, ast.Starred):
            raise self.error(target, "starred assignment is not supported in kernels")
        else:
            raise self.error(target, f"unsupported assignment target {type(target).__name__}")

    def visit_Assign(self, node):
        value = semantic.assigned(self.visit(node.value))
        for t in node.targets:
            self.assign_target(t, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        value = self.visit(node.value)
        ann = _unwrap(self.visit(node.annotation))
        if ann is core.constexpr and _is_tensor(value):
            raise self.error(node, f"'{ast.unparse(node.target)}' is annotated tl.constexpr but its value is only "
                                   f"known at run time")
        if ann is core.constexpr and not isinstance(value, constexpr):
            value = constexpr(value)
        elif ann is not core.constexpr:
            value = semantic.assigned(value)
        self.assign_target(node.target, value)

    def visit_AugAssign(self, node):
        cur = self.visit(ast.Name(id=node.target.id, ctx=ast.Load(), lineno=node.lineno,
                                  col_offset=node.col_offset)) if isinstance(node.target, ast.Name) else None
        if cur is None:
            raise self.error(node, "augmented assignment only to names is supported")
        rhs = self.visit(node.value)
        self.assign_target(node.target, self.binop(node.op, cur, rhs, node))

    # ================================================================ expressions
    def visit_Constant(self, node):
        return constexpr(node.value)

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        obj = _unwrap(base)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            raise self.error(node, f"{_describe(obj)} has no attribute '{node.attr}'") from None

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node):
        return [self.visit(e) for e in node.elts]

    def visit_Slice(self, node):
        lo = _unwrap(self.visit(node.lower)) if node.lower else None
        hi = _unwrap(self.visit(node.upper)) if node.upper else None
        st = _unwrap(self.visit(node.step)) if node.step else None
        return slice(lo, hi, st)

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        idx = self.visit(node.slice)
        if _is_tensor(base):
            return semantic.getitem(base, idx)
        b = _unwrap(base)
        i = _unwrap(idx)
        if isinstance(i, tuple):
            i = tuple(_unwrap(x) for x in i)
        if _is_tensor(i):
            raise self.error(node, "indexing a tuple needs a compile-time constant index")
        try:
            return b[i]
        except (IndexError, KeyError, TypeError) as e:
            raise self.error(node, f"cannot index {_describe(b)} with {i!r}: {e}") from None

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.visit(v.value)
                if _is_tensor(val):
                    raise self.error(v, "f-strings can only format compile-time values")
                parts.append(format(_unwrap(val), "" if v.format_spec is None else
                                    "".join(str(x.value) for x in v.format_spec.values)))
        return constexpr("".join(parts))

    _BINOPS = {
        ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.Div: "__truediv__",
        ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__", ast.Pow: "__pow__", ast.LShift: "__lshift__",
        ast.RShift: "__rshift__", ast.BitAnd: "__and__", ast.BitOr: "__or__", ast.BitXor: "__xor__",
    }

    def binop(self, op, lhs, rhs, node):
        fn = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
              ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
              ast.BitOr: operator.or_, ast.BitXor: operator.xor}.get(type(op))
        if fn is None:
            raise self.error(node, f"unsupported operator {type(op).__name__}")
        if not _is_tensor(lhs) and not _is_tensor(rhs):
            a, b = _unwrap(lhs), _unwrap(rhs)
            try:
                return constexpr(fn(a, b))
            except ZeroDivisionError:
                raise self.error(node, "division by zero in a compile-time expression") from None
            except TypeError as e:
                raise self.error(node, str(e)) from None
        if isinstance(op, ast.Pow):
            raise self.error(node, "'**' on tensors is not supported; use tl.math.pow")
        return fn(lhs, rhs)

    def visit_BinOp(self, node):
        lhs = self.visit(node.left)
        rhs = self.visit(node.right)
        return self.binop(node.op, lhs, rhs, node)

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if _is_tensor(v):
                return semantic.logical_not(v)
            return constexpr(not _unwrap(v))
        if not _is_tensor(v):
            x = _unwrap(v)
            return constexpr({ast.USub: lambda: -x, ast.UAdd: lambda: +x, ast.Invert: lambda: ~x}[type(node.op)]())
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        return ~v

    _CMP = {ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__", ast.Eq: "__eq__",
            ast.NotEq: "__ne__"}

    def compare(self, op, a, b, node):
        if isinstance(op, (ast.Is, ast.IsNot)):
            if _is_tensor(a) or _is_tensor(b):
                r = a is b
            else:
                r = _unwrap(a) is _unwrap(b)
            return constexpr(r if isinstance(op, ast.Is) else not r)
        if isinstance(op, (ast.In, ast.NotIn)):
            if _is_tensor(a) or _is_tensor(b):
                raise self.error(node, "'in' needs compile-time values")
            r = _unwrap(a) in [_unwrap(x) for x in _unwrap(b)]
            return constexpr(r if isinstance(op, ast.In) else not r)
        fn = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
              ast.Eq: operator.eq, ast.NotEq: operator.ne}[type(op)]
        if not _is_tensor(a) and not _is_tensor(b):
            return constexpr(fn(_unwrap(a), _unwrap(b)))
        if not _is_tensor(a):
            return fn(b, a) if isinstance(op, (ast.Eq, ast.NotEq)) else {
                ast.Lt: operator.gt, ast.LtE: operator.ge, ast.Gt: operator.lt, ast.GtE: operator.le}[type(op)](b, a)
        return fn(a, b)

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = self.visit(comp)
            r = self.compare(op, left, right, node)
            result = r if result is None else self.logical(ast.And(), result, r)
            left = right
        return result

    def logical(self, op, a, b):
        if not _is_tensor(a) and not _is_tensor(b):
            av, bv = _unwrap(a), _unwrap(b)
            return constexpr((av and bv) if isinstance(op, ast.And) else (av or bv))
        if isinstance(op, ast.And):
            return semantic.logical_and(a, b)
        return semantic.logical_or(a, b)

    def visit_BoolOp(self, node):
        # Compile-time operands short-circuit like Python; run-time ones are combined elementwise.
        vals = []
        for v in node.values:
            x = self.visit(v)
            if not _is_tensor(x):
                xv = _unwrap(x)
                if isinstance(node.op, ast.And) and not xv:
                    return constexpr(xv) if not vals else constexpr(False)
                if isinstance(node.op, ast.Or) and xv:
                    return constexpr(xv) if not vals else constexpr(True)
                continue
            vals.append(x)
        if not vals:
            return self.visit(node.values[-1])
        out = vals[0]
        if len(vals) == 1:
            return semantic.cast(out, core.int1) if out.dtype != core.int1 else out
        for v in vals[1:]:
            out = self.logical(node.op, out, v)
        return out

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _is_tensor(cond):
            return self.visit(node.body if _unwrap(cond) else node.orelse)
        cond = self._scalar_condition(cond, node.test)
        results = self._scf_if_values(cond, lambda: self.visit(node.body), lambda: self.visit(node.orelse), node)
        return results

    def visit_Starred(self, node):
        raise self.error(node, "starred expressions are not supported in kernels")

    def visit_Lambda(self, node):
        raise self.error(node, "lambda is not supported in kernels; use a @jit function")

    def visit_ListComp(self, node):
        raise self.error(node, "comprehensions are not supported in kernels")

    visit_GeneratorExp = visit_ListComp
    visit_DictComp = visit_ListComp
    visit_SetComp = visit_ListComp

    def visit_Dict(self, node):
        raise self.error(node, "dicts are not supported in kernels")

    def visit_Set(self, node):
        raise self.error(node, "sets are not supported in kernels")

    def visit_NamedExpr(self, node):
        raise self.error(node, "the walrus operator (:=) is not supported in kernels; assign in a statement")

    def visit_Yield(self, node):
        raise self.error(node, "yield is not supported in kernels (a kernel or @jit function cannot be a "
                               "generator)")

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node):
        raise self.error(node, "await is not supported in kernels")

    # ================================================================ calls
    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = _unwrap(self.visit(a.value))
                if not isinstance(v, (tuple, list)):
                    raise self.error(a, "only tuples can be unpacked with * in a call")
                args.extend(v)
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                raise self.error(node, "**kwargs in calls is not supported in kernels")
            kwargs[k.arg] = self.visit(k.value)
        fn = _unwrap(fn)
        if isinstance(fn, JITFunction):
            return self.call_jit(fn, args, kwargs, node)
        if getattr(fn, "__tessera_builtin__", False):
            return fn(*args, **kwargs)
        if fn is builtins.min or fn is builtins.max:
            if any(_is_tensor(a) for a in args):
                if kwargs or len(args) < 2:
                    raise self.error(node, f"{fn.__name__}() of tensors takes two or more positional arguments")
                out = args[0]
                for a in args[1:]:
                    out = semantic.minimum(out, a) if fn is builtins.min else semantic.maximum(out, a)
                return out
        if fn is builtins.print:
            if any(_is_tensor(a) for a in args):
                prefix = ""
                if args and isinstance(_unwrap(args[0]), str):
                    prefix, args = _unwrap(args[0]), args[1:]
                return semantic.device_print(prefix, args)
            print(*[_unwrap(a) for a in args])
            return None
        if fn is builtins.range:
            raise self.error(node, "range() can only be used as the iterable of a for loop")
        if fn is builtins.isinstance:
            # evaluated at compile time, tensors and descriptors included (isinstance(x, tl.tensor_descriptor))
            if len(args) != 2 or kwargs:
                raise self.error(node, f"isinstance() takes 2 positional arguments, got {len(args)}")
            cls = _unwrap(args[1])
            if isinstance(cls, (tuple, list)):
                cls = tuple(_unwrap(c) for c in cls)
            try:
                return constexpr(builtins.isinstance(_unwrap(args[0]), cls))
            except TypeError as e:
                raise self.error(node, f"isinstance(): {e}") from None
        if fn is builtins.abs and args and _is_tensor(args[0]):
            return semantic.abs(args[0])
        if isinstance(fn, type) and issubclass(fn, (core.constexpr,)):
            return fn(*[_unwrap(a) for a in args])
        # bound methods of tensors and language objects (x.to(...), tl.range(...), ...)
        owner = getattr(fn, "__self__", None)
        mod = getattr(fn, "__module__", "") or ""
        if isinstance(owner, tensor) or mod.startswith("tessera.language") or isinstance(fn, type) and \
                fn.__module__.startswith("tessera.language"):
            return fn(*args, **kwargs)
        if any(_is_tensor(a) for a in args) or any(_is_tensor(v) for v in kwargs.values()):
            name = getattr(fn, "__name__", repr(fn))
            raise self.error(node, f"'{name}' is not a @tessera.jit function or a tessera.language builtin, so "
                                   f"it cannot take tensors")
        # a compile-time helper evaluated in Python
        try:
            res = fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
        except Exception as e:
            raise self.error(node, f"calling {getattr(fn, '__name__', fn)!s} at compile time failed: "
                                   f"{type(e).__name__}: {e}") from None
        return res if isinstance(res, (tensor, tuple, list)) or res is None else constexpr(res)

    def call_jit(self, jit_fn, args, kwargs, node=None):
        """A call of another @jit function: a tt.call to its (specialized) tt.func."""
        try:
            bound = jit_fn.bind(args, kwargs)
        except TypeError as e:
            raise self.error(node or self.cur_node, str(e)) from None
        return self.module.call_function(self, jit_fn, bound, node or self.cur_node)

    # ================================================================ statements
    def visit_Return(self, node):
        value = self.visit(node.value) if node.value is not None else None
        self.emit_return(value, node)
        raise _Unreachable()

    def emit_return(self, value, node):
        func = self.func
        if value is None or _unwrap(value) is None:
            leaves, struct = [], None
        else:
            uv = _unwrap(value)
            struct = _structure(uv) if isinstance(uv, (tuple, list)) or _is_desc(uv) else None
            leaves = [semantic.to_tensor(x) for x in _flatten(uv if struct is not None else value)]
        types = [t.type for t in leaves]
        if func.ret_types is None:
            self.builder.declare_results(func.fn, types)
            func.ret_struct = struct
            func.has_return_value = bool(leaves)
        elif func.ret_types != types or func.ret_struct != struct:
            raise self.error(node, "this return gives " + _types_str(types) + " but an earlier return gave " +
                             _types_str(func.ret_types) + "; every return of a function must return the same types")
        self.builder.create_return([t.handle for t in leaves])

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
        if not _is_tensor(cond):
            if not _unwrap(cond):
                raise self.error(node, f"assertion failed at compile time{': ' + str(msg) if msg else ''}")
            return None
        semantic.device_assert(cond, str(msg) if msg else f"assertion failed: {ast.unparse(node.test)}")

    def visit_Break(self, node):
        raise self.error(node, "break is not supported in kernels")

    def visit_Continue(self, node):
        raise self.error(node, "continue is not supported in kernels")

    def visit_With(self, node):
        # The one context manager kernels take: a profiling scope (tessera.profiler.language),
        # whose start and end records surround the body.
        from ..profiler import language as prof_language
        unsupported = "'with' is not supported in kernels except around a profiling scope " \
                      "(with tessera.profiler.language.scope(name):, no 'as')"
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            raise self.error(node, unsupported)
        expr = node.items[0].context_expr
        try:
            ctx = _unwrap(self.visit(expr))
        except CompilationError:
            if "scope" in ast.unparse(expr):
                raise
            raise self.error(node, unsupported) from None
        if not isinstance(ctx, prof_language.scope):
            raise self.error(node, f"{unsupported}, not {type(ctx).__name__}")
        if _contains_return(node):
            raise self.error(node, f"return inside profiling scope '{ctx.name}': end the scope before returning")
        semantic.prof_record(ctx.name, False)
        self.run_body(node.body)
        if self.builder.block.terminated:
            raise _Unreachable()
        semantic.prof_record(ctx.name, True)
        return None

    def visit_Try(self, node):
        raise self.error(node, "try/except is not supported in kernels")

    def visit_Raise(self, node):
        raise self.error(node, "raise is not supported in kernels; use tl.device_assert or tl.static_assert")

    def visit_Global(self, node):
        raise self.error(node, "global declarations are not supported in kernels")

    visit_Nonlocal = visit_Global

    def visit_Delete(self, node):
        raise self.error(node, "del is not supported in kernels")

    def visit_Import(self, node):
        raise self.error(node, "import is not supported inside kernels; import at module level")

    visit_ImportFrom = visit_Import

    def visit_ClassDef(self, node):
        raise self.error(node, "class definitions are not supported in kernels")

    # ---------------------------------------------------------------- helpers
    def _scalar_condition(self, cond, node):
        if cond.shape:
            raise self.error(node, f"a condition must be a scalar, but this one has shape {list(cond.shape)}; "
                                   f"reduce it (tl.max, tl.sum …) or use tl.where")
        if cond.dtype != core.int1:
            cond = semantic.cast(cond, core.int1)
        return cond

    def _dry_run(self, fn):
        """Run `fn` with its IR thrown away; returns (fn's result, scope after)."""
        saved_scope = self.scope
        saved_ret = (self.func.ret_struct, self.func.has_return_value)
        self.scope = saved_scope.copy()
        try:
            with self.builder.discarding():
                res = fn()
                return res, self.scope
        finally:
            self.scope = saved_scope
            self.func.ret_struct, self.func.has_return_value = saved_ret

    def _in_block(self, block, scope, fn):
        """Run `fn` emitting into `block` with `scope`; returns (scope after, block where it ended)."""
        b = self.builder
        saved_block, saved_scope = b.block, self.scope
        b.block, self.scope = block, scope
        try:
            fn()
        except _Unreachable:
            pass
        finally:
            out_scope, end_block = self.scope, b.block
            b.block, self.scope = saved_block, saved_scope
        return out_scope, end_block

    def _to_type(self, v, ty, name, node, where):
        if _is_tensor(v):
            if v.type != ty:
                raise self.error(node, f"'{name}' has type {v.type} {where} but {ty} elsewhere; a variable must "
                                       f"keep one type across control flow")
            return v
        if _is_python_number(v):
            t = semantic.to_tensor(v)
            if t.type != ty:
                t = semantic.cast(t, ty.scalar) if not ty.is_block() else semantic.full(ty.shape, _unwrap(v),
                                                                                           ty.scalar)
            return t
        raise self.error(node, f"'{name}' is {_describe(v)} {where}, which cannot be merged with a tensor")

    def _merge_types(self, name, values, node):
        """The type a variable takes after control flow merges `values` (a tensor type, or None)."""
        types = {v.type for v in values if _is_tensor(v)}
        if len(types) > 1:
            raise self.error(node, f"'{name}' has different types on different paths ("
                                   + ", ".join(sorted(str(t) for t in types)) + "); a variable must keep one type "
                                   "across control flow")
        if types:
            return types.pop()
        return None

    # ---------------------------------------------------------------- if
    def visit_If(self, node):
        cond = self.visit(node.test)
        if not _is_tensor(cond):
            self.run_body(node.body if _unwrap(cond) else node.orelse)
            if self.builder.block.terminated:
                raise _Unreachable()
            return None
        cond = self._scalar_condition(cond, node.test)
        if _contains_return(node):
            return self._cf_if(cond, node)
        return self._scf_if(cond, node)

    def _plan_merge(self, before, scopes, node):
        """How variables merge where paths join: (names to merge, their types, names whose value is the
        same on every path, names that exist only on some paths and so are undefined afterwards)."""
        keep, types, direct, dropped = [], [], {}, []
        cands = set()
        for sc in scopes:
            cands |= set(sc.values)
        for n in sorted(cands):
            if not all(n in sc.values for sc in scopes):
                if n not in before.values:
                    dropped.append(n)
                    continue
            vals = [sc.values.get(n, before.values.get(n)) for sc in scopes]
            if all(v is vals[0] for v in vals):
                if n not in before.values or vals[0] is not before.values[n]:
                    direct[n] = vals[0]
                continue
            if not any(_is_tensor(v) for v in vals):
                uv = [_unwrap(v) for v in vals]
                if all(type(x) is type(uv[0]) and x == uv[0] for x in uv):
                    direct[n] = vals[0]
                    continue
                if not all(_is_python_number(v) for v in vals):
                    dropped.append(n)   # differing compile-time objects: undefined afterwards
                    continue
            ty = self._merge_types(n, vals, node)
            if ty is None:
                ty = core.float32 if any(isinstance(_unwrap(v), float) for v in vals) else \
                    semantic._literal_type(_unwrap(vals[0]))
            keep.append(n)
            types.append(ty)
        return keep, types, direct, dropped

    def _scf_if(self, cond, node):
        before = self.scope
        then_blk, else_blk = self.builder.create_block(), self.builder.create_block()
        then_scope, _ = self._in_block(then_blk, before.copy(), lambda: self.run_body(node.body))
        else_scope, _ = self._in_block(else_blk, before.copy(), lambda: self.run_body(node.orelse))
        keep, result_types, direct, dropped = self._plan_merge(before, [then_scope, else_scope], node)
        if_op = self.builder.create_if(cond.handle, result_types, then_blk, else_blk)
        for blk, sc in ((then_blk, then_scope), (else_blk, else_scope)):
            def emit_yield(sc=sc):  # noqa: B023
                vals = [self._to_type(sc.values.get(n, before.values.get(n)), t, n, node,
                                      "in one branch of this if") for n, t in zip(keep, result_types)]
                self._yield(vals)
            self._in_block(blk, before.copy(), emit_yield)
        results = [tensor(v, t) for v, t in zip(if_op.results, result_types)]
        new_scope = before.copy()
        new_scope.values.update(direct)
        for n in dropped:
            new_scope.values.pop(n, None)
            new_scope.undefined[n] = node.lineno
        for n, r in zip(keep, results):
            new_scope.values[n] = r
        self.scope = new_scope

    def _scf_if_values(self, cond, then_fn, else_fn, node):
        """`a if c else b` with a run-time c: an scf.if yielding one value."""
        b = self.builder
        then_blk, else_blk = b.create_block(), b.create_block()
        out = {}

        def run(which, fn):
            def body():
                out[which] = fn()
            return body
        self._in_block(then_blk, self.scope.copy(), run("t", then_fn))
        self._in_block(else_blk, self.scope.copy(), run("e", else_fn))
        tv, ev = out["t"], out["e"]
        if not _is_tensor(tv) and not _is_tensor(ev):
            if _unwrap(tv) is None and _unwrap(ev) is None:
                return None
        ty = self._merge_types("<conditional expression>", [tv, ev], node)
        if ty is None:
            ty = semantic.to_tensor(tv).type if _is_python_number(tv) else None
        if ty is None:
            raise self.error(node, "a conditional expression with a run-time condition must produce values")
        if_op = b.create_if(cond.handle, [ty], then_blk, else_blk)
        for blk, v in ((then_blk, tv), (else_blk, ev)):
            def y(v=v):
                self._yield([self._to_type(v, ty, "<conditional expression>", node, "in one branch")])
            self._in_block(blk, self.scope.copy(), y)
        return tensor(if_op.results[0], ty)

    def _cf_if(self, cond, node):
        b = self.builder
        before = self.scope
        then_blk = b.create_block(func=self.func.fn)
        else_blk = b.create_block(func=self.func.fn)
        b.create_cond_br(cond.handle, then_blk, else_blk)
        then_scope, then_end = self._in_block(then_blk, before.copy(), lambda: self.run_body(node.body))
        else_scope, else_end = self._in_block(else_blk, before.copy(), lambda: self.run_body(node.orelse))
        live = [(end, sc) for end, sc in ((then_end, then_scope), (else_end, else_scope)) if not end.terminated]
        self._cf_merge(before, live, node)

    def _cf_merge(self, before, live, node):
        """Jump from the end of every live path to a new block that receives the merged variables."""
        b = self.builder
        if not live:
            b.set_unreachable()        # nothing follows: later statements are unreachable
            raise _Unreachable()
        keep, types, direct, dropped = self._plan_merge(before, [sc for _, sc in live], node)
        merge = b.create_block(types, func=self.func.fn)
        for end, sc in live:
            def jump(sc=sc):
                vals = [self._to_type(sc.values.get(n, before.values.get(n)), t, n, node, "on one path")
                        for n, t in zip(keep, types)]
                self._branch(merge, vals)
            self._in_block(end, sc, jump)
        b.block = merge
        new_scope = before.copy()
        new_scope.values.update(direct)
        for n in dropped:
            new_scope.values.pop(n, None)
            new_scope.undefined[n] = node.lineno
        for n, a in zip(keep, merge.args):
            new_scope.values[n] = tensor(a, a.ty)
        self.scope = new_scope

    def _yield(self, vals):
        """End the current region (of an scf.for, scf.if or scf.while body) yielding the tensors `vals`."""
        self.builder.create_yield([v.handle for v in vals])

    def _branch(self, target, vals):
        """End the current block with a branch to `target`, passing the tensors `vals`."""
        self.builder.create_br(target, [v.handle for v in vals])

    # ---------------------------------------------------------------- loops
    def _iter_spec(self, node):
        """(kind, start, end, step, attrs) for the iterable of a for loop."""
        it = node.iter
        if not isinstance(it, ast.Call):
            val = self.visit(it)
            v = _unwrap(val)
            if isinstance(v, (tuple, list)):
                return ("static_seq", list(v), None, None, {})
            if isinstance(v, static_range):
                return ("static", v.start, v.end, v.step, {})
            raise self.error(it, "a for loop must iterate over range(...), tl.range(...), tl.static_range(...) or "
                                 "a compile-time tuple")
        fn = _unwrap(self.visit(it.func))
        args = [self.visit(a) for a in it.args]
        kwargs = {k.arg: self.visit(k.value) for k in it.keywords}
        if fn is builtins.range or fn is tl_range:
            if fn is builtins.range and kwargs:
                raise self.error(it, "range() takes no keyword arguments")
            if not 1 <= len(args) <= 3:
                raise self.error(it, f"range expects 1 to 3 arguments, got {len(args)}")
            r = tl_range(*args, **kwargs) if fn is tl_range else tl_range(*args)
            attrs = {"num_stages": None if r.num_stages is None else int(r.num_stages),
                     "loop_unroll_factor": None if r.loop_unroll_factor is None else int(r.loop_unroll_factor),
                     "disallow_acc_multi_buffer": bool(r.disallow_acc_multi_buffer),
                     "flatten": bool(r.flatten), "warp_specialize": bool(r.warp_specialize)}
            return ("range", r.start, r.end, r.step, attrs)
        if fn is static_range:
            r = static_range(*args, **kwargs)
            return ("static", r.start, r.end, r.step, {})
        if fn in (builtins.zip, builtins.enumerate, builtins.reversed):
            val = fn(*[_unwrap(a) for a in args])
            return ("static_seq", list(val), None, None, {})
        raise self.error(it, "a for loop must iterate over range(...), tl.range(...) or tl.static_range(...)")

    def visit_For(self, node):
        if node.orelse:
            raise self.error(node, "for ... else is not supported in kernels")
        kind, start, end, step, attrs = self._iter_spec(node)
        if kind in ("static", "static_seq"):
            seq = builtins.range(start, end, step) if kind == "static" else start
            for v in seq:
                self.assign_target(node.target, constexpr(v) if not isinstance(v, (tuple, tensor)) else v)
                self.run_body(node.body)
                if self.builder.block.terminated:
                    raise _Unreachable()
            return None
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable of a range loop must be a single name")
        st = _unwrap(step)
        if not _is_tensor(step) and (not isinstance(st, int) or st == 0):
            raise self.error(node.iter, f"the step of a range loop must be a non-zero integer, got {st!r}")
        if not _is_tensor(step) and st < 0:
            raise self.error(node.iter, "range loops with a negative step are not supported; count upwards")
        lb, ub, stp = (semantic.to_tensor(x) for x in (start, end, step))
        for x, what in ((lb, "start"), (ub, "end"), (stp, "step")):
            if x.shape or not x.dtype.is_int():
                raise self.error(node.iter, f"the {what} of a range loop must be a scalar integer, got {x.type}")
        iv_ty = core.int32
        for x in (lb, ub, stp):
            iv_ty = semantic.integer_promote(iv_ty, x.dtype) if x.dtype != iv_ty else iv_ty
        if iv_ty.is_int_unsigned():
            iv_ty = core.int64 if iv_ty.primitive_bitwidth == 64 else core.int32
        lb, ub, stp = (semantic.cast(x, iv_ty) for x in (lb, ub, stp))
        if _contains_return(node):
            return self._cf_for(node, lb, ub, stp, iv_ty)
        return self._scf_for(node, lb, ub, stp, iv_ty, attrs)

    def _loop_body(self, node, carried):
        """Runs a loop body and yields its loop-carried values, converted to their loop types."""
        self.run_body(node.body)
        vals = [self._to_type(self.scope.values.get(n), t, n, node, "at the end of the loop body")
                for n, t in carried]
        self._yield(vals)

    def _carried(self, body_fn, node, extra_bound=()):
        """Variables a loop body changes: [(name, type)] found by a dry run of the body."""
        before = self.scope
        _, after = self._dry_run(body_fn)
        out = []
        for n in sorted(set(after.values) & set(before.values)):
            if n in extra_bound:
                continue
            old, new = before.values[n], after.values[n]
            if old is new:
                continue
            if _is_tensor(new):
                out.append((n, new.type))
            elif _is_python_number(new):
                if _is_python_number(old) and _unwrap(old) == _unwrap(new) and type(_unwrap(old)) is type(_unwrap(new)):
                    continue
                out.append((n, (old.type if _is_tensor(old) else semantic._literal_type(_unwrap(old)))))
            elif _unwrap(new) is _unwrap(old) or _unwrap(new) == _unwrap(old):
                continue
            else:
                raise self.error(node, f"'{n}' is assigned {_describe(new)} inside the loop; only tensors and "
                                       f"numbers can change in a loop")
        return out

    def _scf_for(self, node, lb, ub, stp, iv_ty, attrs):
        b = self.builder
        name = node.target.id

        def dry_body():
            self.scope.values[name] = tensor(b.placeholder(iv_ty), iv_ty)
            self.run_body(node.body)
        carried = self._carried(dry_body, node, extra_bound=(name,))
        inits = [self._to_type(self.scope.values[n], t, n, node, "before the loop") for n, t in carried]
        loop = b.create_for(lb.handle, ub.handle, stp.handle, [i.handle for i in inits], **attrs)
        body_scope = self.scope.copy()
        body_scope.values[name] = tensor(loop.induction_var, iv_ty)
        for (n, t), a in zip(carried, loop.iter_args):
            body_scope.values[n] = tensor(a, t)

        self._in_block(loop.body, body_scope, lambda: self._loop_body(node, carried))
        for (cn, t), v in zip(carried, loop.results):
            self.scope.values[cn] = tensor(v, t)

    def _cf_for(self, node, lb, ub, stp, iv_ty):
        b = self.builder
        name = node.target.id

        def dry_body():
            self.scope.values[name] = tensor(b.placeholder(iv_ty), iv_ty)
            self.run_body(node.body)
        carried = self._carried(dry_body, node, extra_bound=(name,))
        inits = [self._to_type(self.scope.values[n], t, n, node, "before the loop") for n, t in carried]
        fn = self.func.fn
        header = b.create_block([iv_ty] + [t for _, t in carried], func=fn)
        self._branch(header, [lb] + inits)
        body = b.create_block(func=fn)
        exit_blk = b.create_block([t for _, t in carried], func=fn)
        b.block = header
        iv = tensor(header.args[0], iv_ty)
        cond = semantic.compare("lt", iv, ub)
        carried_vals = [tensor(a, t) for a, (_, t) in zip(header.args[1:], carried)]
        b.create_cond_br(cond.handle, body, exit_blk, false_values=[v.handle for v in carried_vals])
        body_scope = self.scope.copy()
        body_scope.values[name] = iv
        for (n, _), v in zip(carried, carried_vals):
            body_scope.values[n] = v

        def run():
            self.run_body(node.body)
            if b.block.terminated:
                return
            nxt = semantic.add(iv, stp)
            vals = [self._to_type(self.scope.values.get(n), t, n, node, "at the end of the loop body")
                    for n, t in carried]
            self._branch(header, [nxt] + vals)
        self._in_block(body, body_scope, run)
        b.block = exit_blk
        for (n, t), a in zip(carried, exit_blk.args):
            self.scope.values[n] = tensor(a, t)

    def visit_While(self, node):
        if node.orelse:
            raise self.error(node, "while ... else is not supported in kernels")
        b = self.builder

        def dry():
            c = self.visit(node.test)
            if _is_tensor(c):
                self.run_body(node.body)
            elif _unwrap(c):
                self.run_body(node.body)
        carried = self._carried(dry, node)
        if _contains_return(node):
            return self._cf_while(node, carried)
        inits = [self._to_type(self.scope.values[n], t, n, node, "before the loop") for n, t in carried]
        loop = b.create_while([i.handle for i in inits])
        scope0 = self.scope.copy()
        for (n, t), a in zip(carried, loop.before.args):
            scope0.values[n] = tensor(a, t)

        def cond_fn():
            c = self.visit(node.test)
            if not _is_tensor(c):
                if _unwrap(c):
                    raise self.error(node.test, "a while loop with a condition that is always true needs a return "
                                                "inside it")
                c = semantic.to_tensor(False)
            c = self._scalar_condition(c, node.test)
            vals = [self._to_type(self.scope.values.get(n), t, n, node, "in the loop condition") for n, t in carried]
            b.create_condition(c.handle, [v.handle for v in vals])
        self._in_block(loop.before, scope0, cond_fn)
        scope1 = self.scope.copy()
        for (n, t), a in zip(carried, loop.after.args):
            scope1.values[n] = tensor(a, t)

        self._in_block(loop.after, scope1, lambda: self._loop_body(node, carried))
        for (cn, t), v in zip(carried, loop.results):
            self.scope.values[cn] = tensor(v, t)

    def _cf_while(self, node, carried):
        b = self.builder
        inits = [self._to_type(self.scope.values[n], t, n, node, "before the loop") for n, t in carried]
        fn = self.func.fn
        header = b.create_block([t for _, t in carried], func=fn)
        self._branch(header, inits)
        body = b.create_block(func=fn)
        exit_blk = b.create_block([t for _, t in carried], func=fn)
        b.block = header
        for (n, t), a in zip(carried, header.args):
            self.scope.values[n] = tensor(a, t)
        c = self.visit(node.test)
        vals = [tensor(a, t) for a, (_, t) in zip(header.args, carried)]
        if not _is_tensor(c):
            if not _unwrap(c):
                self._branch(exit_blk, vals)
            else:
                self._branch(body, [])
        else:
            c = self._scalar_condition(c, node.test)
            b.create_cond_br(c.handle, body, exit_blk, false_values=[v.handle for v in vals])
        body_scope = self.scope.copy()

        def run():
            self.run_body(node.body)
            if b.block.terminated:
                return
            vs = [self._to_type(self.scope.values.get(n), t, n, node, "at the end of the loop body")
                  for n, t in carried]
            self._branch(header, vs)
        self._in_block(body, body_scope, run)
        b.block = exit_blk
        for (n, t), a in zip(carried, exit_blk.args):
            self.scope.values[n] = tensor(a, t)


def _describe(v):
    v = _unwrap(v)
    if isinstance(v, tensor):
        return f"a tensor of type {v.type}"
    if v is None:
        return "None"
    return f"a {type(v).__name__}"


def _types_str(types):
    if not types:
        return "nothing"
    return "(" + ", ".join(str(t) for t in types) + ")"


class ModuleGenerator:
    """Generates a module: the kernel and every function it calls (one tt.func per specialization)."""

    def __init__(self):
        self.builder = IRBuilder()
        self.builder.codegen = self
        self.specializations = {}   # key -> FuncRecord
        self.used_globals = {}
        self.names = set()
        self._gen_stack = []        # CodeGenerators of the functions being generated (innermost last)
        self._call_stack = []       # JITFunctions being generated, to reject recursion

    def unique_name(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
        name, i = base, 0
        while name in self.names:
            i += 1
            name = f"{base}_{i}"
        self.names.add(name)
        return name

    def call_jit(self, jit_fn, args, kwargs):
        """Entry for JITFunction.__call__ inside kernel code (e.g. combine functions)."""
        gen = self._gen_stack[-1]
        return gen.call_jit(jit_fn, args, kwargs)

    def gen_kernel(self, jit_fn, arg_types, constexprs, arg_attrs, name=None):
        """arg_types: name -> dtype for run-time parameters; constexprs: name -> value."""
        fname = self.unique_name(name or jit_fn.__name__)
        params, leaves = {}, []
        for pname in jit_fn.arg_names:
            if pname in constexprs:
                params[pname] = constexpr(constexprs[pname])
                continue
            params[pname] = self._kernel_param(leaves, pname, arg_types[pname], arg_attrs.get(pname, {}))
        fn = self.builder.create_func(fname, [t for _, t, _ in leaves], [a for _, _, a in leaves],
                                      visibility="public", noinline=False, arg_names=[n for n, _, _ in leaves],
                                      arg_hints=True, loc=self._def_loc(jit_fn))
        func = FuncRecord(fn)

        def resolve(v):
            if isinstance(v, _ArgSlot):
                return tensor(fn.args[v.index], leaves[v.index][1])
            if isinstance(v, _DescSlots):
                return core.tensor_descriptor._from_leaves(v.ty, [resolve(x) for x in v.slots])
            if isinstance(v, tuple):
                return tuple(resolve(x) for x in v)
            return v
        scope = Scope({pname: resolve(v) for pname, v in params.items()})
        self._generate(jit_fn, func, scope)
        if func.has_return_value:
            fdef = jit_fn.parse()
            raise CompilationError(f"kernel '{jit_fn.__name__}' returns a value; kernels cannot return values",
                                   jit_fn.filename, fdef.lineno, fdef.col_offset,
                                   linecache.getline(jit_fn.filename, fdef.lineno) or None)
        return func

    def _kernel_param(self, leaves, name, ty, attrs):
        """Where a kernel parameter's value comes from: a slot for one function argument (appended
        to `leaves` as (name, type, attrs)), a tuple of them for a tuple type, or None."""
        if ty is None:
            return constexpr(None)
        if isinstance(ty, core.tensor_descriptor_type):
            # base pointer, run-time sizes, run-time strides: one function argument each
            types = ty.leaf_types()
            attrs = attrs if isinstance(attrs, tuple) and len(attrs) == len(types) else ({},) * len(types)
            names = [f"{name}_base"] + \
                [f"{name}_shape{i}" for i, c in enumerate(ty.shape) if isinstance(c, core.dtype)] + \
                [f"{name}_stride{i}" for i, c in enumerate(ty.strides) if isinstance(c, core.dtype)] + \
                ([f"{name}_tensor_map"] if ty.tma else [])
            slots = []
            for n, t, a in zip(names, types, attrs):
                leaves.append((n, t, dict(a)))
                slots.append(_ArgSlot(len(leaves) - 1))
            return _DescSlots(ty, slots)
        if isinstance(ty, tuple):
            attrs = attrs if isinstance(attrs, tuple) else ({},) * len(ty)
            return tuple(self._kernel_param(leaves, f"{name}_{i}", t, a) for i, (t, a) in enumerate(zip(ty, attrs)))
        leaves.append((name, ty, dict(attrs)))
        return _ArgSlot(len(leaves) - 1)

    def _def_loc(self, jit_fn):
        fdef = jit_fn.parse()
        return self.builder.file_loc(jit_fn.filename, fdef.lineno, fdef.col_offset + 1)

    def _generate(self, jit_fn, func, scope):
        b = self.builder
        fdef = jit_fn.parse()
        gen = CodeGenerator(self, jit_fn, func, scope)
        saved = b.block, b.loc, b.func
        b.block, b.func = func.fn.entry, func.fn
        b.loc = self._def_loc(jit_fn)
        self._gen_stack.append(gen)
        try:
            gen.run_body(fdef.body)
            if not b.block.terminated:
                if func.has_return_value:
                    raise gen.error(fdef.body[-1] if fdef.body else fdef,
                                    f"'{jit_fn.__name__}' returns a value on some paths but reaches its end on "
                                    f"others without a return")
                if func.ret_types is None:
                    b.declare_results(func.fn, [])
                    func.ret_struct = None
                b.create_return([])
            b.finish_func(func.fn)
        finally:
            self._gen_stack.pop()
            b.block, b.loc, b.func = saved

    def call_function(self, caller, jit_fn, bound, node):
        b = self.builder
        key_parts = []
        leaves_in = []
        params = {}
        for pname, val in bound.items():
            # On a called function tl.constexpr is a hint, as in Triton: a value only known at
            # run time is passed like any other (the attention tutorial relies on it).
            if pname in jit_fn.constexpr_names and not _is_runtime(val):
                v = _unwrap(val)
                params[pname] = ("const", v)
                key_parts.append((pname, "c", _hashable(v)))
                continue
            uv = _unwrap(val)
            if _is_desc(uv) or isinstance(uv, (tuple, list)) and any(_is_tensor(x) for x in _flatten(uv)):
                # tuples and tensor descriptors: their run-time values are passed; their compile-time
                # elements (and a descriptor's constants, in its type) specialize the callee, as in Triton
                leaves = _flatten(uv, consts=True)
                struct = _structure(uv, consts=True)
                params[pname] = ("tuple", struct, len(leaves))
                leaves_in.extend(leaves)
                key_parts.append((pname, "t", struct, tuple(str(x.type) for x in leaves)))
            elif _is_tensor(val):
                params[pname] = ("tensor",)
                leaves_in.append(val)
                key_parts.append((pname, "v", str(val.type)))
            else:
                # non-tensor values specialize the callee, as in triton
                params[pname] = ("const", uv)
                key_parts.append((pname, "c", _hashable(uv)))
        key = (jit_fn, tuple(key_parts))
        if any(f is jit_fn for f in self._call_stack):
            # also with the key of the specialization being generated, whose results are not known yet
            chain = [f.__name__ for f in self._call_stack[next(i for i, f in enumerate(self._call_stack)
                                                                 if f is jit_fn):]] + [jit_fn.__name__]
            raise caller.error(node, f"recursive call of {jit_fn.__name__} ({' -> '.join(chain)}): recursion is "
                                     f"not supported in kernels")
        func = self.specializations.get(key)
        if func is None:
            fname = self.unique_name(jit_fn.__name__)
            fn = b.create_func(fname, [t.type for t in leaves_in], visibility="private", noinline=jit_fn.noinline,
                               loc=self._def_loc(jit_fn))
            func = FuncRecord(fn)
            self.specializations[key] = func
            scope = Scope()
            it = iter(tensor(a, t.type) for a, t in zip(fn.args, leaves_in))
            for pname, spec in params.items():
                if spec[0] == "const":
                    scope.values[pname] = constexpr(spec[1])
                elif spec[0] == "tensor":
                    scope.values[pname] = next(it)
                else:
                    scope.values[pname] = _rebuild(spec[1], [next(it) for _ in builtins.range(spec[2])])
            self._call_stack.append(jit_fn)
            saved_block = b.block
            try:
                self._generate(jit_fn, func, scope)
            except CompilationError as e:
                line = getattr(node, "lineno", None)
                note = f"  called from {caller.filename}:{line}" if line else "  called from a kernel"
                raise CompilationError(e.message, e.filename, e.lineno, e.col_offset, e.src_line,
                                       e.notes + [note]) from None
            finally:
                self._call_stack.pop()
                b.block = saved_block
        vals = b.create_call(func.fn, [t.handle for t in leaves_in])
        ret_types = func.ret_types
        if not ret_types:
            return None
        outs = [tensor(v, t) for v, t in zip(vals, ret_types)]
        if func.ret_struct is None:
            return outs[0] if len(outs) == 1 else tuple(outs)
        return _rebuild(func.ret_struct, outs)

    def render(self):
        return self.builder.render_module()


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)
