"""The terminal summary of a profile: a tree of host scopes > kernels > intra-kernel scopes.

build_tree(profile) makes the tree as plain JSON-able data (a saved trace keeps it in
otherData, so that `python -m tessera.profiler show` prints the same tree); render(tree) prints it.

Nodes: {"kind": "host" | "kernel" | "scope", "name", "calls", "total_ns", "avg_ns", "per",
"share", "children", ...}.
  host    calls: executions of the scope; total_ns: their host wall time; avg per call;
          share: of the enclosing host scope's time.
  kernel  launches made while the enclosing host scope was open (on the launching thread);
          total_ns: kernel time (CUDA events, or host time where no events were taken);
          avg per launch. No share: kernels run asynchronously to the host scopes.
  scope   intra-kernel scope at its nesting path: calls: completed executions (all warps,
          programs, launches); total_ns: their time summed over warps; avg_ns: per warp
          (total_ns / warps that executed it; one launch's work of a warp), "per" says "warp" or
          "program" (the interpreter); share: avg_ns over the parent's avg_ns -- for a top-level
          scope the mean program duration. cycles: summed %clock cycles (metric "cycle").
"""

FORMAT = 1


def _node(kind, name, **kw):
    n = {"kind": kind, "name": name, "calls": 0, "total_ns": None, "avg_ns": None, "per": "call",
         "share": None, "children": []}
    n.update(kw)
    return n


def _child(node, index, key, make):
    """The child of `node` under `key` (kept in index[id(node)]), made by make() if new."""
    table = index.setdefault(id(node), {})
    c = table.get(key)
    if c is None:
        c = table[key] = make()
        node["children"].append(c)
    return c


def build_tree(profile):
    """The summary tree of a complete Profile (a dict; see the module docstring)."""
    root = _node("root", profile.name or "profile")
    index = {}

    def host_node(path):
        node = root
        for i in range(len(path)):
            node = _child(node, index, ("host", path[i]), lambda: _node("host", path[i], open=True))
        return node

    for h in profile.host_scopes:
        n = host_node(h.path)
        n["open"] = False
        n["calls"] += 1
        n["total_ns"] = (n["total_ns"] or 0) + h.duration_ns

    kernel_nodes = {}
    for k in profile.kernels:
        parent = host_node(k.host_path)
        kn = _child(parent, index, ("kernel", k.name), lambda: _node("kernel", k.name, timed=0, dropped=0,
                                                                      unmatched_starts=0, unmatched_ends=0,
                                                                      errors=0, source=k.source))
        kn["calls"] += 1
        if k.duration_ns is not None:
            kn["timed"] += 1
            kn["total_ns"] = (kn["total_ns"] or 0) + k.duration_ns
        kn["dropped"] += k.dropped
        kn["unmatched_starts"] += k.unmatched_starts
        kn["unmatched_ends"] += k.unmatched_ends
        kn["errors"] += len(k.errors)
        kernel_nodes.setdefault(id(kn), (kn, []))[1].append(k)

    for kn, launches in kernel_nodes.values():
        _add_scopes(kn, launches, index)

    for n in _walk(root):
        if n["kind"] == "host":
            if not n["open"]:
                del n["open"]
            if n["calls"]:
                n["avg_ns"] = n["total_ns"] / n["calls"]
        elif n["kind"] == "kernel":
            if n["timed"]:
                n["avg_ns"] = n["total_ns"] / n["timed"]
    _host_shares(root)
    return {"format": FORMAT, "name": profile.name, "mode": profile.mode, "launches": len(profile.kernels),
            "kernels": len({k.name for k in profile.kernels}), "duration_ns": profile.duration_ns,
            "dropped": profile.dropped, "dropped_by_kernel": profile.dropped_by_kernel(),
            "errors": [f"{k.name} (launch {k.index}): {e}" for k in profile.kernels for e in k.errors],
            "root": root["children"]}


def _add_scopes(kn, launches, index):
    """Intra-kernel scope nodes of kernel node `kn` from its launches' intervals."""
    per = "program" if all(k.source == "interpreter" for k in launches) else "warp"
    acc = {}  # path -> [calls, total_ns, warps, cycles or None]
    order = []
    durations = []
    for k in launches:  # (from the decoded records, without Program objects where it can)
        durations += [d for d in k.program_durations() if d > 0]
        for path, (calls, total, warps, cycles) in k.scope_totals_by("path").items():
            a = acc.get(path)
            if a is None:
                a = acc[path] = [0, 0.0, 0, 0]
                order.append(path)
            a[0] += calls
            a[1] += total
            a[2] += warps
            a[3] = None if cycles is None or a[3] is None else a[3] + cycles
    # parents before children, siblings by time per warp (largest first), then name
    order.sort(key=lambda path: (len(path), -acc[path][1] / max(acc[path][2], 1), path))
    nodes = {}
    for path in order:
        calls, total, warps, cycles = acc[path]
        parent = nodes.get(path[:-1], kn) if len(path) > 1 else kn
        if len(path) > 1 and path[:-1] not in nodes:
            # the parent's start was lost (ring wrap): shown under the kernel with its full path
            name = " > ".join(path)
        else:
            name = path[-1]
        n = _child(parent, index, ("scope", path), lambda: _node("scope", name, per=per))
        n.update(calls=calls, total_ns=total, warps=warps, avg_ns=total / warps if warps else None)
        if cycles is not None:
            n["cycles"] = cycles
        nodes[path] = n
        if parent is kn:
            mean = sum(durations) / len(durations) if durations else None
            n["share"] = n["avg_ns"] / mean if mean and n["avg_ns"] is not None else None
        else:
            n["share"] = n["avg_ns"] / parent["avg_ns"] if parent.get("avg_ns") and n["avg_ns"] is not None else None
    for n in kn["children"]:
        _sort_children(n)


