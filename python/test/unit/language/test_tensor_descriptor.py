"""Tensor descriptors (tl.make_tensor_descriptor, TensorDescriptor kernel arguments, desc.load/store,
the atomics, gather/scatter): results in the interpreter against numpy, the TTIR they compile to
(masked pointer accesses), the launch key, the host-side checks and the errors."""

import copy
import importlib.util
import os
import pickle
import sys

import numpy as np
import pytest
import torch

import tessera
import tessera.language as tl
from tessera.compiler import compiler
from tessera.interpreter import OutOfBoundsError
from tessera.runtime import cache, specialize
from tessera.tools.tensor_descriptor import TensorDescriptor

from .helpers import ROOT, interpret, line_of, ttir_for

RNG = np.random.default_rng(7)


def f32(*shape):
    return RNG.uniform(-2.0, 2.0, size=shape).astype(np.float32)


def ref_tile(x, offsets, block, pad=0.0):
    """The block of x at offsets, with `pad` outside x (what a descriptor load gives)."""
    out = np.full(block, pad, dtype=x.dtype)
    idx = np.indices(block).reshape(len(block), -1).T
    for i in idx:
        src = tuple(int(o) + int(k) for o, k in zip(offsets, i))
        if all(0 <= s < n for s, n in zip(src, x.shape)):
            out[tuple(i)] = x[src]
    return out


def ref_store(y, offsets, value):
    """y with the in-bounds part of `value` written at offsets (what a descriptor store does)."""
    y = y.copy()
    for i in np.indices(value.shape).reshape(value.ndim, -1).T:
        dst = tuple(int(o) + int(k) for o, k in zip(offsets, i))
        if all(0 <= s < n for s, n in zip(dst, y.shape)):
            y[dst] = value[tuple(i)]
    return y

# ------------------------------------------------------------------ kernels


@tessera.jit
def load_2d(x_ptr, out_ptr, M, N, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN],
                                     padding_option=PAD)
    tile = desc.load([off_m, off_n])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, tile)


