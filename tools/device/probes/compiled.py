"""The kernels a jit function has compiled so far, for either implementation: Tessera's
`fn.cache` (one per specialization) or Triton's `fn.device_caches` (per device, then per key).
Shared by mb_one.py and ptx_swap.py."""


def compiled_kernels(fn, impl):
    cache = getattr(fn, "cache", None) or getattr(fn, "device_caches", None)
    if not cache:
        return []
    if impl == "triton":
        return [k for dev in cache.values() for k in dev[0].values()]
    return list(cache.values())
