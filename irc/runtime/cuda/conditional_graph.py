"""CUDA graphs whose `ifelse` branches are decided on the device: conditional nodes.

A plan recorded with its branches kept whole (`host_plan.Branch`) replays as one graph: the
launches before a branch, then a small kernel that reads the branch's flag (the condition a
kernel computed) and sets two conditional handles with `cudaGraphSetConditional` (one true,
one false), then two IF nodes holding the then- and the else-branch's launches, then what
follows. No copy back and no synchronization: measured on an H100 with the same kernels
(`tools/bench_gpu_conditional.py`), a branch decided this way costs about 12 µs less per call
than one whose condition is read back. Stretches between branches are captured as usual
(stream capture) and added as child graphs, so cuBLAS calls keep working inside them.

The setter's call of the device runtime is resolved by the driver when its PTX is loaded (no
link step: checked on the H100 machines, CUDA 13). Conditional nodes need CUDA 12.3; where the
driver refuses them, building fails with a `CudaError` and the plan's graph cache gives up on
graphs for that plan (its calls then read the flag back)."""
from __future__ import annotations

import ctypes
from typing import Any, Sequence

from .launch import KernelModule, capture_launches, check, driver

SETTER_PTX = r"""
.version 8.0
.target sm_50
.address_size 64

.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);

.visible .entry irc_set_branch(.param .u64 then_handle, .param .u64 else_handle, .param .u64 flag)
{
    .reg .b64 %rd<5>;
    .reg .b16 %rs<2>;
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u64 %rd1, [then_handle];
    ld.param.u64 %rd2, [else_handle];
    ld.param.u64 %rd3, [flag];
    cvta.to.global.u64 %rd4, %rd3;
    ld.global.u8 %rs1, [%rd4];
    setp.ne.u16 %p1, %rs1, 0;
    selp.u32 %r1, 1, 0, %p1;
    selp.u32 %r2, 0, 1, %p1;
    {
        .param .b64 param0;
        st.param.b64 [param0], %rd1;
        .param .b32 param1;
        st.param.b32 [param1], %r1;
        call.uni cudaGraphSetConditional, (param0, param1);
    }
    {
        .param .b64 param0;
        st.param.b64 [param0], %rd2;
        .param .b32 param1;
        st.param.b32 [param1], %r2;
        call.uni cudaGraphSetConditional, (param0, param1);
    }
    ret;
}
"""

CU_GRAPH_NODE_TYPE_CONDITIONAL = 13
CU_GRAPH_COND_TYPE_IF = 0


