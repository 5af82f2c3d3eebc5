"""Pictures: DOT always, PNG/SVG when Graphviz's dot is installed."""
import shutil

import pytest

import irc.tensor as T
from irc.inspect.dot import graph_of, pydotprint, to_dot

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's `dot` is not installed (.ci/run installs it with apt)")


def test_dot_of_compiled_function(logreg, tmp_path):
    build, _ = logreg
    f = build()
    path = pydotprint(f, str(tmp_path / "train.dot"))
    text = open(path).read()
    assert text.startswith('digraph "train" {')
    assert "cylinder" in text            # shared variables w, b
    assert "update of w" in text and "output 0" in text
    assert "CGemv" in text
    g = graph_of(f)
    if any(d.get("label", "").startswith("Fused") for _, d in g.nodes(data=True)):
        assert "subgraph cluster_0" in text


def test_dot_of_variables_and_module():
    x = T.dvector("x")
    text = to_dot(graph_of(T.exp(x) + 1))
    assert "digraph" in text and "exp" in text.lower()


@needs_dot
def test_png_and_svg(logreg, tmp_path):
    build, _ = logreg
    f = build()
    png = pydotprint(f, str(tmp_path / "train.png"))
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    svg = pydotprint(f, str(tmp_path / "train.svg"))
    assert b"<svg" in open(svg, "rb").read(2000)


def test_without_dot_writes_dot_and_says_so(logreg, tmp_path, monkeypatch, capsys):
    build, _ = logreg
    f = build()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    path = pydotprint(f, str(tmp_path / "train.png"))
    assert path.endswith(".dot") and "not installed" in capsys.readouterr().err
