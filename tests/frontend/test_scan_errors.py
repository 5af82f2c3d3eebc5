"""Scans the user gets wrong: each a clear error naming the problem and the user's line."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend.scan import ScanError

HERE = __file__


def test_output_type_differs_from_outputs_info():
    x = T.dvector("x")
    with pytest.raises(ScanError) as e:
        irc.scan(lambda h: T.cast(h, "float32"), outputs_info=x, n_steps=3)
    msg = str(e.value)
    assert msg.startswith(f"{HERE}:") and "float32" in msg and "float64" in msg and "outputs_info[0]" in msg
    assert "irc.scan(lambda h: T.cast" in msg  # the user's source line
    with pytest.raises(ScanError, match="number of dims"):
        irc.scan(lambda h: h.sum(), outputs_info=x, n_steps=3)


def test_wrong_number_of_taps():
    x = T.dvector("x")
    m = T.dmatrix("m")
    with pytest.raises(ScanError, match=r"does not take the 1 argument\(s\).*1 output tap"):
        irc.scan(lambda a, b: a + b, outputs_info=x, n_steps=3)
    with pytest.raises(ScanError, match=r"does not take the 3 argument\(s\).*3 output tap"):
        irc.scan(lambda a, b: a + b, outputs_info=dict(initial=m, taps=[-3, -2, -1]), n_steps=3)
    with pytest.raises(ScanError, match="taps must be distinct negative ints"):
        irc.scan(lambda a: a, outputs_info=dict(initial=m, taps=[0]), n_steps=3)
    with pytest.raises(ScanError, match="has taps .* but no initial value"):
        irc.scan(lambda a: a, outputs_info=dict(taps=[-1]), n_steps=3)


def test_too_few_initial_states_for_the_taps_at_run_time():
    m = T.dmatrix("m")
    out, _ = irc.scan(lambda a, b: a + b, outputs_info=dict(initial=m, taps=[-3, -1]), n_steps=2)
    f = irc.function([m], out)
    with pytest.raises(ValueError, match=r"holds the wrong number of states for its taps \[-3, -1\]") as e:
        f(np.ones((2, 2)))
    assert "test_scan_errors.py" in str(e.value)


def test_negative_n_steps():
    x = T.dvector("x")
    with pytest.raises(ScanError, match="n_steps must not be negative, got -2"):
        irc.scan(lambda h: h, outputs_info=x, n_steps=-2)
    with pytest.raises(ScanError, match="n_steps must not be negative"):
        irc.scan(lambda h: h, outputs_info=x, n_steps=T.constant(-1))
    k = T.lscalar("k")
    out, _ = irc.scan(lambda h: h * 2, outputs_info=x, n_steps=k)
    f = irc.function([x, k], out)
    with pytest.raises(ValueError, match="n_steps is negative") as e:
        f([1.0], -3)
    assert "test_scan_errors.py" in str(e.value)
    assert f([1.0], 0).shape == (0, 1)


def test_other_mistakes():
    x = T.dvector("x")
    with pytest.raises(ScanError, match="needs sequences or n_steps"):
        irc.scan(lambda h: h, outputs_info=x)
    with pytest.raises(ScanError, match="n_steps must be an integer scalar"):
        irc.scan(lambda h: h, outputs_info=x, n_steps=T.dscalar())
    with pytest.raises(ScanError, match="a sequence must have at least one dim"):
        irc.scan(lambda v: v, sequences=T.dscalar())
    with pytest.raises(ScanError, match=r"fn returns 2 output\(s\) but outputs_info has 1"):
        irc.scan(lambda h: (h, h), outputs_info=x, n_steps=2)
    with pytest.raises(ScanError, match="not a shared variable"):
        irc.scan(lambda v: {x: v}, sequences=[T.dmatrix()])


def test_result_size_changing_between_steps():
    """A state whose size does not stay the same is caught when the function runs."""
    x = T.dvector("x")
    out, _ = irc.scan(lambda h: T.concatenate([h, h]), outputs_info=x, n_steps=2)
    f = irc.function([x], out)
    with pytest.raises(ValueError, match="result #0 changes size in dim 0"):
        f([1.0])
