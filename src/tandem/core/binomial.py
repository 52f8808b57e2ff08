"""The binomial rule of ``docs/spec.md``: successes in ``n`` trials from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``,
and its count is returned as an f64 (exact: ``n < 2**53``).  With
``p <= 1/2`` (else the count is ``n`` minus the count of ``1 - p``):

* ``n p < 10``: inversion of ``u``, the open uniform of ``d0``: ``k`` is the
  first count whose running sum of ``f_k`` (``f_0 = exp(n log1p(-p))``,
  ``f_k = (f_{k-1} ((n - k + 1) / k)) (p / q)``) reaches ``u``; a sum that
  stops growing, or ``k`` reaching ``n``, stops the count.
* ``n p >= 10``: Hörmann's transformed rejection (BTRS, 1993), as JAX and
  TensorFlow run it, on ``U = v(d0) - 1/2`` and ``V = v(d1)``.  Rejected
  attempts continue on lane ``g`` (the element's word) of the continuation
  key, attempt ``r = 0, 1, ...`` on block ``r``.

:func:`binomial_table_first` (the inversion read off :func:`inversion_table`)
and :func:`binomial_btrs_first` decide the first attempt with no branch, for
the kinds that scalar parameters take: the same counts.
:func:`binomial_btrs_fixed_first` reads BTRS's constants for one ``(n, p)``
from its :func:`btrs_table`, computed once a fill.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from .fmath import exp64, fma, log64
from ._marks import inline
from .inversion import TABLE_SIZE, count_below64, float_at, floor64, open_uniform64
from .special import log1p64, log_factorial64

#: Means ``n p`` (with ``p <= 1/2``) below this take the inversion, the others BTRS.
INVERSION_BELOW = 10.0


def binomial_inversion(u, n, p):
    """The count by sequential search of ``u`` (f64), ``p <= 1/2``."""
    q = 1.0 - p
    ratio = np.divide(p, q)
    f = exp64(fma(n, log1p64(0.0 - p), 0.0))
    total = f
    k = 0.0
    while u > total and k < n:
        k += 1.0
        f = fma(f * np.divide(n - k + 1.0, k), ratio, 0.0)  # a product, then a sum
        grown = total + f
        if grown == total:
            break
        total = grown
    return k


@inline
def _btrs_constants(n, p):
    """``(a, b, centre, squeeze, alpha, m, h, log_ratio)``: what BTRS's tests
    take from ``n`` and ``p`` alone: the hat's ``a`` and ``b``, ``n p + 1/2``,
    the squeeze's bound on ``V``, ``alpha``, the mode ``m``, ``h = log m! +
    log (n - m)!`` and ``log(p / q)``."""
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = fma(2.53, spq, 1.15)
    a = fma(0.0248, b, fma(0.01, p, -0.0873))
    m = floor64(fma(n, p, p))
    return (a, b, fma(n, p, 0.5), 0.92 - np.divide(4.2, b), (2.83 + np.divide(5.1, b)) * spq,
            m, log_factorial64(m) + log_factorial64(n - m), log64(np.divide(p, q)))


@inline
def _btrs_attempt(u, v, n, a, b, centre, squeeze, alpha):
    """``(k, squeezed, refused, lhs)`` of a BTRS attempt from the
    :func:`_btrs_constants`: its count, whether the squeeze accepts it,
    whether it is refused outright, and the left side of the full test,
    ``log(V alpha / (a / us**2 + b))``."""
    shifted = u - 0.5
    us = 0.5 - abs(shifted)
    k = floor64(fma(np.divide(a * 2.0, us) + b, shifted, centre))
    refused = (k < 0.0) | (k > n)
    squeezed = (us >= 0.07) & (v <= squeeze)
    lhs = log64(np.divide(v * alpha, np.divide(a, us * us) + b))
    return k, squeezed, refused, lhs


@inline
def _btrs_rhs(k, m, h, log_ratio, log_factorials):
    """The right side of BTRS's full test, with ``log_factorials = log k! +
    log (n - k)!``."""
    return fma(k - m, log_ratio, h - log_factorials)


def _btrs(u, v, n, p):
    """``(accepted, k)`` of one BTRS attempt on ``U = u - 1/2`` and ``V = v``."""
    a, b, centre, squeeze, alpha, m, h, log_ratio = _btrs_constants(n, p)
    k, squeezed, refused, lhs = _btrs_attempt(u, v, n, a, b, centre, squeeze, alpha)
    if refused:
        return False, k
    if squeezed:
        return True, k
    return lhs <= _btrs_rhs(k, m, h, log_ratio, log_factorial64(k) + log_factorial64(n - k)), k


@inline
def _btrs_selected(u, v, n, a, b, centre, squeeze, alpha, m, h, log_ratio):
    """``(k, accepted)`` of :func:`_btrs`, by selects, not branches."""
    k, squeezed, refused, lhs = _btrs_attempt(u, v, n, a, b, centre, squeeze, alpha)
    k_safe = min(max(k, 0.0), n)
    rhs = _btrs_rhs(k, m, h, log_ratio, log_factorial64(k_safe) + log_factorial64(n - k_safe))
    return k, (not refused) & (squeezed | (lhs <= rhs))


def _folded(n, p):
    """``(p', flipped)``: the count is of ``p' = min(p, 1 - p)``, flipped back if need be."""
    flipped = p > 0.5
    return (1.0 - p if flipped else p), flipped


def binomial_first(d0, d1, n, p):
    """``(count, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    small, flipped = _folded(n, p)
    u = open_uniform64(d0)
    if n * small < INVERSION_BELOW:
        k, accepted = binomial_inversion(u, n, small), True
    else:
        accepted, k = _btrs(u, open_uniform64(d1), n, small)
    return (n - k if flipped else k), accepted


@inline
def binomial_btrs_first(d0, d1, n, p):
    """:func:`binomial_first` where ``n min(p, 1 - p) >= 10``, by selects, not
    branches, so that a fill's loop vectorises: the same counts and
    acceptances."""
    small, flipped = _folded(n, p)
    a, b, centre, squeeze, alpha, m, h, log_ratio = _btrs_constants(n, small)
    k, accepted = _btrs_selected(open_uniform64(d0), open_uniform64(d1), n, a, b, centre,
                                 squeeze, alpha, m, h, log_ratio)
    return (n - k if flipped else k), accepted


def btrs_table(n, p):
    """BTRS's constants for ``n`` trials of ``p`` (``n min(p, 1 - p) >= 10``), as
    uint64 words of f64s: :func:`_btrs_constants` of ``min(p, 1 - p)``, for
    :func:`binomial_btrs_fixed_first`."""
    small, _ = _folded(n, p)
    return np.array(_btrs_constants(n, small), dtype=np.float64).view(np.uint64)


@inline
def binomial_btrs_fixed_first(d0, d1, n, p, table):
    """:func:`binomial_btrs_first` for one ``(n, p)``, whose constants a fill
    computes once (its :func:`btrs_table`): the same counts and acceptances."""
    k, accepted = _btrs_selected(open_uniform64(d0), open_uniform64(d1), n, float_at(table, 0),
                                 float_at(table, 1), float_at(table, 2), float_at(table, 3),
                                 float_at(table, 4), float_at(table, 5), float_at(table, 6),
                                 float_at(table, 7))
    return (n - k if p > 0.5 else k), accepted


def inversion_table(n, p):
    """The running sums of :func:`binomial_inversion` for ``n`` trials of ``p``
    (``n min(p, 1 - p) < 10``), as uint64 words of f64s: entry ``j`` is the
    sum up to count ``j``, and ``+inf`` from the count at which the sum stops
    growing or reaches ``n``.  The count of ``u`` is the number of entries
    below ``u`` (:func:`binomial_table_first`).

    Raises ``ValueError`` if the sums grow past
    :data:`tandem.core.inversion.TABLE_SIZE` entries (none with ``n p < 10``
    does).
    """
    p, _ = _folded(n, p)
    sums = np.full(TABLE_SIZE, np.inf)
    ratio = np.divide(p, 1.0 - p)
    f = exp64(fma(n, log1p64(0.0 - p), 0.0))
    total = f
    for k in range(1, TABLE_SIZE + 1):
        sums[k - 1] = total
        if k > n:
            return sums.view(np.uint64)
        f = fma(f * np.divide(n - k + 1.0, float(k)), ratio, 0.0)
        if total + f == total:
            return sums.view(np.uint64)
        total = total + f
    raise ValueError(f"the sums of {n} trials of {p} grow past {TABLE_SIZE} counts")


@inline
def binomial_table_first(d0, n, p, table):
    """:func:`binomial_first` where ``n min(p, 1 - p) < 10``, from the
    :func:`inversion_table` of ``(n, p)``, with no branch."""
    k = count_below64(open_uniform64(d0), table)
    return (n - k if p > 0.5 else k), True


def binomial_retry(generator, k0, k1, k2, k3, g, n, p):
    """The count of an element whose first BTRS attempt was rejected; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    small, flipped = _folded(n, p)
    b = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, b)
        accepted, k = _btrs(open_uniform64(join64(x0, x1)), open_uniform64(join64(x2, x3)),
                            n, small)
        if accepted:
            return n - k if flipped else k
        b += U64(1)
