"""Fixtures of the native CPU tests (helpers are in `native_helpers.py`)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_compiledir(tmp_path_factory):
    """Tests never write into the user's cache."""
    import os
    folder = str(tmp_path_factory.mktemp("irc-cache"))
    old = os.environ.get("IRC_COMPILEDIR")
    os.environ["IRC_COMPILEDIR"] = folder
    yield folder
    if old is None:
        os.environ.pop("IRC_COMPILEDIR", None)
    else:
        os.environ["IRC_COMPILEDIR"] = old


