"""Kernel effects (tessera.effects and compiled.metadata["effects"]): a table of kernels whose
true effect on each pointer argument is known, checked against the analysis (no GPU: arguments
are CPU tensors, specialized as a launch would specialize them, and nothing is launched)."""

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


@tessera.jit
def copy(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))


@tessera.jit
def masked_copy(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m, other=0.0), mask=m)


@tessera.jit
def transpose_2d(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    tile = tl.load(x + rm * N + rn)
    tl.store(y + rn * M + rm, tile)


@tessera.jit
def select_store(a, b, flag, BLOCK: tl.constexpr):
    p = a if flag > 0 else b
    tl.store(p + tl.arange(0, BLOCK), tl.zeros([BLOCK], tl.float32))


@tessera.jit
def where_store(a, b, unused, flag, BLOCK: tl.constexpr):
    p = tl.where(flag > 0, a, b)
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))


@tessera.jit
def atomics(acc, counter, swap, x, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    tl.atomic_add(acc + tl.arange(0, BLOCK), v)
    tl.atomic_cas(counter, 0, 1)
    tl.atomic_xchg(swap, 3)


@tessera.jit
def in_place(x, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs) + 1.0)


@tessera.jit
def block_pointers(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    for _ in range(2):
        tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))
        src = tl.advance(src, (BM, 0))
        dst = tl.advance(dst, (BM, 0))


@tessera.jit
def host_descriptors(src_desc, dst_desc, BM: tl.constexpr, BN: tl.constexpr):
    dst_desc.store([0, 0], src_desc.load([0, 0]))


@tessera.jit
def device_descriptors(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(y, [M, N], [N, 1], [BM, BN])
    dst.store([0, 0], src.load([0, 0]))


@tessera.jit(noinline=True)
def _fill(p, BLOCK: tl.constexpr):
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 2.0, tl.float32))


@tessera.jit
def calls_noinline(x, y, BLOCK: tl.constexpr):
    _fill(y, BLOCK)
    tl.store(y + BLOCK, tl.load(x))


@tessera.jit
def loop_pointer(x, y, n, BLOCK: tl.constexpr):
    xp = x + tl.arange(0, BLOCK)
    yp = y + tl.arange(0, BLOCK)
    for _ in range(0, n, BLOCK):
        tl.store(yp, tl.load(xp))
        xp += BLOCK
        yp += BLOCK


@tessera.jit
def branch_store(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(y + offs, tl.load(x + offs))
    else:
        tl.store(z + offs, tl.load(x + offs))


@tessera.jit
def while_store(x, y, n, BLOCK: tl.constexpr):
    i = 0
    while i < n:
        tl.store(y + i, tl.load(x + i))
        i += 1


@tessera.jit
def tuple_args(ptrs, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(ptrs[0] + offs) + tl.load(ptrs[1] + offs))


@tessera.jit
def pointer_from_memory(table, x, y, BLOCK: tl.constexpr):
    # A pointer loaded from memory: the analysis cannot know where it points.
    p = tl.load(table).to(tl.pointer_type(tl.float32), bitcast=True)
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 0.0, tl.float32))


@tessera.jit
def inline_asm_pointer(x, y, BLOCK: tl.constexpr):
    addr = tl.inline_asm_elementwise("mov.b64 $0, $1;", "=l,l", [x], dtype=tl.int64, is_pure=True, pack=1)
    tl.store(y, addr.to(tl.float32))


@tessera.jit
def never_used(x, y, z, BLOCK: tl.constexpr):
    tl.store(y + tl.arange(0, BLOCK), tl.load(x + tl.arange(0, BLOCK)))


@tessera.jit
def conditional_scalar_store(out, x, BLOCK: tl.constexpr):
    s = tl.sum(tl.load(x + tl.arange(0, BLOCK)), axis=0)
    if tl.program_id(0) == 0:
        tl.store(out, s)


@tessera.jit
def dead_load(x, y, BLOCK: tl.constexpr):
    tl.load(x + tl.arange(0, BLOCK))
    tl.store(y + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))


def f32(*shape):
    return torch.zeros(*shape, dtype=torch.float32)


def _descs():
    a, b = f32(64, 64), f32(64, 64)
    return TensorDescriptor(a, [64, 64], [64, 1], [16, 16]), TensorDescriptor(b, [64, 64], [64, 1], [16, 16])


