"""Data of the shapes the Deep Learning Tutorials read (MNIST, ATIS folds, IMDB), made here from
fixed seeds so that every backend trains on the same numbers. Each set is learnable but not
trivially: 10% of the MNIST-like labels (and of the ATIS-like slot labels) are random, so an
error rate near that floor says a model learnt, and two backends can be compared on it."""
import numpy

MNIST_PIXELS = 28 * 28
LABEL_NOISE = 0.1


def mnist_like(rows, seed):
    """(x, y): `rows` images of 784 intensities in [0, 1] and their digit labels 0..9. Each class
    has a prototype of lit pixels; an image lights its prototype's pixels with 60% chance
    and any other pixel with 10%, at random intensities, as handwriting varies."""
    prototypes = numpy.random.RandomState(1234).rand(10, MNIST_PIXELS) < 0.15
    rng = numpy.random.RandomState(seed)
    y = rng.randint(10, size=rows)
    chance = numpy.where(prototypes[y], 0.6, 0.1)
    lit = rng.rand(rows, MNIST_PIXELS) < chance
    x = numpy.where(lit, rng.uniform(0.5, 1.0, size=lit.shape), 0.0)
    noisy = rng.rand(rows) < LABEL_NOISE
    y = numpy.where(noisy, rng.randint(10, size=rows), y)
    return x, y


def mnist_sets(train_rows, valid_rows, test_rows):
    """The three (x, y) pairs of mnist.pkl.gz, of the given sizes."""
    return (mnist_like(train_rows, 1), mnist_like(valid_rows, 2), mnist_like(test_rows, 3))


SLOT_TYPES = ["fromloc", "toloc", "date", "time", "airline", "class", "fare"]


def atis_fold(train_sentences=800, valid_sentences=100, test_sentences=100, vocabulary=100):
    """(train, valid, test, dicts) as an ATIS fold: each set is (words, named entities, labels),
    lists of int32 arrays per sentence; dicts has 'words2idx' and 'labels2idx'. A word is of a
    slot type or 'O'; its label is B-type where a run of that type starts, I-type inside."""
    rng = numpy.random.RandomState(4321)
    word_type = numpy.where(rng.rand(vocabulary) < 0.7, -1,
                            rng.randint(len(SLOT_TYPES), size=vocabulary))
    labels = ["O"] + [f"{p}-{t}" for t in SLOT_TYPES for p in ("B", "I")]
    labels2idx = {name: i for i, name in enumerate(labels)}
    words2idx = {f"w{i}": i for i in range(vocabulary)}

    def sentence():
        words = rng.randint(vocabulary, size=rng.randint(5, 21))
        tags, previous = [], -1
        for w in words:
            t = word_type[w]
            if rng.rand() < LABEL_NOISE:
                t = rng.randint(-1, len(SLOT_TYPES))
            tags.append("O" if t < 0 else f"{'I' if t == previous else 'B'}-{SLOT_TYPES[t]}")
            previous = t
        return (words.astype("int32"), numpy.zeros(len(words), "int32"),
                numpy.array([labels2idx[t] for t in tags], "int32"))

    def one_set(n):
        rows = [sentence() for _ in range(n)]
        return tuple([r[k] for r in rows] for k in range(3))

    sets = [one_set(train_sentences), one_set(valid_sentences), one_set(test_sentences)]
    every_word = numpy.arange(vocabulary, dtype="int32")  # rnnslu counts the vocabulary seen
    sets[0][0].append(every_word)
    sets[0][1].append(numpy.zeros(vocabulary, "int32"))
    sets[0][2].append(numpy.zeros(vocabulary, "int32"))
    every_label = numpy.arange(len(labels), dtype="int32")
    sets[0][0].append(every_word[:len(labels)])
    sets[0][1].append(numpy.zeros(len(labels), "int32"))
    sets[0][2].append(every_label)
    return sets[0], sets[1], sets[2], {"words2idx": words2idx, "labels2idx": labels2idx}


def imdb_like(reviews, seed, n_words=10000, maxlen=100):
    """(sequences, labels): reviews as lists of word indices (2..n_words-1, 0 and 1 being the
    padding and unknown-word indices of imdb.py), label 1 positive and 0 negative. A review
    draws 8% of its words from its sentiment's 50 words, 3% from the other's."""
    rng = numpy.random.RandomState(seed)
    positive, negative = numpy.arange(2, 52), numpy.arange(52, 102)
    sequences, labels = [], []
    for _ in range(reviews):
        label = int(rng.randint(2))
        own, other = (positive, negative) if label else (negative, positive)
        length = rng.randint(10, maxlen)
        words = rng.randint(102, n_words, size=length)
        pick = rng.rand(length)
        words = numpy.where(pick < 0.08, rng.choice(own, length), words)
        words = numpy.where((pick >= 0.08) & (pick < 0.11), rng.choice(other, length), words)
        sequences.append([int(w) for w in words])
        labels.append(label)
    return sequences, labels
