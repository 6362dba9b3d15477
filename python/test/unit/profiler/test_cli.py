"""`python -m tessera.profiler show|validate trace.json`, run as a user runs it."""

import json
import os
import subprocess
import sys

import pytest

from ._profiles import sample_profile

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable, "-m", "tessera.profiler", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "run.json"
    prof = sample_profile("run", path=str(path), wrapped=True)
    return str(path), prof


def test_show_prints_the_summary_of_the_profile(saved):
    path, prof = saved
    r = cli("show", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == prof.summary()
    assert "matmul [kernel]" in r.stdout and "records dropped: 6" in r.stdout


def test_show_depth(saved):
    path, prof = saved
    r = cli("show", path, "--depth", "1")
    assert r.returncode == 0 and r.stdout.rstrip("\n") == prof.summary(max_depth=1)
    assert "matmul" not in r.stdout and "step [host]" in r.stdout


def test_validate(saved):
    path, _ = saved
    r = cli("validate", path)
    n = len(json.load(open(path))["traceEvents"])
    assert r.returncode == 0 and r.stdout.strip() == f"{path}: valid trace, {n} events"


def test_missing_and_unreadable_files(tmp_path):
    r = cli("show", str(tmp_path / "absent.json"))
    assert r.returncode == 2 and "absent.json: no such file" in r.stderr and r.stdout == ""
    r = cli("validate", str(tmp_path))
    assert r.returncode == 2 and "is a folder" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [')
    r = cli("validate", str(bad))
    assert r.returncode == 2 and "not JSON" in r.stderr and "line 1" in r.stderr


def test_invalid_and_foreign_traces(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"traceEvents": [{"ph": "X", "name": "k", "ts": -1, "dur": 1, "pid": 1, "tid": 1}]}))
    r = cli("validate", str(broken))
    assert r.returncode == 1 and "invalid" in r.stderr and "'ts' must be" in r.stderr
    r = cli("show", str(broken))
    assert r.returncode == 1 and "not a valid trace" in r.stderr
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 1, "pid": 1, "tid": 1}]}))
    assert cli("validate", str(foreign)).returncode == 0
    r = cli("show", str(foreign))
    assert r.returncode == 1 and "not one saved by tessera.profiler" in r.stderr


def test_usage_errors():
    r = cli()
    assert r.returncode == 2 and "usage" in r.stderr
    r = cli("explode", "x.json")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_a_damaged_summary_tree_is_reported(saved, tmp_path):
    path, _ = saved
    obj = json.load(open(path))
    obj["otherData"]["tessera"]["tree"] = {"name": "x"}  # no root
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(obj))
    r = cli("show", str(damaged))
    assert r.returncode == 1 and "summary tree in otherData.tessera is damaged" in r.stderr
