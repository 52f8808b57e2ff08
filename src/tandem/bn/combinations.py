"""The combinatorial number system: subsets of ``range(m)`` of size at most ``k``, ranked.

Every subset of ``range(m)`` with at most ``k`` elements has one global rank
``r`` in ``range(n_sets(m, k))``:

* subsets are ordered first by size, then in *colex* order within a size;
* the colex rank of the sorted positions ``c_0 < c_1 < ... < c_{s-1}`` is
  ``sum_j C(c_j, j + 1)``;
* the global rank adds ``offsets(m, k)[s] = sum_{t < s} C(m, t)``.

So rank 0 is the empty set, ranks ``1 .. m`` are the singletons ``{0} .. {m-1}``,
then the pairs ``{0,1}, {0,2}, {1,2}, {0,3}, ...``. Within a size this is the
order of :func:`itertools.combinations` applied to the *reversed* tuples
(colex order), and a subset's colex rank does not depend on ``m``: growing the
candidate list appends ranks and never moves existing ones. That order is the
contract of every score table.

Every function here is compiled with ``numba.njit`` and may be called from
Python or from other ``@njit`` code. Positions are integers; ranks and
counts are int64. Arguments that would overflow int64 raise ``ValueError``.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["binomial_table", "n_sets", "offsets", "rank", "colex_rank", "unrank",
           "unrank_into", "subset_masks", "subset_table"]

_INT64_MAX = np.iinfo(np.int64).max


@numba.njit(cache=True)
def binomial_table(m, k):
    """Binomial coefficients ``C(a, b)`` for ``0 <= a <= m``, ``0 <= b <= k``.

    Parameters
    ----------
    m, k : int
        Non-negative.

    Returns
    -------
    numpy.ndarray of int64, shape (m + 1, k + 1)
        ``table[a, b] == C(a, b)``, zero where ``b > a``.

    Raises
    ------
    ValueError
        If ``m`` or ``k`` is negative, or a coefficient exceeds int64.
    """
    if m < 0:
        raise ValueError("m must be non-negative")
    if k < 0:
        raise ValueError("k must be non-negative")
    table = np.zeros((m + 1, k + 1), dtype=np.int64)
    for a in range(m + 1):
        table[a, 0] = 1
        for b in range(1, min(a, k) + 1):
            left = table[a - 1, b - 1]
            right = table[a - 1, b]
            if left > _INT64_MAX - right:
                raise ValueError("binomial coefficient overflows int64: m and k too large")
            table[a, b] = left + right
    return table


@numba.njit(cache=True)
def offsets(m, k):
    """Where each size starts in the global ranking.

    Parameters
    ----------
    m : int
        Number of positions (non-negative).
    k : int
        Largest subset size (non-negative).

    Returns
    -------
    numpy.ndarray of int64, shape (k + 2,)
        ``out[s] = sum_{t < s} C(m, t)``: the rank of the first subset of size
        ``s``; ``out[k + 1] == n_sets(m, k)``. Sizes beyond ``m`` are empty, so
        the array is flat from ``m + 1`` on.

    Raises
    ------
    ValueError
        If ``m`` or ``k`` is negative, or the count exceeds int64.
    """
    binom = binomial_table(m, k)
    out = np.zeros(k + 2, dtype=np.int64)
    for s in range(k + 1):
        c = binom[m, s]
        if out[s] > _INT64_MAX - c:
            raise ValueError("number of subsets overflows int64: m and k too large")
        out[s + 1] = out[s] + c
    return out


@numba.njit(cache=True)
def n_sets(m, k):
    """Number of subsets of ``range(m)`` with at most ``k`` elements: ``sum_{s<=k} C(m, s)``.

    Raises
    ------
    ValueError
        If ``m`` or ``k`` is negative, or the count exceeds int64.
    """
    return offsets(m, k)[k + 1]


@numba.njit(cache=True)
def colex_rank(positions):
    """Colex rank of a subset among the subsets of its size: ``sum_j C(c_j, j + 1)``.

    Parameters
    ----------
    positions : 1-D integer array
        Strictly ascending, non-negative.

    Returns
    -------
    int
        The rank; independent of the number of positions available.

    Raises
    ------
    ValueError
        If ``positions`` is not strictly ascending or has a negative entry.
    """
    s = positions.shape[0]
    r = 0
    prev = -1
    for j in range(s):
        c = positions[j]
        if c <= prev:
            raise ValueError("positions must be strictly ascending and non-negative")
        prev = c
        # C(c, j + 1) by the multiplicative formula; exact in integers.
        b = 1
        for t in range(j + 1):
            b = b * (c - t) // (t + 1)
        r += b
    return r


@numba.njit(cache=True)
def rank(positions, m):
    """Global rank of the subset ``positions`` of ``range(m)``.

    Parameters
    ----------
    positions : 1-D integer array
        Strictly ascending, each in ``range(m)``. May be empty.
    m : int
        Number of positions.

    Returns
    -------
    int
        ``offsets(m, s)[s] + colex_rank(positions)`` with ``s = len(positions)``;
        the same for every ``k >= s``.

    Raises
    ------
    ValueError
        If ``positions`` is not strictly ascending or leaves ``range(m)``.
    """
    s = positions.shape[0]
    if s > 0 and (positions[s - 1] >= m or positions[0] < 0):
        raise ValueError("positions must lie in range(m)")
    if s > m:
        raise ValueError("more positions than m")
    return offsets(m, s)[s] + colex_rank(positions)


@numba.njit(cache=True)
def _size_of(r, m, k):
    off = offsets(m, k)
    if r < 0 or r >= off[k + 1]:
        raise ValueError("rank must lie in range(n_sets(m, k))")
    s = 0
    while off[s + 1] <= r:
        s += 1
    return s, r - off[s]


@numba.njit(cache=True)
def unrank_into(r, m, k, out):
    """Write the positions of rank ``r`` into ``out``; return their number.

    The allocation-free form of :func:`unrank`, for inner loops: ``out`` needs
    room for ``k`` positions; entries after the returned size are untouched.

    Raises
    ------
    ValueError
        If ``r`` is outside ``range(n_sets(m, k))``.
    """
    s, rem = _size_of(r, m, k)
    c = m - 1
    for j in range(s - 1, -1, -1):
        # largest c with C(c, j + 1) <= rem
        while True:
            b = 1
            for t in range(j + 1):
                b = b * (c - t) // (t + 1)
            if b <= rem:
                break
            c -= 1
        out[j] = c
        rem -= b
        c -= 1
    return s


@numba.njit(cache=True)
def unrank(r, m, k):
    """The subset of global rank ``r``.

    Parameters
    ----------
    r : int
        In ``range(n_sets(m, k))``.
    m : int
        Number of positions.
    k : int
        Largest subset size. The result does not depend on ``k`` (ranks are
        stable as ``k`` grows); ``k`` only bounds ``r``.

    Returns
    -------
    numpy.ndarray of int64
        The positions, strictly ascending.

    Raises
    ------
    ValueError
        If ``r`` is outside ``range(n_sets(m, k))``.
    """
    buf = np.empty(k, dtype=np.int64)
    s = unrank_into(r, m, k, buf)
    return buf[:s].copy()


@numba.njit(cache=True)
def subset_table(m, k):
    """Every subset, in rank order, as a padded table.

    Returns
    -------
    sizes : numpy.ndarray of int64, shape (n_sets(m, k),)
        The size of the subset of each rank.
    positions : numpy.ndarray of int64, shape (n_sets(m, k), k)
        Row ``r`` holds ``unrank(r, m, k)`` followed by ``-1`` padding.
    """
    total = n_sets(m, k)
    sizes = np.zeros(total, dtype=np.int64)
    positions = np.full((total, max(k, 0)), -1, dtype=np.int64)
    c = np.empty(max(k, 1), dtype=np.int64)
    r = 1  # rank 0: the empty set
    for s in range(1, min(k, m) + 1):
        for j in range(s):
            c[j] = j
        while True:
            sizes[r] = s
            for j in range(s):
                positions[r, j] = c[j]
            r += 1
            # colex successor: bump the lowest position that can move up,
            # reset those below it to 0, 1, ...
            j = 0
            while j < s - 1 and c[j] + 1 == c[j + 1]:
                j += 1
            if j == s - 1 and c[j] + 1 == m:
                break
            c[j] += 1
            for i in range(j):
                c[i] = i
    return sizes, positions


@numba.njit(cache=True)
def set_members(positions, candidates, r, out):
    """The nodes of rank ``r``'s subset, mapped through one node's candidates.

    ``positions`` is :func:`subset_table`'s second result and ``candidates``
    a row of ``ScoreTable.candidates``.  Writes the nodes to ``out[:count]``
    and returns ``count``, or ``-1`` when the subset uses a padded (``-1``)
    candidate slot.
    """
    count = 0
    for q in range(positions.shape[1]):
        p = positions[r, q]
        if p < 0:
            break
        c = candidates[p]
        if c < 0:
            return -1
        out[count] = c
        count += 1
    return count


@numba.njit(cache=True)
def subset_masks(m, k):
    """The subset of each rank as a bit mask: bit ``p`` set iff position ``p`` is in it.

    Parameters
    ----------
    m : int
        Number of positions, at most 64.
    k : int
        Largest subset size.

    Returns
    -------
    numpy.ndarray of uint64, shape (n_sets(m, k),)

    Raises
    ------
    ValueError
        If ``m > 64``.
    """
    if m > 64:
        raise ValueError("subset_masks needs m <= 64")
    sizes, positions = subset_table(m, k)
    masks = np.zeros(sizes.shape[0], dtype=np.uint64)
    for r in range(sizes.shape[0]):
        mask = np.uint64(0)
        for j in range(sizes[r]):
            mask |= np.uint64(1) << np.uint64(positions[r, j])
        masks[r] = mask
    return masks
