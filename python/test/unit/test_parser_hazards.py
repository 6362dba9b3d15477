"""Input MLIR 22's parser crashes on (a dense array of index) is a located error from every entry
point, never a crash of the process."""

import tessera
from tessera import _core


def test_parse_mlir_reports_dense_array_of_index():
    for text in ("module attributes {x = array<index: 1, 0, 0>} {}",
                 "!i = index\nmodule attributes {x = array<!i>} {}"):
        r = tessera.parse_mlir(text, "k.mlir")
        assert not r.ok
        (d,) = r.diagnostics
        assert d.file == "k.mlir" and d.line >= 1 and "dense arrays of index" in d.message


def test_run_passes_and_compile_report_it_too():
    text = "module attributes {x = array<index: 2>} {}"
    r = _core._native().run_passes(text, "builtin.module(canonicalize)", "k.mlir")
    assert not r.ok and "dense arrays of index" in r.diagnostics[0].message
    c = _core._native().compile(text, "cuda:90", [("canon", "builtin.module(canonicalize)")], [], {}, "k.mlir")
    assert not c.ok and c.failed_stage == "parse" and "dense arrays of index" in c.diagnostics[0].message
