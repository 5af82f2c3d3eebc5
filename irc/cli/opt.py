"""`irc-opt`: parse IR, run a pass pipeline, print the result — irc's `mlir-opt`.

IR dumps and diagnostics go to stderr, the result to stdout (or `-o`). Bad input of any kind
exits 1 with an MLIR-style `file:line:col: error:` message; an internal error exits 2 with a
one-line message (IRC_TRACEBACK=1 shows the traceback). Only argparse is imported before the
arguments are read, so `--help` is fast.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from ..base.gc_pause import with_gc_paused
from . import UsageError

PROG = "irc-opt"


class _ArgParser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        """Bad command lines are bad input: exit 1 (2 is kept for internal errors)."""
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _flag(group, *names: str, help: str, **kw) -> None:
    group.add_argument(*names, help=help, **kw)


def build_arg_parser() -> argparse.ArgumentParser:
    p = _ArgParser(prog=PROG, allow_abbrev=False,
                   description="Parse IR, run a pass pipeline over it and print the result.",
                   epilog="IR dumps go to stderr, the result to stdout. MLIR's --mlir-* spellings "
                          "are accepted too. Set IRC_TRACEBACK=1 to see tracebacks of internal errors.")
    p.add_argument("input", nargs="?", default="-", help="input file ('-' or nothing: stdin)")
    p.add_argument("-o", dest="output", metavar="FILE", default="-", help="output file (default: stdout)")
    p.add_argument("-p", "--pass-pipeline", dest="pipeline", metavar="PIPELINE", default="",
                   help="passes to run, e.g. 'canonicalize,stabilize{max-iterations=3}'")
    p.add_argument("-t", "--target", default="mlir", metavar="NAME",
                   help="what to emit (see --list-targets; default: mlir)")
    p.add_argument("--gpu-arch", type=_gpu_arch, default=None, metavar="sm_XY",
                   help="the GPU architecture -t ptx compiles for (e.g. sm_80, sm_90a; default: sm_90)")
    p.add_argument("--emit-stage", choices=("tensor", "loop", "gpu"), default=None,
                   help="stop at this level: 'loop' lowers tensor functions to loops (after the "
                        "pipeline) and emits that, even with -t llvm/asm")
    p.add_argument("--view-graph", nargs="?", const="-", default=None, metavar="FILE",
                   help="draw the result's graph: DOT on stderr, or FILE (.png/.svg/.pdf need "
                        "Graphviz's dot; .dot always works)")
    p.add_argument("--list-passes", action="store_true", help="list the registered passes and exit")
    p.add_argument("--list-targets", action="store_true",
                   help="list the targets and the stages -t renders, and exit")
    p.add_argument("--split-input-file", action="store_true",
                   help="process each '// -----'-separated chunk on its own")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    p.add_argument("--verify-each", action="store_true", default=True,
                   help="verify the IR after each pass (the default; also --verify-each=BOOL)")
    p.add_argument("--no-verify-each", dest="verify_each", action="store_false",
                   help="do not verify after each pass")

    g = p.add_argument_group("printing")
    _flag(g, "--mlir-print-op-generic", "--print-op-generic", dest="generic", action="store_true",
          help="print every op in the generic form")
    _flag(g, "--mlir-print-debuginfo", "--print-debuginfo", dest="debuginfo", action="store_true",
          help="print op locations")
    _flag(g, "--print-ir-before", "--mlir-print-ir-before", metavar="PASS[,PASS]", action="append",
          default=[], help="print the IR before these passes")
    _flag(g, "--print-ir-before-all", "--mlir-print-ir-before-all", action="store_true",
          help="print the IR before every pass")
    _flag(g, "--print-ir-after", "--mlir-print-ir-after", metavar="PASS[,PASS]", action="append",
          default=[], help="print the IR after these passes")
    _flag(g, "--print-ir-after-all", "--mlir-print-ir-after-all", action="store_true",
          help="print the IR after every pass")
    _flag(g, "--print-ir-after-change", "--mlir-print-ir-after-change", action="store_true",
          help="print after-dumps only when the pass changed the IR (alone: after every pass that did)")
    _flag(g, "--print-ir-after-failure", "--mlir-print-ir-after-failure", action="store_true",
          help="print the IR left by a failing pass")
    _flag(g, "--print-ir-diff", action="store_true",
          help="print a unified diff of the IR after each pass that changed it")
    _flag(g, "--print-ir-tree-dir", "--mlir-print-ir-tree-dir", metavar="DIR",
          help="write the IR to DIR: 000_input.mlir, then one file after each pass")

    g = p.add_argument_group("diagnosis")
    _flag(g, "--timing", "--mlir-timing", action="store_true", help="report wall time per pass")
    _flag(g, "--pass-statistics", "--mlir-pass-statistics", action="store_true",
          help="report the statistics counted by each pass")
    _flag(g, "--crash-reproducer", "--mlir-pass-pipeline-crash-reproducer", metavar="FILE",
          help="when a pass fails, write the IR before it and the pipeline to FILE")
    _flag(g, "--run-reproducer", action="store_true",
          help="take the pipeline and flags from the input's '// irc-reproducer:' first line")
    p.add_argument("--version", action="version", version=f"{PROG} (irc) 0.1.0")
    return p


@with_gc_paused
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `irc-opt`; returns the exit status (0 ok, 1 bad input, 2 internal error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_arg_parser().parse_args(_bool_flags(argv))  # --help exits here, importing nothing
    except UsageError as e:
        _stderr(f"{PROG}: error: {e}")
        return 1
    from ..ir.diagnostics import IRError
    try:
        if args.run_reproducer:
            args = _reproducer_args(args, argv)
        return _run(args)
    except IRError as e:
        _stderr(e.render())
        return 1
    except UsageError as e:
        _stderr(f"{PROG}: error: {e}")
        return 1
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if os.environ.get("IRC_TRACEBACK"):
            raise
        _stderr(f"{PROG}: internal error: {type(e).__name__}: {e} (re-run with IRC_TRACEBACK=1 "
                "for a traceback, and please report it)")
        return 2


def _gpu_arch(text: str) -> str:
    """`sm_` and a compute capability (`sm_80`, `sm_90a`): refused here with a usage error rather
    than deep inside the code generator."""
    if not (text.startswith("sm_") and text[3:].rstrip("a").isdigit()):
        raise argparse.ArgumentTypeError(f"'{text}' is not a CUDA architecture (e.g. sm_80, sm_90)")
    return text


def _bool_flags(argv: list[str]) -> list[str]:
    """MLIR's `--verify-each=false` spelling → `--no-verify-each` (argparse has no BOOL flags)."""
    out = []
    for a in argv:
        if a.startswith("--verify-each="):
            value = a.split("=", 1)[1].lower()
            if value not in ("true", "1", "false", "0"):
                raise UsageError(f"--verify-each: expected true or false, got '{value}'")
            a = "--verify-each" if value in ("true", "1") else "--no-verify-each"
        out.append(a)
    return out


