"""The runtime: @jit functions, launching, caches."""
