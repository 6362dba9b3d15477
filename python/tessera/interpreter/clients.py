"""Ready-made instrumentation clients: Tracer (every record) and AccessStats (per source line)."""

import os
from collections import Counter, OrderedDict

from .hooks import (AtomicRecord, BranchRecord, CallRecord, Client, DotRecord, LoadRecord, ReduceRecord, ScanRecord,
                    StoreRecord)


class Tracer(Client):
    """Keeps every record (and kernel start/end records) in `.records`, in order."""

    def __init__(self):
        self.records = []
        self.kernels = []

    def on_kernel_start(self, rec):
        self.kernels.append(rec)

    def on_load(self, rec):
        self.records.append(rec)

    on_store = on_atomic = on_dot = on_reduce = on_scan = on_call = on_branch = on_load

    def of_type(self, cls):
        return [r for r in self.records if type(r) is cls]

    def summary(self):
        names = {LoadRecord: "load", StoreRecord: "store", AtomicRecord: "atomic", DotRecord: "dot",
                 ReduceRecord: "reduce", ScanRecord: "scan", CallRecord: "call", BranchRecord: "branch"}
        counts = Counter(names[type(r)] for r in self.records)
        moved = Counter()
        for r in self.records:
            if isinstance(r, (LoadRecord, StoreRecord, AtomicRecord)):
                moved[names[type(r)]] += r.bytes
        lines = []
        for k in self.kernels:
            lines.append(f"kernel {k.kernel} grid={k.grid}")
        for name in ("load", "store", "atomic", "dot", "reduce", "scan", "call", "branch"):
            if counts[name]:
                extra = f", {moved[name]} bytes" if name in moved else ""
                lines.append(f"  {name}: {counts[name]} ops{extra}")
        if not self.records:
            lines.append("  (no records)")
        return "\n".join(lines)


class AccessStats(Client):
    """Memory traffic per source line: `.by_line[(file, line)]` -> dict with loads/stores/atomics
    counts, bytes_loaded, bytes_stored, lanes, masked_lanes, masked_ratio (masked-off lanes / all
    lanes) and args (argument names). An atomic counts as both a load and a store of its bytes."""

    def __init__(self):
        self.by_line = OrderedDict()

    def _entry(self, rec):
        key = (rec.filename, rec.lineno)
        e = self.by_line.get(key)
        if e is None:
            e = dict(loads=0, stores=0, atomics=0, bytes_loaded=0, bytes_stored=0, lanes=0,
                     masked_lanes=0, masked_ratio=0.0, args=set())
            self.by_line[key] = e
        return e

    def _add(self, rec, kind):
        e = self._entry(rec)
        e[kind + "s"] += 1
        n = int(rec.mask.size)
        active = int(rec.mask.sum())
        e["lanes"] += n
        e["masked_lanes"] += n - active
        e["masked_ratio"] = e["masked_lanes"] / e["lanes"] if e["lanes"] else 0.0
        if rec.arg_name:
            e["args"].add(rec.arg_name)
        if kind == "load":
            e["bytes_loaded"] += rec.bytes
        elif kind == "store":
            e["bytes_stored"] += rec.bytes
        else:  # an atomic reads and writes
            e["bytes_loaded"] += rec.bytes
            e["bytes_stored"] += rec.bytes

    def on_load(self, rec):
        self._add(rec, "load")

    def on_store(self, rec):
        self._add(rec, "store")

    def on_atomic(self, rec):
        self._add(rec, "atomic")

    @property
    def total_loaded(self):
        return sum(e["bytes_loaded"] for e in self.by_line.values())

    @property
    def total_stored(self):
        return sum(e["bytes_stored"] for e in self.by_line.values())

    def report(self):
        hdr = f"{'location':<28} {'args':<16} {'ops':>6} {'loaded B':>12} {'stored B':>12} {'masked':>7}"
        lines = [hdr, "-" * len(hdr)]
        for (fn, ln), e in self.by_line.items():
            loc = f"{os.path.basename(fn) if fn else '?'}:{ln}"
            ops = e["loads"] + e["stores"] + e["atomics"]
            args = ",".join(sorted(e["args"]))
            lines.append(f"{loc:<28} {args:<16} {ops:>6} {e['bytes_loaded']:>12} {e['bytes_stored']:>12} "
                         f"{e['masked_ratio']:>6.1%}")
        lines.append(f"{'total':<28} {'':<16} {'':>6} {self.total_loaded:>12} {self.total_stored:>12}")
        return "\n".join(lines)
