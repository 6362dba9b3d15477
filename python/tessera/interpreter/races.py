"""RaceDetector: an instrumentation client (hooks.py) that finds races across the programs of one
launch in the interpreter.

    from tessera.interpreter import observe
    from tessera.interpreter.races import RaceDetector

    with observe(RaceDetector()) as races:
        kernel[grid](...)
    for f in races.findings:
        print(f.message())

Programs of a launch run in no defined order on a GPU, and nothing orders one program's memory
accesses against another's except atomics. A finding is two programs touching the same element of
the same argument, at least one of them writing, not both through atomics:

  write-write  two programs store (or one stores, another updates atomically) the same element;
  read-write   one program loads an element another program stores or updates atomically
               (whichever ran first in the interpreter).

Each finding is a RaceFinding record (kind, argument, first element offset and the number of
elements, and for both sides the program id and source line) with a readable message(); one
finding per kind, argument and pair of source lines (with the first pair of programs seen),
counting its elements over all programs. The kernel's results
are untouched: the detector only reads the records the interpreter emits.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .hooks import Client


@dataclass
class Access:
    """One side of a race: the program, the source line and what it did."""
    pid: Tuple[int, int, int]
    filename: Optional[str]
    lineno: Optional[int]
    what: str  # "load", "store" or "atomic"

    def where(self):
        return where(self.filename, self.lineno)


def where(filename, lineno):
    """`file:line` of a finding (the sanitizer's too)."""
    return f"{filename}:{lineno}" if filename else "<unknown line>"


@dataclass
class RaceFinding:
    kernel: str
    kind: str          # "write-write" or "read-write"
    arg_name: str
    offset: int        # the first element offset (into the argument) found racing
    count: int         # elements of this argument the two accesses share
    first: Access      # the access seen first
    second: Access

    def message(self):
        return (f"race in {self.kernel} on '{self.arg_name}' ({self.kind}): program {self.first.pid} "
                f"{_past(self.first.what)} element {self.offset} at {self.first.where()} and program "
                f"{self.second.pid} {_past(self.second.what)} it at {self.second.where()} "
                f"({self.count} element{'s' if self.count != 1 else ''} in all)")


def _past(what):
    return {"load": "loaded", "store": "stored", "atomic": "updated (atomically)"}[what]


class _ArgState:
    """Per element of one argument: the program that last stored it, and up to two distinct
    programs that loaded it and two that updated it atomically (any third one differs from one of
    them, which is enough to name a race), each with the id of its access. NONE: nobody."""
    NONE = -1
    NAMES = ("writer", "reader", "reader2", "atomic", "atomic2")

    def __init__(self):
        self.size = 0
        self.arrays = {}

    def grow(self, n):
        if n <= self.size:
            return
        new = max(n, 2 * self.size, 1024)
        for base in self.NAMES:
            for name in (base, base + "_acc"):
                old = self.arrays.get(name)
                arr = np.full(new, self.NONE, dtype=np.int64)
                if old is not None:
                    arr[:self.size] = old
                self.arrays[name] = arr
        self.size = new

    def __getitem__(self, name):
        return self.arrays[name]


class RaceDetector(Client):
    """Finds races across programs (see the module docstring). `findings` accumulates over the
    launches observed (at most `max_findings`); `kernels_checked` counts them."""

    def __init__(self, max_findings=100):
        self.findings = []
        self.max_findings = max_findings
        self.kernels_checked = 0
        self._reset()

    def _reset(self):
        self._args = {}
        self._programs = {}
        self._accesses = []   # access id -> Access
        self._seen = {}       # (kind, arg, access ids) -> RaceFinding
        self._kernel = None

    # -------------------------------------------------------------- client callbacks
    def on_kernel_start(self, rec):
        self._reset()
        self._kernel = rec.kernel

    def on_kernel_end(self, rec):
        self.kernels_checked += 1
        self._reset()

    def on_load(self, rec):
        self._access(rec, "load")

    def on_store(self, rec):
        self._access(rec, "store")

    def on_atomic(self, rec):
        self._access(rec, "atomic")

    # -------------------------------------------------------------- the check
    def _access(self, rec, what):
        if rec.arg_name is None:
            return
        offsets = np.asarray(rec.offsets).reshape(-1)[np.asarray(rec.mask, dtype=bool).reshape(-1)]
        if offsets.size == 0:
            return
        offsets = offsets.astype(np.int64)
        if offsets.min() < 0:
            return  # out of bounds: the interpreter reports it
        state = self._args.get(rec.arg_name)
        if state is None:
            state = self._args[rec.arg_name] = _ArgState()
        state.grow(int(offsets.max()) + 1)
        pid = self._programs.setdefault(tuple(rec.pid), len(self._programs))
        acc = len(self._accesses)
        self._accesses.append(Access(tuple(rec.pid), rec.filename, rec.lineno, what))
        offsets = np.unique(offsets)

        def check(kind, name):
            owners = state[name][offsets]
            hit = (owners != _ArgState.NONE) & (owners != pid)
            self._report(kind, rec, offsets, hit, state[name + "_acc"], acc)

        if what in ("store", "atomic"):
            check("write-write", "writer")
            if what == "store":  # an atomic against an atomic is no race
                check("write-write", "atomic")
                check("write-write", "atomic2")
            check("read-write", "reader")
            check("read-write", "reader2")
        else:
            check("read-write", "writer")
            check("read-write", "atomic")
            check("read-write", "atomic2")
        # record this access
        if what == "store":
            state["writer"][offsets] = pid
            state["writer_acc"][offsets] = acc
            return
        first, second = ("reader", "reader2") if what == "load" else ("atomic", "atomic2")
        cur = state[first][offsets]
        empty = cur == _ArgState.NONE
        state[first][offsets[empty]] = pid
        state[first + "_acc"][offsets[empty]] = acc
        other = (~empty) & (cur != pid) & (state[second][offsets] == _ArgState.NONE)
        state[second][offsets[other]] = pid
        state[second + "_acc"][offsets[other]] = acc

    def _report(self, kind, rec, offsets, hit, acc_array, acc):
        if not hit.any():
            return
        earlier = acc_array[offsets[hit]]
        for a in np.unique(earlier):
            sel = offsets[hit][earlier == a]
            a1, a2 = self._accesses[int(a)], self._accesses[acc]
            key = (kind, rec.arg_name, a1.filename, a1.lineno, a1.what, a2.filename, a2.lineno, a2.what)
            f = self._seen.get(key)
            if f is not None:
                f.count += int(sel.size)
                continue
            if len(self.findings) >= self.max_findings:
                return
            f = RaceFinding(self._kernel or rec.kernel, kind, rec.arg_name, int(sel.min()), int(sel.size), a1, a2)
            self._seen[key] = f
            self.findings.append(f)

    def report(self):
        """All findings, one message per line ("no races found" when none)."""
        if not self.findings:
            return f"no races found ({self.kernels_checked} launch(es) checked)"
        return "\n".join(f.message() for f in self.findings)