@tessera.jit
def store_2d(v_ptr, y_ptr, M, N, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tile = tl.load(v_ptr + rows * BN + cols)
    desc = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    desc.store([off_m, off_n], tile)


@tessera.jit
def copy_1d(x_ptr, y_ptr, n, shift, B: tl.constexpr):
    dx = tl.make_tensor_descriptor(x_ptr, [n], [1], [B])
    dy = tl.make_tensor_descriptor(y_ptr, [n], [1], [B])
    off = tl.program_id(0) * B + shift
    v = tl.load_tensor_descriptor(dx, [off])
    tl.store_tensor_descriptor(dy, [off], v * 2)


@tessera.jit
def copy_3d(x_ptr, y_ptr, A, B, C, sa, sb, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    dx = tl.make_tensor_descriptor(x_ptr, [A, B, C], [sa, sb, 1], [BA, BB, BC])
    dy = tl.make_tensor_descriptor(y_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    offs = [tl.program_id(0) * BA, tl.program_id(1) * BB, tl.program_id(2) * BC]
    dy.store(offs, dx.load(offs) + 1)


@tessera.jit
def host_scale(din, dout, alpha, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dout.store([m, n], din.load([m, n]) * alpha)


@tessera.jit
def host_tile(din, out_ptr, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    tile = din.load([off_m, off_n])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], tile)


@tessera.jit
def host_3d(din, out_ptr, o0, o1, o2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    tile = din.load([o0, o1, o2])
    i = tl.arange(0, B0)[:, None, None] * (B1 * B2) + tl.arange(0, B1)[None, :, None] * B2 + \
        tl.arange(0, B2)[None, None, :]
    tl.store(out_ptr + i, tile)


@tessera.jit
def _maybe_desc(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@tessera.jit
def _load_scaled(desc, m, n, alpha):
    return desc.load([m, n]) * alpha


@tessera.jit
def _with_offset(desc, m):
    return desc, m + 0


@tessera.jit
def via_helpers(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = _maybe_desc(x, [M, N], [N, 1], [BM, BN])
    dy = _maybe_desc(y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dy, m = _with_offset(dy, tl.program_id(0) * BM)
    n = tl.program_id(1) * BN
    dy.store([m, n], _load_scaled(dx, m, n, 3.0))


@tessera.jit
def row_sums(x_ptr, out_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, K], [K, 1], [BM, BK])
    out = tl.make_tensor_descriptor(out_ptr, [M], [1], [BM])
    m = tl.program_id(0) * BM
    acc = tl.zeros([BM], tl.float32)
    for k in range(0, K, BK):
        acc += tl.sum(desc.load([m, k]), axis=1)
    if m > 0:  # a run-time condition: the descriptor lives across the if and the loop
        out.store([m], acc)
    else:
        out.store([m], -acc)


@tessera.jit
def which(x, out_ptr):
    if isinstance(x, tl.tensor_descriptor):
        tl.store(out_ptr, 1)
    elif isinstance(x, (tl.tensor, tl.tensor_descriptor_base)):
        tl.store(out_ptr, 2)
    else:
        tl.store(out_ptr, 3)


@tessera.jit
def desc_atomic(y_ptr, v_ptr, M, N, off_m, off_n, OP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    v = tl.load(v_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    if OP == "add":
        desc.atomic_add([off_m, off_n], v)
    elif OP == "min":
        desc.atomic_min([off_m, off_n], v)
    elif OP == "max":
        desc.atomic_max([off_m, off_n], v)
    elif OP == "and":
        desc.atomic_and([off_m, off_n], v)
    elif OP == "or":
        desc.atomic_or([off_m, off_n], v)
    else:
        desc.atomic_xor([off_m, off_n], v)


@tessera.jit
def gather_rows(x_ptr, idx_ptr, out_ptr, M, N, y, NR: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, NR))
    tl.store(out_ptr + tl.arange(0, NR)[:, None] * BN + tl.arange(0, BN)[None, :], desc.gather(rows, y))


@tessera.jit
def scatter_rows(v_ptr, idx_ptr, y_ptr, M, N, y, NR: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, NR))
    desc.scatter(tl.load(v_ptr + tl.arange(0, NR)[:, None] * BN + tl.arange(0, BN)[None, :]), rows, y)


@tessera.jit
def props(x_ptr, out_ptr, M, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, BN], [BN, 1], [BM, BN])
    BS: tl.constexpr = desc.block_shape[0] * 1000 + desc.block_shape[1]
    tl.static_assert(desc.dtype == tl.float16)
    tl.static_assert(desc.block_type.shape == [BM, BN])
    tl.store(out_ptr, BS)

# ------------------------------------------------------------------ loads and stores (interpreter)


@pytest.mark.parametrize("offs", [(0, 0), (16, 32), (40, 48), (-5, -3), (-20, 10), (45, 60), (100, 0)],
                         ids=str)
@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_load_tile_with_padding(offs, pad):
    M, N, BM, BN = 50, 70, 16, 32
    x = f32(M, N)
    out = np.full((BM, BN), 7.0, np.float32)
    interpret(load_2d, (1,), x, out, M, N, offs[0], offs[1], BM=BM, BN=BN, PAD=pad)
    ref = ref_tile(x, offs, (BM, BN), np.nan if pad == "nan" else 0.0)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("offs", [(0, 0), (40, 48), (-7, -9), (49, 69), (60, 0)], ids=str)
def test_store_is_clipped_to_the_tensor(offs):
    M, N, BM, BN = 50, 70, 16, 32
    v = f32(BM, BN)
    y = np.full((M, N), -1.0, np.float32)
    interpret(store_2d, (1,), v, y, M, N, offs[0], offs[1], BM=BM, BN=BN)
    np.testing.assert_array_equal(y, ref_store(np.full((M, N), -1.0, np.float32), offs, v))


@pytest.mark.parametrize("shift", [0, -5, 3])
def test_1d_descriptor_covers_the_edges(shift):
    n, B = 50, 16
    x = f32(n)
    y = np.zeros(n, np.float32)
    interpret(copy_1d, (4,), x, y, n, shift, B=B)  # tiles from `shift`: both ends straddle the tensor
    covered = np.zeros(n, bool)
    for p in range(4):
        lo = max(0, p * B + shift)
        covered[lo:max(0, min(n, p * B + shift + B))] = True
    np.testing.assert_array_equal(y, np.where(covered, 2 * x, 0))


def test_3d_descriptor_of_a_strided_view():
    A, B, C = 5, 6, 40
    big = f32(A, B, C + 8)
    x = big[:, :, 4:4 + C]  # strides (B*(C+8), C+8, 1)
    y = np.zeros((A, B, C), np.float32)
    sa, sb = x.strides[0] // 4, x.strides[1] // 4
    interpret(copy_3d, (3, 2, 3), x, y, A, B, C, sa, sb, BA=2, BB=4, BC=16)
    np.testing.assert_allclose(y, x + 1)


def test_store_converts_the_value_like_a_pointer_store():
    # an fp32 product stored through an fp16 descriptor
    x = torch.randn(50, 64, dtype=torch.float16)
    y = torch.zeros(50, 64, dtype=torch.float16)
    interpret(host_scale, (4, 2), TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor.from_tensor(y, [16, 32]),
              1.5, BM=16, BN=32)
    torch.testing.assert_close(y, (x.float() * 1.5).half())

# ------------------------------------------------------------------ host descriptors (interpreter)


def test_host_descriptor_copy_with_edges():
    x = torch.randn(50, 72)
    y = torch.zeros(50, 72)
    dx, dy = TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor.from_tensor(y, [16, 32])
    interpret(host_scale, (4, 3), dx, dy, 2.0, BM=16, BN=32)
    torch.testing.assert_close(y, x * 2)


def test_host_descriptor_of_a_view_uses_its_strides():
    big = torch.randn(50, 80)
    x = big[:, 8:72]  # 32 bytes in: still 16-byte aligned; strides (80, 1)
    y = torch.zeros(50, 64)
    dx = TensorDescriptor(x, list(x.shape), list(x.stride()), [16, 32])
    interpret(host_scale, (4, 2), dx, TensorDescriptor.from_tensor(y, [16, 32]), -1.0, BM=16, BN=32)
    torch.testing.assert_close(y, -x)


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_host_descriptor_padding(pad):
    x = f32(20, 36)
    out = np.zeros((16, 32), np.float32)
    d = TensorDescriptor(x, [20, 36], [36, 1], [16, 32], padding=pad)
    interpret(host_tile, (1,), d, out, 10, 20, BM=16, BN=32)
    np.testing.assert_array_equal(out, ref_tile(x, (10, 20), (16, 32), np.nan if pad == "nan" else 0.0))


def test_host_descriptor_3d():
    x = f32(3, 10, 24)
    out = np.zeros((2, 8, 16), np.float32)
    interpret(host_3d, (1,), TensorDescriptor.from_tensor(torch.from_numpy(x), [2, 8, 16]), out, 2, 5, 12,
              B0=2, B1=8, B2=16)
    np.testing.assert_array_equal(out, ref_tile(x, (2, 5, 12), (2, 8, 16)))


def test_block_shape_is_read_at_each_launch():
    x = f32(40, 64)
    out = np.zeros((16, 32), np.float32)
    d = TensorDescriptor(x, [40, 64], [64, 1], [1, 1])  # the tutorial's placeholder block, replaced below
    d.block_shape = [16, 32]
    interpret(host_tile, (1,), d, out, 30, 40, BM=16, BN=32)
    np.testing.assert_array_equal(out, ref_tile(x, (30, 40), (16, 32)))
    small = np.zeros((8, 32), np.float32)
    d.block_shape = [8, 32]
    interpret(host_tile, (1,), d, small, 3, 4, BM=8, BN=32)
    np.testing.assert_array_equal(small, ref_tile(x, (3, 4), (8, 32)))


def _set_block(nargs):
    nargs["din"].block_shape = [nargs["BM"], nargs["BN"]]
    nargs["dout"].block_shape = [nargs["BM"], nargs["BN"]]


@tessera.autotune(configs=[tessera.Config({"BM": 16, "BN": 32}, pre_hook=_set_block),
                           tessera.Config({"BM": 32, "BN": 16}, pre_hook=_set_block)], key=["alpha"])
@tessera.jit
def tuned_scale(din, dout, alpha, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dout.store([m, n], din.load([m, n]) * alpha)


def test_autotune_pre_hook_sets_the_block_shape(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    x = torch.randn(40, 48)
    y = torch.zeros(40, 48)
    dx, dy = TensorDescriptor(x, [40, 48], [48, 1], [1, 1]), TensorDescriptor(y, [40, 48], [48, 1], [1, 1])
    grid = lambda meta: (tessera.cdiv(40, meta["BM"]), tessera.cdiv(48, meta["BN"]))  # noqa: E731
    interpret(tuned_scale, grid, dx, dy, 0.5)
    torch.testing.assert_close(y, x * 0.5)
    assert dx.block_shape == [tuned_scale.best_config.kwargs["BM"], tuned_scale.best_config.kwargs["BN"]]


def test_descriptor_wider_than_its_tensor_is_caught_by_the_interpreter():
    x = f32(8, 32)
    out = np.zeros((16, 32), np.float32)
    d = TensorDescriptor(x, [16, 32], [32, 1], [16, 32])  # claims 16 rows, the array has 8
    with pytest.raises(OutOfBoundsError, match="out-of-bounds load"):
        interpret(host_tile, (1,), d, out, 0, 0, BM=16, BN=32)

# ------------------------------------------------------------------ calls, control flow, isinstance


@pytest.mark.parametrize("host", [(False, False), (True, True), (True, False), (False, True)], ids=str)
def test_descriptor_passed_to_and_returned_from_helpers(host):
    M, N, BM, BN = 40, 64, 16, 32
    x, y = torch.randn(M, N), torch.zeros(M, N)
    xa = TensorDescriptor.from_tensor(x, [BM, BN]) if host[0] else x
    ya = TensorDescriptor.from_tensor(y, [BM, BN]) if host[1] else y
    interpret(via_helpers, (3, 2), xa, ya, M, N, BM=BM, BN=BN)
    torch.testing.assert_close(y, 3 * x)
    text = ttir_for(via_helpers, xa, ya, M, N, BM=BM, BN=BN)
    assert "tt.load" in text and "tt.store" in text


def test_descriptor_lives_across_loops_and_run_time_ifs():
    M, K = 40, 70
    x = f32(M, K)
    out = np.zeros(M, np.float32)
    interpret(row_sums, (3,), x, out, M, K, BM=16, BK=32)
    ref = x.sum(axis=1)
    ref[:16] = -ref[:16]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    text = ttir_for(row_sums, x, out, M, K, BM=16, BK=32)
    assert "scf.for" in text and "scf.if" in text


def test_isinstance_is_evaluated_at_compile_time():
    x = torch.randn(16, 32)
    out = np.zeros(1, np.int32)
    interpret(which, (1,), TensorDescriptor.from_tensor(x, [16, 32]), out)
    assert out[0] == 1
    interpret(which, (1,), x, out)
    assert out[0] == 2
    interpret(which, (1,), 5, out)
    assert out[0] == 2  # an int argument is a scalar tensor
    assert "arith.constant 1 : i32" in ttir_for(which, TensorDescriptor.from_tensor(x, [16, 32]), out)
    assert "arith.constant 2 : i32" in ttir_for(which, x, out)


def test_descriptor_properties():
    x = torch.zeros(40, 32, dtype=torch.float16)
    out = np.zeros(1, np.int32)
    interpret(props, (1,), x, out, 40, BM=16, BN=32)
    assert out[0] == 16032
    assert "arith.constant 16032 : i32" in ttir_for(props, x, out, 40, BM=16, BN=32)

# ------------------------------------------------------------------ atomics, gather, scatter


@pytest.mark.parametrize("op", ["add", "min", "max", "and", "or", "xor"])
def test_atomics_update_only_in_bounds_elements(op):
    M, N, BM, BN = 20, 24, 16, 16
    y0 = RNG.integers(-50, 50, size=(M, N)).astype(np.int32)
    v = RNG.integers(-50, 50, size=(BM, BN)).astype(np.int32)
    y = y0.copy()
    interpret(desc_atomic, (1,), y, v, M, N, 10, 12, OP=op, BM=BM, BN=BN)
    fn = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
          "xor": np.bitwise_xor}[op]
    cur = ref_tile(y0, (10, 12), (BM, BN))
    np.testing.assert_array_equal(y, ref_store(y0, (10, 12), fn(cur, v)))


def test_float_atomic_add():
    y0 = f32(20, 24)
    v = f32(16, 16)
    y = y0.copy()
    interpret(desc_atomic, (1,), y, v, 20, 24, -3, 16, OP="add", BM=16, BN=16)
    np.testing.assert_allclose(y, ref_store(y0, (-3, 16), ref_tile(y0, (-3, 16), (16, 16)) + v))


def test_gather_and_scatter_rows():
    M, N, NR, BN = 12, 40, 8, 16
    x = f32(M, N)
    rows = np.array([0, 3, 11, -1, 12, 5, 5, 7], np.int32)
    out = np.full((NR, BN), 9.0, np.float32)
    interpret(gather_rows, (1,), x, rows, out, M, N, 30, NR=NR, BN=BN)
    ref = np.stack([ref_tile(x, (r, 30), (1, BN))[0] for r in rows])
    np.testing.assert_array_equal(out, ref)
    y = np.zeros((M, N), np.float32)
    v = f32(NR, BN)
    rows = np.array([0, 3, 11, -1, 12, 5, 6, 7], np.int32)
    interpret(scatter_rows, (1,), v, rows, y, M, N, 30, NR=NR, BN=BN)
    ref = np.zeros((M, N), np.float32)
    for i, r in enumerate(rows):
        ref = ref_store(ref, (r, 30), v[i:i + 1])
    np.testing.assert_array_equal(y, ref)

# ------------------------------------------------------------------ what it compiles to


def _sig_types(text, name):
    sig = text.split(f"tt.func public @{name}(")[1].split(") attributes")[0]
    return [part.split(":")[1].split("{")[0].split(" loc")[0].strip() for part in sig.split("%arg")[1:]]


def test_host_descriptor_is_a_pointer_and_integer_arguments():
    x = torch.zeros(48, 64, dtype=torch.float16)
    d = TensorDescriptor.from_tensor(x, [16, 32])
    text = ttir_for(host_scale, d, d, 1.0, BM=16, BN=32)
    # base, two sizes, the first stride (the last is the constant 1), per descriptor
    assert _sig_types(text, "host_scale") == ["!tt.ptr<f16>", "i32", "i32", "i32"] * 2 + ["f32"]
    assert "tt.make_tensor_descriptor" not in text and "tt.descriptor_load" not in text
    assert "tt.addptr" in text and "tensor<16x32xi64>" in text  # offsets in 64 bits
    assert text.count("tt.load") == 1 and text.count("tt.store") == 1


@tessera.jit
def const_width(x_ptr, out_ptr, M, m, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, BN], [BN, 1], [BM, BN])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], desc.load([m, 0]))


def test_masked_pointer_accesses_and_constant_sizes_skip_their_mask():
    text = ttir_for(load_2d, np.zeros((50, 70), np.float32), np.zeros((16, 32), np.float32), 50, 70, 3, 4,
                    BM=16, BN=32, PAD="zero")
    # 0 <= off + i < size on each dimension: two comparisons per dimension, the load masked with other = 0
    assert text.count("arith.cmpi sge") == 2 and text.count("arith.cmpi slt") == 2
    load = next(line for line in text.splitlines() if "tt.load" in line)
    assert load.count("%") == 4, load  # result, pointers, mask, other
    x = np.zeros((40, 32), np.float16)
    text = ttir_for(const_width, x, np.zeros((16, 32), np.float16), 40, 8, BM=16, BN=32)
    # the 32 columns from the constant offset 0 are known in bounds: only the 16 rows are checked
    cmps = [line for line in text.splitlines() if "arith.cmpi" in line]
    assert len(cmps) == 2 and all("tensor<16xi32>" in line for line in cmps), cmps


@tessera.jit
def _tuple_helper(t, out_ptr):
    tl.static_assert(t[1] == 1)  # a constant element stays a constant in the callee
    tl.store(out_ptr, t[0] + t[1] + t[2])


@tessera.jit
def passes_tuple(out_ptr, n):
    _tuple_helper((n, 1, 2.5), out_ptr)


def test_constant_elements_of_tuples_stay_constants_in_callees():
    out = np.zeros(1, np.float32)
    interpret(passes_tuple, (1,), out, 4)
    assert out[0] == 7.5
    text = ttir_for(passes_tuple, out, 4)
    assert "tt.store" in text


def test_large_sizes_compute_indices_in_64_bits():
    x = np.zeros((4, 64), np.float32)
    text = ttir_for(load_2d, x, np.zeros((16, 32), np.float32), 2 ** 33, 64, 3, 4, BM=16, BN=32, PAD="zero")
    assert _sig_types(text, "load_2d")[2] == "i64"
    slt = [line for line in text.splitlines() if "arith.cmpi slt" in line]
    assert any("tensor<16xi64>" in line for line in slt), slt


def test_compile_with_a_descriptor_signature():
    sig = {"din": "tensordesc<fp16[16, 32]>", "dout": "tensordesc<fp16[16,32], zero>", "alpha": "fp32"}
    k = tessera.compile(host_scale, signature=sig, constexprs={"BM": 16, "BN": 32}, target="cuda:90")
    assert {"ttir", "ttgir", "llir", "ptx"} <= set(k.asm)
    # sizes i32 and strides i64 (Triton's types); the last stride is the constant 1
    assert _sig_types(k.asm["ttir"], "host_scale") == ["!tt.ptr<f16>", "i32", "i32", "i64"] * 2 + ["f32"]
    nan = tessera.compile(host_tile, signature={"din": "tensordesc<fp32[16, 32], nan>", "out_ptr": "*fp32",
                                                "off_m": "i32", "off_n": "i32"},
                          constexprs={"BM": 16, "BN": 32}, stages="ttir")
    assert "0x7FC00000" in nan.asm["ttir"]  # the NaN padding
    ty = tl.tensor_descriptor_type(tl.block_type(tl.float32, [16, 32]), [tl.int64, 32], [tl.int32, 1])
    k2 = tessera.compile(host_tile, signature={"din": ty, "out_ptr": "*fp32", "off_m": "i32", "off_n": "i32"},
                         constexprs={"BM": 16, "BN": 32}, stages="ttir")
    assert _sig_types(k2.asm["ttir"], "host_tile")[:3] == ["!tt.ptr<f32>", "i64", "i32"]
    with pytest.raises(ValueError, match="expected a descriptor like"):
        tessera.compile(host_tile, signature={"din": "tensordesc<fp32[16 32]>", "out_ptr": "*fp32", "off_m": "i32",
                                              "off_n": "i32"}, constexprs={"BM": 16, "BN": 32}, stages="ttir")
    with pytest.raises(ValueError, match="powers of 2"):
        tessera.compile(host_tile, signature={"din": "tensordesc<fp32[12, 32]>", "out_ptr": "*fp32", "off_m": "i32",
                                              "off_n": "i32"}, constexprs={"BM": 16, "BN": 32}, stages="ttir")


def test_in_kernel_descriptors_compile_for_the_gpu():
    k = tessera.compile(via_helpers, signature={"x": "*fp32", "y": "*fp32", "M": "i32", "N": "i32"},
                        constexprs={"BM": 16, "BN": 32}, target="cuda:90")
    assert "ptx" in k.asm and "tt.call" not in k.asm["ttir"]

# ------------------------------------------------------------------ the launch key


def _key(kernel, *args, **kwargs):
    bound = kernel.bind(args, kwargs)
    types, consts, attrs, key = specialize.specialize(kernel, bound, backend="cuda")
    disk, _ = cache.kernel_key(kernel, types, consts, attrs, "cuda:90", {"num_warps": 4})
    return key, types, disk


def test_block_shape_padding_dtype_and_rank_are_in_the_key():
    x = torch.zeros(64, 64)
    out = np.zeros((16, 32), np.float32)
    base, types, disk = _key(host_tile, TensorDescriptor.from_tensor(x, [16, 32]), out, 0, 0, BM=16, BN=32)
    assert str(types["din"]) == ("tensor_descriptor<float32[16, 32], shape=(int32, int32), strides=(int32, 1), "
                                 "padding=zero>")
    # same parts, another tensor of the same size class: the same kernel
    same, _, same_disk = _key(host_tile, TensorDescriptor.from_tensor(torch.zeros(48, 64), [16, 32]), out, 0, 0,
                              BM=16, BN=32)
    assert same == base and same_disk == disk
    variants = {
        "block": TensorDescriptor.from_tensor(x, [32, 32]),
        "padding": TensorDescriptor.from_tensor(x, [16, 32], padding="nan"),
        "dtype": TensorDescriptor.from_tensor(x.half(), [16, 32]),
        "rank": TensorDescriptor.from_tensor(torch.zeros(2, 64, 64), [1, 16, 32]),
        "i64 size": TensorDescriptor(x, [2 ** 33, 64], [64, 1], [16, 32]),
        "size not divisible by 16": TensorDescriptor(x, [63, 64], [64, 1], [16, 32]),
    }
    seen = {base}
    for what, d in variants.items():
        key, t, dk = _key(host_tile, d, out, 0, 0, BM=16, BN=32)
        assert key not in seen and dk != disk, what
        seen.add(key)
    assert str(_key(host_tile, variants["i64 size"], out, 0, 0, BM=16, BN=32)[1]["din"]).startswith(
        "tensor_descriptor<float32[16, 32], shape=(int64, int32)")


def test_assigning_block_shape_changes_the_key():
    d = TensorDescriptor.from_tensor(torch.zeros(64, 64), [16, 32])
    out = np.zeros((16, 32), np.float32)
    k1, t1, _ = _key(host_tile, d, out, 0, 0, BM=16, BN=32)
    d.block_shape = [32, 64]
    k2, t2, _ = _key(host_tile, d, out, 0, 0, BM=16, BN=32)
    assert k1 != k2 and t2["din"].block_type.shape == (32, 64)
    d.block_shape = [16, 32]
    assert _key(host_tile, d, out, 0, 0, BM=16, BN=32)[0] == k1


def test_block_shape_change_compiles_another_kernel():
    x = torch.zeros(64, 64)
    k16 = compiler.make_ttir(host_tile, *_spec(host_tile, TensorDescriptor.from_tensor(x, [16, 32])))[0]
    k32 = compiler.make_ttir(host_tile, *_spec(host_tile, TensorDescriptor.from_tensor(x, [32, 32])))[0]
    assert "tensor<16x32xf32>" in k16 and "tensor<32x32xf32>" in k32


def _spec(kernel, d):
    bm, bn = d.block_shape
    bound = kernel.bind((d, np.zeros((bm, bn), np.float32), 0, 0), {"BM": bm, "BN": bn})
    types, consts, attrs, _ = specialize.specialize(kernel, bound, backend="cuda")
    return types, consts, attrs

# ------------------------------------------------------------------ the host-side TensorDescriptor


def test_host_descriptor_checks():
    x = torch.zeros(8, 16)
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        TensorDescriptor(x, [16, 8], [1, 16], [8, 8])
    with pytest.raises(ValueError, match=r"strides\[0\] = 3 elements = 12 bytes is not a multiple of 16"):
        TensorDescriptor(x, [8, 3], [3, 1], [8, 4])
    with pytest.raises(ValueError, match="rank must be 1 to 5"):
        TensorDescriptor(x, [1] * 6, [1] * 6, [1] * 6)
    with pytest.raises(ValueError, match="rank must be 1 to 5"):
        TensorDescriptor(x, [], [], [])
    with pytest.raises(ValueError, match="expected 2 strides"):
        TensorDescriptor(x, [8, 16], [1], [8, 8])
    with pytest.raises(ValueError, match=r"block_shape\[1\] must be a power of 2, got 12"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 12])
    with pytest.raises(ValueError, match="block_shape must have 2 entries"):
        TensorDescriptor(x, [8, 16], [16, 1], [8])
    with pytest.raises(TypeError, match=r"block_shape\[0\] must be an int"):
        TensorDescriptor(x, [8, 16], [16, 1], [8.0, 8])
    with pytest.raises(ValueError, match="more than the limit"):
        TensorDescriptor(x, [8, 16], [16, 1], [2048, 1024])
    with pytest.raises(ValueError, match="padding must be 'zero' or 'nan'"):
        TensorDescriptor(x, [8, 16], [16, 1], [8, 8], padding="inf")
    with pytest.raises(ValueError, match="padding 'nan' needs a floating-point tensor"):
        TensorDescriptor(torch.zeros(8, 16, dtype=torch.int32), [8, 16], [16, 1], [8, 8], padding="nan")
    with pytest.raises(ValueError, match="16-byte aligned"):
        TensorDescriptor(torch.zeros(40)[1:], [39], [1], [8])
    with pytest.raises(TypeError, match=r"shape\[1\] must be an int"):
        TensorDescriptor(x, [8, "16"], [16, 1], [8, 8])
    with pytest.raises(ValueError, match="must not be negative"):
        TensorDescriptor(x, [8, -16], [16, 1], [8, 8])
    with pytest.raises(TypeError, match="base must be a tensor"):
        TensorDescriptor([1.0] * 16, [16], [1], [16])


def test_a_bad_block_shape_set_later_is_reported_at_launch():
    d = TensorDescriptor.from_tensor(torch.zeros(64, 64), [16, 32])
    d.block_shape = [16, 24]
    with pytest.raises(ValueError, match=r"block_shape\[1\] must be a power of 2, got 24"):
        _key(host_tile, d, np.zeros((16, 32), np.float32), 0, 0, BM=16, BN=32)
    with pytest.raises(ValueError, match=r"block_shape\[1\] must be a power of 2, got 24"):
        interpret(host_tile, (1,), d, np.zeros((16, 32), np.float32), 0, 0, BM=16, BN=32)


def test_host_descriptor_is_a_dataclass_like_triton():
    x = torch.zeros(8, 16)
    d = TensorDescriptor.from_tensor(x, [8, 8])
    assert d.base is x and list(d.shape) == [8, 16] and list(d.strides) == [16, 1] and d.padding == "zero"
    assert repr(d).startswith("TensorDescriptor(base=tensor(") and "block_shape=[8, 8]" in repr(d)
    assert bool(d)
    with pytest.raises(TypeError):
        len(d)
    with pytest.raises(TypeError):
        hash(d)
    c = copy.copy(d)
    assert c is not d and c.base is x and c.block_shape == [8, 8]
    p = pickle.loads(pickle.dumps(TensorDescriptor(np.zeros((8, 16), np.float32), [8, 16], [16, 1], [8, 8])))
    assert p.block_shape == [8, 8] and p.base.shape == (8, 16)
    import dataclasses
    r = dataclasses.replace(d, block_shape=[4, 8])
    assert r.block_shape == [4, 8] and d.block_shape == [8, 8]
    assert TensorDescriptor(x, [8, 16], [16, 1], [8, 8]) .block_shape == [8, 8]
    assert not hasattr(tessera, "TensorDescriptor")  # as Triton: only tessera.tools.tensor_descriptor

# ------------------------------------------------------------------ errors


@tessera.jit
def err_offsets(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    tl.store(x_ptr, tl.sum(tl.sum(d.load([0]), 1), 0))  # ERR


@tessera.jit
def err_block_pow2(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 24])  # ERR
    tl.store(x_ptr, tl.sum(tl.sum(d.load([0, 0]), 1), 0))


@tessera.jit
def err_block_rank(x_ptr, M, N):
    tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16])  # ERR
    tl.store(x_ptr, 0.0)


