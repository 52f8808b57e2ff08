"""The Poisson rule of ``docs/spec.md``: counts of mean ``lam`` from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``,
and its count is returned as an f64 (exact: counts stay below ``2**53``).

* ``lam < 10``: inversion of ``u``, the open uniform of ``d0``: ``k`` is the
  first count whose running sum of ``p_k`` (``p_0 = exp(-lam)``, ``p_k =
  p_{k-1} lam / k``) reaches ``u``; a sum that stops growing stops the count.
* ``lam >= 10``: Hörmann's transformed rejection with squeeze (PTRS, 1993),
  as NumPy's ``poisson`` runs it, on ``U = v(d0) - 1/2`` and ``V = v(d1)``.
  Rejected attempts continue on lane ``g`` (the element's word) of the
  continuation key, attempt ``r = 0, 1, ...`` on block ``r``.

:func:`poisson_table_first` (the inversion read off :func:`inversion_table`)
and :func:`poisson_ptrs_first` decide the first attempt with no branch, for
the kinds that scalar means take, and :func:`poisson_steps_first` for means
below 10 that differ by element (``docs/spec.md``, *Kinds with a law's
values*): the same counts.  :func:`poisson_ptrs_fixed_first` reads PTRS's
constants for one mean from its :func:`ptrs_table`, computed once a fill.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from .fmath import exp64, fma, log64
from .inversion import TABLE_SIZE, count_below64, float_at, floor64, open_uniform64
from ._marks import inline
from .special import log_factorial64

#: Means below this take the inversion, the others PTRS.
INVERSION_BELOW = 10.0


def poisson_inversion(u, lam):
    """The count by sequential search of ``u`` (f64)."""
    p = exp64(0.0 - lam)
    total = p
    k = 0.0
    while u > total:
        k += 1.0
        p = np.divide(p * lam, k)
        grown = total + p
        if grown == total:
            break
        total = grown
    return k


@inline
def _ptrs_hat(lam):
    """``(a, b)``: the constants of PTRS's hat for mean ``lam``."""
    b = fma(2.53, math.sqrt(lam), 0.931)
    return fma(0.02483, b, -0.059), b


@inline
def _ptrs_constants(lam):
    """``(a, b, squeeze, log_inv_alpha, log_lam)``: what PTRS's tests take from
    the mean alone (the squeeze's bound on ``V``, ``log(1 / alpha)`` and
    ``log lam``)."""
    a, b = _ptrs_hat(lam)
    squeeze = 0.9277 - np.divide(3.6224, b - 2.0)
    inv_alpha = 1.1239 + np.divide(1.1328, b - 3.4)
    return a, b, squeeze, log64(inv_alpha), log64(lam)


@inline
def _ptrs_attempt(u, v, lam, a, b, squeeze, log_inv_alpha, log_lam):
    """``(k, squeezed, refused, lhs, rhs)`` of a PTRS attempt from the mean's
    :func:`_ptrs_constants`: its count, whether the squeeze accepts it,
    whether it is refused outright, and the two sides of the full test,
    ``log(V / alpha) - log(a / us**2 + b)`` and ``k log lam - lam - log k!``."""
    shifted = u - 0.5
    us = 0.5 - abs(shifted)
    k = floor64(fma(np.divide(a * 2.0, us) + b, shifted, lam) + 0.43)
    squeezed = (us >= 0.07) & (v <= squeeze)
    refused = (k < 0.0) | ((us < 0.013) & (v > us))
    lhs = (log64(v) + log_inv_alpha) - log64(np.divide(a, us * us) + b)
    return k, squeezed, refused, lhs, fma(k, log_lam, 0.0 - lam) - log_factorial64(k)


def _ptrs(u, v, lam):
    """``(accepted, k)`` of one PTRS attempt on ``U = u - 1/2`` and ``V = v``."""
    a, b, squeeze, log_inv_alpha, log_lam = _ptrs_constants(lam)
    k, squeezed, refused, lhs, rhs = _ptrs_attempt(u, v, lam, a, b, squeeze, log_inv_alpha,
                                                   log_lam)
    if squeezed:
        return True, k
    if refused:
        return False, k
    return lhs <= rhs, k


#: Counts that :func:`poisson_steps_first` searches before it leaves the rest
#: of the search to :func:`poisson_inversion`.
SEARCH_STEPS = 16


