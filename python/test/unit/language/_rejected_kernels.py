"""Kernels that use a construct the compiler rejects, one per kernel, each with `# ERR` on the line
the error must name (test_same_language.py). The interpreter runs kernels as Python, which would
accept all of them."""

import tessera
import tessera.language as tl

NOT_CONSTEXPR = 3


def plain_python(x):
    return x + 1


@tessera.jit
def k_break(out, n, PATH: tl.constexpr):
    for i in range(n):
        break  # ERR


@tessera.jit
def k_continue(out, n, PATH: tl.constexpr):
    for i in range(n):
        continue  # ERR


@tessera.jit
def k_try(out, n, PATH: tl.constexpr):
    try:  # ERR
        tl.store(out, n)
    except Exception:
        pass


@tessera.jit
def k_lambda(out, n, PATH: tl.constexpr):
    f = lambda v: v + 1  # ERR  # noqa: E731
    tl.store(out, f(n))


@tessera.jit
def k_list_comprehension(out, n, PATH: tl.constexpr):
    xs = [i for i in range(4)]  # ERR
    tl.store(out, n + len(xs))


@tessera.jit
def k_set_comprehension(out, n, PATH: tl.constexpr):
    xs = {i for i in range(4)}  # ERR
    tl.store(out, n + len(xs))


@tessera.jit
def k_dict(out, n, PATH: tl.constexpr):
    d = {"a": n}  # ERR
    tl.store(out, d["a"])


@tessera.jit
def k_nested_def(out, n, PATH: tl.constexpr):
    def inner(v):  # ERR
        return v
    tl.store(out, inner(n))


@tessera.jit
def k_del(out, n, PATH: tl.constexpr):
    m = n + 1
    del m  # ERR
    tl.store(out, n)


@tessera.jit
def k_walrus(out, n, PATH: tl.constexpr):
    tl.store(out, (m := n + 1) + m)  # ERR


@tessera.jit
def k_yield(out, n, PATH: tl.constexpr):
    tl.store(out, n)
    yield n  # ERR


@tessera.jit
def k_with_open(out, n, PATH: tl.constexpr):
    with open(PATH, "w") as f:  # ERR
        f.write("the host ran this")
    tl.store(out, n)


@tessera.jit
def k_global(out, n, PATH: tl.constexpr):
    tl.store(out, n + NOT_CONSTEXPR)  # ERR


@tessera.jit
def k_return_value(out, n, PATH: tl.constexpr):  # ERR
    tl.store(out, n)
    return n


@tessera.jit
def k_plain_python_call(out, n, PATH: tl.constexpr):
    tl.store(out, plain_python(n))  # ERR


@tessera.jit
def k_one_branch(out, n, PATH: tl.constexpr):
    if n > 0:
        m = n + 1
    tl.store(out, m)  # ERR


@tessera.jit
def k_two_shapes(out, n, PATH: tl.constexpr):
    if n > 0:  # ERR
        x = tl.zeros([4], tl.int32)
    else:
        x = tl.zeros([8], tl.int32)
    tl.store(out + tl.arange(0, 4), x)


@tessera.jit
def ping(n):
    return pong(n) + 1


@tessera.jit
def pong(n):
    return ping(n) + 1  # ERR


@tessera.jit
def k_mutual_recursion(out, n, PATH: tl.constexpr):
    tl.store(out, ping(n))


# (kernel, what the error says)
CASES = [
    (k_break, "break is not supported"),
    (k_continue, "continue is not supported"),
    (k_try, "try/except is not supported"),
    (k_lambda, "lambda is not supported"),
    (k_list_comprehension, "comprehensions are not supported"),
    (k_set_comprehension, "comprehensions are not supported"),
    (k_dict, "dicts are not supported"),
    (k_nested_def, "nested function definitions are not supported"),
    (k_del, "del is not supported"),
    (k_walrus, "walrus operator"),
    (k_yield, "yield is not supported"),
    (k_with_open, "'with' is not supported"),
    (k_global, "global variable 'NOT_CONSTEXPR'"),
    (k_return_value, "kernels cannot return values"),
    (k_plain_python_call, "'plain_python' is not a @tessera.jit function"),
    (k_one_branch, "'m' is defined on only some paths"),
    (k_two_shapes, "different types on different paths"),
    (k_mutual_recursion, r"recursive call of ping \(ping -> pong -> ping\)"),
]
