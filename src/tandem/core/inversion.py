"""Distributions by inversion of one open uniform: the f64 rules of ``docs/spec.md``.

Each takes ``v``, the open uniform of a 64-bit draw ``d``
(:func:`open_uniform64`), and returns the standard variate (location 0,
scale 1, or the distribution's own shape).  ``v`` lies strictly inside
``(0, 1)`` on a grid symmetric about 1/2, so ``1 - v``, ``2 v`` and
``2 (1 - v)`` are exact and no rule meets ``log(0)`` or a pole.

Only ``+ - * /``, ``sqrt`` (correctly rounded on every target) and the
functions of :mod:`tandem.core.fmath`, under its rule that a rounded
product never feeds a sum; so the same bits on every target and as plain
Python.  Quotients are ``np.divide``, as in ``log64``: on the CPU ``/``
carries a zero-divisor branch that stops a calling loop from vectorising.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .bijections import U64
from ._marks import inline
from .fmath import exp64, fma, log64, sincos2pi64
from .special import expm1_64, log1p64

_ONE, _TWELVE = U64(1), U64(12)
_HALF_ULP = 2.0**-53
# exp64 is exact to 1 ulp on [-708, 709]; beyond, e**x is exp(x / 2) squared.
_EXP_LOW, _EXP_HIGH = -708.0, 709.0
_EXP_OVERFLOW = 709.782712893384  # above log(max float64): inf
_EXP_UNDERFLOW = -745.2  # below log(the least subnormal / 2): 0
_HALF_OVERFLOW, _HALF_UNDERFLOW = 354.89, -372.6  # within half of those
_TWO52 = 4503599627370496.0  # from here on every float64 is an integer
#: Counts from here on are returned as the largest int64, as NumPy's geometric.
COUNT_LIMIT = 2.0**63
_INT64_MAX = np.int64(2**63 - 1)
_INFINITY = float("inf")


def floor64(x):
    """``floor(x)`` as a float64, by exact additions (numba-cuda has no ``floor``
    ufunc of a scalar): ``a + 2**52 - 2**52`` rounds ``a = |x| < 2**52`` to an
    integer exactly, and a step of one corrects it."""
    # Selects, not branches, so that a calling loop vectorises.
    a = abs(x)
    r = a if a >= _TWO52 else (a + _TWO52) - _TWO52
    down = r - 1.0 if r > a else r
    up = r + 1.0 if r < a else r
    return down if x >= 0.0 else 0.0 - up


def ceil64(x):
    """``ceil(x)`` as a float64: ``-floor64(-x)``."""
    return 0.0 - floor64(0.0 - x)


def open_uniform64(d):
    """``(2 (d >> 12) + 1) / 2**53``: the open uniform of the 64-bit draw ``d``.

    Its values are the odd multiples of ``2**-53`` in ``(0, 1)``, each with
    probability ``2**-52``; ``1 - v`` is another of them, exactly.
    """
    return np.float64(((d >> _TWELVE) << _ONE) | _ONE) * _HALF_ULP


def exp_wide64(x):
    """``e**x`` for every float64 ``x`` but NaN: :func:`tandem.core.fmath.exp64`
    on ``[-708, 709]`` (1 ulp), ``exp64(x / 2)`` squared outside it (2 ulp,
    subnormals rounded once more), ``inf`` above ``709.7827...`` and ``0``
    below ``-745.2``."""
    # Selects, not branches, so that a calling loop vectorises.
    inside = (x >= _EXP_LOW) & (x <= _EXP_HIGH)
    # Outside, exp(x / 2) clamped where the square is inf or 0 anyway.
    e = exp64(x if inside else min(max(x * 0.5, _HALF_UNDERFLOW), _HALF_OVERFLOW))
    value = e if inside else fma(e, e, 0.0)
    value = _INFINITY if x > _EXP_OVERFLOW else value
    return 0.0 if x < _EXP_UNDERFLOW else value


def laplace_standard(v):
    """``log(2 v)`` below 1/2, ``-log(2 (1 - v))`` above: Laplace(0, 1)."""
    # Arithmetic, not branches or an early return, which kept a fill's loop
    # 4x slower (docs/performance.md).  y is never 0: v is never 1/2.
    y = log64(min(v, 1.0 - v) * 2.0)
    return y * (1.0 if v < 0.5 else -1.0)


def logistic_standard(v):
    """``log(v) - log(1 - v)``: logistic(0, 1)."""
    return log64(v) - log64(1.0 - v)


def gumbel_standard(v):
    """``-log(-log v)``: Gumbel(0, 1), the maximum's extreme-value law."""
    return 0.0 - log64(0.0 - log64(v))


