"""Batched execution: the programs of one launch run together, op by op, on arrays with a leading
program axis, with results identical to running them one after another.

How it works
  * The programs of a launch are taken in their serial order (x fastest, then y, then z) in
    batches of consecutive programs. A batch runs the kernel's Python function once with a
    BatchBuilder, whose handles carry a leading axis: length P (one row per program of the batch)
    for values that differ between programs, length 1 for values that do not (constants,
    tl.arange, arguments, program ids that are the same in the whole batch). Every op is the serial
    op on those arrays (numpy broadcasting over the leading axis; axes of shape ops and
    reductions are shifted by one); loads, stores and atomics flatten (program, lane) in row-major
    order, i.e. program order, lanes in order within a program.
  * Python control flow needs one value per batch: `if`, `while`, `range(...)` bounds and other
    conversions of a tensor to a Python value (tensor_to_bool / tensor_to_python) return it when
    all programs agree. When they differ, the batch is split: the programs are grouped by the
    value, the writes of the run so far are undone, and each group runs again from the start
    (always the group holding the lowest program id next). A batch that splits into too many
    groups runs serially instead.
  * A `while` loop whose test differs between programs (assign.py routes `while` tests here)
    does not split the batch: the loop goes on while any program does; programs leave it one by
    one (self.active: from then on their loads, stores and atomics are masked off and their
    assertions not checked) and after the loop get back the values their variables had when
    they left. Loops that return, or assign anything but plain names, split instead.
  * The batch keeps an undo log of every byte it overwrites, and a log of every access (addresses,
    masks, program ids). At its end the accesses are checked: programs of a batch run in
    lockstep, so the result equals the serial one when no program reads or writes what another
    program of the batch writes. Atomics of several programs on one address are allowed when
    they were applied in serial order (the programs hitting an address did so in increasing
    program order: one atomic op of the batch, or ops in program order); their old values are
    then those of the serial run too. Any other overlap -- a program reading what another wrote,
    two programs writing one address, a plain access to an address another program updates
    atomically -- undoes the batch and runs its programs serially. A cheap test first compares
    each program's span of addresses per tensor; only overlapping spans are checked element by
    element.
  * Any error inside a batch (an out-of-bounds access, a failed tl.device_assert, a type error)
    undoes the batch and runs it serially, which raises the error with the program that hit it,
    as without batching.
  * Not batched (serial from the start): launches observed by clients (tracers, the sanitizer,
    pictures: they see per-program events), launches under a profiling session, launches of one
    program, and, from the op that needs them onwards (the batch is undone and run serially;
    later launches of the kernel stay serial), kernels that print on the host per program:
    tl.device_print, tl.static_print and Python's print.
  * Block pointers hold a base, sizes, strides and offsets per program; global scratch memory
    (tl.extra.global_scratch) is one buffer with a slice per program, each program checked to
    stay inside its slice (anything else runs serially, where it is out of bounds).
  * TESSERA_INTERPRET_BATCH=0 runs every launch serially; a number N > 1 caps a batch at N
    programs (default 4096; a batch also holds at most about 2**20 elements per handle, sized
    from the previous batch).
"""

import os

import numpy as np

from ..language import core
from . import numerics
from .builder import BlockPtr, InterpreterBuilder, _cv, _wrap
from .memory import HALF, SHIFT
from .numerics import int_as, signed_view, unsigned_view

DEFAULT_CAP = 4096
_ELEMENT_BUDGET = 1 << 20  # elements of the largest per-program access, times programs per batch
_FIRST_BATCH = 64


