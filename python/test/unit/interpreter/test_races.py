"""RaceDetector (tessera.interpreter.races): races across the programs of one launch, found in the
interpreter: write-write, read-write in either order, atomics against plain accesses; none for
disjoint blocks, for a program re-reading its own writes, or for atomics among themselves; the
kernel's results are the same with and without the detector."""
import os

import numpy as np
import pytest
import torch

import tessera
import tessera.language as tl
from tessera.interpreter import observe
from tessera.interpreter.races import RaceDetector


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")


@tessera.jit
def own_block(x, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(y + offs, v * 2)
    tl.store(y + offs, tl.load(y + offs) + 1)  # its own writes: no race


@tessera.jit
def all_write_first(x, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + tl.arange(0, BLOCK), tl.load(x + offs))  # every program writes y[0:BLOCK]


@tessera.jit
def read_neighbour(x, y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs) + 1)
    nxt = (pid + 1) % tl.num_programs(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + nxt))  # what the next program writes


@tessera.jit
def atomic_counts(x, counter, BLOCK: tl.constexpr, PLAIN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(counter, tl.sum(tl.load(x + offs), axis=0))
    if PLAIN:
        tl.store(counter + 1, tl.program_id(0))


def test_disjoint_blocks_have_no_races():
    x = torch.arange(256, dtype=torch.float32)
    y = torch.zeros(256)
    with observe(RaceDetector()) as races:
        own_block[(4,)](x, y, BLOCK=64)
    assert races.findings == [] and races.kernels_checked == 1
    assert "no races found" in races.report()
    torch.testing.assert_close(y, x * 2 + 1)


def test_two_programs_writing_one_element_are_reported_with_both_lines():
    x = torch.arange(256, dtype=torch.float32)
    y = torch.zeros(64)
    with observe(RaceDetector()) as races:
        all_write_first[(4,)](x, y, BLOCK=64)
    assert len(races.findings) == 1
    f = races.findings[0]
    assert (f.kind, f.arg_name, f.offset, f.count) == ("write-write", "y", 0, 3 * 64)
    assert f.first.pid == (0, 0, 0) and f.second.pid == (1, 0, 0)
    assert f.first.lineno == f.second.lineno and f.first.filename.endswith("test_races.py")
    msg = f.message()
    assert "race in all_write_first on 'y' (write-write): program (0, 0, 0) stored element 0" in msg
    assert "program (1, 0, 0) stored it" in msg and "192 elements" in msg


def test_reading_what_another_program_writes_is_reported_in_either_order():
    x = torch.zeros(256)
    y = torch.zeros(256)
    with observe(RaceDetector()) as races:
        read_neighbour[(4,)](x, y, BLOCK=64)
    kinds = {(f.kind, f.first.what, f.second.what) for f in races.findings}
    # program p loads x[(p+1)*64 ...] that program p+1 stores later (load first), and program 3
    # loads x[0:64] that program 0 stored earlier (store first)
    assert ("read-write", "load", "store") in kinds and ("read-write", "store", "load") in kinds
    assert all(f.arg_name == "x" for f in races.findings)


def test_atomics_race_only_with_plain_accesses():
    x = torch.ones(256)
    c = torch.zeros(2)
    with observe(RaceDetector()) as races:
        atomic_counts[(4,)](x, c, BLOCK=64, PLAIN=False)
    assert races.findings == []
    assert c[0].item() == 256
    with observe(RaceDetector()) as races:
        atomic_counts[(4,)](x, c, BLOCK=64, PLAIN=True)
    assert [(f.kind, f.arg_name, f.offset) for f in races.findings] == [("write-write", "counter", 1)]


def test_results_are_the_same_with_and_without_the_detector():
    x = torch.zeros(256)
    y1, y2 = torch.zeros(256), torch.zeros(256)
    read_neighbour[(4,)](x.clone(), y1, BLOCK=64)
    with observe(RaceDetector()):
        read_neighbour[(4,)](x.clone(), y2, BLOCK=64)
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())


def test_findings_are_capped_and_accumulate_over_launches():
    x = torch.arange(256, dtype=torch.float32)
    y = torch.zeros(64)
    det = RaceDetector(max_findings=1)
    with observe(det):
        all_write_first[(4,)](x, y, BLOCK=64)
        read_neighbour[(4,)](torch.zeros(256), torch.zeros(256), BLOCK=64)
    assert len(det.findings) == 1 and det.kernels_checked == 2
