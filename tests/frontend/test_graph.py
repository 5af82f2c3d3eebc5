"""The symbolic graph: types, variables, constants, apply nodes, locations, walks, clone_replace."""
import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.builtin import TensorType as IRTensorType
from irc.frontend.graph import (Apply, Constant, GraphCycleError, Op, Variable, ancestors, clone_replace,
                                graph_inputs, toposort)
from irc.frontend.tensor_type import TensorType
from irc.ir.location import FileLineColLoc
from irc.ir.types import f32, i64


# ---------------------------------------------------------------------------- TensorType
def test_tensor_type_basics():
    t = TensorType("float32", (True, False))
    assert t.ndim == 2 and t.dtype == "float32" and t.broadcastable == (True, False)
    assert str(t) == "TensorType(float32, row)"
    assert str(TensorType("float64", (False,))) == "TensorType(float64, vector)"
    assert t == TensorType("float32", [1, 0]) and hash(t) == hash(TensorType("float32", (True, False)))


def test_tensor_type_ir_round_trip():
    t = TensorType("float32", (True, False))
    ir = t.to_ir()
    assert ir == IRTensorType((1, None), f32)
    assert TensorType.from_ir(ir) == t
    assert TensorType("int64", ()).to_ir() == IRTensorType((), i64)
    assert t.to_ir("cuda").device == "cuda"


def test_tensor_type_rejects_unknown_dtype():
    with pytest.raises(TypeError, match="unsupported dtype"):
        TensorType("complex256", ())


def test_filter_accepts_and_converts_safely():
    t = TensorType("float64", (False,))
    out = t.filter(np.arange(3, dtype="int32"))
    assert out.dtype == np.float64
    assert t.filter([1.0, 2.0]).dtype == np.float64


def test_filter_wrong_dtype_mentions_allow_input_downcast():
    t = TensorType("float32", (False,))
    with pytest.raises(TypeError, match="allow_input_downcast"):
        t.filter(np.zeros(3))  # float64 -> float32 loses precision
    assert t.filter(np.zeros(3), allow_downcast=True).dtype == np.float32
    assert t.filter([0.5, 1.5]).dtype == np.float32  # Python floats may become floatX-like


def test_filter_wrong_rank_and_broadcast():
    t = TensorType("float64", (False, False))
    with pytest.raises(TypeError, match="expected 2, got 1"):
        t.filter(np.zeros(3))
    with pytest.raises(TypeError, match="broadcastable"):
        TensorType("float64", (True,)).filter(np.zeros(3))


def test_filter_strict():
    t = TensorType("float64", ())
    with pytest.raises(TypeError):
        t.filter(np.float32(1), strict=True)


# ---------------------------------------------------------------------------- variables
def test_variable_tag_and_identity():
    x = T.vector("x")
    x.tag.test_value = np.zeros(3)
    assert x.tag.test_value.shape == (3,)
    y = T.vector("y")
    assert (x == y) is False and (x == x) is True  # == is identity, as in Theano
    assert {x: 1}[x] == 1
    assert bool(x)  # every variable is truthy, as in Theano (tests/frontend/test_truthiness.py)
    with pytest.raises(TypeError):
        len(x)


def test_constant_is_read_only():
    c = T.constant(np.arange(3.0))
    assert isinstance(c, Constant) and c.owner is None
    with pytest.raises(ValueError):
        c.data[0] = 5
    assert c.type.broadcastable == (False,)
    assert T.constant(np.ones((1, 3))).broadcastable == (True, False)
    attr = c.to_dense_attr()
    assert attr.type.shape == (3,)


def test_apply_location_is_user_line():
    x = T.vector()
    y = T.exp(x)  # this line
    loc = y.owner.location
    assert isinstance(loc, FileLineColLoc)
    assert loc.filename == __file__
    import inspect
    src = inspect.getsource(test_apply_location_is_user_line).splitlines()
    first = test_apply_location_is_user_line.__code__.co_firstlineno
    assert src[loc.line - first].strip().startswith("y = T.exp(x)")


