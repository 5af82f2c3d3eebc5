"""One `irc-opt` run: the pass manager and instrumentations its flags ask for, applied to
each input chunk (parse, verify, run the pipeline, emit), with the reports at the end."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from ..base.compile_stages import listening
from ..ir.diagnostics import IRError
from ..ir.instrumentation import (CrashReproducer, IRDiffPrinter, IRPrinter, IRTreeDir, PassStatistics,
                                  PassTiming)
from ..ir.parser import SPLIT_MARKER, parse_module, split_input_file
from ..ir.pass_manager import PASS_REGISTRY, PassManager, load_passes
from ..ir.pass_pipeline import closest
from ..ir.verifier import verify
from . import UsageError
from ..runtime.targets import stages
from ..runtime.targets.base import MLIR


def _names(values: list[str]) -> list[str]:
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _check_pass_names(names: list[str], flag: str) -> list[str]:
    load_passes()
    for n in names:
        if n not in PASS_REGISTRY:
            raise UsageError(f"{flag}: unknown pass '{n}'{closest(n, sorted(PASS_REGISTRY))}")
    return names


def _check_folder_exists(path: str | None, flag: str) -> None:
    """A file flag names a file in an existing folder (checked before any work is done)."""
    if not path:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag}: cannot write '{path}': the folder '{folder}' does not exist")


class OptSession:
    """Holds what stays the same across the chunks of one run (pipeline, instrumentation)."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        known = stages()
        if args.target not in known:
            raise UsageError(f"unknown target '{args.target}'{closest(args.target, list(known))} "
                             f"(targets: {', '.join(known)})")
        self.stage = known[args.target]
        self.print_opts = {"generic": args.generic, "debuginfo": args.debuginfo}
        self.pm = PassManager.parse(args.pipeline, verify_each=args.verify_each,
                                    allow_unregistered=args.allow_unregistered_dialect)
        self.timing = PassTiming() if args.timing else None
        self.stats = PassStatistics() if args.pass_statistics else None
        _check_folder_exists(args.crash_reproducer, "--crash-reproducer")
        if args.view_graph != "-":
            _check_folder_exists(args.view_graph, "--view-graph")
        self.tree = None
        if args.print_ir_tree_dir:
            try:
                os.makedirs(args.print_ir_tree_dir, exist_ok=True)
            except OSError as e:
                raise UsageError(f"--print-ir-tree-dir: cannot create '{args.print_ir_tree_dir}': "
                                 f"{e.strerror}") from None
            self.tree = IRTreeDir(args.print_ir_tree_dir, **self.print_opts)
        for inst in self._instrumentations():
            self.pm.add_instrumentation(inst)

    def _instrumentations(self) -> list:
        a = self.args
        out: list = []
        if a.crash_reproducer:
            flags = "--allow-unregistered-dialect" if a.allow_unregistered_dialect else ""
            out.append(CrashReproducer(a.crash_reproducer, flags))
        before = True if a.print_ir_before_all else _check_pass_names(_names(a.print_ir_before),
                                                                      "--print-ir-before")
        after = True if a.print_ir_after_all else _check_pass_names(_names(a.print_ir_after),
                                                                    "--print-ir-after")
        if a.print_ir_after_change and not after:
            after = True  # alone, it means: after every pass that changed the IR
        if before or after or a.print_ir_after_failure:
            out.append(IRPrinter(sys.stderr, before=before, after=after, after_change=a.print_ir_after_change,
                                 after_failure=a.print_ir_after_failure, **self.print_opts))
        if a.print_ir_diff:
            out.append(IRDiffPrinter(sys.stderr, **self.print_opts))
        if self.tree is not None:
            out.append(self.tree)
        if self.stats is not None:
            out.append(self.stats)
        if self.timing is not None:
            out.append(self.timing)  # last: its hooks sit closest to the pass
        return out

    def process(self, text: str, filename: str) -> int:
        """Run every chunk; print the successful results; return the exit status."""
        chunks = split_input_file(text) if self.args.split_input_file else [(text, 1)]
        outputs: list[str] = []
        failed = False
        for i, (chunk, first_line) in enumerate(chunks):
            if self.tree is not None and len(chunks) > 1:
                self.tree.folder = os.path.join(self.args.print_ir_tree_dir, f"split_{i:03d}")
            try:
                outputs.append(self._one(chunk, filename))
            except IRError as e:
                sys.stderr.write(e.render().rstrip("\n") + "\n")
                sys.stderr.flush()
                failed = True
        self._write(outputs)
        if self.timing is not None:
            sys.stderr.write(self.timing.report())
        if self.stats is not None:
            sys.stderr.write(self.stats.report())
        return 1 if failed else 0

    def _one(self, chunk: str, filename: str) -> str:
        t0 = time.perf_counter()
        module = parse_module(chunk, filename, allow_unregistered=self.args.allow_unregistered_dialect)
        verify(module, allow_unregistered=self.args.allow_unregistered_dialect)
        if self.timing is not None:
            self.timing.add("Parser", time.perf_counter() - t0)
        self.pm.run(module)
        t0 = time.perf_counter()
        module, stage = self._stage(module)
        if self.args.view_graph is not None:
            _view_graph(module, self.args.view_graph)
        arch = {"arch": self.args.gpu_arch} if self.args.gpu_arch else {}
        below: dict[str, float] = {}  # lowering, LLVM IR, LLVM's optimizer, machine code (-t llvm/asm)
        with listening(lambda name, seconds: below.__setitem__(name, below.get(name, 0.0) + seconds)):
            result = stage.emit(module, **self.print_opts, **arch)
        if self.timing is not None:
            for name, seconds in below.items():
                self.timing.add(name, seconds)
            self.timing.add("Output", time.perf_counter() - t0 - sum(below.values()))
        return result

    def _stage(self, module):
        """`--emit-stage`: lower to loops now and print MLIR (the `-t` stage is not rendered)."""
        stage = self.args.emit_stage
        if stage is None:
            return module, self.stage
        if stage == "loop":
            PassManager.parse("lower-to-loops").run(module)
        elif stage == "gpu":
            from ..codegen_ptx.emit import gpu_module  # loads llvmlite: only for --emit-stage=gpu
            module = gpu_module(module)
        return module, MLIR

    def _write(self, outputs: list[str]) -> None:
        sep = SPLIT_MARKER + "\n"
        text = sep.join(o if o.endswith("\n") else o + "\n" for o in outputs)
        if self.args.output == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        try:
            with open(self.args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise UsageError(f"could not write output file '{self.args.output}': {e.strerror}") from None


def _view_graph(module, where: str) -> None:
    """`--view-graph[=FILE]`: the module's graph as DOT on stderr, or drawn into FILE."""
    from ..inspect.dot import graph_of, pydotprint, to_dot  # networkx: only for --view-graph
    if where == "-":
        sys.stderr.write(to_dot(graph_of(module)))
        return
    try:
        path = pydotprint(module, where, print_output_file=False)
    except (OSError, subprocess.CalledProcessError) as e:
        detail = e.stderr.decode(errors="replace").strip() if isinstance(e, subprocess.CalledProcessError) else e
        raise UsageError(f"--view-graph: cannot write '{where}': {detail}") from None
    sys.stderr.write(f"irc-opt: graph written to {path}\n")