def _stderr(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(), path
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise UsageError(f"could not open input file '{path}': {reason}") from None


def _reproducer_args(args: argparse.Namespace, argv: list[str]) -> argparse.Namespace:
    """Re-read the command line with the reproducer's flags first (the user's win)."""
    import shlex
    from ..ir.diagnostics import SOURCES, Diagnostic, ParseError
    from ..ir.instrumentation import REPRODUCER_TAG
    from ..ir.location import FileLineColLoc
    text, name = _read_input(args.input)
    SOURCES.add(name, text)
    first = text.split("\n", 1)[0]
    if not first.startswith(REPRODUCER_TAG):
        raise UsageError(f"{name} is not a reproducer: its first line must start with '{REPRODUCER_TAG}'")
    try:
        flags = shlex.split(first[len(REPRODUCER_TAG):])
    except ValueError as e:  # an unclosed quote
        raise ParseError(Diagnostic(f"malformed reproducer line: {e}", FileLineColLoc(name, 1, 1))) from None
    rest = [a for a in argv if a != "--run-reproducer"]
    new = build_arg_parser().parse_args(_bool_flags(flags + rest))
    new.run_reproducer = False
    new.preloaded = (text, name)  # the input is read already (stdin cannot be read twice)
    return new


def _list_passes() -> str:
    import dataclasses
    from ..ir.pass_base import PASS_IMPORT_ERRORS, PASS_REGISTRY, load_passes
    from ..ir.pass_pipeline import format_value, option_fields
    load_passes()
    lines = ["Passes:"]
    width = max((len(n) for n in PASS_REGISTRY), default=0)
    for name in sorted(PASS_REGISTRY):
        cls = PASS_REGISTRY[name]
        lines.append(f"  {name:<{width}}  {cls.summary}")
        for opt, (field, typ) in option_fields(cls).items():
            tname = typ if isinstance(typ, str) else getattr(typ, "__name__", str(typ))
            has_default = field.default is not dataclasses.MISSING
            default = f" (default: {format_value(field.default)})" if has_default else ""
            doc = field.metadata.get("help", "")
            lines.append(f"  {'':<{width}}    {opt}=<{tname}>{default}{' ' + doc if doc else ''}")
    for mod, err in PASS_IMPORT_ERRORS.items():
        lines.append(f"warning: passes in {mod} are missing: {err}")
    return "\n".join(lines) + "\n"


def _list_targets() -> str:
    """Each target (what `config.device` names) with the stages `-t` renders through it."""
    from ..runtime.targets import TARGETS, stages
    from ..runtime.targets.base import MLIR
    width = max(len(n) for n in stages()) + 2
    lines = ["Targets (config.device=TARGET) and the stages they render (-t STAGE):",
             f"  {MLIR.name:<{width}}  {MLIR.help}"]
    for target in TARGETS.values():
        lines.append(f"  {target.name}: {target.summary}")
        lines += [f"    {s.name:<{width - 2}}  {s.help}" for s in target.stages.values()]
    return "\n".join(lines) + "\n"


def _run(args: argparse.Namespace) -> int:
    if args.list_passes:
        sys.stdout.write(_list_passes())
        return 0
    if args.list_targets:
        sys.stdout.write(_list_targets())
        return 0
    from .opt_session import OptSession
    session = OptSession(args)
    text, filename = getattr(args, "preloaded", None) or _read_input(args.input)
    return session.process(text, filename)


if __name__ == "__main__":  # run the importable module, so its classes are the ones others import
    from irc.cli.opt import main as _main
    sys.exit(_main())
