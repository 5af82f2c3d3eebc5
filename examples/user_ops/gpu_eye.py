"""The "Extending Theano with a GPU Op" page's `GpuEye`, written for irc: one CUDA kernel
compiled with PyCUDA, the output allocated from irc's pool, the sizes read on the host
(`host_inputs`), float16 stored with float32 arithmetic (`_f16_ok`). Needs a GPU (device=cuda).
Run: IRC_FLAGS=device=cuda python examples/user_ops/gpu_eye.py"""
import numpy

import irc
import irc.misc.pycuda_init  # noqa: F401
import irc.sandbox.cuda as cuda
import irc.tensor as T
from pycuda.compiler import SourceModule

CTYPES = {"float16": "__half", "float32": "float", "float64": "double"}


class GpuEye(irc.Op):
    """eye(n, m, k) on the GPU."""

    __props__ = ("dtype",)
    _f16_ok = True
    host_inputs = (0, 1, 2)  # n, m, k: the launch reads them on the host

    def __init__(self, dtype=None):
        self.dtype = dtype or irc.config.floatX

    def make_node(self, n, m, k):
        n, m, k = (T.as_tensor_variable(v) for v in (n, m, k))
        assert n.ndim == m.ndim == k.ndim == 0
        return irc.Apply(self, [n, m, k], [T.TensorType(self.dtype, (False, False))()])

    def grad(self, inputs, output_grads):
        return [None, None, None]

    def make_thunk(self, node, storage_map, _, _2):
        ctype = CTYPES[self.dtype]
        one = "__float2half(1.0f)" if self.dtype == "float16" else "1"
        mod = SourceModule("""
#include <cuda_fp16.h>
extern "C" __global__ void eye(%(ctype)s *a, long n, long m, long k) {
    long coff = k > 0 ? k : 0, roff = k < 0 ? -k : 0;
    long nb = min(n - roff, m - coff);
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nb; i += (long)gridDim.x * blockDim.x)
        a[(i + roff) * m + i + coff] = %(one)s;
}""" % dict(ctype=ctype, one=one), no_extern_c=True)
        eye = mod.get_function("eye")
        (n, m, k), (z,) = [storage_map[v] for v in node.inputs], [storage_map[v] for v in node.outputs]

        def thunk():
            rows, cols, diag = int(n[0]), int(m[0]), int(k[0])
            z[0] = cuda.zeros((rows, cols), self.dtype)
            if min(rows - max(-diag, 0), cols - max(diag, 0)) > 0:
                eye(z[0], numpy.int64(rows), numpy.int64(cols), numpy.int64(diag), block=(256, 1, 1), grid=(16, 1))
        return thunk


if __name__ == "__main__":
    n, m, k = T.lscalar("n"), T.lscalar("m"), T.lscalar("k")
    for dtype in ("float32", "float16", "float64"):
        f = irc.function([n, m, k], GpuEye(dtype)(n, m, k))
        for args in ((3, 3, 0), (4, 6, 1), (5, 3, -2), (2, 2, 5)):
            got = numpy.asarray(f(*args))
            assert got.dtype == dtype and numpy.array_equal(got, numpy.eye(*args, dtype=dtype)), (dtype, args)
        print(dtype, numpy.asarray(f(3, 4, 1)).tolist())
    print("GpuEye agrees with numpy.eye")
