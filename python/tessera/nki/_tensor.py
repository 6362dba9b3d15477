"""Tensors in HBM for tessera.nki (kernel arguments and outputs) and their indexed accesses."""

import numbers

from .. import language as tl
from ..language import core


class _Access:
    """A tensor in HBM indexed by tiles: the element addresses a load or store touches."""

    def __init__(self, tensor, ptr, checks=()):
        self.tensor = tensor
        self.ptr = ptr
        self.checks = checks  # (dimension, index tile) of the tiles that must lie inside it

    def check(self, mask, what):
        """IndexError when an element the access touches (where `mask` holds) has an index outside
        its dimension: a wrong index must not reach a neighbouring row."""
        import numpy as np

        from ..interpreter.builder import InterpreterBuilder
        if not isinstance(core.current_builder(), InterpreterBuilder):
            return  # compiled (tessera.nki.compile): like a GPU kernel's, masks are the kernel's job
        for d, idx in self.checks:
            n = self.tensor.shape[d]
            bad = (idx < 0) | (idx >= n)
            if mask is not None:
                bad = bad & mask
            flags = np.asarray(bad.handle)
            if flags.any():
                vals = np.broadcast_to(np.asarray(idx.handle), flags.shape)[flags]
                raise IndexError(f"nl.{what} of {self.tensor.name}: index {int(vals[0])} is outside dimension {d} "
                                 f"(size {n}); mask it or keep the tile inside")



class Tensor:
    """A tensor in HBM: a kernel argument or an output made with nl.ndarray(..., shared_hbm).
    `t[i, j]` with index tiles, integers and constant slices selects elements for load/store."""

    def __init__(self, name, array, ptr, shape, strides, dtype):
        self.name = name
        self.array = array          # the host array (numpy or torch) it lives in
        self._ptr = ptr             # a pointer scalar into the interpreter's memory
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.dtype = dtype          # a tessera.language dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"nki tensor {self.name} {list(self.shape)} {self.dtype}"

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        dots = [i for i, k in enumerate(key) if k is Ellipsis]  # (identity: tiles compare elementwise)
        if len(dots) > 1:
            raise IndexError(f"{self.name}[...]: at most one ellipsis")
        if dots:
            i = dots[0]
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) > self.ndim:
            raise IndexError(f"{self.name} has {self.ndim} dimensions, indexed with {len(key)}")
        key = key + (slice(None),) * (self.ndim - len(key))
        slices = [d for d, k in enumerate(key) if isinstance(k, slice)]
        tiles = [d for d, k in enumerate(key) if isinstance(k, core.tensor)]
        if slices and tiles:
            raise IndexError(f"{self.name}[...]: index with tiles (nl.arange, nl.mgrid) or with slices, not both "
                             f"in one access; make the slices tiles (nl.arange(n)[None, :] ...)")
        offset = None
        checks = []
        n_slices = len(slices)
        for d, k in enumerate(key):
            if isinstance(k, slice):
                start, stop, step = k.indices(self.shape[d])
                if step != 1:
                    raise IndexError(f"{self.name}[...]: slices with a step are not supported")
                idx = tl.arange(0, stop - start) + start if stop > start else None
                if idx is None:
                    raise IndexError(f"{self.name}[...]: empty slice in dimension {d}")
                pos = slices.index(d)
                for e in range(n_slices):
                    if e != pos:
                        idx = tl.expand_dims(idx, e)
            elif isinstance(k, numbers.Integral):
                idx = int(k) + self.shape[d] if k < 0 else int(k)  # (negative: from the end, as numpy)
                if not 0 <= idx < self.shape[d]:
                    raise IndexError(f"{self.name}[...]: index {int(k)} is outside dimension {d} (size "
                                     f"{self.shape[d]})")
            elif isinstance(k, core.tensor):
                idx = k
                checks.append((d, k))
            else:
                raise IndexError(f"{self.name}[...]: cannot index with {type(k).__name__} (index tiles, integers "
                                 f"or constant slices)")
            term = idx * self.strides[d] if self.strides[d] != 1 else idx
            offset = term if offset is None else offset + term
        if not isinstance(offset, core.tensor):
            offset = tl.full((), int(offset), core.int64)
        return _Access(self, self._ptr + offset, tuple(checks))
