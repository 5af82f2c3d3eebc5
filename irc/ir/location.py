"""Source locations: where an op came from (an IR file position or a user's Python line)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Base of all locations; `UnknownLoc` when nothing is known."""

    def __str__(self) -> str:
        return "loc(unknown)"

    @property
    def known(self) -> bool:
        return False


@dataclass(frozen=True)
class UnknownLoc(Location):
    pass


@dataclass(frozen=True)
class FileLineColLoc(Location):
    """`loc("file.py":12:4)`: a position in a file (1-based line and column)."""

    filename: str
    line: int
    col: int

    def __str__(self) -> str:
        escaped = self.filename.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{escaped}":{self.line}:{self.col})'

    @property
    def known(self) -> bool:
        return True


UNKNOWN_LOC = UnknownLoc()
