"""Compiled functions pickle and deep-copy as Theano's do (`_pickle_Function`): what comes back
computes the same numbers, with its code from the disk cache (no LLVM when the cache has it),
its own copies of the shared variables unless they were pickled with it, the defaults of its
inputs, its updates and borrow flags; a GPU function comes back on the cpu, with one warning,
where no GPU can be used. Results are compared exactly (the same code runs)."""
from __future__ import annotations

import copy
import dataclasses
import io
import pickle
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import forked_python
import irc
import irc.tensor as T
from irc.passes.device_edges import HostOpsLeft, device_module
from irc.codegen_ptx.pipeline import lower_for_gpu
from irc.ifelse import ifelse
from irc.runtime import targets
from irc.runtime.cuda.host_fallback import run_on_cpu
from irc.runtime.errors import OutputMismatchError
from irc.runtime.function_state import FunctionPicklingError
from irc.runtime.kernel_emulator import run_function


def ones(n=3):
    return np.ones(n, "float32")


def train_step():
    """A function with an input default, a shared variable it updates, one it only reads."""
    x = T.fvector("x")
    lr = T.fscalar("lr")
    w = irc.shared(np.arange(3, dtype="float32"), name="w")
    b = irc.shared(np.float32(0.5), name="b")
    f = irc.function([x, irc.In(lr, value=np.float32(0.25))], T.exp(x * w) + b,
                     updates={w: w - lr * x}, name="step")
    return f, w, b


# ---------------------------------------------------------------------- pickle, in one process
def test_round_trip_computes_the_same_and_keeps_the_default_and_updates():
    f, w, _ = train_step()
    g = pickle.loads(pickle.dumps(f))
    start = w.get_value()
    want = f(ones())
    g.shared[0].set_value(start)
    np.testing.assert_array_equal(g(ones()), want)  # lr left out: the pickled default 0.25
    np.testing.assert_array_equal(g.shared[0].get_value(), w.get_value())
    assert g.name == "step" and g.maker.target.name == "cpu" and g.maker.mode == f.maker.mode
    assert g.maker.native is not None and g.maker.native.loop_ir == f.maker.native.loop_ir


def test_a_function_pickled_alone_has_its_own_shared_variables():
    f, w, b = train_step()
    g = pickle.loads(pickle.dumps(f))
    g(ones())
    np.testing.assert_array_equal(w.get_value(), [0, 1, 2])  # the original is untouched
    np.testing.assert_array_equal(g.shared[0].get_value(), [-0.25, 0.75, 1.75])
    assert g.shared[0] is not w and g.shared[0].name == "w"


def test_shared_variables_pickled_with_the_function_stay_connected():
    f, w, b = train_step()
    g, w2, b2 = pickle.loads(pickle.dumps((f, w, b)))
    g(ones(), 1.0)
    np.testing.assert_array_equal(w2.get_value(), [-1, 0, 1])
    b2.set_value(np.float32(10))
    np.testing.assert_allclose(g(np.zeros(3, "float32")), 11.0, rtol=0)
    np.testing.assert_array_equal(w.get_value(), [0, 1, 2])


def test_two_functions_in_one_pickle_share_one_copy():
    f, w, _ = train_step()
    read = irc.function([], w * 2)
    f2, read2 = pickle.loads(pickle.dumps([f, read]))
    f2(ones(), 1.0)
    np.testing.assert_array_equal(read2(), [-2, 0, 2])
    assert f2.shared[0] is read2.shared[0]


def test_borrowed_outputs_keyword_inputs_and_dict_outputs_survive():
    x = T.dvector("x")
    y = irc.shared(np.zeros(4), name="acc")
    f = irc.function([x], {"sum": irc.Out(x + y, borrow=True), "twice": x * 2},
                     updates=[(y, y + x)])
    g = pickle.loads(pickle.dumps(f))
    out = g(x=np.ones(4))
    assert set(out) == {"sum", "twice"}
    first = out["sum"]
    second = g(x=np.ones(4))["sum"]
    assert second is first  # Out(borrow=True): the next call wrote over the same array
    np.testing.assert_array_equal(second, [2, 2, 2, 2])
    np.testing.assert_array_equal(g.shared[0].get_value(), [2, 2, 2, 2])


