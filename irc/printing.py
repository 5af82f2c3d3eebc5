"""`irc.printing` (Theano's `theano.printing`): `debugprint`, `pp` (= `pprint`), `pydotprint`
(the code is in irc/inspect/) and the `Print` op (irc/frontend/print_op.py)."""
from .frontend.print_op import Print
from .inspect.printing import debugprint, pp, pprint, pydotprint

__all__ = ["Print", "debugprint", "pp", "pprint", "pydotprint"]
