"""How an `ifelse` on the device should learn its condition: read back (Theano's way, and irc's
where a plan cannot keep both branches: the condition's kernel writes a flag, the host copies it
back, synchronizes and launches the taken branch) or a conditional graph node (CUDA 12.3+: a kernel calls `cudaGraphSetConditional`
and the graph's IF node runs its body or not, with no trip to the host).

Both are measured here with the same kernels, outside irc's pipeline: a flag kernel (`a < b`
on two device scalars) and a branch of one elementwise kernel over n float32 (y = x + x), for
a taken and an untaken branch, µs per call with a synchronization ending each call:
  readback        flag kernel, 1-byte copy to pinned memory, sync, branch launch, sync
  readback+graph  the same with the branch replayed as a one-node CUDA graph (irc's plans)
  conditional     one graph launch: [flag kernel setting the handle] -> IF {branch}, sync
and irc's own `ifelse` of the same branch over device-resident vectors (its default: the branch
decided by conditional nodes once the call is a graph), with its condition from two host
scalars passed per call (uploaded each call) and from two device shared variables.

Run on the GPU machine: `python tools/bench_gpu_conditional.py`. Kernels are PTX written here
(the setter's call of the device runtime is resolved when the module is loaded; where the
driver does not, the module is linked with libcudadevrt.a)."""
from __future__ import annotations

import ctypes
import glob
import os
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("IRC_FLAGS", "device=cuda,floatX=float32")

from bench_common import median_us  # noqa: E402  (this script's folder)
import irc  # noqa: E402
import irc.tensor as T  # noqa: E402
from irc.ifelse import ifelse  # noqa: E402
from irc.runtime.cuda.conditional_graph import (add_if_node, add_kernel_node, conditional_handle,  # noqa: E402
                                               declare_graph_calls)
from irc.runtime.cuda.driver import device  # noqa: E402
from irc.runtime.cuda.launch import check, driver  # noqa: E402
from irc.sandbox.cuda.basic_ops import gpu_from_host  # noqa: E402

PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);

.visible .entry flag_lt(.param .u64 a, .param .u64 b, .param .u64 flag)
{
    .reg .b64 %rd<7>;
    .reg .f32 %f<3>;
    .reg .pred %p<2>;
    .reg .b16 %rs<2>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [flag];
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    ld.global.f32 %f1, [%rd4];
    ld.global.f32 %f2, [%rd5];
    setp.lt.f32 %p1, %f1, %f2;
    selp.u16 %rs1, 1, 0, %p1;
    st.global.u8 [%rd6], %rs1;
    ret;
}

.visible .entry set_if_lt(.param .u64 handle, .param .u64 a, .param .u64 b)
{
    .reg .b64 %rd<6>;
    .reg .f32 %f<3>;
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [handle];
    ld.param.u64 %rd2, [a];
    ld.param.u64 %rd3, [b];
    cvta.to.global.u64 %rd4, %rd2;
    cvta.to.global.u64 %rd5, %rd3;
    ld.global.f32 %f1, [%rd4];
    ld.global.f32 %f2, [%rd5];
    setp.lt.f32 %p1, %f1, %f2;
    selp.u32 %r1, 1, 0, %p1;
    {
        .param .b64 param0;
        st.param.b64 [param0], %rd1;
        .param .b32 param1;
        st.param.b32 [param1], %r1;
        call.uni cudaGraphSetConditional, (param0, param1);
    }
    ret;
}

.visible .entry twice(.param .u64 x, .param .u64 y, .param .u32 n)
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f1, [%rd6];
    add.f32 %f2, %f1, %f1;
    st.global.f32 [%rd7], %f2;
