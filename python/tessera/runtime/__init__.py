"""The runtime: @jit functions, launching, caches, autotuning.

Two layers (tessera.backends' docstring has the whole list): jit, specialize, cache and allocator
compile nothing and import only the language and the backend registry, so the compiler may use
them; launch (the compile-on-miss path) and autotuner sit above the compiler. `driver` is the
triton.runtime.driver-shaped view of the launch backend (tessera.runtime.driver.active...).
"""

from .driver import driver  # noqa: F401
