"""Compiled passes of the filter for NumPy arrays (Numba): the inverse CDF of
sorted points in one merge, and one step's weighing and resampling.

The array code in :mod:`tandem.smc.filter` and :mod:`tandem.smc.resampling`
does the same on CuPy arrays.  The sums here run in index order, so results
may differ from the array code's in rounding (see ``bootstrap_filter``).
"""

import math

import numpy as np
from numba import njit, prange

from .. import core, parallel
from ..core.bijections import U64

core.register()
_exp64 = core.exp64
# exp64 needs x >= -708; below, a weight is under 3.3e-308 of the largest and is 0.
_EXP_FLOOR = -708.0

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


# Elements per prange iteration of the compiled passes: fixed, so that every
# sum and the resampling never depend on the thread count; small enough that
# 10**5 particles split evenly over two threads (25 chunks, not 7).
_CHUNK = 1 << 12


@njit(cache=True)
def _at(x, i, j):
    """``x[i, j]``, or ``x[i]`` for a vector ``x``."""
    if x.ndim == 1:
        return x[i]
    return x[i, j]


@parallel.guarded
@njit(cache=True, parallel=True)
def weigh(log_weights, x, w, cdf, mean, variance):
    """One step's weights and moments, in parallel passes over fixed chunks.

    Writes ``w = exp(log_weights - top)`` (:func:`tandem.core.exp64`, and 0
    below ``exp(-708)``), ``cdf`` (the cumulative sum of
    ``w``: within each chunk of ``_CHUNK`` elements in order, plus the sum
    of the chunks before) and the weighted ``mean`` and ``variance`` of the
    particles ``x`` (shape ``(n,)``, or ``(n, d)`` for ``d`` columns);
    returns ``(top, total, sum of w**2)``.  ``top`` is NaN when a log-weight
    is NaN and not finite when no weight is positive; the outputs are then
    not written.
    """
    n = x.shape[0]
    d = mean.size
    chunks = (n + _CHUNK - 1) // _CHUNK
    tops = np.empty(chunks)
    for c in prange(chunks):
        top = -math.inf
        nan = False
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            v = log_weights[i]
            nan |= v != v
            top = max(top, v)
        tops[c] = math.nan if nan else top
    top = -math.inf
    for c in range(chunks):
        if math.isnan(tops[c]):
            return tops[c], 0.0, 0.0
        top = max(top, tops[c])
    if not math.isfinite(top):
        return top, 0.0, 0.0
    # per chunk: sum of w, of w**2, and of w x_j for each column j
    sums = np.zeros((chunks, 2 + d))
    for c in prange(chunks):
        first, stop = c * _CHUNK, min(n, (c + 1) * _CHUNK)
        for i in range(first, stop):  # vectorised: no branch
            v = log_weights[i] - top
            wi = _exp64(max(v, _EXP_FLOOR))
            w[i] = wi if v >= _EXP_FLOOR else 0.0
        # One loop for the three sums of the first column: their additions
        # wait on each other's latency less than in three loops.
        running = squares = weighted = 0.0
        for i in range(first, stop):
            wi = w[i]
            running += wi
            cdf[i] = running
            squares += wi * wi
            weighted += wi * _at(x, i, 0)
        sums[c, 0] = running
        sums[c, 1] = squares
        sums[c, 2] = weighted
        for j in range(1, d):
            weighted = 0.0
            for i in range(first, stop):
                weighted += w[i] * _at(x, i, j)
            sums[c, 2 + j] = weighted
    before = np.empty(chunks)
    total = squares = 0.0
    mean[:] = 0.0
    for c in range(chunks):
        before[c] = total
        total += sums[c, 0]
        squares += sums[c, 1]
        for j in range(d):
            mean[j] += sums[c, 2 + j]
    mean /= total
    spread = np.zeros((chunks, d))
    for c in prange(chunks):
        first, stop = c * _CHUNK, min(n, (c + 1) * _CHUNK)
        for i in range(first, stop):
            cdf[i] += before[c]
        for j in range(d):
            second = 0.0
            for i in range(first, stop):
                e = _at(x, i, j) - mean[j]
                second += w[i] * e * e
            spread[c, j] = second
    for j in range(d):
        second = 0.0
        for c in range(chunks):
            second += spread[c, j]
        variance[j] = second / total
    return top, total, squares


def _inlined(fn):
    return core.jitable_cpu(fn, inline=True)


