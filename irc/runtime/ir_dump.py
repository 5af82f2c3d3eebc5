"""IR dumps of a compiled function that replay: one file per pass, in order, down to LLVM IR.

    000_input.mlir            the tensor-level function as the frontend built it
    001_canonicalize.mlir     after each pass of the mode's pipeline ...
    NNN_lower-to-loops.mlir   the loop level
    NNN_llvm-raw.ll           convert-to-llvm's output;  NNN_llvm.ll  after LLVM's O3

The files are made by replaying the pipeline from the first file's text, one pass at a time,
exactly as `irc-opt` would — so each `.mlir` file's first line,
`// replay: irc-opt <file> -p <next pass> --mlir-print-debuginfo`, reproduces the next file.
"""
from __future__ import annotations

import os
from typing import Any

REPLAY = "// replay: "


def _pipeline(mode: str, target: str | None) -> list[str]:
    from ..config import config
    from ..frontend.modes import pipeline_for
    text = pipeline_for(mode, config.optimizer_excluding, target)
    return [p for p in text.split(",") if p]


def _header(title: str, display: str, name: str) -> str:
    return f"// -----// IR Dump After {display} ({name}) //----- //\n"


def dump_stages(tensor_text: str, mode: str, folder: str, codegen: bool = True,
                target: str | None = None) -> list[str]:
    """Replay `mode`'s pipeline for `target` (None: the configured one) over `tensor_text`
    (module text with locations) into `folder`."""
    from ..codegen_cpu import emit
    from ..ir.instrumentation import render_ir
    from ..ir.parser import parse_module
    from ..ir.pass_manager import PassManager
    os.makedirs(folder, exist_ok=True)
    steps = _pipeline(mode, target) + (["lower-to-loops"] if codegen else [])
    module = parse_module(tensor_text, "<dump>")
    texts: list[tuple[str, str, str]] = [("input", "// -----// IR Dump Before the pipeline //----- //\n",
                                          render_ir(module, debuginfo=True))]
    for name in steps:
        pm = PassManager.parse(name)
        pm.run(module)
        p = pm.passes[0]
        texts.append((name, _header("After", p.display_name, p.name), render_ir(module, debuginfo=True)))
    paths = [os.path.join(folder, f"{i:03d}_{name}.mlir") for i, (name, _, _) in enumerate(texts)]
    for i, ((name, header, text), path) in enumerate(zip(texts, paths)):
        if i + 1 < len(texts):
            replay = f"irc-opt {os.path.basename(path)} -p {texts[i + 1][0]} --mlir-print-debuginfo"
        else:
            replay = f"irc-opt {os.path.basename(path)} -t {'llvm-raw' if codegen else 'mlir'}"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f"{REPLAY}{replay}\n{header}{text}")
    if codegen:
        n, last_mlir = len(paths), os.path.basename(paths[-1])
        for k, (target, fn) in enumerate((("llvm-raw", emit.emit_llvm_ir_unoptimized),
                                          ("llvm", emit.emit_llvm_ir))):
            path = os.path.join(folder, f"{n + k:03d}_{target}.ll")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(f"; replay: irc-opt {last_mlir} -t {target}\n{fn(module)}")
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
    return dump_stages(maker.stages["tensor"], maker.mode, folder, codegen=_cpu_codegen_ok(maker),
                       target=maker.target)


def _cpu_codegen_ok(maker: Any) -> bool:
    from ..passes.lower_to_loops import is_tensor_function
    try:
        func = maker.func
    except Exception:
        return False
    if not is_tensor_function(func):
        return True
    return all(getattr(t, "device", None) is None for t in (*func.function_type.inputs,
                                                             *func.function_type.results))
