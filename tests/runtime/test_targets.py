"""The target registry: `config.device` picks the executor; a GPU that cannot be used falls back
to the cpu with one warning saying why, or raises with `force_device=True`."""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime import targets
from irc.runtime.cuda import driver


@pytest.fixture
def no_gpu(monkeypatch):
    """Whatever this machine has, the cuda target reports no usable GPU."""
    targets.resolve("cpu")
    gone = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda number: "ImportError: no pycuda")
    monkeypatch.setitem(targets.TARGETS, "cuda", gone)
    monkeypatch.setattr(targets, "_fallback_warned", set())


def test_cpu_is_the_default_target():
    assert targets.active(irc.config).name == "cpu"


def test_fallback_to_the_cpu_warns_once_and_computes(no_gpu):
    x = T.fvector("x")
    with irc.config.change_flags(device="gpu1"):
        with pytest.warns(RuntimeWarning, match=r"device=cuda1 is not usable \(ImportError: no pycuda\)"):
            f = irc.function([x], T.exp(x))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the second function warns no more
            g = irc.function([x], x * 2)
    np.testing.assert_allclose(f(np.ones(3, "float32")), np.exp(np.ones(3)), rtol=1e-6)
    np.testing.assert_allclose(g(np.ones(3, "float32")), 2)
    assert f.maker.target.name == "cpu"


def test_force_device_raises_naming_the_device_and_why(no_gpu):
    x = T.fvector("x")
    with irc.config.change_flags(device="cuda", force_device=True):
        with pytest.raises(targets.DeviceUnavailable, match="device=cuda .*force_device=True.*no pycuda"):
            irc.function([x], T.exp(x))


def test_no_pycuda_here_is_reported_not_raised():
    """On a machine without PyCUDA or a driver (CI), asking why gives a reason, never an error."""
    why = driver.why_unavailable(0)
    assert why is None or isinstance(why, str) and why
