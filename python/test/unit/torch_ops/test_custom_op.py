"""tessera.torch.custom_op: kernels registered as PyTorch operators whose schemas declare what the
kernel writes (from the effects analysis), run here in the interpreter on CPU tensors."""
import pytest
import torch

import tessera
import tessera.language as tl
import tessera.torch as ttorch


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")


@tessera.jit
def axpy(x, y, out, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, a * tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@tessera.jit
def bump(acc, x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(acc + offs, tl.load(acc + offs, mask=m) + tl.load(x + offs, mask=m), mask=m)


@tessera.jit
def desc_copy(src, dst, n, BLOCK: tl.constexpr):
    # the destination is written through a descriptor made on the device
    d = tl.make_tensor_descriptor(dst, shape=[n], strides=[1], block_shape=[BLOCK])
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    d.store([tl.program_id(0) * BLOCK], tl.load(src + offs, mask=offs < n))


SIG = {"x": "*fp32", "y": "*fp32", "out": "*fp32", "a": "fp32", "n": "i32"}


def grid(args):
    return (tessera.cdiv(args["n"], 128),)


def test_the_schema_declares_what_the_kernel_writes():
    op = ttorch.custom_op("tessera_test::axpy", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)
    assert op.mutated == ["out"]
    assert op.schema == "tessera_test::axpy(Tensor x, Tensor y, Tensor(a!) out, float a, int n) -> ()"
    assert str(op.op._schema) == op.schema
    assert op.effects["x"]["effect"] == "read" and op.effects["out"]["effect"] == "written"
    x, y, out = torch.randn(1000), torch.randn(1000), torch.zeros(1000)
    assert op(x, y, out, 2.0, 1000) is None
    torch.testing.assert_close(out, 2.0 * x + y)
    torch.ops.tessera_test.axpy(x, y, out, -1.0, 1000)  # the same op through torch.ops
    torch.testing.assert_close(out, y - x)


def test_read_write_and_descriptor_stores_are_mutations():
    op = ttorch.custom_op("tessera_test::bump", bump, signature={"acc": "*fp32", "x": "*fp32", "n": "i32"},
                          constexprs={"BLOCK": 128}, grid=grid)
    assert op.mutated == ["acc"] and "Tensor(a!) acc, Tensor x" in op.schema
    acc, x = torch.ones(300), torch.arange(300.0)
    op(acc, x, 300)
    torch.testing.assert_close(acc, 1 + torch.arange(300.0))
    cp = ttorch.custom_op("tessera_test::desc_copy", desc_copy, signature={"src": "*fp32", "dst": "*fp32", "n": "i32"},
                          constexprs={"BLOCK": 128}, grid=grid)
    assert cp.mutated == ["dst"] and "Tensor src, Tensor(a!) dst" in cp.schema
    src, dst = torch.randn(256), torch.zeros(256)
    cp(src, dst, 256)
    torch.testing.assert_close(dst, src)


def test_declared_mutations_are_checked():
    with pytest.raises(ValueError, match="axpy writes out, which mutates_args leaves out \\(out: store at line"):
        ttorch.custom_op("tessera_test::axpy_bad", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid,
                         mutates_args=["x"])
    # more than the kernel writes is allowed (the caller may know better); not a non-tensor
    op = ttorch.custom_op("tessera_test::axpy_more", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid,
                          mutates_args=["out", "y"])
    assert op.schema.startswith("tessera_test::axpy_more(Tensor x, Tensor(a!) y, Tensor(b!) out,")
    with pytest.raises(ValueError, match="n is not tensor parameters|are not tensor|is not tensor"):
        ttorch.custom_op("tessera_test::axpy_n", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid,
                         mutates_args=["out", "n"])


def test_bad_registrations_are_errors():
    with pytest.raises(ValueError, match="'namespace::name'"):
        ttorch.custom_op("axpy", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)
    with pytest.raises(TypeError, match="no type for n"):
        ttorch.custom_op("tessera_test::a2", axpy, signature={k: v for k, v in SIG.items() if k != "n"},
                         constexprs={"BLOCK": 128}, grid=grid)
    with pytest.raises(TypeError, match="registers @tessera.jit kernels"):
        ttorch.custom_op("tessera_test::a3", len, signature={}, grid=grid)
    ttorch.custom_op("tessera_test::twice", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)
    with pytest.raises(ValueError, match="cannot register tessera_test::twice"):
        ttorch.custom_op("tessera_test::twice", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)


def test_fake_tensors_trace_through_the_meta_implementation():
    op = ttorch.custom_op("tessera_test::axpy_meta", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)
    x = torch.empty(64, device="meta")
    assert op(x, x, torch.empty(64, device="meta"), 1.0, 64) is None  # no launch, no error


def test_a_tensor_saved_for_backward_and_then_written_fails_the_version_check():
    op = ttorch.custom_op("tessera_test::axpy_version", axpy, signature=SIG, constexprs={"BLOCK": 128}, grid=grid)
    w = torch.randn(100, requires_grad=True)
    out = torch.randn(100)
    loss = (w * out).sum()  # saves `out` for w's gradient
    op(torch.randn(100), torch.randn(100), out, 1.0, 100)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@tessera.jit
def fill_first(BLOCK: tl.constexpr, out, n, value):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, value, mask=offs < n)


def test_constexprs_before_run_time_parameters():
    op = ttorch.custom_op("tessera_test::fill_first", fill_first, signature={"out": "*fp32", "n": "i32", "value": "fp32"},
                          constexprs={"BLOCK": 64}, grid=lambda a: (tessera.cdiv(a["n"], 64),))
    out = torch.zeros(100)
    op(out, 100, 2.5)
    assert (out == 2.5).all()
