#!/usr/bin/env python3
"""Mutation fuzzer for tessera-opt.

Seeds: every .mlir/.ttir/.ttgir file under test/ (split at `// -----`, full-line
comments dropped; binary files skipped) and the conformance TTIR/TTGIR
(--conformance, default <repo>/../shared/conformance), plus the generic-form
print of every seed that parses (--no-generic-seeds turns that off).

Each mutant is a seed with 1..8 stacked mutations (integer literals, shape
dims, element types, layout fields, attributes, op names, SSA names, lines,
splices from another seed, terminators, brackets, tokens, truncation, random
bytes, and now and then the pipeline options). Mutant INDEX of run SEED is a
pure function of (SEED, INDEX, the seed corpus): `--replay SEED:INDEX` writes
it back to a file and prints the commands.

Each mutant runs through tessera-opt, in a subprocess with a time limit
(--timeout) and an address-space limit (--mem-gib), in two modes:
  parse     tessera-opt FILE -o /dev/null                  (parse + verify)
  pipeline  tessera-opt FILE --pass-pipeline=P -o /dev/null (only if parse
            accepted the mutant), where P is the compiler's full pipeline:
            TTIR -> TTGIR -> LLVM for input without ttg layouts, TTGIR -> LLVM
            for input with them (the strings of python/tessera/compiler/
            compiler.py and python/tessera/backends/nvidia.py).
Exit status 0 or 1 (with a diagnostic) is fine. A finding is a process killed
by a signal (or exit status >= 128), a time-out, or `LLVM ERROR`, `Assertion`,
`report_fatal_error`, `Stack dump`, `PLEASE submit a bug report` or
`UNREACHABLE` in its output. Findings are deduplicated by a signature (what
happened + first frame of the stack dump, or the first error line) and saved
under --out (default fuzz-findings/): input, stderr, command, details.

Exit status: 0 no finding, 1 findings, 2 bad usage / no tessera-opt / no seeds.

  tools/fuzz/fuzz_opt.py --seed 1 --count 10000
  tools/fuzz/fuzz_opt.py --seed 1 --time 100 --out /tmp/f       (CI smoke)
  tools/fuzz/fuzz_opt.py --check-seeds                            (unmutated)
  tools/fuzz/fuzz_opt.py --replay 1:4711 --run
"""

import argparse
import ast
import concurrent.futures
import hashlib
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------- pipelines

# Copies of the compiler's pipeline strings; _load_pipelines() reads the real
# ones from the Python sources when it can, so the two cannot drift apart.
_TTIR_PIPELINE = ("builtin.module(tt-rewrite-tensor-pointer, inline, canonicalize, cse, "
                  "loop-invariant-code-motion, symbol-dce)")
_LLVM_PIPELINE = ("builtin.module(ttg-allocate-shared-memory, ttg-membar, ttg-allocate-global-scratch, "
                  "convert-scf-to-cf, convert-ttg-to-llvm, canonicalize, cse)")


def _ttgir_pipeline(num_warps=4, threads_per_warp=32, num_ctas=1, target="cuda:90"):
    # the NVIDIA backend's TTGIR stage (third_party/nvidia/lib/Backend/NVIDIABackend.cpp), less TMA
    return (f"builtin.module(convert-tt-to-ttg{{num-warps={num_warps} threads-per-warp={threads_per_warp} "
            f"num-ctas={num_ctas} target={target}}}, ttg-version-nonnegative, ttg-coalesce, "
            f"ttg-remove-layout-conversions, ttg-accelerate-matmul, canonicalize, "
            f"ttg-remove-layout-conversions, ttg-hoist-loads, canonicalize, "
            f"ttg-pipeline{{num-stages=3}}, cse)")


def _read_assign(path, name):
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return value if isinstance(value, str) else None
    return None


def _load_pipelines():
    global _TTIR_PIPELINE, _LLVM_PIPELINE
    ttir = _read_assign(REPO / "python/tessera/compiler/compiler.py", "TTIR_PIPELINE")
    llvm = _read_assign(REPO / "python/tessera/backends/nvidia.py", "LLVM_PIPELINE")
    if ttir:
        _TTIR_PIPELINE = ttir
    if llvm:
        _LLVM_PIPELINE = llvm


def _inner(p):
    assert p.startswith("builtin.module(") and p.endswith(")"), p
    return p[len("builtin.module("):-1]


def pipeline_for(kind, opts):
    if kind == "ttgir":
        return _LLVM_PIPELINE
    return "builtin.module(" + ", ".join(
        [_inner(_TTIR_PIPELINE), _inner(_ttgir_pipeline(**opts)), _inner(_LLVM_PIPELINE)]) + ")"


DEFAULT_OPTS = {"num_warps": 4, "threads_per_warp": 32, "num_ctas": 1, "target": "cuda:90"}


def classify(text):
    """'ttgir' when the input has ttg layouts (or shared-memory descriptors), else 'ttir'."""
    return "ttgir" if re.search(r"#ttg\.|!ttg\.memdesc", text) else "ttir"


# ----------------------------------------------------------------- seeds

SEED_SUFFIXES = (".mlir", ".ttir", ".ttgir")


class Seed:
    __slots__ = ("name", "text", "ext", "valid")

    def __init__(self, name, text, ext, valid=False):
        self.name, self.text, self.ext, self.valid = name, text, ext, valid


def _clean(chunk):
    lines = [l for l in chunk.split("\n") if not l.lstrip().startswith("//")]
    return "\n".join(lines).strip("\n") + "\n"


