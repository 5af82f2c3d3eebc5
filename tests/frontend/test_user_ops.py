"""Users' own ops (`irc.Op`, `irc.Apply`, `as_op`): building, compiling, running between native
parts, gradients, pickling, and the errors a user can make (each naming the op and the line)."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.tensor_custom import USER_OPS
from irc.frontend.user_op import UserOpError
from irc.runtime.errors import ExecutionError
from irc.runtime.segmented import SegmentedExecutor
from user_ops_defs import AddSub, Destroys, Returns, ScaleOp, cumulative_max


def custom_ops(f) -> list:
    return [op for op in f.maker.module.walk() if op.op_name == "tensor.custom"]


def test_names_where_theano_puts_them():
    import irc.gof
    from irc.compile.ops import as_op
    assert irc.Op is irc.gof.Op and irc.Apply is irc.gof.Apply
    assert irc.as_op is as_op
    assert irc.gof.op.Op is irc.Op


def test_perform_runs_between_native_parts():
    x = T.dvector("x")
    y = ScaleOp(3.0)(T.exp(x) + 1)
    f = irc.function([x], [y, T.sum(y ** 2)])
    v = np.linspace(-1, 1, 7)
    got_y, got_s = f(v)
    np.testing.assert_allclose(got_y, 3 * (np.exp(v) + 1), rtol=1e-12)
    np.testing.assert_allclose(got_s, np.sum((3 * (np.exp(v) + 1)) ** 2), rtol=1e-12)
    assert isinstance(f.executor, SegmentedExecutor)
    assert [type(n).__name__ for n in f.executor.natives] == ["NativeExecutor", "NoneType", "NativeExecutor"]
    assert [str(n.op) for n in f.maker.fgraph.toposort()][1] == "ScaleOp{factor=3.0}"


def test_two_outputs_and_shared_updates_through_parts():
    x = T.fvector("x")
    w = irc.shared(np.ones(4, "float32"), name="w")
    s, d = AddSub()(x, w)
    f = irc.function([x], [s, d * 2], updates=[(w, w + s)])
    xv = np.arange(4, dtype="float32")
    got_s, got_d = f(xv)
    np.testing.assert_allclose(got_s, xv + 1)
    np.testing.assert_allclose(got_d, (xv - 1) * 2)
    np.testing.assert_allclose(w.get_value(), 1 + xv + 1)
    assert got_s.dtype == np.float32


def test_results_that_are_inputs_are_copies():
    x = T.dvector("x")
    f = irc.function([x], [x, ScaleOp(2.0)(x)])
    v = np.ones(3)
    a, b = f(v)
    a[0] = 5
    assert v[0] == 1 and b[0] == 2


def test_return_list_and_default_output():
    x = T.dvector("x")
    assert isinstance(ScaleOp(1.0)(x, return_list=True), list)

    class Second(AddSub):
        default_output = 1

    f = irc.function([x], Second()(x, x))
    np.testing.assert_allclose(f(np.ones(2)), [0.0, 0.0])


def test_equal_props_merge_and_unequal_do_not():
    x = T.dvector("x")
    f = irc.function([x], ScaleOp(2.0)(x) + ScaleOp(2.0)(x) + ScaleOp(3.0)(x))
    keys = sorted(op.attributes["op"].value for op in custom_ops(f))
    assert keys == ["user_ops_defs.ScaleOp{factor=2.0}", "user_ops_defs.ScaleOp{factor=3.0}"]
    np.testing.assert_allclose(f(np.ones(2)), [7.0, 7.0])
    assert ScaleOp(2.0) == ScaleOp(2.0) and hash(ScaleOp(2.0)) == hash(ScaleOp(2.0))
    assert ScaleOp(2.0) != ScaleOp(3.0)


def test_ops_without_props_are_equal_only_to_themselves():
    class Twice(irc.Op):
        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] * 2

    a, b = Twice(), Twice()
    assert a != b and a == a
    x = T.dvector("x")
    f = irc.function([x], a(x) + b(x) + a(x))
    assert len(custom_ops(f)) == 2
    np.testing.assert_allclose(f(np.ones(2)), [6.0, 6.0])


def test_the_ir_prints_parses_and_optimizes_again():
    from irc.cli.opt import main
    import contextlib
    import io
    x = T.dvector("x")
    f = irc.function([x], ScaleOp(2.0)(T.exp(x)) * 2)
    text = f.ir("optimized")
    assert 'tensor.custom' in text and 'op = "user_ops_defs.ScaleOp{factor=2.0}"' in text
    from irc.ir.parser import parse_module
    from irc.ir.printer import print_op
    once = print_op(parse_module(text, "t"))
    assert print_op(parse_module(once, "u")) == once
    out = io.StringIO()
    import sys
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out):
            rc = main(["-", "--pass-pipeline=canonicalize,fuse-elementwise,inplace"])
    finally:
        sys.stdin = saved
    assert rc in (0, None)
    assert "tensor.custom" in out.getvalue()


def test_the_loop_stage_shows_the_native_parts_and_dumps_stop_at_tensor_level(tmp_path):
    x = T.dvector("x")
    f = irc.function([x], T.exp(ScaleOp(2.0)(x + 1)))
    loop = f.ir("loop")
    assert "@main.part0" in loop and "@main.part1" in loop and "tensor.custom" not in loop
    llvm = f.ir("llvm")
    assert "main.part0" in llvm and "main.part1" in llvm
    files = f.dump_ir(str(tmp_path))
    assert files and all(p.endswith(".mlir") for p in files)


def test_passes_leave_it_alone():
    x = T.dvector("x")
    f = irc.function([x], T.exp(ScaleOp(2.0)(x + 1)) * 3)
    [op] = custom_ops(f)
    assert "inplace" not in op.attributes
    assert op.parent is f.maker.module.regions[0].blocks[0].ops[0].regions[0].blocks[0]  # not fused


def test_a_cpu_op_stays_on_the_host_and_assert_no_cpu_op_names_it():
    from irc.frontend.lowering import LoweringSpec, lower
    from irc.frontend.placement_report import report_host_ops
    from irc.passes.pipelines import optimize
    x = T.fvector("x")
    y = T.exp(ScaleOp(2.0)(T.exp(x)))
    lowered = lower(LoweringSpec([x], [y], device="cuda"))
    optimize(lowered.module, "FAST_RUN", lowered.func.sym_name, per_pass=False, device="cuda")
    [op] = [o for o in lowered.module.walk() if o.op_name == "tensor.custom"]
    assert all(v.type.device is None for v in (*op.operands, *op.results))
    # the two transfers a cpu op costs between device ops
    assert op.operands[0].owner.op_name == "tensor.to_host"
    assert [u.owner.op_name for u in op.results[0].uses] == ["tensor.to_device"]
    with pytest.raises(AssertionError, match=r"ScaleOp\{factor=2.0\}\) runs on the cpu"):
        report_host_ops(lowered.func, "raise", "cuda")


def test_profiler_shows_the_op_by_name(capsys):
    x = T.dvector("x")
    f = irc.function([x], T.sum(ScaleOp(5.0)(T.exp(x))), profile=True)
    f(np.ones(10))
    f.profile.summary()
    out = capsys.readouterr().out
    assert "ScaleOp{factor=5.0}" in out
    assert "Elemwise{exp" in out or "Elemwise{Composite" in out or "CAReduce" in out


def test_grad_uses_the_ops_grad():
    x = T.dvector("x")
    cost = T.sum(ScaleOp(3.0)(x) ** 2)
    g = irc.function([x], T.grad(cost, x))
    v = np.array([1.0, -2.0])
    np.testing.assert_allclose(g(v), 18 * v)


def test_grad_of_an_output_the_cost_ignores_is_zero():
    class AddSubGrad(AddSub):
        def grad(self, inputs, output_grads):
            gs, gd = output_grads
            return [gs + gd, gs - gd]

    x, y = T.dvectors("x", "y")
    s, _ = AddSubGrad()(x, y)
    g = irc.function([x, y], T.grad(T.sum(s * 3), [x, y]))
    gx, gy = g(np.ones(2), np.ones(2))
    np.testing.assert_allclose(gx, [3, 3])
    np.testing.assert_allclose(gy, [3, 3])


def test_no_grad_is_a_clear_error():
    x = T.dvector("x")
    with pytest.raises(NotImplementedError, match=r"test_user_ops.py:\d+.*AddSub defines no grad"):
        T.grad(T.sum(AddSub()(x, x)[0]), x)


def test_rop_uses_the_ops_r_op():
    class ScaleR(ScaleOp):
        def R_op(self, inputs, eval_points):
            return [eval_points[0] * self.factor]

    x, v = T.dvectors("x", "v")
    f = irc.function([x, v], T.Rop(ScaleR(4.0)(x), x, v), on_unused_input="ignore")
    np.testing.assert_allclose(f(np.ones(2), np.array([1.0, 2.0])), [4.0, 8.0])


def test_as_op():
    x = T.dvector("x")
    f = irc.function([x], cumulative_max(x) * 2)
    np.testing.assert_allclose(f(np.array([1.0, 3.0, 2.0])), [2.0, 6.0, 6.0])
    assert "FromFunctionOp" in str(f.maker.fgraph.toposort()[0].op)
    with pytest.raises(TypeError, match="as_op declared"):
        cumulative_max(T.fvector())


def test_functions_with_user_ops_pickle():
    x = T.dvector("x")
    f = irc.function([x], cumulative_max(ScaleOp(2.0)(x)) + 1)
    data = pickle.dumps(f)
    saved = dict(USER_OPS)
    USER_OPS.clear()  # as in a fresh process: the pickle brings the ops back
    try:
        g = pickle.loads(data)
        np.testing.assert_allclose(g(np.array([1.0, 0.0, 2.0])), [3.0, 3.0, 5.0])
    finally:
        USER_OPS.update(saved)


def test_a_local_op_class_cannot_pickle_and_says_which_op():
    class Local(ScaleOp):
        pass

    x = T.dvector("x")
    f = irc.function([x], Local(1.0)(x))
    with pytest.raises(pickle.PicklingError, match=r"user op .*Local"):
        pickle.dumps(f)


def test_a_scan_holding_a_user_op_runs_with_a_warning():
    xs = T.dmatrix("xs")
    h0 = T.dvector("h0")
    hs, _ = irc.scan(lambda x_t, h: ScaleOp(2.0)(h) + x_t, sequences=xs, outputs_info=h0)
    with pytest.warns(RuntimeWarning, match=r"user op ScaleOp\{factor=2.0\}.*inside a scan"):
        f = irc.function([xs, h0], hs[-1])
    np.testing.assert_allclose(f(np.zeros((3, 2)), np.ones(2)), [8.0, 8.0])


# ------------------------------------------------------------------ the user's mistakes
@pytest.mark.parametrize("kind, message", [
    ("float32", r"output #0 has dtype float32, but make_node declared .*float64"),
    ("rank", r"output #0 has 2 dimension\(s\)"),
    ("none", r"output #0 was not set"),
    ("list", r"output #0 is a list"),
])
def test_wrong_outputs_name_the_op_and_the_line(kind, message):
    x = T.dvector("x")
    f = irc.function([x], Returns(kind)(x) + 1)
    with pytest.raises(ExecutionError, match=message) as info:
        f(np.ones(3))
    text = str(info.value)
    assert f"Returns{{{kind}}}" in text and "test_user_ops.py" in text


def test_a_broadcastable_output_of_another_size_is_refused():
    class Row(Returns):
        def make_node(self, x):
            return irc.Apply(self, [x], [T.TensorType("float64", (True,))()])

    x = T.dvector("x")
    f = irc.function([x], Row("ok")(x))
    with pytest.raises(ExecutionError, match=r"declared dim 0 broadcastable"):
        f(np.ones(3))


def test_an_exception_in_perform_says_which_op():
    x = T.dvector("x")
    f = irc.function([x], Returns("raise")(x))
    with pytest.raises(ExecutionError, match=r"Returns\{raise\}.perform raised ZeroDivisionError(.|\n)*"
                                             r"built at .*test_user_ops.py"):
        f(np.ones(1))

    class Raises(Returns):
        def perform(self, node, inputs, output_storage):
            raise KeyError("mine")

    g = irc.function([x], Raises("ok")(x))
    with pytest.raises(KeyError) as info:
        g(np.ones(1))
    assert any("Raises{ok}.perform" in n and "test_user_ops.py" in n for n in info.value.__notes__)


def test_perform_missing_is_refused_at_compile_time():
    class NoPerform(irc.Op):
        __props__ = ()

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

    x = T.dvector("x")
    y = NoPerform()(x)
    with pytest.raises(UserOpError, match=r"NoPerform \(used at .*test_user_ops.py.*\) has no perform"):
        irc.function([x], y)


def test_unhashable_props_are_refused_where_the_op_is_used():
    x = T.dvector("x")
    with pytest.raises(UserOpError, match=r"ScaleOp \(at .*test_user_ops.py.*\): prop 'factor' is a list"):
        ScaleOp([1.0, 2.0])(x)


def test_make_node_must_return_an_apply():
    class Bad(irc.Op):
        def make_node(self, x):
            return x

    with pytest.raises(UserOpError, match=r"make_node .*returned .*not an irc.Apply"):
        Bad()(T.dvector())


def test_debugmode_catches_an_undeclared_write_into_an_input():
    x = T.dvector("x")
    f = irc.function([x], Destroys(False)(x * 1), mode="DebugMode")
    with pytest.raises(ExecutionError, match=r"Destroys\{False\}.perform wrote into its input #0 "
                                             r"without declaring it in destroy_map.*test_user_ops.py"):
        f(np.ones(2))


def test_a_declared_destroy_map_never_touches_the_callers_array():
    x = T.dvector("x")
    f = irc.function([x], [Destroys(True)(x), x + 0], mode="DebugMode")
    v = np.ones(2)
    out, same = f(v)
    np.testing.assert_allclose(out, [2, 2])
    np.testing.assert_allclose(v, [1, 1])
    np.testing.assert_allclose(same, [1, 1])


def test_test_values_run_perform():
    x = T.dvector("x")
    x.tag.test_value = np.array([1.0, 2.0])
    with irc.config.change_flags(compute_test_value="raise"):
        y = ScaleOp(2.0)(x)
    np.testing.assert_allclose(y.tag.test_value, [2.0, 4.0])


def test_no_warning_for_a_plain_function_with_user_ops():
    x = T.dvector("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = irc.function([x], ScaleOp(2.0)(x))
    np.testing.assert_allclose(f(np.ones(1)), [2.0])


# ------------------------------------------------------------------ GPU ops, as far as a CPU sees them
class HalfKernel(irc.Op):
    """A GPU op (make_thunk, no perform) that does not declare _f16_ok."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        raise AssertionError("not run here")