def _make_resampler(scheme):
    """The compiled resampling pass of one scheme (see :func:`resample_into`).

    The scheme is a constant of each pass, so that its walks carry no switch.
    The helpers are plain functions made callable from compiled code, not
    dispatchers: Numba keys the pass's disk cache on its closure's pickle,
    and a dispatcher's differs in every process.
    """

    @_inlined
    def point(u, n, k):
        """Point ``k`` in units of ``1 / n`` of the total weight."""
        if scheme == SYSTEMATIC:
            return k + u[0]
        if scheme == STRATIFIED:
            return k + u[k]
        return u[k] * n

    @_inlined
    def points_below(u, n, v, c):
        """The number of points below ``v``, by walking from the guess ``c``
        (the points rise with ``k``)."""
        c = min(n, max(0, c))
        while c < n and point(u, n, c) < v:
            c += 1
        while c > 0 and not point(u, n, c - 1) < v:
            c -= 1
        return c

    @_inlined
    def slots_before(cdf, u, scale, i):
        """The slots of the offspring of particles ``0 .. i - 1``."""
        n = cdf.size
        v = cdf[i - 1] * scale
        return points_below(u, n, v, np.int64(v))

    @core.jitable_cpu
    def fill(cdf, u, x, out, scale, first, stop, start, end):
        """Slots ``start`` to ``end`` of ``out``: the offspring of particles
        ``first`` to ``stop``.  The slot and particle indices are unsigned,
        which Numba does not test for negative wrap-around."""
        n = cdf.size
        k, k_end = U64(start), U64(end)
        for i in range(U64(first), U64(stop)):
            c = k_end
            if i + U64(1) < U64(stop):
                v = cdf[i] * scale
                if scheme == SYSTEMATIC:
                    guess = np.int64(math.ceil(v - u[0]))
                elif scheme == STRATIFIED:
                    guess = min(n - 1, max(0, np.int64(v)))
                    guess += np.int64(point(u, n, guess) < v)  # no branch
                else:
                    guess = np.int64(k)
                c = U64(points_below(u, n, v, min(end, max(np.int64(k), guess))))
            if x.ndim == 1:
                if k + U64(4) <= k_end:
                    # Four stores whatever the count (the slots past c are
                    # rewritten by the particles after i), so that the loop
                    # seldom branches on how many offspring i has.
                    value = x[i]
                    out[k] = value
                    out[k + U64(1)] = value
                    out[k + U64(2)] = value
                    out[k + U64(3)] = value
                    for m in range(k + U64(4), c):
                        out[m] = value
                else:
                    for m in range(k, c):
                        out[m] = x[i]
            else:
                for m in range(k, c):
                    for j in range(x.shape[1]):
                        out[m, j] = x[i, j]
            k = c

    @parallel.guarded
    @njit(cache=True, parallel=True)
    def resample(cdf, u, x, out):
        n = cdf.size
        scale = n / cdf[n - 1]
        for chunk in prange((n + _CHUNK - 1) // _CHUNK):
            first, stop = chunk * _CHUNK, min(n, (chunk + 1) * _CHUNK)
            start = 0 if first == 0 else slots_before(cdf, u, scale, first)
            end = n if stop == n else slots_before(cdf, u, scale, stop)
            fill(cdf, u, x, out, scale, first, stop, start, end)

    return resample


_RESAMPLERS = {code: _make_resampler(code) for code in SCHEME_CODES.values()}


def resample_into(scheme, cdf, u, x, out):
    """``out[k] = x[a_k]``, the ancestors of ``scheme`` (a ``SCHEME_CODES``
    value) from the unnormalised ``cdf`` and its uniforms ``u`` (sorted for
    multinomial); ``x`` and ``out`` have shape ``(n,)`` or ``(n, d)``.

    The rule of :func:`tandem.smc.resample`, in units of ``1 / n`` of the
    total weight: ``a_k`` is the first ``i`` (at most ``n - 1``) with
    ``p_k < cdf[i] * (n / cdf[-1])``, where ``p_k`` is ``k + u[0]``
    (systematic), ``k + u[k]`` (stratified) or ``n u[k]`` (multinomial),
    each rounded once.  Particle ``i`` fills the slots from the number of
    points below its predecessor's scaled cumulative weight to the number
    below its own.  That count is guessed from the weight (the previous
    count for multinomial) and settled by walking, so the loop rarely
    branches the wrong way, and chunks of particles run in parallel.
    """
    _RESAMPLERS[scheme](cdf, u, x, out)
