"""The parser: MLIR-syntax text back to IR (everything the printer writes, generic and custom).

A recursive-descent parser over the lexer's token strings. SSA names live in one table per
isolated scope (a function body starts a fresh one); each region remembers the names it
defined (dropped when it closes) and its forward references, which a later definition in the
region resolves (a use in a block printed before its defining block) and which otherwise turn
into `use of undeclared SSA value name`. Every error is a `ParseError` pointing at line:col.

Dialects extend the parser through `TYPE_PARSERS`/`ATTRIBUTE_PARSERS` (keyword hooks called
with the parser after the keyword) and ops through `parse_custom(cls, parser) -> Operation`,
called after the op name with `parser.num_results` set; the helpers below are their API.
"""
from __future__ import annotations

import gc
import math
import re
from typing import Callable, Sequence

from .attributes import (ATTRIBUTE_PARSERS, ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DictAttr,
                         FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from ..base.registry import ensure
from .core import OP_REGISTRY, Block, IsolatedFromAbove, Operation, Region, Value, create_op
from .diagnostics import SOURCES, Diagnostic, ParseError
from .lexer import EOF, tokenize
from .location import UNKNOWN_LOC, FileLineColLoc, Location
from .printer import usable_hint
from .types import TYPE_PARSERS, FunctionType, NoneType, ScalarType, Type

_SCALARS = {n: ScalarType(n) for n in ScalarType.NAMES}
_NONE = NoneType()
_ESCAPE = re.compile(r"\\(?:([\\\"])|(n)|(t)|([0-9a-fA-F]{2}))")
_HOOK_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, ArithmeticError)


def _unescape(m: re.Match) -> str:
    if m.group(1):
        return m.group(1)
    if m.group(2):
        return "\n"
    if m.group(3):
        return "\t"
    return chr(int(m.group(4), 16))


class _ForwardRef(Value):
    """A placeholder for a value used before its definition (replaced when it is defined)."""

    __slots__ = ()


class _Frame:
    """Per-region parsing state: defined names, forward references, blocks by label."""

    __slots__ = ("names", "forward", "blocks", "block_refs", "isolated")

    def __init__(self, isolated: bool):
        self.names: list[str] = []
        self.forward: dict[str, dict[int, tuple[_ForwardRef, int]]] = {}
        self.blocks: dict[str, Block] = {}
        self.block_refs: dict[str, int] = {}  # label -> token of its first use, until defined
        self.isolated = isolated


