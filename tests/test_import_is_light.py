"""`import irc` and `import irc.tensor` (what a user's program starts with) load no heavy module:
llvmlite, networkx, the pass registry (every pass), the lowering to loops and the code
generators load when a function is first compiled. Checked in a fresh process (this one has
imported everything already)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("llvmlite", "networkx", "irc.passes.registered", "irc.passes.canonicalize", "irc.passes.fuse_elementwise",
         "irc.conversion", "irc.codegen_llvm", "irc.codegen_cpu", "irc.codegen_ptx")
_PROBE = """
import json, sys
{setup}
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
"""


def heavy_modules_after(setup: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", _PROBE.format(setup=setup, heavy=HEAVY)], capture_output=True,
                         text=True, env=env, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_irc_and_irc_tensor_load_no_heavy_module():
    assert heavy_modules_after("import irc\nimport irc.tensor as T\nirc.function, irc.shared, T.grad") == []


def test_compiling_a_function_loads_them():
    loaded = heavy_modules_after("import irc, irc.tensor as T\nx = T.vector()\nirc.function([x], T.exp(x))")
    for name in ("llvmlite", "irc.passes.registered", "irc.conversion", "irc.codegen_cpu"):
        assert any(m == name or m.startswith(name + ".") for m in loaded), name
