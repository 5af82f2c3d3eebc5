"""LeNet in the style of the Deep Learning Tutorials' convolutional_mlp.py: two layers of
convolution + max pooling + tanh (`LeNetConvPoolLayer`), a tanh hidden layer and softmax
regression (from examples/dlt_programs.py), trained by minibatch SGD on a synthetic MNIST-shaped
dataset held in shared variables, the minibatch picked by `givens` with a symbolic index.

The tutorial's shapes: batch 500, 1×28×28 images → 20 5×5 filters → pool 2 → 50 5×5 filters →
pool 2 → 500 tanh → 10 softmax.

Run: python examples/lenet.py [epochs] [batch_size]. `tests/frontend/test_lenet.py` checks
every step against a numpy re-implementation; `tools/bench_lenet.py` times a training step."""
from __future__ import annotations

import sys

import numpy as np

import irc
import irc.tensor as T
from irc.tensor.nnet import conv2d
from irc.tensor.signal import pool

from dlt_programs import HiddenLayer, LogisticRegression  # noqa: E402  (beside this file)


def make_images(n: int = 1000, n_classes: int = 10, side: int = 28, seed: int = 0):
    """A digit-like class per image: a class-specific stroke pattern plus noise, in [0, 1];
    the shared images as rows of side² pixels (floatX, as MNIST's) and int32 labels."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(n_classes, size=n)
    patterns = rng.rand(n_classes, side * side) < 0.15
    x = np.clip(patterns[labels] * 0.8 + rng.rand(n, side * side) * 0.3, 0, 1)
    shared_x = irc.shared(np.asarray(x, dtype=irc.config.floatX), name="train_x")
    shared_y = irc.shared(np.asarray(labels, dtype=irc.config.floatX), name="train_y")
    return shared_x, T.cast(shared_y, "int32")


class LeNetConvPoolLayer:
    """tanh(max_pool(conv2d(input, W)) + b): W uniform in ±sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2)):
        assert image_shape[1] == filter_shape[1]
        fan_in = np.prod(filter_shape[1:])
        fan_out = filter_shape[0] * np.prod(filter_shape[2:]) // np.prod(poolsize)
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        floatX = irc.config.floatX
        self.W = irc.shared(np.asarray(rng.uniform(-bound, bound, filter_shape), dtype=floatX), name="W")
        self.b = irc.shared(np.zeros((filter_shape[0],), dtype=floatX), name="b")
        conv_out = conv2d(input=input, filters=self.W, filter_shape=filter_shape, input_shape=image_shape)
        pooled_out = pool.pool_2d(input=conv_out, ws=poolsize, ignore_border=True)
        self.output = T.tanh(pooled_out + self.b.dimshuffle("x", 0, "x", "x"))
        self.params = [self.W, self.b]


class LeNet:
    def __init__(self, rng, x, batch_size, nkerns=(20, 50), n_hidden=500, n_out=10):
        layer0_input = x.reshape((batch_size, 1, 28, 28))
        self.layer0 = LeNetConvPoolLayer(rng, layer0_input, image_shape=(batch_size, 1, 28, 28),
                                         filter_shape=(nkerns[0], 1, 5, 5))
        self.layer1 = LeNetConvPoolLayer(rng, self.layer0.output, image_shape=(batch_size, nkerns[0], 12, 12),
                                         filter_shape=(nkerns[1], nkerns[0], 5, 5))
        self.layer2 = HiddenLayer(rng, self.layer1.output.flatten(2), nkerns[1] * 4 * 4, n_hidden)
        self.layer3 = LogisticRegression(self.layer2.output, n_hidden, n_out)
        self.params = self.layer3.params + self.layer2.params + self.layer1.params + self.layer0.params


def lenet(train_x, train_y, batch_size=500, learning_rate=0.1, nkerns=(20, 50), n_hidden=500, seed=23455):
    """The model and its training function (index -> cost, one SGD step) and error function."""
    index, x, y = T.lscalar("index"), T.matrix("x"), T.ivector("y")
    model = LeNet(np.random.RandomState(seed), x, batch_size, nkerns, n_hidden)
    cost = model.layer3.negative_log_likelihood(y)
    grads = T.grad(cost, model.params)
    updates = [(p, p - learning_rate * g) for p, g in zip(model.params, grads)]
    batch = slice(index * batch_size, (index + 1) * batch_size)
    givens = {x: train_x[batch], y: train_y[batch]}
    train = irc.function([index], cost, updates=updates, givens=givens)
    errors = irc.function([index], model.layer3.errors(y), givens=givens)
    return model, train, errors


def main(epochs: int = 2, batch_size: int = 500) -> None:
    train_x, train_y = make_images(n=4 * batch_size)
    n_batches = train_x.get_value().shape[0] // batch_size
    _, train, errors = lenet(train_x, train_y, batch_size)
    for epoch in range(epochs):
        cost = np.mean([train(i) for i in range(n_batches)])
        error = np.mean([errors(i) for i in range(n_batches)])
        print(f"epoch {epoch}: cost {cost:.4f}, training error {error:.3f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
