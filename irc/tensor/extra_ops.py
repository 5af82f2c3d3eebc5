"""`irc.tensor.extra_ops` (`T.extra_ops`; Theano's `theano.tensor.extra_ops`): `cumsum`,
`cumprod` (with their op, `CumOp`, here with Theano's signature and axis rules), `repeat`,
`diff`, `squeeze`, `fill_diagonal`, `fill_diagonal_offset`, `to_one_hot`, `bartlett` (built
from irc's ops, so they compile), `Unique`/`unique`, `compress` and `searchsorted` (run by
numpy between native parts: sizes from the data, numpy's binary search), and Theano's op
classes for them (`SearchsortedOp`, `DiffOp`, `RepeatOp`, ...); also `diag` and `arange`,
which irc has kept here (Theano has them in `theano.tensor.basic`)."""
from __future__ import annotations

from ..frontend.creation import arange
from ..frontend.extra_ops import (Bartlett, CumOp, DiffOp, FillDiagonal, FillDiagonalOffset, RepeatOp, bartlett,
                                  diff, fill_diagonal, fill_diagonal_offset, squeeze, to_one_hot)
from ..frontend.numpy_run_ops import Compress, SearchsortedOp, Unique, compress, searchsorted, unique
from ..frontend.order import cumprod, cumsum
from ..frontend.shape_functions import diag, repeat

__all__ = ["Bartlett", "Compress", "CumOp", "DiffOp", "FillDiagonal", "FillDiagonalOffset", "RepeatOp",
           "SearchsortedOp", "Unique", "arange", "bartlett", "compress", "cumprod", "cumsum", "diag", "diff",
           "fill_diagonal", "fill_diagonal_offset", "repeat", "searchsorted", "squeeze", "to_one_hot", "unique"]
