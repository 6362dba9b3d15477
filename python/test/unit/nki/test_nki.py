"""tessera.nki: NKI's tutorial kernels on the interpreter's core, checked against PyTorch; the
interpreter's clients (tracer, sanitizer, access pictures) on NKI kernels; errors."""
import inspect

import numpy as np
import pytest
import torch

import tessera.nki as nki
import tessera.nki.language as nl
from tessera.interpreter import LoadRecord, StoreRecord, observe
from tessera.interpreter.clients import Tracer
from tessera.interpreter.pictures import AccessMap
from tessera.interpreter.sanitizer import Sanitizer

from . import kernels as K


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_tensor_add_over_a_grid_of_programs():
    a, b = torch.randn(256, 1024), torch.randn(256, 1024)
    c = K.tensor_add[2, 2](a, b)
    assert isinstance(c, torch.Tensor) and c.dtype == a.dtype and torch.equal(c, a + b)
    # numpy in, numpy out; one program covers one 128 x 512 block
    x = np.random.default_rng(0).random((128, 512), dtype=np.float32)
    y = K.tensor_add(x, x)
    assert isinstance(y, np.ndarray) and np.array_equal(y, x + x)


def test_matmul_with_the_stationary_operand_transposed():
    torch.manual_seed(1)
    lhsT = torch.randn(256, 128, dtype=torch.float16)
    rhs = torch.randn(256, 384, dtype=torch.float16)
    out = K.matmul(lhsT, rhs)
    assert out.shape == (128, 384) and out.dtype == torch.float16
    torch.testing.assert_close(out.float(), lhsT.float().T @ rhs.float(), atol=5e-2, rtol=1e-2)


def test_softmax_with_masked_rows():
    x = torch.randn(300, 256)  # 3 programs of 128 rows, the last one partly past the end
    torch.testing.assert_close(K.softmax[3](x), torch.softmax(x, dim=1))


def test_rmsnorm():
    x, g = torch.randn(300, 256), torch.randn(256)
    ref = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-6) * g
    torch.testing.assert_close(K.rmsnorm(x, g, 1e-6), ref)


def test_layernorm():
    x, g, b = torch.randn(300, 256), torch.randn(256), torch.randn(256)
    torch.testing.assert_close(K.layernorm[3](x, g, b, 1e-5), torch.nn.functional.layer_norm(x, (256,), g, b, 1e-5))


def test_slices_ints_and_reductions_over_several_axes():
    @nki.jit
    def corner_sums(a):
        out = nl.ndarray((2,), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a[0:4, 2:6])                   # a 4 x 4 tile by slices
        row = nl.load(a[1, nl.arange(8)[None, :]])  # an int index: one row, 1 x 8
        i = nl.arange(2)
        nl.store(out[i], value=nl.where(i == 0, nl.sum(t, axis=(0, 1)), nl.max(row, axis=1)))
        return out
    a = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    assert corner_sums(a).tolist() == [a[0:4, 2:6].sum().item(), a[1].max().item()]


def test_clients_see_nki_kernels_with_their_lines():
    a, b = torch.randn(256, 512), torch.randn(256, 512)
    tracer, pictures = Tracer(), AccessMap()
    with observe(tracer, pictures):
        K.tensor_add[2, 1](a, b)
    loads = tracer.of_type(LoadRecord)
    stores = tracer.of_type(StoreRecord)
    assert len(loads) == 4 and len(stores) == 2
    assert {r.lineno for r in loads} == {line_of(K.tensor_add, "a_tile = nl.load"), line_of(K.tensor_add, "b_tile = ")}
    assert {r.pid for r in stores} == {(0, 0, 0), (1, 0, 0)}
    assert tracer.kernels[0].kernel == "tensor_add" and tuple(tracer.kernels[0].grid) == (2, 1, 1)
    # every element of the output stored once, program 0 the first 128 rows
    assert (pictures.count("output0", "store") == 1).all()
    assert (pictures.first("a_input", "load")[:128] == 0).all() and (pictures.first("a_input", "load")[128:] == 1).all()


