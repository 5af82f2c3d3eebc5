"""Integer `//` and `%` where the hardware divide traps: INT_MIN by -1 and any value by 0.

numpy gives INT_MIN // -1 = INT_MIN, INT_MIN % -1 = 0 and 0 for a zero divisor; compiled code
must give the same instead of dying of SIGFPE, so each dtype runs in its own process."""
from __future__ import annotations

import json

import numpy as np
import pytest

from forked_python import run_python

# Divisors vary per element (vector code), are the constant -1 (LLVM sees the divisor) and
# 0-d (one-element values are SSA scalars after lower-to-loops).
SCRIPT = r"""
import json, sys
import numpy as np
import irc, irc.tensor as T
dt = np.dtype(sys.argv[1])
lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
x, y = T.vector("x", dtype=dt.name), T.vector("y", dtype=dt.name)
a, b = T.scalar("a", dtype=dt.name), T.scalar("b", dtype=dt.name)
xs = np.array([lo, lo, lo, lo + 1, hi, hi, -7, 7, 0, lo, -1] * 37, dt)
ys = np.array([-1, 1, 0, -1, -1, 0, -1, 2, -1, 2, lo] * 37, dt)
f = irc.function([x, y], [x // y, x % y])
g = irc.function([x], [x // np.array(-1, dt), x % np.array(-1, dt)])
h = irc.function([a, b], [a // b, a % b])
out = {"vector": [r.tolist() for r in f(xs, ys)], "constant": [r.tolist() for r in g(xs)],
       "scalar": [[r.tolist() for r in h(dt.type(lo), dt.type(-1))],
                  [r.tolist() for r in h(dt.type(lo), dt.type(0))]],
       "dtypes": [str(r.dtype) for r in f(xs, ys)]}
print(json.dumps(out))
"""


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_min_by_minus_one_and_by_zero_match_numpy(dtype):
    proc = run_python(SCRIPT, dtype, timeout=300)  # its own process, forked (forked_python.py)
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}):\n{proc.stderr[-3000:]}"
    got = json.loads(proc.stdout.strip().splitlines()[-1])

    dt = np.dtype(dtype)
    lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
    xs = np.array([lo, lo, lo, lo + 1, hi, hi, -7, 7, 0, lo, -1] * 37, dt)
    ys = np.array([-1, 1, 0, -1, -1, 0, -1, 2, -1, 2, lo] * 37, dt)
    minus_one = np.full_like(xs, -1)
    with np.errstate(all="ignore"):
        want = {"vector": [xs // ys, xs % ys], "constant": [xs // minus_one, xs % minus_one],
                "scalar": [[dt.type(lo) // dt.type(-1), dt.type(lo) % dt.type(-1)],
                           [dt.type(lo) // dt.type(0), dt.type(lo) % dt.type(0)]]}
    assert got["dtypes"] == [dtype, dtype]
    assert want["vector"][0][0] == lo and want["vector"][1][0] == 0  # numpy's answer, as stated
    for case in ("vector", "constant"):
        for g, w in zip(got[case], want[case]):
            np.testing.assert_array_equal(np.array(g, dt), w, err_msg=case)
    assert got["scalar"] == [[int(v) for v in pair] for pair in want["scalar"]]
