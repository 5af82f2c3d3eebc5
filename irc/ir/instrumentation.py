"""Pass instrumentations shared by `irc-opt` and the Python API: IR dumps (before/after,
after a change, as a diff, to a folder), wall timing, statistics and crash reproducers.

Dumps and reports use MLIR's exact layouts, so habits and tools carry over: a dump header
starts with `// -----`, so a captured dump feeds back through `--split-input-file`.
"""
from __future__ import annotations

import difflib
import os
import sys
import time
from collections import Counter
from typing import Collection, TextIO

from .core import Operation
from .pass_manager import Pass, PassInstrumentation, PassManager
from .printer import print_op

__all__ = ["render_ir", "dump_header", "IRPrinter", "IRDiffPrinter", "IRTreeDir", "PassTiming",
           "PassStatistics", "CrashReproducer", "REPRODUCER_TAG"]

REPRODUCER_TAG = "// irc-reproducer:"
RULE = "===" + "-" * 73 + "==="


def render_ir(op: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    """The op as text ending in one newline; falls back to the generic form (then to a
    placeholder) when the IR is too broken to print, as after a failed pass."""
    try:
        text = print_op(op, generic=generic, debuginfo=debuginfo)
    except Exception as e:
        if generic:
            return f"<<irc: the IR could not be printed: {type(e).__name__}: {e}>>\n"
        return render_ir(op, generic=True, debuginfo=debuginfo)
    return text.rstrip("\n") + "\n"


def dump_header(when: str, pass_: Pass, failed: bool = False) -> str:
    """`// -----// IR Dump After Canonicalize (canonicalize) //----- //` (MLIR's header)."""
    tail = " Failed" if failed else ""
    return f"// -----// IR Dump {when} {pass_.display_name} ({pass_.name}){tail} //----- //"


def _selects(selection: bool | Collection[str], pass_: Pass) -> bool:
    return selection if isinstance(selection, bool) else pass_.name in selection


class IRPrinter(PassInstrumentation):
    """Print the module before and/or after the selected passes (True = all passes, or a
    collection of pass names). `after_change` prints an after-dump only when the text changed;
    `after_failure` also prints the IR left by a failed pass (header ends in `Failed`)."""

    def __init__(self, stream: TextIO | None = None, before: bool | Collection[str] = False,
                 after: bool | Collection[str] = False, after_change: bool = False,
                 after_failure: bool = False, generic: bool = False, debuginfo: bool = False):
        self.stream = stream
        self.before, self.after = before, after
        self.after_change, self.on_failure = after_change, after_failure
        self.generic, self.debuginfo = generic, debuginfo
        self._before_text: str | None = None

    def _text(self, module: Operation) -> str:
        return render_ir(module, self.generic, self.debuginfo)

    def _emit(self, header: str, text: str) -> None:
        out = self.stream or sys.stderr
        out.write(f"{header}\n{text}\n")
        out.flush()

    def before_pass(self, pass_: Pass, module: Operation) -> None:
        self._before_text = None
        if _selects(self.before, pass_):
            self._before_text = self._text(module)
            self._emit(dump_header("Before", pass_), self._before_text)
        elif self.after_change and _selects(self.after, pass_):
            self._before_text = self._text(module)

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        if not _selects(self.after, pass_):
            return
        text = self._text(module)
        if self.after_change and text == self._before_text:
            return
        self._emit(dump_header("After", pass_), text)

    def after_failure(self, pass_: Pass, module: Operation, error: Exception) -> None:
        if self.on_failure or _selects(self.after, pass_):
            self._emit(dump_header("After", pass_, failed=True), self._text(module))


class IRDiffPrinter(PassInstrumentation):
    """After each pass that changed the IR, print a unified diff against the IR before it."""

    def __init__(self, stream: TextIO | None = None, generic: bool = False, debuginfo: bool = False,
                 context: int = 3):
        self.stream, self.generic, self.debuginfo, self.context = stream, generic, debuginfo, context
        self._before = ""

    def before_pass(self, pass_: Pass, module: Operation) -> None:
        self._before = render_ir(module, self.generic, self.debuginfo)

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        after = render_ir(module, self.generic, self.debuginfo)
        if after == self._before:
            return
        diff = difflib.unified_diff(self._before.splitlines(keepends=True), after.splitlines(keepends=True),
                                    f"before {pass_.name}", f"after {pass_.name}", n=self.context)
        out = self.stream or sys.stderr
        out.write(f"// -----// IR Diff After {pass_.display_name} ({pass_.name}) //----- //\n")
        out.write("".join(diff) + "\n")
        out.flush()


class IRTreeDir(PassInstrumentation):
    """Write the module to `folder`: `000_input.mlir`, then `001_<pass>.mlir` after each pass,
    each a complete module that parses back (numbered in run order)."""

    def __init__(self, folder: str, generic: bool = False, debuginfo: bool = False):
        self.folder, self.generic, self.debuginfo = folder, generic, debuginfo
        self.count = 0
        self.written: list[str] = []

    def _write(self, label: str, module: Operation) -> None:
        os.makedirs(self.folder, exist_ok=True)
        path = os.path.join(self.folder, f"{self.count:03d}_{label}.mlir")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(render_ir(module, self.generic, self.debuginfo))
        self.written.append(path)
        self.count += 1

    def before_pipeline(self, pm: PassManager, module: Operation) -> None:
        self.count = 0
        self._write("input", module)

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        self._write(pass_.name, module)


def _title(title: str) -> str:
    return f"{RULE}\n{' ' * ((80 - len(title)) // 2)}{title}\n{RULE}\n"


class PassTiming(PassInstrumentation):
    """Wall time per pass (summed over runs, e.g. the chunks of `--split-input-file`), reported
    in MLIR's `--mlir-timing` layout. `add()` records other phases (the parser, the output)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], list] = {}  # key -> [label, seconds]
        self._start = 0.0

    def add(self, label: str, seconds: float, key: object = None) -> None:
        row = self.rows.setdefault((label, id(key)), [label, 0.0])
        row[1] += seconds

    def before_pass(self, pass_: Pass, module: Operation) -> None:
        self._start = time.perf_counter()

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        self.add(pass_.display_name, time.perf_counter() - self._start, pass_)

    def after_failure(self, pass_: Pass, module: Operation, error: Exception) -> None:
        self.after_pass(pass_, module)

    def report(self) -> str:
        total = sum(s for _, s in self.rows.values())
        lines = [_title("... Execution time report ..."),
                 f"  Total Execution Time: {total:.4f} seconds\n", "\n",
                 "  ----Wall Time----  ----Name----\n"]
        for label, seconds in [*self.rows.values(), ["Total", total]]:
            pct = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:8.4f} ({pct:5.1f}%)  {label}\n")
        return "".join(lines)


class PassStatistics(PassInstrumentation):
    """Collect each pass's `stats` counters (summed over runs) for MLIR's statistics report."""

    def __init__(self) -> None:
        self.entries: dict[int, tuple[Pass, Counter]] = {}

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        _, total = self.entries.setdefault(id(pass_), (pass_, Counter()))
        total.update(getattr(pass_, "stats", Counter()))

    def report(self) -> str:
        lines = [_title("... Pass statistics report ...")]
        for pass_, counts in self.entries.values():
            lines.append(f"'{pass_.name}'\n")
            names = sorted(set(counts) | set(pass_.statistics))
            if not names:
                continue
            vw = max(len(str(counts.get(n, 0))) for n in names)
            nw = max(len(n) for n in names)
            for n in names:
                desc = pass_.statistics.get(n, "")
                line = f"  (S) {counts.get(n, 0):>{vw}} {n:<{nw}}" + (f" - {desc}" if desc else "")
                lines.append(line.rstrip() + "\n")
        return "".join(lines)


class CrashReproducer(PassInstrumentation):
    """On a pass failure (an error or a crash), write the IR as it was before that pass with a
    first line `// irc-reproducer: -p '<pipeline of that pass>' [flags]` that
    `irc-opt --run-reproducer FILE` replays."""

    def __init__(self, path: str, extra_flags: str = "", stream: TextIO | None = None):
        self.path, self.extra_flags, self.stream = path, extra_flags, stream
        self._before = ""
        self.full_pipeline = ""
        self.written = False

    def before_pipeline(self, pm: PassManager, module: Operation) -> None:
        self.full_pipeline = pm.pipeline_string()
        if not pm.verify_each and "--no-verify-each" not in self.extra_flags:
            self.extra_flags = (self.extra_flags + " --no-verify-each").strip()

    def before_pass(self, pass_: Pass, module: Operation) -> None:
        self._before = render_ir(module, debuginfo=True)

    def after_failure(self, pass_: Pass, module: Operation, error: Exception) -> None:
        pipeline = PassManager([pass_]).pipeline_string()
        flags = f" {self.extra_flags}" if self.extra_flags else ""
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(f"{REPRODUCER_TAG} -p '{pipeline}'{flags}\n")
            fh.write(f"// failing pass: {pass_.name} ({pass_.display_name}) in {self.full_pipeline}\n")
            fh.write(f"// error: {first}\n")
            fh.write(self._before)
        self.written = True
        (self.stream or sys.stderr).write(
            f"note: pass '{pass_.name}' failed; reproducer generated at `{self.path}`\n")