class KernelNodeParams(ctypes.Structure):
    """CUDA_KERNEL_NODE_PARAMS (the first version, which `cuGraphAddKernelNode` takes)."""

    _fields_ = [("func", ctypes.c_void_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared_bytes", ctypes.c_uint), ("params", ctypes.c_void_p), ("extra", ctypes.c_void_p)]


class ConditionalParams(ctypes.Structure):
    """CUDA_CONDITIONAL_NODE_PARAMS; the driver points `bodies` at its array of body graphs."""

    _fields_ = [("handle", ctypes.c_uint64), ("type", ctypes.c_int), ("size", ctypes.c_uint),
                ("bodies", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class NodeParams(ctypes.Structure):
    """CUgraphNodeParams: the node type, then a 232-byte union; 256 bytes."""

    _fields_ = [("type", ctypes.c_int), ("reserved0", ctypes.c_int * 3), ("conditional", ConditionalParams),
                ("pad", ctypes.c_byte * (232 - ctypes.sizeof(ConditionalParams))), ("reserved2", ctypes.c_longlong)]


class PreparedBranch:
    """A `host_plan.Branch` bound to the loaded kernels: its flag's address (patched per call)
    and the prepared launches of each branch. Launched directly, it reads the flag back into
    `host_flag` (pinned memory), synchronizes and launches the taken list; in a graph it
    becomes conditional nodes (`build_graph`)."""

    name = "ifelse"
    args = ()

    def __init__(self, location: Any, flag_patch: tuple[int, int], then: list, otherwise: list,
                 host_flag: Any, stream_handle: int):
        self.location = location
        self.buffer = ctypes.create_string_buffer(8)
        self.flag = ctypes.c_uint64.from_buffer(self.buffer, 0)
        self.then, self.otherwise = then, otherwise
        self.launcher = self
        self.capturable = all(getattr(x.launcher, "capturable", True) for x in (*then, *otherwise))
        slot, byte_offset = flag_patch
        self.patches = [(self.flag, slot, byte_offset)] + [p for x in (*then, *otherwise) for p in x.patches]
        self.host_flag = host_flag
        self.stream = ctypes.c_void_p(stream_handle)

    def taken(self) -> list:
        """The flag read back (one copy, one synchronization): the launches to run."""
        cu = driver()
        check(cu.cuMemcpyDtoHAsync_v2(self.host_flag.ctypes.data, self.flag.value, 1, self.stream),
              "reading a branch's condition back")
        check(cu.cuStreamSynchronize(self.stream), "waiting for a branch's condition")
        return self.then if self.host_flag[0] else self.otherwise

    def launch(self) -> int:
        for x in self.taken():
            code = x.launcher.launch(*x.launcher.args)
            if code:
                return code
        return 0


_SETTER: list = []  # (module, function), loaded on first use


def _setter() -> ctypes.c_void_p:
    if not _SETTER:
        module = KernelModule(SETTER_PTX)
        _SETTER.append((module, module.function("irc_set_branch")))
    return _SETTER[0][1]


def _add_child(graph: ctypes.c_void_p, deps: list, launchers: Sequence[Any], stream_handle: int) -> list:
    """`launchers` captured and added to `graph` after `deps`, as one child-graph node."""
    cu = driver()
    child = capture_launches(launchers, stream_handle)
    node = ctypes.c_void_p()
    try:
        check(cu.cuGraphAddChildGraphNode(ctypes.byref(node), graph, deps_array(deps), len(deps), child),
              "adding a child graph node")
    finally:
        cu.cuGraphDestroy(child)
    return [node]


def deps_array(deps: list) -> Any:
    return (ctypes.c_void_p * len(deps))(*deps) if deps else None


def add_kernel_node(graph: ctypes.c_void_p, deps: list, function: ctypes.c_void_p, grid: int, block: int,
                    values: Sequence[Any]) -> ctypes.c_void_p:
    """A kernel node of `function` with argument `values` (ctypes scalars, copied by the driver)."""
    pointers = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
    params = KernelNodeParams(function, (grid, 1, 1), (block, 1, 1), 0, ctypes.cast(pointers, ctypes.c_void_p), None)
    node = ctypes.c_void_p()
    check(driver().cuGraphAddKernelNode(ctypes.byref(node), graph, deps_array(deps), len(deps), ctypes.byref(params)),
          "adding a kernel node")
    return node


def add_if_node(graph: ctypes.c_void_p, deps: list, handle: int, ctx: ctypes.c_void_p) -> tuple:
    """An IF node on conditional `handle` after `deps`: (the node, its body graph to fill)."""
    node = ctypes.c_void_p()
    cond = NodeParams()
    cond.type = CU_GRAPH_NODE_TYPE_CONDITIONAL
    cond.conditional = ConditionalParams(handle, CU_GRAPH_COND_TYPE_IF, 1, None, ctx)
    check(driver().cuGraphAddNode(ctypes.byref(node), graph, deps_array(deps), len(deps), ctypes.byref(cond)),
          "adding a conditional node")
    body = ctypes.c_void_p(ctypes.cast(cond.conditional.bodies, ctypes.POINTER(ctypes.c_void_p))[0])
    return node, body


def conditional_handle(graph: ctypes.c_void_p, ctx: ctypes.c_void_p) -> int:
    handle = ctypes.c_uint64()
    check(driver().cuGraphConditionalHandleCreate(ctypes.byref(handle), graph, ctx, 0, 0),
          "creating a conditional handle")
    return handle.value


def _add_branch(graph: ctypes.c_void_p, deps: list, branch: PreparedBranch, stream_handle: int,
                ctx: ctypes.c_void_p) -> list:
    """The setter kernel after `deps`, then one IF node per branch; the IF nodes (what comes
    next depends on them)."""
    handles = [conditional_handle(graph, ctx) for _ in range(2)]
    values = [ctypes.c_uint64(handles[0]), ctypes.c_uint64(handles[1]), ctypes.c_uint64(branch.flag.value)]
    setter = add_kernel_node(graph, deps, _setter(), 1, 1, values)
    nodes = []
    for handle, launches in zip(handles, (branch.then, branch.otherwise)):
        node, body = add_if_node(graph, [setter], handle, ctx)
        if launches:
            _add_child(body, [], [x.launcher for x in launches], stream_handle)
        nodes.append(node)
    return nodes


def build_graph(launchers: Sequence[Any], stream_handle: int) -> ctypes.c_void_p:
    """One CUDA graph of a plan's launchers, its `PreparedBranch`es as conditional nodes (their
    launches patched already); the caller instantiates and destroys it."""
    cu = driver()
    declare_graph_calls(cu)
    ctx = ctypes.c_void_p()
    check(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "reading the current context")
    graph = ctypes.c_void_p()
    check(cu.cuGraphCreate(ctypes.byref(graph), 0), "creating a CUDA graph")
    try:
        deps: list = []
        stretch: list = []
        for launcher in [*launchers, None]:
            if isinstance(launcher, PreparedBranch) or launcher is None:
                if stretch:
                    deps = _add_child(graph, deps, stretch, stream_handle)
                    stretch = []
                if launcher is not None:
                    deps = _add_branch(graph, deps, launcher, stream_handle, ctx)
            else:
                stretch.append(launcher)
    except Exception:
        cu.cuGraphDestroy(graph)
        raise
    return graph


def declare_graph_calls(cu: ctypes.CDLL) -> None:
    """The argument types of the graph-building driver calls (once)."""
    if getattr(cu, "_irc_conditional", False):
        return
    p = ctypes.c_void_p
    cu.cuGraphCreate.argtypes = [p, ctypes.c_uint]
    cu.cuCtxGetCurrent.argtypes = [p]
    cu.cuGraphConditionalHandleCreate.argtypes = [p, p, p, ctypes.c_uint, ctypes.c_uint]
    cu.cuGraphAddKernelNode.argtypes = [p, p, p, ctypes.c_size_t, p]
    cu.cuGraphAddNode.argtypes = [p, p, p, ctypes.c_size_t, p]
    cu.cuGraphAddChildGraphNode.argtypes = [p, p, p, ctypes.c_size_t, p]
    cu._irc_conditional = True