@tessera.jit
def err_base(x_ptr, M, N):
    tl.make_tensor_descriptor(M, [M, N], [N, 1], [16, 32])  # ERR
    tl.store(x_ptr, 0.0)


@tessera.jit
def err_store_shape(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    d.store([0, 0], tl.zeros([16], tl.float32))  # ERR


@tessera.jit
def err_store_scalar(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    tl.store_tensor_descriptor(d, [0, 0], 1.0)  # ERR


@tessera.jit
def err_last_stride(x_ptr, M, N):
    tl.make_tensor_descriptor(x_ptr, [M, N], [1, N], [16, 32])  # ERR
    tl.store(x_ptr, 0.0)


@tessera.jit
def err_narrow_block(x_ptr, M, N):
    tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 2])  # ERR
    tl.store(x_ptr, 0.0)


@tessera.jit
def err_nan_int(x_ptr, M, N):
    tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32], padding_option="nan")  # ERR
    tl.store(x_ptr, 0)


@tessera.jit
def err_rank6(x_ptr, M):
    tl.make_tensor_descriptor(x_ptr, [M] * 6, [M, M, M, M, M, 1], [1, 1, 1, 1, 1, 16])  # ERR
    tl.store(x_ptr, 0.0)


@tessera.jit
def err_not_a_descriptor(x_ptr):
    v = tl.load_tensor_descriptor(x_ptr, [0, 0])  # ERR
    tl.store(x_ptr, v)


