"""Compile-only tests of intra-kernel profiling scopes (tessera.profiler.language, no GPU): with
instrumentation on (TESSERA_PROFILE_SCOPES=1, as a session of mode "scopes" does) a kernel's
scopes become prof.record ops, a buffer in the shared memory left free, records in PTX and a
hidden profile-buffer parameter, and kernel.metadata["profile"] describes the buffer; with it
off the code is that of the kernel without scopes. Scope mistakes are CompilationErrors at the
user's line."""
import re

import pytest

import tessera
import tessera.language as tl
import tessera.profiler.language as pl
from tessera import CompilationError


@pytest.fixture
def scopes_on(monkeypatch):
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")


@tessera.jit
def scoped_add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    with pl.scope("load"):
        x = tl.load(x_ptr + offs, mask=offs < n)
    pl.enter_scope("compute")
    x = x * 2.0 + 1.0
    pl.exit_scope("compute")
    with pl.scope("store"):
        tl.store(y_ptr + offs, x, mask=offs < n)


@tessera.jit
def plain_add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    x = x * 2.0 + 1.0
    tl.store(y_ptr + offs, x, mask=offs < n)


SIG = {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "n": "i32"}


def compile_add(kernel=scoped_add, target="cuda:90", **kw):
    return tessera.compile(kernel, signature=SIG, constexprs={"BLOCK": 1024}, target=target, **kw)


def _code(ptx, name):
    """PTX without its debug lines and with the kernel's name neutral."""
    lines = [ln for ln in ptx.splitlines() if not ln.lstrip().startswith((".loc", ".file", "//"))]
    text = "\n".join(lines)
    text = re.sub(r"\.section\s+\.debug\w*\s*\{.*?\n\s*\}", "", text, flags=re.S)
    return text.replace(name, "KERNEL")


