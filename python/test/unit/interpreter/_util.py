"""Shared helpers of the interpreter tests."""

import linecache
import os

import numpy as np

import tessera.language as tl
from tessera import jit  # noqa: F401


def line_of(fn, marker):
    """Line number of the line containing `marker` in @jit function `fn`'s file."""
    code = fn.fn.__code__
    path = code.co_filename
    for i in range(code.co_firstlineno, code.co_firstlineno + 200):
        if marker in linecache.getline(path, i):
            return i
    raise AssertionError(f"marker {marker!r} not found")


def basename_of(fn):
    return os.path.basename(fn.fn.__code__.co_filename)


# Elementwise ops shared by several test files. A kernel takes them as a tl.constexpr argument
# (OP) and calls them: the compiler accepts @jit functions and tessera.language builtins there,
# not Python lambdas.


@jit
def op_add(a, b):
    return a + b


@jit
def op_maximum(a, b):
    return tl.maximum(a, b)


@jit
def unary_kernel(X, Z, N: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    tl.store(Z + offs, OP(x))


@jit
def binary_kernel(X, Y, Z, N: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, OP(x, y))


def run_unary(op, x, out_dtype):
    x = np.ascontiguousarray(x)
    z = np.zeros(x.shape, dtype=out_dtype)
    unary_kernel[(1,)](x, z, N=x.size, OP=op)
    return z


def run_binary(op, x, y, out_dtype):
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    z = np.zeros(x.shape, dtype=out_dtype)
    binary_kernel[(1,)](x, y, z, N=x.size, OP=op)
    return z