@tessera.jit
def err_block_offset(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    tl.store(x_ptr, tl.sum(tl.sum(d.load([tl.arange(0, 16), 0]), 1), 0))  # ERR


@tessera.jit
def err_atomic_dtype(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    d.atomic_max([0, 0], tl.zeros([16, 32], tl.float64))  # ERR


@tessera.jit
def _load_in_helper(d):
    return d.load([0, 0, 0])  # ERR


@tessera.jit
def err_in_helper(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    tl.store(x_ptr, tl.sum(tl.sum(_load_in_helper(d), 1), 0))


@tessera.jit
def err_reassigned_in_loop(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 32])
    for i in range(M):  # ERR
        d = tl.make_tensor_descriptor(x_ptr + i, [M, N], [N, 1], [16, 32])
    d.store([0, 0], tl.zeros([16, 32], tl.float32))


XF = np.zeros(64, np.float32)
XI = np.zeros(64, np.int32)
XD = np.zeros(64, np.float64)

ERRORS = [
    (err_offsets, (XF, 8, 32), "tensor descriptor load: expected 2 offsets (one per dimension of the block "
                               "[16, 32]), got 1"),
    (err_block_pow2, (XF, 8, 32), "block_shape [16, 24]: dimension 1 must be a power of 2, got 24"),
    (err_block_rank, (XF, 8, 32), "block_shape must have 2 dimensions like shape, got 1"),
    (err_base, (XF, 8, 32), "make_tensor_descriptor: base must be a scalar pointer, got int32"),
    (err_store_shape, (XF, 8, 32), "tensor descriptor store: the value has shape [16], but the block it writes "
                                   "has shape [16, 32]"),
    (err_store_scalar, (XF, 8, 32), "the value has shape [], but the block it writes has shape [16, 32]"),
    (err_last_stride, (XF, 8, 32), "the last stride must be the constant 1"),
    (err_narrow_block, (XF, 8, 32), "must span at least 16 bytes, got 2 x 4 bytes (float32) = 8 bytes"),
    (err_nan_int, (XI, 8, 32), "padding_option='nan' needs a floating-point element type, got int32"),
    (err_rank6, (XF, 8), "a descriptor has 1 to 5 dimensions, got 6"),
    (err_not_a_descriptor, (XF,), "tensor descriptor load expects a tensor descriptor"),
    (err_block_offset, (XF, 8, 32), "offset 0 must be a scalar, got a tensor of shape [16]"),
    (err_atomic_dtype, (XD, 8, 32), "tensor descriptor atomic_max does not support float64 elements"),
    (err_reassigned_in_loop, (XF, 8, 32), "only tensors and numbers can change in a loop"),
]


@pytest.mark.parametrize("kernel,args,message", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_compilation_errors(kernel, args, message):
    with pytest.raises(tessera.CompilationError) as info:
        ttir_for(kernel, *args)
    e = info.value
    assert message in e.message, e.message
    assert e.lineno == line_of(kernel, "# ERR"), str(e)
    # the interpreter runs the same front-end check first: the same error
    with pytest.raises(tessera.CompilationError) as info2:
        interpret(kernel, (1,), *args)
    assert info2.value.message == e.message and info2.value.lineno == e.lineno


def test_error_inside_a_helper_names_the_call():
    with pytest.raises(tessera.CompilationError) as info:
        ttir_for(err_in_helper, XF, 8, 32)
    e = info.value
    assert "expected 2 offsets" in e.message and e.lineno == line_of(_load_in_helper, "# ERR")
    assert any("called from" in n for n in e.notes)

# ------------------------------------------------------------------ the fused-attention tutorial

# Triton 3.6's tutorial 06 (git-ignored: see benchmarks/tutorials/UPSTREAM.md), run with its imports changed.
TUTORIAL = os.path.join(os.path.dirname(ROOT), "benchmarks", "tutorials", "upstream", "06-fused-attention.py")


def load_tutorial(tmp_path):
    """The tutorial as a module, its three imports changed to Tessera's."""
    with open(TUTORIAL) as f:
        src = f.read()
    for old, new in (("import triton.language as tl", "import tessera.language as tl"),
                     ("import triton", "import tessera as triton"),
                     ("from triton.tools.tensor_descriptor import", "from tessera.tools.tensor_descriptor import")):
        assert f"\n{old}\n" in src or f"\n{old} " in src, old
        src = src.replace(f"\n{old}\n", f"\n{new}\n").replace(f"\n{old} ", f"\n{new} ")
    path = tmp_path / "fused_attention_06.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("fused_attention_06", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fused_attention_06"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not os.path.exists(TUTORIAL), reason="the upstream tutorial source is not present")
@pytest.mark.parametrize("host_descriptors", [False, True])
def test_fused_attention_tutorial_in_the_interpreter(tmp_path, monkeypatch, host_descriptors):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    monkeypatch.setenv("PYTEST_VERSION", "1")  # the tutorial's single configuration
    mod = load_tutorial(tmp_path)
    if not hasattr(torch, "float8_e5m2"):  # forward() compares the dtype with it (torch < 2.1 lacks it)
        monkeypatch.setattr(torch, "float8_e5m2", object(), raising=False)
    # On a GPU with sm >= 90 the tutorial passes TensorDescriptor arguments (block_shape set by the
    # autotuner's pre_hook); elsewhere pointers, made into descriptors in the kernel.
    monkeypatch.setattr(mod, "supports_host_descriptor", lambda: host_descriptors)
    monkeypatch.setattr(mod, "is_hopper", lambda: False)
    Z, H, N_CTX, HEAD_DIM = 1, 1, 128, 64
    torch.manual_seed(20)
    q, k, v = (torch.empty((Z, H, N_CTX, HEAD_DIM), dtype=torch.float16).normal_(0.0, 0.5) for _ in range(3))
    try:
        for causal in (False, True):
            p = torch.matmul(q.float(), k.float().transpose(2, 3)) * 0.5
            if causal:
                p[:, :, torch.tril(torch.ones((N_CTX, N_CTX))) == 0] = float("-inf")
            ref = torch.matmul(torch.softmax(p, dim=-1).half().float(), v.float()).half()
            out = mod.attention(q, k, v, causal, 0.5, False)
            torch.testing.assert_close(out, ref, atol=1e-2, rtol=0)
    finally:
        tessera.set_allocator(None)  # forward() installs its own (CUDA) allocator


# ------------------------------------------------------------------ another library's host descriptors
# Triton's triton.tools.tensor_descriptor.TensorDescriptor (a dataclass with base, shape, strides,
# block_shape, padding), as ported code passes it; stood for here by a class of that name and shape.

def _foreign_descriptor_class():
    import dataclasses
    from typing import Any, List

    @dataclasses.dataclass
    class TensorDescriptor:  # noqa: F811 - the name is what identifies it
        base: Any
        shape: List[int]
        strides: List[int]
        block_shape: List[int]
        padding: str = "zero"

        @staticmethod
        def from_tensor(t, block_shape):
            return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block_shape))
    return TensorDescriptor