def test_float16_into_a_gpu_op_without_f16_ok_is_refused():
    h = T.TensorType("float16", (False,))("h")
    with pytest.raises(UserOpError, match=r"HalfKernel \(at .*test_user_ops.py.*\): input #0 is float16, "
                                          r"but HalfKernel does not declare _f16_ok = True"):
        HalfKernel()(h)

    class HalfOk(HalfKernel):
        _f16_ok = True

    assert HalfOk()(h).dtype == "float16"
    HalfKernel()(T.fvector())  # float32 is fine


def test_a_gpu_op_is_a_device_op_in_the_ir():
    from irc.frontend.lowering import LoweringSpec, lower
    x = T.fvector("x")
    lowered = lower(LoweringSpec([x], [HalfKernel()(x)]))
    [op] = [o for o in lowered.module.walk() if o.op_name == "tensor.custom"]
    assert op.attributes["device"].value == "cuda"


@pytest.mark.skipif(__import__("irc.runtime.cuda.driver", fromlist=["x"]).why_unavailable() is None,
                    reason="a GPU is present: the op would run")
def test_a_gpu_op_without_a_gpu_says_so():
    x = T.fvector("x")
    f = irc.function([x], HalfKernel()(x))
    with pytest.raises(ExecutionError, match=r"HalfKernel runs its kernels through make_thunk and needs a GPU"):
        f(np.ones(2, "float32"))


