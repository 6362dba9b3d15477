"""A backend registered from outside Tessera: its target, options, stages, specialization property and
launch path are used by tessera.compile and by kernel[grid](...), with nothing else changed (no GPU:
the fake backend runs on the CPU and launches through a Python callable)."""

import dataclasses

import pytest
import torch

import tessera
import tessera.language as tl
from tessera import backends
from tessera.backends import specialization
from tessera.compiler import compiler


@dataclasses.dataclass(frozen=True)
class FakeOptions(backends.Options):
    """The base options and one of the fake backend's own."""
    fake_level: int = 1

    def validate(self):
        super().validate()
        self.check("fake_level", lambda v: isinstance(v, int) and not isinstance(v, bool), "an int")
        self.check("fake_level", lambda v: 0 <= v <= 3, "in 0..3", ValueError)


class Odd(specialization.Property):
    """Odd integers: computed in Python at each launch, becomes the tt.fake_odd argument attribute."""
    name = "odd"

    def compute(self, value):
        return 1 if isinstance(value, int) and value % 2 else 0

    def attrs(self, leaf, bits, is_ptr):
        return {"tt.fake_odd": "1 : i32"} if bits and not is_ptr else {}


class FakeBackend(backends.Backend):
    name = "fake"
    Options = FakeOptions
    host_device = 0  # the fake device is the host: CPU tensors are its memory
    specialization = specialization.Specialization("fake", [specialization.Divisibility((16,)),
                                                            specialization.EqualsOne(), Odd()])

    def __init__(self):
        self.launches = []
        self.loads = []

    def parse_arch(self, arch):
        if arch != "1":
            raise ValueError(f"the fake backend has one architecture, 1, not {arch!r}")
        return 1

    def stages(self, options):
        def fakebin(ttir, metadata):
            assert ttir.startswith("module") or "tt.func" in ttir
            metadata["fake_level"] = options.fake_level
            return b"FAKE:" + metadata["name"].encode()
        return {"fakebin": fakebin}

    def toolchain_key(self):
        return {"fake-assembler": "1.0"}

    def is_available(self):
        return True

    def current_target(self, device):
        return "fake:1"

    def load(self, kernel, device):
        self.loads.append((kernel.name, device))
        return kernel.asm["fakebin"]

    def launch_entry(self, kernel, loaded, num_params, globals_):
        def launch(grid, stream, args):
            self.launches.append((loaded, grid, stream, args))
        return self.make_launch_entry(kernel, num_params, globals_, launch=launch)


@pytest.fixture
def fake():
    backend = backends.register(FakeBackend())
    try:
        yield backend
    finally:
        backends.set_active(None)
        backends.unregister("fake")
    assert "fake" not in backends.names()


@tessera.jit
def scale(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) * 2, mask=m)


SIG = {"x": "*fp32", "out": "*fp32", "n": "i32"}


def test_compile_uses_the_registered_backend(fake):
    k = tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="fake:1", fake_level=2)
    assert list(k.asm) == ["ttir", "fakebin"]
    assert k.asm["fakebin"] == b"FAKE:scale"
    assert k.metadata["backend"] == "fake" and k.metadata["arch"] == 1 and k.metadata["fake_level"] == 2
    # Its options are checked by its Options class: the extra one, the base ones, unknown names.
    with pytest.raises(ValueError, match="fake_level=7 is not valid"):
        tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="fake:1", fake_level=7)
    with pytest.raises(ValueError, match="num_warps=3 is not valid"):
        tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="fake:1", num_warps=3)
    with pytest.raises(TypeError, match="unknown option\\(s\\) fast_math"):
        tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="fake:1", fast_math=True)
    with pytest.raises(ValueError, match="one architecture"):
        tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="fake:2")
    # Other backends do not know the fake option.
    with pytest.raises(TypeError, match="unknown option\\(s\\) fake_level"):
        tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="hip:gfx942", fake_level=2)


def test_registry_lookups(fake):
    assert backends.for_target("fake:1") == (fake, 1)
    assert backends.names()[-1] == "fake"
    with pytest.raises(ValueError, match="known: cuda, hip, fake"):
        backends.for_target("tpu:1")
    with pytest.raises(ValueError, match="already registered"):
        backends.register(FakeBackend())
    assert compiler.parse_target("fake:1") == ("fake", 1)


def test_amd_targets_compile_to_code_objects():
    k = tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="hip:gfx942")
    assert list(k.asm) == ["ttir", "ttgir", "llir", "amdgcn", "hsaco"]
    assert k.asm["hsaco"][:4] == b"\x7fELF"


