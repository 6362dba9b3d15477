"""Sanitizer: one instrumentation client (hooks.py) for the interpreter's checks of a kernel's
memory use, each finding a structured record with a readable message():

  - races across programs (RaceDetector, tessera.interpreter.races): RaceFinding;
  - reads of memory the kernel never wrote, for arguments named as uninitialized (opt-in: a buffer
    from torch.empty holds garbage, the interpreter cannot tell): UninitializedReadFinding, per
    source line, with the first offending element offset and the count;
  - misaligned accesses (an address not a multiple of the element size, which faults on a GPU and
    which the interpreter carries out byte by byte): MisalignedFinding, per source line;
  - out-of-bounds accesses: the interpreter raises OutOfBoundsError (the program cannot go on),
    and the sanitizer keeps it as an OutOfBoundsFinding (line, program, argument, element offset,
    the argument's bounds) before it propagates.

    from tessera.interpreter import observe
    from tessera.interpreter.sanitizer import Sanitizer

    with observe(Sanitizer(uninitialized=["tmp"])) as san:
        kernel[grid](x, tmp, y)
    print(san.report())

The kernel's results are untouched: the sanitizer only reads the records.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .hooks import Client
from .races import RaceDetector, where


@dataclass
class UninitializedReadFinding:
    kernel: str
    arg_name: str
    offset: int
    count: int
    pid: Tuple[int, int, int]
    filename: Optional[str]
    lineno: Optional[int]

    def message(self):
        return (f"uninitialized read in {self.kernel}: program {self.pid} loaded element {self.offset} of "
                f"'{self.arg_name}' at {where(self.filename, self.lineno)}, which nothing in the launch wrote before "
                f"({self.count} element{'s' if self.count != 1 else ''} from that line in all)")


@dataclass
class MisalignedFinding:
    kernel: str
    what: str          # "load", "store" or "atomic"
    arg_name: str
    lanes: int         # active lanes whose address is not a multiple of the element size
    elem_bytes: int
    pid: Tuple[int, int, int]
    filename: Optional[str]
    lineno: Optional[int]

    def message(self):
        return (f"misaligned {self.what} in {self.kernel}: program {self.pid} accessed '{self.arg_name}' at "
                f"{where(self.filename, self.lineno)} with {self.lanes} address{'es' if self.lanes != 1 else ''} not a multiple of the "
                f"{self.elem_bytes}-byte element size (a GPU faults on such accesses)")


@dataclass
class OutOfBoundsFinding:
    kernel: str
    kind: str
    arg_name: Optional[str]
    offset: Optional[int]
    bounds: Optional[str]
    pid: Tuple[int, int, int]
    filename: Optional[str]
    lineno: Optional[int]
    text: str

    def message(self):
        return self.text


class Sanitizer(Client):
    """The interpreter's memory checks in one client (see the module docstring). `uninitialized`:
    names of kernel arguments whose initial contents are garbage. `findings` holds every finding
    (races, then uninitialized reads, misaligned and out-of-bounds accesses in the order found)."""

    def __init__(self, uninitialized=(), max_findings=100):
        if isinstance(uninitialized, str):
            uninitialized = [uninitialized]
        self.uninitialized = set(uninitialized)
        self.max_findings = max_findings
        self.races = RaceDetector(max_findings)
        self._other = []
        self._written = {}
        self._seen = {}
        self._kernel = None

    @property
    def findings(self):
        return self.races.findings + self._other

    def report(self):
        if not self.findings:
            return f"no findings ({self.races.kernels_checked} launch(es) checked)"
        return "\n".join(f.message() for f in self.findings)

    # -------------------------------------------------------------- client callbacks
    def on_kernel_start(self, rec):
        self.races.on_kernel_start(rec)
        self._kernel = rec.kernel
        self._written = {}
        self._seen = {}

    def on_kernel_end(self, rec):
        self.races.on_kernel_end(rec)

    def on_store(self, rec):
        self._aligned(rec, "store")
        self.races.on_store(rec)
        self._mark(rec)

    def on_atomic(self, rec):
        self._aligned(rec, "atomic")
        self._check(rec)  # an atomic reads the old value
        self.races.on_atomic(rec)
        self._mark(rec)

    def on_load(self, rec):
        self._aligned(rec, "load")
        self._check(rec)
        self.races.on_load(rec)

    def _aligned(self, rec, what):
        if not rec.misaligned or rec.arg_name is None:
            return
        key = ("misaligned", rec.arg_name, rec.filename, rec.lineno)
        f = self._seen.get(key)
        if f is not None:
            f.lanes += rec.misaligned
            return
        if len(self.findings) >= self.max_findings:
            return
        f = MisalignedFinding(self._kernel or rec.kernel, what, rec.arg_name, rec.misaligned, rec.elem_bytes,
                              tuple(rec.pid), rec.filename, rec.lineno)
        self._seen[key] = f
        self._other.append(f)

    def on_error(self, error):
        if len(self.findings) >= self.max_findings:
            return
        self._other.append(OutOfBoundsFinding(
            self._kernel or "<kernel>", getattr(error, "kind", None) or "access", getattr(error, "arg_name", None),
            getattr(error, "element_offset", None), getattr(error, "bounds", None),
            tuple(getattr(error, "pid", None) or ()), getattr(error, "filename", None),
            getattr(error, "lineno", None), str(error)))

    # -------------------------------------------------------------- uninitialized reads
    def _offsets(self, rec):
        if rec.arg_name not in self.uninitialized:
            return None
        offs = np.asarray(rec.offsets).reshape(-1)[np.asarray(rec.mask, dtype=bool).reshape(-1)]
        offs = offs.astype(np.int64)
        return offs[offs >= 0]

    def _shadow(self, name, n):
        w = self._written.get(name)
        if w is None or w.size < n:
            new = np.zeros(max(n, 1024, 2 * (w.size if w is not None else 0)), dtype=bool)
            if w is not None:
                new[:w.size] = w
            w = self._written[name] = new
        return w

    def _mark(self, rec):
        offs = self._offsets(rec)
        if offs is None or offs.size == 0:
            return
        self._shadow(rec.arg_name, int(offs.max()) + 1)[offs] = True

    def _check(self, rec):
        offs = self._offsets(rec)
        if offs is None or offs.size == 0:
            return
        w = self._shadow(rec.arg_name, int(offs.max()) + 1)
        bad = offs[~w[offs]]
        if bad.size == 0:
            return
        key = (rec.arg_name, rec.filename, rec.lineno)
        f = self._seen.get(key)
        if f is not None:
            f.count += int(np.unique(bad).size)
            return
        if len(self.findings) >= self.max_findings:
            return
        f = UninitializedReadFinding(self._kernel or rec.kernel, rec.arg_name, int(bad.min()),
                                     int(np.unique(bad).size), tuple(rec.pid), rec.filename, rec.lineno)
        self._seen[key] = f
        self._other.append(f)