def test_outputs_that_view_their_input_are_not_the_callers():
    class Transposed(irc.Op):
        __props__ = ()
        view_map = {0: [0]}

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0].T  # a view of the input

    m = T.dmatrix("m")
    f = irc.function([m], [Transposed()(m), Transposed()(m * 2) + 1])
    v = np.arange(6.0).reshape(2, 3)
    t, u = f(v)
    t[0, 0] = 99
    assert v[0, 0] == 0
    np.testing.assert_allclose(u, (v * 2).T + 1)


def test_destroy_map_works_in_place_on_a_value_nothing_else_reads():
    seen = []

    class Recording(Destroys):
        def perform(self, node, inputs, output_storage):
            seen.append(inputs[0])
            super().perform(node, inputs, output_storage)

    x = T.dvector("x")
    y = x + 1
    f = irc.function([x], Recording(True)(y))
    np.testing.assert_allclose(f(np.ones(2)), [4.0, 4.0])
    step = [s for s in f.executor.plan.steps if hasattr(s, "donated")][0]
    assert step.donated == frozenset({0})
    g = irc.function([x], [Recording(True)(y), y * 1])  # y is read afterwards: copied first
    out, again = g(np.ones(2))
    np.testing.assert_allclose(out, [4.0, 4.0])
    np.testing.assert_allclose(again, [2.0, 2.0])
    step = [s for s in g.executor.plan.steps if hasattr(s, "donated")][0]
    assert step.donated == frozenset()


def test_destroy_map_never_reaches_an_input_through_a_view():
    class Transposed(irc.Op):
        __props__ = ()
        view_map = {0: [0]}

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0].T

    m = T.dmatrix("m")
    f = irc.function([m], Destroys(True)(Transposed()(m)))
    v = np.ones((2, 3))
    np.testing.assert_allclose(f(v), 2 * np.ones((3, 2)))
    np.testing.assert_allclose(v, np.ones((2, 3)))


def test_a_class_defined_again_does_not_take_over_the_old_ones_functions():
    def define(factor):
        class Again(irc.Op):
            __props__ = ()

            def make_node(self, x):
                return irc.Apply(self, [x], [x.type()])

            def perform(self, node, inputs, output_storage):
                output_storage[0][0] = inputs[0] * factor
        return Again

    x = T.dvector("x")
    old = irc.function([x], define(2.0)()(x))
    new = irc.function([x], define(3.0)()(x))
    np.testing.assert_allclose(old(np.ones(1)), [2.0])
    np.testing.assert_allclose(new(np.ones(1)), [3.0])
    assert custom_ops(new)[0].attributes["op"].value.endswith("~2")
