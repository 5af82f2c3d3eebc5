"""`tensor.fused_matvec`: A·x, a fused body applied row by row to its result, and Aᵀ·g of one
of the body's values g — what a gradient step of a linear model does (logistic regression:
z = X·w, per-row probabilities, losses and gradients g, then Xᵀ·g) — as one op, so that its
loops read A once: each row of A is still in the cache when its g is known.

    %r:4 = tensor.fused_matvec %A, %x, %y2 (%z, %b = %bias, %t = %y) {alpha = 0.1, beta = 0.1, kind = "sum"}
           : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>)
           -> (tensor<?xf32>, tensor<f32>, tensor<?xf32>) {
      %s = scalar.add %z, %b : f32
      %g = scalar.sub %s, %t : f32
      scalar.yield %s, %g, %g : f32, f32, f32
    }

Operands: A (m×k), x (k), the accumulator y2 (k) exactly when beta != 0 (as `tensor.gemv`),
then the row operands (length m, or a static 1 read at every row). The body's block takes z[i]
(z = A·x) and the row operands' elements at row i, and yields one scalar per result:

* the first results are elementwise (`tensor<m x T>`, the yielded value at every row),
* then results reduced over the rows with `kind` (sum, prod, max, min; 0-d tensors),
* the last yield is g (A's element type); the last result is out = alpha·Aᵀ·g + beta·y2 (k).

z is never broadcast: a row operand of unknown length must have the m rows of A (asserted at
run time), and with a static 1 row in A every row operand has one too.
"""
from __future__ import annotations

from ..ir.core import Block, IsolatedFromAbove, Pure, Value
from ..ir.types import ScalarType
from .builtin import TensorType
from .op_base import Bad, compatible, float_attr
from .tensor_base import TensorOp, common_device, tensor_types
from .tensor_fused import check_scalar_body

KINDS = ("sum", "prod", "max", "min")


