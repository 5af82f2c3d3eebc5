"""The verified entry format of `ObjectCache`, in-process (no native code is loaded here)."""
from __future__ import annotations

import os
import warnings

import pytest

from irc.runtime.object_cache import BadEntry, CacheWarning, ObjectCache, cache_key, decode_entry, encode_entry

KEY = cache_key("some", "function")


def test_round_trip_of_text_artefacts(tmp_path):
    """A PTX-like text artefact in its own kind and extension: stored, loaded back identical."""
    cache = ObjectCache(str(tmp_path), kind="ptx", extension="ptx")
    text = ".version 8.0\n.target sm_90\n// kernel\n"
    cache.store(KEY, text.encode())
    assert os.listdir(tmp_path / "ptx") == [f"{KEY}.e1.ptx"]  # no temporary left behind
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.load(KEY).decode() == text
        assert cache.load(cache_key("another")) is None  # a plain miss is silent


@pytest.mark.parametrize("kind, key, data, reason", [
    ("cpu", KEY, encode_entry("runtime", KEY, b"body"), "another key"),
    ("cpu", KEY, encode_entry("cpu", cache_key("x"), b"body"), "another key"),
    ("cpu", KEY, encode_entry("cpu", KEY, b"body") + b"!", "truncated or extended"),
    ("cpu", KEY, encode_entry("cpu", KEY, b"body").replace(b" 1 ", b" 2 ", 1), "entry format"),
    ("cpu", KEY, encode_entry("cpu", KEY, b"body")[:-1] + b"Y", "checksum"),
    ("cpu", KEY, b"\x7fELF" + bytes(300), "no irc cache header"),
    ("cpu", KEY, b"", "empty"),
], ids=["kind", "key", "length", "version", "checksum", "bare-object", "empty"])
def test_decode_names_what_is_wrong(kind, key, data, reason):
    with pytest.raises(BadEntry, match=reason):
        decode_entry(kind, key, data)


def test_unusable_entry_warns_once_and_is_replaced(tmp_path):
    cache = ObjectCache(str(tmp_path))
    cache.store(KEY, b"object code")
    with open(cache.path(KEY), "r+b") as f:
        f.seek(-3, os.SEEK_END)
        f.write(b"XYZ")
    with pytest.warns(CacheWarning, match="checksum") as record:
        assert cache.load(KEY) is None
    assert len(record) == 1 and cache.path(KEY) in str(record[0].message)
    cache.store(KEY, b"object code")
    assert cache.load(KEY) == b"object code"


def test_kind_must_be_a_folder_name(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        ObjectCache(str(tmp_path), kind="../elsewhere")
