"""`tl.extra.<vendor>.libdevice`: the module path Triton kernels import libdevice from."""

from ... import math as libdevice  # noqa: F401
