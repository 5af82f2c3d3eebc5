"""The PTX cache (`ObjectCache(kind="ptx")`) uses the verified format: a damaged entry is a
miss with one warning and is rebuilt, so the driver never sees a wrong or broken PTX text.
PTX is emitted by llvmlite's NVPTX target: no GPU is needed here."""
from __future__ import annotations

import os
import warnings

import pytest

from irc.codegen_ptx.pipeline import lower_for_gpu
from irc.ir.parser import parse_module
from irc.runtime.cuda.ptx_cache import cached_ptx
from irc.runtime.object_cache import CacheWarning

TEXT = """
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.exp %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}"""


def test_damaged_ptx_entry_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    module = lower_for_gpu(parse_module(TEXT))
    fresh = cached_ptx(module, "sm_80")
    assert ".entry" in fresh
    entry, = (tmp_path / "ptx").iterdir()
    assert entry.name.endswith(".ptx")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cached_ptx(module, "sm_80") == fresh  # a verified hit
    data = entry.read_bytes()
    entry.write_bytes(data.replace(b".entry", b".entrx", 1))  # one flipped byte
    with pytest.warns(CacheWarning, match="checksum") as record:
        assert cached_ptx(module, "sm_80") == fresh
    assert len(record) == 1
    assert entry.read_bytes() == data  # replaced by a valid entry
    assert os.listdir(tmp_path) == ["ptx"]
