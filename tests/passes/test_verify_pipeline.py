"""irc.function verifies the IR once after its pipeline (`config.verify_each_pass` off, the
default), or after every pass, naming the one that broke it (the flag, or DebugMode); either
way a pass that breaks the IR is an error, never a miscompiled function."""
from __future__ import annotations

import pytest

import irc
import irc.tensor as T
from irc.ir.diagnostics import PassError
from irc.passes import pipelines


@pytest.fixture
def breaking(monkeypatch):
    """Every mode's pipeline ends with `test-break-ir` (irc/passes/testing.py)."""
    for mode in ("FAST_RUN", "DebugMode"):
        monkeypatch.setitem(pipelines.PIPELINES, mode, pipelines.PIPELINES[mode] + ("test-break-ir",))


def _compile(**kw):
    x = T.dvector("x")
    return irc.function([x], T.exp(x) + 1.0, **kw)


def test_the_default_verifies_after_the_pipeline(breaking):
    with pytest.raises(PassError, match="failed to verify after the pipeline; irc.config.verify_each_pass=True"):
        _compile()


@pytest.mark.parametrize("how", ["flag", "DebugMode"])
def test_verify_each_pass_names_the_pass(breaking, how):
    with irc.config.change_flags(verify_each_pass=(how == "flag")):
        with pytest.raises(PassError, match="IR failed to verify after pass 'test-break-ir'"):
            _compile(mode="DebugMode") if how == "DebugMode" else _compile()


def test_a_sound_pipeline_compiles_either_way():
    for each in (False, True):
        with irc.config.change_flags(verify_each_pass=each):
            assert float(_compile()([0.0])[0]) == 2.0