DONE:
    ret;
}
"""

CU_JIT_INPUT_PTX, CU_JIT_INPUT_LIBRARY = 1, 4
BLOCK = 256


def load_module(cu) -> ctypes.c_void_p:
    """The PTX loaded as it is, or, where the driver leaves the device-runtime call
    unresolved, linked with libcudadevrt.a first."""
    module = ctypes.c_void_p()
    code = cu.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(PTX.encode() + b"\0"))
    if code == 0:
        print("conditional setter: resolved by the driver at load (no link step)")
        return module
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    candidates = glob.glob(str(Path(ptxas).resolve().parent.parent / "lib*" / "libcudadevrt.a")) + \
        glob.glob("/usr/local/cuda*/targets/*/lib/libcudadevrt.a")
    if not candidates:
        raise RuntimeError(f"loading the PTX failed (CUresult {code}) and no libcudadevrt.a was found")
    state, cubin, size = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_size_t()
    cu.cuLinkCreate_v2.argtypes = [ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    cu.cuLinkAddData_v2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                    ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
    cu.cuLinkAddFile_v2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p,
                                    ctypes.c_void_p]
    cu.cuLinkComplete.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    check(cu.cuLinkCreate_v2(0, None, None, ctypes.byref(state)), "cuLinkCreate")
    data = PTX.encode()
    check(cu.cuLinkAddData_v2(state, CU_JIT_INPUT_PTX, ctypes.c_char_p(data), ctypes.c_size_t(len(data)),
                              b"bench", 0, None, None), "cuLinkAddData")
    check(cu.cuLinkAddFile_v2(state, CU_JIT_INPUT_LIBRARY, candidates[0].encode(), 0, None, None), "cuLinkAddFile")
    check(cu.cuLinkComplete(state, ctypes.byref(cubin), ctypes.byref(size)), "cuLinkComplete")
    check(cu.cuModuleLoadData(ctypes.byref(module), ctypes.cast(cubin, ctypes.c_char_p)), "loading the linked cubin")
    cu.cuLinkDestroy(state)
    print(f"conditional setter: linked with {candidates[0]}")
    return module


class Args:
    """A kernel's argument array for cuLaunchKernel / a kernel node (values kept alive)."""

    def __init__(self, *values):
        self.values = values
        self.array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])


def launch(cu, fn, grid: int, args: Args, stream) -> None:
    check(cu.cuLaunchKernel(fn, grid, 1, 1, BLOCK if grid > 1 else 1, 1, 1, 0, stream,
                            ctypes.cast(args.array, ctypes.c_void_p), None), "cuLaunchKernel")


def kernel_node(graph, fn, grid: int, args: Args):
    return add_kernel_node(graph, [], fn, grid, BLOCK if grid > 1 else 1, args.values)


def instantiate(cu, graph) -> ctypes.c_void_p:
    exec_ = ctypes.c_void_p()
    check(cu.cuGraphInstantiateWithFlags(ctypes.byref(exec_), graph, 0), "cuGraphInstantiate")
    return exec_


def per_call_us(fn) -> float:
    """Median µs per call (each call ends with its own synchronization)."""
    return median_us(fn, 7, 300, warmup=20)


