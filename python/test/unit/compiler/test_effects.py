"""Kernel effects (tessera.effects and compiled.metadata["effects"]): a table of kernels whose
true effect on each pointer argument is known, checked against the analysis (no GPU: arguments
are CPU tensors, specialized as a launch would specialize them, and nothing is launched)."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


# The kernels: benchmarks/effects_kernels.py (written against triton.language, also compared with
# PyTorch's analysis by benchmarks/effects_compare.py), loaded here under Tessera.
_BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "benchmarks")
sys.path.insert(0, _BENCH)
import _loader  # noqa: E402

_K = _loader.load("tessera", filename="effects_kernels.py")
(copy, masked_copy, transpose_2d, select_store, where_store, atomics, in_place, block_pointers, host_descriptors,
 device_descriptors, calls_noinline, loop_pointer, branch_store, while_store, tuple_args, pointer_from_memory,
 inline_asm_pointer, never_used, conditional_scalar_store, dead_load) = (
    getattr(_K, n) for n in ("copy", "masked_copy", "transpose_2d", "select_store", "where_store", "atomics",
                             "in_place", "block_pointers", "host_descriptors", "device_descriptors",
                             "calls_noinline", "loop_pointer", "branch_store", "while_store", "tuple_args",
                             "pointer_from_memory", "inline_asm_pointer", "never_used",
                             "conditional_scalar_store", "dead_load"))


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
            assert c["file"].endswith("effects_kernels_tessera.py") and c["line"] > 0, c


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
