"""A bounds-checked memory model over the argument tensors of one launch.

Each argument tensor (torch CPU tensor or numpy array) gets a virtual base address
(k + 1) << 44; pointer values in the interpreter are plain int64 arrays of virtual
addresses, so pointer arithmetic is integer math. An access finds its argument from the
address (the nearest base, so small negative offsets still name the right argument),
checks that every accessed byte lies within the tensor's own extent (from its data
pointer to the last byte reachable through its strides) and reads/writes through a
zero-copy uint8 view of exactly those bytes: nothing outside argument tensors is ever
touched, and stores land in the caller's tensors.
"""

import ctypes
import os

import numpy as np

from . import hooks, numerics, source

SHIFT = 44
HALF = 1 << (SHIFT - 1)


class OutOfBoundsError(IndexError):
    """An unmasked load/store/atomic outside the argument tensor it points into."""

    def __init__(self, message, filename=None, lineno=None, pid=None, kind=None, arg_name=None,
                 element_offset=None, byte_offset=None):
        super().__init__(message)
        self.filename = filename
        self.lineno = lineno
        self.pid = pid
        self.kind = kind
        self.arg_name = arg_name
        self.element_offset = element_offset
        self.byte_offset = byte_offset
        self.bounds = None  # the argument's extent, described ("elements [0, 1024)", ...)


