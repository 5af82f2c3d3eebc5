"""Theano 0.8's `downsample.max_pool_2d(input, ds, ignore_border, st, padding, mode)`."""
from .pool import pool_2d


def max_pool_2d(input, ds, ignore_border=None, st=None, padding=(0, 0), mode="max"):
    return pool_2d(input, ws=ds, ignore_border=ignore_border, stride=st, pad=padding, mode=mode)
