"""The lexer of the textual IR: one compiled regex splits the whole buffer into tokens.

Tokens are plain strings (their text) with a parallel list of start offsets, so the parser
compares `tok == "("` instead of building token objects; a token's kind is read from its
first character. Dimension lists (`400x?x` in `tensor<400x?xf32>`) are one token, which
keeps the element type (`f32`) a separate identifier without any re-lexing.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from operator import add, sub

from .diagnostics import Diagnostic, ParseError
from .location import FileLineColLoc

_STRING = r'"(?:[^"\\\n]|\\.)*"'
# Alternatives are tried in order, most frequent first; a comment is a token (dropped below).
_TOKEN = re.compile(
    r"(\s*)(?:("
    r"[()\[\]{}<>,:=*+!|]|->"                   # punctuation
    r"|%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?"          # %value, %value#1
    r"|[A-Za-z_][A-Za-z0-9_$.]*"                # bare identifier / keyword
    r"|(?:(?:[0-9]+|\?)x)+"                     # dimension list: 400x?x
    r"|[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?"  # integer or float
    r"|" + _STRING +                            # "string"
    r"|\^[A-Za-z0-9_$.\-]+"                     # ^block
    r"|@(?:[A-Za-z0-9_$.\-]+|" + _STRING + r")"  # @symbol, @"symbol"
    r"|[?\-]"                                   # ? and - (after dimension lists and ->)
    r"|//[^\n]*"                                # comment
    r")|(\S))",                                 # anything else is an error
    re.S,
)

EOF = ""


class Tokens:
    """The tokens of one buffer, and the mapping from offsets to line:col."""

    __slots__ = ("text", "filename", "toks", "starts", "line_starts")

    def __init__(self, text: str, filename: str = "<stdin>"):
        self.text = text
        self.filename = filename
        # findall (no match objects) gives (space, token, bad) triples; offsets are sums of lengths.
        found = _TOKEN.findall(text)
        spaces, toks, bad = (list(col) for col in zip(*found)) if found else ([], [], [])
        self.line_starts = [0]
        self.line_starts += [m.end() for m in re.finditer("\n", text)]
        lengths = list(map(len, toks))
        ends = list(accumulate(map(add, map(len, spaces), map(add, lengths, map(len, bad)))))
        if any(bad):
            k = next(k for k, b in enumerate(bad) if b)
            msg = "expected '\"' in string literal" if bad[k] == '"' else f"unexpected character {bad[k]!r}"
            raise ParseError(Diagnostic(msg, self.location(ends[k] - 1)))
        starts = list(map(sub, ends, lengths))
        if "//" in text:  # drop comments
            keep = [k for k, t in enumerate(toks) if t[:2] != "//"]
            if len(keep) != len(toks):
                toks = [toks[k] for k in keep]
                starts = [starts[k] for k in keep]
        toks.append(EOF)
        starts.append(len(text))
        self.toks: list[str] = toks
        self.starts: list[int] = starts

    def location(self, offset: int) -> FileLineColLoc:
        """The 1-based line:col of a character offset."""
        line = bisect_right(self.line_starts, offset)
        col = offset - self.line_starts[line - 1] + 1
        return FileLineColLoc(self.filename, line, col)


def tokenize(text: str, filename: str = "<stdin>") -> Tokens:
    return Tokens(text, filename)
