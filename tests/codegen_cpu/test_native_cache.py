"""The disk cache of object code: a cold compile writes one file atomically, a warm compile
loads it without running LLVM, and the key changes with the IR."""
from __future__ import annotations

import os

import numpy as np
import pytest

from native_helpers import rand

TEXT = """
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.%OP% %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}"""


def _compile(op: str, folder: str):
    from irc.ir.parser import parse_module
    from irc.runtime.native import compile_cpu
    return compile_cpu(parse_module(TEXT.replace("%OP%", op)), cache_dir=folder)


def test_cold_then_warm(tmp_path, monkeypatch):
    folder = str(tmp_path)
    cold = _compile("tanh", folder)
    assert not cold.stats.cache_hit
    files = os.listdir(os.path.join(folder, "cpu"))
    assert len(files) == 1 and files[0].endswith(".o")  # no temporary left behind

    import irc.runtime.native as native

    def no_llvm(*a, **k):
        raise AssertionError("a warm start must not run LLVM's optimizer")

    monkeypatch.setattr(native, "build_objects", no_llvm)
    monkeypatch.setattr(native, "parse_and_optimize", no_llvm)
    monkeypatch.setattr(native, "glue_object", no_llvm)
    warm = _compile("tanh", folder)
    assert warm.stats.cache_hit and warm.stats.llvm_s == 0.0
    x = rand(1000)
    np.testing.assert_array_equal(cold(x)[0], warm(x)[0])
    np.testing.assert_allclose(warm(x)[0], np.tanh(x), rtol=1e-5, atol=1e-6)


def test_key_depends_on_ir(tmp_path):
    folder = str(tmp_path)
    _compile("exp", folder)
    _compile("log", folder)
    assert len(os.listdir(os.path.join(folder, "cpu"))) == 2


def test_default_folder_from_environment(tmp_path, monkeypatch):
    from irc.runtime.object_cache import cache_dir
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    assert cache_dir() == str(tmp_path)
    assert cache_dir("/elsewhere") == "/elsewhere"


def test_unwritable_cache_still_compiles(tmp_path):
    target = tmp_path / "file"
    target.write_text("not a folder")
    fn = _compile("neg", str(target))
    np.testing.assert_array_equal(fn(np.arange(3, dtype=np.float32))[0], -np.arange(3, dtype=np.float32))


def test_key_follows_the_code_generator(tmp_path, monkeypatch):
    """Objects built by another version of the code generator (a mathlib change, say: the loop
    IR is the same) are not loaded."""
    import irc.codegen_cpu.target as target
    folder = str(tmp_path)
    assert not _compile("exp", folder).stats.cache_hit
    assert _compile("exp", folder).stats.cache_hit
    monkeypatch.setattr(target, "codegen_identity", lambda: "another code generator")
    assert not _compile("exp", folder).stats.cache_hit


def test_identity_hashes_the_sources():
    from irc.codegen_cpu.target import codegen_identity, host_identity
    ident, level = codegen_identity().rsplit("|", 1)
    assert ident.startswith(host_identity() + "|") and len(ident.rsplit("|", 1)[1]) == 16
    assert level == "O2"