class FusedMatvecOp(TensorOp):
    """`tensor.fused_matvec`: z = A·x, a row-wise body over z, out = alpha·Aᵀ·g + beta·y2."""

    name = "tensor.fused_matvec"
    traits = (Pure, IsolatedFromAbove)

    # ------------------------------------------------------------------ structure
    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    @property
    def num_rows(self) -> int:
        """How many row operands the body reads (its block's arguments after z)."""
        return len(self.body.args) - 1

    @property
    def acc(self) -> Value | None:
        """The accumulator y2, when given (beta != 0)."""
        return self.operand(2) if self.num_operands == 3 + self.num_rows else None

    @property
    def row_operands(self) -> list[Value]:
        return list(self.operands[self.num_operands - self.num_rows:])

    @property
    def alpha(self) -> float:
        return float_attr(self.attributes, "alpha", 1.0)

    @property
    def beta(self) -> float:
        return float_attr(self.attributes, "beta", 0.0)

    @property
    def kind(self) -> str | None:
        k = self.attributes.get("kind")
        return getattr(k, "value", None)

    @property
    def num_elementwise(self) -> int:
        """How many leading results are elementwise (rank 1); the reduced ones (rank 0) follow,
        then `out`."""
        return sum(1 for r in self.results[:-1] if isinstance(r.type, TensorType) and r.type.rank == 1)

    @property
    def reduced_results(self) -> list[Value]:
        return self.results[self.num_elementwise:-1]

    @property
    def out(self) -> Value:
        return self.results[-1]

    # ------------------------------------------------------------------ text
    def print_custom(self, printer) -> bool | None:
        """`%A, %x[, %y2] (%z, %a = %v, ...) {attrs} : (operand types) -> (result types) {body}`."""
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            return False
        block = self.body
        head = self.num_operands - self.num_rows
        if not block.args or head not in (2, 3):
            return False
        pairs = [printer.name(block.args[0])]
        pairs += [f"{printer.name(a)} = {printer.name(v)}" for a, v in zip(block.args[1:], self.operands[head:])]
        printer.write(" ", printer.names(self.operands[:head]), " (", ", ".join(pairs), ")",
                      printer.attr_dict(self.attributes), " : ",
                      printer.function_type([v.type for v in self.operands], self.result_types), " ")
        printer.print_region(self.regions[0], entry_args=False)
        return None

    @classmethod
    def parse_custom(cls, parser) -> "FusedMatvecOp":
        head = parser.parse_operand_refs()
        parser.expect("(", "'(' and the body's arguments")
        defs = [parser.parse_value_def()]
        refs: list[int] = []
        while parser.accept(","):
            defs.append(parser.parse_value_def())
            parser.expect("=")
            refs.append(parser.parse_operand_ref())
        parser.expect(")", "')' or ','")
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":")
        ftype = parser.parse_function_type()
        operands = parser.resolve_operands(head + refs, ftype.inputs)
        elements = [t.element if isinstance(t, TensorType) else t for t in ftype.inputs]
        z_type = elements[0] if elements else None
        region = parser.parse_region(entry_args=list(zip(defs, [z_type] + elements[len(head):])))
        return parser.create(cls, operands, ftype.results, attrs, [region])

    @classmethod
    def _infer(cls, operand_types, attributes):
        raise Bad("infers its result types from its body: build it with explicit result types")

    # ------------------------------------------------------------------ verifier
    def verify_(self) -> None:
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            raise self.error("must have one region with one block")
        block = self.body
        if not block.args:
            raise self.error("body must take z (an element of A·x) as its first argument")
        head = self.num_operands - self.num_rows
        if head not in (2, 3):
            raise self.error(f"takes A, x[, y2] and {self.num_rows} row operand(s) (one per body "
                             f"argument after z), got {self.num_operands} operand(s)")
        try:
            types = tensor_types([v.type for v in self.operands])
            device = common_device(types)
            m, k, element = self._check_product(types[:head])
            rows = self._check_rows(types[head:], m)
        except Bad as e:
            raise self.error(str(e)) from None
        yields = self._check_body(block, element, types[head:])
        n = len(self.results)
        if len(yields) != n:
            raise self.error(f"body yields {len(yields)} value(s) but the op has {n} result(s)")
        if not yields:
            raise self.error("needs at least one result (out = alpha·Aᵀ·g + beta·y2)")
        if yields[-1].type != element:
            raise self.error(f"the last yielded value (g) must be {element}, A's element type, "
                             f"got {yields[-1].type}")
        self._check_results(yields, rows, k, element, device)

    def _check_product(self, types: list[TensorType]) -> tuple:
        """A, x[, y2]: their sizes (m, k) and element type."""
        A, x = types[:2]
        if A.rank != 2 or x.rank != 1:
            raise Bad(f"needs a matrix A and a vector x, got {A} and {x}")
        element = A.element
        for t in types:
            if t.element != element:
                raise Bad("A, x and y2 must have the same element type, got " + ", ".join(map(str, types)))
        if not element.is_float:
            raise Bad(f"needs float operands, got {element}")
        m, k = A.shape
        if k is not None and x.shape[0] is not None and k != x.shape[0]:
            raise Bad(f"inner dimensions do not match: {A} and {x} ({k} vs {x.shape[0]})")
        k = k if k is not None else x.shape[0]
        beta = float_attr(self.attributes, "beta", 0.0)
        float_attr(self.attributes, "alpha", 1.0)
        if (beta != 0.0) != (len(types) == 3):
            raise Bad(f"the accumulator y2 must be given exactly when beta != 0 (beta = {beta}, "
                      f"{'with' if len(types) == 3 else 'without'} y2)")
        if len(types) == 3:
            y2 = types[2]
            if y2.rank != 1:
                raise Bad(f"accumulator y2 must be a vector, got {y2}")
            if k is not None and y2.shape[0] is not None and k != y2.shape[0]:
                raise Bad(f"y2 must have A's {k} columns, got {y2}")
            k = k if k is not None else y2.shape[0]
        return m, k, element

    @staticmethod
    def _check_rows(types: list[TensorType], m: int | None) -> int | None:
        """Row operands: length m or a static 1; returns the rows as far as the types know."""
        rows = m
        for i, t in enumerate(types):
            if t.rank != 1:
                raise Bad(f"row operand #{i} must be a vector (length m or 1), got {t}")
            d = t.shape[0]
            if d == 1:
                continue
            if m == 1:
                raise Bad(f"row operand #{i} ({t}) has more rows than A's one: z would be broadcast")
            if d is not None:
                if rows is not None and d != rows:
                    raise Bad(f"row operand #{i} ({t}) does not have A's {rows} rows")
                rows = d
        return rows

    def _check_body(self, block: Block, element: ScalarType, rows: list[TensorType]) -> list[Value]:
        if block.args[0].type != element:
            raise self.error(f"body argument #0 (z) has type {block.args[0].type}, expected {element}")
        for i, (arg, t) in enumerate(zip(block.args[1:], rows)):
            if arg.type != t.element:
                raise self.error(f"body argument #{i + 1} has type {arg.type} but its row operand is {t}")
        return check_scalar_body(self, block)

    def _check_results(self, yields: list[Value], rows: int | None, k: int | None,
                       element: ScalarType, device: str | None) -> None:
        results = self.results
        for i, r in enumerate(results):
            if not isinstance(r.type, TensorType):
                raise self.error(f"result #{i} must be a tensor, got {r.type}")
        n = self.num_elementwise
        reduced = results[n:-1]
        for i, r in enumerate(results[:-1]):
            if r.type.rank == 1 and i >= n:
                raise self.error(f"result #{i} is elementwise (rank 1) but follows a reduced one: "
                                 f"the elementwise results come first")
            if r.type.rank not in (0, 1):
                raise self.error(f"result #{i} has type {r.type}: expected rank 1 (elementwise) "
                                 f"or 0 (reduced over the rows)")
        kind = self.kind
        if reduced and kind not in KINDS:
            raise self.error(f"has {len(reduced)} reduced result(s): needs kind = one of {', '.join(KINDS)}")
        if not reduced and "kind" in self.attributes:
            raise self.error("has a 'kind' but no reduced result (rank 0)")
        for i, (v, r) in enumerate(zip(yields[:-1], results[:-1])):
            if i >= n and v.type.is_bool and kind in ("sum", "prod"):
                raise self.error(f"{kind} of i1 is not defined (result #{i})")
            expected = TensorType((rows,) if i < n else (), v.type, device)
            if not compatible(r.type, expected):
                raise self.error(f"result #{i} has type {r.type}, but the operands and body give {expected}")
        expected = TensorType((k,), element, device)
        if not compatible(results[-1].type, expected):
            raise self.error(f"the last result (alpha·Aᵀ·g + beta·y2) has type {results[-1].type}, "
                             f"expected {expected}")
