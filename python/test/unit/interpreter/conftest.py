"""The interpreter tests run kernels on the CPU: force TESSERA_INTERPRET=1 for each test."""

import pytest


@pytest.fixture(autouse=True)
def _interpret(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
