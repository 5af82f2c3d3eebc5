"""The answer to the tutorial's GPU exercise ("what can be done to further increase the speed of
the GPU version?"), as Theano's own solution gives it: the data lives in shared variables, so a
training step takes no inputs and nothing but its two small outputs crosses the bus.

Run: IRC_FLAGS=device=cuda python examples/logistic_regression_shared.py (the cpu by default).
`IRC_EXAMPLE_STEPS` lowers the number of training steps (the tests use it); with
`IRC_EXAMPLE_TIME=1` the training loop's time is printed."""
import os
import time

import numpy

import irc
import irc.tensor as T

irc.config.floatX = "float32"
rng = numpy.random

N = 400
feats = 784
D = (rng.randn(N, feats).astype(irc.config.floatX),
     rng.randint(size=N, low=0, high=2).astype(irc.config.floatX))
training_steps = int(os.environ.get("IRC_EXAMPLE_STEPS", 10000))

# The data and the model as shared variables (on the GPU under device=cuda)
x = irc.shared(D[0], name="x")
y = irc.shared(D[1], name="y")
w = irc.shared(rng.randn(feats).astype(irc.config.floatX), name="w")
b = irc.shared(numpy.asarray(0., dtype=irc.config.floatX), name="b")

# Construct the expression graph
p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))  # Probability of having a one
prediction = p_1 > 0.5  # The prediction that is done: 0 or 1
xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)  # Cross-entropy
cost = T.cast(xent.mean(), "float32") + 0.01 * (w ** 2).sum()  # The cost to optimize
gw, gb = T.grad(cost, [w, b])

# Compile expressions to functions
train = irc.function(inputs=[], outputs=[prediction, xent],
                     updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)], name="train")
predict = irc.function(inputs=[], outputs=prediction, name="predict")

if any([n.op.__class__.__name__ in ["Gemv", "CGemv", "Gemm", "CGemm"] for n in
        train.maker.fgraph.toposort()]):
    print("Used the cpu")
elif any([n.op.__class__.__name__ in ["GpuGemm", "GpuGemv"] for n in
          train.maker.fgraph.toposort()]):
    print("Used the gpu")
else:
    print("ERROR, not able to tell if irc used the cpu or the gpu")
    print(train.maker.fgraph.toposort())

start = time.perf_counter()
for i in range(training_steps):
    pred, err = train()
if os.environ.get("IRC_EXAMPLE_TIME"):
    print(f"training time {time.perf_counter() - start:.3f} s")

print("target values for D")
print(D[1])

print("prediction on D")
print(predict())

print(f"training accuracy: {numpy.mean(predict() == D[1]):.3f}")
print("predictions match targets:", bool(numpy.all(predict() == D[1])))
print("b is finite:", bool(numpy.isfinite(b.get_value())))
