"""A Profile as Chrome Trace Event JSON (opens in Perfetto, chrome://tracing and speedscope), and
validate_trace, the checker of the format rules these traces follow.

Layout of build_trace's trace (ts and dur in microseconds, floats, from the session's start):

  process "host"        one thread per Python thread with host scopes (`tessera.profiler.scope`)
  process "GPU"         one thread per (device, stream) holding the kernel launches; launches
                        run by the interpreter go on the thread "interpreter"
  one process per launch with decoded records, "<kernel> (launch <i>)": one thread per program
                        and warp, "program (x,y,z) warp w" ("program (x,y,z)" in the
                        interpreter), holding its scopes; the launch's records are placed so
                        that its earliest program starts where the kernel's event starts.
                        Only the first `max_programs` programs get threads (the summary uses all).

Every event is a complete ("X") event or a metadata ("M") event naming processes and threads
(process_name, thread_name, process_sort_index, thread_sort_index). Only kernel events carry
args (the grid; dropped records when a ring wrapped): speedscope makes an event's args part of its
name, and scopes must keep one name to be added up there. X events on one thread
nest; where a warp's scopes interleave (started a, started b, ended a), the interleaved one goes
to an extra thread "... [2]" so that the rule holds. otherData["tessera"] keeps the summary tree
(tessera.profiler.summary) and what the trace left out, so that a saved trace can be summarized
again (`python -m tessera.profiler show`).
"""

import math

from . import summary

HOST_PID = 1
GPU_PID = 2
FORMAT = 1

_METADATA = {"process_name": "name", "thread_name": "name", "process_labels": "labels",
             "process_sort_index": "sort_index", "thread_sort_index": "sort_index"}
_PHASES = {"X", "B", "E", "M", "i", "I", "C"}
_EPS_US = 1e-3  # 1 ns: slack for float rounding when checking that X events nest


def _us(ns):
    return ns / 1000.0


