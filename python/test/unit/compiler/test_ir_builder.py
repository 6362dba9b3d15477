"""The IR builder used directly (no code generator): functions, calls, scf.for/if/while and cf
branches rendered to a module that the native core parses, and the type checks at its boundary
(IRBuilderError, an internal error naming the op and the expected and actual types)."""

import pytest

from tessera import _core
from tessera.compiler import compiler
from tessera.compiler.ir_builder import IRBuilder, IRBuilderError
from tessera.language import core

import tessera
import tessera.language as tl

i1, i32, i64, f32 = core.int1, core.int32, core.int64, core.float32


def _builder():
    b = IRBuilder()
    b.loc = b.file_loc("test_ir_builder.py", 1, 1)
    return b


def _start(b, func):
    b.func, b.block = func, func.entry


def _twice(b):
    """@twice(x: i32) -> i32, finished."""
    f = b.create_func("twice", [i32], result_types=[i32], noinline=True)
    _start(b, f)
    b.create_return([b.binary("muli", f.args[0], b.constant(2, i32), i32)])
    b.finish_func(f)
    return f


def build_module():
    b = _builder()
    twice = _twice(b)
    k = b.create_func("kernel", [core.pointer_type(i32), i32], arg_attrs=[{"tt.divisibility": "16 : i32"}, {}],
                      arg_names=["out", "n"], visibility="public", result_types=[])
    _start(b, k)
    out, n = k.args
    zero, one = b.constant(0, i32), b.constant(1, i32)

    # s = sum(twice(i) for i in range(0, n)), with tt.num_stages on the loop
    loop = b.create_for(zero, n, one, [zero], num_stages=2)
    b.block = loop.body
    t, = b.create_call(twice, [loop.induction_var])
    b.create_yield([b.binary("addi", loop.iter_args[0], t, i32)])
    b.block = k.entry
    s, = loop.results

    # r = s if s > n else n
    if_op = b.create_if(b.cmp("sgt", s, n, i1), [i32])
    b.block = if_op.then_block
    b.create_yield([s])
    b.block = if_op.else_block
    b.create_yield([n])
    b.block = k.entry
    r, = if_op.results

    # while r > 0: r -= 1
    w = b.create_while([r])
    b.block = w.before
    b.create_condition(b.cmp("sgt", w.before.args[0], zero, i1), [w.before.args[0]])
    b.block = w.after
    b.create_yield([b.binary("subi", w.after.args[0], one, i32)])
    b.block = k.entry
    left, = w.results

    # if left == 0: store s else store left (through blocks and branches)
    bb_zero = b.create_block(func=k)
    bb_other = b.create_block([i32], func=k)
    b.create_cond_br(b.cmp("eq", left, zero, i1), bb_zero, bb_other, false_values=[left])
    b.block = bb_zero
    b.store(out, s, None, None, None)
    b.create_return()
    b.block = bb_other
    b.store(out, bb_other.args[0], None, None, None)
    b.create_br(bb_zero)
    b.finish_func(k)
    return b.render_module()


def test_module_parses():
    text = build_module()
    for op in ("tt.func private @twice(", "tt.func public @kernel(%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}",
               "tt.call @twice(", "scf.for", "iter_args(", "tt.num_stages = 2 : i32", "scf.if", "scf.yield",
               "scf.while", "scf.condition(", "cf.cond_br", "cf.br ^bb1", "tt.return",
               'loc("test_ir_builder.py":1:1)'):
        assert op in text, (op, text)
    res = _core.parse_mlir(text, "builder.ttir")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics) + "\n" + text
    assert "scf.while" in res.module and "tt.call @twice" in res.module


def test_functions_render_in_finishing_order():
    b = _builder()
    twice = _twice(b)
    k = b.create_func("k", [], visibility="public")
    _start(b, k)
    b.declare_results(k, [])
    b.create_call(twice, [b.constant(3, i32)])
    b.create_return()
    b.finish_func(k)
    text = b.render_module()
    assert text.index("@twice(") < text.index("@k(")
    assert _core.parse_mlir(text).ok


# ----------------------------------------------------------------------------- type checks

def _kernel(b, arg_types=(), result_types=()):
    k = b.create_func("k", list(arg_types), result_types=list(result_types))
    _start(b, k)
    return k


