"""docs/frontend.md's index of Theano names ("Every name, by module") against the code: every
listed name exists, every public name of `irc.tensor` is listed (or is one of irc's own
helpers below), and every name the doc says is not supported raises an AttributeError that
says so."""
from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

import irc
import irc.tensor as T

DOC = Path(__file__).resolve().parents[2] / "docs" / "frontend.md"
# public names of irc.tensor that are irc's own, not Theano's
OWN = {"CONSTRUCTORS", "NOT_SUPPORTED", "annotations", "elemwise", "pad_left", "AllocShape", "CumOp", "Iota",
       "MakeVector", "Sort"}


def index() -> dict[str, set[str]]:
    text = DOC.read_text()
    section = text.split("### Every name, by module", 1)[1].split("```")[1]
    names: dict[str, set[str]] = {}
    for line in section.strip().splitlines():
        module, _, listed = line.partition(":")
        names.setdefault(module.strip(), set()).update(listed.split())
    return names


def resolve(path: str):
    try:
        return importlib.import_module(path)
    except ImportError:
        obj = irc
        for part in path.split(".")[1:]:
            obj = getattr(obj, part)
        return obj


@pytest.mark.parametrize("module", sorted(index()))
def test_every_listed_name_exists(module):
    obj = resolve(module)
    missing = sorted(n for n in index()[module] if not hasattr(obj, n))
    assert not missing, f"docs/frontend.md lists {module}.{missing} but the code has no such name"


def test_every_public_tensor_name_is_listed():
    public = {n for n in dir(T) if not n.startswith("_") and not isinstance(getattr(T, n), types.ModuleType)}
    unlisted = sorted(public - index()["irc.tensor"] - OWN)
    assert not unlisted, f"irc.tensor names missing from docs/frontend.md's index: {unlisted}"


def test_names_said_unsupported_raise_a_clear_error():
    text = DOC.read_text().split("### Not supported, and what the user gets", 1)[1].split("##", 1)[0]
    tensor_names = re.findall(r"`T\.(\w+)`", text)
    unsupported = {n for n in tensor_names if n in T.NOT_SUPPORTED}
    assert unsupported == set(T.NOT_SUPPORTED)
    for name in unsupported:
        with pytest.raises(AttributeError, match=f"irc.tensor.{name} is not supported"):
            getattr(T, name)
    for name in ("scan", "map", "reduce", "foldl", "foldr"):
        with pytest.raises(AttributeError, match="not supported"):
            getattr(irc, name)