def test_launch_goes_through_the_backend(fake, monkeypatch):
    monkeypatch.delenv("TESSERA_INTERPRET", raising=False)
    backends.set_active("fake")
    assert backends.launch_backend() is fake and scale._backend is fake  # live kernels follow
    x, out = torch.arange(100, dtype=torch.float32), torch.zeros(100)
    k = scale[(2,)](x, out, 99, BLOCK=64)
    assert fake.loads == [("scale", 0)] and k.loaded == b"FAKE:scale"
    assert k.metadata["target"] == "fake:1" and k.metadata["device"] == 0
    ((loaded, grid, stream, args),) = fake.launches
    assert loaded == b"FAKE:scale" and tuple(grid) == (2, 1, 1) and stream == 0
    assert args[0] is x and args[1] is out and args[2] == 99
    # The fake property reached the TTIR: n = 99 is odd.
    head = next(line for line in k.asm["ttir"].splitlines() if "tt.func" in line)
    assert "%arg2: i32 {tt.fake_odd = 1 : i32}" in head
    # An even n is another specialization, without the attribute; the same n launches again.
    k2 = scale[(2,)](x, out, 98, BLOCK=64)
    assert k2 is not k and "tt.fake_odd" not in k2.asm["ttir"]
    assert scale[(3,)](x, out, 97, BLOCK=64) is k
    assert len(fake.loads) == 2 and [g for _, g, _, _ in fake.launches][-1] == (3, 1, 1)


def test_kernels_return_to_the_default_backend():
    """After the fake backend is gone, kernels launch on the first registered backend again."""
    assert scale._backend is backends.get(backends.names()[0])


def test_a_subclass_overrides_stages():
    """Stage override: subclass the backend, change the dict super().stages() returns, register the
    subclass in its place. The disk cache key covers the stage functions, so nothing the original
    stages produced is reused."""
    original = backends.get("cuda")

    class Patched(type(original)):
        def stages(self, options):
            stages = super().stages(options)
            make_ttgir, make_ptx = stages["ttgir"], stages["ptx"]
            stages["ttgir"] = lambda src, metadata: make_ttgir(src, metadata) + "\n// ttgir seen\n"
            stages["ptx"] = lambda src, metadata: make_ptx(src, metadata) + "\n// patched\n"
            stages["sass"] = lambda cubin, metadata: "SASS of " + metadata["name"]
            return stages

    plain = tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90")
    backends.register(Patched(), replace=True)
    try:
        k = tessera.compile(scale, signature=SIG, constexprs={"BLOCK": 64}, target="cuda:90")
    finally:
        backends.register(original, replace=True)
    assert k.metadata["cache"] != "hit"
    assert k.asm["ttgir"].endswith("// ttgir seen\n") and k.asm["ptx"].endswith("// patched\n")
    assert k.asm["llir"] == plain.asm["llir"]  # lowered again from the changed TTGIR text
    assert k.metadata["shared"] == plain.metadata["shared"]
    if "cubin" in plain.asm:  # ptxas installed: the stage after it ran too
        assert k.asm["sass"] == "SASS of scale"
    assert backends.get("cuda") is original


def test_launch_options_match_the_launcher():
    """The launcher keys on the base Options fields, in order, then takes `stream`."""
    from tessera import _core
    assert len(backends.KEY_OPTIONS) == _core._native().LEAF_LAYOUT["key_options"]
    assert backends.LAUNCH_OPTIONS[-1] == "stream"
    with pytest.raises(TypeError, match="tessera.Config: unknown|num_warps='4' is not valid"):
        tessera.Config({}, num_warps="4")


@tessera.jit
def staged(x, out, n, num_stages: tl.constexpr):
    offs = tl.arange(0, 64)
    tl.store(out + offs, tl.load(x + offs) * num_stages, mask=offs < n)


def test_a_parameter_named_num_stages_is_also_the_option(fake, monkeypatch):
    """The C++ launcher binds `num_stages=` to the kernel's parameter and, as Triton does, uses it
    as the compile option too."""
    monkeypatch.delenv("TESSERA_INTERPRET", raising=False)
    backends.set_active("fake")
    x, out = torch.arange(64, dtype=torch.float32), torch.zeros(64)
    k = staged[(1,)](x, out, 64, num_stages=2)
    assert k.metadata["num_stages"] == 2 and k.metadata["constexprs"]["num_stages"] == 2
    assert "arith.mulf" in k.asm["ttir"]
