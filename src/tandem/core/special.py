"""The f64 special functions of the contract: log1p, expm1, lgamma and acos.

The distribution rules that need them (Poisson PTRS, binomial BTPE, the
geometric and Pareto maps, ...) call them through the same contract as
:mod:`tandem.core.fmath`: one Python source that gives the same bits on
every target and as plain Python.  The rules are that module's: no libm,
only +, -, *, /, exact bit manipulation and the explicit :func:`fma` (and,
in ``acos64``, ``math.sqrt``, correctly rounded on every target too), and a
rounded product is never an operand of + or - nor the addend of an ``fma``
(``tests/test_special.py`` checks it on the LLVM IR).  Branches are
comparisons of exact values, so every target takes the same one.

The building blocks are the reductions and polynomials of ``log64`` and
``exp64``, with more of their leading terms exact: a logarithm as an exact
leading part plus a rest below ``2**-12`` of it (:func:`_log_core`),
``e**r - 1`` as ``r + r**2/2 + r**3 c`` summed exactly plus a rest, and
``lgamma(2 + t) = t P(t)`` on ``[-1/2, 1/2]`` likewise (:func:`_lgamma2`),
and, for ``acos64``, ``asin(u) = u + u**3 P(u**2)`` on ``[-1/2, 1/2]``
with its three leading terms exact products.  Each public function adds its
parts exactly (Fast2Sum, TwoSum) or in an order whose roundings are far
below the result's ulp, and rounds once at the end.

Accuracy: within 1 ulp, and nearly correctly rounded.  Measured by
``tools/ulp_accuracy.py`` (the reference is x87 ``longdouble`` for log1p,
expm1 and acos, mpmath for lgamma) on 2**22 inputs a set for log1p64,
expm1_64 and acos64 and 2**18 for lgamma64, the maximum is 0.501 ulp for
log1p64, 0.509 for expm1_64, 0.519 for lgamma64 and 0.503 for acos64,
relative to the result also next to lgamma's zeros at 1 and 2 and to
acos's at 1, and 99.9 % of results or more are correctly rounded.
``tests/test_special.py`` pins these bounds on smaller sets.

Polynomial coefficients: interpolants of the named functions at the
Chebyshev nodes of the stated interval, computed with mpmath at 60 digits
and rounded to the nearest double (``tools/ulp_accuracy.py --coefficients``
prints them, and the other constants); lowest degree first.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .bijections import U64
from ._marks import inline
from .fmath import (_EXP_ONE, _EXP_Q, _EXP_SHIFT, _LN2_HI, _LN2_HI32, _LN2_LO,
                    _LN2_LO32_HALF, _LOG2E, _LOG_CARRY, _LOG_Q, _ROUND, _TWO52, _TWO52_BITS, fma)

_INF = np.float64(np.inf)
_NAN = np.uint64(0x7FF8000000000000).view(np.float64)  # the one NaN these functions return
# Below this magnitude x is the correctly rounded log1p(x) and expm1(x): the
# next term, x**2 / 2, is under half an ulp of x.
_TINY = 2.0**-53
_MIN_NORMAL = 2.0**-1022
_TWO54 = 2.0**54
_ONE_BINADE = U64(1) << _EXP_SHIFT  # added to the bits of a normal double: times 2

# ---- log ----------------------------------------------------------------------
# _LOG_Q[0] + _LOG_Q0_LO is the leading coefficient of fmath's _LOG_Q at 60
# digits (the interpolant's, 1e-18 from 1/3); with it _LOG_Q's error is 2**-59.3,
# its truncation error 2**-59.7.
_LOG_Q0_LO = 1.749507102278726e-17
_TWO_Q0 = 2.0 * _LOG_Q[0]  # exact

# ---- expm1 ------------------------------------------------------------------
# The largest double whose e**x - 1 rounds to a finite value (0x1.62e42fefa39efp+9,
# the double below 1024 ln 2); above it expm1_64 is +inf.
_EXPM1_MAX = 709.782712893384
# Below this e**x < 2**-54, so e**x - 1 rounds to -1.
_EXPM1_MINUS_ONE = -38.0
# _EXP_Q[1] + _EXP_Q1_LO is that coefficient of fmath's _EXP_Q at 60 digits; with
# it _EXP_Q's error is 2**-59.1, its truncation error 2**-59.3 (_EXP_Q[0] is 1/2).
_EXP_Q1_LO = -3.062633156486456e-18
_BIAS_HALF = U64(1022)  # (k + 1022) << 52 are the bits of 2**(k - 1)

# ---- lgamma -------------------------------------------------------------------
# lgamma(2 + t) = t P(t) on t in [-1/2, 1/2], degree 19; P(0) = 1 - Euler's gamma.
# The three leading coefficients are double-doubles: _LGAMMA_P[i] + _LGAMMA_P_LO[i].
# The polynomial's relative error is 2**-59.7 (its truncation error 2**-61.5).
_LGAMMA_P = (0.42278433509846713, 0.3224670334241132, -0.06735230105319814,
             0.02058080842778457, -0.0073855510286681535, 0.002890510330738737,
             -0.0011927539120010226, 0.0005096695248853096, -0.00022315475074520367,
             9.945750909889392e-05, -4.4926351103833334e-05, 2.050726741605779e-05,
             -9.438458716242811e-06, 4.374374916915131e-06, -2.0449201467015115e-06,
             9.578663334114758e-07, -4.303558760359961e-07, 2.0304806751615227e-07,
             -1.3412819758517287e-07, 6.379047507619774e-08)
_LGAMMA_P_LO = (4.998234382459033e-18, 1.5176930390577985e-17, 4.2673097680518815e-18)
# Stirling, for x >= 8: lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + R(1/x**2) / x,
# R on [0, 1/64], degree 6; relative error below 2**-54 (the rounding of 1/12), which
# is below 2**-63 of lgamma(x).
_STIRLING_R = (0.08333333333333333, -0.002777777777773988, 0.0007936507897524059,
               -0.0005952365845057049, 0.0008414700852503147, -0.001890382993887715,
               0.005065905360156132)
_STIRLING_X = 8.0  # from here on Stirling, below it the recurrence down or up to [1.5, 2.5]
# log(2 pi) / 2 = _HALF_LOG_2PI_HI + _HALF_LOG_2PI_LO, to 2**-106 relative.
_HALF_LOG_2PI_HI = 0.9189385332046728
_HALF_LOG_2PI_LO = -3.8782941580672414e-17
# The largest double whose lgamma rounds to a finite value (0x1.754d9278b51a7p+1014);
# above it lgamma64 is +inf.
_LGAMMA_MAX = 2.5599833278516383e+305

# ---- acos -----------------------------------------------------------------------
# asin(u) = u + u**3 P(u**2) on u**2 in [0, 1/4], degree 13; P(0) = 1/6.  The leading
# coefficient is a double-double, _ACOS_P[0] + _ACOS_P_LO[0] (the interpolant's, 8e-19
# below 1/6).  The polynomial's relative error is 2**-57.4, its absolute error 2**-59.7,
# nearly all of it truncation.
_ACOS_P = (0.16666666666666666, 0.07500000000000118, 0.044642857142551895,
           0.03038194447553234, 0.02237215744350722, 0.017352816540325496,
           0.01396378001220357, 0.011566459612121669, 0.009621842970100282,
           0.009319560794767446, 0.0030448799094556773, 0.019554513336123378,
           -0.01924167174674304, 0.02961201126495512)
_ACOS_P_LO = (8.50045543368705e-18,)
# pi/2 = _PI_2_HI + _PI_2_LO to 2**-109 relative (the values of fmath's _A_HI and
# _A_LO), and pi = _PI_HI + _PI_LO, their doubles (exact).
_PI_2_HI = 1.5707963267948966  # 0x1.921fb54442d18p+0
_PI_2_LO = 6.123233995736766e-17  # 0x1.1a62633145c07p-54
_PI_HI = 2.0 * _PI_2_HI
_PI_LO = 2.0 * _PI_2_LO
# m P0 and m P1 for m = -1 and -2 (exact): the three cases' multiples are selected, not
# computed.
_MP0 = -_ACOS_P[0]
_M2P0 = -2.0 * _ACOS_P[0]
_MP1 = -_ACOS_P[1]
_M2P1 = -2.0 * _ACOS_P[1]


def _log_reduce(x):
    """``(k, f)`` with ``x = 2**k (1 + f)`` exactly and ``1 + f`` in ``[sqrt(1/2), sqrt(2))``.

    For positive finite ``x``, subnormals included (they are scaled by
    ``2**54`` first).  The reduction of :func:`tandem.core.fmath.log64`.
    """
    # Selects, not a branch, so that a calling loop vectorises.
    subnormal = x < _MIN_NORMAL
    shift = 54.0 if subnormal else 0.0
    x = x * _TWO54 if subnormal else x  # exact; the product only feeds bit operations
    bits = np.float64(x).view(np.uint64)
    kb = (bits + _LOG_CARRY) >> _EXP_SHIFT  # k + 1023
    z = np.uint64(bits + _EXP_ONE - (kb << _EXP_SHIFT)).view(np.float64)
    k = np.uint64(kb | _TWO52_BITS).view(np.float64) - (_TWO52 + 1023.0 + shift)
    return k, z - 1.0


def _log_core(k, f, extra):
    """``log(2**k (1 + f)) + extra`` as an unrounded sum ``head + low``.

    ``k`` is an integer below ``2**21`` in magnitude, ``f`` is exact and
    ``1 + f`` in ``[sqrt(1/2), sqrt(2))`` (to within a few ulps), and
    ``|extra|`` is at most ``2**-52`` of the result.  ``head`` is exact,
    ``|low|`` below ``2**-12`` of it, and ``head + low`` within ``2**-62``
    of the result, relative.

    :func:`tandem.core.fmath.log64`'s reduction and polynomial, with the
    leading term of ``atanh(s) - s``, ``s**3 Q0``, exact too: ``s**3`` as
    a double-double, ``Q0`` as one (``_LOG_Q[0] + _LOG_Q0_LO``), and the
    product ``2 s**3 _LOG_Q[0]`` summed exactly into the head.  What
    rounds is ``s**5 Q2(s**2)`` and the rounding errors, below ``2**-12``
    of the result together.
    """
    d = 2.0 + f
    s = np.divide(f, d)
    e = fma(-2.0, s, f)  # f - 2s, exact
    # s + c is f / (2 + f) to about 2**-104 relative: c undoes both roundings of s.
    c = np.divide(fma(-s, f, e), d)
    z2 = fma(s, s, 0.0)
    z2_err = fma(s, s, -z2)
    s3 = fma(s, z2, 0.0)
    s3_err = fma(s, z2_err, fma(s, z2, -s3))  # s**3 = s3 + s3_err
    # Q(z) = _LOG_Q[0] + z Q2(z)
    q2 = fma(fma(fma(fma(fma(fma(_LOG_Q[7], z2, _LOG_Q[6]), z2, _LOG_Q[5]), z2, _LOG_Q[4]),
                     z2, _LOG_Q[3]), z2, _LOG_Q[2]), z2, _LOG_Q[1])
    m = fma(s3, _TWO_Q0, 0.0)
    m_err = fma(s3, _TWO_Q0, -m)  # 2 s3 _LOG_Q[0] = m + m_err
    # half of the small terms: c (1 + s**2) (atanh' = 1 / (1 - s**2)), the rest of
    # s**3 Q0, s**5 Q2(s**2) and k ln2_lo / 2
    half_tail = fma(s3 * z2, q2, fma(s3, _LOG_Q0_LO, fma(s3_err, _LOG_Q[0], fma(
        k, _LN2_LO32_HALF, fma(c, z2, c)))))
    # k ln2_hi + f - e + m = head + the three errors, exactly, by three Fast2Sums:
    # k ln2_hi is exact and |k ln2_hi| >= |f| (or k = 0); |hi| >= |e|; |head| >= |m|.
    hi = fma(k, _LN2_HI32, f)
    hi_err = fma(k, _LN2_HI32, -hi) + f
    head = hi - e
    head_err = (hi - head) - e
    head_m = head + m
    head_m_err = (head - head_m) + m
    errors = ((hi_err + head_err) + (head_m_err + m_err)) + extra
    return head_m, fma(2.0, half_tail, errors)


def _log_parts(hi, lo):
    """``log(hi + lo)`` as ``head + low`` (see :func:`_log_core`), for ``hi > 0``
    (subnormals included) and ``|lo| <= 2**-52 hi``."""
    k, f = _log_reduce(hi)
    # log(hi + lo) = log(hi) + lo / hi - (lo / hi)**2 / 2 ..., the rest below 2**-105
    return _log_core(k, f, np.divide(lo, hi))


def _lgamma2(t):
    """``lgamma(2 + t)`` as an unrounded sum ``hi + lo``, for exact ``t`` in ``[-1/2, 1/2]``.

    ``t P(t)`` with the three leading terms as exact products (their
    coefficients double-doubles) summed exactly, so that the rest is below
    1.1 % of the result and its roundings count little; ``hi + lo`` is
    within ``2**-59.5`` of ``lgamma(2 + t)``, relative, and exactly ``+0.0``
    at ``t = 0``.
    """
    p = _LGAMMA_P
    r = fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(
        p[19], t, p[18]), t, p[17]), t, p[16]), t, p[15]), t, p[14]), t, p[13]), t, p[12]),
        t, p[11]), t, p[10]), t, p[9]), t, p[8]), t, p[7]), t, p[6]), t, p[5]), t, p[4]),
        t, p[3])
    t2 = fma(t, t, 0.0)
    t2_err = fma(t, t, -t2)  # t**2 = t2 + t2_err
    t3 = fma(t2, t, 0.0)
    t3_err = fma(t2_err, t, fma(t2, t, -t3))  # t**3 = t3 + t3_err, to 2**-104
    a = fma(t, p[0], 0.0)
    a_err = fma(t, p[0], -a)
    b = fma(t2, p[1], 0.0)
    b_err = fma(t2, p[1], -b)
    c = fma(t3, p[2], 0.0)
    c_err = fma(t3, p[2], -c)
    # Fast2Sums: |a| >= 2.6 |b| and |a + b| >= 15 |c| for |t| <= 1/2
    s = a + b
    s_err = (a - s) + b
    u = s + c
    u_err = (s - u) + c
    errors = ((a_err + b_err) + (c_err + s_err)) + u_err
    low = fma(t2 * t2, r, fma(t, _LGAMMA_P_LO[0], fma(t2, _LGAMMA_P_LO[1], fma(
        t3, _LGAMMA_P_LO[2], fma(t2_err, p[1], fma(t3_err, p[2], errors))))))
    return u, low


@inline
def log1p64(x):
    """``log(1 + x)`` for ``x > -1``, without the rounding of ``1 + x``.

    Parameters
    ----------
    x : float
        Any float64.

    Returns
    -------
    numpy.float64
        ``log(1 + x)`` within 1 ulp: at most 0.501 ulp measured, 99.97 %
        correctly rounded, on 2**22 inputs in each of ``[-0.29, 0.41]``,
        ``(-1, -0.29]``, ``|x|`` log-uniform in ``[2**-60, 1]`` and the
        positive normals (random bits).  ``x`` itself for ``|x| < 2**-53``,
        where that is the correctly rounded value (so ``-0.0`` gives
        ``-0.0``); ``-inf`` for ``x = -1``, ``+inf`` for ``+inf``, and NaN
        (the bits ``0x7FF8000000000000``) for ``x < -1``, ``-inf`` and NaN.

    Notes
    -----
    ``1 + x = hi + lo`` exactly (TwoSum), ``hi = 2**k (1 + f)`` as in
    ``log64``.  Where ``k = 0`` the reduced argument is ``f = x`` itself,
    exact; otherwise ``log(1 + x) = log(hi) + lo / hi`` to ``2**-105``,
    and ``lo / hi`` joins the small terms of ``log(hi)``
    (:func:`_log_core`).  One final rounding.

    Examples
    --------
    >>> float(log1p64(1e-10))
    9.999999999500001e-11
    >>> float(log1p64(1.0)) == float(np.log(2.0))
    True
    """
    # Every case is computed and one selected, with no branch or early return,
    # so that a calling loop vectorises; the general case runs on 0.5 where
    # another case's value is selected.
    tiny = (x > -_TINY) & (x < _TINY)
    general = (x > -1.0) & (x < _INF) & (not tiny)
    y = x if general else 0.5
    hi = 1.0 + y
    hi_1 = hi - 1.0
    lo = (1.0 - (hi - hi_1)) + (y - hi_1)  # 1 + y - hi, exact (TwoSum)
    k, f = _log_reduce(hi)
    # k = 0: the reduced argument is y itself, exact
    exact = k == 0.0
    head, low = _log_core(k, y if exact else f, 0.0 if exact else np.divide(lo, hi))
    value = head + low
    value = x if tiny else value
    value = _INF if x == _INF else value
    value = (-_INF if x == -1.0 else _NAN) if not x > -1.0 else value
    return np.float64(value)


@inline
def expm1_64(x):
    """``e**x - 1``, without the cancellation of ``exp(x) - 1`` near 0.

    Parameters
    ----------
    x : float
        Any float64.

    Returns
    -------
    numpy.float64
        ``e**x - 1`` within 1 ulp: at most 0.509 ulp measured, 99.9 %
        correctly rounded, on 2**22 inputs in each of ``[-0.35, 0.35]``,
        ``|x|`` log-uniform in ``[2**-60, 1]``, ``[-40, 0]`` and
        ``[-38, 709.78]``.  ``x`` itself for ``|x| < 2**-53``, where that is
        the correctly rounded value (so ``-0.0`` gives ``-0.0``); exactly
        ``-1.0`` for ``x < -38`` (where ``e**x < 2**-54``) and ``-inf``;
        ``+inf`` above ``709.782712893384`` (the largest ``x`` whose result
        is finite) and for ``+inf``; NaN (the bits ``0x7FF8000000000000``)
        for NaN.

    Notes
    -----
    ``exp64``'s reduction ``x = k ln 2 + r`` and polynomial, with the terms
    ``r**2 / 2`` and ``r**3 Q1(0)`` as exact products too, so that
    ``e**r - 1 = r + h + m + rest``.  With ``k = 0`` (``|x| < ln(2) / 2``)
    ``r = x`` is exact and ``r + h + m`` is summed exactly; otherwise
    ``2**k (1 + r + h + m) - 1`` is.  Only ``rest``, below ``2**-8`` of
    the result, rounds before the final rounding.  The second case is
    computed halved, with ``2**(k - 1)``, which does not overflow at
    ``k = 1024``, and doubled in the exponent bits.

    Examples
    --------
    >>> float(expm1_64(1e-10))
    1.00000000005e-10
    >>> float(expm1_64(-50.0))
    -1.0
    """
    # Every case is computed and one selected (see log1p64); the general case
    # runs on 1.0 where another case's value is selected.
    tiny = (x > -_TINY) & (x < _TINY)
    general = (x <= _EXPM1_MAX) & (x >= _EXPM1_MINUS_ONE) & (not tiny)
    x_general = x if general else 1.0
    y = fma(x_general, _LOG2E, _ROUND)
    k = y - _ROUND
    r_hi = fma(-k, _LN2_HI, x_general)  # exact
    r = fma(-k, _LN2_LO, r_hi)
    r_err = fma(-k, _LN2_LO, r_hi - r)
    # e**(r + r_err) - 1 = r + h + m + rest: h = r**2/2, m ~ r**3/6, both exact products
    r2 = fma(r, r, 0.0)
    r2_err = fma(r, r, -r2)  # r**2 = r2 + r2_err
    h = fma(r2, 0.5, 0.0)
    r3 = fma(r, r2, 0.0)
    r3_err = fma(r, r2_err, fma(r, r2, -r3))  # r**3 = r3 + r3_err
    m = fma(r3, _EXP_Q[1], 0.0)
    m_err = fma(r3, _EXP_Q[1], -m)
    # Q1(r) = _EXP_Q[1] + r Q3(r)
    q3 = fma(fma(fma(fma(fma(fma(fma(fma(_EXP_Q[10], r, _EXP_Q[9]), r, _EXP_Q[8]), r, _EXP_Q[7]),
                             r, _EXP_Q[6]), r, _EXP_Q[5]), r, _EXP_Q[4]), r, _EXP_Q[3]), r,
             _EXP_Q[2])
    # the rest of r**2/2 and r**3 Q1(r), r**4 Q3(r), and r_err e**r ~ r_err (1 + r + h)
    rest = fma(r3 * r, q3, fma(r3, _EXP_Q1_LO, fma(r3_err, _EXP_Q[1], fma(
        r2_err, 0.5, fma(r_err, r + h, r_err + m_err)))))
    # k = 0 (|x| < ln(2) / 2): r + h + m summed exactly
    s = r + h
    s_err = (r - s) + h  # exact (Fast2Sum, |r| >= h)
    v = s + m
    v_err = (s - v) + m  # exact (Fast2Sum, |s| >= |m|)
    near_zero = v + ((s_err + v_err) + rest)
    # otherwise 2**k (1 + r + h + m) - 1
    t = 1.0 + r
    t_err = (1.0 - t) + r  # exact (Fast2Sum, |r| < 1)
    # Half of 2**k (t + h + m) - 1 as an exact sum, then half the small terms; with
    # 2**(k - 1), k up to 1024 cannot overflow.  The halving changes no rounding.
    scale = np.uint64((np.float64(y).view(np.uint64) + _BIAS_HALF) << _EXP_SHIFT).view(np.float64)
    big = fma(scale, t, 0.0)  # exact, like the next two
    h_half = fma(scale, h, 0.0)
    m_half = fma(scale, m, 0.0)
    s = big - 0.5
    s_1 = s - big
    s_err = (big - (s - s_1)) + (-0.5 - s_1)  # TwoSum: big - 1/2 = s + s_err
    u = s + h_half
    u_err = (s - u) + h_half  # exact (Fast2Sum: |2**k t - 1| >= 2**k r**2 / 2 for k != 0)
    v = u + m_half
    v_err = (u - v) + m_half  # exact (Fast2Sum, |u| >= 20 |m_half|)
    half = v + fma(scale, t_err + rest, (s_err + u_err) + v_err)
    # doubled in the exponent bits: exact (|half| >= 0.14), +inf if half rounded up to 2**1023
    value = np.uint64(np.float64(half).view(np.uint64) + _ONE_BINADE).view(np.float64)
    value = near_zero if k == 0.0 else value
    value = x if tiny else value
    value = -1.0 if x < _EXPM1_MINUS_ONE else value
    value = (_NAN if x != x else _INF) if not x <= _EXPM1_MAX else value
    return np.float64(value)


def lgamma_stirling64(x):
    """:func:`lgamma64` of ``x`` in ``[8, 2.5599833278516383e+305]``, by Stirling's
    series, with no branch (so that a calling loop vectorises); the same bits
    as ``lgamma64(x)`` there, and meaningless outside.

    ``x (log x - 1) - log(x) / 2 + log(2 pi) / 2 + R(1/x**2) / x``, with
    ``log x`` a double-double and ``x (log x - 1)`` an exact product.

    Examples
    --------
    >>> float(lgamma_stirling64(10.0)) == float(lgamma64(10.0))
    True
    """
    head, low = _log_parts(x, 0.0)
    head_1 = head - 1.0  # exact: head > 2
    # Half of everything, so that x (log x - 1) cannot overflow before the
    # last step; the halvings are exact and change no rounding.
    x_half = 0.5 * x
    p = fma(x_half, head_1, 0.0)
    p_err = fma(x_half, head_1, -p)  # x (log x - 1) / 2 = p + p_err + x low / 2
    v = np.divide(1.0, x)
    w = v * v
    r = fma(fma(fma(fma(fma(fma(_STIRLING_R[6], w, _STIRLING_R[5]), w, _STIRLING_R[4]),
                        w, _STIRLING_R[3]), w, _STIRLING_R[2]), w, _STIRLING_R[1]), w,
            _STIRLING_R[0])
    # -log(x)/2 + log(2 pi)/2: exact below x = 39, then small beside x log x
    middle = fma(-0.5, head, _HALF_LOG_2PI_HI)
    middle_half = fma(0.5, middle, 0.0)
    tail = fma(-0.5, low, fma(v, r, _HALF_LOG_2PI_LO))
    top = p + middle_half
    top_err = (p - top) + middle_half  # exact (Fast2Sum, |p| > 4 |middle_half|)
    half = top + (top_err + fma(0.5, tail, fma(x_half, low, p_err)))
    # doubled in the exponent bits: exact, and +inf if half rounded up to 2**1023
    return np.uint64(np.float64(half).view(np.uint64) + _ONE_BINADE).view(np.float64)


def lgamma64(x):
    """``log Gamma(x)`` for ``x > 0``.

    Parameters
    ----------
    x : float
        Positive; the callers pass ``k + 1`` for integers ``k`` up to about
        ``1e13`` and real shapes down to ``1e-300``.

    Returns
    -------
    numpy.float64
        ``log Gamma(x)`` within 1 ulp of the result, near its zeros at 1
        and 2 too: at most 0.519 ulp measured, 99.9 % correctly rounded
        (see the Notes).  Exactly ``+0.0`` at 1 and 2.  Finite up to
        ``2.5599833278516383e+305`` (the largest ``x`` whose result is
        finite), ``+inf`` above it and for ``+inf``; NaN (the bits
        ``0x7FF8000000000000``) for ``x <= 0``, ``-inf`` and NaN.

    Notes
    -----
    Near the zeros at 1 and 2 the argument of the polynomial, ``t = x - 1``
    or ``x - 2``, is exact and the result is ``t P(t)`` with ``P`` far
    from 0, so the error stays within the ulp bound of the result itself,
    which shrinks with ``|t|``: as an absolute bound, below
    ``2**-53 |x - 1|`` on ``[3/4, 5/4]`` and below ``2**-53 |x - 2|`` on
    ``[3/2, 5/2]`` (measured ``2**-53.5`` and ``2**-53.9``).

    * ``x >= 8``: Stirling, ``x (log x - 1) - log(x) / 2 + log(2 pi) / 2 +
      R(1/x**2) / x``, with ``log x`` a double-double and ``x (log x - 1)``
      an exact product;
    * ``1.5 <= x < 8``: ``lgamma(2 + t) + log((x - 1) ... (x - n))`` with
      ``n = round(x - 2)`` and ``t = x - 2 - n`` in ``[-1/2, 1/2]``; the
      product is a double-double;
    * ``1/2 <= x < 3/2``: ``lgamma(2 + t) - log(x)``, ``t = x - 1``;
    * ``x < 1/2``: ``lgamma(2 + x) - log(x (1 + x))``.

    ``lgamma(2 + t)`` is ``t P(t)``, degree 19 (:func:`_lgamma2`).  The
    parts are summed exactly or their roundings are far below the ulp; one
    final rounding.  ``tools/ulp_accuracy.py`` against mpmath, 2**18 inputs
    a set: at most 0.519 ulp on ``(0, 8)``, 0.501 on ``1 + d`` and ``2 + d``
    with ``|d|`` log-uniform in ``[2**-52, 1/4]``, 0.500 on ``[2**-1074, 1/2]``
    (log-uniform), 0.504 on ``[8, 1000]``, 0.503 on ``[8, 2**60]``
    (log-uniform), 0.500 on the integers ``k + 1`` for ``k`` log-uniform
    below ``1e13`` (so ``lgamma64(k + 1)`` is ``log k!`` to 0.5 ulp) and
    on ``[2**60, 2.56e305]``.

    Examples
    --------
    >>> float(lgamma64(0.5)) == float(np.log(np.pi) / 2)
    True
    >>> float(lgamma64(1.0)), float(lgamma64(2.0))
    (0.0, 0.0)
    """
    if not x > 0.0:
        return _NAN
    if x >= _STIRLING_X:
        return _INF if x > _LGAMMA_MAX else lgamma_stirling64(x)
    if x < 1.5:
        if x < 0.5:  # Gamma(x) = Gamma(2 + x) / (x (1 + x))
            t = x
            one = 1.0 + x
            one_err = (1.0 - one) + x  # exact (Fast2Sum)
            ph = fma(x, one, 0.0)
            pl = fma(x, one_err, fma(x, one, -ph))
        else:  # Gamma(x) = Gamma(2 + t) / x
            t = x - 1.0  # exact
            ph = x
            pl = 0.0
        q_hi, q_lo = _lgamma2(t)
        head, low = _log_parts(ph, pl)
        head = -head
        low = -low
    else:  # Gamma(x) = Gamma(2 + t) (x - 1) ... (x - n)
        d = x - 2.0  # exact
        n = (d + _ROUND) - _ROUND
        t = d - n
        q_hi, q_lo = _lgamma2(t)
        if n == 0.0:
            return q_hi + q_lo
        a = x - 1.0
        ph = a
        pl = 0.0
        m = n - 1.0
        while m > 0.0:
            a = a - 1.0
            p = fma(ph, a, 0.0)
            pl = fma(pl, a, fma(ph, a, -p))
            ph = p
            m = m - 1.0
        head, low = _log_parts(ph, pl)
    s = head + q_hi
    s_1 = s - head
    s_err = (head - (s - s_1)) + (q_hi - s_1)  # exact (TwoSum)
    return s + ((s_err + q_lo) + low)



# lgamma_stirling64 holds from 8 on; below, lgamma64(k + 1) for k = 0..6 (the
# same bits, computed here at import).
_STIRLING_K = _STIRLING_X - 1.0
_LOG_FACTORIALS = np.array([lgamma64(k + 1.0) for k in range(7)])
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@inline
def log_factorial64(k):
    """``lgamma64(k + 1)``, ``log k!``, for a count ``k`` from 0 to ``2.56e305``,
    with no branch, so that a calling loop vectorises: the same bits.

    Examples
    --------
    >>> float(log_factorial64(3.0)) == float(lgamma64(4.0))
    True
    """
    table = np.float64(_LOG_FACTORIALS[np.int64(min(max(k, 0.0), 6.0))]).view(np.uint64)
    stirling = np.float64(lgamma_stirling64(max(k, _STIRLING_K) + 1.0)).view(np.uint64)
    # A select of the bits, not a conditional, which trips Numba's SSA check
    # where the function is inlined more than once.
    mask = np.uint64(k >= _STIRLING_K) * _ALL_ONES
    return np.uint64((stirling & mask) | (table & ~mask)).view(np.float64)


def acos64(x):
    """``arccos(x)``, in ``[0, pi]``, for ``x`` in ``[-1, 1]``.

    Parameters
    ----------
    x : float
        Any float64.

    Returns
    -------
    numpy.float64
        ``arccos(x)`` within 1 ulp: at most 0.503 ulp measured, 99.9 %
        correctly rounded, on 2**22 inputs in each of ``[-1, 1]``, ``1 - d``
        and ``-1 + d`` with ``d`` log-uniform in ``[2**-53, 1/2]``, ``|x|``
        log-uniform in ``[2**-60, 1/2]`` and ``+-1/2 + d`` with ``|d|``
        log-uniform in ``[2**-53, 1/8]``.  Exactly ``+0.0`` at 1, and
        ``pi`` and ``pi/2`` rounded (``3.141592653589793`` and
        ``1.5707963267948966``) at -1 and at ``+-0.0``; NaN (the bits
        ``0x7FF8000000000000``) for ``|x| > 1``, ``+-inf`` and NaN.

    Notes
    -----
    With ``a = |x|`` and ``asin(u) = u + u**3 P(u**2)``:

    * ``a <= 1/2``: ``pi/2 - asin(x)``, ``u = x``, with ``z = x**2`` and its
      rounding error ``z_err`` (an fma);
    * ``a > 1/2``: ``2 asin(s)``, and ``pi - 2 asin(s)`` for ``x < 0``, with
      ``z = (1 - a) / 2`` exact and ``s = sqrt(z) = s_hi + s_lo``, ``s_lo``
      from the square root's residual ``z - s_hi**2`` (exact, an fma).

    So ``arccos(x) = C + m asin(u + u_lo)`` with ``(m, C) = (-1, pi/2)``,
    ``(2, 0)`` or ``(-2, pi)``; ``(u + u_lo)**3 = t + t_err`` and
    ``t z = tz + tz_err`` with ``t`` and ``tz`` rounded products.  The
    head ``C_hi + m u + m t P0 + m tz P1`` is summed to a double plus
    errors that are exact or rounded to ``2**-53`` of themselves (a
    Fast2Sum, then two fmas that add an exact product, their errors from
    fmas as well); the rest, ``m (u_lo + t z**2 P2(z) + ...)`` and
    ``C_lo``, is below ``2**-10`` of the result, and the one final rounding
    of ``head + (rest + errors)`` gives the result.  The two cases and
    ``(m, C)`` are selected, not branched on: the body is straight-line
    code, which LLVM inlines into a calling loop and vectorises.

    Examples
    --------
    >>> float(acos64(-1.0)) == float(np.pi), float(acos64(0.0)) == float(np.pi / 2)
    (True, True)
    >>> float(acos64(0.5)), float(acos64(1.0))  # pi/3 rounded (np.pi / 3 is the double below)
    (1.0471975511965979, 0.0)
    """
    inside = abs(x) <= 1.0  # False for NaN
    x = x if inside else 0.0  # outside: computed on 0 (no overflow), NaN at the end
    a = abs(x)
    far = a > 0.5
    negative = x < 0.0
    # a <= 1/2: x**2 = z_near + z_err exactly
    z_near = fma(x, x, 0.0)
    z_err = fma(x, x, -z_near)
    # a > 1/2: z = (1 - a) / 2, exact (Sterbenz), and sqrt(z) = s_hi + s_lo to 2**-105:
    # s_lo = (z - s_hi**2) / (2 s_hi), the residual exact.  The divisor is 2 s_hi (2**-1022
    # is far below its half ulp: s_hi >= 2**-27) or, at a = 1, 2**-1022, and then s_lo = 0.
    # The guard is normal, not subnormal: a subnormal addend costs Intel CPUs a microcode
    # assist for every element.
    z_far = fma(-0.5, a, 0.5)
    s_hi = math.sqrt(z_far)
    s_lo = np.divide(fma(-s_hi, s_hi, z_far), fma(2.0, s_hi, _MIN_NORMAL))
    # the argument of asin, u + u_lo, and z with (u + u_lo)**2 = z + z_err (u_lo = 0 or
    # z_err = 0)
    u = s_hi if far else x
    u_lo = s_lo if far else 0.0
    z = z_far if far else z_near
    z_err = 0.0 if far else z_err
    # acos x = c_hi + c_lo + m asin(u + u_lo); m_p0 = m P0 and m_p1 = m P1, exact
    m = (-2.0 if negative else 2.0) if far else -1.0
    m_p0 = (_M2P0 if negative else -_M2P0) if far else _MP0
    m_p1 = (_M2P1 if negative else -_M2P1) if far else _MP1
    c_hi = (_PI_HI if negative else 0.0) if far else _PI_2_HI
    c_lo = (_PI_LO if negative else 0.0) if far else _PI_2_LO
    # (u + u_lo)**3 = (u + u_lo) (z + z_err) = t + t_err to 2**-104, t the rounded u z;
    # t z = tz + tz_err exactly
    t = fma(u, z, 0.0)
    t_err = fma(u, z_err, fma(u_lo, z, fma(u, z, -t)))
    tz = fma(t, z, 0.0)
    tz_err = fma(t, z, -tz)
    # P(z) = P0 + z (P1 + z P2(z))
    p = _ACOS_P
    p2 = fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(
        p[13], z, p[12]), z, p[11]), z, p[10]), z, p[9]), z, p[8]), z, p[7]), z, p[6]), z,
        p[5]), z, p[4]), z, p[3]), z, p[2])
    # asin(u + u_lo) - u - t P0 - tz P1
    #   = u_lo + t P0_lo + tz_err P1 + t z**2 P2(z) + t_err P(z), with P(z) ~ P0 + z P1 there
    rest = fma(tz * z, p2, fma(tz_err, p[1], fma(t, _ACOS_P_LO[0], fma(
        t_err, fma(z, p[1], p[0]), u_lo))))
    # c_hi + m u + m t P0 + m tz P1 = h3 + e1 + e2 + e3.  hi + e1 by Fast2Sum (|c_hi| >=
    # |m u|, or c_hi = 0 and m u is exact); h2 and h3 each add an exact product to the
    # previous sum, hi - h2 and h2 - h3 exact (Sterbenz: |m t P0| <= |hi| / 24 and
    # |m tz P1| <= |h2| / 200), and e2 and e3, their errors, round to 2**-53 of themselves.
    hi = fma(m, u, c_hi)
    e1 = fma(m, u, c_hi - hi)
    h2 = fma(t, m_p0, hi)
    e2 = fma(t, m_p0, hi - h2)
    h3 = fma(tz, m_p1, h2)
    e3 = fma(tz, m_p1, h2 - h3)
    r = h3 + fma(m, rest, c_lo + ((e1 + e2) + e3))
    return r if inside else _NAN
