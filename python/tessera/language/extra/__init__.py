"""`tl.extra.libdevice`: the libdevice-style math functions, under the name Triton kernels import."""

from .. import math as libdevice  # noqa: F401
