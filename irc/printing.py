"""`irc.printing` (Theano's `theano.printing`): `debugprint`, `pp` (= `pprint`), `pydotprint`
(the code is in irc/inspect/)."""
from .inspect.printing import debugprint, pp, pprint, pydotprint

__all__ = ["debugprint", "pp", "pprint", "pydotprint"]
