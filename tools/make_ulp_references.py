"""Compute the stored references of the inline mathlib's tests (~2 min): the slow sweeps of
test_mathlib.py (mpmath for float64, the elementwise table's Python for float32) and its
float64 negative arguments of gammaln and psi, and the Bessel and chi2sf sets of
test_mathlib_bessel.py (that test run with IRC_REMAKE_REFERENCES=1, which computes and writes
its files).

    python tools/make_ulp_references.py [--only erf,psi,bessel]

Run it after changing a reference in irc/codegen_llvm/mathlib_ulp.py or the sample sets the
tests draw (the tests fail, naming this command, while a file is stale or missing), and after
changing a float64 emitter, whose kernel the files are stored relative to (the tests then
compute every value, slowly, with a warning).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from irc.codegen_cpu import ulp_reference_store as store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sweeps = [(name, dtype) for dtype, names in store.STORED.items() for name in names]
    known = sorted({name for name, _ in sweeps}) + ["bessel"]
    parser.add_argument("--only", default=",".join(known), help="comma-separated function names")
    names = parser.parse_args().only.split(",")
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"not stored: {', '.join(unknown)} (stored: {', '.join(known)})")
    if "bessel" in names:
        root = Path(__file__).resolve().parent.parent
        env = dict(os.environ, **{store.REMAKE_VARIABLE: "1",
                                  "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))})
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        str(root / "tests" / "codegen_cpu" / "test_mathlib_bessel.py")], env=env, check=True)
    for name, dtype in sweeps:
        if name not in names:
            continue
        start = time.perf_counter()
        path, x = store.sweep_file(name, dtype), store.sweep_values(name, dtype)[1]
        arrays = store.save(path, name, x)
        report(path, x, arrays, start)
    for name in store.NEGATIVE:
        if name in names:
            start = time.perf_counter()
            path, x = store.negative_file(name), store.negative_values(np.float64)
            report(path, x, store.save(path, name, x), start)


def report(path: Path, x: np.ndarray, arrays: dict, start: float) -> None:
    print(f"{path.name}: {x.size} values, {arrays['rest_index'].size} stored as text, "
          f"{path.stat().st_size / 1e6:.2f} MB, {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
