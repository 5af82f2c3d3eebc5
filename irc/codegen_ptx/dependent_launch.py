"""Programmatic dependent launch (Hopper, sm_90 and later): a kernel starts before the one
before it has finished.

A training step is a chain of small kernels, each of which waits for the last; in a CUDA
graph every boundary costs launch latency, often more than the kernel's own work. With a
dependent launch the driver schedules the next kernel once every block of the current one
has started; the next kernel's blocks then wait on the device until the current grid has
finished and its memory is visible. The rules that keep it exact:

* every irc kernel for sm_90+ begins with `griddepcontrol.launch_dependents` (its own
  dependents may be scheduled now) and `griddepcontrol.wait`, before any other instruction:
  nothing it reads can be stale, whatever ran before it;
* the runtime asks for a dependent launch (`cuLaunchKernelEx` with programmatic stream
  serialization) only for kernels whose PTX carries that wait (`has_wait`); cuBLAS and
  users' kernels launch as before, so they still wait for everything before them.

Without the launch attribute the two instructions do nothing. They are placed in the PTX
text, after each entry's declarations, so that the LLVM module stays the same for every
architecture (one conversion serves sm_80 and sm_90)."""
from __future__ import annotations

PROLOGUE = ("\t// programmatic dependent launch: let the next kernel start, wait for the last\n"
            "\tgriddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;\n")
WAIT = "griddepcontrol.wait"


def supports(arch: str) -> bool:
    """Whether kernels for `arch` ("sm_80", "sm_90a", ...) may be launched as dependents."""
    return int(arch[3:].rstrip("a")) >= 90


def add_prologue(ptx: str) -> str:
    """`ptx` with the prologue at the start of every `.entry` body (not in `.func`s): after
    the opening brace and the declarations (`.reg`, `.shared`, `.local`) and comments."""
    out: list[str] = []
    state = "outside"  # -> "header" (after `.entry`) -> "declarations" (after its `{`)
    for line in ptx.splitlines(keepends=True):
        stripped = line.strip()
        if state == "declarations" and stripped and not stripped.startswith((".", "//")):
            out.append(PROLOGUE)
            state = "outside"
        elif state == "header" and stripped == "{":
            state = "declarations"
        elif state == "header" and stripped.endswith(";"):  # a prototype: no body
            state = "outside"
        elif state == "outside" and ".entry " in line and not stripped.startswith("//"):
            state = "header"
        out.append(line)
    return "".join(out)


def has_wait(ptx: str) -> bool:
    """Whether the kernels of a PTX module wait for their primary grid (all or none do)."""
    return WAIT in ptx
