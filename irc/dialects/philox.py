"""Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) in numpy,
and the transforms from its 32-bit words to samples: the definition `tensor.random` compiles.

A counter-based generator: block(key, counter) is a pure function, so element i of a draw needs
no state but (key, counter) and any thread (CPU or GPU) computes any element on its own.

Counter layout of `tensor.random`: element i (row-major flat index) of draw d with key (k0, k1)
reads the four words of block((k0, k1), (i mod 2^32, i div 2^32, d mod 2^32, d div 2^32)).
The state is an int64 vector `[k0, k1, d]` (k0, k1 < 2^32); each draw's update adds 1 to d.

Transforms (per element, words w0..w3 of its block):
* uniform [0, 1): float32 `(w0 >> 8) * 2^-24` (24 bits), float64
  `((w0 >> 5) * 2^26 + (w1 >> 6)) * 2^-53` (53 bits) - exact, so the numbers are bit-identical
  everywhere;
* normal: Box-Muller's cosine branch, `sqrt(-2 log(1 - u1)) * cos(2 pi u2)` with u1 from the
  uniform of (w0[, w1]) and u2 from the uniform of (w2[, w3]) (float32: w1 alone), computed in
  the result's dtype (the compiled log/cos are the project's mathlib: a few ulp from numpy's).
"""
from __future__ import annotations

import numpy as np

MASK32 = 0xFFFFFFFF
MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
WEYL = (0x9E3779B9, 0xBB67AE85)
ROUNDS = 10
DISTRIBUTIONS = ("uniform", "normal")


def philox4x32(key: tuple, counter: tuple) -> list[np.ndarray]:
    """The four uint64 arrays (each word < 2^32) of Philox4x32-10 for broadcastable
    `key` = (k0, k1) and `counter` = (c0, c1, c2, c3)."""
    k0, k1 = (np.asarray(k, dtype=np.uint64) & np.uint64(MASK32) for k in key)
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) & np.uint64(MASK32) for c in counter)
    mask, shift = np.uint64(MASK32), np.uint64(32)
    m0, m1 = (np.uint64(m) for m in MULTIPLIERS)
    w0, w1 = (np.uint64(w) for w in WEYL)
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
        p0, p1 = m0 * c0, m1 * c2
        c0, c1, c2, c3 = ((p1 >> shift) ^ c1 ^ k0, p1 & mask, (p0 >> shift) ^ c3 ^ k1, p0 & mask)
    return [np.broadcast_to(c, np.broadcast_shapes(*(np.shape(x) for x in (c0, c1, c2, c3))))
            for c in (c0, c1, c2, c3)]


def draw_words(state: np.ndarray, count: int) -> list[np.ndarray]:
    """The four words of every element 0..count-1 of the draw `state` = [k0, k1, d] makes."""
    k0, k1, d = (int(v) for v in np.asarray(state, dtype=np.int64)[:3])
    i = np.arange(count, dtype=np.uint64)
    return philox4x32((k0, k1), (i & np.uint64(MASK32), i >> np.uint64(32), d & MASK32, (d >> 32) & MASK32))


def uniform_from_words(hi: np.ndarray, lo: np.ndarray, dtype: str) -> np.ndarray:
    """U[0, 1) from one word (float32: `hi`) or two (float64), exactly as compiled."""
    if np.dtype(dtype) == np.float32:
        return ((hi >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)).astype(np.float32)
    bits = (hi >> np.uint64(5)) * np.uint64(1 << 26) + (lo >> np.uint64(6))
    return bits.astype(np.float64) * 2.0 ** -53


def sample(state: np.ndarray, shape: tuple, distribution: str, dtype: str) -> np.ndarray:
    """The sample `tensor.random` gives for `state`, `shape`, `distribution` and float `dtype`."""
    count = int(np.prod(shape, dtype=np.int64))
    w = draw_words(state, count)
    single = np.dtype(dtype) == np.float32
    u1 = uniform_from_words(w[0], w[1], dtype)
    if distribution == "uniform":
        out = u1
    elif distribution == "normal":
        u2 = uniform_from_words(w[1], w[1], dtype) if single else uniform_from_words(w[2], w[3], dtype)
        one, two, tau = (np.asarray(v, dtype=dtype) for v in (1.0, -2.0, 2 * np.pi))
        with np.errstate(all="ignore"):
            out = np.sqrt(two * np.log(one - u1)) * np.cos(tau * u2)
    else:
        raise ValueError(f"unknown distribution {distribution!r} (one of {', '.join(DISTRIBUTIONS)})")
    return np.asarray(out, dtype=dtype).reshape(shape)
