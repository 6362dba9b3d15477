"""The on-disk kernel cache: content addressing, atomic writes, corruption recovery, and eight
processes compiling the same kernel at once (no GPU: compile-only, target cuda:90)."""

import hashlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import time

import pytest

import tessera
from tessera.runtime import cache

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

KERNELS = '''
import tessera
import tessera.language as tl

SCALE = tl.constexpr({scale})

@tessera.jit
def helper(v):
    return v * {helper_factor}

@tessera.jit
def kern(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, helper(tl.load(x + offs, mask=m)) * SCALE, mask=m)

SIG = {{"x": "*fp32:16", "y": "*fp32:16", "n": "i32"}}
'''


def _module(tmp_path, name, scale=2, helper_factor=3):
    path = tmp_path / f"{name}.py"
    path.write_text(KERNELS.format(scale=scale, helper_factor=helper_factor))
    sys.path.insert(0, str(tmp_path))
    try:
        __import__(name)
    finally:
        sys.path.pop(0)
    return sys.modules[name]


def _compile(mod, **kw):
    mod.kern.cache.clear()  # the in-memory cache; the disk cache stays
    opts = dict(target="cuda:90", num_warps=4)
    opts.update(kw)
    return tessera.compile(mod.kern, signature=mod.SIG, constexprs={"BLOCK": 128}, **opts)


def _entries(d):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(d))
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    return d


def test_miss_then_hit_gives_the_same_artifacts(tmp_path, cache_dir):
    mod = _module(tmp_path, "cache_k1")
    a = _compile(mod)
    assert a.metadata["cache"] == "miss"
    files = _entries(cache_dir)
    assert len(files) == 1 and files[0].endswith(".tsk")
    b = _compile(mod)
    assert b.metadata["cache"] == "hit"
    assert b.asm == a.asm and b.metadata["shared"] == a.metadata["shared"]
    assert set(b.asm) >= {"ttir", "ttgir", "llir", "ptx"}


