"""The code generator's tests run LLVM at its default level (the suite's numerics tests use
O1: tests/conftest.py), since they check what the default pipeline makes."""
from __future__ import annotations

import pytest

from irc.codegen_cpu.target import SPEED_LEVEL_VARIABLE


@pytest.fixture(autouse=True)
def default_llvm_level(monkeypatch):
    monkeypatch.delenv(SPEED_LEVEL_VARIABLE, raising=False)
