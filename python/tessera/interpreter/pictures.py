"""Access-pattern pictures: which elements of each tensor argument each program of one launch
loaded and stored, as a PNG (matplotlib) or a standalone HTML page (no network, no library: a
canvas per tensor and a slider over the programs).

    from tessera.interpreter import observe
    from tessera.interpreter.pictures import AccessMap

    amap = AccessMap()
    with observe(amap):
        kernel[grid](x, y, n, BLOCK=64)          # in the interpreter (TESSERA_INTERPRET=1)
    amap.save_png("access.png")                  # per tensor: loads and stores coloured by program
    amap.save_html("access.html")                # the same, with a program slider

An element is coloured by the first program that touched it (programs numbered x-fastest over the
grid); elements several programs touched are marked (a hatch in the PNG, a dot in the HTML), and
elements no program touched stay blank. Tensors of rank 1 are drawn as rows of `width` elements
(a square-ish grid by default); higher ranks fold their leading dimensions into rows. Element
offsets are turned back into indices through the tensor's strides, so views are drawn in their
own shape.
"""

import html
import json
import math

import numpy as np

from .hooks import AtomicRecord, Client, LoadRecord, StoreRecord

_KINDS = ("load", "store")


class _Tensor:
    """What is recorded of one tensor argument."""

    def __init__(self, name, shape, strides):
        self.name = name
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.numel = int(np.prod(self.shape)) if self.shape else 1
        self._table = None  # (sorted element offsets, their flat indices), made on first use
        # per kind: first program to touch each element (-1: none) and how many programs did
        self.first = {k: np.full(self.numel, -1, dtype=np.int64) for k in _KINDS}
        self.count = {k: np.zeros(self.numel, dtype=np.int64) for k in _KINDS}
        self.by_program = {k: {} for k in _KINDS}  # program -> sorted element indices

    def indices(self, offsets):
        """Flat (row-major) element indices of element offsets from the base, through the
        strides; offsets that name no element of the view are dropped. Any strides: a table of
        every element's offset (size-1 dimensions with any stride, negative strides, overlapping
        views, where an offset names the first element that has it)."""
        off = np.asarray(offsets, dtype=np.int64).ravel()
        if not self.shape:
            return off[off == 0]
        if self._table is None:
            grids = np.indices(self.shape, dtype=np.int64).reshape(len(self.shape), -1)
            elem = np.tensordot(np.asarray(self.strides, dtype=np.int64), grids, axes=1)
            order = np.argsort(elem, kind="stable")
            self._table = (elem[order], order)
        keys, flat = self._table
        if keys.size == 0:
            return np.zeros(0, np.int64)
        pos = np.clip(np.searchsorted(keys, off), 0, keys.size - 1)
        return flat[pos[keys[pos] == off]]

    def add(self, kind, program, offsets):
        flat = np.unique(self.indices(offsets))
        if flat.size == 0:
            return
        seen = self.by_program[kind].get(program)
        if seen is not None:
            new = np.setdiff1d(flat, seen, assume_unique=True)
            self.by_program[kind][program] = np.union1d(seen, flat)
        else:
            new = flat
            self.by_program[kind][program] = flat
        first = self.first[kind]
        untouched = new[first[new] < 0]
        first[untouched] = program
        self.count[kind][new] += 1

    def grid2d(self, width=None):
        """(rows, cols) the tensor is drawn as."""
        if len(self.shape) >= 2:
            cols = self.shape[-1]
            return self.numel // max(cols, 1), cols
        cols = width or max(1, int(math.ceil(math.sqrt(self.numel))))
        return int(math.ceil(self.numel / cols)), cols