def _read_text(path):
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def collect_seeds(conformance, warn):
    seeds = []
    files = sorted(p for p in (REPO / "test").rglob("*") if p.is_file() and p.suffix in SEED_SUFFIXES)
    if conformance is not None:
        conf = Path(conformance)
        if conf.is_dir():
            files += sorted(p for p in conf.rglob("*") if p.is_file() and p.suffix in (".ttir", ".ttgir"))
        else:
            warn(f"warning: conformance directory {conf} not found; fuzzing without it")
    for p in files:
        text = _read_text(p)
        try:
            rel = str(p.relative_to(REPO))
        except ValueError:
            rel = str(p)
        if text is None:
            continue  # binary garbage (test/Robustness/corpus)
        chunks = re.split(r"(?m)^// -----.*$", text)
        for i, chunk in enumerate(chunks):
            c = _clean(chunk)
            if c.strip():
                seeds.append(Seed(rel if len(chunks) == 1 else f"{rel}#{i}", c, p.suffix))
    return seeds


def add_generic_seeds(seeds, opt, timeout, mem, add=True):
    """Marks the seeds that parse and verify (s.valid) and, when `add`, adds the generic-form
    print of each of them (exercises the parsing of properties)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="fuzz-opt-gen.") as d:
        for s in seeds:
            f = Path(d) / ("in" + s.ext)
            f.write_text(s.text)
            try:
                r = subprocess.run([opt, str(f), "-mlir-print-op-generic", "-mlir-print-debuginfo"],
                                   capture_output=True, timeout=timeout, cwd=d,
                                   preexec_fn=_limits(mem))
            except subprocess.TimeoutExpired:
                continue
            s.valid = r.returncode == 0
            if r.returncode == 0 and add:
                try:
                    out.append(Seed(s.name + ":generic", r.stdout.decode("utf-8"), s.ext, True))
                except UnicodeDecodeError:
                    pass
    return seeds + out


# ----------------------------------------------------------------- mutators

INTERESTING = [0, 1, -1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 255, 256, 1023, 1024, 4095,
               4096, 65535, 65536, 1048576, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 2**40,
               2**63 - 1, 2**63, -2**63, 2**64, 10**30]
DIMS = [0, 1, 2, 3, 5, 7, 31, 33, 64, 96, 1000, 65536, 1048576, 2**31 - 1, 2**31, 2**32, 2**40, 2**62,
        2**63 - 1, 2**64]
SMALL = [0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 128, -1, 1024, 2**31 - 1, 2**31, 2**32]
TYPES = ["i1", "i8", "i16", "i32", "i64", "i128", "i0", "i3", "f16", "bf16", "f32", "f64", "tf32",
         "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f4E2M1FN", "index", "none",
         "!tt.ptr<f32>", "!tt.ptr<f16>", "!tt.ptr<i8, 3>", "!tt.ptr<!tt.ptr<f32>>", "!tt.ptr<i1>",
         "vector<4xf32>", "complex<f32>", "tensor<2xf32>", "memref<4xf32>"]
TYPE_RE = re.compile(r"(?<![\w.!#%$@^])(f16|bf16|f32|f64|tf32|i1|i8|i16|i32|i64|f8E4M3FN|f8E5M2|"
                     r"f8E4M3FNUZ|f8E5M2FNUZ|index)(?![\w])")
INT_RE = re.compile(r"(?<![\w.#%^$@\"-])-?\d+(?![\w.])")
SHAPE_RE = re.compile(r"(tensor|memdesc|vector|memref)<((?:(?:\d+|\?)x)+)")
LIST_FIELD_RE = re.compile(r"\b(sizePerThread|threadsPerWarp|warpsPerCTA|order|CTAsPerCGA|CTASplitNum|CTAOrder|"
                           r"instrShape|tilesPerWarp|repOrder)\s*=\s*\[([^\]\n]*)\]")
SCALAR_FIELD_RE = re.compile(r"\b(versionMajor|versionMinor|opIdx|kWidth|dim|vec|perPhase|maxPhase|"
                             r"swizzlingByteWidth|elementBitWidth|transposed|fp4Padded|isMutable)\s*=\s*"
                             r"(-?\w+)")
LAYOUT_RE = re.compile(r"#ttg\.\w+<\{")
ATTR_RE = re.compile(r"(?<![%\w.#^!@$-])(\"[\w.\-]+\"|[A-Za-z_][\w.\-]*)\s*=\s*((?:\"[^\"\n]*\"|[^,{}()<>\[\]\n\"])+?)(?=\s*[,}])")
OPNAME_RE = re.compile(r"(?<![\w.%#^!$@])\"?((?:tt|ttg|ttng|arith|math|scf|cf|gpu|llvm|nvvm|func|ub)"
                       r"\.[a-z_][\w.]*)\"?(?=[\s(<{])")
SSA_RE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
TOKEN_RE = re.compile(r"\"[^\"\n]*\"|[%#^!@]?[\w.$\-]+|\S")
DENSE_RE = re.compile(r"dense<([^<>\n]*)>")
TERMINATOR_RE = re.compile(r"(?m)^.*\b(tt\.return|scf\.yield|tt\.reduce\.return|tt\.scan\.return|scf\.condition|"
                           r"cf\.br|cf\.cond_br|llvm\.return|func\.return)\b.*$")
SPECIAL = list("{}()<>[]\"%#^!@:,=.-x?*\\'\n\t ") + ["\0", "\x7f", "\udcff", "\udc80", "\u00e9", "\u202e"]
TARGETS = ["cuda:90", "cuda:80", "cuda:75", "cuda:70", "cuda:100", "cuda:120", "cuda:0", "cuda:-1",
           "cuda:99999999999999999999", "cuda:", "cuda", "", "hip:gfx942", "cuda:90:1", "cuda:9O", "other:1"]


def _pick(rng, regex, text, filt=None):
    ms = [m for m in regex.finditer(text) if filt is None or filt(m, text)]
    return rng.choice(ms) if ms else None


def _line_of(text, pos):
    a = text.rfind("\n", 0, pos) + 1
    b = text.find("\n", pos)
    return text[a:b if b >= 0 else len(text)]


def _not_loc_line(m, text):
    """False inside a location (`#loc = ...` lines, `loc(...)`): mutating those is wasted work."""
    a = text.rfind("\n", 0, m.start()) + 1
    prefix = text[a:m.start()]
    return not prefix.lstrip().startswith("#loc") and prefix.rfind("loc(") <= prefix.rfind(")")


def _int_value(rng, old=None):
    r = rng.random()
    if old is not None and r < 0.25:
        return rng.choice([old + 1, old - 1, old * 2, -old, old // 2, old * 3])
    return rng.choice(INTERESTING)


def m_int(rng, t, ctx):
    m = _pick(rng, INT_RE, t, _not_loc_line)
    if not m:
        return None
    old = int(m.group(0))
    new = _int_value(rng, old)
    return t[:m.start()] + str(new) + t[m.end():], f"int {old}->{new}@{m.start()}"


def m_shape(rng, t, ctx):
    m = _pick(rng, SHAPE_RE, t)
    if not m:
        return None
    dims = m.group(2)[:-1].split("x")
    op = rng.randrange(6)
    nd = list(dims)
    if op == 0:
        nd[rng.randrange(len(nd))] = str(rng.choice(DIMS))
    elif op == 1 and len(nd) > 1:
        i, j = rng.sample(range(len(nd)), 2)
        nd[i], nd[j] = nd[j], nd[i]
    elif op == 2:
        del nd[rng.randrange(len(nd))]
    elif op == 3:
        nd.insert(rng.randrange(len(nd) + 1), str(rng.choice([1, 2, 4, 16, 3])))
    elif op == 4:
        nd[rng.randrange(len(nd))] = "?"
    else:
        i = rng.randrange(len(nd))
        nd[i] = str(max(0, int(nd[i]) + rng.choice([-1, 1]))) if nd[i].isdigit() else "1"
    new = "".join(d + "x" for d in nd)
    if rng.random() < 0.5:  # consistently, everywhere: gets past the verifier into the passes
        old = m.group(1) + "<" + m.group(2)
        return t.replace(old, m.group(1) + "<" + new), f"shape[all] {m.group(2)}->{new}"
    return t[:m.start(2)] + new + t[m.end(2):], f"shape {m.group(2)}->{new}@{m.start()}"


def m_elem(rng, t, ctx):
    m = _pick(rng, TYPE_RE, t, _not_loc_line)
    if not m:
        return None
    new = rng.choice(TYPES)
    if rng.random() < 0.4:
        pat = re.compile(r"(?<![\w.!#%$@^])" + re.escape(m.group(1)) + r"(?![\w])")
        return pat.sub(new, t), f"type[all] {m.group(1)}->{new}"
    return t[:m.start()] + new + t[m.end():], f"type {m.group(1)}->{new}@{m.start()}"


def _mutate_list(rng, items):
    items = [x.strip() for x in items.split(",") if x.strip()]
    op = rng.randrange(6)
    if op == 0 and items:
        items[rng.randrange(len(items))] = str(rng.choice(SMALL))
    elif op == 1:
        items.insert(rng.randrange(len(items) + 1), str(rng.choice([0, 1, 2, 4])))
    elif op == 2 and items:
        del items[rng.randrange(len(items))]
    elif op == 3 and len(items) > 1:
        rng.shuffle(items)
    elif op == 4:
        items = []
    elif items:
        items[rng.randrange(len(items))] = items[rng.randrange(len(items))]
    return "[" + ", ".join(items) + "]"


def m_layout(rng, t, ctx):
    op = rng.randrange(4)
    if op <= 1:
        m = _pick(rng, LIST_FIELD_RE, t)
        if not m:
            return None
        new = _mutate_list(rng, m.group(2))
        return t[:m.start(2) - 1] + new + t[m.end(2) + 1:], f"layout {m.group(1)}=[{m.group(2)}]->{new}"
    if op == 2:
        m = _pick(rng, SCALAR_FIELD_RE, t)
        if not m:
            return None
        v = m.group(2)
        new = rng.choice(["true", "false"]) if v in ("true", "false") and rng.random() < 0.5 else str(rng.choice(SMALL))
        return t[:m.start(2)] + new + t[m.end(2):], f"layout {m.group(1)}={v}->{new}"
    # drop a field of a layout
    m = _pick(rng, re.compile(LIST_FIELD_RE.pattern + "|" + SCALAR_FIELD_RE.pattern), t)
    if not m:
        return None
    a, b = m.start(), m.end()
    if t[b:b + 2] == ", ":
        b += 2
    elif t[a - 2:a] == ", ":
        a -= 2
    return t[:a] + t[b:], f"layout drop {m.group(0)[:40]}"


def _attr_value(rng, key, old):
    k = key.strip('"')
    if k.endswith("num-warps"):
        return f"{rng.choice([0, 1, 2, 3, 5, 8, 16, 32, 64, -4, 2**31 - 1, 2**32])} : i32"
    if k.endswith("threads-per-warp"):
        return f"{rng.choice([0, 1, 16, 33, 64, -32, 2**31 - 1])} : i32"
    if k.endswith("num-ctas"):
        return f"{rng.choice([0, 2, 3, 4, 16, -1])} : i32"
    if k.endswith("target"):
        return '"' + rng.choice(TARGETS) + '"'
    if old.startswith('"'):
        return rng.choice(['""', '"x"', '"' + "A" * 300 + '"', "0 : i32", '"\\00"'])
    r = rng.randrange(12)
    if r < 5:
        ty = rng.choice(["i32", "i32", "i64", "i1", "index", "i8", "f32", "si32", "ui32"])
        return f"{_int_value(rng)} : {ty}"
    return rng.choice(["true", "false", "unit", "[1, 2]", "[]", "array<i32: 1, 2>", "array<i32>",
                       "dense<1> : tensor<2xi32>", "{}", "@sym", "#ttg.shared_memory", "1.5 : f32",
                       "-1 : i32", "\"s\"", "0 : i32", "affine_map<(d0) -> (d0)>"])


def _in_dict(m, text):
    return _not_loc_line(m, text) and text[:m.start()].rstrip()[-1:] in ("{", ",")


def m_attr(rng, t, ctx):
    m = _pick(rng, ATTR_RE, t, _in_dict)
    if not m:
        return None
    if rng.random() < 0.3:  # drop it
        a, b = m.start(), m.end()
        if t[b:b + 2] == ", ":
            b += 2
        elif t[a - 2:a] == ", ":
            a -= 2
        return t[:a] + t[b:], f"attr drop {m.group(0)[:40]}"
    new = _attr_value(rng, m.group(1), m.group(2).strip())
    return t[:m.start(2)] + new + t[m.end(2):], f"attr {m.group(1)}={m.group(2)[:30]}->{new[:30]}"


def _is_op(m, text):
    return not re.match(r"\"?\s*=", text[m.end(1):m.end(1) + 4])


def m_opname(rng, t, ctx):
    m = _pick(rng, OPNAME_RE, t, _is_op)
    if not m or not ctx["opnames"]:
        return None
    old = m.group(1)
    dialect = old.split(".")[0]
    same = [o for o in ctx["opnames"] if o.startswith(dialect + ".")]
    new = rng.choice(same if same and rng.random() < 0.6 else ctx["opnames"])
    return t[:m.start(1)] + new + t[m.end(1):], f"op {old}->{new}"


def _lines(t):
    return t.split("\n")


def m_lines(rng, t, ctx):
    ls = _lines(t)
    if len(ls) < 2:
        return None
    op = rng.randrange(4)
    i = rng.randrange(len(ls))
    if op == 0:
        ls.insert(i, ls[i])
        d = f"line dup {i}"
    elif op == 1:
        del ls[i]
        d = f"line del {i}"
    elif op == 2:
        j = rng.randrange(len(ls))
        ls[i], ls[j] = ls[j], ls[i]
        d = f"line swap {i},{j}"
    else:
        j = rng.randrange(len(ls))
        ls.insert(j, ls.pop(i))
        d = f"line move {i}->{j}"
    return "\n".join(ls), d


def m_ssa(rng, t, ctx):
    names = sorted(set(SSA_RE.findall(t)))
    if len(names) < 2:
        return None
    # a use: not followed by `=` (a result) or by `:` right away (an argument)
    uses = [m for m in SSA_RE.finditer(t) if not re.match(r"\s*=|:", t[m.end():m.end() + 3])]
    if not uses:
        return None
    m = rng.choice(uses)
    new = rng.choice(names)
    return t[:m.start()] + new + t[m.end():], f"ssa {m.group(0)}->{new}"


OP_LINE_RE = re.compile(r"^\s+(?:%[\w.$\-]+(?::\d+)?(?:, %[\w.$\-]+)*\s*=\s*)?\"?[a-z_]+\.[a-z_.]+")


def m_splice(rng, t, ctx):
    other = rng.choice(ctx["seeds"])
    ols = [l for l in _lines(other.text) if l.strip()]
    ls = _lines(t)
    if rng.random() < 0.7:  # an op, into a body
        ols = [l for l in ols if OP_LINE_RE.match(l) and not l.rstrip().endswith("{")
               and not TERMINATOR_RE.match(l)]
        body = [j for j in range(1, len(ls)) if OP_LINE_RE.match(ls[j])]
        if not ols or not body:
            return None
        i = rng.randrange(len(ols))
        chunk = ols[i:i + rng.choice([1, 1, 1, 2, 3])]
        j = rng.choice(body)
        # its operands: values of this function; its results: fresh names
        names = sorted(set(re.findall(r"^\s*(%[\w.$\-]+)", "\n".join(ls[:j]), re.M)) |
                       set(re.findall(r"(%[\w.$\-]+):", "\n".join(ls[:j]))))
        fixed = []
        for l in chunk:
            d = re.match(r"^(\s*)(%[\w.$\-]+)", l)
            head, rest = (d.group(1) + "%fz_" + d.group(2)[1:], l[d.end():]) if d else ("", l)
            if names:
                rest = SSA_RE.sub(lambda _: rng.choice(names), rest)
            fixed.append(head + rest)
        chunk = fixed
    else:
        if not ols:
            return None
        i = rng.randrange(len(ols))
        chunk = ols[i:i + rng.choice([1, 1, 1, 2, 3, 5])]
        j = rng.randrange(len(ls) + 1)
    ls[j:j] = chunk
    return "\n".join(ls), f"splice {other.name}:{i}+{len(chunk)} at {j}"


def m_terminator(rng, t, ctx):
    m = _pick(rng, TERMINATOR_RE, t)
    if not m:
        return None
    if rng.random() < 0.5:
        return t[:m.start()] + t[m.end():], f"term del {m.group(1)}"
    return t[:m.end()] + "\n" + m.group(0) + t[m.end():], f"term dup {m.group(1)}"


def m_dense(rng, t, ctx):
    m = _pick(rng, DENSE_RE, t)
    if not m:
        return None
    new = rng.choice(["[1, 2, 3]", "\"0xDEADBEEF\"", "", "1.0", "0xFF800000", "0x7FC00000", "true", "-1",
                      "[[1, 2], [3, 4]]", "\"0x\"", "1e999", "[]", "0.5", "65536", "(1.0, 2.0)"])
    return t[:m.start(1)] + new + t[m.end(1):], f"dense {m.group(1)[:20]}->{new}"


def m_bracket(rng, t, ctx):
    ps = [i for i, c in enumerate(t) if c in "{}()<>[]"]
    if not ps:
        return None
    i = rng.choice(ps)
    op = rng.randrange(3)
    if op == 0:
        return t[:i] + t[i + 1:], f"bracket del {t[i]!r}@{i}"
    if op == 1:
        return t[:i] + t[i] + t[i:], f"bracket dup {t[i]!r}@{i}"
    c = rng.choice("{}()<>[]")
    return t[:i] + c + t[i + 1:], f"bracket {t[i]!r}->{c!r}@{i}"


def m_token(rng, t, ctx):
    toks = list(TOKEN_RE.finditer(t))
    if not toks:
        return None
    k = rng.randrange(len(toks))
    m = toks[k]
    op = rng.randrange(4)
    if op == 0:
        return t[:m.start()] + t[m.end():], f"token del {m.group(0)[:20]!r}"
    if op == 1:
        return t[:m.end()] + " " + m.group(0) + t[m.end():], f"token dup {m.group(0)[:20]!r}"
    if op == 2:
        o = rng.choice(toks).group(0)
        return t[:m.start()] + o + t[m.end():], f"token {m.group(0)[:20]!r}->{o[:20]!r}"
    if k + 1 < len(toks):
        n = toks[k + 1]
        return (t[:m.start()] + n.group(0) + t[m.end():n.start()] + m.group(0) + t[n.end():],
                f"token swap {m.group(0)[:20]!r},{n.group(0)[:20]!r}")
    return None


def m_truncate(rng, t, ctx):
    if len(t) < 2:
        return None
    i = rng.randrange(1, len(t))
    return t[:i], f"truncate {i}/{len(t)}"


def m_bytes(rng, t, ctx):
    n = rng.choice([1, 1, 2, 4, 8])
    out = t
    for _ in range(n):
        i = rng.randrange(len(out) + 1)
        op = rng.randrange(3)
        if rng.random() < 0.5:
            c = rng.choice(SPECIAL)
        else:
            b = rng.randrange(256)
            c = chr(b) if b < 0x80 else chr(0xDC00 + b)  # surrogateescape: one raw byte
        if op == 0:
            out = out[:i] + c + out[i:]
        elif op == 1:
            out = out[:i] + c + out[i + 1:]
        else:
            out = out[:i] + out[i + 1:]
    return out, f"bytes x{n}"


MUTATORS = [  # (weight, function)
    (12, m_int), (10, m_shape), (8, m_elem), (9, m_layout), (9, m_attr), (7, m_opname), (6, m_lines),
    (7, m_ssa), (6, m_splice), (2, m_terminator), (3, m_dense), (2, m_bracket), (4, m_token),
    (1, m_truncate), (3, m_bytes),
]
_WEIGHTS = [w for w, _ in MUTATORS]
MAX_BYTES = 1 << 20


def _pipeline_opts(rng):
    o = dict(DEFAULT_OPTS)
    k = rng.choice(list(o))
    o[k] = rng.choice({"num_warps": [1, 2, 8, 16, 32, 3, 0, 64],
                       "threads_per_warp": [16, 64, 1, 0],
                       "num_ctas": [2, 4, 0],
                       "target": ["cuda:75", "cuda:80", "cuda:100", "cuda:0", "cuda:70", "hip:gfx942"]}[k])
    return o


class Mutant:
    __slots__ = ("seed", "index", "source", "text", "ext", "mutations", "opts")


def make_mutant(seed, index, seeds, ctx):
    rng = random.Random(f"tessera-fuzz:{seed}:{index}")
    pool = ctx["valid"] if ctx["valid"] and rng.random() < 0.8 else seeds  # mostly seeds that verify
    src = pool[rng.randrange(len(pool))]
    t = src.text
    n = 1
    while n < 8 and rng.random() < 0.4:
        n += 1
    done = []
    tries = 0
    while len(done) < n and tries < 4 * n:
        tries += 1
        fn = rng.choices(MUTATORS, weights=_WEIGHTS)[0][1]
        r = fn(rng, t, ctx)
        if r is None or len(r[0]) > MAX_BYTES:
            continue
        t, desc = r
        done.append(desc)
    opts = dict(DEFAULT_OPTS)
    if rng.random() < 0.1:
        opts = _pipeline_opts(rng)
        done.append("opts " + " ".join(f"{k}={v}" for k, v in opts.items() if v != DEFAULT_OPTS[k]))
    mu = Mutant()
    mu.seed, mu.index, mu.source, mu.text, mu.ext, mu.mutations, mu.opts = seed, index, src.name, t, src.ext, done, opts
    return mu


def build_context(seeds):
    ops = set()
    for s in seeds:
        ops.update(m.group(1) for m in OPNAME_RE.finditer(s.text) if _is_op(m, s.text))
    return {"seeds": seeds, "valid": [s for s in seeds if s.valid], "opnames": sorted(ops)}


# ----------------------------------------------------------------- running

BAD_PATTERNS = ["LLVM ERROR", "Assertion", "report_fatal_error", "Stack dump", "PLEASE submit a bug report",
                "UNREACHABLE"]


def _limits(mem_gib):
    def f():
        if mem_gib > 0:
            b = int(mem_gib * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f


def _env():
    env = dict(os.environ)
    env.setdefault("LLVM_SYMBOLIZER_PATH", shutil.which("llvm-symbolizer") or
                   "/usr/lib/llvm-22/bin/llvm-symbolizer")
    env["LC_ALL"] = "C"
    return env


ENV = _env()


def commands(opt, path, kind, opts):
    # The pipeline's result is written as bytecode: the text form of the LLVM dialect prints an
    # op's full !llvm.struct type at each use, quadratic in the elements per thread (a 1M-element
    # tensor takes minutes to print, 2 s to lower), which the compiler never does (it translates
    # to LLVM IR). Mode parse still runs the text printer on every accepted input.
    base = [opt, str(path), "-o", "/dev/null"]
    return {"parse": base,
            "pipeline": base[:2] + ["--pass-pipeline=" + pipeline_for(kind, opts), "--emit-bytecode"] + base[2:]}


def run_cmd(cmd, timeout, mem, cwd):
    """Runs tessera-opt once. While the binary or its library is missing or being relinked (a
    build in the same tree), waits and retries for up to 10 minutes instead of reporting it."""
    for attempt in range(300):
        try:
            r = _run_once(cmd, timeout, mem, cwd)
        except OSError as e:  # ENOENT, ETXTBSY, ENOEXEC while the linker writes it
            why = str(e)
        else:
            if not (r[0] == 127 and "error while loading shared libraries" in r[1]):
                return r
            why = r[1].strip()[:200]
        if attempt % 30 == 0:
            print(f"fuzz_opt: cannot run {cmd[0]} ({why}); waiting for it to come back", file=sys.stderr,
                  flush=True)
        time.sleep(2)
    raise RuntimeError(f"{cmd[0]} did not come back in 10 minutes")


def _run_once(cmd, timeout, mem, cwd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         cwd=cwd, env=ENV, preexec_fn=_limits(mem), start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, err = p.communicate()
        timed_out = True
    return p.returncode, err.decode("utf-8", "replace"), time.monotonic() - t0, timed_out


_SKIP_FRAME = re.compile(r"llvm::sys::|SignalHandler|__restore_rt|\braise\b|\babort\b|__assert_fail|pthread_kill|"
                         r"gsignal|report_fatal_error|llvm_unreachable_internal|__cxa_|std::terminate|"
                         r"__gnu_cxx|libc\.so|libstdc\+\+|std::__terminate|_Unwind|__libc_|llvm::report_bad_alloc")


def first_frame(err):
    """The first symbolized frame of an LLVM stack dump past the signal/abort machinery, as
    `name` without its parameter list (else the first unsymbolized frame, module+offset)."""
    fallback = None
    for line in err.splitlines():
        m = re.match(r"\s*#\d+\s+0x[0-9a-f]+\s+(.*)$", line)
        if not m:
            continue
        sym = m.group(1).strip()
        if _SKIP_FRAME.search(sym):
            continue
        sym = re.sub(r"\s+\S+:\d+(:\d+)?$", "", sym)            # file:line:col from the symbolizer
        mod = re.fullmatch(r"\(([^)+]*)\+(0x[0-9a-f]+)\)", sym)  # unsymbolized: (module+offset)
        if mod:
            fallback = fallback or f"{os.path.basename(mod.group(1))}+{mod.group(2)}"
            continue
        sym = sym.replace("(anonymous namespace)", "{anon}")
        depth, cut = 0, len(sym)
        for i, c in enumerate(sym):  # drop the parameter list: the first '(' outside <...>
            depth += c == "<"
            depth -= c == ">"
            if c == "(" and depth == 0:
                cut = i
                break
        return sym[:cut][:200]
    return fallback


def classify_result(rc, err, timed_out):
    """None when fine, else (what, signature-detail)."""
    if timed_out:
        return "timeout"
    if rc is not None and (rc < 0 or rc >= 128):
        return f"signal {-rc if rc < 0 else rc - 128}"
    for pat in BAD_PATTERNS:
        if pat in err:
            return f"output '{pat}'"
    return None


def signature(what, mode, err, mu):
    frame = first_frame(err)
    detail = None
    for line in err.splitlines():
        if any(p in line for p in ("LLVM ERROR", "Assertion", "UNREACHABLE")):
            detail = re.sub(r"\d+", "N", line.strip())[:200]
            break
    if what == "timeout":
        return f"timeout | {mode} | {mu.source.split('#')[0]}"
    return f"{what} | {detail or ''} | {frame or '?'}"


# ----------------------------------------------------------------- driver

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.mutants = 0
        self.modes = {m: {"ok": 0, "rejected": 0, "other-rc": 0, "finding": 0, "skipped": 0}
                      for m in ("parse", "pipeline")}
        self.kinds = {"ttir": 0, "ttgir": 0}
        self.findings = {}  # signature -> dict
        self.slowest = (0.0, None)


def write_mutant(mu, path):
    Path(path).write_bytes(mu.text.encode("utf-8", "surrogateescape"))


def evaluate(mu, opt, timeout, mem, workdir):
    """Runs the modes on a mutant; returns a list of (mode, rc, err, secs, timed_out, cmd)."""
    f = Path(workdir) / f"m{mu.ext}"
    write_mutant(mu, f)
    kind = classify(mu.text)
    cmds = commands(opt, f, kind, mu.opts)
    res = []
    rc, err, secs, to = run_cmd(cmds["parse"], timeout, mem, workdir)
    res.append(("parse", rc, err, secs, to, cmds["parse"]))
    if rc == 0 and not to and classify_result(rc, err, to) is None:
        rc, err, secs, to = run_cmd(cmds["pipeline"], timeout, mem, workdir)
        res.append(("pipeline", rc, err, secs, to, cmds["pipeline"]))
    return kind, res


def record(stats, mu, kind, res, out_dir, opt_display):
    new = []
    with stats.lock:
        stats.mutants += 1
        stats.kinds[kind] += 1
        modes_seen = set()
        for mode, rc, err, secs, to, cmd in res:
            modes_seen.add(mode)
            if secs > stats.slowest[0]:
                stats.slowest = (secs, f"{mu.seed}:{mu.index} {mode}")
            what = classify_result(rc, err, to)
            if what is None:
                stats.modes[mode]["ok" if rc == 0 else "rejected" if rc == 1 else "other-rc"] += 1
                continue
            stats.modes[mode]["finding"] += 1
            sig = signature(what, mode, err, mu)
            f = stats.findings.get(sig)
            if f is not None:
                f["count"] += 1
                continue
            h = hashlib.sha1(sig.encode()).hexdigest()[:10]
            d = Path(out_dir) / h
            d.mkdir(parents=True, exist_ok=True)
            inp = d / f"mutant-{mu.seed}-{mu.index}{mu.ext}"
            write_mutant(mu, inp)
            shown = [opt_display] + [str(inp) if c == cmd[1] else c for c in cmd[1:]]
            (d / "stderr.txt").write_text(err)
            cmdline = " ".join(shlex.quote(c) for c in shown)
            (d / "cmd.sh").write_text("#!/bin/sh\n" + cmdline + "\n")
            info = {"signature": sig, "what": what, "mode": mode, "rc": rc, "seconds": round(secs, 2),
                    "replay": f"{mu.seed}:{mu.index}", "seed_input": mu.source, "mutations": mu.mutations,
                    "kind": kind, "input": str(inp), "command": cmdline}
            (d / "info.json").write_text(json.dumps(info, indent=2) + "\n")
            f = dict(info, count=1, dir=str(d), stderr_head=err.splitlines()[:30])
            stats.findings[sig] = f
            new.append(f)
        for mode in ("parse", "pipeline"):
            if mode not in modes_seen:
                stats.modes[mode]["skipped"] += 1
    return new


def print_summary(stats, elapsed, seed, out, fh=sys.stdout):
    p = lambda *a: print(*a, file=fh)
    p("== fuzz_opt summary ==")
    p(f"seed {seed}: {stats.mutants} mutants in {elapsed:.0f} s "
      f"({stats.mutants / max(elapsed, 1e-9):.1f}/s); ttir {stats.kinds['ttir']}, ttgir {stats.kinds['ttgir']}")
    for mode, c in stats.modes.items():
        p(f"  {mode:9s} " + ", ".join(f"{k} {v}" for k, v in c.items()))
    if stats.slowest[1]:
        p(f"  slowest run: {stats.slowest[0]:.2f} s ({stats.slowest[1]})")
    p(f"findings: {len(stats.findings)} distinct, {sum(f['count'] for f in stats.findings.values())} total")
    for f in stats.findings.values():
        p(f"  [{f['count']}x] {f['signature']}")
        p(f"      input: {f['input']}   (replay {f['replay']}, from {f['seed_input']})")
        p(f"      mutations: {'; '.join(f['mutations'])}")
        p(f"      command: {f['command']}")
        for l in f["stderr_head"][:12]:
            p(f"      | {l[:200]}")
    if stats.findings:
        p(f"findings saved under {out}")


def parse_replay(s):
    m = re.fullmatch(r"(-?\d+):(\d+)", s)
    if not m:
        raise argparse.ArgumentTypeError("expected SEED:INDEX")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--count", type=int, default=None, help="mutants to run (default: unbounded with --time, "
                    "else 1000)")
    ap.add_argument("--time", type=float, default=None, help="stop starting mutants after this many seconds")
    ap.add_argument("--jobs", "-j", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0, help="per-run time limit, seconds (default 10)")
    ap.add_argument("--mem-gib", type=float, default=4.0, help="per-run RLIMIT_AS in GiB (0: none; default 4)")
    ap.add_argument("--opt", default=str(REPO / "build/bin/tessera-opt"))
    ap.add_argument("--seed", type=int, default=None, help="RNG seed (default: from the clock, printed)")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--out", default=str(REPO / "fuzz-findings"), help="where findings go")
    ap.add_argument("--conformance", default=str(REPO.parent / "shared/conformance"),
                    help="conformance TTIR/TTGIR directory ('' to skip)")
    ap.add_argument("--no-generic-seeds", action="store_true",
                    help="do not add the generic-form print of each seed to the corpus")
    ap.add_argument("--check-seeds", action="store_true", help="run the unmutated seeds through both modes")
    ap.add_argument("--replay", type=parse_replay, metavar="SEED:INDEX", help="re-create one mutant")
    ap.add_argument("--replay-out", default=None, help="file for --replay (default fuzz-mutant-SEED-INDEX.EXT)")
    ap.add_argument("--run", action="store_true", help="with --replay: also run it and show the results")
    ap.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines (0: none)")
    ap.add_argument("--quiet", "-q", action="store_true")
    a = ap.parse_args(argv)

    log = (lambda *x: None) if a.quiet else (lambda *x: print(*x, file=sys.stderr, flush=True))
    warn = lambda *x: print(*x, file=sys.stderr, flush=True)
    opt = shutil.which(a.opt) or a.opt
    if not (os.path.isfile(opt) and os.access(opt, os.X_OK)):
        warn(f"error: tessera-opt not found at {a.opt!r} (pass --opt)")
        return 2
    opt = os.path.abspath(opt)
    _load_pipelines()
    seeds = collect_seeds(a.conformance or None, warn)
    if not seeds:
        warn("error: no seeds")
        return 2
    n_plain = len(seeds)
    seeds = add_generic_seeds(seeds, opt, a.timeout, a.mem_gib, add=not a.no_generic_seeds)
    ctx = build_context(seeds)
    log(f"fuzz_opt: {n_plain} seeds ({sum(s.valid for s in seeds[:n_plain])} parse and verify) "
        f"+ {len(seeds) - n_plain} generic forms; {len(ctx['opnames'])} op names; opt {opt}")

    if a.check_seeds:
        return check_seeds(seeds, opt, a, log)

    seed = a.seed if a.seed is not None else int(time.time()) % 1000000
    if a.replay:
        rs, ri = a.replay
        mu = make_mutant(rs, ri, seeds, ctx)
        path = Path(a.replay_out or f"fuzz-mutant-{rs}-{ri}{mu.ext}")
        write_mutant(mu, path)
        kind = classify(mu.text)
        print(f"mutant {rs}:{ri} of {mu.source} ({kind}) -> {path}")
        print("mutations: " + "; ".join(mu.mutations))
        for mode, cmd in commands(opt, path, kind, mu.opts).items():
            print(f"{mode}: " + " ".join(shlex.quote(c) for c in cmd))
        if a.run:
            with tempfile.TemporaryDirectory(prefix="fuzz-opt.") as d:
                for mode, cmd in commands(opt, path.resolve(), kind, mu.opts).items():
                    rc, err, secs, to = run_cmd(cmd, a.timeout, a.mem_gib, d)
                    what = classify_result(rc, err, to)
                    print(f"== {mode}: rc={rc} {secs:.2f}s {'FINDING: ' + what if what else 'fine'}")
                    print(err[-4000:])
        return 0

    count = a.count if a.count is not None else (None if a.time else 1000)
    log(f"fuzz_opt: seed {seed}, count {count}, time {a.time}, jobs {a.jobs}, timeout {a.timeout}s, "
        f"mem {a.mem_gib} GiB, out {a.out}")
    stats = Stats()
    t0 = time.monotonic()
    deadline = t0 + a.time if a.time else None
    last = [t0]
    stop = threading.Event()

    def indices():
        i = a.start
        while (count is None or i < a.start + count) and not stop.is_set():
            if deadline and time.monotonic() >= deadline:
                return
            yield i
            i += 1

    tls = threading.local()
    tmp_root = tempfile.mkdtemp(prefix="fuzz-opt.")

    def work(i):
        if not hasattr(tls, "dir"):
            tls.dir = tempfile.mkdtemp(dir=tmp_root)
        mu = make_mutant(seed, i, seeds, ctx)
        kind, res = evaluate(mu, opt, a.timeout, a.mem_gib, tls.dir)
        new = record(stats, mu, kind, res, a.out, opt)
        for f in new:
            warn(f"fuzz_opt: NEW FINDING [{f['signature']}] mutant {f['replay']} -> {f['input']}")
        now = time.monotonic()
        if a.progress and now - last[0] >= a.progress:
            last[0] = now
            log(f"fuzz_opt: {stats.mutants} mutants, {now - t0:.0f} s, {len(stats.findings)} distinct findings, "
                + ", ".join(f"{m} ok/rej {c['ok']}/{c['rejected']}" for m, c in stats.modes.items()))

    try:
        if a.jobs <= 1:
            for i in indices():
                work(i)
        else:
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
                pending = set()
                for i in indices():
                    pending.add(ex.submit(work, i))
                    if len(pending) >= 2 * a.jobs:
                        done, pending = concurrent.futures.wait(pending,
                                                                return_when=concurrent.futures.FIRST_COMPLETED)
                        for d in done:
                            d.result()
                for d in concurrent.futures.as_completed(pending):
                    d.result()
    except KeyboardInterrupt:
        stop.set()
        warn("fuzz_opt: interrupted")
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    elapsed = time.monotonic() - t0
    print_summary(stats, elapsed, seed, a.out)
    if stats.findings:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / f"summary-{seed}.json").write_text(json.dumps(
            {"seed": seed, "mutants": stats.mutants, "seconds": round(elapsed, 1), "modes": stats.modes,
             "findings": list(stats.findings.values())}, indent=2) + "\n")
    return 1 if stats.findings else 0


def check_seeds(seeds, opt, a, log):
    counts = {"ttir": [0, 0, 0], "ttgir": [0, 0, 0]}  # seeds, parse ok, pipeline ok
    findings = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-opt.") as d:
        for s in seeds:
            kind = classify(s.text)
            f = Path(d) / ("s" + s.ext)
            f.write_text(s.text)
            cmds = commands(opt, f, kind, DEFAULT_OPTS)
            c = counts[kind]
            c[0] += 1
            rc, err, secs, to = run_cmd(cmds["parse"], a.timeout, a.mem_gib, d)
            what = classify_result(rc, err, to)
            status = f"parse rc={rc}"
            if rc == 0 and not what:
                c[1] += 1
                rc2, err2, secs2, to2 = run_cmd(cmds["pipeline"], a.timeout, a.mem_gib, d)
                w2 = classify_result(rc2, err2, to2)
                what = what or w2
                if rc2 == 0 and not w2:
                    c[2] += 1
                status += f" pipeline rc={rc2}"
                if rc2 != 0:
                    first = next((l for l in err2.splitlines() if "error" in l), "")
                    status += "  " + first[:150]
            if what:
                findings += 1
                status += f"  FINDING: {what}"
            log(f"{kind:5s} {s.name}: {status}")
    for k, (n, p, q) in counts.items():
        print(f"{k}: {n} seeds, {p} parse+verify, {q} pass the full {k} pipeline")
    print(f"findings on unmutated seeds: {findings}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
