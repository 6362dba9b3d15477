"""tessera.profiler: kernel times and intra-kernel scopes, as a Chrome/Perfetto trace and a summary.

    import tessera.profiler
    import tessera.profiler.language as pl

    @tessera.jit
    def kernel(...):
        with pl.scope("load"):             # in the kernel: a scope, timed per warp
            ...
        pl.enter_scope("dot"); ...; pl.exit_scope("dot")

    tessera.profiler.start("my_profile", mode="scopes")    # or mode="kernels": kernel times only
    with tessera.profiler.scope("step"):                   # a host scope
        kernel[grid](...)
    prof = tessera.profiler.stop()     # writes my_profile.json (Trace Event JSON) and returns a Profile
    prof.print()                       # host scopes > kernels > intra-kernel scopes

    with tessera.profiler.profile("name", mode="scopes") as prof:
        ...

In mode "scopes" kernels are compiled with instrumentation (instrumenting() is True; compiled
kernels are dropped from the in-process caches when it changes, so the next launch compiles
again): each program records its scopes, per warp, into a buffer the profiler allocates for the
launch (tessera.profiler.decode describes it). In both modes every launch is timed with the
device's events on its stream. In the interpreter (TESSERA_INTERPRET=1) scopes record the host's
wall time per program. docs/profiler.md is the guide; `python -m tessera.profiler show|validate
trace.json` reads saved traces.
"""

from ._session import (  # noqa: F401
    MODES, SCOPES_ENV, install_runtime, instrumenting, is_active, profile, record_launch, scope, start,
    stop,
)
from .data import HostScope, KernelLaunch, Profile  # noqa: F401
from .trace import validate_trace  # noqa: F401

__all__ = ["MODES", "SCOPES_ENV", "HostScope", "KernelLaunch", "Profile", "install_runtime", "instrumenting",
           "is_active", "profile", "record_launch", "scope", "start", "stop", "validate_trace"]
