"""Pipeline strings: `canonicalize,stabilize{max-iterations=3 foo=true}` ↔ a list of passes.

Also accepts MLIR's anchored form `builtin.module(canonicalize,stabilize)`, which is what
`format_pipeline` prints. Option values are typed from the pass's dataclass fields (int,
float, bool, str). Errors point at the column of the pipeline text, MLIR-style.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import typing
from typing import Any, Sequence

from .diagnostics import SOURCES, Diagnostic, PassError
from .location import FileLineColLoc
from .pass_base import PASS_IMPORT_ERRORS, PASS_REGISTRY, Pass, load_passes

PIPELINE_FILE = "<pipeline>"
ANCHOR = "builtin.module"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_OPTION = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_BARE_VALUE = re.compile(r"[^\s,{}()\"']+")


def closest(name: str, candidates: Sequence[str]) -> str:
    """` (did you mean 'x'?)` for the nearest candidate, or '' when none is close."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


class _Reader:
    """A cursor over the pipeline text that reports errors at its column."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        SOURCES.add(PIPELINE_FILE, text)

    def error(self, message: str, pos: int | None = None) -> PassError:
        col = (self.pos if pos is None else pos) + 1
        return PassError(Diagnostic(message, FileLineColLoc(PIPELINE_FILE, 1, col)))

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def accept(self, ch: str) -> bool:
        if self.peek() == ch:
            self.pos += 1
            return True
        return False

    def expect(self, ch: str, what: str) -> None:
        if not self.accept(ch):
            found = f"'{self.peek()}'" if self.peek() else "end of pipeline"
            raise self.error(f"expected '{ch}' {what}, found {found}")

    def match(self, pattern: re.Pattern[str], what: str) -> tuple[str, int]:
        self.skip_space()
        m = pattern.match(self.text, self.pos)
        if not m:
            found = f"'{self.text[self.pos]}'" if self.pos < len(self.text) else "end of pipeline"
            raise self.error(f"expected {what}, found {found}")
        self.pos = m.end()
        return m.group(), m.start()


def parse_pipeline(text: str) -> list[Pass]:
    """Parse a pipeline string into fresh pass instances (errors are `PassError`s)."""
    r = _Reader(text)
    if not r.peek():
        return []
    load_passes()
    passes = _parse_list(r, nested=False)
    if r.peek():
        raise r.error(f"unexpected '{r.peek()}' in pipeline")
    return passes


def _parse_list(r: _Reader, nested: bool) -> list[Pass]:
    passes: list[Pass] = []
    if nested and r.peek() == ")":
        return passes
    while True:
        passes.extend(_parse_element(r, nested))
        if not r.accept(","):
            return passes


def _parse_element(r: _Reader, nested: bool) -> list[Pass]:
    name, start = r.match(_NAME, "a pass name")
    if r.peek() == "(":
        if name != ANCHOR or nested:
            raise r.error(f"nested pipelines on '{name}' are not supported "
                          f"(passes run on the whole module; use '{ANCHOR}(...)' at the top)", start)
        r.accept("(")
        inner = _parse_list(r, nested=True)
        r.expect(")", f"to close '{ANCHOR}('")
        return inner
    cls = PASS_REGISTRY.get(name)
    if cls is None:
        hint = closest(name, sorted(PASS_REGISTRY)) + _broken_modules()
        raise r.error(f"unknown pass '{name}'{hint}", start)
    values: dict[str, Any] = {}
    if r.accept("{"):
        values = _parse_options(r, cls)
    try:
        pass_ = cls(**values)
    except (TypeError, ValueError) as e:
        raise r.error(f"invalid options for pass '{name}': {e}", start) from None
    pass_.pipeline_location = FileLineColLoc(PIPELINE_FILE, 1, start + 1)
    return [pass_]


def _broken_modules() -> str:
    """A hint when some pass module failed to import (its passes then look unknown)."""
    errors = PASS_IMPORT_ERRORS
    if not errors:
        return ""
    return " (note: pass modules failed to import: " + "; ".join(f"{m}: {e}" for m, e in errors.items()) + ")"


def option_fields(cls: type[Pass]) -> dict[str, tuple[dataclasses.Field, Any]]:
    """Pipeline spelling → (dataclass field, resolved type) for each option of a pass."""
    if not dataclasses.is_dataclass(cls):
        return {}
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # unresolvable annotations: fall back to the raw ones
        hints = {}
    return {f.name.replace("_", "-"): (f, hints.get(f.name, f.type))
            for f in dataclasses.fields(cls) if f.init}


def _parse_options(r: _Reader, cls: type[Pass]) -> dict[str, Any]:
    fields = option_fields(cls)
    values: dict[str, Any] = {}
    while not r.accept("}"):
        if not r.peek():
            raise r.error(f"expected '}}' to close the options of '{cls.name}'")
        key, kpos = r.match(_OPTION, "an option name")
        spelled = key.replace("_", "-")
        if spelled not in fields:
            valid = ", ".join(fields) or "none"
            raise r.error(f"unknown option '{key}' for pass '{cls.name}'"
                          f"{closest(spelled, list(fields))} (valid options: {valid})", kpos)
        field, typ = fields[spelled]
        if r.accept("="):
            r.skip_space()
            vpos = r.pos
            raw = _read_value(r)
            try:
                values[field.name] = convert_option(raw, typ)
            except ValueError as e:
                raise r.error(f"invalid value '{raw}' for option '{spelled}' of pass '{cls.name}': {e}",
                              vpos) from None
        elif typ in (bool, "bool"):
            values[field.name] = True  # `{flag}` alone means flag=true, as in MLIR
        else:
            raise r.error(f"expected '=' and a value after option '{spelled}'")
        r.accept(",")
    return values


def _read_value(r: _Reader) -> str:
    text, i = r.text, r.pos
    if i < len(text) and text[i] in "\"'":
        end = text.find(text[i], i + 1)
        if end < 0:
            raise r.error("unterminated quoted option value")
        r.pos = end + 1
        return text[i + 1:end]
    if i < len(text) and text[i] == "{":  # a braced value (e.g. a nested pipeline string)
        depth = 0
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                r.pos = j + 1
                return text[i + 1:j]
        raise r.error("unbalanced '{' in option value")
    m = _BARE_VALUE.match(text, i)
    if not m:
        raise r.error("expected an option value")
    r.pos = m.end()
    return m.group()


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def convert_option(raw: str, typ: Any) -> Any:
    """Turn option text into a value of the field's type (raises ValueError with a reason)."""
    name = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
    if name == "bool":
        low = raw.lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        raise ValueError("expected true or false")
    if name == "int":
        try:
            return int(raw, 0)
        except ValueError:
            raise ValueError("expected an integer") from None
    if name == "float":
        try:
            return float(raw)
        except ValueError:
            raise ValueError("expected a number") from None
    if name == "str":
        return raw
    raise ValueError(f"options of type {name} are not supported")


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if isinstance(value, str) and not _BARE_VALUE.fullmatch(text):
        return "'" + text + "'" if '"' in text else '"' + text + '"'
    return text


def format_pass(pass_: Pass, defaults: bool = True) -> str:
    """`name{opt=value ...}` with every option (MLIR prints them all: explicit is stable), or
    with `defaults=False` only those set away from their defaults (a short command line)."""
    opts = pass_.options()
    if opts and not defaults:
        unset = {f.name.replace("_", "-") for f in dataclasses.fields(pass_)
                 if f.default is not dataclasses.MISSING and getattr(pass_, f.name) == f.default}
        opts = {k: v for k, v in opts.items() if k not in unset}
    if not opts:
        return pass_.name
    return pass_.name + "{" + " ".join(f"{k}={format_value(v)}" for k, v in opts.items()) + "}"


def format_pipeline(passes: Sequence[Pass]) -> str:
    return f"{ANCHOR}(" + ",".join(format_pass(p) for p in passes) + ")"
