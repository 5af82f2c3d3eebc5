"""The tutorial's `PyCUDADoubleOp` (a PyCUDA kernel in an op's `make_thunk`) and its exercises:
an op of two inputs (x * y), an op of two outputs (x + y, x - y; compared with irc's
multi-output fusion of the plain expressions) and a kernel that honours its input's strides.
Needs a GPU (device=cuda). Run: IRC_FLAGS=device=cuda python examples/user_ops/pycuda_double_op.py"""
import numpy

import irc
import irc.misc.pycuda_init  # noqa: F401  (PyCUDA on irc's context)
import irc.sandbox.cuda as cuda
import irc.tensor as T
from pycuda.compiler import SourceModule


class PyCUDADoubleOp(irc.Op):
    __props__ = ()

    def make_node(self, inp):
        inp = cuda.basic_ops.gpu_contiguous(cuda.basic_ops.as_cuda_ndarray_variable(inp))
        assert inp.dtype == "float32"
        return irc.Apply(self, [inp], [inp.type()])

    def make_thunk(self, node, storage_map, _, _2):
        mod = SourceModule("""
    __global__ void my_fct(float * i0, float * o0, int size) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if(i<size){
        o0[i] = i0[i]*2;
    }
  }""")
        pycuda_fct = mod.get_function("my_fct")
        inputs = [storage_map[v] for v in node.inputs]
        outputs = [storage_map[v] for v in node.outputs]

        def thunk():
            z = outputs[0]
            if z[0] is None or z[0].shape != inputs[0][0].shape:
                z[0] = cuda.CudaNdarray.zeros(inputs[0][0].shape)
            grid = (int(numpy.ceil(inputs[0][0].size / 512.)), 1)
            pycuda_fct(inputs[0][0], z[0], numpy.intc(inputs[0][0].size),
                       block=(512, 1, 1), grid=grid)
        return thunk


class PyCUDAMulOp(irc.Op):
    """Exercise: x * y."""

    __props__ = ()

    def make_node(self, x, y):
        x = cuda.basic_ops.as_cuda_ndarray_variable(x)
        y = cuda.basic_ops.as_cuda_ndarray_variable(y)
        return irc.Apply(self, [x, y], [x.type()])

    def make_thunk(self, node, storage_map, _, _2):
        fct = SourceModule("""
    __global__ void mul(const float * a, const float * b, float * o, int size) {
      int i = blockIdx.x*blockDim.x + threadIdx.x;
      if (i < size) o[i] = a[i] * b[i];
    }""").get_function("mul")
        (a, b), (z,) = [storage_map[v] for v in node.inputs], [storage_map[v] for v in node.outputs]

        def thunk():
            if a[0].shape != b[0].shape:
                raise ValueError(f"PyCUDAMulOp needs equal shapes, got {a[0].shape} and {b[0].shape}")
            z[0] = cuda.empty(a[0].shape, "float32")
            fct(a[0], b[0], z[0], numpy.intc(a[0].size), block=(256, 1, 1), grid=((a[0].size + 255) // 256, 1))
        return thunk


class PyCUDAAddSubOp(irc.Op):
    """Exercise: two outputs, x + y and x - y, from one kernel."""

    __props__ = ()

    def make_node(self, x, y):
        x = cuda.basic_ops.as_cuda_ndarray_variable(x)
        y = cuda.basic_ops.as_cuda_ndarray_variable(y)
        return irc.Apply(self, [x, y], [x.type(), x.type()])

    def make_thunk(self, node, storage_map, _, _2):
        fct = SourceModule("""
    __global__ void addsub(const float * a, const float * b, float * s, float * d, int size) {
      int i = blockIdx.x*blockDim.x + threadIdx.x;
      if (i < size) { s[i] = a[i] + b[i]; d[i] = a[i] - b[i]; }
    }""").get_function("addsub")
        a, b = [storage_map[v] for v in node.inputs]
        s, d = [storage_map[v] for v in node.outputs]

        def thunk():
            s[0] = cuda.empty(a[0].shape, "float32")
            d[0] = cuda.empty(a[0].shape, "float32")
            fct(a[0], b[0], s[0], d[0], numpy.intc(a[0].size), block=(256, 1, 1),
                grid=((a[0].size + 255) // 256, 1))
        return thunk


class PyCUDAStridedDoubleOp(PyCUDADoubleOp):
    """Exercise: a kernel that reads its (2-d) input through its strides, so a strided device
    array needs no copy. (irc hands its own device values over dense; a strided GPUArray view
    given to the thunk directly works too.)"""

    def make_thunk(self, node, storage_map, _, _2):
        fct = SourceModule("""
    __global__ void double_strided(const float * x, long s0, long s1, long n1, float * o, long size) {
      long i = blockIdx.x*(long)blockDim.x + threadIdx.x;
      if (i < size) o[i] = 2 * x[(i / n1) * s0 + (i % n1) * s1];
    }""").get_function("double_strided")
        (x,), (z,) = [storage_map[v] for v in node.inputs], [storage_map[v] for v in node.outputs]

        def thunk():
            v = x[0]
            item = v.dtype.itemsize
            z[0] = cuda.empty(v.shape, "float32")
            fct(v.gpudata, numpy.int64(v.strides[0] // item), numpy.int64(v.strides[1] // item),
                numpy.int64(v.shape[1]), z[0], numpy.int64(v.size), block=(256, 1, 1),
                grid=((v.size + 255) // 256, 1))
        return thunk


if __name__ == "__main__":
    x = T.fmatrix()
    f = irc.function([x], PyCUDADoubleOp()(x))
    xv = numpy.ones((4, 5), dtype="float32")
    assert numpy.allclose(f(xv), xv * 2)
    print(numpy.asarray(f(xv)))

    y = T.fmatrix()
    rng = numpy.random.RandomState(0)
    a, b = rng.rand(20, 10).astype("float32"), rng.rand(20, 10).astype("float32")
    mul = irc.function([x, y], PyCUDAMulOp()(x, y))
    assert numpy.allclose(mul(a, b), a * b)
    s, d = PyCUDAAddSubOp()(x, y)
    addsub = irc.function([x, y], [s, d])
    got_s, got_d = addsub(a, b)
    assert numpy.allclose(got_s, a + b) and numpy.allclose(got_d, a - b)
    print("two outputs from one kernel:", addsub.maker.fgraph.toposort())
    fused = irc.function([x, y], [x + y, x - y])
    print("irc's multi-output fusion of x + y, x - y:", fused.maker.fgraph.toposort())
    strided = irc.function([x], PyCUDAStridedDoubleOp()(x.T))
    assert numpy.allclose(strided(a), 2 * a.T)
    print("all PyCUDA ops agree with numpy")
