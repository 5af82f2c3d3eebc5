"""What a cached artefact of a code generator depends on besides its input IR: the sources that
produced it. A cached object or PTX built by other code generation must never be loaded."""
from __future__ import annotations

import hashlib
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

HERE = Path(__file__).parent


def llvm_versions() -> str:
    """llvmlite's version and the LLVM it wraps."""
    return llvmlite.__version__ + "|" + ".".join(map(str, llvm.llvm_version_info))


def sources_hash(package: Path) -> str:
    """A short hash of a code generator package's sources, the shared LLVM layer's, and the
    elementwise table whose expansions `scalar_emit` emits."""
    h = hashlib.sha256()
    sources = sorted(package.glob("*.py")) + sorted(HERE.glob("*.py"))
    for path in sources + [HERE.parent / "dialects" / "elementwise.py"]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
