"""The disk cache of compiled artefacts: one verified entry per key under `<compiledir>/<kind>/`
("cpu": compiled functions' object code, "runtime": irc's own native code, the thread pool;
a GPU backend adds "ptx" for PTX text, and "cuda-user" for the cubins of users' CUDA C kernels).

The key hashes everything the artefact depends on (the loop IR text, the target, the llvmlite
and LLVM versions, the code generator's sources, the ABI details), so a hit is used without
running LLVM's optimizer. A hit is handed to LLVM's loader, which trusts its input: a damaged
object file crashes the process (SIGSEGV, or an abort inside RuntimeDyld). So every entry
starts with one header line naming what it holds and proving it whole:

    irc-cache-entry 1 <kind> <key> <body length> <sha256 of the body>\\n<body>

and `load` returns the body only when all of it checks out. Anything else (a file truncated
by a power loss, emptied, overwritten, one flipped bit, or another key's entry copied over
this one) is a miss: one `CacheWarning` names the file and the reason, the caller recompiles
and `store` replaces the entry. Entries are written to a temporary file and renamed into
place (`os.replace` is atomic), so readers never see a partial file. They are not forced to
disk (no fsync): a power loss can at worst leave a damaged entry, which the header catches as
above, and the fsyncs of a file and its folder took ~9 ms per entry on an ext4 VM — 0.37 s of
a training step's cold compile, which stores forty kernels.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import warnings

from ..base.config import config

MAGIC = b"irc-cache-entry"
FORMAT_VERSION = 1
_MAX_HEADER = 256  # bytes; a real header is about 180


class CacheWarning(RuntimeWarning):
    """A cache entry could not be used (damaged or not the one asked for); it is rebuilt."""


class BadEntry(ValueError):
    """Why an entry's bytes are not a valid entry for the key asked for."""


def cache_dir(override: str | None = None) -> str:
    """`override`, else `$IRC_COMPILEDIR`, else `irc.config.compiledir` (~/.cache/irc)."""
    if override:
        return override
    env = os.environ.get("IRC_COMPILEDIR")
    if env:
        return os.path.expanduser(env)
    try:
        base = config.compiledir
    except Exception:  # a broken flag must not stop the runtime: use the default folder
        base = ""
    return base or os.path.join(os.path.expanduser("~"), ".cache", "irc")


def cache_key(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


def encode_entry(kind: str, key: str, body: bytes) -> bytes:
    """The header line (see the module docstring) followed by `body`."""
    digest = hashlib.sha256(body).hexdigest()
    header = f"{MAGIC.decode()} {FORMAT_VERSION} {kind} {key} {len(body)} {digest}\n"
    return header.encode("ascii") + body


def decode_entry(kind: str, key: str, data: bytes) -> bytes:
    """The body of `data` if it is a whole entry of `kind` for `key`, else `BadEntry`."""
    if not data:
        raise BadEntry("the file is empty")
    end = data.find(b"\n", 0, _MAX_HEADER)
    if end < 0 or not data.startswith(MAGIC + b" "):
        raise BadEntry("no irc cache header (damaged, or written by another program)")
    fields = data[:end].split(b" ")
    if len(fields) != 6:
        raise BadEntry("malformed header")
    _, version, got_kind, got_key, length, digest = (f.decode("ascii", "replace") for f in fields)
    if version != str(FORMAT_VERSION):
        raise BadEntry(f"entry format {version!r}, expected {FORMAT_VERSION}")
    if got_kind != kind or got_key != key:
        raise BadEntry(f"it holds the entry of another key ({got_kind}/{got_key[:16]}...)")
    body = data[end + 1:]
    check_body(body, length, digest, "header", "body")
    return body


def check_body(body: bytes, length: str, digest: str, where: str, what: str) -> None:
    """`BadEntry` unless `body` has the `length` and sha256 `digest` its `where` (header,
    trailer) states."""
    if not length.isdigit() or int(length) != len(body):
        raise BadEntry(f"body of {len(body)} bytes, the {where} says {length} (truncated or extended)")
    if hashlib.sha256(body).hexdigest() != digest:
        raise BadEntry(f"checksum mismatch (the {what} was modified)")


class ObjectCache:
    """A folder of verified entries, `<compiledir>/<kind>/<key>.e1.<extension>`.

    `kind` names the subfolder and is part of each entry's identity; `extension` only helps a
    human browsing the folder ("o" for object code, "ptx" for PTX text: pass `text.encode()`).
    Both are keyword-only: a positional string is the folder (the compiledir override).
    The format version is in the file name, so irc versions with other formats never read
    each other's entries."""

    def __init__(self, folder: str | None = None, *, kind: str = "cpu", extension: str = "o"):
        if not kind or any(c in kind for c in " \n/\\"):
            raise ValueError(f"ObjectCache: kind must be a plain folder name, got {kind!r}")
        self.kind = kind
        self.extension = extension.lstrip(".")
        self.folder = os.path.join(cache_dir(folder), kind)

    def path(self, key: str) -> str:
        return os.path.join(self.folder, f"{key}.e{FORMAT_VERSION}.{self.extension}")

    def load(self, key: str) -> bytes | None:
        """The verified body stored under `key`; None when there is none or it is unusable
        (then with one `CacheWarning`: the caller rebuilds and `store` replaces the entry)."""
        path = self.path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (FileNotFoundError, NotADirectoryError):
            return None  # a plain miss
        except OSError as e:
            warnings.warn(f"irc: cannot read compile-cache entry {path} ({e}); recompiling",
                          CacheWarning, stacklevel=2)
            return None
        try:
            return decode_entry(self.kind, key, data)
        except BadEntry as e:
            warnings.warn(f"irc: ignoring a damaged compile-cache entry {path}: {e}; "
                          f"recompiling and replacing it", CacheWarning, stacklevel=2)
            return None

    def store(self, key: str, body: bytes) -> None:
        """Best effort: a read-only or full disk only costs the next start a recompile."""
        try:
            os.makedirs(self.folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix="." + self.extension)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(encode_entry(self.kind, key, body))
                os.replace(tmp, self.path(key))
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass
