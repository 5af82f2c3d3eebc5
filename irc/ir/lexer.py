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
from operator import sub

from .diagnostics import Diagnostic, ParseError
from .location import FileLineColLoc

_STRING = r'"(?:[^"\\\n]|\\.)*"'
# Alternatives are tried in order, most frequent first; a comment is a token (dropped below).
_ALTERNATIVES = (
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
)
# No capturing group, so findall returns plain strings: each token with the space before it;
# any other character is a token of its own, rejected by `_VALID` afterwards.
_TOKEN = re.compile(r"\s*(?:" + _ALTERNATIVES + r"|\S)", re.S)
_VALID = re.compile(_ALTERNATIVES, re.S)

EOF = ""


class Tokens:
    """The tokens of one buffer, and the mapping from offsets to line:col."""

    __slots__ = ("text", "filename", "toks", "starts", "line_starts")

    def __init__(self, text: str, filename: str = "<stdin>"):
        self.text = text
        self.filename = filename
        found = _TOKEN.findall(text)
        ends = list(accumulate(map(len, found)))
        toks = list(map(str.lstrip, found))
        starts = list(map(sub, ends, map(len, toks)))
        self.line_starts = [0]
        self.line_starts += [m.end() for m in re.finditer("\n", text)]
        bad = [tok for tok in set(toks) if not _VALID.fullmatch(tok)]  # few distinct tokens
        if bad:
            k = min(toks.index(tok) for tok in bad)
            tok = toks[k]
            msg = "expected '\"' in string literal" if tok[0] == '"' else f"unexpected character {tok!r}"
            raise ParseError(Diagnostic(msg, self.location(starts[k])))
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