class AccessMap(Client):
    """An interpreter client recording, for one launch, which elements of each tensor argument
    each program loaded and stored (atomics count as both). After the launch: `.tensors` (name ->
    record), `.programs` (the number of programs), `first(name, kind)` / `count(name, kind)`
    (arrays of the tensor's shape), `program_elements(name, kind, program)`, and the pictures
    (`figure`, `save_png`, `html`, `save_html`). A new launch starts a new map."""

    def __init__(self, width=None):
        self.width = width
        self.kernel = None
        self.grid = (1, 1, 1)
        self.tensors = {}

    # ---------------------------------------------------------------- recording
    def on_kernel_start(self, rec):
        self.kernel, self.grid, self.tensors = rec.kernel, tuple(rec.grid), {}
        for name, v in rec.args.items():
            self.on_kernel_tensor(rec, name, v)

    def on_kernel_tensor(self, rec, name, v):
        shape = getattr(v, "shape", None)
        if shape is None or not hasattr(v, "stride"):
            if isinstance(v, np.ndarray):
                strides = tuple(s // v.itemsize for s in v.strides)
                self.tensors[name] = _Tensor(name, v.shape, strides)
            return
        self.tensors[name] = _Tensor(name, tuple(shape), tuple(v.stride()))

    def _program(self, pid):
        gx, gy, _ = self.grid
        return int(pid[0]) + gx * (int(pid[1]) + gy * int(pid[2]))

    def _record(self, rec, kinds):
        t = self.tensors.get(rec.arg_name)
        if t is None:
            return
        offsets = np.asarray(rec.offsets)[np.asarray(rec.mask, dtype=bool)]
        for kind in kinds:
            t.add(kind, self._program(rec.pid), offsets)

    def on_load(self, rec: LoadRecord):
        self._record(rec, ("load",))

    def on_store(self, rec: StoreRecord):
        self._record(rec, ("store",))

    def on_atomic(self, rec: AtomicRecord):
        self._record(rec, ("load", "store"))

    # ---------------------------------------------------------------- queries
    @property
    def programs(self):
        return int(np.prod(self.grid))

    def _tensor(self, name):
        if name not in self.tensors:
            raise KeyError(f"no tensor argument {name!r} was recorded (have: {', '.join(self.tensors) or 'none'})")
        return self.tensors[name]

    def first(self, name, kind):
        """The first program that `kind` ("load"/"store")-accessed each element (-1: none)."""
        t = self._tensor(name)
        return t.first[kind].reshape(t.shape)

    def count(self, name, kind):
        """How many programs `kind`-accessed each element."""
        t = self._tensor(name)
        return t.count[kind].reshape(t.shape)

    def program_elements(self, name, kind, program):
        """Flat indices of the elements program `program` `kind`-accessed."""
        return self._tensor(name).by_program[kind].get(program, np.zeros(0, np.int64))

    def _drawn(self):
        return [t for t in self.tensors.values()
                if any(t.count[k].any() for k in _KINDS)]

    # ---------------------------------------------------------------- PNG
    def figure(self):
        """A matplotlib Figure: one row per tensor that was accessed, columns loads and stores."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap

        tensors = self._drawn()
        if not tensors:
            raise ValueError("no tensor accesses were recorded (was the kernel run in the interpreter "
                             "with this client attached?)")
        n = max(self.programs, 1)
        base = plt.get_cmap("tab20" if n <= 20 else "viridis")
        colors = base(np.linspace(0, 1, n)) if n > 20 else base(np.arange(n) % 20)
        cmap = ListedColormap(np.vstack([[1, 1, 1, 1], colors]))
        fig, axes = plt.subplots(len(tensors), 2, figsize=(10, 3.2 * len(tensors)), squeeze=False)
        for row, t in enumerate(tensors):
            rows, cols = t.grid2d(self.width)
            for col, kind in enumerate(_KINDS):
                ax = axes[row][col]
                img = np.full(rows * cols, -1, dtype=np.int64)
                img[:t.numel] = t.first[kind]
                ax.imshow((img + 1).reshape(rows, cols), cmap=cmap, vmin=0, vmax=n, interpolation="nearest",
                          aspect="auto")
                multi = np.zeros(rows * cols, dtype=bool)
                multi[:t.numel] = t.count[kind] > 1
                if multi.any():
                    ys, xs = np.divmod(np.nonzero(multi)[0], cols)
                    ax.scatter(xs, ys, s=4, c="black", marker="x", linewidths=0.5)
                touched = int((t.count[kind] > 0).sum())
                ax.set_title(f"{t.name} {kind}s: {touched}/{t.numel} elements", fontsize=9)
                ax.set_xticks([])
                ax.set_yticks([])
        fig.suptitle(f"{self.kernel} grid={self.grid}: colour = first program (x fastest), "
                     f"x = touched by several programs", fontsize=10)
        fig.tight_layout()
        return fig

    def save_png(self, path):
        fig = self.figure()
        fig.savefig(path, dpi=100)
        import matplotlib.pyplot as plt
        plt.close(fig)
        return path

    # ---------------------------------------------------------------- HTML
    def html(self):
        """A standalone HTML page: per tensor, loads and stores drawn on canvases, coloured by
        program; a slider picks one program, whose elements are outlined (-1: all programs)."""
        data = {"kernel": self.kernel, "grid": list(self.grid), "programs": self.programs, "tensors": []}
        for t in self._drawn():
            rows, cols = t.grid2d(self.width)
            entry = {"name": t.name, "shape": list(t.shape), "rows": rows, "cols": cols}
            for kind in _KINDS:
                entry[kind] = {"first": t.first[kind].tolist(), "count": t.count[kind].tolist(),
                               "by_program": {str(p): v.tolist() for p, v in t.by_program[kind].items()}}
            data["tensors"].append(entry)
        title = html.escape(f"{self.kernel} access pattern")
        return _HTML.replace("__TITLE__", title).replace("__DATA__", json.dumps(data))

    def save_html(self, path):
        with open(path, "w") as f:
            f.write(self.html())
        return path


_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font-family: sans-serif; margin: 16px; }
.tensor { margin-bottom: 18px; }
.pair { display: flex; gap: 16px; }
canvas { border: 1px solid #999; image-rendering: pixelated; }
.label { font-size: 13px; margin: 4px 0; }
</style></head>
<body>
<h2 id="title"></h2>
<div><label>program: <input id="slider" type="range" min="-1" value="-1"> <span id="which">all</span></label></div>
<div id="tensors"></div>
<script>
const DATA = __DATA__;
function color(p, n) {
  if (p < 0) return [255, 255, 255];
  const h = (p * 137.508) % 360, s = 0.65, l = 0.55;
  const c = (1 - Math.abs(2 * l - 1)) * s, x = c * (1 - Math.abs((h / 60) % 2 - 1)), m = l - c / 2;
  const [r, g, b] = h < 60 ? [c, x, 0] : h < 120 ? [x, c, 0] : h < 180 ? [0, c, x] :
                    h < 240 ? [0, x, c] : h < 300 ? [x, 0, c] : [c, 0, x];
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}
function draw(program) {
  for (const t of DATA.tensors) {
    for (const kind of ["load", "store"]) {
      const cv = document.getElementById(t.name + "-" + kind);
      const scale = Math.max(1, Math.floor(320 / Math.max(t.cols, t.rows)));
      cv.width = t.cols * scale; cv.height = t.rows * scale;
      const ctx = cv.getContext("2d");
      const mine = new Set(program >= 0 ? (t[kind].by_program[String(program)] || []) : []);
      for (let i = 0; i < t.rows * t.cols; i++) {
        const first = i < t[kind].first.length ? t[kind].first[i] : -1;
        let [r, g, b] = color(first, DATA.programs);
        if (program >= 0 && !mine.has(i) && first >= 0) { r = 235; g = 235; b = 235; }
        ctx.fillStyle = `rgb(${r},${g},${b})`;
        ctx.fillRect((i % t.cols) * scale, Math.floor(i / t.cols) * scale, scale, scale);
        if (i < t[kind].count.length && t[kind].count[i] > 1 && scale >= 3) {
          ctx.fillStyle = "black";
          ctx.fillRect((i % t.cols) * scale + scale / 2 - 1, Math.floor(i / t.cols) * scale + scale / 2 - 1, 2, 2);
        }
      }
    }
  }
  document.getElementById("which").textContent = program < 0 ? "all" : program;
}
document.getElementById("title").textContent =
  DATA.kernel + " grid=(" + DATA.grid.join(", ") + "), " + DATA.programs + " programs";
const root = document.getElementById("tensors");
for (const t of DATA.tensors) {
  const div = document.createElement("div"); div.className = "tensor";
  div.innerHTML = "<div class='label'><b>" + t.name + "</b> shape [" + t.shape.join(", ") + "]</div>" +
    "<div class='pair'><div><div class='label'>loads</div><canvas id='" + t.name + "-load'></canvas></div>" +
    "<div><div class='label'>stores</div><canvas id='" + t.name + "-store'></canvas></div></div>";
  root.appendChild(div);
}
const slider = document.getElementById("slider");
slider.max = DATA.programs - 1;
slider.addEventListener("input", () => draw(parseInt(slider.value)));
draw(-1);
</script>
</body></html>
"""

__all__ = ["AccessMap"]