def test_apply_links_outputs():
    x = T.vector()
    y = T.exp(x)
    node = y.owner
    assert isinstance(node, Apply) and node.outputs[0] is y and y.index == 0
    assert node.out is y and node.nin == 1 and node.nout == 1
    assert str(node) == "Elemwise{exp,no_inplace}(<TensorType(float64, vector)>)" or "exp" in str(node)


def test_op_equality_by_props():
    assert T.Elemwise("exp") == T.Elemwise("exp")
    assert T.Elemwise("exp") != T.Elemwise("log")
    assert hash(T.DimShuffle((1, 0))) == hash(T.DimShuffle((1, 0)))
    assert T.Sum((0,)) != T.Max((0,))


def test_op_base_call_and_ir_contract():
    op = T.Elemwise("add")
    assert op.ir_name == "tensor.add" and op.ir_attributes() == {}
    ds = T.DimShuffle(("x", 0))
    assert ds.ir_name == "tensor.dimshuffle" and list(ds.ir_attributes()["pattern"]) == [-1, 0]
    assert str(ds) == "InplaceDimShuffle{x,0}"  # Theano 1.0's name for its view
    with pytest.raises(NotImplementedError):
        Op().make_node()


# ---------------------------------------------------------------------------- walks
def test_toposort_orders_inputs_first():
    x, y = T.vectors("x, y")
    a = x + y
    b = T.exp(a)
    c = b * a
    nodes = toposort(c)
    assert nodes.index(a.owner) < nodes.index(b.owner) < nodes.index(c.owner)
    assert len(nodes) == 3
    assert set(graph_inputs(c)) == {x, y}
    assert ancestors(c)[-1] is c
    assert toposort(c, blockers=[a]) == [b.owner, c.owner]


def test_toposort_deep_graph_is_iterative():
    x = T.scalar()
    y = x
    for _ in range(5000):
        y = y + 1.0
    assert len(toposort(y)) == 5000


def test_clone_replace_substitutes():
    x, y = T.vectors("x, y")
    z = T.exp(x) + x
    z2 = clone_replace(z, {x: y})
    assert x not in graph_inputs(z2) and y in graph_inputs(z2)
    assert x in graph_inputs(z)  # the original is untouched
    unchanged = T.exp(y)
    assert clone_replace(unchanged, {x: y}) is unchanged  # shared, not copied


def test_clone_replace_chains_and_lists():
    x, y, w = T.vectors("x, y, w")
    out = clone_replace([x + 1, y], {x: y, y: w})
    assert graph_inputs(out[0]) == [w] or w in graph_inputs(out[0])
    assert out[1] is w


def test_clone_replace_substitutes_a_self_reference_once():
    x = T.dvector("x")
    out = clone_replace(T.exp(x), {x: x + 1})   # Theano's meaning: exp(x + 1), x the original
    assert out.owner.inputs[0].owner.inputs[0] is x
    np.testing.assert_allclose(irc.function([x], out)(np.array([0.0, 1.0])), np.exp([1.0, 2.0]))
    # the other pairs still rewrite it: {x: x * y, y: w} gives x * w
    y, w = T.dvectors("y", "w")
    both = clone_replace(x + y, {x: x * y, y: w})
    assert irc.function([x, w], both)(np.array([2.0]), np.array([3.0])) == [2.0 * 3.0 + 3.0]


def test_clone_replace_cycle_through_two_pairs_is_an_error():
    a, b = T.vectors("a", "b")
    with pytest.raises(GraphCycleError, match=r"a -> b -> a"):
        clone_replace(T.exp(a), {a: b, b: a + 1})


def test_clone_replace_type_check():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="dtype and number of dimensions"):
        clone_replace(T.exp(x), {x: T.fvector()})
    with pytest.raises(TypeError, match="dtype and number of dimensions"):
        clone_replace(T.exp(x), {x: T.dmatrix()})


def test_clone_replace_keeps_location():
    x, y = T.dvectors("x, y") if hasattr(T, "dvectors") else (T.dvector("x"), T.dvector("y"))
    z = T.exp(x)
    z2 = clone_replace(z, {x: y})
    assert z2.owner.location == z.owner.location


def test_variable_requires_tensor_type():
    with pytest.raises(TypeError):
        Variable("float32")
