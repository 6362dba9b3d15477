"""`python -m tessera`: an environment report to paste into a bug report — versions, the backends
and what each found (assembler, driver, GPUs), the cache directory, interpreter mode."""
import os
import platform
import sys


def report():
    import tessera
    from tessera import _core, backends
    from tessera.runtime import cache
    lines = [f"tessera {tessera.__version__}"]
    native = _core._C
    if native is None:
        lines.append("native core: not built (only the interpreter works)")
    else:
        lines.append(f"native core: {native.__file__}")
        lines.append(f"LLVM/MLIR {native.llvm_version()}; C++ backends: {', '.join(native.registered_backends())}")
    lines.append(f"python {platform.python_version()} ({sys.executable}), {platform.platform()}")
    try:
        import torch
        lines.append(f"torch {torch.__version__}")
    except ImportError:
        lines.append("torch: not installed")
    for name in backends.names():
        b = backends.get(name)
        lines.append(f"backend {name}:")
        try:
            env = b.environment()
        except Exception as e:  # noqa: BLE001 - a report must not fail on one backend
            env = {"error": f"{type(e).__name__}: {e}"}
        for k, v in env.items():
            if isinstance(v, list):
                lines.append(f"  {k}:")
                lines += [f"    {x}" for x in v]
            else:
                lines.append(f"  {k}: {v}")
    launch = backends.launch_backend()
    lines.append(f"launch backend (kernel[grid](...)): {launch.name if launch else 'none'}")
    lines.append(f"interpreter mode (TESSERA_INTERPRET): {'on' if os.environ.get('TESSERA_INTERPRET') == '1' else 'off'}")
    lines.append(f"cache: {cache.cache_dir() if cache.cache_dir() else 'disabled (TESSERA_CACHE_DISABLE)'}")
    url = os.environ.get("TESSERA_CACHE_REDIS") or "none"
    if "@" in url:  # not the password
        scheme, _, rest = url.partition("://")
        url = f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    lines.append(f"shared cache (TESSERA_CACHE_REDIS): {url}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
