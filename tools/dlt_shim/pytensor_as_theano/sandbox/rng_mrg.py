"""`MRG_RandomStreams`: on PyTensor, the same generator as `RandomStreams`."""
from ..tensor.shared_randomstreams import RandomStreams as MRG_RandomStreams  # noqa: F401
