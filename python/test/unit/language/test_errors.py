"""Every class of user error in kernel code raises CompilationError at the offending source line."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

from .helpers import line_of, ttir_for

X = np.zeros(64, dtype=np.float32)
NOT_CONSTEXPR_GLOBAL = 42
CONST_GLOBAL = tl.constexpr(16)


@tessera.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, undefined_thing)  # ERR


@tessera.jit
def unsupported_with(x_ptr):
    with open("f"):  # ERR
        pass


@tessera.jit
def unsupported_break(x_ptr, n):
    for i in range(n):
        break  # ERR


@tessera.jit
def unsupported_lambda(x_ptr):
    f = lambda v: v  # ERR  # noqa: E731
    tl.store(x_ptr, f(1.0))


@tessera.jit
def branch_type_mismatch(x_ptr, n):
    if n > 0:
        v = tl.zeros((16,), tl.float32)
    else:
        v = tl.zeros((16,), tl.int32)
    tl.store(x_ptr + tl.arange(0, 16), v)  # ERR (the merge is reported at the if)


@tessera.jit
def broadcast_mismatch(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, a + b)  # ERR


@tessera.jit
def arange_needs_constexpr(x_ptr, n):
    r = tl.arange(0, n)  # ERR
    tl.store(x_ptr + r, 1.0)


@tessera.jit
def helper(a, b):
    return a + b


@tessera.jit
def wrong_arg_count(x_ptr):
    v = helper(1.0)  # ERR
    tl.store(x_ptr, v)


@tessera.jit
def wrong_builtin_args(x_ptr):
    tl.store(x_ptr)  # ERR


@tessera.jit
def reads_plain_global(x_ptr):
    tl.store(x_ptr, NOT_CONSTEXPR_GLOBAL)  # ERR


@tessera.jit
def loop_type_change(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + 1.5  # ERR (reported at the loop)
    tl.store(x_ptr, acc)


@tessera.jit
def kernel_returns_value(x_ptr):
    return 1  # ERR


@tessera.jit
def block_condition(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16))
    if v > 0:  # ERR
        tl.store(x_ptr, 1.0)


@tessera.jit
def static_assert_fails(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")  # ERR
    tl.store(x_ptr, 1.0)


@tessera.jit
def unknown_attribute(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, v.no_such_thing)  # ERR


@tessera.jit
def tensor_item_assignment(x_ptr):
    v = tl.zeros((16,), tl.float32)
    v[0] = 1.0  # ERR
    tl.store(x_ptr + tl.arange(0, 16), v)


@tessera.jit
def arange_not_power_of_two(x_ptr):
    tl.store(x_ptr + tl.arange(0, 10), 1.0)  # ERR


@tessera.jit
def dot_bad_shapes(x_ptr):
    a = tl.zeros((16, 32), tl.float16)
    b = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, b)  # ERR
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 1))


@tessera.jit
def mixed_signedness_division(x_ptr, a, b):
    tl.store(x_ptr, a.to(tl.uint32) // b)  # ERR


@tessera.jit
def inner_error(v):
    return v + undefined_inner  # ERR


@tessera.jit
def calls_inner(x_ptr):
    tl.store(x_ptr, inner_error(1.0))


CASES = [
    (undefined_name, (X,), "undefined name 'undefined_thing'", None),
    (unsupported_with, (X,), "'with' is not supported", None),
    (unsupported_break, (X, 4), "break is not supported", None),
    (unsupported_lambda, (X,), "lambda is not supported", None),
    (branch_type_mismatch, (X, 4), "'v' has different types", "if n > 0"),
    (broadcast_mismatch, (X,), "incompatible shapes for broadcasting", None),
    (arange_needs_constexpr, (X, 8), "arange's end must be a compile-time constant", None),
    (wrong_arg_count, (X,), "missing a required argument: 'b'", None),
    (wrong_builtin_args, (X,), "missing 1 required positional argument: 'value'", None),
    (reads_plain_global, (X,), "cannot use global variable 'NOT_CONSTEXPR_GLOBAL'", None),
    (loop_type_change, (X, 4), "'acc' has type", "for i in range(n)"),
    (kernel_returns_value, (X,), "kernels cannot return values", "def kernel_returns_value"),
    (block_condition, (X,), "a condition must be a scalar, but this one has shape [16]", None),
    (static_assert_fails, (X, 48), "static_assert failed: BLOCK must be a multiple of 32", None),
    (unknown_attribute, (X,), "has no attribute 'no_such_thing'", None),
    (tensor_item_assignment, (X,), "item assignment is not supported", None),
    (arange_not_power_of_two, (X,), "arange's range must be a power of 2, got 10", None),
    (dot_bad_shapes, (X,), "dot: incompatible shapes [16, 32] and [16, 16]", None),
    (mixed_signedness_division, (X, 7, 2), "different signedness", None),
]


@pytest.mark.parametrize("kernel,args,message,marker", CASES, ids=[c[0].__name__ for c in CASES])
def test_compilation_error(kernel, args, message, marker):
    with pytest.raises(tessera.CompilationError) as info:
        ttir_for(kernel, *args, **({"BLOCK": args[-1]} if False else {}))
    e = info.value
    assert message in e.message, e.message
    assert e.filename == kernel.filename
    assert e.lineno == line_of(kernel, marker or "# ERR"), str(e)
    text = str(e)
    assert text.startswith(f"{kernel.filename}:{e.lineno}:{e.col_offset + 1}: ")
    assert "^" in text.splitlines()[-1] or any(line.strip() == "^" for line in text.splitlines())
    assert "Traceback" not in text


def test_error_in_called_function_points_into_it_and_names_the_call():
    with pytest.raises(tessera.CompilationError) as info:
        ttir_for(calls_inner, X)
    e = info.value
    assert e.lineno == line_of(inner_error, "# ERR")
    assert "undefined name 'undefined_inner'" in e.message
    assert any("called from" in n for n in e.notes)


def test_constexpr_global_is_allowed():
    @tessera.jit
    def uses_const_global(x_ptr):
        tl.store(x_ptr + tl.arange(0, CONST_GLOBAL), 1.0)
    # defined inside a test function: its source is still in this file
    text = ttir_for(uses_const_global, X)
    assert "tensor<16x!tt.ptr<f32>>" in text


def test_wrong_signature_in_compile_is_a_type_error():
    with pytest.raises(TypeError, match="has no parameter"):
        tessera.compile(undefined_name, signature={"nope": "i32"})
    with pytest.raises(TypeError, match="needs a type in signature"):
        tessera.compile(undefined_name, signature={})
    with pytest.raises(ValueError, match="unknown backend"):
        tessera.compile(undefined_name, signature={"x_ptr": "*fp32"}, target="tpu:1")


MUTABLE_BLOCK = tl.constexpr(16)


@tessera.jit
def uses_mutable_global(x_ptr):
    tl.store(x_ptr + tl.arange(0, MUTABLE_BLOCK), 1.0)


def test_changed_global_is_detected():
    global MUTABLE_BLOCK
    sig = {"x_ptr": "*fp32"}
    k1 = tessera.compile(uses_mutable_global, signature=sig)
    assert "tensor<16x!tt.ptr<f32>>" in k1.asm["ttir"]
    assert tessera.compile(uses_mutable_global, signature=sig) is k1  # cached
    old = MUTABLE_BLOCK
    MUTABLE_BLOCK = tl.constexpr(32)
    try:
        with pytest.raises(RuntimeError, match="global variable 'MUTABLE_BLOCK' .* changed from 16 to 32"):
            tessera.compile(uses_mutable_global, signature=sig)
    finally:
        MUTABLE_BLOCK = old
