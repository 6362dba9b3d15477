"""Scopes inside kernels: `import tessera.profiler.language as pl`.

    with pl.scope("load"):                       # a scope around a block
        ...
    pl.enter_scope("dot"); ...; pl.exit_scope("dot")

A scope name is a non-empty str known when the kernel is compiled. When the kernel is compiled
with instrumentation (a session of mode "scopes", see tessera.profiler) each warp records the
start and the end of every scope it runs, with the SM clock; otherwise the calls compile to
nothing. In the interpreter they record the host's wall time per program. Scopes nest: exit_scope
ends the innermost open scope, which must have that name, and a scope started on a path through
a function is ended on it (the compiler checks this). docs/profiler.md is the guide.
"""

from tessera.language import core, semantic
from tessera.language.builtins import builtin


def _scope_name(name):
    name = core._unwrap(name)
    if not isinstance(name, str):
        raise TypeError(f"a profiler scope's name must be a str, got {type(name).__name__}")
    if not name:
        raise ValueError("a profiler scope's name must not be empty")
    return name


class scope:
    """`with pl.scope(name):` -- enter_scope(name) at the start of the block, exit_scope(name)
    at its end."""

    def __init__(self, name):
        self.name = _scope_name(name)

    def __enter__(self):
        enter_scope(self.name)
        return self

    def __exit__(self, *exc):
        exit_scope(self.name)
        return False

    def __repr__(self):
        return f"pl.scope({self.name!r})"


@builtin
def enter_scope(name):
    """Start scope `name` in the calling warp (program, in the interpreter)."""
    return semantic.prof_record(_scope_name(name), False)


@builtin
def exit_scope(name):
    """End scope `name`: closes the latest enter_scope(name) of the warp."""
    return semantic.prof_record(_scope_name(name), True)


__all__ = ["scope", "enter_scope", "exit_scope"]