@pytest.mark.parametrize("linker", ["py", "cvm_nogc"])
def test_the_linker_is_kept(linker):
    x = T.dmatrix("x")
    f = irc.function([x], T.tanh(x).sum(axis=1) * 2, mode=irc.Mode(linker=linker))
    g = pickle.loads(pickle.dumps(f))
    v = np.arange(6.0).reshape(2, 3) / 6
    np.testing.assert_array_equal(g(v), f(v))
    assert g.maker.reference == (linker == "py") and g.maker.allow_gc == (linker != "cvm_nogc")
    assert (g.maker.native is None) == (linker == "py")


def test_unpickle_function_false_loads_the_rest_without_the_function():
    f, w, _ = train_step()
    blob = pickle.dumps((f, w))
    with irc.config.change_flags(unpickle_function=False):
        g, w2 = pickle.loads(blob)
        assert copy.deepcopy(f) is not None  # a deep copy is no unpickling
    assert g is None
    np.testing.assert_array_equal(w2.get_value(), w.get_value())


def test_arrays_saved_apart_through_persistent_id():
    """Theano's test_broken_pickle_with_shared: a Pickler that keeps arrays out of the pickle."""
    saved = []
    y = irc.shared(np.random.RandomState(0).random_sample((5, 4)), name="y")
    x = T.dmatrix("x")
    f = irc.function([x], T.dot(x, y))

    class Saver(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, np.ndarray):
                saved.append(obj)
                return len(saved) - 1
            return None

    class Loader(pickle.Unpickler):
        def persistent_load(self, pid):
            return saved[pid]

    buffer = io.BytesIO()
    Saver(buffer, 2).dump(f)
    assert any(a is y.get_value(borrow=True) for a in saved)
    g = Loader(io.BytesIO(buffer.getvalue())).load()
    v = np.ones((2, 5))
    np.testing.assert_array_equal(g(v), f(v))


def test_loading_keeps_the_optimized_module_whatever_the_flags_say_now():
    """Theano's test_optimizations_preserved: no pipeline runs when a function is loaded."""
    x, W = T.dvector("x"), T.dmatrix("W")
    f = irc.function([x, W], T.tanh(T.dot(W, x) + 1) * 2)
    blob = pickle.dumps(f)
    with irc.config.change_flags(mode="FAST_COMPILE", optimizer_excluding="fusion"):
        g = pickle.loads(blob)
    assert g.maker.mode == "FAST_RUN" and g.ir("optimized") == f.ir("optimized")
    assert [str(n.op) for n in g.maker.fgraph.toposort()] == [str(n.op) for n in f.maker.fgraph.toposort()]


