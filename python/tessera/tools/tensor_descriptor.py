"""`from tessera.tools.tensor_descriptor import TensorDescriptor` (as triton.tools.tensor_descriptor):
a kernel argument describing a tensor and the blocks a kernel loads and stores from it
(tessera.runtime.tensor_descriptor)."""

from ..runtime.tensor_descriptor import TensorDescriptor

__all__ = ["TensorDescriptor"]
