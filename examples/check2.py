"""The tutorial's check1 with the result left on the device (`gpu_from_host`); only the
imports and prints changed.

Run: IRC_FLAGS=mode=FAST_RUN,device=cuda,floatX=float32 python examples/check2.py
`IRC_EXAMPLE_ITERS` lowers the iteration count (the tests use it)."""
import os
import time

import numpy

from irc import function, config, shared, sandbox
import irc.tensor as T

vlen = 10 * 30 * 768  # 10 x #cores x # threads per core
iters = int(os.environ.get("IRC_EXAMPLE_ITERS", 1000))

rng = numpy.random.RandomState(22)
x = shared(numpy.asarray(rng.rand(vlen), config.floatX))
f = function([], sandbox.cuda.basic_ops.gpu_from_host(T.exp(x)))
print(f.maker.fgraph.toposort())
t0 = time.time()
for i in range(iters):
    r = f()
t1 = time.time()
print("Looping %d times took %f seconds" % (iters, t1 - t0))
print("Result is %s" % (r,))
print("Numpy result is %s" % (numpy.asarray(r),))
if numpy.any([isinstance(x.op, T.Elemwise) for x in f.maker.fgraph.toposort()]):
    print("Used the cpu")
else:
    print("Used the gpu")
