"""Four programs in the style of the Deep Learning Tutorials (deeplearning.net/tutorial):
softmax regression (logistic_sgd.py), a multilayer perceptron (mlp.py), a denoising
autoencoder (dA.py) and an Elman recurrent network (rnnslu.py's, trained by backpropagation
through time: `scan` and its gradient), each trained by minibatch SGD on a synthetic dataset
held in shared variables, the minibatch picked by `givens` with a symbolic index (for the
RNN, a window of consecutive rows read as one sequence).

Run: python examples/dlt_programs.py [epochs]. `tests/frontend/test_dlt_programs.py` checks
every step against numpy. The negative log-likelihood is the tutorials' own
`-T.mean(T.log(p_y_given_x)[T.arange(y.shape[0]), y])` (advanced indexing: a gather); the
data are synthetic."""
from __future__ import annotations

import sys

import numpy as np

import irc
import irc.tensor as T
from irc.tensor.shared_randomstreams import RandomStreams


def make_dataset(n: int = 240, n_in: int = 12, n_classes: int = 3, seed: int = 0):
    """Gaussian blobs, one per class, squashed into (0, 1) (the autoencoder's inputs are
    probabilities); the shared x (floatX) and labels (int32, cast from floatX as the tutorials do)."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(n_classes, size=n)
    centres = rng.randn(n_classes, n_in) * 0.6
    x = 1 / (1 + np.exp(-(centres[labels] + rng.randn(n, n_in))))
    shared_x = irc.shared(np.asarray(x, dtype=irc.config.floatX), name="train_x")
    shared_y = irc.shared(np.asarray(labels, dtype=irc.config.floatX), name="train_y")
    return shared_x, T.cast(shared_y, "int32")


def _minibatch(index, batch_size):
    return slice(index * batch_size, (index + 1) * batch_size)


def _sgd(cost, params, learning_rate):
    return [(p, p - learning_rate * g) for p, g in zip(params, T.grad(cost, params))]


class LogisticRegression:
    """Softmax regression: p(y | x) = softmax(x W + b), W and b starting at zero."""

    def __init__(self, x, n_in, n_out):
        floatX = irc.config.floatX
        self.W = irc.shared(np.zeros((n_in, n_out), dtype=floatX), name="W")
        self.b = irc.shared(np.zeros(n_out, dtype=floatX), name="b")
        self.p_y_given_x = T.nnet.softmax(T.dot(x, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        return T.mean(T.neq(self.y_pred, y))


class HiddenLayer:
    """tanh(x W + b), W uniform in +-sqrt(6 / (n_in + n_out)) (Glorot and Bengio)."""

    def __init__(self, rng, x, n_in, n_out):
        bound = np.sqrt(6.0 / (n_in + n_out))
        self.W = irc.shared(np.asarray(rng.uniform(-bound, bound, (n_in, n_out)), dtype=irc.config.floatX), name="W")
        self.b = irc.shared(np.zeros(n_out, dtype=irc.config.floatX), name="b")
        self.output = T.tanh(T.dot(x, self.W) + self.b)
        self.params = [self.W, self.b]


class MLP:
    def __init__(self, rng, x, n_in, n_hidden, n_out):
        self.hidden = HiddenLayer(rng, x, n_in, n_hidden)
        self.log_regression = LogisticRegression(self.hidden.output, n_hidden, n_out)
        self.L1 = abs(self.hidden.W).sum() + abs(self.log_regression.W).sum()
        self.L2_sqr = (self.hidden.W ** 2).sum() + (self.log_regression.W ** 2).sum()
        self.params = self.hidden.params + self.log_regression.params


class DenoisingAutoencoder:
    """Tied weights; the input corrupted by a mask of binomial(1 - corruption_level) draws."""

    def __init__(self, rng, theano_rng, x, n_visible, n_hidden):
        bound = 4 * np.sqrt(6.0 / (n_hidden + n_visible))
        floatX = irc.config.floatX
        self.W = irc.shared(np.asarray(rng.uniform(-bound, bound, (n_visible, n_hidden)), dtype=floatX), name="W")
        self.b = irc.shared(np.zeros(n_hidden, dtype=floatX), name="bhid")
        self.b_prime = irc.shared(np.zeros(n_visible, dtype=floatX), name="bvis")
        self.theano_rng = theano_rng
        self.x = x
        self.params = [self.W, self.b, self.b_prime]

    def corrupted(self, corruption_level):
        self.mask = self.theano_rng.binomial(size=self.x.shape, n=1, p=1 - corruption_level,
                                             dtype=irc.config.floatX)
        return self.mask * self.x

    def cost(self, corruption_level):
        y = T.nnet.sigmoid(T.dot(self.corrupted(corruption_level), self.W) + self.b)
        z = T.nnet.sigmoid(T.dot(y, self.W.T) + self.b_prime)
        L = -T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        return T.mean(L)


class ElmanRNN:
    """h_t = tanh(x_t W_x + h_{t-1} W_h + b_h) from a learnt h_0 (a scan over the sequence's
    rows), p(y_t | x_1..t) = softmax(h_t W_y + b_y); weights uniform in +-0.2 as rnnslu's."""

    def __init__(self, rng, x, n_in, n_hidden, n_out):
        floatX = irc.config.floatX

        def uniform(*shape):
            return np.asarray(rng.uniform(-0.2, 0.2, shape), dtype=floatX)

        self.W_x = irc.shared(uniform(n_in, n_hidden), name="W_x")
        self.W_h = irc.shared(uniform(n_hidden, n_hidden), name="W_h")
        self.b_h = irc.shared(np.zeros(n_hidden, dtype=floatX), name="b_h")
        self.h0 = irc.shared(np.zeros(n_hidden, dtype=floatX), name="h0")
        self.W_y = irc.shared(uniform(n_hidden, n_out), name="W_y")
        self.b_y = irc.shared(np.zeros(n_out, dtype=floatX), name="b_y")
        self.params = [self.W_x, self.W_h, self.b_h, self.h0, self.W_y, self.b_y]

        def step(x_t, h_prev):
            return T.tanh(T.dot(x_t, self.W_x) + T.dot(h_prev, self.W_h) + self.b_h)

        h, _ = irc.scan(step, sequences=x, outputs_info=self.h0)
        self.p_y_given_x = T.nnet.softmax(T.dot(h, self.W_y) + self.b_y)

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])