def test_yield_of_wrong_type_in_for():
    b = _builder()
    _kernel(b)
    zero = b.constant(0, i32)
    loop = b.create_for(zero, zero, b.constant(1, i32), [zero])
    b.block = loop.body
    with pytest.raises(IRBuilderError, match=r"scf\.yield: the yielded values have types \(f32\) but the enclosing "
                                             r"scf\.for expects \(i32\)"):
        b.create_yield([b.constant(1.0, f32)])
    assert not loop.body.terminated


def test_yield_of_wrong_count_in_if():
    b = _builder()
    _kernel(b)
    if_op = b.create_if(b.constant(True, i1), [i32, i32])
    b.block = if_op.then_block
    with pytest.raises(IRBuilderError, match=r"scf\.yield: the yielded values have types \(i32\) but the enclosing "
                                             r"scf\.if expects \(i32, i32\)"):
        b.create_yield([b.constant(1, i32)])


def test_yield_in_while_body_must_match_init_types():
    b = _builder()
    _kernel(b)
    w = b.create_while([b.constant(0, i32)], result_types=[i64])
    assert [a.ir_type for a in w.before.args] == ["i32"] and [a.ir_type for a in w.after.args] == ["i64"]
    b.block = w.before
    with pytest.raises(IRBuilderError, match=r"scf\.condition: the forwarded values have types \(i32\) but the "
                                             r"scf\.while results are \(i64\)"):
        b.create_condition(b.constant(True, i1), [w.before.args[0]])
    with pytest.raises(IRBuilderError, match=r"scf\.yield: this region of scf\.while must end with scf\.condition"):
        b.create_yield([w.before.args[0]])
    b.block = w.after
    with pytest.raises(IRBuilderError, match=r"scf\.yield: the yielded values have types \(i64\) but the enclosing "
                                             r"scf\.while expects \(i32\)"):
        b.create_yield([w.after.args[0]])


def test_yield_outside_a_region():
    b = _builder()
    _kernel(b)
    with pytest.raises(IRBuilderError, match=r"scf\.yield: the insertion block is not a region"):
        b.create_yield()


def test_return_of_wrong_type():
    b = _builder()
    _kernel(b, [f32], [i32])
    with pytest.raises(IRBuilderError, match=r"tt\.return: the returned values have types \(f32\) but @k returns "
                                             r"\(i32\)"):
        b.create_return([b.func.args[0]])
    with pytest.raises(IRBuilderError, match=r"tt\.return: the returned values have types \(\) but @k returns "
                                             r"\(i32\)"):
        b.create_return()


def test_return_needs_declared_results_and_a_function_block():
    b = _builder()
    k = b.create_func("k", [])
    _start(b, k)
    with pytest.raises(IRBuilderError, match=r"tt\.return: the result types of @k are not declared yet"):
        b.create_return()
    b.declare_results(k, [])
    with pytest.raises(IRBuilderError, match=r"tt\.func @k: result types \(\) were declared, now \(i32\)"):
        b.declare_results(k, [i32])
    if_op = b.create_if(b.constant(False, i1))
    b.block = if_op.then_block
    with pytest.raises(IRBuilderError, match=r"tt\.return: inside a region of scf\.if"):
        b.create_return()


def test_call_argument_of_wrong_type():
    b = _builder()
    twice = _twice(b)
    _kernel(b)
    with pytest.raises(IRBuilderError, match=r"tt\.call @twice: the arguments have types \(f32\) but the callee's "
                                             r"parameters are \(i32\)"):
        b.create_call(twice, [b.constant(1.0, f32)])
    with pytest.raises(IRBuilderError, match=r"tt\.call @twice: the arguments have types \(\) but the callee's "
                                             r"parameters are \(i32\)"):
        b.create_call(twice, [])


def test_call_needs_the_callees_result_types():
    b = _builder()
    g = b.create_func("g", [])
    _kernel(b)
    with pytest.raises(IRBuilderError, match=r"tt\.call @g: the callee's result types are not declared yet"):
        b.create_call(g, [])


@pytest.mark.parametrize("op", ["scf.if", "cf.cond_br", "scf.condition"])
def test_condition_must_be_i1(op):
    b = _builder()
    k = _kernel(b)
    c = b.constant(1, i32)
    with pytest.raises(IRBuilderError, match=rf"{op}: the condition must be an i1 scalar, got i32"):
        if op == "scf.if":
            b.create_if(c)
        elif op == "cf.cond_br":
            b.create_cond_br(c, b.create_block(func=k), b.create_block(func=k))
        else:
            w = b.create_while([])
            b.block = w.before
            b.create_condition(c)