@nki.jit
def overrun(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:64]
    nl.store(out[i_p, i_f], value=nl.load(a[i_p, i_f]))  # a has 100 rows: no mask
    return out


def test_an_unmasked_read_past_the_end_is_an_index_error_before_any_access():
    a = torch.randn(100, 64)
    san = Sanitizer()
    with observe(san):
        with pytest.raises(IndexError, match="nl.load of a: index 100 is outside dimension 0 \\(size 100\\)") as e:
            overrun(a)
    assert san.findings == []  # nothing reached memory
    assert any(t.lineno + 1 == line_of(overrun, "value=nl.load(a[i_p, i_f])") for t in e.traceback)  # (0-based)


def test_the_sanitizer_finds_programs_writing_the_same_rows():
    @nki.jit
    def same_rows(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:128, 0:64]
        nl.store(out[i_p, i_f], value=nl.load(a[i_p, i_f]) * nl.program_id(0))  # no program offset
        return out
    with observe(Sanitizer()) as san:
        same_rows[2](torch.randn(128, 64))
    assert [f.kind for f in san.findings] == ["write-write"]
    [f] = san.findings
    assert f.arg_name == "output0" and {f.first.pid, f.second.pid} == {(0, 0, 0), (1, 0, 0)}
    assert f.first.lineno == f.second.lineno == line_of(same_rows, "nl.store(out[i_p, i_f]")


def test_errors_name_the_problem():
    @nki.jit
    def returns_a_tile(a):
        return nl.load(a[nl.arange(4)])

    with pytest.raises(TypeError, match="returns tensors in HBM"):
        returns_a_tile(torch.zeros(4))

    @nki.jit
    def mixes(a):
        return nl.load(a[0:4, nl.arange(4)[None, :]])

    with pytest.raises(IndexError, match="tiles .* or with slices, not both"):
        mixes(torch.zeros(4, 4))

    @nki.jit
    def shape_depends_on_program(a):
        pid = int(nl.program_id(0).handle)  # (a concrete value in the interpreter)
        out = nl.ndarray((1 + pid,), dtype=a.dtype, buffer=nl.shared_hbm)
        return out

    with pytest.raises(ValueError, match="every program must make the same outputs"):
        shape_depends_on_program[2](torch.zeros(4))
    with pytest.raises(AttributeError, match="nl.gather_flattened is not provided"):
        nl.gather_flattened
    with pytest.raises(TypeError, match="not a dtype tessera.nki knows"):
        nl.tl_dtype("complex")
    with pytest.raises(TypeError, match="arguments \\['engine'\\] are not supported"):
        K_load_with_engine(torch.zeros(4))


@nki.jit
def K_load_with_engine(a):
    return nl.load(a[nl.arange(4)], engine="act")


def test_indices_are_checked_per_dimension():
    a = torch.arange(32, dtype=torch.float32).reshape(4, 8)

    @nki.jit
    def last_of_row(a):
        out = nl.ndarray((1,), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out[0], value=nl.load(a[2, -1]))  # negative: from the end
        return out
    assert last_of_row(a).tolist() == [23.0]

    @nki.jit
    def past_the_row(a):
        out = nl.ndarray((4, 16), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:4, 0:16]
        nl.store(out[i_p, i_f], value=nl.load(a[i_p, i_f]))  # 16 columns of an 8-column tensor
        return out
    with pytest.raises(IndexError, match="nl.load of a: index 8 is outside dimension 1 \\(size 8\\)"):
        past_the_row(a)

    @nki.jit
    def masked(a):
        out = nl.ndarray((4, 16), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:4, 0:16]
        nl.store(out[i_p, i_f], value=nl.load(a[i_p, i_f], mask=i_f < 8))  # the mask keeps it inside
        return out
    out = masked(a)
    assert torch.equal(out[:, :8], a) and (out[:, 8:] == 0).all()

    @nki.jit
    def bad_int(a):
        return nl.load(a[4, nl.arange(8)[None, :]])
    with pytest.raises(IndexError, match="index 4 is outside dimension 0 \\(size 4\\)"):
        bad_int(a)
