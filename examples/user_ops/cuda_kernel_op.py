"""irc's declarative GPU op, `irc.CudaKernelOp`: the kernel (CUDA C or PTX), how to launch it
and the outputs' types and shapes, and no `make_thunk`. Three ops: y = a*x + b (CUDA C, props),
row sums of a matrix (an output of another shape, a grid over the rows) and a doubling kernel
written in PTX (no nvcc needed). Needs a GPU (device=cuda); CUDA C needs nvcc.
Run: IRC_FLAGS=device=cuda python examples/user_ops/cuda_kernel_op.py"""
import numpy

import irc
import irc.tensor as T


class Axpb(irc.CudaKernelOp):
    """y = a * x + b, elementwise, float32."""

    __props__ = ("a", "b")
    input_dtypes = ("float32",)
    kernel_name = "axpb"
    source = """
__global__ void axpb(const float *x, float *y, float a, float b, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}"""

    def __init__(self, a, b):
        self.a, self.b = float(a), float(b)

    def kernel_args(self, shapes):  # after the pointers: x, then y
        return numpy.float32(self.a), numpy.float32(self.b), numpy.int64(shapes.size)


class RowSums(irc.CudaKernelOp):
    """The sums of a matrix's rows: one thread a row."""

    input_dtypes = ("float32",)
    kernel_name = "row_sums"
    source = """
__global__ void row_sums(const float *x, float *s, long rows, long cols) {
    long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0;
        for (long c = 0; c < cols; ++c) acc += x[r * cols + c];
        s[r] = acc;
    }
}"""

    def output_types(self, input_types):
        return [T.TensorType("float32", (False,))]

    def infer_shape(self, node, input_shapes):
        return [(input_shapes[0][0],)]

    def grid(self, shapes):
        return ((shapes.inputs[0][0] + 127) // 128, 1)

    def block(self, shapes):
        return (128, 1, 1)

    def kernel_args(self, shapes):
        rows, cols = shapes.inputs[0]
        return numpy.int64(rows), numpy.int64(cols)


class DoublePtx(irc.CudaKernelOp):
    """y = 2 * x, float32, the kernel written in PTX (the driver compiles it: no nvcc)."""

    input_dtypes = ("float32",)
    kernel_name = "double_it"
    ptx = """
.version 7.0
.target sm_52
.address_size 64

.visible .entry double_it(.param .u64 x, .param .u64 y, .param .u64 n)
{
    .reg .pred %p<2>;
    .reg .f32 %f<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u64 %rd3, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd6, %rd4, %rd5;
    setp.ge.u64 %p1, %rd6, %rd3;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd7, %rd1;
    cvta.to.global.u64 %rd8, %rd2;
    shl.b64 %rd9, %rd6, 2;
    add.s64 %rd10, %rd7, %rd9;
    ld.global.f32 %f1, [%rd10];
    add.f32 %f2, %f1, %f1;
    add.s64 %rd11, %rd8, %rd9;
    st.global.f32 [%rd11], %f2;
DONE:
    ret;
}
"""


if __name__ == "__main__":
    x, m = T.fvector("x"), T.fmatrix("m")
    rng = numpy.random.RandomState(0)
    xv, mv = rng.rand(1000).astype("float32"), rng.rand(20, 10).astype("float32")
    f = irc.function([x], T.exp(Axpb(2, 1)(x)))
    assert numpy.allclose(f(xv), numpy.exp(2 * xv + 1), rtol=1e-5)
    g = irc.function([m], RowSums()(m * 2))
    assert numpy.allclose(g(mv), (mv * 2).sum(axis=1), rtol=1e-5)
    print("row sums of a (20, 10) matrix:", numpy.asarray(g(mv))[:3], "...")
    h = irc.function([x], DoublePtx()(x) + 1)
    assert numpy.allclose(h(xv), 2 * xv + 1, rtol=1e-6)
    print("CudaKernelOp examples agree with numpy")