def test_disabled(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")
    mod = _module(tmp_path, "cache_k2")
    assert _compile(mod).metadata["cache"] == "off"
    assert _compile(mod).metadata["cache"] == "off"
    assert not cache_dir.exists()


def damaged(data, damage):
    """A cache entry's bytes spoiled one way: "truncate", "flip" (one bit near the end), "empty",
    "magic" (its header) or "trailing" (a byte appended)."""
    if damage == "truncate":
        return data[:len(data) // 2]
    if damage == "flip":
        i = len(data) - 100
        return data[:i] + bytes([data[i] ^ 0x40]) + data[i + 1:]
    if damage == "empty":
        return b""
    if damage == "magic":
        return b"XXXXXXXX" + data[8:]
    return data + b"\0"


def worker_script(tmp_path):
    """(script, sync directory) of the concurrent-compilation workers (run_workers)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "cache_conc.py").write_text(KERNELS.format(scale=2, helper_factor=3))
    sync = tmp_path / "sync"
    sync.mkdir()
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(python=PYTHON_DIR, mods=str(mods), sync=str(sync)))
    return script, sync


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "magic", "trailing"])
def test_corrupted_entries_are_recompiled_never_loaded(tmp_path, cache_dir, caplog, damage):
    mod = _module(tmp_path, f"cache_k3_{damage}")
    good = _compile(mod)
    (path,) = _entries(cache_dir)
    data = open(path, "rb").read()
    data = damaged(data, damage)
    with open(path, "wb") as f:
        f.write(data)
    with caplog.at_level(logging.WARNING, logger="tessera.cache"):
        again = _compile(mod)
    assert again.metadata["cache"] == "miss"
    assert again.asm == good.asm
    assert any("discarding invalid entry" in r.getMessage() for r in caplog.records)
    # The entry was rewritten whole.
    assert _compile(mod).metadata["cache"] == "hit"


def test_key_covers_sources_globals_options_and_target(tmp_path, cache_dir):
    base = _module(tmp_path, "cache_k4")
    other_helper = _module(tmp_path, "cache_k5", helper_factor=4)
    other_global = _module(tmp_path, "cache_k6", scale=5)
    same = _module(tmp_path, "cache_k7")

    def key(mod, **kw):
        from tessera.compiler.compiler import _parse_sig_entry
        types, attrs = {}, {}
        for k, v in mod.SIG.items():
            types[k], attrs[k] = _parse_sig_entry(k, v)
        opts = {"num_warps": 4, "num_stages": 3}
        opts.update(kw.pop("options", {}))
        return cache.kernel_key(mod.kern, types, {"BLOCK": kw.pop("block", 128)}, attrs,
                                kw.pop("target", "cuda:90"), opts)[0]

    k = key(base)
    assert key(base) == k
    # The same sources in another file: another key, since compiled code carries locations.
    assert key(same) != k
    assert key(other_helper) != k             # a callee's source
    assert key(other_global) != k             # a constexpr global the kernel reads
    assert key(base, block=256) != k          # a constexpr argument
    assert key(base, options={"num_warps": 8}) != k
    assert key(base, target="cuda:80") != k
    # Changing the global in place changes the key too.
    import tessera.language as tl
    base.SCALE = tl.constexpr(7)
    assert key(base) != k
    base.SCALE = tl.constexpr(2)
    assert key(base) == k


def test_build_key_reads_the_native_build_ids(monkeypatch):
    from tessera import _core
    bid = cache._elf_build_id(_core._native().__file__)
    assert len(bid) in (40, 64) and int(bid, 16) >= 0
    # Computed afresh (not through the lru_cache), the key is stable...
    fresh = cache.build_key.__wrapped__
    assert fresh() == fresh() == cache.build_key()
    # ...and another native build gives another key.
    real = _core._native()

    class OtherBuild:
        __file__ = real.__file__

        @staticmethod
        def version():
            return real.version() + "+other"
    monkeypatch.setattr(_core, "_native", lambda: OtherBuild)
    assert fresh() != cache.build_key()


def test_a_fifo_in_place_of_an_entry_does_not_block(tmp_path, cache_dir, caplog):
    """A FIFO where an entry should be is reported and replaced by the compiled entry; reading it
    must not wait for a writer (the test would hang)."""
    mod = _module(tmp_path, "fifo_mod")
    k = tessera.compile(mod.kern, signature=mod.SIG, constexprs={"BLOCK": 128}, target="cuda:90")
    (entry,) = [os.path.join(r, f) for r, _, fs in os.walk(cache_dir) for f in fs if f.endswith(".tsk")]
    os.unlink(entry)
    os.mkfifo(entry)
    mod.kern.cache.clear()
    with caplog.at_level(logging.WARNING, logger="tessera.cache"):
        again = tessera.compile(mod.kern, signature=mod.SIG, constexprs={"BLOCK": 128}, target="cuda:90")
    assert again.metadata["cache"] == "miss" and again.asm["ptx"] == k.asm["ptx"]
    assert "not a regular file" in caplog.text
    assert os.path.isfile(entry) and not os.path.islink(entry)


def test_stale_temporary_files_are_removed(tmp_path, cache_dir):
    """A .tmp file left by a writer that died is removed by the next write in its folder."""
    mod = _module(tmp_path, "tmp_mod")
    tessera.compile(mod.kern, signature=mod.SIG, constexprs={"BLOCK": 128}, target="cuda:90")
    (folder,) = {r for r, _, fs in os.walk(cache_dir) for f in fs if f.endswith(".tsk")}
    stale, fresh = os.path.join(folder, ".dead.stale.tmp"), os.path.join(folder, ".live.fresh.tmp")
    for p in (stale, fresh):
        open(p, "wb").close()
    old = time.time() - 2 * cache.DiskCache.STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    cache.DiskCache(cache_dir).put(os.path.basename(folder) + "f" * 62, {"ptx": "x"}, {})
    assert not os.path.exists(stale) and os.path.exists(fresh)


WORKER = textwrap.dedent('''
    import hashlib, json, os, sys, time
    sys.path[:0] = [{python!r}, {mods!r}]
    import tessera
    import cache_conc as mod
    open(os.path.join({sync!r}, "ready.%d" % os.getpid()), "w").close()
    while not os.path.exists(os.path.join({sync!r}, "go")):
        time.sleep(0.002)
    k = tessera.compile(mod.kern, signature=mod.SIG, constexprs={{"BLOCK": 128}}, target="cuda:90")
    print(json.dumps({{"cache": k.metadata["cache"],
                      "asm": {{s: hashlib.sha256(v if isinstance(v, bytes) else v.encode()).hexdigest()
                              for s, v in k.asm.items()}}}}))
''')


def run_workers(script, sync, envs):
    """Starts WORKER `script` once per environment, lets them compile at the same moment (the
    "go" file in `sync`) and returns each one's JSON result."""
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, text=True) for env in envs]
    deadline = time.time() + 120
    while len([f for f in os.listdir(sync) if f.startswith("ready.")]) < len(procs):
        assert time.time() < deadline, "workers did not start"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs if p.poll() is not None]
        time.sleep(0.01)
    (sync / "go").write_text("")
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def test_eight_processes_compiling_at_once(tmp_path, cache_dir):
    script, sync = worker_script(tmp_path)
    env = dict(os.environ, TESSERA_CACHE_DIR=str(cache_dir))
    env.pop("TESSERA_CACHE_DISABLE", None)
    results = run_workers(script, sync, [env] * 8)
    print("cache results:", sorted(r["cache"] for r in results))
    assert "miss" in {r["cache"] for r in results}
    assert len({json.dumps(r["asm"], sort_keys=True) for r in results}) == 1
    files = _entries(cache_dir)
    assert len(files) == 1 and files[0].endswith(".tsk"), files  # no temporary file left behind
    # A later process loads the entry, unchanged.
    (sync / "go").write_text("")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    later = json.loads(p.stdout.strip().splitlines()[-1])
    assert later["cache"] == "hit" and later["asm"] == results[0]["asm"]
    with open(files[0], "rb") as f:
        data = f.read()
    assert data[:8] == cache.MAGIC and hashlib.sha256(data[40:]).digest() == data[8:40]


def test_key_covers_dtype_globals_and_class_attributes(tmp_path, cache_dir):
    (tmp_path / "cache_k8.py").write_text(textwrap.dedent('''
        import tessera
        import tessera.language as tl

        ACC = tl.float16

        class Cfg:
            FACTOR = tl.constexpr(2)

        @tessera.jit
        def kern(x, y):
            tl.store(y, (tl.load(x) * Cfg.FACTOR).to(ACC))
    '''))
    sys.path.insert(0, str(tmp_path))
    try:
        import cache_k8 as m
    finally:
        sys.path.pop(0)
    import tessera.language as tl
    k0, _ = cache.dependencies(m.kern)
    m.ACC = tl.float32
    k1, _ = cache.dependencies(m.kern)
    m.Cfg.FACTOR = tl.constexpr(3)
    k2, _ = cache.dependencies(m.kern)
    assert len({k0, k1, k2}) == 3
