"""Profile buffers written the way an instrumented kernel writes them (the layout of
tessera.profiler.decode's docstring), with struct and nothing of the decoder, for the profiler's
tests, its viewer test and tools/docs/profiler_screenshot.py."""

import struct

M32 = 0xFFFFFFFF


def records_offset(num_warps):
    return 32 + (4 * num_warps + 31) // 32 * 32  # counts padded to a 32-byte sector


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


def large_launch(programs=1024, num_warps=8, records_per_warp=255, iterations=64, metric="cycle", seed=0,
                 cycles_per_ns=1.98, start_ns=1_764_000_000_000_000_000):
    """(metadata, buffer) of a matmul-sized launch, built with numpy (for buffers of millions of
    records; same layout as program()): per warp "mainloop" holding `iterations` of load then dot,
    then "store" -- 4 * iterations + 4 records, so that 64 iterations overflow a ring of 255 and
    drop the mainloop's start (its end is then unmatched). Random gaps, per program random start
    clocks (some %clock wraps inside programs), program spans from the records; every 7th warp of
    every 5th program interleaves its last load and dot (load start, dot start, load end, dot end),
    which is not properly nested."""
    import numpy as np

    rng = np.random.default_rng(seed)
    W, C, n = num_warps, records_per_warp, programs
    md = meta(["mainloop", "load", "dot", "store"], num_warps=W, records_per_warp=C, metric=metric)
    sids = [0] + [1, 1, 2, 2] * iterations + [0, 3, 3]
    ends = [0] + [0, 1, 0, 1] * iterations + [1, 0, 1]
    L = len(sids)
    sid = np.broadcast_to(np.array(sids, np.uint32), (n, W, L)).copy()
    end = np.broadcast_to(np.array(ends, np.uint32), (n, W, L)).copy()
    tricky = np.zeros((n, W), bool)
    tricky[::5, ::7] = True
    last_load = 1 + 4 * (iterations - 1)  # load start, load end, dot start, dot end -> load s, dot s, load e, dot e
    for a, b in ((last_load + 1, last_load + 2),):
        sid[tricky, a], sid[tricky, b] = sid[tricky, b].copy(), sid[tricky, a].copy()
        end[tricky, a], end[tricky, b] = end[tricky, b].copy(), end[tricky, a].copy()
    gaps = rng.integers(1, 400, size=(n, W, L)).astype(np.int64)
    gaps[:, :, 0] = rng.integers(-20, 200, size=(n, W))  # a warp may record before thread 0 reads the clock
    offsets = np.cumsum(gaps, axis=2)
    span_cycles = offsets.max(axis=(1, 2)) + 100
    start_clock = rng.integers(0, 2**32, size=n, dtype=np.int64)
    if metric == "cycle":
        word1 = (start_clock[:, None, None] + offsets) & M32
    else:
        word1 = (start_ns + 1000 * np.arange(n)[:, None, None] + np.rint(offsets / cycles_per_ns).astype(np.int64)) & M32
    rec = np.empty((n, W, C, 2), np.uint32)
    rec[...] = 0
    for i in range(L):  # record i goes to slot i % C: later records overwrite earlier ones
        rec[:, :, i % C, 0] = (sid[:, :, i] << 1) | end[:, :, i]
        rec[:, :, i % C, 1] = word1[:, :, i]
    off = records_offset(W)
    buf = np.zeros((n, md["bytes_per_program"]), np.uint8)
    header = np.zeros(n, dtype=[("start_ns", "<u8"), ("end_ns", "<u8"), ("start_clock", "<u4"),
                                ("end_clock", "<u4"), ("smid", "<u4"), ("num_warps", "<u4")])
    header["start_ns"] = start_ns + 1000 * np.arange(n)
    header["end_ns"] = header["start_ns"] + np.rint(span_cycles / cycles_per_ns).astype(np.uint64)
    header["start_clock"] = start_clock & M32
    header["end_clock"] = (start_clock + span_cycles) & M32
    header["smid"] = np.arange(n) % 132
    header["num_warps"] = W
    buf[:, :32] = header.view(np.uint8).reshape(n, 32)
    buf[:, 32:32 + 4 * W] = np.full((n, W), L, "<u4").view(np.uint8)
    buf[:, off:off + W * C * 8] = rec.astype("<u4").view(np.uint8).reshape(n, W * C * 8)
    return md, buf.tobytes()
