"""GPU tests: every test here is marked `cuda` and skips, with the reason, where no GPU can be
used (no PyCUDA, no driver, no device). Run them with `pytest -m cuda` on a GPU machine."""
from __future__ import annotations

import pytest

from irc.runtime.cuda.driver import why_unavailable


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/cuda/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.cuda)


@pytest.fixture(autouse=True)
def gpu():
    why = why_unavailable()
    if why is not None:
        pytest.skip(f"no usable GPU: {why}")
