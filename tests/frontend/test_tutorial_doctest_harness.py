"""tools/theano_tutorial_doctests.py, which runs Theano's tutorial pages as Sphinx's doctest
builder would: on a stand-in page written here (Theano's pages are not in the repository),
which blocks are tests, groups and their set-up, output compared with Sphinx's flags, a
testcode without testoutput, a failing set-up, and the random-draw classification."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tools" / "theano_doctest"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


rst_blocks = _load("rst_blocks", WORKER / "rst_blocks.py")
run_doc = _load("theano_doctest_run_document", WORKER / "run_document.py")
sys.path.insert(0, str(ROOT / "tools"))
tool = _load("theano_tutorial_doctests", ROOT / "tools" / "theano_tutorial_doctests.py")

PAGE = '''\
Title
=====

>>> import irc.tensor as T
>>> x = T.dscalar('x')
>>> 1 + 1
2
>>> [1, 2, 3, 4, 5]   # doctest: +ELLIPSIS
[1, ..., 5]
>>> print("a   b")   # doctest: +NORMALIZE_WHITESPACE
a b
>>> print("a   b")   # not a default flag of Sphinx's
a b

A literal block is not a test::

  >>> this_is_not_run()

.. note:

  A comment (one colon) is not a test either:

  >>> neither_is_this()

.. code-block:: python

   >>> nor_this()

.. testsetup:: g

   base = 10

.. testcode:: g

   print(base + 1)

.. testoutput:: g
   :options: +NORMALIZE_WHITESPACE

   11

.. testcode::

   y = x * 2    # the default group's namespace: x from the doctest blocks

.. testcode::

   raise ValueError("bad")

.. testoutput::

   Traceback (most recent call last):
     ...
   ValueError: bad

.. testsetup:: broken

   1 / 0

.. testcode:: broken

   print("never")

>>> 2 + 2
5
>>> undefined_name
'''


def test_blocks_are_those_sphinx_tests():
    blocks = rst_blocks.read_blocks(PAGE)
    kinds = [(b.kind, b.groups) for b in blocks]
    assert kinds == [("doctest_block", ["default"]), ("testsetup", ["g"]), ("testcode", ["g"]),
                     ("testoutput", ["g"]), ("testcode", ["default"]), ("testcode", ["default"]),
                     ("testoutput", ["default"]), ("testsetup", ["broken"]), ("testcode", ["broken"]),
                     ("doctest_block", ["default"])]
    assert blocks[3].options == {"options": "+NORMALIZE_WHITESPACE"}
    assert all("not_run" not in b.text and "neither" not in b.text and "nor_this" not in b.text for b in blocks)


def test_running_a_page(tmp_path):
    page = tmp_path / "page.txt"
    page.write_text(PAGE)
    records = run_doc.run_document(str(page))
    examples = [r for r in records if r["kind"] == "example"]
    testcode = [r for r in records if r["kind"] == "testcode"]
    assert [r["outcome"] for r in examples] == ["passed"] * 5 + ["failed"] * 3
    assert examples[5]["reason"] == "output differs"
    assert examples[6]["reason"] == "output differs" and examples[6]["got"] == "4\n"
    assert examples[7]["reason"].startswith("NameError: name 'undefined_name'")
    assert [r["outcome"] for r in testcode] == ["passed", "passed", "passed", "failed"]
    assert testcode[3]["reason"] == "testsetup failed: ZeroDivisionError: division by zero"


def test_outputs_that_change_with_the_seeds_are_random_draws():
    plain = [{"id": "a", "outcome": "failed", "reason": "output differs", "got": "0.1"},
             {"id": "b", "outcome": "failed", "reason": "output differs", "got": "<f at 0x7f01>"},
             {"id": "c", "outcome": "failed", "reason": "NameError: x", "got": ""}]
    perturbed = [{"id": "a", "got": "0.7"}, {"id": "b", "got": "<f at 0x7f99>"}, {"id": "c", "got": "x"}]
    assert [r["outcome"] for r in tool.classify(plain, perturbed)] == ["random", "failed", "failed"]


def test_expected_exceptions_name_both_classes():
    example = run_doc.doctest.Example("f()\n", "Traceback (most recent call last):\n  ...\nValueError: x\n",
                                      exc_msg="ValueError: x\n")
    got = "Traceback (most recent call last):\n  File \"<doctest>\", line 1\nirc.E.ExecutionError: y\n"
    assert run_doc._difference(example, got) == "raised ExecutionError where the document expects ValueError"
