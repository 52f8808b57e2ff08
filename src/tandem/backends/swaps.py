"""Fisher–Yates on the CPU: the swap targets of a stream's draws, and the swaps.

The rule is ``docs/spec.md``'s (*Sampling*): swap ``i`` exchanges position
``i`` with position ``t_i = i + integers(0, n - i)``, the 128-bit Lemire
rule on 64-bit draw ``i``, a rejected draw continuing on lane ``w`` (its
word) of the stream's ``continuation("tandem.sample")``.  The targets
depend on the draws alone, so they can be computed anywhere; the swaps are
sequential, a dense array for a whole permutation and a hash table for the
first ``k`` of a large population (O(k) time and memory).
"""

from __future__ import annotations

import functools

import numpy as np

U64 = np.uint64


@functools.lru_cache(maxsize=None)
def _kernels():
    """``(targets, permute, first, apply)``, compiled (or loaded from Numba's cache)
    once (``apply`` once for each width of word it swaps)."""
    from numba import njit, types
    from numba.typed import Dict

    from .. import core

    core.register()
    from ..core.uniform import integers64_retry, mulhilo64

    digest = core.source_digest()  # in the closure: it keys the disk cache

    @njit(cache=True, nogil=True)
    def targets(draws, n, per, generator, c0, c1, c2, c3, w0):
        out = np.empty(draws.size, np.int64)
        for g in range(draws.size):
            i = g % per
            span = U64(n - i)
            offset, low = mulhilo64(draws[g], span)
            if low < span:  # the rejection test only where it can reject
                threshold = (U64(0) - span) % span
                if low < threshold:
                    offset = integers64_retry(generator, c0, c1, c2, c3,
                                              w0 + U64(2 * g + (digest & 0)), span, threshold)
            out[g] = i + np.int64(offset)
        return out

    @njit(cache=True, nogil=True)
    def permute(targets, n):
        orders = np.empty((targets.shape[0], n), np.int64)
        for r in range(targets.shape[0]):
            order = orders[r]
            for i in range(n):
                order[i] = i
            for i in range(targets.shape[1]):
                j = targets[r, i]
                order[i], order[j] = order[j], order[i]
        return orders

    @njit(cache=True, nogil=True)
    def first(targets):
        out = np.empty(targets.size, np.int64)
        moved = Dict.empty(key_type=types.int64, value_type=types.int64)
        for i in range(targets.size):
            j = targets[i]
            out[i] = moved.get(j, j)
            moved[j] = moved.get(i, i)  # position i is never read again
        return out

    @njit(cache=True, nogil=True)
    def apply(x, targets):
        for r in range(x.shape[0]):
            row = x[r]
            for i in range(targets.shape[1]):
                j = targets[r, i]
                row[i], row[j] = row[j], row[i]

    return targets, permute, first, apply


def targets(draws: np.ndarray, n: int, per: int, generator: int, retry_key: tuple,
            w0: int) -> np.ndarray:
    """The swap targets (int64) of the uint64 ``draws``, runs of ``per`` swaps of a
    population of ``n`` one after another: draw ``g`` is swap ``g % per`` of
    its run.  ``retry_key`` is the kernel key of the continuation, ``w0``
    the word of draw 0."""
    if draws.size == 0:  # w0 may be the lane's end, 2**64
        return np.empty(0, np.int64)
    return _kernels()[0](draws, n, max(per, 1), generator, *(U64(k) for k in retry_key),
                         U64(w0))


def permute(targets: np.ndarray, n: int) -> np.ndarray:
    """``range(n)`` after each row of swaps of the 2-d ``targets``: one row each."""
    return _kernels()[1](targets, n)


def first(targets: np.ndarray) -> np.ndarray:
    """The first ``targets.size`` entries after the swaps, in O(size)."""
    return _kernels()[2](targets)


#: The unsigned integers that :func:`apply` swaps elements of each width as.
_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def apply(x: np.ndarray, targets: np.ndarray) -> bool:
    """Swap the elements of each row of the 2-d ``x`` in place by the same row of
    ``targets``; False (and ``x`` untouched) where ``x`` is not a plain
    ``numpy.ndarray`` (a masked array is not) of 1-, 2-, 4- or 8-byte
    elements, which the caller then permutes by gathering."""
    if (type(x) is not np.ndarray or x.ndim != 2 or x.dtype.hasobject or x.dtype.itemsize not in _WORDS
            or not x.flags.writeable):
        return False
    try:
        words = x.view(_WORDS[x.dtype.itemsize])
    except ValueError:  # a structured dtype NumPy will not view so
        return False
    _kernels()[3](words, targets)
    return True
