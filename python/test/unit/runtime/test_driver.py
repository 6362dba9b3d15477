"""tessera.runtime.driver, shaped like triton.runtime.driver: `driver.active` follows the launch
backend (its target, torch device and device properties) and, where no backend can launch, is the
interpreter's (the CPU)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
from tessera import backends  # noqa: E402
from tessera.runtime import driver  # noqa: E402
from tessera.runtime.driver import GPUTarget, InterpreterDriver  # noqa: E402


class FakeGpu(backends.Backend):
    name = "fakegpu"

    def parse_arch(self, arch):
        return int(arch)

    def is_available(self):
        return True

    def load(self, kernel, device):
        return None

    def current_device(self):
        return 1

    def current_target(self, device):
        return self.target(7 + device)

    def device_properties(self, device):
        return {"max_shared_mem": 1000 + device, "max_num_regs": 65536, "multiprocessor_count": 3,
                "warpSize": 16, "sm_clock_rate": 1, "mem_clock_rate": 2, "mem_bus_width": 3}


@pytest.fixture
def fake():
    b = backends.register(FakeGpu())
    backends.set_active("fakegpu")
    try:
        yield b
    finally:
        backends.set_active(None)
        backends.unregister("fakegpu")


def test_same_object_as_triton_path():
    import tessera.runtime
    assert tessera.runtime.driver is driver is tessera.driver


def test_active_follows_the_launch_backend(fake):
    a = driver.active
    assert a.get_current_target() == GPUTarget("fakegpu", 8, 16)
    assert a.get_current_target().backend == "fakegpu"
    assert a.get_current_device() == 1
    assert a.get_active_torch_device() == torch.device("cuda", 1)
    props = a.utils.get_device_properties(0)
    assert props["max_shared_mem"] == 1000 and props["multiprocessor_count"] == 3
    assert a.utils.get_device_properties(torch.device("cuda", 2))["max_shared_mem"] == 1002


@pytest.mark.skipif(backends.available(), reason="a GPU backend can launch here")
def test_without_a_gpu_the_interpreter_is_the_driver():
    a = driver.active
    assert a.get_current_target() == GPUTarget("cpu", 0, 1)
    assert a.get_active_torch_device() == torch.device("cpu")
    with pytest.raises(RuntimeError, match="no GPU device properties"):
        a.utils.get_device_properties(0)


def test_set_active_overrides(fake):
    driver.set_active(InterpreterDriver())
    try:
        assert driver.active.get_current_target().backend == "cpu"
    finally:
        driver.reset_active()
    assert driver.active.get_current_target().backend == "fakegpu"


def test_device_properties_are_queried_once_per_device(fake, monkeypatch):
    # Querying costs ~1 ms on a real GPU; Triton code asks on every call (is_hip() through
    # get_current_target()). Each device is asked once, and callers get copies.
    calls = []
    real = FakeGpu.device_properties

    def counting(self, device):
        calls.append(device)
        return real(self, device)

    monkeypatch.setattr(FakeGpu, "device_properties", counting)
    a = driver.active
    for _ in range(5):
        a.get_current_target()
        a.utils.get_device_properties(0)
    assert sorted(set(calls)) == [0, 1] and len(calls) == 2
    p = a.utils.get_device_properties(0)
    p["max_shared_mem"] = -1
    assert a.utils.get_device_properties(0)["max_shared_mem"] == 1000
