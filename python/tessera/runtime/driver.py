"""`tessera.runtime.driver`, the shape of triton.runtime.driver that ported code uses:
`driver.active.get_current_target()`, `driver.active.get_active_torch_device()`,
`driver.active.utils.get_device_properties(device)`, and the current device and stream.

`driver.active` is the launch backend's driver when it can launch kernels on this machine (also
with TESSERA_INTERPRET=1, as in Triton); otherwise the interpreter's, whose target is
GPUTarget("cpu", 0, 1) and whose torch device is the CPU, so code that asks for "the device" runs
in the interpreter."""

import collections
import weakref

from .. import backends

GPUTarget = collections.namedtuple("GPUTarget", ["backend", "arch", "warp_size"])


def _torch():
    import torch  # noqa: PLC0415  (only when a torch device is asked for)
    return torch


class _Utils:
    def __init__(self, driver):
        self._driver = driver

    def get_device_properties(self, device):
        return self._driver._device_properties(device)


class Driver:
    """The driver of one launch backend."""

    def __init__(self, backend):
        self.backend = backend
        self.utils = _Utils(self)
        self._properties = {}

    @staticmethod
    def _ordinal(device):
        if device is None:
            return None
        index = getattr(device, "index", device)
        return index

    def is_active(self):
        return self.backend.is_available()

    def get_current_device(self):
        return self.backend.current_device()

    def set_current_device(self, device):
        torch = _torch()
        getattr(torch, self.backend.torch_device_type()).set_device(device)

    def get_current_stream(self, device=None):
        device = self.get_current_device() if device is None else self._ordinal(device)
        return self.backend.current_stream(device)

    def get_current_target(self):
        target = self.backend.current_target(self.get_current_device())
        _, arch = backends.for_target(target)
        return GPUTarget(self.backend.name, arch, self._device_properties(self.get_current_device())["warpSize"])

    def get_active_torch_device(self):
        return _torch().device(self.backend.torch_device_type(), self.get_current_device())

    def get_device_interface(self):
        return getattr(_torch(), self.backend.torch_device_type())

    def _device_properties(self, device):
        # A device's properties do not change while the process runs, and querying them costs
        # about a millisecond (one driver call per attribute): code that asks on every call (the
        # softmax tutorial, through get_current_target) gets a copy of the first answer.
        device = self.get_current_device() if device is None else self._ordinal(device)
        props = self._properties.get(device)
        if props is None:
            props = self._properties[device] = dict(self.backend.device_properties(device))
        return dict(props)

    def __repr__(self):
        return f"<tessera driver: {self.backend.name}>"


class InterpreterDriver(Driver):
    """The driver when kernels run in the interpreter on the CPU."""

    def __init__(self):
        self.backend = None
        self.utils = _Utils(self)

    def is_active(self):
        return True

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        pass

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return GPUTarget("cpu", 0, 1)

    def get_active_torch_device(self):
        return _torch().device("cpu")

    def get_device_interface(self):
        return None

    def _device_properties(self, device):
        raise RuntimeError("the interpreter runs kernels on the CPU: there are no GPU device properties "
                           "(no GPU backend can launch kernels on this machine)")

    def __repr__(self):
        return "<tessera driver: interpreter>"


class _Active:
    """driver.active: resolved when used, so it follows the launch backend and TESSERA_INTERPRET."""

    def _resolve(self):
        if self._override is not None:
            return self._override
        backend = backends.launch_backend()
        # Interpreting on a GPU machine, the GPU is still the device (as in Triton).
        if backend is not None and backend.is_available():
            drv = self._drivers.get(backend)
            if drv is None:  # one Driver per backend, so its device-property cache lasts
                drv = self._drivers[backend] = Driver(backend)
            return drv
        return InterpreterDriver()

    _override = None
    _drivers = weakref.WeakKeyDictionary()

    def __getattr__(self, name):
        return getattr(self._resolve(), name)

    def __repr__(self):
        return repr(self._resolve())


class DriverConfig:
    def __init__(self):
        self.active = _Active()
        self.default = self.active

    def set_active(self, driver):
        self.active._override = driver

    def reset_active(self):
        self.active._override = None


driver = DriverConfig()