def main() -> None:
    dev = device()
    cu = driver()
    declare_graph_calls(cu)
    module = load_module(cu)
    fns = {}
    for name in ("flag_lt", "set_if_lt", "twice"):
        fn = ctypes.c_void_p()
        check(cu.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()), name)
        fns[name] = fn
    stream = ctypes.c_void_p(dev.stream.handle)
    ctx = ctypes.c_void_p()
    check(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    drv = dev.drv
    pinned = drv.pagelocked_empty(1, np.uint8)
    sync = lambda: check(cu.cuStreamSynchronize(stream), "sync")  # noqa: E731
    print(f"machine: {dev.name} ({dev.arch})")
    print(f"{'n':>10} {'branch':>8} {'readback':>10} {'rb+graph':>10} {'conditional':>12} {'irc ifelse':>11} "
          f"{'irc, on dev':>12}  (µs per call)")
    for n in (1 << 10, 1 << 20, 1 << 24):
        x = drv.mem_alloc(4 * n)
        y = drv.mem_alloc(4 * n)
        drv.memcpy_htod(x, np.arange(n, dtype=np.float32))
        flag = drv.mem_alloc(1)
        grid = (n + BLOCK - 1) // BLOCK
        branch_args = Args(ctypes.c_uint64(int(x)), ctypes.c_uint64(int(y)), ctypes.c_uint32(n))
        branch_graph = ctypes.c_void_p()
        check(cu.cuGraphCreate(ctypes.byref(branch_graph), 0), "cuGraphCreate")
        kernel_node(branch_graph, fns["twice"], grid, branch_args)
        branch_exec = instantiate(cu, branch_graph)
        xs = irc.shared(np.arange(n, dtype=np.float32), name="x")
        zs = irc.shared(np.zeros(n, np.float32), name="z")
        sa, sb = T.fscalar("a"), T.fscalar("b")
        f_irc = irc.function([sa, sb], irc.Out(gpu_from_host(ifelse(T.lt(sa, sb), xs + xs, zs * 1)), borrow=True))
        da, db = irc.shared(np.float32(0), name="a"), irc.shared(np.float32(1), name="b")
        f_dev = irc.function([], irc.Out(gpu_from_host(ifelse(T.lt(da, db), xs + xs, zs * 1)), borrow=True))
        for taken in (True, False):
            a = drv.mem_alloc(4)
            b = drv.mem_alloc(4)
            drv.memcpy_htod(a, np.float32(0.0 if taken else 1.0))
            drv.memcpy_htod(b, np.float32(1.0 if taken else 0.0))
            flag_args = Args(ctypes.c_uint64(int(a)), ctypes.c_uint64(int(b)), ctypes.c_uint64(int(flag)))

            def readback(graph: bool) -> None:
                launch(cu, fns["flag_lt"], 1, flag_args, stream)
                check(cu.cuMemcpyDtoHAsync_v2(ctypes.c_void_p(pinned.ctypes.data), ctypes.c_void_p(int(flag)),
                                              ctypes.c_size_t(1), stream), "copy back")
                sync()
                if pinned[0]:
                    if graph:
                        check(cu.cuGraphLaunch(branch_exec, stream), "cuGraphLaunch")
                    else:
                        launch(cu, fns["twice"], grid, branch_args, stream)
                sync()

            graph = ctypes.c_void_p()
            check(cu.cuGraphCreate(ctypes.byref(graph), 0), "cuGraphCreate")
            handle = conditional_handle(graph, ctx)
            set_args = Args(ctypes.c_uint64(handle), ctypes.c_uint64(int(a)), ctypes.c_uint64(int(b)))
            setter = add_kernel_node(graph, [], fns["set_if_lt"], 1, 1, set_args.values)
            _, body = add_if_node(graph, [setter], handle, ctx)
            kernel_node(body, fns["twice"], grid, branch_args)
            cond_exec = instantiate(cu, graph)

            def conditional() -> None:
                check(cu.cuGraphLaunch(cond_exec, stream), "cuGraphLaunch")
                sync()

            for run in (lambda: readback(False), lambda: readback(True), conditional):
                drv.memset_d32(y, 0, n)
                run()
                got = np.empty(4, np.float32)
                drv.memcpy_dtoh(got, y)
                want = 2 * np.arange(4, dtype=np.float32) if taken else np.zeros(4, np.float32)
                assert np.array_equal(got, want), (run, taken, got)
            av, bv = (np.float32(0), np.float32(1)) if taken else (np.float32(1), np.float32(0))
            da.set_value(av)
            db.set_value(bv)
            want = 2 * np.arange(4) if taken else np.zeros(4)
            for mine in (f_irc(av, bv), f_dev()):
                assert np.array_equal(np.asarray(mine)[:4], want)
            times = [per_call_us(lambda: readback(False)), per_call_us(lambda: readback(True)),
                     per_call_us(conditional), per_call_us(lambda: (f_irc(av, bv), dev.synchronize())),
                     per_call_us(lambda: (f_dev(), dev.synchronize()))]
            print(f"{n:>10} {'taken' if taken else 'skipped':>8} {times[0]:>10.2f} {times[1]:>10.2f} "
                  f"{times[2]:>12.2f} {times[3]:>11.2f} {times[4]:>12.2f}")
            cu.cuGraphExecDestroy(cond_exec)
            cu.cuGraphDestroy(graph)
        cu.cuGraphExecDestroy(branch_exec)
        cu.cuGraphDestroy(branch_graph)


if __name__ == "__main__":
    main()