class Unbatchable(BaseException):
    """The kernel did something that must happen program by program (a print, a block pointer,
    global scratch). A BaseException so that no `except Exception` on the way swallows it."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class _Divergent(BaseException):
    """Programs of the running group disagree on a Python-level value; keys: one per program."""

    def __init__(self, keys):
        super().__init__("divergent")
        self.keys = keys


class _Conflict(Exception):
    pass


class _TooDivergent(Exception):
    pass


def verifying():
    """TESSERA_INTERPRET_BATCH_VERIFY=1 (a test aid): each batched launch runs again serially
    from the same memory, and the bytes of every argument must be equal."""
    return os.environ.get("TESSERA_INTERPRET_BATCH_VERIFY", "") not in ("", "0")


def setting():
    """Programs per batch at most (0: serial), from TESSERA_INTERPRET_BATCH."""
    v = os.environ.get("TESSERA_INTERPRET_BATCH", "").strip().lower()
    if v in ("", "1", "on", "true", "yes"):
        return DEFAULT_CAP
    if v in ("0", "off", "false", "no"):
        return 0
    try:
        n = int(v)
    except ValueError:
        raise ValueError(f"TESSERA_INTERPRET_BATCH must be 0 (serial), 1 (batched) or a number of programs "
                         f"per batch, got {v!r}") from None
    return max(0, n) if n != 1 else DEFAULT_CAP


def launch_stats(batches=0, runs=0, batched=0, serial=0, fallback=None):
    return {"batches": batches, "runs": runs, "batched": batched, "serial": serial, "fallback": fallback}


def serial_reason(jit_fn, key, cap, total, observing, profiling, verify):
    """Why a launch runs serially from the start, or None (batched)."""
    if cap == 0:
        return "TESSERA_INTERPRET_BATCH=0"
    if observing:
        return "clients attached"
    if profiling:
        return "profiling"
    if total == 1 and not verify:
        return "one program"
    return jit_fn.__dict__.get("_interpreter_unbatchable", {}).get(key)


# ------------------------------------------------------------------ arguments


def _lead(v):
    """A wrapped argument with the leading (program) axis of length 1 on its handles."""
    if isinstance(v, core.tensor):
        h = v.handle
        if not isinstance(h, np.ndarray):
            raise Unbatchable(f"an argument handle of type {type(h).__name__}")
        return core.tensor(h[np.newaxis], v.type)
    if isinstance(v, tuple):
        return tuple(_lead(x) for x in v)
    if isinstance(v, core.tensor_descriptor):
        return core.tensor_descriptor._from_leaves(v.type, [_lead(x) for x in v._leaves()])
    return v


# ------------------------------------------------------------------ the session of one batch

_LOG_BUDGET = 1 << 23  # address elements a batch keeps in full before reads keep spans only


def _row_spans(a2, m2):
    """Per row (program) of addresses a2 (L, n) under mask m2: the smallest and largest active
    address and whether any lane is active."""
    if m2 is None:
        return a2.min(axis=1), a2.max(axis=1), np.ones(a2.shape[0], dtype=bool)
    lo = np.where(m2, a2, np.iinfo(np.int64).max).min(axis=1)
    hi = np.where(m2, a2, np.iinfo(np.int64).min).max(axis=1)
    return lo, hi, m2.any(axis=1)


_READ, _WRITE, _ATOMIC = 0, 1, 2


class _Session:
    """Undo log and access log of one batch."""

    def __init__(self, memory):
        self.memory = memory
        # memory.write appends (region, storage dtype, element indices (aligned) or byte offsets,
        # aligned, the raw values it overwrote)
        self.undo = []
        # (kind, addrs (L, n) int64, mask (L, n) bool or None, ids, itemsize, the one region all
        # the addresses lie in or None)
        self.acc = []
        self.max_elems = 1
        self.runs = 0
        self.logged = 0  # address elements kept
        self.written_regions = set()
        self.written_unknown = False
        self.coarse = []  # reads kept as spans only: (ids, itemsize, region, row lo, row hi, rows active)

    def mark(self):
        return len(self.undo), len(self.acc), len(self.coarse)

    def rollback(self, mark=(0, 0, 0)):
        u, a, c = mark
        del self.coarse[c:]
        for r, sd, rel, aligned, old in reversed(self.undo[u:]):
            if aligned:  # rel: element indices
                r.typed(sd)[rel] = old
            else:  # rel: byte offsets
                idx = rel[:, None] + np.arange(sd.itemsize, dtype=np.int64)
                r.buf[idx] = old.view(np.uint8).reshape(-1, sd.itemsize)
        del self.undo[u:]
        del self.acc[a:]

    def log(self, kind, addrs, mask, ids, isz, region=None):
        lead = addrs.shape[0] if addrs.ndim else 1
        a2 = addrs.reshape(lead, -1)
        m2 = None if mask is None else np.broadcast_to(mask, addrs.shape).reshape(lead, -1)
        if a2.shape[1] > self.max_elems:
            self.max_elems = a2.shape[1]
        if kind != _READ:
            if region is None:
                self.written_unknown = True
            else:
                self.written_regions.add(region)
        elif (region is not None and self.logged > _LOG_BUDGET and not self.written_unknown
              and region not in self.written_regions):
            # Past the budget, a read of memory nothing wrote yet keeps only each program's span:
            # enough when the memory stays unwritten or the spans stay apart (else: serially).
            lo, hi, act = _row_spans(a2, m2)
            if act.any():
                self.coarse.append((ids, isz, region, lo, hi + isz, act))
            return
        self.logged += a2.size
        self.acc.append((kind, a2, m2, ids, isz, region))

    # -------------------------------------------------------------- the check
    def check(self):
        """Raise _Conflict unless the batch's accesses give what a serial run gives. Addresses
        are compared as real addresses, so that arguments sharing memory (a tensor passed
        twice, overlapping views) are one memory."""
        if not any(e[0] != _READ for e in self.acc):
            return
        regions = self.memory.regions
        nreg = len(regions)
        shift = np.array([r.data_ptr - r.base for r in regions], dtype=np.int64)
        # classes of regions whose real bytes overlap
        order = sorted(range(nreg), key=lambda i: regions[i].data_ptr + regions[i].lo)
        cls_of = np.zeros(nreg, dtype=np.int64)
        cls_lo, cls_hi = [], []
        for i in order:
            lo, hi = regions[i].data_ptr + regions[i].lo, regions[i].data_ptr + regions[i].hi
            if cls_hi and lo < cls_hi[-1]:
                cls_hi[-1] = max(cls_hi[-1], hi)
            else:
                cls_lo.append(lo)
                cls_hi.append(hi)
            cls_of[i] = len(cls_lo) - 1
        big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        info = []  # (kind, real addrs (L, n), mask, ids, isz, class or None (several), row lo, row hi, active rows)
        written = set()

        def add(kind, a2, m2, ids, isz):
            lo, hi, act = _row_spans(a2, m2)
            if not act.any():
                return
            k0 = ((int(lo[act].min()) + HALF) >> SHIFT) - 1
            k1 = ((int(hi[act].max()) + HALF) >> SHIFT) - 1
            if k0 == k1 or cls_of[k0] == cls_of[k1] and self._one_class(a2, m2, cls_of, cls_of[k0]):
                if k0 == k1:
                    d = shift[k0]
                    real, lo, hi = a2 + d, lo + d, hi + d
                else:
                    real = a2 + shift[np.clip(((a2 + HALF) >> SHIFT) - 1, 0, nreg - 1)]
                    lo = np.where(m2, real, big).min(axis=1) if m2 is not None else real.min(axis=1)
                    hi = np.where(m2, real, small).max(axis=1) if m2 is not None else real.max(axis=1)
                c = int(cls_of[k0])
                info.append((kind, real, m2, ids, isz, c, lo, hi + isz, act))
                if kind != _READ:
                    written.add(c)
            else:
                real = a2 + shift[np.clip(((a2 + HALF) >> SHIFT) - 1, 0, nreg - 1)]
                info.append((kind, real, m2, ids, isz, None, None, None, act))
                if kind != _READ:
                    ks = ((a2 if m2 is None else a2[m2]) + HALF >> SHIFT) - 1
                    written.update(int(c) for c in np.unique(cls_of[np.clip(ks, 0, nreg - 1)]))

        for kind, a2, m2, ids, isz, k in self.acc:  # the writes first: which memories are written
            if kind != _READ:
                add(kind, a2, m2, ids, isz)
        for kind, a2, m2, ids, isz, k in self.acc:  # then the reads of those
            if kind == _READ and (k is None or int(cls_of[k]) in written):
                add(kind, a2, m2, ids, isz)
        for ids, isz, k, lo, hi, act in self.coarse:
            c = int(cls_of[k])
            if c in written:
                d = shift[k]
                info.append((_READ, None, None, ids, isz, c, lo + d, hi + d, act))
        for c in sorted(written):
            entries = [e for e in info if e[5] == c or e[5] is None]
            if all(e[5] is not None for e in entries) and self._spans_disjoint(entries):
                continue
            self._exact(c, cls_lo[c], cls_hi[c], entries, np.array(cls_lo, dtype=np.int64))

    @staticmethod
    def _one_class(a2, m2, cls_of, c):
        ks = ((a2 if m2 is None else a2[m2]) + HALF >> SHIFT) - 1
        return bool((cls_of[np.clip(ks, 0, len(cls_of) - 1)] == c).all())

    @staticmethod
    def _spans_disjoint(entries):
        """Whether the programs' address spans (min to max + size, over every access to the
        memory) are pairwise disjoint: then no program touches what another writes."""
        progs, los, his = [], [], []
        for kind, a2, m2, ids, isz, c, lo, hi, act in entries:
            if lo.shape[0] == 1 and len(ids) > 1:  # the same addresses for every program of the group
                progs.append(ids)
                los.append(np.broadcast_to(lo, ids.shape))
                his.append(np.broadcast_to(hi, ids.shape))
            else:
                progs.append(ids[act])
                los.append(lo[act])
                his.append(hi[act])
        progs = np.concatenate(progs)
        los = np.concatenate(los)
        his = np.concatenate(his)
        uniq, inv = np.unique(progs, return_inverse=True)
        if len(uniq) <= 1:
            return True
        plo = np.full(len(uniq), np.iinfo(np.int64).max, dtype=np.int64)
        phi = np.full(len(uniq), np.iinfo(np.int64).min, dtype=np.int64)
        np.minimum.at(plo, inv, los)
        np.maximum.at(phi, inv, his)
        order = np.argsort(plo, kind="stable")
        return bool((plo[order][1:] >= phi[order][:-1]).all())

    def _exact(self, c, start, end, entries, cls_starts):
        """Element-by-element check of the memory class `c` (real bytes [start, end))."""
        parts = []  # (kind, byte offsets from start, programs (-2: several), itemsize)
        for kind, real, m2, ids, isz, cc, lo, hi, act in entries:
            if real is None:
                raise _Conflict("spans of reads kept without their addresses overlap")
            L, n = real.shape
            if L == 1 and len(ids) > 1:
                prog = np.full((1, n), -2, dtype=np.int64)  # every program of the group: several
            else:
                prog = np.broadcast_to(ids[:, None], (L, n))
            if m2 is not None:
                addr, prog = real[m2], prog[m2]
            else:
                addr, prog = real.reshape(-1), prog.reshape(-1)
            if cc is None:  # an access spanning several memories: this one's part
                inside = (np.searchsorted(cls_starts, addr, side="right") - 1) == c
                addr, prog = addr[inside], prog[inside]
            parts.append((kind, addr - start, prog, isz))
        base = start - start % 16
        parts = [(kind, off + (start - base), prog, isz) for kind, off, prog, isz in parts]
        start = base
        sizes = {p[3] for p in parts}
        unit = sizes.pop() if len(sizes) == 1 else 1
        if unit > 1 and any((off & (unit - 1)).any() for _, off, _, _ in parts):
            unit = 1
        # positions in units (bytes when sizes differ or an access is misaligned)
        pos_parts = []
        for kind, off, prog, isz in parts:
            if unit == 1 and isz > 1:
                pos = (off[:, None] + np.arange(isz, dtype=np.int64)).reshape(-1)
                prog = np.repeat(prog, isz)
            else:
                pos = off // unit
            pos_parts.append((kind, pos, prog))
        total = sum(len(p) for _, p, _ in pos_parts)
        if total == 0:
            return
        extent = (end - start + unit - 1) // unit
        if extent <= 4 * total + 4096:
            size = extent
            dense = [(kind, pos, prog) for kind, pos, prog in pos_parts]
        else:
            allpos = np.concatenate([p for _, p, _ in pos_parts])
            uniq, inv = np.unique(allpos, return_inverse=True)
            size = len(uniq)
            dense, i = [], 0
            for kind, pos, prog in pos_parts:
                dense.append((kind, inv[i:i + len(pos)], prog))
                i += len(pos)

        def owners(kind):
            own = np.full(size, -1, dtype=np.int64)
            sel = [(pos, prog) for kd, pos, prog in dense if kd == kind]
            for pos, prog in sel:
                own[pos] = prog
            for pos, prog in sel:
                bad = own[pos] != prog
                if bad.any():
                    own[pos[bad]] = -2
            return own, sel

        w_own, writes = owners(_WRITE)
        a_own, atomics = owners(_ATOMIC)
        r_own, reads = owners(_READ)

        def foreign(own, pos, prog):  # touched by a program other than `prog` (or by several)
            o = own[pos]
            return bool(((o != -1) & (o != prog)).any())

        for pos, prog in writes:
            if foreign(w_own, pos, prog) or foreign(r_own, pos, prog) or foreign(a_own, pos, prog):
                raise _Conflict("write")
        for pos, prog in atomics:
            if foreign(r_own, pos, prog) or foreign(w_own, pos, prog):
                raise _Conflict("atomic and plain access")
        if len(atomics) > 1 and (a_own == -2).any():
            # several programs updated one address: their updates must come in program order
            pos = np.concatenate([p for p, _ in atomics])
            prog = np.concatenate([g for _, g in atomics])
            shared = a_own[pos] == -2
            pos, prog = pos[shared], prog[shared]
            order = np.argsort(pos, kind="stable")
            pos, prog = pos[order], prog[order]
            same = pos[1:] == pos[:-1]
            if (same & (prog[1:] < prog[:-1])).any():
                raise _Conflict("atomics out of program order")


# ------------------------------------------------------------------ the builder


class BatchBlockPtr(BlockPtr):
    """A block pointer of a group of programs: base, sizes, strides and offsets as int64 vectors
    (one per program, or one for all)."""

    __slots__ = ()

    def __init__(self, base, shape, strides, offsets, order, block_shape, elt):
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.offsets = list(offsets)
        self.order = tuple(order)
        self.block_shape = tuple(block_shape)
        self.elt = elt

    def advanced(self, deltas):
        offs = [((o + d + 2**31) % 2**32) - 2**31 for o, d in zip(self.offsets, deltas)]  # int32 wrap
        return BatchBlockPtr(self.base, self.shape, self.strides, offs, self.order, self.block_shape, self.elt)

    def __repr__(self):
        return f"BatchBlockPtr(offsets={self.offsets}, block_shape={list(self.block_shape)})"


def _common_lead(*arrays):
    return max((a.shape[0] for a in arrays if a is not None and np.ndim(a)), default=1)


def _to_lead(a, lead):
    a = np.asarray(a) if not isinstance(a, np.ndarray) else a
    if a.shape[0] == lead:
        return a
    return np.broadcast_to(a, (lead,) + a.shape[1:])


_MISSING = object()


class _WhileState:
    """A `while` loop of a group: the programs running at its entry (None: all), the names its
    body assigns, and once programs disagree on its test, those still looping and the values of
    the variables each program had when it left."""

    __slots__ = ("entry", "names", "predicated", "running", "frozen", "first_keys")

    def __init__(self, entry, names):
        self.entry = entry
        self.names = names
        self.predicated = False
        self.running = None
        self.frozen = None
        self.first_keys = None


class BatchBuilder(InterpreterBuilder):
    """The interpreter's builder for a group of programs at once (see the module docstring)."""

    batched = True
    active = None  # while programs have left a loop: a bool per program, True for those running

    def __init__(self, memory, grid, kernel_name, ids, session):
        super().__init__(memory, grid, kernel_name)
        self.ids = ids
        self.P = len(ids)
        gx, gy = self.grid[0], self.grid[1]
        self._pids = ((ids % gx).astype(np.int32), ((ids // gx) % gy).astype(np.int32),
                      (ids // (gx * gy)).astype(np.int32))
        self.pid = ("*", "*", "*")  # errors in a batch are raised again by the serial run
        self.session = session

    def host_side_effect(self, what):
        raise Unbatchable(what)

    # ------------------------------------------------------------ conversions to Python
    def _per_program(self, t):
        h = t.handle
        if isinstance(h, BlockPtr):
            raise Unbatchable("a block pointer converted to a Python value")
        a = np.asarray(h)
        tshape = tuple(t.shape)
        if a.ndim != len(tshape) + 1 or a.shape[1:] != tshape or int(np.prod(tshape, dtype=np.int64)) != 1:
            raise Unbatchable("a conversion to Python of a value that is not one scalar per program")
        return a.reshape(a.shape[0])

    def _keys_agree(self, keys):
        """Whether the programs running now (all, or those self.active marks) agree on `keys`
        (one per program, or one for all); else _Divergent, with the programs not running given
        the first running one's key (they join its group)."""
        if keys.shape[0] == 1:
            return True
        act = self.active
        sel = keys if act is None else keys[act]
        if sel.shape[0] == 0 or (sel == sel[0]).all():
            return True
        if act is not None:
            keys = keys.copy()
            keys[~act] = sel[0]
        raise _Divergent(keys)

    def _first_running(self):
        return 0 if self.active is None else int(np.argmax(self.active))

    def tensor_to_bool(self, t):
        if isinstance(t.handle, BlockPtr):
            return True
        v = self._per_program(t)
        truth = v if v.dtype == np.bool_ else (v != 0)
        self._keys_agree(truth)
        return bool(truth[0 if truth.shape[0] == 1 else self._first_running()])

    def tensor_to_python(self, t):
        v = self._per_program(t)
        if v.shape[0] > 1:
            keys = np.ascontiguousarray(v)
            if keys.dtype.kind == "f":
                keys = keys.view(numerics._UNSIGNED[keys.dtype.itemsize])
            elif keys.dtype == np.bool_:
                keys = keys.view(np.uint8)
            self._keys_agree(keys)
            i = self._first_running()
            v = v[i:i + 1]
        return super().tensor_to_python(core.tensor(v[:1].reshape(()), t.type))

    # ------------------------------------------------------------ while loops, programs leaving one by one
    def while_enter(self, names):
        return _WhileState(self.active, names)

    def _truth_rows(self, cond):
        """A `while` test as one truth value per program (length P)."""
        if isinstance(cond, core.tensor) and not isinstance(cond.handle, BlockPtr):
            v = self._per_program(cond)
            truth = v if v.dtype == np.bool_ else (v != 0)
            return np.broadcast_to(truth, (self.P,))
        return np.full(self.P, bool(cond))

    def while_check(self, st, cond, frame):
        truth = self._truth_rows(cond)
        if not st.predicated:
            act = self.active
            sel = truth if act is None else truth[act]
            if sel.shape[0] == 0 or sel.all() or not sel.any():  # the running programs agree
                return bool(sel[0]) if sel.shape[0] else False
            # they do not: go on with those that stay, remembering the variables of those that leave
            keys = truth.copy()
            if act is not None:
                keys[~act] = sel[0]
            st.first_keys = keys
            running = np.ones(self.P, dtype=bool) if act is None else act.copy()
            st.frozen = self._snapshot(frame.f_locals, st)
            st.predicated = True
            st.running = running & truth
            self.active = st.running
            return True
        leaving = st.running & ~truth
        if leaving.any():
            self._freeze(frame.f_locals, st, leaving)
        st.running = st.running & truth
        if not st.running.any():
            self.active = st.entry
            return False
        self.active = st.running
        return True

    def _snapshot(self, f_locals, st):
        frozen = {}
        for name in st.names:
            if name not in f_locals:
                continue  # first assigned inside the loop: not a value the loop carries
            v = f_locals[name]
            if isinstance(v, core.tensor) and isinstance(v.handle, np.ndarray) and \
                    v.handle.ndim == len(v.shape) + 1:
                h = v.handle
                frozen[name] = [v.type, np.array(np.broadcast_to(np.asarray(h), (self.P,) + h.shape[1:]))]
            else:
                frozen[name] = [None, v]
        return frozen

    def _freeze(self, f_locals, st, leaving):
        for name, slot in st.frozen.items():
            v = f_locals.get(name, _MISSING)
            ty, kept = slot
            if ty is None:
                if v is not kept:  # a value other than a tensor changed: split the batch instead
                    raise _Divergent(st.first_keys)
                continue
            if not (isinstance(v, core.tensor) and isinstance(v.handle, np.ndarray) and v.type == ty):
                raise _Divergent(st.first_keys)
            h = np.asarray(v.handle)
            kept[leaving] = np.broadcast_to(h, kept.shape)[leaving]

    def while_exit(self, st):
        if not st.predicated:
            return {}
        self.active = st.entry
        out = {}
        for name, (ty, kept) in st.frozen.items():
            out[name] = kept if ty is None else core.tensor(_wrap(kept, ty), ty)
        return out

    # ------------------------------------------------------------ constants and program ids
    def constant(self, value, ret_ty):
        return super().constant(value, ret_ty)[np.newaxis]

    def program_id(self, axis):
        v = self._pids[axis]
        if v[0] == v[-1] and (v == v[0]).all():
            return v[:1].copy()
        return v

    def num_programs(self, axis):
        return super().num_programs(axis)[np.newaxis]

    def global_scratch_alloc(self, nbytes, alignment, ret_ty):
        # The n-th alloc of the group: one buffer with a slice of `nbytes` per program (a
        # multiple of the alignment apart), filled with the pattern the serial run refills its
        # buffer with for each program.
        i = self._scratch_next = getattr(self, "_scratch_next", -1) + 1
        step = -(-int(nbytes) // max(1, int(alignment))) * max(1, int(alignment)) if nbytes else 0
        arr = np.full(max(1, step * self.P), 0xA5, dtype=np.uint8)
        base = self.memory.register(f"global scratch #{i}", arr, core.int8)
        self.__dict__.setdefault("_scratch", []).append((base, step, int(nbytes)))
        return numerics.make_ptr(base + step * np.arange(self.P, dtype=np.int64), core.int8)

    def _check_scratch(self, addrs, mask, isz):
        """Each program stays inside its own slice of a scratch buffer (the serial run's buffer
        is that slice alone: anything else is out of bounds there, and is raised by it)."""
        for base, step, nbytes in self._scratch:
            k = ((base + HALF) >> SHIFT)
            inside = ((addrs + HALF) >> SHIFT) == k
            if mask is not None:
                inside = inside & mask
            if not inside.any():
                continue
            if addrs.shape[0] != self.P and self.P > 1:
                raise IndexError("scratch memory through addresses shared by programs")
            off = addrs - base
            rows = np.arange(addrs.shape[0], dtype=np.int64).reshape((-1,) + (1,) * (addrs.ndim - 1))
            ok = (off >= rows * step) & (off + isz <= rows * step + nbytes)
            if not ok[inside].all():
                raise IndexError("scratch memory outside the program's buffer")

    # ------------------------------------------------------------ creation and shape
    def make_range(self, start, end, ret_ty):
        return super().make_range(start, end, ret_ty)[np.newaxis]

    def splat(self, h, ret_ty):
        a = _cv(h, ret_ty)
        if a.ndim == 0:
            a = a[np.newaxis]
        lead = a.shape[0]
        shape = (lead,) + tuple(ret_ty.shape)
        a = a.reshape((lead,) + (1,) * len(ret_ty.shape))
        return _wrap(np.ascontiguousarray(np.broadcast_to(a, shape)), ret_ty)

    def broadcast(self, h, ret_ty):
        a = _cv(h, ret_ty)
        return _wrap(np.ascontiguousarray(np.broadcast_to(a, (a.shape[0],) + tuple(ret_ty.shape))), ret_ty)

    def expand_dims(self, h, axis, ret_ty):
        return super().expand_dims(h, axis + 1, ret_ty)

    def reshape(self, h, ret_ty, can_reorder):
        a = np.asarray(h)
        return _wrap(np.reshape(a, (a.shape[0],) + tuple(ret_ty.shape)), ret_ty)

    def trans(self, h, order, ret_ty):
        return super().trans(h, (0,) + tuple(int(o) + 1 for o in order), ret_ty)

    def join(self, a, b, ret_ty):
        lead = _common_lead(np.asarray(a), np.asarray(b))
        return super().join(_to_lead(_cv(a, ret_ty), lead), _to_lead(_cv(b, ret_ty), lead), ret_ty)

    def cat(self, a, b, ret_ty):
        lead = _common_lead(np.asarray(a), np.asarray(b))
        A, B = _to_lead(_cv(a, ret_ty), lead), _to_lead(_cv(b, ret_ty), lead)
        return _wrap(np.concatenate([A, B], axis=1), ret_ty)

    # ------------------------------------------------------------ memory
    def _load(self, addrs, active, other, elt, ret_ty, block_ptr=False):
        addrs = np.asarray(addrs, dtype=np.int64)
        act = None if active is None else np.asarray(active, dtype=np.bool_)
        oth = None if (other is None or active is None) else np.asarray(other)
        lead = self.P if self.active is not None else _common_lead(addrs, act, oth)
        addrs = _to_lead(addrs, lead)
        if act is not None:
            act = np.broadcast_to(act, addrs.shape)
        act = self._running(act, addrs.shape)
        if "_scratch" in self.__dict__:
            self._check_scratch(addrs, act, numerics.itemsize(elt))
        self.memory.resolved = []
        out = super()._load(addrs, act, other, elt, ret_ty, block_ptr)
        self.session.log(_READ, addrs, act, self.ids, numerics.itemsize(elt), self._region())
        return out

    def _region(self):
        """The one region the access just made lies in, or None."""
        ks, self.memory.resolved = self.memory.resolved, None
        if ks and ks[0] is not None and all(k == ks[0] for k in ks):
            return ks[0]
        return None

    def _running(self, act, shape):
        """The lanes mask `act` (or None) of an access of `shape` (leading P) with the programs
        that have left a loop masked off."""
        if self.active is None:
            return act
        am = np.broadcast_to(self.active.reshape((self.P,) + (1,) * (len(shape) - 1)), shape)
        return am if act is None else (act & am)

    def _store(self, addrs, value, active, elt, block_ptr=False):
        addrs = np.asarray(addrs, dtype=np.int64)
        addrs = _to_lead(addrs, self.P)
        act = None if active is None else np.broadcast_to(np.asarray(active, dtype=np.bool_), addrs.shape)
        act = self._running(act, addrs.shape)
        if "_scratch" in self.__dict__:
            self._check_scratch(addrs, act, numerics.itemsize(elt))
        self.memory.resolved = []
        try:
            super()._store(addrs, value, act, elt, block_ptr)
        finally:  # logged even when it raised: some of it may be written (and is undone)
            self.session.log(_WRITE, addrs, act, self.ids, numerics.itemsize(elt), self._region())

    def make_block_ptr(self, base, shape, strides, offsets, order, ret_ty):
        blk = ret_ty.element_ty

        def vec(h):
            return signed_view(np.asarray(h)).astype(np.int64).reshape(-1)
        return BatchBlockPtr(np.asarray(base, dtype=np.int64).reshape(-1), [vec(s) for s in shape],
                             [vec(s) for s in strides], [vec(o) for o in offsets], order, blk.shape,
                             blk.element_ty)

    def advance(self, ptr, offsets, ret_ty):
        return ptr.advanced([signed_view(np.asarray(o)).astype(np.int64).reshape(-1) for o in offsets])

    def _block_addrs(self, bp, boundary_check):
        if not isinstance(bp, BatchBlockPtr):
            raise Unbatchable("a block pointer made outside the batch")
        isz = numerics.itemsize(bp.elt)
        rank = len(bp.block_shape)
        col = (-1,) + (1,) * rank
        addrs = bp.base.reshape(col)
        mask = None
        for d in range(rank):
            shp = [1] * (rank + 1)
            shp[d + 1] = bp.block_shape[d]
            idx = bp.offsets[d].reshape(col) + np.arange(bp.block_shape[d], dtype=np.int64).reshape(shp)
            addrs = addrs + idx * (bp.strides[d].reshape(col) * np.int64(isz))
            if d in boundary_check:
                ok = (idx >= 0) & (idx < bp.shape[d].reshape(col))
                mask = ok if mask is None else (mask & ok)
        full = (addrs.shape[0],) + tuple(bp.block_shape)
        addrs = np.broadcast_to(addrs, full)
        if mask is not None:
            mask = np.broadcast_to(mask, full)
        return addrs, mask

    def _atomic(self, kind_op, ptr, val, mask, ret_ty, step):
        addrs = _to_lead(np.asarray(ptr, dtype=np.int64), self.P)
        shape = addrs.shape
        val = [np.broadcast_to(np.asarray(v), shape) for v in val]
        act = None if mask is None else np.broadcast_to(np.asarray(mask, dtype=np.bool_), shape)
        act = self._running(act, shape)
        if "_scratch" in self.__dict__:
            self._check_scratch(addrs, act, numerics.itemsize(ret_ty.scalar))
        self.memory.resolved = []
        try:
            return super()._atomic(kind_op, addrs, val, act, ret_ty, step)
        finally:
            self.session.log(_ATOMIC, addrs, act, self.ids, numerics.itemsize(ret_ty.scalar), self._region())

    # ------------------------------------------------------------ compute
    def reduce(self, inputs, axis, combine, ret_tys, kind):
        lead = _common_lead(*[np.asarray(h) for h in inputs])
        inputs = [_to_lead(np.asarray(h), lead) if np.asarray(h).shape[0] != lead else h for h in inputs]
        return super().reduce(inputs, axis + 1, combine, ret_tys, kind)

    def scan(self, inputs, axis, combine, reverse, ret_tys, kind):
        lead = _common_lead(*[np.asarray(h) for h in inputs])
        inputs = [_to_lead(np.asarray(h), lead) if np.asarray(h).shape[0] != lead else h for h in inputs]
        return super().scan(inputs, axis + 1, combine, reverse, ret_tys, kind)

    def histogram(self, x, mask, ret_ty):
        bins = ret_ty.shape[0]
        v = np.asarray(x)
        m = None if mask is None else np.asarray(mask, dtype=np.bool_)
        lead = _common_lead(v, m)
        v = _to_lead(v, lead)
        v, sel = self._histogram_lanes(v, bins, None if m is None else np.broadcast_to(m, v.shape))
        rows = np.broadcast_to(np.arange(lead, dtype=np.int64)[:, None] * bins, v.shape)
        counts = np.bincount((v + rows)[sel].reshape(-1), minlength=lead * bins)
        return counts[:lead * bins].reshape(lead, bins).astype(np.int32)

    def gather(self, src, index, axis, ret_ty):
        s, i = np.asarray(src), np.asarray(index)
        lead = self.P if self.active is not None else _common_lead(s, i)
        s, i = _to_lead(s, lead), _to_lead(i, lead)
        if self.active is not None:  # the indices of programs that left a loop are not checked
            i = np.where(self._running(None, i.shape), i, np.zeros((), dtype=i.dtype))
        return super().gather(s, i, axis + 1, ret_ty)

    def extern_elementwise(self, symbol, np_name, args, ret_ty, libname="", libpath="", pure=True):
        arrays = [np.asarray(a) for a in args]
        if arrays:
            shape = np.broadcast_shapes(*[a.shape for a in arrays])
            args = [np.broadcast_to(a, shape) for a in arrays]
        return super().extern_elementwise(symbol, np_name, args, ret_ty, libname, libpath, pure)

    # ------------------------------------------------------------ debugging
    def device_print(self, prefix, handles, types, hex):
        raise Unbatchable("tl.device_print")

    def _holds(self, cond):
        c = np.asarray(cond, dtype=np.bool_)
        if self.active is not None and c.ndim:
            c = c | ~self._running(None, (self.P,) + c.shape[1:])
        return bool(c.all())

    def device_assert(self, cond, msg, cond_ty):
        if not self._holds(cond):
            raise AssertionError(msg)  # the serial run reports it with its program

    def assume(self, cond):
        if not self._holds(cond):
            raise AssertionError("tl.assume")  # the serial run reports it with its program


# ------------------------------------------------------------------ the run loop


def _program_of(lin, grid3):
    gx, gy = grid3[0], grid3[1]
    return (lin % gx, (lin // gx) % gy, lin // (gx * gy))


def run_serial(builder, grid3, start, end, program):
    """Programs start..end-1 (linear order: x fastest) one after another with `builder`."""
    with numerics.quiet_run(), core.use_builder(builder):
        for lin in range(start, end):
            builder.pid = _program_of(lin, grid3)
            program()


def _max_groups(p):
    return 8 + p // 4


def _run_batch(memory, grid3, name, ids, fn, args):
    """Runs programs `ids` batched; True when done (memory updated as serially), else the memory
    is as before and the reason is returned."""
    session = _Session(memory)
    memory.undo_log = session.undo
    queue = [ids]
    runs = 0
    try:
        with numerics.quiet_run():
            while queue:
                i = min(range(len(queue)), key=lambda j: int(queue[j][0]))
                group = queue.pop(i)
                runs += 1
                if runs > _max_groups(len(ids)):
                    raise _TooDivergent()
                mark = session.mark()
                builder = BatchBuilder(memory, grid3, name, group, session)
                try:
                    with core.use_builder(builder):
                        fn(**args)
                except _Divergent as d:
                    session.rollback(mark)
                    _, inv = np.unique(d.keys, return_inverse=True)
                    for j in range(int(inv.max()) + 1):
                        queue.append(group[inv == j])
            session.check()
        session.runs = runs
        return True, None, session
    except Unbatchable as e:
        session.rollback()
        return False, e, session
    except Exception as e:  # a conflict, too many splits, or an error the serial run raises again
        session.rollback()
        return False, e, session
    finally:
        memory.undo_log = None
        memory.resolved = None


def run_launch(jit_fn, key, fn, wrapped, memory, grid3, cap, serial_builder):
    """Runs a launch batched where it can (see the module docstring). Returns a dict of what
    happened: batches, programs run batched and serially, and why batching stopped."""
    total = grid3[0] * grid3[1] * grid3[2]
    stats = launch_stats()

    def serial(start, end):
        run_serial(serial_builder, grid3, start, end, lambda: fn(**wrapped))
        stats["serial"] += end - start

    try:
        args = {k: _lead(v) for k, v in wrapped.items()}
    except Unbatchable as e:
        stats["fallback"] = e.reason
        serial(0, total)
        return stats
    start = 0
    chunk = min(cap, _FIRST_BATCH)
    while start < total:
        end = min(total, start + max(1, chunk))
        ok, why, session = _run_batch(memory, grid3, jit_fn.__name__, np.arange(start, end, dtype=np.int64),
                                        fn, args)
        if not ok:
            stats["fallback"] = why.reason if isinstance(why, Unbatchable) else type(why).__name__.lstrip("_")
            if isinstance(why, Unbatchable):
                jit_fn.__dict__.setdefault("_interpreter_unbatchable", {})[key] = why.reason
            serial(start, total)
            break
        stats["batches"] += 1
        stats["runs"] += session.runs
        stats["batched"] += end - start
        start = end
        chunk = max(1, min(cap, _ELEMENT_BUDGET // max(1, session.max_elems)))
    return stats


def run_verified(jit_fn, key, fn, wrapped, memory, grid3, cap, serial_builder):
    """run_launch, then the same launch serially from the same memory; raises AssertionError
    naming the argument whose bytes differ."""
    regions = list(memory.regions)
    before = [r.buf.copy() for r in regions]
    stats = run_launch(jit_fn, key, fn, wrapped, memory, grid3, cap, serial_builder)
    if stats["batched"] == 0 and stats["fallback"] in ("tl.device_print", "tl.static_print", "print"):
        return stats  # ran serially, printing: running it again would print twice
    after = [r.buf.copy() for r in regions]
    for r, b in zip(regions, before):
        r.buf[:] = b
    try:
        run_serial(serial_builder, grid3, 0, grid3[0] * grid3[1] * grid3[2], lambda: fn(**wrapped))
    except Exception as e:
        raise AssertionError(f"{jit_fn.__name__}: the batched launch ran, the serial one raised {e!r}") from e
    for r, a in zip(regions, after):
        if not np.array_equal(r.buf, a):
            bad = int(np.flatnonzero(r.buf != a)[0])
            raise AssertionError(f"{jit_fn.__name__}: batched and serial runs differ in '{r.name}' at byte "
                                 f"{bad} ({stats})")
    stats["verified"] = True
    return stats
