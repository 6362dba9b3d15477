"""tessera._C: version, and parse + verify of MLIR text with located diagnostics."""

import glob
import os

import pytest

import tessera
from tessera import _C

from ..conftest import CONFORMANCE


def test_versions():
    assert _C.version() == tessera.__version__
    assert tessera.llvm_version().startswith("22.")


def test_valid_module_round_trips():
    text = """
    tt.func public @k(%p: !tt.ptr<f32>, %n: i32) {
      %pid = tt.get_program_id x : i32
      %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
      %s = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
      %q = tt.addptr %s, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
      %v = tt.load %q : tensor<128x!tt.ptr<f32>>
      tt.store %q, %v : tensor<128x!tt.ptr<f32>>
      tt.return
    }
    """
    res = tessera.parse_mlir(text)
    assert res.ok and bool(res)
    assert res.diagnostics == []
    assert "tt.get_program_id x : i32" in res.module
    again = tessera.parse_mlir(res.module)
    assert again.ok and again.module == res.module


def test_verifier_error_is_located_at_the_kernel_source():
    text = """
    tt.func @k(%p: tensor<128x!tt.ptr<f32>>, %m: tensor<64xi1>) {
      %v = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tt.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32> loc("kernel.py":12:8)
      tt.return
    }
    """
    res = tessera.parse_mlir(text, "k.mlir")
    assert not res.ok
    assert res.module == ""
    (d,) = res.diagnostics
    assert (d.severity, d.file, d.line, d.column) == ("error", "kernel.py", 12, 8)
    assert "mask" in d.message and "[128]" in d.message and "[64]" in d.message
    assert str(d).startswith("kernel.py:12:8: error:")


def test_syntax_error_points_into_the_buffer():
    res = tessera.parse_mlir("tt.func @k() {\n  %0 = tt.splat\n}\n", "broken.mlir")
    assert not res.ok
    d = res.diagnostics[0]
    assert d.file == "broken.mlir" and d.line >= 2 and d.column > 0


def test_verify_mlir_raises_with_all_diagnostics():
    bad = """
    tt.func @k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
      %d = tt.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
      tt.return
    }
    """
    with pytest.raises(tessera.MLIRError) as info:
        tessera.verify_mlir(bad, "dot.mlir")
    assert "K dimensions to match" in str(info.value)
    assert info.value.diagnostics[0].file == "dot.mlir"
    assert info.value.diagnostics[0].line == 3


def test_non_text_input_is_a_type_error():
    with pytest.raises(TypeError, match="expects MLIR text as str"):
        tessera.parse_mlir(b"module {}")


@pytest.mark.parametrize("junk", ["", "}}}}", "\x00\x01\x02", "tt.func @f(", "module { tt.return }", "\u00e9" * 100])
def test_malformed_text_never_crashes(junk):
    res = tessera.parse_mlir(junk)
    if junk == "":
        assert res.ok
    else:
        assert not res.ok and res.diagnostics


def test_conformance_ttir_verifies():
    files = sorted(glob.glob(os.path.join(CONFORMANCE, "triton-3.6", "*.ttir")))
    assert len(files) >= 13, f"conformance TTIR not found under {CONFORMANCE}"
    for path in files:
        with open(path) as f:
            res = tessera.parse_mlir(f.read(), path)
        assert res.ok, (path, [str(d) for d in res.diagnostics])
        assert tessera.parse_mlir(res.module).module == res.module


def test_unlocated_op_is_reported_at_its_parent():
    text = """
    tt.func public @k(%x: tensor<32xi32>) {
      %e = tt.expand_dims %x {axis = 3 : i32} : tensor<32xi32> -> tensor<32x1xi32> loc(unknown)
      tt.return
    } loc("kernel.py":20:0)
    """
    res = tessera.parse_mlir(text, "k.mlir")
    assert not res.ok
    d = res.diagnostics[0]
    assert (d.file, d.line, d.column) == ("kernel.py", 20, 0)
    assert "axis in [0, 1], but got 3" in d.message


def test_deep_nesting_is_an_error_not_a_crash():
    depth = 5000
    text = "tt.func @k(%c: i1) {\n" + "scf.if %c {\n" * depth + "}\n" * depth + "tt.return\n}\n"
    res = tessera.parse_mlir(text, "deep.mlir")
    assert not res.ok
    d = res.diagnostics[0]
    assert d.file == "deep.mlir" and "nests deeper than 4096" in d.message and d.line > 4000
    ok = "tt.func @k(%c: i1) {\n" + "scf.if %c {\n" * 1000 + "}\n" * 1000 + "tt.return\n}\n"
    assert tessera.parse_mlir(ok, print_module=False).ok
