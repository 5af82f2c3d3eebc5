"""The disk cache of compiled object code: one file per key under `<compiledir>/cpu/` (and
`<compiledir>/runtime/` for the runtime's own code).

The key hashes everything the machine code depends on (the loop IR text, the target triple,
CPU name and features, the llvmlite and LLVM versions, the ABI details), so a hit can be loaded
without running LLVM's optimizer. Files are written to a temporary name and renamed into place
(`os.replace` is atomic), so concurrent compilers never see a partial file.
"""
from __future__ import annotations

import hashlib
import os
import tempfile


def cache_dir(override: str | None = None) -> str:
    """`override`, else `$IRC_COMPILEDIR`, else `irc.config.compiledir` (~/.cache/irc)."""
    if override:
        return override
    env = os.environ.get("IRC_COMPILEDIR")
    if env:
        return os.path.expanduser(env)
    try:
        from ..config import config
        base = config.compiledir
    except Exception:  # config is optional for the runtime
        base = ""
    return base or os.path.join(os.path.expanduser("~"), ".cache", "irc")


def cache_key(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


class ObjectCache:
    """`kind` names the subfolder: "cpu" for compiled functions, "runtime" for irc's own
    native support code (the thread pool)."""

    def __init__(self, folder: str | None = None, kind: str = "cpu"):
        self.folder = os.path.join(cache_dir(folder), kind)

    def path(self, key: str) -> str:
        return os.path.join(self.folder, key + ".o")

    def load(self, key: str) -> bytes | None:
        try:
            with open(self.path(key), "rb") as f:
                return f.read()
        except OSError:
            return None

    def store(self, key: str, data: bytes) -> None:
        """Best effort: a read-only or full disk only costs the next start a recompile."""
        try:
            os.makedirs(self.folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".o")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, self.path(key))
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass
