"""The throw-away `theano` package of tools/dlt_tutorials.py: `import theano...` gives the module
of the same dotted name under the backend named by $DLT_THEANO_TARGET (`irc`, or
`pytensor_as_theano` for the PyTensor reference), so that the tutorials run with only their
imports redirected, as a user would do by replacing `theano` with `irc`."""
import importlib
import importlib.abc
import importlib.util
import os
import sys

_TARGET = os.environ.get("DLT_THEANO_TARGET", "irc")


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `theano.x.y` as the target's `x.y`: one module object under both names."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("theano."):
            real = _TARGET + name[len("theano"):]
            if importlib.util.find_spec(real) is None:
                return None
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(_TARGET + spec.name[len("theano"):])

    def exec_module(self, module):
        pass  # the target's own import ran it


sys.meta_path.insert(0, _AliasFinder())
sys.modules[__name__] = importlib.import_module(_TARGET)
