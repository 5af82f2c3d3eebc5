"""Runs one tutorial program in this process (started by tools/dlt_tutorials.py, in a copy of
the user's folder, with the shim folder first on sys.path): replaces the data loading of the
tutorials by synthetic data of the same shapes, calls the program's entry point with the
keyword arguments given, and prints `DLT_ERROR {json}` if it stops: the exception, the
program's line it came through, and the deepest line."""
import json
import os
import sys
import traceback

import numpy

import synthetic_data


def _mnist_load_data(rows):
    """A `logistic_sgd.load_data` replacement: the same three (shared x, int32 cast of shared y)
    pairs, built as the tutorial builds them, from synthetic_data.mnist_sets."""
    import theano
    import theano.tensor as T

    def load_data(dataset):
        print("... loading data (synthetic, MNIST shapes)")

        def shared_dataset(data_xy, borrow=True):
            data_x, data_y = data_xy
            shared_x = theano.shared(numpy.asarray(data_x, dtype=theano.config.floatX),
                                     borrow=borrow)
            shared_y = theano.shared(numpy.asarray(data_y, dtype=theano.config.floatX),
                                     borrow=borrow)
            return shared_x, T.cast(shared_y, "int32")

        train, valid, test = synthetic_data.mnist_sets(*rows)
        return [shared_dataset(train), shared_dataset(valid), shared_dataset(test)]
    return load_data


def _token_perf(filename, folder):
    """rnnslu's `get_perf` without conlleval.pl (a download): precision, recall and F1 in % of
    the slot-labelled (not 'O') words of the file conlleval wrote, word by word."""
    gold = pred = hit = 0
    with open(filename) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 3 or parts[0] in ("BOS", "EOS"):
                continue
            _, g, p = parts
            gold += g != "O"
            pred += p != "O"
            hit += g != "O" and g == p
    precision = 100.0 * hit / pred if pred else 0.0
    recall = 100.0 * hit / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    return {"p": precision, "r": recall, "f1": f1}


def _patch_data(program, rows):
    import logistic_sgd
    logistic_sgd.load_data = _mnist_load_data(rows)
    if program == "rnnslu":
        import rnnslu
        rnnslu.atisfold = lambda fold: synthetic_data.atis_fold()
        rnnslu.get_perf = _token_perf


def _location(frame_summary):
    return f"{os.path.basename(frame_summary.filename)}:{frame_summary.lineno}"


def _report(error, code_dir):
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if os.path.abspath(f.filename).startswith(code_dir)]
    message = str(error).strip().splitlines()
    print("DLT_ERROR " + json.dumps({
        "type": type(error).__name__,
        "message": message[0] if message else "",
        "program_line": _location(own[-1]) if own else "",
        "source": own[-1].line if own else "",
        "deepest": _location(frames[-1]) if frames else "",
    }), flush=True)


def main():
    program, entry, kwargs, rows = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
    code_dir = os.path.abspath(os.getcwd())
    sys.path.insert(1, code_dir)
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fallback"))
    try:
        _patch_data(program, rows)
        module = __import__(program)
        result = getattr(module, entry)(**kwargs)
        if result is not None:
            print("DLT_RETURN " + json.dumps(numpy.asarray(result, dtype=float).tolist()))
    except BaseException as error:  # the table reports whatever stopped the program
        sys.stdout.flush()
        traceback.print_exc()
        _report(error, code_dir)
        sys.exit(1)


if __name__ == "__main__":
    main()