def _function(ptx, name):
    """The text of PTX function `name`'s definition (the last line naming it as `name(`, after any
    declaration), up to the next function or the end."""
    last = [m.start() for m in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\(", ptx)][-1]
    start = ptx.rindex("\n", 0, last) + 1
    ends = [m.start() for m in re.finditer(r"^(\.visible )?\.(func|entry)", ptx[start + 1:], flags=re.M)]
    return ptx[start:start + 1 + ends[0]] if ends else ptx[start:]


def test_scopes_off_compile_to_nothing():
    k, ref = compile_add(), compile_add(plain_add)
    assert "profile" not in k.metadata and "prof." not in k.asm["ttir"]
    assert _code(k.asm["ptx"], "scoped_add") == _code(ref.asm["ptx"], "plain_add")
    assert k.metadata["shared"] == ref.metadata["shared"]


def test_scopes_on_become_records(scopes_on):
    k = compile_add()
    ttir, ptx, meta = k.asm["ttir"], k.asm["ptx"], k.metadata
    assert ttir.count('prof.record start "load"') == 1 and ttir.count('prof.record end "store"') == 1
    prof = meta["profile"]
    assert [s["name"] for s in prof["scopes"]] == ["load", "compute", "store"]
    assert all(s["function"] == "scoped_add" and s["file"].endswith("test_profile_compile.py") for s in prof["scopes"])
    assert prof["scopes"][1]["line"] == prof["scopes"][0]["line"] + 2
    # 4 warps writing at most 6 records each: rings of 8 (whole 32-byte sectors), after a header
    # of 32 bytes and counts padded to 32
    assert prof["num_warps"] == 4 and prof["records_per_warp"] == 8 and prof["bytes_per_program"] == 64 + 4 * 8 * 8
    assert prof["metric"] == "cycle" and meta["shared"] >= 320
    # the profile buffer: one more .param after the 3 arguments
    assert "scoped_add_param_3" in ptx and "scoped_add_param_4" not in ptx
    assert ptx.count("%globaltimer") == 2 and "%smid" in ptx
    # 6 records, each a clock read and a predicated two-word shared store (plus entry and exit)
    assert ptx.count("%clock;") >= 6 + 2
    assert len(re.findall(r"@%p\d+ st\.shared\.v2\.b32", ptx)) >= 6
    # the exit: a call of the noinline flush, which holds the barrier and the copy (the kernel
    # itself reads no program count, the flush's linear program index)
    kernel, flush = _function(ptx, "scoped_add"), _function(ptx, "__tessera_prof_flush")
    assert "call.uni __tessera_prof_flush" in kernel and "bar.sync" not in kernel and "%nctaid" not in kernel
    assert "bar.sync" in flush and "%nctaid.x" in flush and "st.global" in flush


def test_instrumentation_is_part_of_the_key(monkeypatch):
    off = compile_add()
    monkeypatch.setenv("TESSERA_PROFILE_SCOPES", "1")
    on = compile_add()
    assert "profile" not in off.metadata and "profile" in on.metadata


def test_metric_and_buffer_size_from_the_environment(scopes_on, monkeypatch):
    monkeypatch.setenv("TESSERA_PROFILE_METRIC", "time")
    monkeypatch.setenv("TESSERA_PROFILE_BUFFER_BYTES", "2048")
    prof = compile_add().metadata["profile"]
    assert prof["metric"] == "time" and prof["records_per_warp"] == 60 and prof["bytes_per_program"] == 1984
    monkeypatch.setenv("TESSERA_PROFILE_METRIC", "instructions")
    with pytest.raises(ValueError, match="TESSERA_PROFILE_METRIC"):
        compile_add()


@tessera.jit(noinline=True)
def scoped_helper(x_ptr, offs, n):
    with pl.scope("helper_load"):
        v = tl.load(x_ptr + offs, mask=offs < n)
    return v


@tessera.jit
def calls_scoped_helper(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    with pl.scope("kernel"):
        v = scoped_helper(x_ptr, offs, n)
        tl.store(y_ptr + offs, v, mask=offs < n)


def test_scopes_in_noinline_functions(scopes_on):
    k = compile_add(calls_scoped_helper)
    prof = k.metadata["profile"]
    assert {s["name"]: s["function"] for s in prof["scopes"]} == {"helper_load": "scoped_helper",
                                                                  "kernel": "calls_scoped_helper"}
    ptx = k.asm["ptx"]
    helper = _function(ptx, "scoped_helper")
    # the callee records into the kernel's rings: clock reads and shared stores, no buffer argument
    assert "%clock;" in helper and "st.shared.v2.b32" in helper and "%globaltimer" not in helper


def test_amd_cdna_compiles_scopes(scopes_on):
    k = compile_add(target="hip:gfx942")
    assert "s_memtime" in k.asm["amdgcn"] and "s_memrealtime" in k.asm["amdgcn"]
    assert k.metadata["profile"]["num_warps"] == 4


def _error(kernel, match):
    with pytest.raises(CompilationError, match=match) as e:
        tessera.compile(kernel, signature={"x_ptr": "*fp32"}, target="cuda:90")
    return e.value


def test_unmatched_scopes_are_errors_at_the_line(scopes_on):
    @tessera.jit
    def unended(x_ptr):
        pl.enter_scope("a")
        tl.store(x_ptr, 1.0)

    err = _error(unended, "scope 'a' is still open when the function returns")
    assert err.src_line.strip() == 'pl.enter_scope("a")'

    @tessera.jit
    def crossed(x_ptr):
        pl.enter_scope("a")
        pl.enter_scope("b")
        pl.exit_scope("a")
        pl.exit_scope("b")

    _error(crossed, "ends scope 'a' while scope 'b'")

    @tessera.jit
    def one_branch(x_ptr):
        v = tl.load(x_ptr)
        if v > 0:
            pl.enter_scope("a")
        pl.exit_scope("a")

    _error(one_branch, "leave different profiling scopes open")


def test_scope_syntax_errors():
    @tessera.jit
    def returns_inside(x_ptr):
        with pl.scope("a"):
            return

    _error(returns_inside, "return inside profiling scope 'a'")

    @tessera.jit
    def other_with(x_ptr):
        with tl.program_id(0):
            tl.store(x_ptr, 1.0)

    _error(other_with, "not supported in kernels except around a profiling scope")

    @tessera.jit
    def bad_name(x_ptr):
        pl.enter_scope(3)
        pl.exit_scope(3)

    _error(bad_name, "name must be a str")


@tessera.jit
def scoped_loop(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(ITERS):
        with pl.scope("step"):
            acc += tl.load(x_ptr + offs + i * BLOCK, mask=offs < n)
    for i in range(0, n, BLOCK):  # a trip count known only at run time, no records inside
        acc += 1.0
    tl.store(y_ptr + offs, acc, mask=offs < n)


@tessera.jit
def scoped_dynamic_loop(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n, BLOCK):
        with pl.scope("step"):
            acc += tl.load(x_ptr + offs + i, mask=offs + i < n)
    tl.store(y_ptr + offs, acc, mask=offs < n)


def test_rings_are_sized_by_the_records_a_warp_can_write(scopes_on):
    """A loop of constant trip count multiplies its records (5 x 2 = 10, rounded up to 12); one whose
    trip count is known only at run time makes the rings as large as the default allows (16 KiB,
    a power of two records a warp: 512 for 4 warps), their slots a count's low bits."""
    k = tessera.compile(scoped_loop, signature=SIG, constexprs={"ITERS": 5, "BLOCK": 256}, target="cuda:90")
    assert k.metadata["profile"]["records_per_warp"] == 12
    k = tessera.compile(scoped_dynamic_loop, signature=SIG, constexprs={"BLOCK": 256}, target="cuda:90")
    assert k.metadata["profile"]["records_per_warp"] == 512 and k.metadata["profile"]["bytes_per_program"] == 16448
    kernel = _function(k.asm["ptx"], "scoped_dynamic_loop")
    assert "selp" not in kernel[kernel.index("%clock"):]  # no wrap test


@tessera.jit
def scoped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    offs_m = pid // npn * BM + tl.arange(0, BM)
    offs_n = pid % npn * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        with pl.scope("load"):
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        with pl.scope("dot"):
            acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    with pl.scope("store"):
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@pytest.mark.parametrize("bn", [128, 256])
def test_records_in_a_wgmma_loop_keep_its_pipeline(scopes_on, bn):
    # Records in the K loop of a Hopper matmul: the wait after the loop is only on the path where
    # the loop ran, so ptxas keeps the wgmma pipeline (no C7515/C7514 serialization warning).
    from tessera.backends import nvidia
    k = tessera.compile(scoped_matmul, signature={"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16",
                                                  "M": "i32:16", "N": "i32:16", "K": "i32:16"},
                        constexprs={"BM": 128, "BN": bn, "BK": 64}, target="cuda:90", num_warps=8, num_stages=3)
    ttgir = k.asm["ttgir"]
    after_loop = ttgir[ttgir.index("prof.record end \"dot\""):]
    assert re.search(r"scf\.if .*\n\s*%\S+ = ttng\.warp_group_dot_wait \S+ \{pendings = 0", after_loop)
    ptxas = nvidia.find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas not installed: the TTGIR was checked")
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        src = f"{d}/k.ptx"
        with open(src, "w") as f:
            f.write(k.asm["ptx"])
        out = subprocess.run([ptxas, "-arch=sm_90a", "-v", src, "-o", f"{d}/k.cubin"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "C7515" not in out.stderr and "C7514" not in out.stderr, out.stderr