class Parser:
    """Parses one buffer; custom op and type hooks use the public methods."""

    def __init__(self, text: str, filename: str = "<stdin>", allow_unregistered: bool = False):
        self.tokens = tokenize(text, filename)
        self.toks = self.tokens.toks
        self.i = 0
        self.filename = filename
        self.allow_unregistered = allow_unregistered
        self.values: dict[str, list[Value]] = {}
        self.frames: list[_Frame] = []
        self.num_results = 0
        self._op_isolated = False
        self._type_cache: dict[tuple[str, ...], Type] = {}

    # ------------------------------------------------------------------ tokens and errors
    def peek(self, ahead: int = 0) -> str:
        """The text of the current token (or one further on); "" at the end."""
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else EOF

    def next(self) -> str:
        tok = self.toks[self.i]
        if tok is not EOF:
            self.i += 1
        return tok

    def accept(self, tok: str) -> bool:
        if self.toks[self.i] == tok:
            self.i += 1
            return True
        return False

    def expect(self, tok: str, what: str | None = None) -> None:
        if self.toks[self.i] != tok:
            raise self.error(f"expected {what or repr(tok)}")
        self.i += 1

    def location(self, token: int | None = None) -> FileLineColLoc:
        """The line:col of a token (the current one by default)."""
        return self.tokens.location(self.tokens.starts[self.i if token is None else token])

    def error(self, message: str, token: int | None = None) -> ParseError:
        return ParseError(Diagnostic(message, self.location(token)))

    # ------------------------------------------------------------------ literals
    def parse_string(self) -> str:
        tok = self.toks[self.i]
        if tok[:1] != '"':
            raise self.error("expected string literal")
        self.i += 1
        return unescape(tok)

    def parse_integer(self) -> int:
        neg = self.accept("-")
        tok = self.toks[self.i]
        if not tok.isdigit():
            raise self.error("expected integer")
        self.i += 1
        return -int(tok) if neg else int(tok)

    def parse_symbol(self) -> str:
        """`@name` or `@"name"`, without the `@`."""
        tok = self.toks[self.i]
        if tok[:1] != "@":
            raise self.error("expected symbol name (@name)")
        self.i += 1
        return unescape(tok[1:]) if tok[1:2] == '"' else tok[1:]

    def accept_keyword(self, word: str) -> bool:
        return self.accept(word)

    def parse_dimensions(self) -> tuple[int | None, ...]:
        """A dimension list `400x?x` (possibly empty) before an element type."""
        tok = self.toks[self.i]
        if tok[-1:] != "x" or not (tok[0].isdigit() or tok[0] == "?"):
            return ()
        self.i += 1
        return tuple([None if d == "?" else int(d) for d in tok[:-1].split("x")])

    # ------------------------------------------------------------------ types
    def parse_type(self) -> Type:
        tok = self.toks[self.i]
        t = _SCALARS.get(tok)
        if t is not None:
            self.i += 1
            return t
        if tok == "(":
            return self.parse_function_type()
        if tok == "none":
            self.i += 1
            return _NONE
        hook = TYPE_PARSERS.get(tok)
        if hook is not None:
            start = self.i
            key = self._type_key(start)
            if key is not None:
                hit = self._type_cache.get(key)
                if hit is not None:
                    self.i = start + len(key)
                    return hit
            self.i += 1
            t = self._call_hook(hook, start)
            if key is not None and self.i == start + len(key):
                self._type_cache[key] = t
            return t
        if tok and (tok[0].isalpha() or tok[0] == "_"):
            raise self.error(f"unknown type '{tok}'")
        raise self.error("expected type")

    def _type_key(self, start: int) -> tuple[str, ...] | None:
        """The tokens of `keyword<...>` without nesting: a type is a function of its tokens,
        so repeated types (most of them) are parsed once per buffer."""
        toks = self.toks
        if toks[start + 1] != "<":
            return None
        for j in range(start + 2, min(start + 12, len(toks))):
            t = toks[j]
            if t == ">":
                return tuple(toks[start:j + 1])
            if t == "<" or t == "(":
                return None
        return None

    def _call_hook(self, hook: Callable, start: int):
        try:
            return hook(self)
        except _HOOK_ERRORS as e:
            raise self.error(f"invalid '{self.toks[start]}': {e}", start) from None

    def parse_type_list(self) -> list[Type]:
        """`t1, t2, ...` (at least one)."""
        types = [self.parse_type()]
        while self.accept(","):
            types.append(self.parse_type())
        return types

    def parse_function_type(self) -> FunctionType:
        """`(t1, t2) -> t3` or `(t1) -> (t2, t3)`."""
        self.expect("(")
        inputs = [] if self.toks[self.i] == ")" else self.parse_type_list()
        self.expect(")")
        self.expect("->")
        return FunctionType(tuple(inputs), tuple(self.parse_result_types()))

    def parse_result_types(self) -> list[Type]:
        """A bare type or a parenthesized (possibly empty) list, as after `->`."""
        if self.accept("("):
            results = [] if self.toks[self.i] == ")" else self.parse_type_list()
            self.expect(")")
            return results
        return [self.parse_type()]

    # ------------------------------------------------------------------ attributes
    def parse_attribute(self) -> Attribute:
        tok = self.toks[self.i]
        c = tok[:1]
        if c.isdigit() or tok == "-":
            return self._parse_number()
        if c == '"':
            self.i += 1
            return StringAttr(unescape(tok))
        if c == "@":
            return SymbolRefAttr(self.parse_symbol())
        if tok == "[":
            self.i += 1
            items: list[Attribute] = []
            if not self.accept("]"):
                items.append(self.parse_attribute())
                while self.accept(","):
                    items.append(self.parse_attribute())
                self.expect("]", "']' or ','")
            return ArrayAttr(tuple(items))
        if tok == "{":
            return DictAttr(tuple(sorted(self.parse_attr_dict().items())))
        if tok in ("true", "false"):
            self.i += 1
            return BoolAttr(tok == "true")
        if tok == "unit":
            self.i += 1
            return UnitAttr()
        if tok in ("nan", "inf"):
            return self._parse_number()
        if tok == "array" and self.peek(1) == "<":
            self.i += 1
            return self._parse_dense_array()
        hook = ATTRIBUTE_PARSERS.get(tok)
        if hook is not None:
            start = self.i
            self.i += 1
            return self._call_hook(hook, start)
        if tok in _SCALARS or tok == "(" or tok == "none" or tok in TYPE_PARSERS:
            return TypeAttr(self.parse_type())
        raise self.error("expected attribute value")

    def parse_float_literal(self) -> float:
        """`1.5`, `-2.0e-3`, `nan`, `inf`, `-inf` (and integers, as floats)."""
        neg = self.accept("-")
        tok = self.toks[self.i]
        if tok == "nan":
            value = math.nan
        elif tok == "inf":
            value = math.inf
        elif tok[:1].isdigit() and tok[-1] != "x":
            value = float(tok)
        else:
            raise self.error("expected number")
        self.i += 1
        return -value if neg else value

    def parse_number(self) -> int | float:
        """An integer or a float literal (with its sign)."""
        neg = self.toks[self.i] == "-"
        tok = self.toks[self.i + neg]
        if tok.isdigit():
            self.i += 1 + neg
            return -int(tok) if neg else int(tok)
        return self.parse_float_literal()

    def _parse_number(self) -> Attribute:
        value = self.parse_number()
        if isinstance(value, int):
            if self.accept(":"):
                t = self.parse_type()
                if isinstance(t, ScalarType) and t.is_float:
                    return FloatAttr(float(value), t)
                return IntegerAttr(value, t)
            return IntegerAttr(value)
        if self.accept(":"):
            return FloatAttr(value, self.parse_type())
        return FloatAttr(value)

    def _parse_dense_array(self) -> DenseArrayAttr:
        self.expect("<")
        elem = self.parse_type()
        if not isinstance(elem, ScalarType):
            raise self.error("expected scalar element type of array<>", self.i - 1)
        values: list[int] = []
        if self.accept(":"):
            values.append(self.parse_integer())
            while self.accept(","):
                values.append(self.parse_integer())
        self.expect(">", "'>' or ','")
        return DenseArrayAttr(tuple(values), elem)

    def parse_attr_dict(self) -> dict[str, Attribute]:
        """`{key = value, flag, "quoted key" = value}`; a key without value is a `UnitAttr`."""
        self.expect("{")
        attrs: dict[str, Attribute] = {}
        if self.accept("}"):
            return attrs
        while True:
            tok = self.toks[self.i]
            if tok[:1] == '"':
                key = unescape(tok)
            elif tok and (tok[0].isalpha() or tok[0] == "_"):
                key = tok
            else:
                raise self.error("expected attribute name")
            if key in attrs:
                raise self.error(f"duplicate key '{key}' in dictionary attribute")
            self.i += 1
            attrs[key] = self.parse_attribute() if self.accept("=") else UnitAttr()
            if not self.accept(","):
                break
        self.expect("}", "'}' or ','")
        return attrs

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        return self.parse_attr_dict() if self.toks[self.i] == "{" else {}

    def parse_location(self) -> Location:
        """`loc("file":line:col)` or `loc(unknown)` (the `loc` keyword included)."""
        self.expect("loc")
        self.expect("(")
        if self.accept("unknown"):
            self.expect(")")
            return UNKNOWN_LOC
        filename = self.parse_string()
        self.expect(":")
        line = self.parse_integer()
        self.expect(":")
        col = self.parse_integer()
        self.expect(")")
        return FileLineColLoc(filename, line, col)

    # ------------------------------------------------------------------ SSA values
    def parse_value_def(self) -> int:
        """A `%name` being defined (a block argument); returns its token for `define`."""
        tok = self.toks[self.i]
        if tok[:1] != "%" or "#" in tok:
            raise self.error("expected SSA value name")
        self.i += 1
        return self.i - 1

    def parse_operand_ref(self) -> int:
        """One `%a` (as in `%arg = %a` pairs, where a list would swallow the next pair): its
        token, resolved later with its type."""
        if self.toks[self.i][:1] != "%":
            raise self.error("expected SSA operand")
        self.i += 1
        return self.i - 1

    def parse_operand_refs(self) -> list[int]:
        """`%a, %b#1, ...` (possibly none): the tokens, resolved later with their types."""
        toks = self.toks
        if toks[self.i][:1] != "%":
            return []
        refs = [self.i]
        self.i += 1
        while toks[self.i] == ",":
            if toks[self.i + 1][:1] != "%":
                raise self.error("expected SSA operand", self.i + 1)
            refs.append(self.i + 1)
            self.i += 2
        return refs

    def resolve_operands(self, refs: Sequence[int], types: Sequence[Type]) -> list[Value]:
        if len(refs) != len(types):
            at = refs[0] if refs else self.i - 1
            raise self.error(f"expected {len(refs)} operand types, got {len(types)}", at)
        resolve = self.resolve
        return [resolve(r, t) for r, t in zip(refs, types)]

    def resolve(self, ref: int, type: Type) -> Value:
        """The value a `%name` token refers to, checked against the type it is used with."""
        text = self.toks[ref]
        name, sep, num = text.partition("#")
        index = int(num) if sep else 0
        vals = self.values.get(name)
        if vals is not None:
            if index >= len(vals):
                raise self.error(f"reference to invalid result number in '{text}'", ref)
            v = vals[index]
            if v.type is not type and v.type != type:
                raise self.error(f"use of value '{text}' expects different type than prior uses: "
                                 f"'{type}' vs '{v.type}'", ref)
            return v
        refs = self.frames[-1].forward.setdefault(name, {})
        hit = refs.get(index)
        if hit is None:
            placeholder = _ForwardRef(type)
            refs[index] = (placeholder, ref)
            return placeholder
        if hit[0].type != type:
            raise self.error(f"use of value '{text}' expects different type than prior uses: "
                             f"'{type}' vs '{hit[0].type}'", ref)
        return hit[0]

    def define(self, ref: int, values: Sequence[Value]) -> None:
        """Bind the `%name` at token `ref` to `values` (one, or the results of an op)."""
        name = self.toks[ref]
        if name in self.values:
            raise self.error(f"redefinition of SSA value '{name}'", ref)
        self.values[name] = values  # type: ignore[assignment]
        frame = self.frames[-1]
        frame.names.append(name)
        if not name[1].isdigit() and usable_hint(name[1:]):
            values[0].name_hint = name[1:]
        if frame.forward:
            pending = frame.forward.pop(name, None)
            if pending:
                self._resolve_forward(name, values, pending)

    def _resolve_forward(self, name: str, values: Sequence[Value],
                         pending: dict[int, tuple[_ForwardRef, int]]) -> None:
        for index, (placeholder, ref) in pending.items():
            if index >= len(values):
                raise self.error(f"reference to invalid result number in '{self.toks[ref]}'", ref)
            v = values[index]
            if v.type != placeholder.type:
                raise self.error(f"definition of SSA value '{name}#{index}' has type '{v.type}' but "
                                 f"it was used as '{placeholder.type}'", ref)
            placeholder.replace_all_uses_with(v)

    # ------------------------------------------------------------------ regions and blocks
    def _push_frame(self, isolated: bool) -> tuple[_Frame, dict[str, list[Value]] | None]:
        frame = _Frame(isolated)
        saved = None
        if isolated:
            saved, self.values = self.values, {}
        self.frames.append(frame)
        return frame, saved

    def _pop_frame(self, frame: _Frame, saved: dict[str, list[Value]] | None) -> None:
        if frame.block_refs:
            label, tok = next(iter(frame.block_refs.items()))
            raise self.error(f"reference to an undefined block '{label}'", tok)
        self.frames.pop()
        if saved is not None:
            self.values = saved
        else:
            for name in frame.names:
                del self.values[name]
        if not frame.forward:
            return
        if frame.isolated or not self.frames:
            for name, refs in frame.forward.items():
                for index, (_, tok) in refs.items():
                    raise self.error(f"use of undeclared SSA value name '{self.toks[tok]}'", tok)
        outer = self.frames[-1].forward  # the definition may still come later in the outer region
        for name, refs in frame.forward.items():
            known = outer.setdefault(name, {})
            for index, (placeholder, tok) in refs.items():
                if index in known:
                    if known[index][0].type != placeholder.type:
                        raise self.error(f"use of value '{self.toks[tok]}' expects different type "
                                         f"than prior uses", tok)
                    placeholder.replace_all_uses_with(known[index][0])
                else:
                    known[index] = (placeholder, tok)

    def parse_region(self, entry_args: Sequence[tuple[int, Type]] | None = None,
                     isolated: bool | None = None) -> Region:
        """`{ ops ^bb1(%x: t): ops }`. With `entry_args` (tokens of `%names` and types, as in a
        function signature) the entry block always exists and takes them; otherwise the entry
        block is implicit when ops come before the first label, and `{}` has no blocks.
        `isolated` defaults to whether the op being parsed is `IsolatedFromAbove`."""
        self.expect("{")
        frame, saved = self._push_frame(self._op_isolated if isolated is None else isolated)
        region = Region()
        toks = self.toks
        if entry_args is not None:
            block = Block([t for _, t in entry_args])
            region.add_block(block)
            for (ref, _), arg in zip(entry_args, block.args):
                self.define(ref, [arg])
            self._parse_ops(block)
        elif toks[self.i] != "}" and toks[self.i][:1] != "^":
            block = Block()
            region.add_block(block)
            self._parse_ops(block)
        while toks[self.i][:1] == "^":
            self._parse_block(region, frame)
        self.expect("}", "'}' to end the region")
        self._pop_frame(frame, saved)
        return region

    def _parse_block(self, region: Region, frame: _Frame) -> None:
        label_tok = self.i
        label = self.toks[self.i]
        self.i += 1
        block = frame.blocks.get(label)
        if block is None:
            block = frame.blocks[label] = Block()
        elif label not in frame.block_refs:
            raise self.error(f"redefinition of block '{label}'", label_tok)
        frame.block_refs.pop(label, None)
        region.add_block(block)
        if self.accept("("):
            if not self.accept(")"):
                while True:
                    ref = self.parse_value_def()
                    self.expect(":")
                    self.define(ref, [block.add_argument(self.parse_type())])
                    if not self.accept(","):
                        break
                self.expect(")", "')' or ','")
        self.expect(":", "':' after block label")
        self._parse_ops(block)

    def parse_successor(self) -> Block:
        """`^label`: a block of the current region, created on first use."""
        tok = self.toks[self.i]
        if tok[:1] != "^":
            raise self.error("expected block name")
        frame = self.frames[-1]
        block = frame.blocks.get(tok)
        if block is None:
            block = frame.blocks[tok] = Block()
            frame.block_refs[tok] = self.i
        self.i += 1
        return block

    def _parse_ops(self, block: Block) -> None:
        toks = self.toks
        ops = block.ops
        parse_operation = self.parse_operation
        while True:
            tok = toks[self.i]
            if tok == "}" or tok[:1] == "^" or tok is EOF:
                return
            op = parse_operation()
            op.parent = block
            ops.append(op)

    # ------------------------------------------------------------------ operations
    def parse_operation(self) -> Operation:
        """`results = op-body loc(...)?` in the generic, short or custom form."""
        toks = self.toks
        start = self.i
        groups: list[tuple[int, int]] = []  # (token of %name, number of values)
        if toks[start][:1] == "%":
            while True:
                ref = self.parse_value_def()
                count = 1
                if self.accept(":"):
                    count = self.parse_integer()
                    if count < 1:
                        raise self.error("expected a positive number of results", self.i - 1)
                groups.append((ref, count))
                if not self.accept(","):
                    break
            self.expect("=", "'=' after the result list")
        num_results = sum(c for _, c in groups) if groups else 0
        saved = self.num_results, self._op_isolated
        self.num_results = num_results
        name_tok = self.i
        tok = toks[name_tok]
        if tok[:1] == '"':
            op = self._parse_generic(name_tok)
        elif tok[:1].isalpha():
            op = self._parse_custom(name_tok)
        else:
            raise self.error("expected operation name")
        self.num_results, self._op_isolated = saved
        if len(op.results) != num_results:
            raise self.error(f"operation defines {len(op.results)} results but was provided "
                             f"{num_results} to bind", start)
        if toks[self.i] == "loc" and toks[self.i + 1] == "(":
            op.location = self.parse_location()
        else:
            op.location = self.tokens.location(self.tokens.starts[start])
        k = 0
        for ref, count in groups:
            self.define(ref, op.results[k:k + count])
            k += count
        return op

    def _lookup(self, name: str, name_tok: int, custom: bool) -> type[Operation] | None:
        cls = OP_REGISTRY.get(name)
        if cls is None and custom:
            cls = OP_REGISTRY.get("builtin." + name)
        if cls is None and (custom or not self.allow_unregistered):
            raise self.error(f"unknown op '{name}'", name_tok)
        self._op_isolated = cls is not None and cls.has_trait_cls(IsolatedFromAbove)
        return cls

    def _parse_generic(self, name_tok: int) -> Operation:
        name = unescape(self.toks[name_tok])
        self.i += 1
        self._lookup(name, name_tok, custom=False)
        self.expect("(", "'(' to start the operand list")
        refs = self.parse_operand_refs()
        self.expect(")", "')' or ','")
        successors: list[Block] = []
        if self.accept("["):
            successors.append(self.parse_successor())
            while self.accept(","):
                successors.append(self.parse_successor())
            self.expect("]", "']' or ','")
        regions: list[Region] = []
        if self.toks[self.i] == "(" and self.toks[self.i + 1] == "{":
            self.i += 1
            regions.append(self.parse_region())
            while self.accept(","):
                regions.append(self.parse_region())
            self.expect(")", "')' after the regions")
        attrs = self.parse_attr_dict() if self.toks[self.i] == "{" else {}
        self.expect(":", "':' and the op's function type")
        type_tok = self.i
        ftype = self.parse_type()
        if not isinstance(ftype, FunctionType):
            raise self.error("expected a function type", type_tok)
        if len(ftype.results) != self.num_results:
            raise self.error(f"expected {self.num_results} result types, got {len(ftype.results)}", type_tok)
        if len(ftype.inputs) != len(refs):
            raise self.error(f"expected {len(refs)} operand types, got {len(ftype.inputs)}", type_tok)
        operands = self.resolve_operands(refs, ftype.inputs)
        return create_op(name, operands, ftype.results, attrs, regions, successors, allow_unregistered=True)

    def _parse_custom(self, name_tok: int) -> Operation:
        name = self.toks[name_tok]
        self.i += 1
        cls = self._lookup(name, name_tok, custom=True)
        hook = getattr(cls, "parse_custom", None)
        if hook is not None:
            return self._call_hook(hook, name_tok)
        if cls.assembly == "short":
            return self.parse_short(cls)
        raise self.error(f"'{cls.name}' has no custom form; write it in the generic form", name_tok)

    def parse_short(self, cls: type[Operation]) -> Operation:
        """`%a, %b {attrs} : (t1, t2) -> t3` or `%a {attrs} : t` after the op name."""
        refs = self.parse_operand_refs()
        attrs = self.parse_attr_dict() if self.toks[self.i] == "{" else {}
        self.expect(":", "':' and the op's types")
        type_tok = self.i
        t = self.parse_type()
        if isinstance(t, FunctionType):
            inputs, results = list(t.inputs), list(t.results)
            if len(results) != self.num_results:
                raise self.error(f"expected {self.num_results} result types, got {len(results)}", type_tok)
        else:
            inputs, results = [t] * len(refs), [t] * self.num_results
        operands = self.resolve_operands(refs, inputs)
        return create_op(cls.name, operands, results, attrs)

    def create(self, cls: type[Operation], operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
               attributes: dict[str, Attribute] | None = None, regions: Sequence[Region] = (),
               successors: Sequence[Block] = ()) -> Operation:
        """Instantiate a parsed op (the location is set by the caller of `parse_custom`)."""
        return create_op(cls.name, operands, result_types, attributes, regions, successors)

    # ------------------------------------------------------------------ top level
    def parse_top_level(self) -> list[Operation]:
        frame, saved = self._push_frame(True)
        ops: list[Operation] = []
        while self.toks[self.i] is not EOF:
            if self.toks[self.i] == "}":
                raise self.error("unexpected '}'")
            ops.append(self.parse_operation())
        self._pop_frame(frame, saved)
        return ops


