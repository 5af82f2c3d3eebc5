"""Where each of Theano's module names lives in a backend (irc, or PyTensor as the reference).

Copied next to the throw-away `theano` package; `facade.py` reads it. A Theano module name is
looked up in the backend's module of the same path after the backend's prefix renames, then in
that module's ancestors (so `theano.tensor.subtensor.Subtensor` is found as `irc.tensor.Subtensor`),
the same rule for every backend.
"""
from __future__ import annotations

BACKENDS: dict[str, dict] = {
    "irc": {
        "root": "irc",
        # Theano prefix -> backend module names, most specific first
        "prefixes": {},
        "names": {},
        "extra": {},
    },
    "pytensor": {
        "root": "pytensor",
        "prefixes": {
            "theano.scan_module": ["pytensor.scan"],
            "theano.gof": ["pytensor.graph", "pytensor.graph.basic", "pytensor.graph.op",
                           "pytensor.graph.fg"],
            "theano.tensor.nnet": ["pytensor.tensor.special", "pytensor.tensor.math",
                                   "pytensor.tensor.nnet"],
            "theano.tensor.shared_randomstreams": ["pytensor.tensor.random.utils"],
            "theano.tensor.sort": ["pytensor.tensor.sort"],
            "theano.sandbox.rng_mrg": [],
            "theano.ifelse": ["pytensor.ifelse"],
            "theano.gradient": ["pytensor.gradient"],
            "theano.scalar": ["pytensor.scalar"],
        },
        # Theano's name -> the backend's, where only the name changed
        "names": {"RandomStreams": "RandomStream", "scan_module": "scan", "gof": "graph"},
        # where PyTensor moved names of these modules (searched after the modules above)
        "extra": {
            "theano": ["pytensor.config"],
            "theano.tensor": ["pytensor.gradient", "pytensor.tensor.special", "pytensor.tensor.math",
                              "pytensor.tensor.extra_ops", "pytensor.tensor.basic"],
            "theano.tensor.basic": ["pytensor.tensor.math"],
            "theano.compile": ["pytensor.compile.function"],
        },
    },
}


def backend_candidates(theano_name: str, backend: str) -> list[str]:
    """The backend modules to search, in order, for the attributes of `theano_name`."""
    spec = BACKENDS[backend]
    root = spec["root"]
    parts = theano_name.split(".")
    candidates: list[str] = []
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in spec["prefixes"]:
            candidates.extend(spec["prefixes"][prefix])
            if cut == len(parts) and not spec["prefixes"][prefix]:
                return []   # the backend has nothing of this module
        candidates.append(".".join([root] + parts[1:cut]))
    candidates += spec["extra"].get(theano_name, [])
    seen: list[str] = []
    for name in candidates:
        if name not in seen:
            seen.append(name)
    return seen
