"""The base of Tessera's exceptions: `TritonError`, under the name Triton-ported code catches."""


class TritonError(Exception):
    """Base class of the errors Tessera raises for kernels: CompilationError (kernel code),
    OutOfResources (a kernel does not fit the GPU), DeviceError (a driver failure). Named as in
    Triton, so `except triton.TritonError` ports by changing the import."""