# (kernel, args, kwargs, expected {parameter: effect})
CASES = {
    "copy": (copy, lambda: (f32(64), f32(64), 64), dict(BLOCK=64), {"x": "read", "y": "written"}),
    "masked_copy": (masked_copy, lambda: (f32(64), f32(64), 50), dict(BLOCK=64), {"x": "read", "y": "written"}),
    "pointer_arithmetic_2d": (transpose_2d, lambda: (f32(16, 16), f32(16, 16), 16, 16), dict(BM=16, BN=16),
                              {"x": "read", "y": "written"}),
    # flag = 5: a run-time value (1 would be specialized to a constant and fold the choice)
    "if_expression_select": (select_store, lambda: (f32(8), f32(8), 5), dict(BLOCK=8),
                             {"a": "written", "b": "written"}),
    "where_select": (where_store, lambda: (f32(8), f32(8), f32(8), 0), dict(BLOCK=8),
                     {"a": "written", "b": "written", "unused": "untouched"}),
    "atomics": (atomics, lambda: (f32(8), torch.zeros(1, dtype=torch.int32), torch.zeros(1, dtype=torch.int32),
                                  f32(8)), dict(BLOCK=8),
                {"acc": "read-write", "counter": "read-write", "swap": "read-write", "x": "read"}),
    "in_place": (in_place, lambda: (f32(8),), dict(BLOCK=8), {"x": "read-write"}),
    "block_pointers": (block_pointers, lambda: (f32(32, 16), f32(32, 16), 32, 16), dict(BM=16, BN=16),
                       {"x": "read", "y": "written"}),
    "host_descriptors": (host_descriptors, _descs, dict(BM=16, BN=16),
                         {"src_desc": "read", "dst_desc": "written"}),
    "device_descriptors": (device_descriptors, lambda: (f32(64, 64), f32(64, 64), 64, 64), dict(BM=16, BN=16),
                           {"x": "read", "y": "written"}),
    "noinline_callee": (calls_noinline, lambda: (f32(8), f32(8)), dict(BLOCK=8), {"x": "read", "y": "written"}),
    "loop_carried_pointers": (loop_pointer, lambda: (f32(64), f32(64), 64), dict(BLOCK=16),
                              {"x": "read", "y": "written"}),
    "branches": (branch_store, lambda: (f32(8), f32(8), f32(8), 8), dict(BLOCK=8),
                 {"x": "read", "y": "written", "z": "written"}),
    "while_loop": (while_store, lambda: (f32(8), f32(8), 8), dict(BLOCK=8), {"x": "read", "y": "written"}),
    "tuple_of_pointers": (tuple_args, lambda: ((f32(8), f32(8)), f32(8)), dict(BLOCK=8),
                          {"ptrs[0]": "read", "ptrs[1]": "read", "out": "written"}),
    "pointer_from_memory": (pointer_from_memory, lambda: (torch.zeros(1, dtype=torch.int64), f32(8), f32(8)),
                            dict(BLOCK=8), {"table": "read-write", "x": "written", "y": "written"}),
    "inline_asm": (inline_asm_pointer, lambda: (f32(8), f32(8)), dict(BLOCK=8),
                   {"x": "read-write", "y": "written"}),
    "never_used": (never_used, lambda: (f32(8), f32(8), f32(8)), dict(BLOCK=8),
                   {"x": "read", "y": "written", "z": "untouched"}),
    "conditional_scalar_store": (conditional_scalar_store, lambda: (f32(1), f32(8)), dict(BLOCK=8),
                                 {"out": "written", "x": "read"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_effects_table(name):
    kernel, make_args, kwargs, expected = CASES[name]
    report = tessera.effects(kernel, *make_args(), **kwargs)
    assert {k: v["effect"] for k, v in report.items()} == expected
    for param, v in report.items():
        # every non-untouched effect names its causes, with the kernel's source lines
        assert bool(v["causes"]) == (v["effect"] != "untouched"), (param, v)
        for c in v["causes"]:
            assert c["file"].endswith("test_effects.py") and c["line"] > 0, c


def test_causes_name_the_operation_and_line():
    report = tessera.effects(in_place, f32(8), BLOCK=8)
    whats = {(c["what"], c["read"], c["write"]) for c in report["x"]["causes"]}
    assert whats == {("load", True, False), ("store", False, True)}
    lines = sorted(c["line"] for c in report["x"]["causes"])
    assert len(set(lines)) == 1  # tl.store(x + offs, tl.load(x + offs) + 1.0) is one line
    unknown = tessera.effects(pointer_from_memory, torch.zeros(1, dtype=torch.int64), f32(8), f32(8), BLOCK=8)
    assert any("unknown origin" in c["what"] for c in unknown["x"]["causes"])


def test_compiled_kernels_carry_effects():
    k = tessera.compile(masked_copy, signature={"x": "*fp32:16", "y": "*fp32:16", "n": "i32"},
                        constexprs={"BLOCK": 64}, target="cuda:90", stages="ttir")
    assert {p: v["effect"] for p, v in k.metadata["effects"].items()} == {"x": "read", "y": "written"}


def test_effects_under_autotune_and_heuristics():
    tuned = tessera.autotune([tessera.Config({"BLOCK": 8}), tessera.Config({"BLOCK": 16})], key=["n"])(masked_copy)
    assert {p: v["effect"] for p, v in tessera.effects(tuned, f32(64), f32(64), 64).items()} == \
        {"x": "read", "y": "written"}
    h = tessera.heuristics({"BLOCK": lambda args: 32})(masked_copy)
    assert tessera.effects(h, f32(64), f32(64), 64)["y"]["effect"] == "written"


def test_effects_follow_the_specialization():
    # An argument equal to 1 is compiled as a constant: the branch it decides is resolved, and so
    # is the effect (a launch with flag=1 runs exactly this kernel).
    one = tessera.effects(select_store, f32(8), f32(8), 1, BLOCK=8)
    assert {p: v["effect"] for p, v in one.items()} == {"a": "written", "b": "untouched"}
    # A load whose value is never used is removed before the analysis runs: nothing is read.
    unused = tessera.effects(dead_load, f32(8), f32(8), BLOCK=8)
    assert unused["x"] == {"effect": "untouched", "causes": []} and unused["y"]["effect"] == "written"


def test_global_scratch_touches_no_argument():
    from ..runtime.test_global_scratch import via_scratch
    report = tessera.effects(via_scratch, f32(64), f32(64), 64, BLOCK=64)
    assert {p: v["effect"] for p, v in report.items()} == {"x": "read", "out": "written"}


def test_effects_rejects_non_kernels():
    with pytest.raises(TypeError, match="tessera.effects expects"):
        tessera.effects(lambda x: x, f32(8))
