"""Profile buffers written the way an instrumented kernel writes them (the layout of
tessera.profiler.decode's docstring), with struct and nothing of the decoder, for the profiler's
tests, its viewer test and tools/docs/profiler_screenshot.py."""

import struct

M32 = 0xFFFFFFFF


def records_offset(num_warps):
    return 32 + (4 * num_warps + 7) // 8 * 8


def slice_bytes(num_warps, records_per_warp):
    return records_offset(num_warps) + num_warps * records_per_warp * 8


def meta(scopes, num_warps=2, records_per_warp=16, metric="cycle", bytes_per_program=None):
    """A kernel's metadata["profile"] for scope names `scopes` (ids in order)."""
    return {"bytes_per_program": bytes_per_program or slice_bytes(num_warps, records_per_warp), "header_bytes": 32,
            "num_warps": num_warps, "records_per_warp": records_per_warp, "metric": metric,
            "scopes": [{"name": n, "function": "kernel", "file": "kernel.py", "line": 10 + i}
                       for i, n in enumerate(scopes)]}


def program(profile, warps, start_ns=0, end_ns=0, start_clock=0, end_clock=0, smid=0, header_warps=None):
    """One program's slice. warps: per warp, its records in program order as (scope id, is_end,
    word1) -- word1 the raw counter value, reduced modulo 2^32 here. A warp's record i goes to
    slot i % records_per_warp (older ones are overwritten), and its count is how many it wrote."""
    W, C = profile["num_warps"], profile["records_per_warp"]
    buf = bytearray(profile["bytes_per_program"])
    struct.pack_into("<QQIIII", buf, 0, start_ns, end_ns, start_clock & M32, end_clock & M32, smid,
                     W if header_warps is None else header_warps)
    base = records_offset(W)
    for w in range(W):
        recs = warps[w] if w < len(warps) else []
        struct.pack_into("<I", buf, 32 + 4 * w, len(recs))
        for i, (sid, is_end, word1) in enumerate(recs):
            struct.pack_into("<II", buf, base + (w * C + i % C) * 8, (sid << 1) | int(bool(is_end)), word1 & M32)
    return bytes(buf)


def script(scopes, events, clock0=0):
    """Records of one warp from (name, "start"/"end", counter offset) events: ids from `scopes`
    (a list of names), word1 = clock0 + offset."""
    return [(scopes.index(name), what == "end", clock0 + t) for name, what, t in events]


def matmul_like(grid=(4, 1, 1), num_warps=4, iterations=3, start_ns=1_000_000_000, cycles_per_ns=2):
    """(metadata, buffer) of a launch whose programs run a scope "mainloop" of `iterations` of
    load then dot, then a store, with per-program and per-warp offsets: a plausible kernel for
    traces and pictures."""
    scopes = ["mainloop", "load", "dot", "store"]
    md = meta(scopes, num_warps=num_warps, records_per_warp=64)
    out = b""
    n = grid[0] * grid[1] * grid[2]
    for i in range(n):
        warps = []
        length = 0
        for w in range(num_warps):
            t = 40 + 7 * w
            ev = [("mainloop", "start", t - 5)]
            for it in range(iterations):
                ev += [("load", "start", t), ("load", "end", t + 300 + 20 * w)]
                t += 320 + 20 * w
                ev += [("dot", "start", t), ("dot", "end", t + 900 + 30 * i)]
                t += 910 + 30 * i
            ev += [("mainloop", "end", t), ("store", "start", t + 5), ("store", "end", t + 155)]
            length = max(length, t + 200)
            warps.append(script(scopes, ev, clock0=5000 * i))
        p_start = start_ns + 250 * i
        out += program(md, warps, start_ns=p_start, end_ns=p_start + length // cycles_per_ns,
                       start_clock=5000 * i, end_clock=5000 * i + length, smid=i % 132)
    return md, out
