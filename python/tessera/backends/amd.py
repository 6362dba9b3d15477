"""The AMD backend, declared: "hip:gfx942" targets compile to TTIR (no later stages yet, no launching)."""

from . import base
from .specialization import Divisibility, EqualsOne, NonNegative, PointerRange, Specialization


class AmdBackend(base.Backend):
    """HIP targets ("hip:gfx942"). TTIR only: TTGIR and code generation for AMD GPUs are not
    written yet (docs/backends.md lists what a backend needs)."""

    name = "hip"
    specialization = Specialization("hip", [Divisibility((16,)), EqualsOne(), PointerRange(32), NonNegative()])

    def parse_arch(self, arch):
        if not arch.startswith("gfx"):
            raise ValueError(f"unsupported AMD architecture {arch!r} (expected e.g. gfx942)")
        return arch


__all__ = ["AmdBackend"]
