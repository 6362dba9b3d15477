"""Plain assignments in interpreted kernels behave as in compiled ones (and in Triton): a Python
number assigned to a variable becomes a scalar tensor (`v = 1; v.dtype`, `acc = 0;
acc = acc.to(tl.int64)`). The interpreter runs kernels as Python, so each @jit function is run
from a copy whose assignments pass their value through `semantic.assigned`, as the compiler does.

The copy also reports its control flow to attached clients (hooks.BranchRecord): each `if` and
`while` test goes through `_branch`, and each iteration of a `for` loop through `_loop`.

A `while` loop goes through `_while_enter`, `_while` and `_while_exit`, so that a batch of programs
(batch.py) can run a loop whose condition differs between its programs: programs leave the loop
one by one (their memory accesses masked off from then on) and, after it, get back the values
their variables had when they left. Serially `_while` is `_branch`. Loops whose body returns,
breaks, continues or assigns anything but plain names keep `_branch`."""

import ast
import copy
import sys

from ..language import core, semantic
from . import hooks

_HELPER = "__tessera_assigned__"
_BRANCH = "__tessera_branch__"
_LOOP = "__tessera_loop__"
_LOOP_ENTER = "__tessera_loop_enter__"
_PRINT = "print"  # Python's print in kernel code: a host side effect per program
_WHILE_ENTER = "__tessera_while_enter__"
_WHILE = "__tessera_while__"
_WHILE_EXIT = "__tessera_while_exit__"
_NO_VALUES = {}

_iterations = {}  # loop id -> iterations since the loop was entered


def _where(lineno, filename):
    b = getattr(core._state, "builder", None)
    return (getattr(b, "kernel_name", "?"), tuple(getattr(b, "pid", (0, 0, 0))), filename, lineno)


def _branch(cond, kind, lineno, filename):
    """The truth of an `if`/`while` test, reported to the clients."""
    taken = bool(cond)
    if hooks.active():
        hooks.emit(hooks.BranchRecord(*_where(lineno, filename), kind, taken))
    return taken


def _print(*args, **kwargs):
    """Python's print called by kernel code (each program prints)."""
    effect = getattr(getattr(core._state, "builder", None), "host_side_effect", None)
    if effect is not None:
        effect("print")
    print(*args, **kwargs)


def _while_enter(names):
    """A `while` loop starts: the batched builder's loop state, or None."""
    b = getattr(core._state, "builder", None)
    if getattr(b, "batched", False):
        return b.while_enter(names)
    return None


def _while(state, cond, lineno, filename):
    """The truth of a `while` test (for a batch: whether any of its programs goes on)."""
    if state is None:
        return _branch(cond, "while", lineno, filename)
    return core._state.builder.while_check(state, cond, sys._getframe(1))


def _while_exit(state):
    """A `while` loop ended: the values of its variables to assign back (name -> value)."""
    if state is None:
        return _NO_VALUES
    return core._state.builder.while_exit(state)


def _loop_enter(loop_id):
    _iterations[loop_id] = 0


def _loop(loop_id, lineno, filename):
    """An iteration of a `for` loop starts."""
    i = _iterations.get(loop_id, 0)
    _iterations[loop_id] = i + 1
    if hooks.active():
        hooks.emit(hooks.BranchRecord(*_where(lineno, filename), "for", True, i))


def _predicable_names(node):
    """The names a `while` loop's body assigns, or None when the loop cannot be run with some
    programs masked off (a return, break or continue, an else branch, or an assignment to
    anything but a plain name)."""
    if node.orelse:
        return None
    names = []
    for sub in node.body:
        for x in ast.walk(sub):
            if isinstance(x, (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Global,
                              ast.Nonlocal, ast.Delete, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                              ast.ClassDef, ast.Try)):
                return None
            if isinstance(x, (ast.Attribute, ast.Subscript, ast.Starred)) and isinstance(x.ctx, ast.Store):
                return None
            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store) and x.id not in names:
                names.append(x.id)
    return [n for n in names if not n.startswith("__tessera_")]


