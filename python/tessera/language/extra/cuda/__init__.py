"""`tl.extra.cuda.libdevice`, as Triton kernels import it."""

from ... import math as libdevice  # noqa: F401
