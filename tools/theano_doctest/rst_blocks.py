"""The tests of one reST document as Sphinx's doctest extension collects them.

Collected: reST doctest blocks (a paragraph that starts with `>>>`, group "default"), and the
`testsetup`, `testcleanup`, `doctest`, `testcode`, `testoutput` directives with their group
argument and `:options:`. Not collected, as docutils does not make doctest blocks of them:
`>>>` lines inside literal blocks (after a paragraph ending in `::`), inside literal
directives (`code-block`, `code`, `math`, ...) and inside comments (`.. note:` with one colon is a
comment, not a directive) and other explicit markup that is not a directive. A line-based reading, not a reST parser: enough
for Theano's tutorial, whose markup is regular.
"""
from __future__ import annotations

import dataclasses
import re
import textwrap

TEST_DIRECTIVES = frozenset({"testsetup", "testcleanup", "doctest", "testcode", "testoutput"})
LITERAL_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "literalinclude", "math", "raw",
                                "parsed-literal", "ipython"})
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*?)\s*$")
_OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")


@dataclasses.dataclass
class Block:
    kind: str            # "doctest_block" or one of TEST_DIRECTIVES
    groups: list[str]    # Sphinx's groups ("*" = every group)
    options: dict[str, str]
    text: str
    lineno: int          # 1-based line of the block's first line


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _body_end(lines: list[str], start: int, indent: int) -> int:
    """The first line after `start` that is not blank and not indented more than `indent`."""
    i = start
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        i += 1
    return i


def _groups(kind: str, argument: str) -> list[str]:
    if not argument:
        return ["default"]
    return [g.strip() for g in argument.split(",") if g.strip()]


def read_blocks(text: str) -> list[Block]:
    """Every test block of a document, in document order."""
    lines = text.expandtabs().splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _DIRECTIVE.match(line)
        if match:
            indent, name, argument = len(match.group(1)), match.group(2), match.group(3)
            end = _body_end(lines, i + 1, indent)
            if name in TEST_DIRECTIVES:
                j, options = i + 1, {}
                while j < end and _OPTION.match(lines[j]):
                    key, value = _OPTION.match(lines[j]).groups()
                    options[key] = value
                    j += 1
                body = textwrap.dedent("\n".join(lines[j:end])).strip("\n")
                blocks.append(Block(name, _groups(name, argument), options, body, j + 1))
                i = end
            elif name in LITERAL_DIRECTIVES:
                i = end
            else:
                i += 1
            continue
        stripped = line.strip()
        if re.match(r"\.\.(\s|$)", stripped):   # a comment, target or footnote: its body is not tested
            i = _body_end(lines, i + 1, _indent(line))
            continue
        if stripped.startswith(">>>") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            blocks.append(Block("doctest_block", ["default"], {}, textwrap.dedent("\n".join(lines[i:j])), i + 1))
            i = j
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent(lines[j]) > _indent(line):
                i = _body_end(lines, j, _indent(line))
                continue
        i += 1
    return blocks