class Region:
    """One argument tensor: its virtual base, byte extent [lo, hi) around its data pointer."""

    def __init__(self, index, name, obj, elt, data_ptr, lo, hi, numel, readonly):
        self.index = index
        self.name = name
        self.obj = obj  # keeps the memory alive
        self.elt = elt
        self.itemsize = numerics.itemsize(elt)
        self.base = (index + 1) << SHIFT
        self.data_ptr = data_ptr  # the real address (alignment checks)
        self.lo, self.hi = lo, hi
        self.numel = numel
        self.readonly = readonly
        n = hi - lo
        if n > 0:
            buf = (ctypes.c_uint8 * n).from_address(data_ptr + lo)
            self.buf = np.ctypeslib.as_array(buf)
        else:
            self.buf = np.zeros(0, dtype=np.uint8)
        self._typed = {}

    def typed(self, sd):
        """The extent viewed as dtype `sd` (for aligned accesses)."""
        v = self._typed.get(sd)
        if v is None:
            n = (len(self.buf) // sd.itemsize) * sd.itemsize
            v = self.buf[:n].view(sd)
            self._typed[sd] = v
        return v

    def describe_extent(self):
        if self.hi - self.lo == self.numel * self.itemsize and self.lo == 0:
            return f"its {self.numel} elements"
        return (f"its extent ({self.numel} elements, bytes [{self.lo}, {self.hi}) reachable through "
                f"its strides)")


def _extent(shape, strides_bytes, itemsize):
    numel = 1
    for s in shape:
        numel *= int(s)
    if numel == 0:
        return 0, 0, 0
    lo = hi = 0
    for s, st in zip(shape, strides_bytes):
        span = (int(s) - 1) * int(st)
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi + itemsize, numel


class Memory:
    def __init__(self):
        self.regions = []
        self._bases = np.zeros(0, dtype=np.int64)
        self._los = np.zeros(0, dtype=np.int64)
        self._his = np.zeros(0, dtype=np.int64)
        # While a batch of programs runs (batch.py): a list that each write appends its region,
        # storage dtype, element indices (aligned) or byte offsets, alignment and the values it
        # overwrites to, so that the batch can be undone.
        self.undo_log = None
        # While a batch runs: the region index of each access resolved into one region (None for
        # several), so that its check can pass over accesses to memory nobody writes.
        self.resolved = None

    # ------------------------------------------------------------ registration
    def register(self, name, obj, elt):
        """Register a torch tensor or numpy array; returns its virtual base address."""
        if isinstance(obj, np.ndarray):
            isz = obj.dtype.itemsize
            lo, hi, numel = _extent(obj.shape, obj.strides, isz)
            ptr = obj.__array_interface__["data"][0]
            readonly = not obj.flags.writeable
        else:  # torch tensor
            isz = obj.element_size()
            lo, hi, numel = _extent(obj.shape, [st * isz for st in obj.stride()], isz)
            ptr = obj.data_ptr()
            readonly = False
        r = Region(len(self.regions), name, obj, elt, ptr, lo, hi, numel, readonly)
        self.regions.append(r)
        self._bases = np.array([x.base for x in self.regions], dtype=np.int64)
        self._los = np.array([x.lo for x in self.regions], dtype=np.int64)
        self._his = np.array([x.hi for x in self.regions], dtype=np.int64)
        return r.base

    def region_of(self, addr):
        k = ((int(addr) + HALF) >> SHIFT) - 1
        if 0 <= k < len(self.regions):
            return self.regions[k]
        return None

    # ------------------------------------------------------------ checks
    def _resolve(self, addrs, isz, kind, pid):
        """Region index and byte offset of each address; raises OutOfBoundsError. The region
        index is an int when every address lies in one region (the common case, checked from
        the smallest and largest address alone), else an array."""
        n = len(self.regions)
        if n and len(addrs):
            a_lo, a_hi = int(addrs.min()), int(addrs.max())
            k = ((a_lo + HALF) >> SHIFT) - 1
            if 0 <= k < n and k == ((a_hi + HALF) >> SHIFT) - 1:
                r = self.regions[k]
                if a_lo - r.base >= r.lo and a_hi - r.base + isz <= r.hi:
                    if self.resolved is not None:
                        self.resolved.append(k)
                    return k, addrs - r.base
        k = ((addrs + HALF) >> SHIFT) - 1
        valid = (k >= 0) & (k < n)
        ki = np.where(valid, k, 0) if n else np.zeros_like(k)
        if n == 0:
            bad = np.ones(addrs.shape, dtype=bool)
            boff = addrs
        else:
            boff = addrs - self._bases[ki]
            bad = ~valid | (boff < self._los[ki]) | (boff + isz > self._his[ki])
        if bad.any():
            i = int(np.argmax(bad))
            self._raise(int(addrs[i]), bool(valid[i]), int(ki[i]), int(boff[i]), kind, pid)
        if self.resolved is not None:
            self.resolved.append(None)
        return ki, boff

    def _raise(self, addr, valid, k, boff, kind, pid):
        filename, lineno = source.user_location()
        loc = f"{os.path.basename(filename)}:{lineno}: " if filename else ""
        p = ", ".join(str(x) for x in pid)
        if not valid:
            msg = (f"{loc}out-of-bounds {kind} in program ({p}): address {addr:#x} does not point into "
                   f"any argument tensor")
            err = OutOfBoundsError(msg, filename, lineno, tuple(pid), kind, None, None, None)
        else:
            r = self.regions[k]
            eoff = boff // r.itemsize
            msg = (f"{loc}out-of-bounds {kind} in program ({p}): element offset {eoff} of '{r.name}' is "
                   f"outside {r.describe_extent()} (byte offset {boff})")
            err = OutOfBoundsError(msg, filename, lineno, tuple(pid), kind, r.name, eoff, boff)
            err.bounds = r.describe_extent()
        if hooks.active():
            hooks.error(err)
        raise err

    def check(self, addrs, isz, kind, pid):
        addrs = np.asarray(addrs, dtype=np.int64).reshape(-1)
        self._resolve(addrs, isz, kind, pid)

    # ------------------------------------------------------------ access
    def _groups(self, ki):
        if isinstance(ki, int):
            return [(self.regions[ki], None)]
        if len(ki) == 0:
            return []
        k0 = ki[0]
        if (ki == k0).all():
            return [(self.regions[int(k0)], None)]
        return [(self.regions[int(k)], ki == k) for k in np.unique(ki)]

    @staticmethod
    def _aligned(rel, isz):
        return isz == 1 or not (rel & (isz - 1)).any()

    def _fast_index(self, addrs, isz):
        """(region, element indices) when every address lies inside one region and is a multiple
        of the element size from its start (the common case: few passes over the addresses),
        else None."""
        n = len(self.regions)
        if not n:
            return None
        a_lo, a_hi = int(addrs.min()), int(addrs.max())
        k = ((a_lo + HALF) >> SHIFT) - 1
        if not (0 <= k < n and k == ((a_hi + HALF) >> SHIFT) - 1):
            return None
        r = self.regions[k]
        start = r.base + r.lo
        if a_lo < start or a_hi + isz > r.base + r.hi:
            return None
        if isz > 1 and (start & (isz - 1) or (addrs & (isz - 1)).any()):
            return None
        idx = addrs - start
        if isz > 1:
            np.right_shift(idx, isz.bit_length() - 1, out=idx)
        if self.resolved is not None:
            self.resolved.append(k)
        return r, idx

    def read(self, addrs, sd, kind, pid):
        """Raw storage values (dtype `sd`) at the 1-D int64 virtual addresses `addrs`."""
        sd = np.dtype(sd)
        isz = sd.itemsize
        addrs = np.asarray(addrs, dtype=np.int64).reshape(-1)
        if len(addrs) == 0:
            return np.empty(0, dtype=sd)
        fast = self._fast_index(addrs, isz)
        if fast is not None:
            return fast[0].typed(sd)[fast[1]]
        ki, boff = self._resolve(addrs, isz, kind, pid)
        groups = self._groups(ki)
        if len(groups) == 1:
            r = groups[0][0]
            rel = boff - r.lo if r.lo else boff
            if self._aligned(rel, isz):
                return r.typed(sd)[rel // isz]
            idx = rel[:, None] + np.arange(isz, dtype=np.int64)
            return np.ascontiguousarray(r.buf[idx]).view(sd).reshape(-1)
        out = np.empty(len(addrs), dtype=sd)
        for r, sel in groups:
            rel = boff[sel] - r.lo
            if self._aligned(rel, isz):
                out[sel] = r.typed(sd)[rel // isz]
            else:
                idx = rel[:, None] + np.arange(isz, dtype=np.int64)
                out[sel] = np.ascontiguousarray(r.buf[idx]).view(sd).reshape(-1)
        return out

    def write(self, addrs, raw, kind, pid):
        """Write storage values `raw` (1-D, any storage dtype) at the virtual addresses."""
        raw = np.ascontiguousarray(np.asarray(raw).reshape(-1))
        sd = raw.dtype
        isz = sd.itemsize
        addrs = np.asarray(addrs, dtype=np.int64).reshape(-1)
        if len(addrs) == 0:
            return
        fast = self._fast_index(addrs, isz)
        if fast is not None:
            r, idx = fast
            if r.readonly:
                raise ValueError(f"cannot {kind} into argument '{r.name}': the numpy array is read-only")
            view = r.typed(sd)
            if self.undo_log is not None:
                self.undo_log.append((r, sd, idx, True, view[idx]))
            view[idx] = raw
            return
        ki, boff = self._resolve(addrs, isz, kind, pid)
        for r, sel in self._groups(ki):
            if r.readonly:
                raise ValueError(f"cannot {kind} into argument '{r.name}': the numpy array is read-only")
            rel = (boff if sel is None else boff[sel]) - r.lo
            vals = raw if sel is None else raw[sel]
            if self._aligned(rel, isz):
                idx = rel // isz
                if self.undo_log is not None:
                    self.undo_log.append((r, sd, idx, True, r.typed(sd)[idx]))
                r.typed(sd)[idx] = vals
            else:
                idx = rel[:, None] + np.arange(isz, dtype=np.int64)
                if self.undo_log is not None:
                    old = np.ascontiguousarray(r.buf[idx]).view(sd).reshape(-1)
                    self.undo_log.append((r, sd, rel, False, old))
                r.buf[idx] = vals.view(np.uint8).reshape(-1, isz)

    # ------------------------------------------------------------ for instrumentation
    def describe(self, addrs, isz):
        """(argument name, element offsets) of addresses (relative to the first address's argument)."""
        addrs = np.asarray(addrs, dtype=np.int64)
        flat = addrs.reshape(-1)
        if flat.size == 0:
            return None, np.zeros(addrs.shape, dtype=np.int64)
        r = self.region_of(flat[0])
        if r is None:
            return None, np.zeros(addrs.shape, dtype=np.int64)
        return r.name, (addrs - r.base) // r.itemsize
