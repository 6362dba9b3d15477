"""Specialization properties: what a backend specializes a kernel's run-time arguments on.

Each backend declares its list of properties as the `specialization` attribute of its Backend
class (e.g. backends/nvidia.py). Each property looks at a pointer or
integer argument at launch, contributes to the specialization key, and turns
its part of the key into `tt.*` argument attributes of the TTIR. The key is
computed by the C++ launch fast path (tessera._C.Launcher) for the properties
it knows natively (divisibility, equal-to-one, pointer range, non-negative integers); any other
property runs its `compute` in Python, so a new property is one Property subclass in the
backend's declaration and needs nothing else.

Key leaves are integers laid out as tessera._C.LEAF_LAYOUT describes.
"""

from .. import _core


def _layout():
    return _core._native().LEAF_LAYOUT


class Property:
    """One argument property. Subclasses set `name` and implement `attrs`."""

    name = "property"

    def native(self):
        """This property's part of the native configuration (a dict), or None when it is computed
        in Python by `compute`."""
        return None

    def compute(self, value):
        """For a Python-computed property: 0..15 from a launch argument (a tensor or an int)."""
        raise NotImplementedError

    def attrs(self, leaf, bits, is_ptr):
        """`tt.*` attributes for a key leaf (`bits` is this property's 4-bit field, for Python
        properties)."""
        raise NotImplementedError


class Divisibility(Property):
    """The largest power of two dividing a pointer (its address) or an integer, among `levels`
    (e.g. (16,): divisible by 16 or not; (2, 4, 8, 16): the finer key). Becomes tt.divisibility."""

    name = "divisibility"

    def __init__(self, levels=(16,)):
        levels = tuple(int(x) for x in levels)
        for x in levels:
            if x < 2 or x & (x - 1) or x > 1 << 15:
                raise ValueError(f"divisibility levels are powers of two in 2..32768, got {x}")
        self.levels = levels

    def native(self):
        return {"div_log2_levels": [x.bit_length() - 1 for x in self.levels]}

    def attrs(self, leaf, bits, is_ptr):
        lay = _layout()
        log2 = (leaf >> lay["div_shift"]) & 15
        return {"tt.divisibility": f"{1 << log2} : i32"} if log2 else {}


class EqualsOne(Property):
    """Integers equal to 1 are folded into the kernel as constants (not for do_not_specialize)."""

    name = "equal_to_1"

    def native(self):
        return {"fold_one": True}

    def attrs(self, leaf, bits, is_ptr):
        return {}


class PointerRange(Property):
    """Pointers whose tensor spans less than 2**(bits-1) bytes, so that offsets from the base
    fit in a signed `bits`-bit integer (AMD buffer loads). Becomes tt.pointer_range."""

    name = "pointer_range"

    def __init__(self, bits=32):
        if bits not in (32,):
            raise ValueError(f"pointer range is 32 bits, got {bits}")
        self.bits = bits

    def native(self):
        return {"pointer_range_bits": self.bits}

    def attrs(self, leaf, bits, is_ptr):
        if is_ptr and (leaf >> _layout()["range_bit"]) & 1:
            return {"tt.pointer_range": f"{self.bits} : i32"}
        return {}


class NonNegative(Property):
    """Integers that are >= 0 at launch. Becomes the unit attribute tt.non_negative, which lets
    AxisInfo keep contiguous runs through a signed remainder or division whose dividend is built
    from such arguments (the grouped tile ordering's `(pid_m * BM + arange) % M`): a signed
    remainder of a negative value would break the runs, so without the fact they are dropped."""

    name = "non_negative"

    def native(self):
        return {"non_negative": True}

    def attrs(self, leaf, bits, is_ptr):
        if not is_ptr and (leaf >> _layout()["nonneg_bit"]) & 1:
            return {"tt.non_negative": "unit"}
        return {}


class Specialization:
    """A backend's properties, and their native configuration for the launcher."""

    def __init__(self, backend, properties):
        self.backend = backend
        self.properties = list(properties)
        self._config = None

    @property
    def python_properties(self):
        return [p for p in self.properties if p.native() is None]

    def config(self):
        """The tessera._C.SpecConfig of these properties (built once)."""
        if self._config is None:
            kw = {"div_log2_levels": [], "fold_one": False, "pointer_range_bits": 0, "non_negative": False}
            for p in self.properties:
                n = p.native()
                if n:
                    kw.update(n)
            kw["extra"] = [p.compute for p in self.python_properties]
            self._config = _core._native().SpecConfig(**kw)
        return self._config

    def attrs(self, leaf, is_ptr):
        """The `tt.*` attributes of one key leaf."""
        out = {}
        shift = _layout()["extra_shift"]
        extra = 0
        for p in self.properties:
            bits = 0
            if p.native() is None:
                bits = (leaf >> (shift + 4 * extra)) & 15
                extra += 1
            out.update(p.attrs(leaf, bits, is_ptr))
        return out

    def __repr__(self):
        return f"Specialization({self.backend}, {[p.name for p in self.properties]})"
