"""Math functions of the kernel language (tl.exp, tl.math.tanh, …), libdevice-style."""

from . import semantic
from .builtins import builtin, cdiv, div_rn, fdiv, fma, umulhi  # noqa: F401


def _unary(op, doc):
    def fn(x):
        return semantic.math_unary(op, x)
    fn.__name__ = op
    fn.__doc__ = doc
    return builtin(fn)


exp = _unary("exp", "e ** x")
exp2 = _unary("exp2", "2 ** x")
log = _unary("log", "natural logarithm")
log2 = _unary("log2", "base-2 logarithm")
sqrt = _unary("sqrt", "square root (approximate where the hardware is)")
sqrt_rn = _unary("precise_sqrt", "correctly rounded square root")
sqrt_rn.__name__ = "sqrt_rn"
rsqrt = _unary("rsqrt", "1 / sqrt(x)")
sin = _unary("sin", "sine")
cos = _unary("cos", "cosine")
floor = _unary("floor", "round down")
ceil = _unary("ceil", "round up")
erf = _unary("erf", "error function")


@builtin
def abs(x):
    return semantic.abs(x)


def _extern(name, nargs=1, np_name=None):
    def fn(*args):
        if len(args) != nargs:
            raise TypeError(f"{name} takes {nargs} argument{'s' if nargs > 1 else ''}, got {len(args)}")
        return semantic.extern_elementwise(f"__nv_{name}f", f"__nv_{name}", np_name or name, args)
    fn.__name__ = name
    fn.__doc__ = f"libdevice {name} (fp32/fp64; half types compute in fp32)"
    return builtin(fn)


# libdevice-style functions: computed by the device math library on the GPU,
# by numpy in the interpreter.
tanh = _extern("tanh")
sinh = _extern("sinh")
cosh = _extern("cosh")
tan = _extern("tan")
asin = _extern("asin", np_name="arcsin")
acos = _extern("acos", np_name="arccos")
atan = _extern("atan", np_name="arctan")
asinh = _extern("asinh", np_name="arcsinh")
acosh = _extern("acosh", np_name="arccosh")
atanh = _extern("atanh", np_name="arctanh")
atan2 = _extern("atan2", 2, np_name="arctan2")
pow = _extern("pow", 2, np_name="power")
log1p = _extern("log1p")
expm1 = _extern("expm1")
log10 = _extern("log10")
exp10 = _extern("exp10")
cbrt = _extern("cbrt")
erfc = _extern("erfc")
trunc = _extern("trunc")
round = _extern("round")
rint = _extern("rint")
hypot = _extern("hypot", 2)
fmod = _extern("fmod", 2)
copysign = _extern("copysign", 2)
nextafter = _extern("nextafter", 2)
lgamma = _extern("lgamma")
tgamma = _extern("tgamma")
isnan = None  # replaced below


@builtin
def isnan(x):  # noqa: F811
    x = semantic.to_tensor(x)
    return x != x


@builtin
def isinf(x):
    x = semantic.to_tensor(x)
    return semantic.abs(x) == float("inf")


@builtin
def isfinite(x):
    x = semantic.to_tensor(x)
    return semantic.abs(x) < float("inf")


@builtin
def sigmoid(x):
    return semantic.truediv(1.0, semantic.add(1.0, exp(semantic.minus(semantic.to_tensor(x)))))
