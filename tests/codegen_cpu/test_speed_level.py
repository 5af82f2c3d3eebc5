"""`IRC_LLVM_SPEED_LEVEL` (the test suite's O1 for numerics tests): it picks the host pipeline's
level, is part of every cached object's key (an O1 object is never an O2 run's hit), and a bad
value is refused by name."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_cpu import target

SUITE_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def test_the_level_is_in_the_cache_key(monkeypatch):
    assert target.speed_level() == target.HOST_SPEED_LEVEL == 2  # this folder runs at the default
    default = target.codegen_identity()
    monkeypatch.setenv(target.SPEED_LEVEL_VARIABLE, "1")
    assert target.speed_level() == 1
    assert target.codegen_identity() != default and target.codegen_identity().endswith("|O1")


def test_an_o1_function_computes_the_same_numbers(monkeypatch):
    x = T.dmatrix("x")
    out = T.tanh(T.dot(x, x.T)).sum(axis=1)
    xv = np.random.default_rng(3).standard_normal((37, 19))
    want = irc.function([x], out)(xv)
    monkeypatch.setenv(target.SPEED_LEVEL_VARIABLE, "1")
    np.testing.assert_allclose(irc.function([x], out)(xv), want, rtol=1e-13)


def test_a_bad_level_names_the_variable(monkeypatch):
    monkeypatch.setenv(target.SPEED_LEVEL_VARIABLE, "fast")
    with pytest.raises(ValueError, match="IRC_LLVM_SPEED_LEVEL='fast'"):
        target.speed_level()


def test_the_suite_sets_the_same_variable(pytestconfig):
    # (the suite's conftest as pytest loaded it: `import conftest` may find another folder's)
    suite = next(m for m in pytestconfig.pluginmanager.get_plugins()
                 if getattr(m, "__file__", None) and Path(m.__file__).resolve() == SUITE_CONFTEST)
    assert suite.SPEED_LEVEL_VARIABLE == target.SPEED_LEVEL_VARIABLE