def test_block_tensor_condition_is_rejected():
    b = _builder()
    _kernel(b)
    mask = b.constant(True, core.block_type(i1, [4]))
    with pytest.raises(IRBuilderError, match=r"scf\.if: the condition must be an i1 scalar, got tensor<4xi1>"):
        b.create_if(mask)


def test_loop_bounds():
    b = _builder()
    _kernel(b)
    a32, a64, x = b.constant(0, i32), b.constant(4, i64), b.constant(1.0, f32)
    with pytest.raises(IRBuilderError, match=r"scf\.for: the bounds and step must have one type, got lower bound "
                                             r"i32, upper bound i64, step i32"):
        b.create_for(a32, a64, a32)
    with pytest.raises(IRBuilderError, match=r"scf\.for: the upper bound must be a scalar integer, got f32"):
        b.create_for(a32, x, a32)
    with pytest.raises(IRBuilderError, match=r"scf\.for: the step must be a scalar integer, got tensor<4xi32>"):
        b.create_for(a32, a32, b.constant(1, core.block_type(i32, [4])))


def test_branch_operands():
    b = _builder()
    k = _kernel(b)
    dest = b.create_block([i32], func=k)
    with pytest.raises(IRBuilderError, match=r"cf\.br: the operands for \^bb1 have types \(f32\) but the block's "
                                             r"arguments are \(i32\)"):
        b.create_br(dest, [b.constant(1.0, f32)])
    with pytest.raises(IRBuilderError, match=r"cf\.cond_br: the operands for \^bb1 have types \(\) but the block's "
                                             r"arguments are \(i32\)"):
        b.create_cond_br(b.constant(True, i1), dest, dest, false_values=[b.constant(1, i32)])
    with pytest.raises(IRBuilderError, match=r"cf\.br: a branch can only go to a labelled block of a function"):
        b.create_br(b.create_block())


def test_terminators_end_blocks():
    b = _builder()
    k = _kernel(b)
    b.create_return()
    with pytest.raises(IRBuilderError, match=r"arith\.constant: the insertion block already ends with a terminator"):
        b.constant(1, i32)
    dangling = b.create_block(func=k)
    with pytest.raises(IRBuilderError, match=r"tt\.func @k: \^bb1 of the function body has no terminator"):
        b.finish_func(k)
    b.block = dangling
    loop = b.create_for(*[b.constant(0, i32)] * 3)
    b.create_return()
    with pytest.raises(IRBuilderError, match=r"tt\.func @k: a block of a region of scf\.for has no terminator"):
        b.finish_func(k)
    b.block = loop.body
    b.create_yield()
    b.finish_func(k)
    assert _core.parse_mlir(b.render_module()).ok


def test_values_must_be_ssa_values():
    b = _builder()
    _kernel(b, result_types=[i32])
    with pytest.raises(IRBuilderError, match=r"tt\.return: the returned values must be an SSA value"):
        b.create_return([core.tensor(b.constant(1, i32), i32)])


# ----------------------------------------------------------------------------- through the code generator

@tessera.jit
def _loop_kernel(out, n):
    acc = 0
    for i in range(n):
        acc += i
    tl.store(out, acc)


def test_builder_errors_are_not_reported_as_user_errors(monkeypatch):
    # An IRBuilderError is a front-end bug: it reaches the caller as such, not as a CompilationError
    # pointing at the user's line.
    def broken(self, *args, **kwargs):
        raise IRBuilderError("scf.for: broken on purpose")
    monkeypatch.setattr(IRBuilder, "create_for", broken)
    with pytest.raises(IRBuilderError, match="broken on purpose"):
        compiler.make_ttir(_loop_kernel, {"out": core.pointer_type(i32), "n": i32}, {}, {})


def test_hints_on_parameters_only_with_arg_hints():
    b = _builder()
    k = b.create_func("k", [i32, i32], arg_names=["a", "b"], arg_hints=True, result_types=[])
    g = b.create_func("g", [i32], result_types=[])
    b.hint(k.args[0], "tt.divisibility", [16], i32)
    b.hint(g.args[0], "tt.divisibility", [16], i32)
    assert k.arg_attrs == [{"tt.divisibility": "16 : i32"}, {}] and g.arg_attrs == [{}]


def test_argument_names_stay_unique():
    b = _builder()
    k = b.create_func("k", [i32, i32], arg_names=["a", "a"])
    assert k.args[0].name == "%a" and k.args[1].name not in ("%a",)