def softmax_regression(train_x, train_y, batch_size=20, learning_rate=0.13):
    index, x, y = T.lscalar("index"), T.matrix("x"), T.ivector("y")
    model = LogisticRegression(x, train_x.get_value().shape[1], 3)
    cost = model.negative_log_likelihood(y)
    batch = _minibatch(index, batch_size)
    train = irc.function([index], cost, updates=_sgd(cost, model.params, learning_rate),
                         givens={x: train_x[batch], y: train_y[batch]})
    errors = irc.function([index], model.errors(y), givens={x: train_x[batch], y: train_y[batch]})
    return model, train, errors


def mlp(train_x, train_y, batch_size=20, learning_rate=0.01, L1_reg=0.001, L2_reg=0.0001, n_hidden=16, seed=1234):
    index, x, y = T.lscalar("index"), T.matrix("x"), T.ivector("y")
    model = MLP(np.random.RandomState(seed), x, train_x.get_value().shape[1], n_hidden, 3)
    cost = model.log_regression.negative_log_likelihood(y) + L1_reg * model.L1 + L2_reg * model.L2_sqr
    batch = _minibatch(index, batch_size)
    train = irc.function([index], cost, updates=_sgd(cost, model.params, learning_rate),
                         givens={x: train_x[batch], y: train_y[batch]})
    return model, train


def denoising_autoencoder(train_x, batch_size=20, learning_rate=0.1, corruption_level=0.3, n_hidden=8, seed=123):
    index, x = T.lscalar("index"), T.matrix("x")
    rng = np.random.RandomState(seed)
    model = DenoisingAutoencoder(rng, RandomStreams(rng.randint(2 ** 30)), x, train_x.get_value().shape[1], n_hidden)
    cost = model.cost(corruption_level)
    train = irc.function([index], cost, updates=_sgd(cost, model.params, learning_rate),
                         givens={x: train_x[_minibatch(index, batch_size)]})
    return model, train


def elman_rnn(train_x, train_y, batch_size=20, learning_rate=0.1, n_hidden=10, seed=345):
    """Each minibatch is one sequence of `batch_size` consecutive rows."""
    index, x, y = T.lscalar("index"), T.matrix("x"), T.ivector("y")
    model = ElmanRNN(np.random.RandomState(seed), x, train_x.get_value().shape[1], n_hidden, 3)
    cost = model.negative_log_likelihood(y)
    batch = _minibatch(index, batch_size)
    train = irc.function([index], cost, updates=_sgd(cost, model.params, learning_rate),
                         givens={x: train_x[batch], y: train_y[batch]})
    return model, train


def main(epochs: int = 5, batch_size: int = 20) -> None:
    train_x, train_y = make_dataset()
    n_batches = train_x.get_value().shape[0] // batch_size
    _, train, errors = softmax_regression(train_x, train_y, batch_size)
    _, train_mlp = mlp(train_x, train_y, batch_size)
    _, train_da = denoising_autoencoder(train_x, batch_size)
    _, train_rnn = elman_rnn(train_x, train_y, batch_size)
    for epoch in range(epochs):
        costs = [np.mean([fn(i) for i in range(n_batches)]) for fn in (train, train_mlp, train_da, train_rnn)]
        error = np.mean([errors(i) for i in range(n_batches)])
        print(f"epoch {epoch}: softmax regression {costs[0]:.4f} (error {error:.3f}), "
              f"mlp {costs[1]:.4f}, denoising autoencoder {costs[2]:.4f}, Elman RNN {costs[3]:.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
