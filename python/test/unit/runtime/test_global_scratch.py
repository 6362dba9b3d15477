"""Global scratch: tl.extra.global_scratch compiles to a ttg.global_scratch_alloc, the kernel gets a
hidden trailing pointer, the launcher asks the allocator set with tessera.set_allocator for
`grid size × bytes per program`, and the interpreter runs it (no GPU needed)."""

import pytest
import torch

import tessera
import tessera.language as tl
from tessera import _core
from tessera import backends
from tessera.backends import nvidia
from tessera.compiler.errors import CompilationError
from tessera.runtime import allocator


@tessera.jit
def via_scratch(x, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.extra.global_scratch(BLOCK * 4, 16).to(tl.pointer_type(tl.float32))
    t = tl.extra.global_scratch(BLOCK * 4, 128).to(tl.pointer_type(tl.float32))
    tl.store(s + offs, tl.load(x + pid * BLOCK + offs, mask=offs < n) * 2)
    tl.store(t + offs, tl.load(s + offs) + pid)
    tl.store(out + pid * BLOCK + offs, tl.load(t + offs), mask=offs < n)


SIG = {"x": "*fp32", "out": "*fp32", "n": "i32"}


def test_compiles_with_a_hidden_trailing_pointer():
    k = tessera.compile(via_scratch, signature=SIG, constexprs={"BLOCK": 64})
    assert "ttg.global_scratch_alloc" in k.asm["ttir"]
    # 256 bytes at 0, 256 bytes aligned to 128 at 256: 512 per program, aligned to 128.
    assert (k.metadata["global_scratch_size"], k.metadata["global_scratch_align"]) == (512, 128)
    define = next(line for line in k.asm["llir"].splitlines() if line.startswith("define"))
    assert define.count("ptr addrspace(1)") == 3 and "i32 %2, ptr addrspace(1) %3)" in define


def test_kernels_without_scratch_have_none():
    @tessera.jit
    def plain(x, n):
        tl.store(x, n.to(tl.float32))
    k = tessera.compile(plain, signature={"x": "*fp32", "n": "i32"})
    assert k.metadata["global_scratch_size"] == 0
    define = next(line for line in k.asm["llir"].splitlines() if line.startswith("define"))
    assert define.count("ptr addrspace(1)") == 1


def test_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.arange(256, dtype=torch.float32)
    out = torch.zeros(256)
    via_scratch[(4,)](x, out, 64, BLOCK=64)
    assert torch.equal(out, x * 2 + torch.arange(4).repeat_interleave(64))


@pytest.mark.parametrize("args, msg", [
    ((0, 16), "needs 1 to 2\\^31 - 1 bytes, got 0"),
    ((64, 12), "alignment must be a power of two, got 12"),
])
def test_bad_sizes_are_compilation_errors(args, msg):
    nbytes, align = args

    @tessera.jit
    def bad(x, NB: tl.constexpr, AL: tl.constexpr):
        p = tl.extra.global_scratch(NB, AL)
        tl.store(x, tl.load(p).to(tl.float32))
    with pytest.raises(CompilationError, match=msg):
        tessera.compile(bad, signature={"x": "*fp32"}, constexprs={"NB": nbytes, "AL": align})


class OnDevice(torch.Tensor):
    def get_device(self):
        return 0


def test_launcher_asks_the_allocator_for_grid_times_size(monkeypatch):
    """The allocator is called on the launch path, before the driver; without a GPU the launch
    then fails in the driver, which shows the call came first."""
    monkeypatch.delenv("TESSERA_INTERPRET", raising=False)
    x = torch.zeros(256).as_subclass(OnDevice)
    key, _ = via_scratch._specialize((x, x, 64), {"BLOCK": 64}, backends.launch_backend().specialization.config())
    marker = object()
    via_scratch._launch_cache[key] = _core._native().LaunchEntry(
        function=0, context=0, block=128, shared=0, num_params=3, kernel=marker, globals=[],
        scratch_size=512, scratch_align=128)
    calls = []
    tessera.set_allocator(lambda size, alignment, stream: (calls.append((size, alignment, stream)), 4096)[1])
    try:
        if tessera.compiler.compiler.gpu_backend_available("cuda"):
            pytest.skip("a GPU is present: the fake entry would be launched")
        with pytest.raises(nvidia.CudaError):
            via_scratch[(4, 2, 3)](x, x, 64, BLOCK=64, stream=7)
        assert calls == [(4 * 2 * 3 * 512, 128, 7)]
        # A zero-size grid launches nothing and allocates nothing.
        assert via_scratch[(0,)](x, x, 64, BLOCK=64, stream=7) is marker
        assert len(calls) == 1
    finally:
        tessera.set_allocator(None)
        via_scratch._clear_launch_cache()


def test_allocator_results_are_checked():
    tessera.set_allocator(lambda size, alignment, stream: "nope")
    try:
        with pytest.raises(TypeError, match="expected an object with data_ptr\\(\\) or an int address"):
            allocator.allocate(64, 16, 0)
    finally:
        tessera.set_allocator(None)
    tessera.set_allocator(lambda size, alignment, stream: 4100)
    try:
        with pytest.raises(ValueError, match="not aligned to 16 bytes"):
            allocator.allocate(64, 16, 0)
    finally:
        tessera.set_allocator(None)
    with pytest.raises(TypeError, match="expects a callable"):
        tessera.set_allocator(42)
    assert allocator.get_allocator() is allocator._default_allocator


@tessera.jit
def reverse_blocks(x, out, BLOCK: tl.constexpr):
    # Each element is read back by another thread: tl.debug_barrier orders the scratch accesses.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.extra.global_scratch(BLOCK * 4).to(tl.pointer_type(tl.float32))
    tl.store(s + offs, tl.load(x + pid * BLOCK + offs))
    tl.debug_barrier()
    tl.store(out + pid * BLOCK + offs, tl.load(s + (BLOCK - 1 - offs)))


def test_debug_barrier_lowers_to_bar_sync():
    k = tessera.compile(reverse_blocks, signature={"x": "*fp32", "out": "*fp32"}, constexprs={"BLOCK": 256})
    assert "ttg.barrier" in k.asm["ttir"]
    assert "bar.sync" in k.asm["ptx"] or "barrier.sync" in k.asm["ptx"]


def test_debug_barrier_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = torch.arange(512, dtype=torch.float32)
    out = torch.zeros(512)
    reverse_blocks[(2,)](x, out, BLOCK=256)
    assert torch.equal(out, x.view(2, 256).flip(1).reshape(-1))