def assign_lanes(spans):
    """For (start, end) spans, a lane per span such that the spans of one lane nest or are
    disjoint (greedy, in start order; lane 0 first)."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1]))
    lanes = []  # per lane: stack of open ends
    out = [0] * len(spans)
    for i in order:
        start, end = spans[i]
        for lane, stack in enumerate(lanes):
            while stack and stack[-1] <= start:
                stack.pop()
            if not stack or end <= stack[-1]:
                stack.append(end)
                out[i] = lane
                break
        else:
            lanes.append([end])
            out[i] = len(lanes) - 1
    return out


def _stream_name(k):
    if k.source == "interpreter":
        return "interpreter"
    stream = "default stream" if k.stream == 0 else f"stream {k.stream:#x}"
    where = f"device {k.device}" if k.device >= 0 else "host"
    suffix = " (host time)" if k.source == "host" else ""
    return f"{where} {stream}{suffix}"


def build_trace(profile, max_programs=64):
    """The trace of a complete Profile (a dict ready for json.dump)."""
    if isinstance(max_programs, bool) or not isinstance(max_programs, int) or max_programs < 0:
        raise ValueError(f"max_programs must be an int >= 0, got {max_programs!r}")
    meta, events = [], []

    def name_process(pid, name, sort):
        meta.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}})
        meta.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": sort}})

    def name_thread(pid, tid, name):
        meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
        meta.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid, "args": {"sort_index": tid}})

    def add_track(pid, tid_base, name, items):
        """items: (start_ns, end_ns, event dict without ts/dur/pid/tid); returns threads used."""
        lanes = assign_lanes([(s, e) for s, e, _ in items])
        used = max(lanes, default=0) + 1 if items else 1
        for lane in range(used):
            name_thread(pid, tid_base + lane, name if lane == 0 else f"{name} [{lane + 1}]")
        for (s, e, ev), lane in zip(items, lanes):
            ev.update(ph="X", ts=_us(s), dur=_us(e - s), pid=pid, tid=tid_base + lane)
            events.append(ev)
        return used

    # host scopes, one thread per Python thread
    if profile.host_scopes:
        name_process(HOST_PID, "host", HOST_PID)
        threads = {}
        for h in profile.host_scopes:  # (ident, name): a finished thread's ident may be reused
            threads.setdefault((h.thread, h.thread_name), []).append(h)
        tid = 1
        for (_, tname), scopes in threads.items():
            items = [(h.start_ns, h.end_ns, {"name": h.name, "cat": "host"}) for h in scopes]
            tid += add_track(HOST_PID, tid, f"thread {tname}", items)

    # kernels, one thread per stream
    if profile.kernels:
        name_process(GPU_PID, "GPU", GPU_PID)
        streams = {}
        for k in profile.kernels:
            streams.setdefault((k.source == "interpreter", k.device, k.stream, k.source), []).append(k)
        tid = 1
        for key in sorted(streams):
            items = []
            for k in streams[key]:
                start = k.start_ns if k.start_ns is not None else k.host_start_ns
                dur = k.duration_ns if k.duration_ns is not None else 0
                args = {"grid": list(k.grid)}
                if k.dropped:
                    args["dropped_records"] = k.dropped
                if k.duration_ns is None:
                    args["timing"] = "unknown (the launch did not complete in the session)"
                items.append((start, start + dur, {"name": k.name, "cat": "kernel", "args": args}))
            tid += add_track(GPU_PID, tid, _stream_name(streams[key][0]), items)

    # intra-kernel tracks, one process per launch with records
    omitted = {}
    pid = GPU_PID + 1
    for k in profile.kernels:
        shown, total = k.programs_head(max_programs)
        if not total:
            continue
        name_process(pid, f"{k.name} (launch {k.index})", pid)
        if total > len(shown):
            omitted[str(k.index)] = total - len(shown)
        tid = 1
        for p in shown:
            where = f"program ({p.pid[0]},{p.pid[1]},{p.pid[2]})"
            for t in p.tracks:
                items = []
                for iv in t.intervals:
                    items.append((k.session_ns(iv.start_ns), k.session_ns(iv.end_ns),
                                  {"name": iv.name, "cat": "scope"}))
                label = where if t.warp is None else f"{where} warp {t.warp}"
                tid += add_track(pid, tid, label, items)
        pid += 1

    events.sort(key=lambda e: (e["ts"], -e["dur"]))
    other = {"tessera": {"format": FORMAT, "name": profile.name, "mode": profile.mode,
                         "tree": summary.build_tree(profile), "max_programs": max_programs,
                         "omitted_programs": omitted, "dropped": profile.dropped}}
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


# ------------------------------------------------------------------ validation


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_time(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def validate_trace(obj):
    """Check `obj` (a parsed trace: {"traceEvents": [...], ...} or a bare event list) against the
    Trace Event format rules the profiler's traces follow; returns the number of events, or raises
    ValueError saying which event breaks which rule.

    Rules: phases X, B, E, M, i/I, C only; every event has an int pid (and an int tid except
    process metadata and counters); ts (and X's dur) are finite numbers >= 0; X and B events and
    instants have a str name; args, when present, is an object; metadata events are process_name,
    thread_name (args.name a str), process_labels (args.labels a str), process_sort_index,
    thread_sort_index (args.sort_index an int); counters have numeric args; on each thread every
    E closes an earlier B (same name when it has one) and every B is closed; X events of one
    thread nest or are disjoint; displayTimeUnit is "ms" or "ns"; otherData is an object."""
    if isinstance(obj, list):
        events = obj
    elif isinstance(obj, dict):
        if "traceEvents" not in obj:
            raise ValueError("a trace object needs a 'traceEvents' list")
        events = obj["traceEvents"]
        if not isinstance(events, list):
            raise ValueError(f"'traceEvents' must be a list, got {type(events).__name__}")
        unit = obj.get("displayTimeUnit")
        if unit is not None and unit not in ("ms", "ns"):
            raise ValueError(f"displayTimeUnit must be 'ms' or 'ns', got {unit!r}")
        if "otherData" in obj and not isinstance(obj["otherData"], dict):
            raise ValueError("otherData must be an object")
    else:
        raise ValueError(f"a trace is a JSON object or array, got {type(obj).__name__}")

    spans = {}     # (pid, tid) -> [(ts, end, name, index)] of X events
    begins = {}    # (pid, tid) -> [(ts, order, "B"/"E", name, index)]
    for i, e in enumerate(events):
        where = f"traceEvents[{i}]"
        if not isinstance(e, dict):
            raise ValueError(f"{where} is not an object")
        ph = e.get("ph")
        if ph not in _PHASES:
            raise ValueError(f"{where}: unknown or missing phase 'ph': {ph!r} (expected one of "
                             f"{', '.join(sorted(_PHASES))})")
        where = f"{where} ({ph} {e.get('name')!r})"
        if "args" in e and not isinstance(e["args"], dict):
            raise ValueError(f"{where}: 'args' must be an object")
        if "cat" in e and not isinstance(e["cat"], str):
            raise ValueError(f"{where}: 'cat' must be a string")
        if not _is_int(e.get("pid")):
            raise ValueError(f"{where}: 'pid' must be an int, got {e.get('pid')!r}")
        needs_tid = not (ph == "C" or (ph == "M" and str(e.get("name", "")).startswith("process_"))
                         or (ph in "iI" and e.get("s", "t") != "t"))
        if needs_tid and not _is_int(e.get("tid")):
            raise ValueError(f"{where}: 'tid' must be an int, got {e.get('tid')!r}")
        if "tid" in e and not _is_int(e["tid"]):
            raise ValueError(f"{where}: 'tid' must be an int, got {e['tid']!r}")
        if ph == "M":
            key = _METADATA.get(e.get("name"))
            if key is None:
                raise ValueError(f"{where}: unknown metadata event (expected one of {', '.join(sorted(_METADATA))})")
            value = e.get("args", {}).get(key)
            ok = _is_int(value) if key == "sort_index" else isinstance(value, str)
            if not ok:
                raise ValueError(f"{where}: args.{key} must be {'an int' if key == 'sort_index' else 'a string'}, "
                                 f"got {value!r}")
            continue
        if not _is_time(e.get("ts")):
            raise ValueError(f"{where}: 'ts' must be a finite number >= 0, got {e.get('ts')!r}")
        if ph in ("X", "B", "i", "I", "C") and not isinstance(e.get("name"), str):
            raise ValueError(f"{where}: 'name' must be a string")
        track = (e["pid"], e.get("tid"))
        if ph == "X":
            if not _is_time(e.get("dur")):
                raise ValueError(f"{where}: 'dur' must be a finite number >= 0, got {e.get('dur')!r}")
            spans.setdefault(track, []).append((e["ts"], e["ts"] + e["dur"], e["name"], i))
        elif ph in ("B", "E"):
            if ph == "E" and "name" in e and not isinstance(e["name"], str):
                raise ValueError(f"{where}: 'name' must be a string")
            begins.setdefault(track, []).append((e["ts"], i, ph, e.get("name"), i))
        elif ph in ("i", "I"):
            if e.get("s", "t") not in ("g", "p", "t"):
                raise ValueError(f"{where}: instant scope 's' must be 'g', 'p' or 't', got {e.get('s')!r}")
        elif ph == "C":
            args = e.get("args")
            if not args or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                   for v in args.values()):
                raise ValueError(f"{where}: a counter needs args of finite numbers")

    for (pid, tid), items in begins.items():
        stack = []
        for ts, _, ph, name, i in sorted(items):
            if ph == "B":
                stack.append((name, i))
            elif not stack:
                raise ValueError(f"traceEvents[{i}]: E event on pid {pid} tid {tid} closes no B event")
            else:
                bname, bi = stack.pop()
                if name is not None and name != bname:
                    raise ValueError(f"traceEvents[{i}]: E event {name!r} on pid {pid} tid {tid} closes B event "
                                     f"{bname!r} (traceEvents[{bi}])")
        if stack:
            name, i = stack[-1]
            raise ValueError(f"traceEvents[{i}]: B event {name!r} on pid {pid} tid {tid} is never closed by an E event")

    for (pid, tid), items in spans.items():
        items.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, end, name, i in items:
            while stack and stack[-1][0] <= ts + _EPS_US:
                stack.pop()
            if stack and end > stack[-1][0] + _EPS_US:
                raise ValueError(f"traceEvents[{i}]: X event {name!r} on pid {pid} tid {tid} ({ts}..{end} us) "
                                 f"overlaps {stack[-1][1]!r} (traceEvents[{stack[-1][2]}], ends at "
                                 f"{stack[-1][0]} us) without nesting in it")
            stack.append((end, name, i))
    return len(events)