def _sort_children(n):
    n["children"].sort(key=lambda c: (-(c["avg_ns"] or 0), c["name"]))
    for c in n["children"]:
        _sort_children(c)


def _host_shares(node, parent_total=None):
    for c in node["children"]:
        if c["kind"] == "host":
            if parent_total and c["total_ns"] is not None:
                c["share"] = c["total_ns"] / parent_total
            _host_shares(c, c["total_ns"])


def _walk(node):
    yield node
    for c in node["children"]:
        yield from _walk(c)


# ------------------------------------------------------------------ text


def format_ns(ns):
    """A duration in the unit that suits it (ns, us, ms, s)."""
    if ns is None:
        return "-"
    a = abs(ns)
    if a < 1e3:
        return f"{ns:.0f} ns"
    if a < 1e6:
        return f"{ns / 1e3:.2f} us"
    if a < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.3f} s"


def _label(n):
    if n["kind"] == "host":
        return f"{n['name']} [host]" + (" (open at stop)" if n.get("open") else "")
    if n["kind"] == "kernel":
        return f"{n['name']} [kernel]"
    return n["name"]


def _avg(n):
    if n["avg_ns"] is None:
        return "-"
    per = n.get("per", "call")
    return format_ns(n["avg_ns"]) + ("/" + per if per != "call" else "")


def render(tree, max_depth=None):
    """The text of a summary tree (build_tree's result, or otherData["tessera"]["tree"] of a
    saved trace)."""
    if not isinstance(tree, dict) or "root" not in tree:
        raise ValueError("not a Tessera profile summary tree (no 'root')")
    rows = []
    pers = set()  # "warp" / "program": what the shown scopes' averages are per

    def visit(nodes, prefix, depth):
        for i, n in enumerate(nodes):
            if n["kind"] == "scope":
                pers.add(n["per"])
            last = i == len(nodes) - 1
            branch = "" if depth == 0 else ("`- " if last else "|- ")
            share = f"{100 * n['share']:.1f}%" if n.get("share") is not None else ""
            rows.append((prefix + branch + _label(n), f"{n['calls']:,}", format_ns(n["total_ns"]), _avg(n), share))
            if max_depth is None or depth + 1 < max_depth:
                ext = "" if depth == 0 else ("   " if last else "|  ")
                visit(n["children"], prefix + ext, depth + 1)

    visit(tree["root"], "", 0)
    title = f"Tessera profile {tree['name']!r}" if tree.get("name") else "Tessera profile"
    kinds = "launch" if tree.get("launches") == 1 else "launches"
    lines = [f"{title} (mode {tree.get('mode')}): {tree.get('launches', 0)} kernel {kinds} of "
             f"{tree.get('kernels', 0)} kernel(s) in {format_ns(tree.get('duration_ns'))}"]
    if rows:
        header = ("name", "calls", "total", "avg", "of parent")
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(5)]

        def fmt(r):
            cells = [f"{r[0]:<{widths[0]}}"] + [f"{c:>{w}}" for c, w in zip(r[1:], widths[1:])]
            return "  ".join(cells).rstrip()

        lines.append(fmt(header))
        lines += [fmt(r) for r in rows]
        if pers:
            lines.append(f"scopes: avg = time per {' or '.join(sorted(pers))} and launch; of parent = share of the "
                         f"parent's avg (top level: of the mean program duration)")
    else:
        lines.append("(nothing was recorded)")
    dropped = tree.get("dropped") or 0
    if dropped:
        per = ", ".join(f"{k}: {v:,}" for k, v in sorted(tree.get("dropped_by_kernel", {}).items()))
        lines.append(f"records dropped: {dropped:,} ({per}); a warp's ring keeps its last records_per_warp "
                     f"records, so scopes before them are missing")
    starts = sum(n.get("unmatched_starts", 0) for n in _walk({"children": tree["root"]}))
    ends = sum(n.get("unmatched_ends", 0) for n in _walk({"children": tree["root"]}))
    if starts or ends:
        lines.append(f"unmatched scope records: {starts:,} starts without an end, {ends:,} ends without a start")
    for e in tree.get("errors", []):
        lines.append(f"error: {e}")
    return "\n".join(lines)
