"""The `imdb` module lstm.py imports, on synthetic reviews (synthetic_data.imdb_like):
`load_data` gives (train, valid, test) as (list of word-index lists, list of labels) and
`prepare_data` pads a minibatch into the (time, sample) matrices the LSTM scans over."""
import numpy

import theano

from synthetic_data import imdb_like

TRAIN_REVIEWS, TEST_REVIEWS = 1000, 500


def load_data(path="imdb.pkl", n_words=100000, valid_portion=0.1, maxlen=None,
              sort_by_len=True):
    """Train, valid (the last `valid_portion` of the training reviews) and test sets; words at
    or past `n_words` become 1 (unknown); reviews longer than `maxlen` are left out of training."""
    train_x, train_y = imdb_like(TRAIN_REVIEWS, seed=11)
    test_x, test_y = imdb_like(TEST_REVIEWS, seed=12)
    if maxlen:
        kept = [(s, l) for s, l in zip(train_x, train_y) if len(s) < maxlen]
        train_x, train_y = [s for s, _ in kept], [l for _, l in kept]
    split = int(round(len(train_x) * (1 - valid_portion)))
    valid_x, valid_y = train_x[split:], train_y[split:]
    train_x, train_y = train_x[:split], train_y[:split]

    def clip_words(sequences):
        return [[w if w < n_words else 1 for w in s] for s in sequences]

    sets = [(clip_words(x), y) for x, y in
            ((train_x, train_y), (valid_x, valid_y), (test_x, test_y))]
    if sort_by_len:
        sets = [tuple(zip(*sorted(zip(x, y), key=lambda p: len(p[0])))) for x, y in sets]
        sets = [(list(x), list(y)) for x, y in sets]
    return sets[0], sets[1], sets[2]


def prepare_data(seqs, labels, maxlen=None):
    """x (int64, longest × n) with the reviews down its columns, zero-padded, the float mask of
    the real words, and the labels; with `maxlen`, longer reviews are dropped first."""
    if maxlen is not None:
        kept = [(s, l) for s, l in zip(seqs, labels) if len(s) < maxlen]
        if not kept:
            return None, None, None
        seqs, labels = [s for s, _ in kept], [l for _, l in kept]
    longest = max(len(s) for s in seqs)
    x = numpy.zeros((longest, len(seqs)), dtype="int64")
    mask = numpy.zeros((longest, len(seqs)), dtype=theano.config.floatX)
    for i, s in enumerate(seqs):
        x[:len(s), i] = s
        mask[:len(s), i] = 1.0
    return x, mask, labels
