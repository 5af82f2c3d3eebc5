"""IR dumps of a compiled function that replay: one file per pass, in order, down to LLVM IR.

    000_input.mlir            the tensor-level function as the frontend built it
    001_canonicalize.mlir     after each pass of the mode's pipeline ...
    NNN_lower-to-loops.mlir   the loop level
    NNN_llvm-raw.ll           convert-to-llvm's output;  NNN_llvm.ll  after LLVM's O2

The files are made by replaying the pipeline from the first file's text, one pass at a time,
exactly as `irc-opt` would — so each `.mlir` file's first line,
`// replay: irc-opt <file> -p <next pass> --mlir-print-debuginfo`, reproduces the next file.
"""
from __future__ import annotations

import os
from typing import Any

from ..ir.instrumentation import render_ir
from ..ir.parser import parse_module
from ..ir.pass_manager import PassManager
from ..ir.pass_pipeline import format_pass
from .segments import user_ops
from .targets import Target

REPLAY = "// replay: "
STAGE_EXTENSIONS = {"llvm-raw": "ll", "llvm": "ll", "ptx": "ptx", "asm": "s"}


def _header(title: str, display: str, name: str) -> str:
    return f"// -----// IR Dump After {display} ({name}) //----- //\n"


def dump_stages(tensor_text: str, mode: str, folder: str, target: Target,
                codegen: bool = True) -> list[str]:
    """Replay `mode`'s pipeline for `target` over `tensor_text` (module text with locations)
    into `folder`, then the target's lowering passes and code generation stages."""
    os.makedirs(folder, exist_ok=True)
    steps = target.tensor_passes(mode) + (target.loop_passes() if codegen else [])
    module = parse_module(tensor_text, "<dump>")
    # (file name, the pass as `-p` spells it, dump header, IR after it)
    texts = [("input", "", "// -----// IR Dump Before the pipeline //----- //\n",
              render_ir(module, debuginfo=True))]
    for p in steps:
        PassManager([p]).run(module)
        texts.append((p.name, format_pass(p, defaults=False), _header("After", p.display_name, p.name),
                      render_ir(module, debuginfo=True)))
    paths = [os.path.join(folder, f"{i:03d}_{name}.mlir") for i, (name, _, _, _) in enumerate(texts)]
    for i, ((_, _, header, text), path) in enumerate(zip(texts, paths)):
        if i + 1 < len(texts):
            replay = f"irc-opt {os.path.basename(path)} -p '{texts[i + 1][1]}' --mlir-print-debuginfo"
        else:
            first = target.dump_stages[0] if codegen and target.dump_stages else "mlir"
            replay = f"irc-opt {os.path.basename(path)} -t {first}"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f"{REPLAY}{replay}\n{header}{text}")
    if codegen:
        n, last_mlir = len(paths), os.path.basename(paths[-1])
        for k, stage in enumerate(target.dump_stages):
            ext = STAGE_EXTENSIONS.get(stage, "txt")
            path = os.path.join(folder, f"{n + k:03d}_{stage}.{ext}")
            comment = "//" if ext == "ptx" else ";"
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(f"{comment} replay: irc-opt {last_mlir} -t {stage}\n{target.render(stage, module)}")
            paths.append(path)
    return paths


def strip_comments(text: str) -> str:
    """The IR of a dump file without its replay line and dump header (what irc-opt prints)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("//"))


_counter = 0


def dump_folder(root: str, name: str) -> str:
    """A fresh sub-folder of `config.dump_ir` for one function: `<root>/<pid>_<NNN>_<name>`."""
    global _counter
    _counter += 1
    return os.path.join(root, f"{os.getpid()}_{_counter:03d}_{name}")


def dump_function(f: Any, folder: str) -> list[str]:
    """`f.dump_ir(folder)`: every stage of the compiled function `f`."""
    maker = f.maker
    return dump_stages(maker.stages["tensor"], maker.mode, folder, maker.target,
                       codegen=maker.native is not None and not user_ops(maker.module))