def test_stages_and_the_graph_view_come_back():
    f, _, _ = train_step()
    g = pickle.loads(pickle.dumps(f))
    assert g.ir("optimized") == f.ir("optimized")
    assert "define" in g.ir("llvm")  # rendered again for this machine
    assert [type(n.op).__name__ for n in g.maker.fgraph.toposort()] == \
        [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


def test_errors_keep_the_users_line_after_a_round_trip():
    x, y = T.dvector("x"), T.dvector("y")
    f = irc.function([x, y], x + y)
    g = pickle.loads(pickle.dumps(f))
    with pytest.raises(Exception, match="test_function_pickle.py"):
        g(np.ones(3), np.ones(4))


def programs():
    """(inputs, outputs, updates, arguments) of functions using each kind of lowering."""
    x, v, i, iv = T.dmatrix("x"), T.dvector("v"), T.lscalar("i"), T.lvector("iv")
    W = irc.shared(np.linspace(-1, 1, 12).reshape(3, 4), name="W")
    b = irc.shared(np.zeros(4), name="b")
    h = T.tanh(T.dot(x, W) + b)
    xs, vs = np.linspace(0, 1, 6).reshape(2, 3), np.array([3.0, -1.0, 2.0, 0.5])
    step = lambda a, acc: acc * a
    return {
        "mlp step": ([x], [T.nnet.softmax(h).sum()], {W: W - 0.1 * T.grad(h.sum(), W)}, [xs]),
        "indexing": ([v, i, iv], [v[i], v[iv], T.inc_subtensor(v[iv], 1.0), T.sort(v), T.cumsum(v)],
                     None, [vs, -1, np.array([0, 2, 2])]),
        "ifelse": ([v, i], [ifelse(T.gt(i, 0), v * 2, v + 1)], None, [vs, 1]),
        "scan": ([v], [irc.scan(step, sequences=v, outputs_info=T.constant(1.0, dtype="float64"))[0]],
                 None, [vs]),
        "reductions": ([x], [x.max(axis=0), x.argmax(axis=1), x.mean(), x.sum(axis=0)], None, [xs]),
    }


@pytest.mark.parametrize("name", list(programs()))
def test_every_kind_of_function_comes_back_with_the_same_code(name):
    ins, outs, updates, args = programs()[name]
    f = irc.function(ins, outs, updates=updates)
    g = pickle.loads(pickle.dumps(f))
    assert g.maker.native.stats.cache_hit  # the same loop IR: the same cache entry
    assert g.maker.native.loop_ir == f.maker.native.loop_ir
    for got, want in zip(g(*args), f(*args)):
        np.testing.assert_array_equal(got, want)
    for s, t in zip(g.shared, f.shared):
        np.testing.assert_array_equal(s.get_value(), t.get_value())


# ---------------------------------------------------------------------- pickle, a fresh process
SAVE = """
import pickle, sys
import numpy as np
import irc, irc.tensor as T
x = T.fmatrix("x")
w = irc.shared(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3), name="w")
h = T.tanh(T.dot(x, w))
f = irc.function([x], h.sum(), updates={w: w - 0.1 * T.grad(h.sum(), w)})
data = np.linspace(0, 1, 20, dtype="float32").reshape(5, 4)
want = [f(data) for _ in range(3)]
with open(sys.argv[1], "wb") as out:
    pickle.dump((f, data, want, w.get_value()), out)
"""

LOAD = """
import pickle, sys
import numpy as np
import irc.runtime.native as native
compiled = []
real = native.build_objects
native.build_objects = lambda *a, **k: compiled.append(1) or real(*a, **k)
with open(sys.argv[1], "rb") as f:
    fn, data, want, w_after = pickle.load(f)
w = fn.shared[0]
w.set_value(w_after)  # one more step from where the saving process stopped ...
got = fn(data)
assert fn.shared[0].get_value().shape == (4, 3)
print("LLVM", len(compiled))
print("OK", float(got))
"""


def run_python(code: str, *args: str, cache: Path) -> str:
    """`code` in a process of its own that has compiled nothing (forked_python.py) on `cache`."""
    proc = forked_python.run_python(textwrap.dedent(code), *args, env={"IRC_COMPILEDIR": str(cache)},
                                    timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_loading_in_a_fresh_process_takes_the_code_from_the_cache(tmp_path):
    path = tmp_path / "f.pkl"
    run_python(SAVE, str(path), cache=tmp_path / "cache")
    warm = run_python(LOAD, str(path), cache=tmp_path / "cache")
    assert "LLVM 0" in warm  # the object code came from the disk cache
    cold = run_python(LOAD, str(path), cache=tmp_path / "empty")
    assert "LLVM 1" in cold  # an empty cache: compiled again, same answer
    value = lambda out: out.split("OK ")[1].strip()
    assert value(warm) == value(cold)
    # ... and the answer is the saving process's fourth step
    with open(path, "rb") as f:
        fn, data, want, w_after = pickle.load(f)
    fn.shared[0].set_value(w_after)
    assert value(warm) == repr(float(fn(data)))


# ---------------------------------------------------------------------- deepcopy and copy
def test_deepcopy_is_independent():
    f, w, b = train_step()
    d = copy.deepcopy(f)
    d(ones())
    np.testing.assert_array_equal(w.get_value(), [0, 1, 2])
    np.testing.assert_array_equal(d.shared[0].get_value(), [-0.25, 0.75, 1.75])
    f(ones())
    np.testing.assert_array_equal(d.shared[0].get_value(), [-0.25, 0.75, 1.75])
    assert d.inputs[1].container.value == np.float32(0.25)


def test_deepcopy_of_a_model_keeps_its_functions_and_parameters_together():
    """The Deep Learning Tutorials' rnnslu keeps its best model with `copy.deepcopy(rnn)`."""
    class Model:
        def __init__(self):
            self.f, self.w, self.b = train_step()
            self.predict = irc.function([], self.w + self.b)

    model = Model()
    best = copy.deepcopy(model)
    best.f(ones(), 1.0)
    np.testing.assert_array_equal(best.w.get_value(), [-1, 0, 1])
    np.testing.assert_array_equal(best.predict(), [-0.5, 0.5, 1.5])
    np.testing.assert_array_equal(model.predict(), [0.5, 1.5, 2.5])
    assert best.f.shared[0] is best.w and best.predict.shared[1] is best.b


def test_copy_options_work_on_a_deep_copy():
    f, w, b = train_step()
    d = copy.deepcopy(f)
    frozen = d.copy(delete_updates=True)
    frozen(ones())
    np.testing.assert_array_equal(d.shared[0].get_value(), [0, 1, 2])
    other = irc.shared(np.full(3, 5, "float32"), name="other")
    swapped = d.copy(swap={d.shared[0]: other})
    swapped(ones(), 1.0)
    np.testing.assert_array_equal(other.get_value(), [4, 4, 4])
    np.testing.assert_array_equal(w.get_value(), [0, 1, 2])
    c = copy.copy(f)  # Theano's __copy__: f.copy(), sharing the shared variables
    c(ones(), 1.0)
    np.testing.assert_array_equal(w.get_value(), [-1, 0, 1])


def test_copy_of_an_unpickled_function():
    f, w, b = train_step()
    g = pickle.loads(pickle.dumps(f))
    other = irc.shared(np.zeros(3, "float32"), name="other")
    h = g.copy(swap={g.shared[0]: other}, name="swapped")
    h(ones(), 1.0)
    np.testing.assert_array_equal(other.get_value(), [-1, -1, -1])
    np.testing.assert_array_equal(g.shared[0].get_value(), [0, 1, 2])
    assert h.name == "swapped"
    shared_code = g.copy(share_memory=True)
    shared_code(ones(), 1.0)
    np.testing.assert_array_equal(g.shared[0].get_value(), [-1, 0, 1])
    frozen = g.copy(delete_updates=True)
    want = np.exp(np.array([-1, 0, 1], "float32")) + np.float32(0.5)
    for _ in range(2):
        (got,) = frozen(ones(), 1.0)   # a copy returns a list, as Theano's
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_array_equal(g.shared[0].get_value(), [-1, 0, 1])  # updates nothing
    assert frozen.updated == [] and "irc.update" not in frozen.ir("optimized")
    with pytest.raises(NotImplementedError, match="loaded from a pickle.*profile"):
        g.copy(profile=True)


# ---------------------------------------------------------------------- errors
class Unpicklable:
    """A user's object holding a lock: numpy reads it, pickle cannot."""

    def __init__(self):
        self.lock = threading.Lock()

    def __array__(self, dtype=None, copy=None):
        return np.zeros(3, dtype or "float64")


def test_an_input_default_is_held_as_its_array_so_it_pickles():
    """`In(value=obj)` keeps the value converted to the input's type (as Theano's container
    does), not the user's object: the function pickles even when that object would not."""
    x = T.dvector("x")
    f = irc.function([irc.In(x, value=Unpicklable())], x + 1, name="g")
    np.testing.assert_array_equal(f(), [1, 1, 1])
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(g(), [1, 1, 1])


def test_a_shared_variable_holding_a_users_object_is_named():
    w = irc.shared(np.ones(2), name="w")
    w.tag.callback = lambda: None
    f = irc.function([], w * 2)
    with pytest.raises(FunctionPicklingError, match=r"the .tag. attribute of shared variable w does not pickle .*lambda"):
        pickle.dumps(f)
    assert copy.deepcopy(f)() is not None  # deepcopy needs no pickle: it works


def test_an_input_holding_a_users_object_in_its_tag_is_named():
    x = T.dvector("x")
    x.tag.hook = threading.Lock()
    f = irc.function([x], x + 1)
    with pytest.raises(FunctionPicklingError, match=r"the 'tag' attribute of input 'x' \(#0\) does not pickle"):
        pickle.dumps(f)


def test_debugmode_comes_back_checking_against_the_unoptimized_function():
    x = T.dvector("x")
    f = irc.function([x], T.log(1 + T.exp(x)) * 2, mode="DebugMode")
    g, d = pickle.loads(pickle.dumps(f)), copy.deepcopy(f)
    v = np.linspace(-3, 3, 7)
    for h in (g, d):
        np.testing.assert_allclose(h(v), np.log1p(np.exp(v)) * 2, rtol=1e-12)
        assert h.maker.mode == "DebugMode" and type(h.executor).__name__ == "DebugExecutor"
        # a wrong optimized result is caught, named as the live function names it
        h.executor.checked.run = lambda args, hook=None: [np.zeros(7)]
        with pytest.raises(OutputMismatchError, match=r"output #0 .*differs after optimization"):
            h(v)


# ---------------------------------------------------------------------- a GPU function
class EmulatedExecutor:
    """The device function run by the CPU emulator (as in test_cuda_path_emulated.py)."""

    fresh_results = True
    constants: dict = {}

    def __init__(self, module):
        self.module, self.native = module, None

    def run(self, args, hook=None, outs=None):
        return run_function(self.module, [np.ascontiguousarray(a) for a in args])


def emulated_compile(module, func, config, profiling):
    try:
        placed, _ = device_module(module, "cuda")
    except HostOpsLeft as e:
        return run_on_cpu(module, func, config, profiling, e)
    return EmulatedExecutor(lower_for_gpu(placed)), None


def on_host(value):
    return value


@pytest.fixture
def emulated_gpu(monkeypatch):
    """A usable 'cuda' target whose kernels run in the emulator."""
    targets.resolve("cpu")
    stand_in = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda number: None,
                                   to_storage=on_host, compile=emulated_compile)
    monkeypatch.setitem(targets.TARGETS, "cuda", stand_in)
    monkeypatch.setattr(targets, "_fallback_warned", set())


def gpu_step():
    x = T.fvector("x")
    w = irc.shared(np.linspace(0, 1, 5, dtype="float32"), name="w")
    with irc.config.change_flags(device="cuda"):
        f = irc.function([x], T.exp(x) * w, updates={w: w * 2 + x})
    return f, w


def test_a_gpu_function_pickles_by_target_name_and_loads_on_the_gpu(emulated_gpu):
    f, w = gpu_step()
    assert f.maker.target.name == "cuda" and isinstance(f.executor, EmulatedExecutor)
    g, w2 = pickle.loads(pickle.dumps((f, w)))
    assert g.maker.target.name == "cuda" and isinstance(g.executor, EmulatedExecutor)
    x = np.linspace(-1, 1, 5, dtype="float32")
    want = f(x)
    np.testing.assert_allclose(g(x), want, rtol=1e-6)
    np.testing.assert_allclose(w2.get_value(), w.get_value(), rtol=1e-6)


def test_a_gpu_function_loads_on_the_cpu_where_no_gpu_is_usable(emulated_gpu, monkeypatch):
    f, w = gpu_step()
    blob = pickle.dumps((f, w))
    x = np.linspace(-1, 1, 5, dtype="float32")
    want, w_want = f(x), w.get_value()
    gone = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda n: "no GPU here")
    monkeypatch.setitem(targets.TARGETS, "cuda", gone)
    with pytest.warns(RuntimeWarning, match="device=cuda is not usable .no GPU here.") as caught:
        g, w2 = pickle.loads(blob)
    assert len([c for c in caught if "not usable" in str(c.message)]) == 1
    assert g.maker.target.name == "cpu" and g.maker.native is not None
    assert isinstance(w2.container.value, np.ndarray)
    np.testing.assert_allclose(g(x), want, rtol=1e-6)
    np.testing.assert_allclose(w2.get_value(), w_want, rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per device, as config.device's fallback
        pickle.loads(blob)
    with irc.config.change_flags(force_device=True):
        with pytest.raises(targets.DeviceUnavailable, match="no GPU here"):
            pickle.loads(blob)
