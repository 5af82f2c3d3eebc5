"""Tensor and scalar ops through text: print, parse, print is the identity (every table row)."""
from irc.dialects import load_all, tensor
from irc.dialects.builtin import TensorType
from irc.dialects.elementwise import TABLE_ROWS
from irc.dialects.func import FuncOp
from irc.ir.builder import Builder, InsertionPoint
from irc.ir.core import OP_REGISTRY
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.types import f32, i1, i32
from irc.ir.verifier import verify

load_all()


def _element(row):
    return f32 if "f" in row.kinds else (i32 if "i" in row.kinds else i1)


def test_every_row_roundtrips_in_both_dialects():
    from irc.dialects.builtin import ModuleOp
    funcs = []
    for row in TABLE_ROWS:
        el = _element(row)
        types = [TensorType((None, 1), el), TensorType((1, 4), el), TensorType((None, 4), el)][:row.arity]
        if row.name == "select":
            types[0] = TensorType((None, 1), i1)
        fn = FuncOp.create(f"f_{row.name}", types, [])
        b = Builder(InsertionPoint.at_end(fn.body))
        r = b.create(OP_REGISTRY[row.tensor_name], list(fn.body.args)).result

        def body(sb, xs, row=row):
            return [sb.create(OP_REGISTRY[row.scalar_name], xs).result]
        fused = b.insert(tensor.FusedOp.create(list(fn.body.args), body))
        b.create("func.return", [r, fused.result], result_types=[])
        fn.update_function_type()
        funcs.append(fn)
    module = ModuleOp.create(funcs)
    verify(module)
    text = print_op(module)
    assert "tensor.sigmoid %arg0 : (tensor<?x1xf32>) -> tensor<?x1xf32>" not in text  # same types: short
    assert "tensor.sigmoid %arg0 : tensor<?x1xf32>" in text
    again = parse_module(text)
    verify(again)
    assert print_op(again) == text
    generic = print_op(module, generic=True)
    assert print_op(parse_module(generic)) == text
