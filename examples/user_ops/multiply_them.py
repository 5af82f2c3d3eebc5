"""The PyCUDA page's `multiply_them`, on a (20, 10) matrix (its exercise), in irc's context.

Only the first import changed: `irc.misc.pycuda_init` instead of `pycuda.autoinit`, so the
kernel runs in the context irc's own kernels use. Needs a GPU.
Run: python examples/user_ops/multiply_them.py"""
import irc.misc.pycuda_init  # noqa: F401  (instead of pycuda.autoinit)
import pycuda.driver as drv
import numpy

from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dest[i] = a[i] * b[i];
}
""")

multiply_them = mod.get_function("multiply_them")

a = numpy.random.randn(20, 10).astype(numpy.float32)
b = numpy.random.randn(20, 10).astype(numpy.float32)

dest = numpy.zeros_like(a)
multiply_them(
        drv.Out(dest), drv.In(a), drv.In(b), numpy.int32(a.size),
        block=(128, 1, 1), grid=((a.size + 127) // 128, 1))

assert numpy.allclose(dest, a * b)
print(dest)
