"""Diagnostics in MLIR's style: `file:line:col: error: message`, the source line and a caret.

The parser registers every buffer it reads with `SOURCES`, so any later error that carries a
file location (a verifier error, a failing pass) can quote the offending line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .location import FileLineColLoc, Location, UNKNOWN_LOC


class SourceManager:
    """Remembers the text of files so diagnostics can show the offending line."""

    def __init__(self) -> None:
        self._texts: dict[str, list[str]] = {}

    def add(self, filename: str, text: str) -> None:
        self._texts[filename] = text.splitlines()

    def line(self, filename: str, line: int) -> str | None:
        lines = self._texts.get(filename)
        if lines is None:
            try:
                with open(filename, encoding="utf-8") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                return None
            self._texts[filename] = lines
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


SOURCES = SourceManager()


@dataclass
class Diagnostic:
    """One message attached to a location; `notes` are extra located remarks."""

    message: str
    location: Location = UNKNOWN_LOC
    severity: str = "error"
    notes: list["Diagnostic"] = field(default_factory=list)

    def render(self, with_source: bool = True) -> str:
        loc = self.location
        if isinstance(loc, FileLineColLoc):
            head = f"{loc.filename}:{loc.line}:{loc.col}: {self.severity}: {self.message}"
            text = [head]
            src = SOURCES.line(loc.filename, loc.line) if with_source else None
            if src is not None:
                text.append(src)
                text.append(" " * max(loc.col - 1, 0) + "^")
        else:
            text = [f"<unknown>:0:0: {self.severity}: {self.message}"]
        for note in self.notes:
            text.append(note.render(with_source))
        return "\n".join(text)

    def __str__(self) -> str:
        return self.render()


class IRError(Exception):
    """Base of errors that carry diagnostics; `str()` renders them MLIR-style."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic | str, location: Location = UNKNOWN_LOC):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(diagnostics, location)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__(self.render())

    def render(self, with_source: bool = True) -> str:
        return "\n".join(d.render(with_source) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.render()


class ParseError(IRError):
    """Malformed text: a syntax error, an unknown op, type or attribute."""


class VerifyError(IRError):
    """Well-formed text that breaks a structural or per-op rule."""


class PassError(IRError):
    """A pass failed (or a pass pipeline or option is unknown)."""


class UnsupportedError(IRError, NotImplementedError):
    """Valid IR that a lowering or a code generator has no rule for (an op, a type, a
    signature); located at what it cannot handle."""
