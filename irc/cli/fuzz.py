"""Mutation fuzzing of `irc-opt`: the project's own `.mlir` files, mutated (lines deleted,
duplicated or swapped, characters flipped, types and numbers changed, two files spliced), run
through irc-opt's `main` in this process with a pass pipeline and a code-generation target.

The contract checked is irc-opt's: exit 0, or exit 1 with a located `file:line:col: error:`
diagnostic — never exit 2 (an internal error), never an escaping exception, never a hang.
Used by `tests/cli/test_fuzz_opt.py` (a few hundred cases, fixed seed) and `tools/fuzz_opt.py`.
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .opt import main

# What a mutant is run through: the FAST_RUN pipeline and each way out of irc-opt (the cpu's
# code generators, and the GPU's, which need only llvmlite).
PIPELINE = "canonicalize,stabilize,specialize,canonicalize,fuse-elementwise,fuse-matvec,inplace"
CONFIGS: tuple[tuple[str, ...], ...] = (
    ("-p", PIPELINE),
    ("-p", PIPELINE, "-t", "llvm"),
    ("-p", PIPELINE, "--emit-stage", "loop"),
    ("-p", "lower-to-loops", "-t", "llvm-raw"),
    ("-p", PIPELINE, "-t", "ptx"),
)
LOCATED = re.compile(r"^(?!<unknown>)\S.*:\d+:\d+: error: ", re.M)  # a real file:line:col
USAGE = re.compile(r"^irc-opt: error: ", re.M)

_TYPES = ("f16", "f32", "f64", "i1", "i8", "i32", "i64", "index", "tensor<f32>", "tensor<?xf32>",
          "tensor<3xf32>", "tensor<1x?xf64>", "tensor<?x?xi64>", "memref<?xf32>", "tensor<0xf32>")
_CHARS = "%@^:=,(){}<>[]\"'!#x?0123456789-. \n"
_NUMBERS = ("0", "-1", "1", "2", "-9223372036854775808", "9223372036854775807", "100000000000",
            "3.5", "1e309", "nan")
_TYPE_TOKEN = re.compile(r"\b(?:f16|f32|f64|i1|i8|i16|i32|i64|index)\b|tensor<[^<>]*>|memref<[^<>]*>")
_NUMBER_TOKEN = re.compile(r"(?<![%\w])-?\d+(?:\.\d+)?")
_OP_TOKEN = re.compile(r"\b(?:tensor|loop|scalar|func)\.[a-z_]+\b")
_VALUE_TOKEN = re.compile(r"%[\w.]+")


# ---------------------------------------------------------------------------- mutators
def _delete_line(rng: random.Random, lines: list[str], _: list[str]) -> None:
    if lines:
        del lines[rng.randrange(len(lines))]


def _duplicate_line(rng: random.Random, lines: list[str], _: list[str]) -> None:
    if lines:
        k = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[k])


def _swap_lines(rng: random.Random, lines: list[str], _: list[str]) -> None:
    if len(lines) > 1:
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]


def _flip_char(rng: random.Random, lines: list[str], _: list[str]) -> None:
    if lines:
        k = rng.randrange(len(lines))
        line = lines[k]
        pos = rng.randrange(len(line) + 1)
        lines[k] = line[:pos] + rng.choice(_CHARS) + line[pos + 1:]


def _replace_token(what: str, pattern: re.Pattern, choices: Sequence[str]) -> Callable:
    def mutate(rng: random.Random, lines: list[str], _: list[str]) -> None:
        spots = [(k, m) for k, line in enumerate(lines) for m in pattern.finditer(line)]
        if spots:
            k, m = rng.choice(spots)
            lines[k] = lines[k][:m.start()] + rng.choice(choices) + lines[k][m.end():]
    mutate.__name__ = f"change_{what}"
    return mutate


def _swap_token(what: str, pattern: re.Pattern) -> Callable:
    """Replace one token with another of its kind found in the same file (an op name by
    another op's, a value by another value: use before definition, wrong types...)."""
    def mutate(rng: random.Random, lines: list[str], _: list[str]) -> None:
        spots = [(k, m) for k, line in enumerate(lines) for m in pattern.finditer(line)]
        if spots:
            k, m = rng.choice(spots)
            other = rng.choice(spots)[1].group()
            lines[k] = lines[k][:m.start()] + other + lines[k][m.end():]
    mutate.__name__ = f"swap_{what}"
    return mutate


def _splice(rng: random.Random, lines: list[str], other: list[str]) -> None:
    if lines and other:
        cut, cut2 = rng.randrange(len(lines) + 1), rng.randrange(len(other) + 1)
        lines[cut:] = other[cut2:]


MUTATORS: tuple[Callable, ...] = (
    _delete_line, _duplicate_line, _swap_lines, _flip_char,
    _replace_token("type", _TYPE_TOKEN, _TYPES),
    _replace_token("number", _NUMBER_TOKEN, _NUMBERS), _swap_token("op", _OP_TOKEN),
    _swap_token("value", _VALUE_TOKEN), _splice,
)


def corpus(root: Path) -> list[tuple[str, list[str]]]:
    """(name, lines) of every `.mlir` file under `root`, RUN lines dropped (they only matter
    to the test runner)."""
    files = []
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = [ln for ln in text.splitlines() if "RUN:" not in ln]
        files.append((str(path.relative_to(root)), lines))
    return files


@dataclass
class Mutant:
    source: str
    mutations: list[str]
    text: str
    args: tuple[str, ...]


def mutants(files: list[tuple[str, list[str]]], count: int, seed: int) -> Iterator[Mutant]:
    """`count` mutants, each of one to three mutations, from a fixed seed."""
    rng = random.Random(seed)
    for _ in range(count):
        name, lines = rng.choice(files)
        lines = list(lines)
        applied = []
        for _ in range(rng.randint(1, 3)):
            fn = rng.choice(MUTATORS)
            fn(rng, lines, rng.choice(files)[1])
            applied.append(fn.__name__.strip("_"))
        yield Mutant(name, applied, "\n".join(lines) + "\n", rng.choice(CONFIGS))


# ---------------------------------------------------------------------------- running
class CaseTimeout(BaseException):
    """A case ran past its time limit (a BaseException, so irc-opt's own handlers let it pass)."""


@dataclass
class Outcome:
    status: int | str   # 0, 1, 2, or "unlocated", "raised", "timeout"
    stderr: str


@dataclass
class Tally:
    counts: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # (mutant, outcome) for every bad outcome

    def add(self, mutant: Mutant, outcome: Outcome) -> None:
        self.counts[outcome.status] = self.counts.get(outcome.status, 0) + 1
        if outcome.status not in (0, 1):
            self.failures.append((mutant, outcome))


def _alarm(signum, frame):
    raise CaseTimeout()


def run_case(mutant: Mutant, folder: str, timeout_s: int = 0) -> Outcome:
    """Run irc-opt on the mutant (written into `folder`) in this process; classify the result."""
    path = os.path.join(folder, "mutant.mlir")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(mutant.text)
    out, err = io.StringIO(), io.StringIO()
    use_alarm = timeout_s > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(timeout_s)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status: int | str = main([path, "--split-input-file", *mutant.args])
    except CaseTimeout:
        status = "timeout"
    except SystemExit as e:
        status = int(e.code or 0)
    except Exception as e:  # noqa: BLE001  (an escaping exception is the bug being looked for)
        status = "raised"
        err.write(f"{type(e).__name__}: {e}")
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    text = err.getvalue()
    if status == 1 and not (LOCATED.search(text) or USAGE.search(text)):
        status = "unlocated"
    return Outcome(status, text)


def fuzz(root: Path, count: int, seed: int, timeout_s: int = 0,
         progress: Callable[[int, Tally], None] | None = None) -> Tally:
    """Run `count` mutants of the `.mlir` files under `root`; the tally of outcomes."""
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="irc-fuzz-") as folder:
        for k, mutant in enumerate(mutants(corpus(root), count, seed)):
            tally.add(mutant, run_case(mutant, folder, timeout_s))
            if progress is not None:
                progress(k + 1, tally)
    return tally
