"""The exact alias table of the tandem specification (Tandem8x32, Appendix C).

Weights become integer masses by exact scalings by powers of two, and the
columns are paired in exact integer arithmetic, so the table, and every
index drawn from it, is the same in every implementation.
"""

from __future__ import annotations

import functools

import numpy as np

from ._types import ArrayLike

_M_LIMIT = 2**32


def _ceil2(significand, exponent, t):
    """``ceil(w 2**t)`` for ``w = significand 2**exponent``, exactly, as uint64."""
    shift = exponent + t
    out = np.zeros(significand.size, np.uint64)
    left = shift >= 0
    out[left] = significand[left] << shift[left].astype(np.uint64)
    right = ~left & (significand > 0)
    down = -shift[right]
    far = down >= 64
    near = ~far
    s = down[near].astype(np.uint64)
    m = significand[right][near]
    values = np.ones(down.size, np.uint64)  # a positive mass far below 1 rounds up to 1
    values[near] = (m >> s) + ((m & ((np.uint64(1) << s) - np.uint64(1))) != 0)
    out[right] = values
    return out


@functools.lru_cache(maxsize=None)
def _pairing():
    from numba import njit

    @njit(cache=True)
    def pair(cut, alias, capacity):
        m = cut.size
        for i in range(m):
            alias[i] = i
        large = 0
        while large < m and cut[large] < capacity:
            large += 1
        for i in range(m):
            j = i
            while j <= i and cut[j] < capacity:
                alias[j] = large
                cut[large] = cut[large] - (capacity - cut[j])
                j = large
                if cut[large] < capacity:
                    large += 1
                    while large < m and cut[large] < capacity:
                        large += 1
                    if large == m:
                        return

    return pair


class ChoiceTable:
    """An alias table for weighted choice on Tandem streams (Appendix C).

    Parameters
    ----------
    weights : array_like of float
        ``m`` weights, ``1 <= m < 2**32``, finite and non-negative, at least
        one positive; converted to float64 first.

    Attributes
    ----------
    m : int
        The number of indices.
    capacity : int
        The column capacity ``S``.
    cut : numpy.ndarray of uint64
        Each column's own share, ``0 <= cut[j] <= S``.
    alias : numpy.ndarray of uint32
        Each column's alias.

    Raises
    ------
    ValueError
        For an empty or multi-dimensional array, a weight that is negative,
        NaN or infinite, or weights that are all zero; no table is built.

    Examples
    --------
    >>> from tandem import ChoiceTable
    >>> t = ChoiceTable([1, 2, 3, 4])
    >>> hex(t.capacity), t.alias.tolist()
    ('0x1400000000000000', [2, 3, 3, 3])
    """

    __slots__ = ("m", "capacity", "cut", "alias")

    def __init__(self, weights: ArrayLike):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or not 1 <= w.size < _M_LIMIT:
            raise ValueError(f"weights must be a 1-d array of 1 to 2**32 - 1 values, got "
                             f"shape {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("weights must be finite and non-negative")
        top = float(w.max())
        if top <= 0:
            raise ValueError("at least one weight must be positive")
        m = w.size
        fraction, exponent = np.frexp(w)  # w = fraction 2**exponent, fraction in [0.5, 1)
        significand = np.ldexp(fraction, 53).astype(np.uint64)
        exponent = exponent.astype(np.int64) - 53
        e = int(np.frexp(top)[1]) - 1  # 2**e <= max(w) < 2**(e + 1)
        t0 = 63 - m.bit_length() - e
        total = int(np.sum(_ceil2(significand, exponent, t0), dtype=np.uint64))
        t = t0 + 63 - total.bit_length()
        q = _ceil2(significand, exponent, t)
        total = int(np.sum(q, dtype=np.uint64))
        pad = (m - total % m) % m
        q[int(np.argmax(q))] += np.uint64(pad)
        capacity = (total + pad) // m
        alias = np.empty(m, np.int64)
        _pairing()(q, alias, np.uint64(capacity))
        self.m = m
        self.capacity = capacity
        self.cut = q
        self.alias = alias.astype(np.uint32)
        for array in (self.cut, self.alias):
            array.setflags(write=False)

    def __repr__(self):
        return f"ChoiceTable(m={self.m}, capacity=0x{self.capacity:016x})"
