"""docs/extending.md: its `python` blocks run, in order, in one namespace (as a reader would
paste them); blocks starting `# needs a GPU` run in tests/cuda/ only."""
from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
GPU_MARK = "# needs a GPU"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, code) of each ```python block."""
    return [(text[:m.start()].count("\n") + 2, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_the_cpu_blocks_run():
    blocks = [(line, code) for line, code in python_blocks(DOC.read_text()) if not code.startswith(GPU_MARK)]
    assert len(blocks) >= 7
    namespace: dict = {"__name__": "__main__"}
    for line, code in blocks:
        exec(compile("\n" * (line - 1) + code, str(DOC), "exec"), namespace)  # errors point into the page


def test_the_gpu_blocks_at_least_compile():
    gpu = [(line, code) for line, code in python_blocks(DOC.read_text()) if code.startswith(GPU_MARK)]
    assert gpu
    for line, code in gpu:
        compile(code, f"{DOC}:{line}", "exec")
