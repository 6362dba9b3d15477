"""The backend boundary: no code under lib/ or python/tessera outside backends/ names a GPU vendor
(its drivers, tools, instruction sets or targets). Comments and docstrings may name them as
examples; code, string literals included, may not: vendor specifics belong in third_party/<vendor>
and python/tessera/backends (docs/backends.md)."""
import io
import os
import re
import tokenize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VENDOR = re.compile(r"\b(nvidia|nvvm|cuda|ptx|ptxas|cubin|sm_\d+|amd|amdgpu|amdgcn|hip|hsaco|rocm|rocdl|"
                    r"gfx\d+\w*)\b", re.I)


def python_code(path):
    """(line, text) of the tokens of a Python file that are code: no comments, no docstrings."""
    with open(path) as f:
        toks = list(tokenize.generate_tokens(f.readline))
    out = []
    for i, t in enumerate(toks):
        if t.type == tokenize.COMMENT:
            continue
        if t.type == tokenize.STRING:
            j = i - 1
            while j >= 0 and toks[j].type in (tokenize.NL, tokenize.COMMENT):
                j -= 1
            if j < 0 or toks[j].type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                continue  # a docstring
        out.append((t.start[0], t.string))
    return out


def cpp_code(path):
    with open(path) as f:
        src = f.read()
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return [(n, re.sub(r"//.*", "", line)) for n, line in enumerate(src.split("\n"), 1)]


def vendor_names(base, exts, code, skip=()):
    hits = []
    for d, _, files in os.walk(os.path.join(ROOT, base)):
        if any(s in d for s in skip):
            continue
        for f in sorted(files):
            if f.endswith(exts):
                path = os.path.join(d, f)
                for n, text in code(path):
                    for m in VENDOR.finditer(text):
                        hits.append(f"{os.path.relpath(path, ROOT)}:{n}: {m.group(0)!r} in {text.strip()[:80]}")
    return hits


def test_lib_names_no_vendor():
    assert vendor_names("lib", (".cpp", ".h"), cpp_code) == []


def test_python_package_names_no_vendor_outside_backends():
    assert vendor_names(os.path.join("python", "tessera"), (".py",), python_code,
                        skip=(os.sep + "backends",)) == []


def test_the_check_finds_vendor_code(tmp_path):
    p = tmp_path / "x.py"
    p.write_text('"""a docstring about CUDA"""\n# a comment about hip\nx = "cuda:90"\n')
    assert [t for _, t in python_code(str(p)) if VENDOR.search(t)] == ['"cuda:90"']
    c = tmp_path / "x.cpp"
    c.write_text("// NVIDIA here is fine\n/* and AMD */ int amd = 1;\n")
    assert [t for _, t in cpp_code(str(c)) if VENDOR.search(t)] == [" int amd = 1;"]