def unescape(token: str) -> str:
    """The value of a `"..."` token."""
    body = token[1:-1]
    return _ESCAPE.sub(_unescape, body) if "\\" in body else body


def _module_class() -> type[Operation]:
    ensure("dialects")
    cls = OP_REGISTRY.get("builtin.module")
    if cls is None:
        raise RuntimeError("no dialects are registered (import irc, or irc.dialects, first)")
    return cls


def _guard(parse: Callable, parser: Parser):
    """Run a parse with the cyclic GC paused (it would rescan the growing IR many times over)
    and with runaway nesting reported as a parse error."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return parse()
    except RecursionError:
        raise parser.error("nesting too deep") from None
    finally:
        if paused:
            gc.enable()


def parse_module(text: str, filename: str = "<stdin>", allow_unregistered: bool = False) -> Operation:
    """Parse a module; top-level ops without an explicit `module { }` are wrapped in one."""
    module_cls = _module_class()
    SOURCES.add(filename, text)
    parser = Parser(text, filename, allow_unregistered)
    ops = _guard(parser.parse_top_level, parser)
    if len(ops) == 1 and isinstance(ops[0], module_cls):
        return ops[0]
    module = module_cls.create(ops)  # type: ignore[attr-defined]
    module.location = FileLineColLoc(filename, 1, 1)
    return module


def _parse_whole(text: str, parse: Callable, what: str):
    _module_class()
    parser = Parser(text, "<string>")
    result = _guard(lambda: parse(parser), parser)
    if parser.toks[parser.i] is not EOF:
        raise parser.error(f"unexpected text after the {what}")
    return result


def parse_type(text: str) -> Type:
    """A type from its text, e.g. `parse_type("tensor<?xf32>")`."""
    return _parse_whole(text, Parser.parse_type, "type")


def parse_attribute(text: str) -> Attribute:
    """An attribute from its text, e.g. `parse_attribute("dense<1.0> : tensor<2xf32>")`."""
    return _parse_whole(text, Parser.parse_attribute, "attribute")


SPLIT_MARKER = "// -----"


def split_input_file(text: str) -> list[tuple[str, int]]:
    """Split on lines starting with `// -----` into (chunk, first line number) pairs, so an
    IR dump (whose headers start `// -----// IR Dump`) splits back into its modules. Each
    chunk keeps blank lines in place of the lines before it, so errors point at the original
    lines."""
    chunks: list[tuple[str, int]] = []
    start = 0
    current: list[str] = []
    for n, line in enumerate(text.split("\n")):
        if line.lstrip().startswith(SPLIT_MARKER):
            chunks.append(("\n" * start + "\n".join(current), start + 1))
            start, current = n + 1, []
        else:
            current.append(line)
    chunks.append(("\n" * start + "\n".join(current), start + 1))
    return chunks
