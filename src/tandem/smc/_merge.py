"""Compiled passes of the filter for NumPy arrays (Numba): the inverse CDF of
sorted points in one merge, and one step's weighing and resampling.

The array code in :mod:`tandem.smc.filter` and :mod:`tandem.smc.resampling`
does the same on CuPy arrays.  The sums here run in index order, so results
may differ from the array code's in rounding (see ``bootstrap_filter``).
"""

import math

import numpy as np
from numba import njit, prange

SYSTEMATIC, STRATIFIED, MULTINOMIAL = 0, 1, 2
SCHEME_CODES = {"systematic": SYSTEMATIC, "stratified": STRATIFIED, "multinomial": MULTINOMIAL}


@njit(cache=True, inline="always")
def _advance(cdf, j, target):
    """The first index from ``j`` on whose cumulative weight exceeds ``target``
    (the last index when none does)."""
    last = cdf.size - 1
    while j < last and cdf[j] <= target:
        j += 1
    return j


@njit(cache=True)
def _merge(cdf, points, out):
    j = 0
    for k in range(points.size):
        j = _advance(cdf, j, points[k])
        out[k] = j


def inverse_cdf_sorted(cdf, points):
    """``minimum(searchsorted(cdf, points, side="right"), cdf.size - 1)`` for
    sorted ``points``: the same indices, in O(n) rather than O(n log n)."""
    out = np.empty(points.size, dtype=np.int64)
    _merge(cdf, points, out)
    return out


@njit(cache=True)
def weigh(log_weights, x, w, cdf, mean, variance):
    """One step's weights and moments in three passes.

    Writes ``w = exp(log_weights - top)``, ``cdf = cumsum(w)`` and the
    weighted ``mean`` and ``variance`` of the rows of ``x`` (shape
    ``(n, d)``); returns ``(top, total, sum of w**2)``.  ``top`` is NaN when
    a log-weight is NaN and not finite when no weight is positive; the
    outputs are then not written.
    """
    top = -math.inf
    for i in range(log_weights.size):
        v = log_weights[i]
        if math.isnan(v):
            return v, 0.0, 0.0
        top = max(top, v)
    if not math.isfinite(top):
        return top, 0.0, 0.0
    total = squares = 0.0
    for i in range(log_weights.size):
        wi = math.exp(log_weights[i] - top)
        w[i] = wi
        total += wi
        cdf[i] = total
        squares += wi * wi
    # Column by column, so that each sum is a local scalar.
    for j in range(x.shape[1]):
        first = 0.0
        for i in range(log_weights.size):
            first += w[i] * x[i, j]
        m = first / total
        second = 0.0
        for i in range(log_weights.size):
            d = x[i, j] - m
            second += w[i] * d * d
        mean[j] = m
        variance[j] = second / total
    return top, total, squares


# Points per prange iteration of the resampling merge: fixed, so the result
# never depends on the thread count.
_MERGE_CHUNK = 1 << 14


@njit(cache=True, parallel=True)
def resample_into(scheme, cdf, u, x, out):
    """``out[k] = x[a_k]``, the ancestors of ``scheme`` (a ``SCHEME_CODES``
    value) from the unnormalised ``cdf`` and its uniforms ``u`` (sorted for
    multinomial): the rule of :func:`tandem.smc.resample`, as a merge of the
    sorted points into ``cdf``, in chunks that start by binary search."""
    n = cdf.size
    total = cdf[n - 1]
    for c in prange((n + _MERGE_CHUNK - 1) // _MERGE_CHUNK):
        j = -1
        for k in range(c * _MERGE_CHUNK, min(n, (c + 1) * _MERGE_CHUNK)):
            if scheme == SYSTEMATIC:
                point = (k + u[0]) / n
            elif scheme == STRATIFIED:
                point = (k + u[k]) / n
            else:
                point = u[k]
            target = point * total
            if j < 0:
                j = min(np.searchsorted(cdf, target, side="right"), n - 1)
            j = _advance(cdf, j, target)
            for d in range(x.shape[1]):
                out[k, d] = x[j, d]