def cauchy_standard(v):
    """``cos(π v) / sin(π v)``: Cauchy(0, 1) (``sin(π v) > 0`` on the grid of ``v``)."""
    s, c = sincos2pi64(v * 0.5)
    return np.divide(c, s)


def rayleigh_standard(v):
    """``sqrt(-2 log v)``: Rayleigh with scale 1."""
    return math.sqrt(log64(v) * -2.0)


@inline
def weibull_standard(v, a):
    """``(-log v) ** (1 / a)`` as ``exp(log(-log v) / a)``; 0 when ``a`` is 0."""
    x = exp_wide64(np.divide(log64(0.0 - log64(v)), a))
    return 0.0 if a == 0.0 else x


@inline
def power_standard(v, a):
    """``v ** (1 / a)`` as ``exp(log(v) / a)``: the power law on ``[0, 1]``."""
    return exp_wide64(np.divide(log64(v), a))


def triangular_standard(v, left, mode, right):
    """The inverse distribution function of the triangle ``(left, mode, right)``.

    With ``base = right - left``: ``left + sqrt(v (mode - left) base)`` where
    ``v`` is at most ``(mode - left) / base``, else ``right - sqrt((1 - v)
    (right - mode) base)``, each difference rounded once.
    """
    base = right - left
    rise = mode - left
    if v * base <= rise:
        return left + math.sqrt(v * rise * base)
    return right - math.sqrt((1.0 - v) * (right - mode) * base)


@inline
def pareto_standard(v, a):
    """``expm1(-log(v) / a)``: the Lomax (Pareto II) law of NumPy's ``pareto``."""
    return expm1_64(np.divide(0.0 - log64(v), a))


@inline
def geometric_count(v, p):
    """``ceil(log(v) / log1p(-p))`` as an f64, the trials up to the first success;
    1 when ``p`` is 1."""
    k = ceil64(np.divide(log64(v), log1p64(0.0 - p)))
    return 1.0 if p == 1.0 else k


def count64(k):
    """The f64 count ``k`` (``k >= 0``) as an int64: ``k`` itself below
    :data:`COUNT_LIMIT`, and the largest int64 from there on.

    Examples
    --------
    >>> int(count64(3.0)), int(count64(1e300))
    (3, 9223372036854775807)
    """
    return np.int64(k) if k < COUNT_LIMIT else _INT64_MAX


#: Entries of the tables that :func:`count_below64` searches.
TABLE_SIZE = 64


@inline
def float_at(table, j):
    """Entry ``j`` of ``table``, a uint64 word, as the f64 of its bits."""
    return np.uint64(table[j]).view(np.float64)


@inline
def _below(table, k, step, u):
    """``k + step`` if entry ``k + step - 1`` of ``table`` is below ``u``, else ``k``."""
    # Arithmetic, not a conditional, which trips Numba's SSA check once inlined.
    return k + step * np.int64(u > float_at(table, k + step - 1))


@inline
def count_below64(u, table):
    """The number of entries of ``table`` below ``u``, as an f64, by a binary
    search with no branch.

    ``table`` holds :data:`TABLE_SIZE` nondecreasing f64s as uint64 words, its
    last ``+inf``.
    """
    k = _below(table, 0, 32, u)
    k = _below(table, k, 16, u)
    k = _below(table, k, 8, u)
    k = _below(table, k, 4, u)
    k = _below(table, k, 2, u)
    k = _below(table, k, 1, u)
    return float(k)