class _WrapAssignments(ast.NodeTransformer):
    def __init__(self, filename):
        self.filename = filename
        self.loops = 0

    def _call(self, name, args):
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[])

    def visit_If(self, node):
        self.generic_visit(node)
        node.test = ast.copy_location(self._call(_BRANCH, [node.test, ast.Constant("if"), ast.Constant(node.lineno),
                                                           ast.Constant(self.filename)]), node.test)
        return node

    def visit_While(self, node):
        self.generic_visit(node)
        names = _predicable_names(node)
        if names is None:
            node.test = ast.copy_location(self._call(_BRANCH, [node.test, ast.Constant("while"),
                                                               ast.Constant(node.lineno),
                                                               ast.Constant(self.filename)]), node.test)
            return node
        self.whiles = getattr(self, "whiles", 0) + 1
        w, m = f"__tessera_w{self.whiles}__", f"__tessera_m{self.whiles}__"
        enter = ast.Assign(targets=[ast.Name(id=w, ctx=ast.Store())],
                           value=self._call(_WHILE_ENTER, [ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                                     ctx=ast.Load())]))
        node.test = ast.copy_location(self._call(_WHILE, [ast.Name(id=w, ctx=ast.Load()), node.test,
                                                          ast.Constant(node.lineno), ast.Constant(self.filename)]),
                                      node.test)
        leave = [ast.Assign(targets=[ast.Name(id=m, ctx=ast.Store())],
                            value=self._call(_WHILE_EXIT, [ast.Name(id=w, ctx=ast.Load())]))]
        for n in names:
            leave.append(ast.If(test=ast.Compare(left=ast.Constant(n), ops=[ast.In()],
                                                 comparators=[ast.Name(id=m, ctx=ast.Load())]),
                                body=[ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                                                 value=ast.Subscript(value=ast.Name(id=m, ctx=ast.Load()),
                                                                     slice=ast.Constant(n), ctx=ast.Load()))],
                                orelse=[]))
        out = [enter, node] + leave
        for x in out:
            ast.copy_location(x, node)
        return out

    def visit_For(self, node):
        self.generic_visit(node)
        self.loops += 1
        loop_id = f"{self.filename}:{node.lineno}:{self.loops}"
        tick = ast.copy_location(ast.Expr(self._call(_LOOP, [ast.Constant(loop_id), ast.Constant(node.lineno),
                                                              ast.Constant(self.filename)])), node)
        node.body.insert(0, tick)
        enter = ast.copy_location(ast.Expr(self._call(_LOOP_ENTER, [ast.Constant(loop_id)])), node)
        return [enter, node]

    def _wrap(self, value):
        return ast.copy_location(ast.Call(func=ast.Name(id=_HELPER, ctx=ast.Load()), args=[value],
                                          keywords=[]), value)

    def visit_Assign(self, node):
        node.value = self._wrap(node.value)
        return node

    def visit_AnnAssign(self, node):
        ann = ast.unparse(node.annotation)
        if node.value is not None and not ann.endswith("constexpr"):
            node.value = self._wrap(node.value)
        return node

    def visit_FunctionDef(self, node):  # the kernel itself only; nested defs are not kernels
        if getattr(self, "_seen", False):
            return node
        self._seen = True
        self.generic_visit(node)
        return node


def interpreted_function(jit_fn):
    """The function the interpreter runs for `jit_fn`, built once per source from its parsed text
    (`jit_fn.src`, which may have been replaced). A function that closes over variables runs as
    defined, since a rebuilt copy could not see them, unless its source was replaced."""
    fn = jit_fn.fn
    src = jit_fn._src
    cached = getattr(jit_fn, "_interpreted", None)
    if cached is not None and cached[0] is src:
        return cached[1]
    result = fn
    if not fn.__closure__ or getattr(jit_fn, "_src_replaced", False):
        try:
            fdef = jit_fn.parse()
        except (RuntimeError, TypeError, SyntaxError):
            fdef = None
        if fdef is not None:
            # A copy of the parsed (line-numbered) tree: errors keep the user's lines.
            fdef = _WrapAssignments(jit_fn.filename).visit(copy.deepcopy(fdef))
            fdef.decorator_list = []
            maker = ast.FunctionDef(name="__tessera_make__", args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=a) for a in (_HELPER, _BRANCH, _LOOP, _LOOP_ENTER, _PRINT,
                                                                _WHILE_ENTER, _WHILE, _WHILE_EXIT)],
                kwonlyargs=[], kw_defaults=[], defaults=[]),
                body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))], decorator_list=[],
                returns=None)
            if "type_params" in ast.FunctionDef._fields:  # Python 3.12+
                maker.type_params = []
            module = ast.Module(body=[maker], type_ignores=[])
            ast.fix_missing_locations(module)
            namespace = {}
            exec(compile(module, jit_fn.filename, "exec"), fn.__globals__, namespace)
            result = namespace["__tessera_make__"](semantic.assigned, _branch, _loop, _loop_enter, _print,
                                                   _while_enter, _while, _while_exit)
            result.__defaults__ = fn.__defaults__
            result.__kwdefaults__ = fn.__kwdefaults__
    jit_fn._interpreted = (jit_fn._src, result)
    return result
