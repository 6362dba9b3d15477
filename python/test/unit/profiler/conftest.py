"""The profiler tests: no session outlives a test, TESSERA_PROFILE_SCOPES is unset unless a test
sets it, and each test runs in a temporary folder (a named session writes <name>.json there)."""

import pytest

import tessera.profiler as profiler


@pytest.fixture(autouse=True)
def _clean_profiler(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TESSERA_PROFILE_SCOPES", raising=False)
    monkeypatch.delenv("TESSERA_PROFILE_CLOCK_GHZ", raising=False)
    assert not profiler.is_active(), "a profiling session was left running by an earlier test"
    yield
    if profiler.is_active():
        profiler.stop()
        pytest.fail("the test left a profiling session running")