@inline
def poisson_steps_first(d0, lam):
    """``(count, accepted)``: :func:`poisson_inversion` of ``u = v(d0)`` for a mean
    below 10, by :data:`SEARCH_STEPS` steps of selects, not branches; accepted
    where the search ended within them (the count is then the inversion's)."""
    u = open_uniform64(d0)
    p = exp64(0.0 - lam)
    total = p
    k = 0.0
    searching = u > total
    for _ in range(SEARCH_STEPS):
        following = k + 1.0
        p = np.divide(p * lam, following)
        grown = total + p
        k = following if searching else k
        still = searching & (grown != total) & (u > grown)
        total = grown if searching else total
        searching = still
    return k, not searching


def inversion_table(lam):
    """The running sums of :func:`poisson_inversion` for ``lam`` (below 10), as
    uint64 words of f64s: entry ``j`` is the sum up to count ``j``, and ``+inf``
    from the count at which the sum stops growing.  The count of ``u`` is the
    number of entries below ``u`` (:func:`poisson_table_first`).

    Raises ``ValueError`` if the sums grow past
    :data:`tandem.core.inversion.TABLE_SIZE` entries (no mean below 10 does:
    they stop at 47 counts at most).
    """
    sums = np.full(TABLE_SIZE, np.inf)
    p = exp64(0.0 - lam)
    total = p
    for k in range(1, TABLE_SIZE + 1):
        sums[k - 1] = total
        p = np.divide(p * lam, float(k))
        if total + p == total:
            return sums.view(np.uint64)
        total = total + p
    raise ValueError(f"the sums of mean {lam} grow past {TABLE_SIZE} counts")


@inline
def poisson_table_first(d0, table):
    """:func:`poisson_first` for a mean below 10 from its :func:`inversion_table`,
    with no branch: the number of entries below ``u``."""
    return count_below64(open_uniform64(d0), table), True


@inline
def _ptrs_selected(u, v, lam, a, b, squeeze, log_inv_alpha, log_lam):
    """``(k, accepted)`` of :func:`_ptrs`, by selects, not branches."""
    k, squeezed, refused, lhs, rhs = _ptrs_attempt(u, v, lam, a, b, squeeze, log_inv_alpha,
                                                   log_lam)
    return k, squeezed | ((not refused) & (lhs <= rhs))


def ptrs_table(lam):
    """PTRS's constants for the mean ``lam`` (at least 10), as uint64 words of
    f64s: ``lam``, then :func:`_ptrs_constants`, for
    :func:`poisson_ptrs_fixed_first`."""
    return np.array((lam, *_ptrs_constants(lam)), dtype=np.float64).view(np.uint64)


def poisson_first(d0, d1, lam):
    """``(count, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    u = open_uniform64(d0)
    if lam < INVERSION_BELOW:
        return poisson_inversion(u, lam), True
    accepted, k = _ptrs(u, open_uniform64(d1), lam)
    return k, accepted


@inline
def poisson_ptrs_first(d0, d1, lam):
    """:func:`poisson_first` for ``lam >= 10``, by selects, not branches, so
    that a fill's loop vectorises: the same counts and acceptances."""
    a, b, squeeze, log_inv_alpha, log_lam = _ptrs_constants(lam)
    return _ptrs_selected(open_uniform64(d0), open_uniform64(d1), lam, a, b, squeeze,
                          log_inv_alpha, log_lam)


@inline
def poisson_ptrs_fixed_first(d0, d1, table):
    """:func:`poisson_ptrs_first` for one mean, whose constants a fill computes
    once (its :func:`ptrs_table`): the same counts and acceptances."""
    return _ptrs_selected(open_uniform64(d0), open_uniform64(d1), float_at(table, 0),
                          float_at(table, 1), float_at(table, 2), float_at(table, 3),
                          float_at(table, 4), float_at(table, 5))


def poisson_retry(generator, k0, k1, k2, k3, g, lam):
    """The count of an element whose first PTRS attempt was rejected; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    b = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, b)
        accepted, k = _ptrs(open_uniform64(join64(x0, x1)), open_uniform64(join64(x2, x3)),
                            lam)
        if accepted:
            return k
        b += U64(1)
