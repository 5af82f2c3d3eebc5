"""Fixtures of the frontend tests."""
from __future__ import annotations

import dataclasses

import pytest

from irc.runtime import targets
from irc.runtime.reference import ReferenceExecutor


@pytest.fixture
def cuda_without_gpu(monkeypatch):
    """The `cuda` target as the frontend sees it (placement "cuda", its pipeline, device-typed
    shared variables) but runnable here: the reference executor (numpy, transfers as the
    identity) stands in for the GPU runtime, and shared values stay numpy arrays. For
    IR-level tests of `device=cuda` on a machine without a GPU."""
    targets.resolve("cpu")  # fills the registry
    stand_in = dataclasses.replace(
        targets.TARGETS["cuda"], why_unavailable=lambda number: None, to_storage=lambda value: value,
        compile=lambda module, func, config, profiling: (ReferenceExecutor(func, allow_gc=config.allow_gc), None))
    monkeypatch.setitem(targets.TARGETS, "cuda", stand_in)
    return stand_in
