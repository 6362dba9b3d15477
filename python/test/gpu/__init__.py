"""GPU tests (marked `gpu`): they run where an NVIDIA GPU and its driver are, and skip elsewhere."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gpu_marks():
    """`pytestmark` of a GPU test module: the `gpu` marker, and a skip without a GPU."""
    import torch
    from tessera.compiler import compiler
    return [pytest.mark.gpu,
            pytest.mark.skipif(not (torch.cuda.is_available() and compiler.gpu_backend_available("cuda")),
                               reason="needs an NVIDIA GPU and its driver")]