def test_foreign_host_descriptors_run_in_the_interpreter():
    Foreign = _foreign_descriptor_class()
    x = torch.randn(50, 72)
    y = torch.zeros(50, 72)
    interpret(host_scale, (4, 3), Foreign.from_tensor(x, [16, 32]), Foreign.from_tensor(y, [16, 32]), 2.0,
              BM=16, BN=32)
    torch.testing.assert_close(y, x * 2)


def test_foreign_host_descriptors_specialize_like_ours():
    Foreign = _foreign_descriptor_class()
    x, y = torch.randn(64, 64), torch.zeros(64, 64)
    ours = ttir_for(host_scale, TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor.from_tensor(y, [16, 32]),
                    1.0, BM=16, BN=32)
    theirs = ttir_for(host_scale, Foreign.from_tensor(x, [16, 32]), Foreign.from_tensor(y, [16, 32]), 1.0,
                      BM=16, BN=32)
    assert theirs == ours
    # the conversion is kept while the fields stay the same, redone when block_shape changes
    d = Foreign.from_tensor(x, [16, 32])
    from tessera.runtime import tensor_descriptor as td
    first = td.from_foreign(d)
    assert td.from_foreign(d) is first
    d.block_shape = [32, 32]
    assert td.from_foreign(d) is not first and td.from_foreign(d).block_shape == [32, 32]
    # its checks are ours
    with pytest.raises(ValueError, match="block_shape\\[0\\] must be a power of 2"):
        td.from_foreign(Foreign(x, [64, 64], [64, 1], [12, 32]))
