"""The f64 math functions of the contract: fma, log, exp and sin/cos of 2πu.

No libm: only +, -, *, /, exact bit manipulation and the fused multiply-add
:func:`fma`, each correctly rounded, so one source gives the same bits on
every target and as plain Python.

The rule that makes that true: Numba's CUDA target contracts ``a * b + c``
into one fused multiply-add even without fastmath, its CPU target never
does.  So in these functions a rounded product is never an operand of ``+``
or ``-`` nor the addend of an ``fma``; it only feeds other products or the
multiplicands of an ``fma``, and every product-plus-sum is an explicit
``fma``.  (Keeping products out of fma addends too rules out the
re-associating contraction ``fma(a, b, x * y) + z -> fma(a, b, fma(x, y, z))``
that LLVM's DAG combiner has done under contraction in some versions.)
``fma(x, y, 0.0)`` stands for a rounded product where one is needed as an
addend: it is ``x * y`` correctly rounded, and no compiler turns it into a
bare product (that needs no-signed-zeros).  The results are never a bare
product either, so a caller that follows the same rule may add them
freely.  ``tests/test_fmath.py`` checks the rule on the LLVM IR.

Accuracy: each result is one final rounding of a leading part that is
exact (a double-double) plus a small rest whose errors are a few 2**-57
relative or less, so it is within 1 ulp.  Measured by
``tools/ulp_accuracy.py`` on 2**22 to 2**24 inputs a set, the maximum is
0.543 ulp for log64, 0.555 for exp64 and 0.566 for sincos2pi64, and over 98.8 %
of results are correctly rounded.  ``tests/test_fmath.py`` pins these bounds
on smaller sets.

Polynomial coefficients: interpolants of the named functions at the
Chebyshev nodes of the stated interval, computed with mpmath at 60 digits
and rounded to the nearest double (``tools/ulp_accuracy.py --coefficients``
prints them); lowest degree first.

Guaranteed across versions: each function's output for each input.
"""

import math
from fractions import Fraction

import numpy as np

from ._marks import cuda_lowered, inline
from .bijections import U64

# Bit fields of a float64.
_EXP_SHIFT = U64(52)
_EXP_ONE = U64(0x3FF0000000000000)  # the bits of 1.0: exponent bias 1023 << 52
_BIAS = U64(1023)
# 1.5 * 2**52: x + _ROUND rounds x to an integer (|x| < 2**51) and leaves it,
# offset, in the low bits of the sum.
_ROUND = 6755399441055744.0
# 2**52 as bits: (n | _TWO52_BITS) viewed as a float is 2**52 + n for n < 2**52.
_TWO52_BITS = U64(0x4330000000000000)
_TWO52 = 4503599627370496.0

# ---- log ------------------------------------------------------------------
# Adding this to the bits of x carries into the exponent exactly when the
# mantissa is at least that of sqrt(1/2) (0x3FE6A09E667F3BCD), so the
# mantissa is reduced to z in [sqrt(1/2), sqrt(2)).
_LOG_CARRY = U64(0x3FF0000000000000 - 0x3FE6A09E667F3BCD)
# ln 2 = _LN2_HI32 + _LN2_LO32 (fdlibm e_log.c ln2_hi, ln2_lo): _LN2_HI32 has
# 32 significant bits, so k * _LN2_HI32 is exact for |k| < 2**21.
_LN2_HI32 = 6.93147180369123816490e-01  # 0x3FE62E42FEE00000
_LN2_LO32_HALF = 1.90821492927058770002e-10 / 2  # 0x3DEA39EF35793C76 / 2
# atanh(s) = s + s**3 * Q(s**2) on s**2 in [0, ((sqrt2-1)/(sqrt2+1))**2 (1 + 2**-40)],
# degree 7; |error| < 2**-55.6, all of it the rounding of 1/3.
_LOG_Q = (0.3333333333333333, 0.2000000000000044, 0.14285714285401807,
          0.11111111195856958, 0.09090897820066453, 0.07693119851407332,
          0.06634386569328381, 0.06543313073920691)

# ---- exp ------------------------------------------------------------------
_LOG2E = 1.4426950408889634  # 1 / ln 2, rounded
_LN2_HI = 0.6931471805599453  # ln 2 rounded: 0x3FE62E42FEFA39EF
_LN2_LO = 2.3190468138462996e-17  # ln 2 - _LN2_HI, rounded: 0x3C7ABC9E3B39803F
# exp(r) = 1 + r + r**2 * Q(r) on |r| <= ln(2)/2 (1 + 2**-40), degree 10;
# |error| < 2**-58.4.
_EXP_Q = (0.5, 0.1666666666666667, 0.04166666666666667, 0.008333333333326141,
          0.0013888888888883752, 0.00019841269874800493, 2.4801587325533363e-05,
          2.7557255425746435e-06, 2.7557273661348637e-07, 2.5105206373957107e-08,
          2.0914679376584005e-09)

# ---- sin, cos of 2 pi u -----------------------------------------------------
# With w in [-1/2, 1/2] and a = pi/2 * w:
#   sin a = A w + P0 w**3 + w**5 P1(w**2),  cos a = 1 + B w**2 + w**4 R(w**2),
# A = pi/2, P0 = -pi**3/48 and B = -pi**2/8 as double-doubles (HI + LO).
_A_HI = 1.5707963267948966  # 0x1.921fb54442d18p+0
_A_LO = 6.123233995736766e-17  # 0x1.1a62633145c07p-54
_SIN_P0_HI = -0.6459640975062463  # -0x1.4abbce625be53p-1
_SIN_P0_LO = 2.833202853223681e-17  # 0x1.05511c68476a8p-55
_B_HI = -1.2337005501361697  # -0x1.3bd3cc9be45dep+0
_B_LO = -7.831619385924639e-17  # -0x1.692b71366cc04p-54
# P1 on [0, 1/4], degree 5, |error| < 2**-57.8; R on [0, 1/4], degree 6,
# |error| < 2**-55.7 (the rounding of pi**4/384).
_SIN_P1 = (0.07969262624616705, -0.004681754135318481, 0.0001604411847776905,
           -3.5988430701446558e-06, 5.6920455189040865e-08, -6.642686632074393e-10)
_COS_R = (0.25366950790104803, -0.02086348076335296, 0.0009192602748393281,
          -2.520204237069831e-05, 4.710874508761051e-07, -6.3864445648435074e-09,
          6.519796557266745e-11)
_LOW2 = U64(3)
_BIT0 = U64(1)
_BIT1 = U64(2)
_SIGN_SHIFT = U64(62)  # bit 1 of the quadrant, shifted to the sign bit
_ALL = U64(0xFFFFFFFFFFFFFFFF)


@inline
@cuda_lowered
def product(a, b):
    """``a * b`` in float64, rounded once, as a value no compiler fuses into a later sum.

    Numba's CUDA target contracts ``a * b + c`` into a fused multiply-add,
    so a user's ``x += z``, with ``z`` a product computed inside a core
    function, would round differently from the CPU.  On CUDA this is PTX
    ``mul.rn.f64``, which is never contracted; on the CPU (which does not
    contract) it is the plain product.

    Examples
    --------
    >>> float(product(np.float64(3.0), np.float64(0.5)))
    1.5
    """
    return a * b


def fma(a, b, c):
    """``a * b + c`` with one rounding (to nearest, ties to even).

    Parameters
    ----------
    a, b, c : float
        Finite float64 values.

    Returns
    -------
    numpy.float64
        The exact ``a * b + c`` rounded once; an exact zero has the sign
        IEEE 754 gives it.  A result beyond the float64 range raises
        ``OverflowError`` in plain Python (the hardware gives ±inf).

    Notes
    -----
    As plain Python this computes with :class:`fractions.Fraction`: exact,
    and slow (microseconds).  Numba code does not run this source: the
    implementation in :mod:`tandem.core._lowering` emits LLVM's
    ``llvm.fma.f64`` for the CPU target (``vfmadd`` where the CPU has FMA).
    The CUDA target will get its own lowering there, to ``numba.cuda.fma``
    (PTX ``fma.rn.f64``), which rounds the same way.
    """
    a, b, c = float(a), float(b), float(c)
    if not (math.isfinite(a) and math.isfinite(b)):
        return np.float64(a * b + c)  # inf or NaN: no rounding to mind
    if not math.isfinite(c):
        return np.float64(c)  # a finite product cannot change it
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # Only (+-0) * y + (-0) with a negative product keeps the minus sign.
        negative = (a == 0.0 or b == 0.0) and c == 0.0 and \
            np.signbit(a) != np.signbit(b) and np.signbit(c)
        return np.float64(-0.0 if negative else 0.0)
    return np.float64(float(exact))


fma.__tandem_lowered__ = True


def log64(x):
    """Natural logarithm of a positive normal float64.

    Parameters
    ----------
    x : float
        Finite, positive and normal (``x >= 2**-1022``).  The callers pass
        uniforms in ``(0, 1]``.  Zero, subnormals, negatives, inf and NaN
        give meaningless results (no error is raised).

    Returns
    -------
    numpy.float64
        ``log(x)`` within 1 ulp (0.55 ulp measured); ``log64(1.0)`` is ``+0.0``.

    Notes
    -----
    ``x = 2**k z`` with ``z`` in ``[sqrt(1/2), sqrt(2))`` by bit
    manipulation, and ``log z = 2 atanh(s)`` with ``f = z - 1`` (exact) and
    ``s = f / (2 + f)``.  As ``2s = f - e`` with ``e = f - 2s`` exact,
    ``log x = k ln2_hi + f - e + 2 (c + s**3 Q(s**2)) + k ln2_lo``, where
    ``c`` corrects the rounding of ``s``.  The first three terms are summed
    exactly as a double-double (Fast2Sum twice), so only the small rest and
    the final addition round.  No branch, no table.
    """
    bits = np.float64(x).view(np.uint64)
    # kb = k + 1023, with x = 2**k z.
    kb = (bits + _LOG_CARRY) >> _EXP_SHIFT
    z = np.uint64(bits + _EXP_ONE - (kb << _EXP_SHIFT)).view(np.float64)
    k = np.uint64(kb | _TWO52_BITS).view(np.float64) - (_TWO52 + 1023.0)
    f = z - 1.0  # exact: z in [1/2, 2]
    d = 2.0 + f
    # np.divide, not /: Numba's default error model checks / for a zero divisor,
    # and that branch stops a calling loop from vectorising (d is in [1.7, 2.5]).
    s = np.divide(f, d)
    e = fma(-2.0, s, f)  # f - 2s, exact (Sterbenz: 2s/f in [0.83, 1.17])
    # s + c is f / (2 + f) to about 2**-104 relative: c undoes both roundings of s.
    c = np.divide(fma(-s, f, e), d)
    z2 = s * s
    q = fma(fma(fma(fma(fma(fma(fma(_LOG_Q[7], z2, _LOG_Q[6]), z2, _LOG_Q[5]), z2,
                                _LOG_Q[4]), z2, _LOG_Q[3]), z2, _LOG_Q[2]), z2,
                _LOG_Q[1]), z2, _LOG_Q[0])
    # half of everything below f: c + s**3 Q(s**2) + k ln2_lo / 2
    half_tail = fma(s * z2, q, fma(k, _LN2_LO32_HALF, c))
    # k ln2_hi + f - e = head + head_err exactly, by two Fast2Sums: k ln2_hi is
    # exact and |k ln2_hi| >= |f| (or k = 0); |hi| >= |e|.
    hi = fma(k, _LN2_HI32, f)
    hi_err = fma(k, _LN2_HI32, -hi) + f
    head = hi - e
    head_err = (hi - head) - e
    return head + fma(2.0, half_tail, head_err + hi_err)


def exp64(x):
    """``e**x`` for ``x`` in ``[-708, 709]``.

    Parameters
    ----------
    x : float
        In ``[-708, 709]``, where ``e**x`` is a normal float64.  Outside it
        the result is meaningless (no error is raised).

    Returns
    -------
    numpy.float64
        ``exp(x)`` within 1 ulp (0.56 ulp measured); ``exp64(0.0)`` is ``1.0``.

    Notes
    -----
    Cody–Waite: ``k = round(x / ln 2)`` by one fma that rounds to an
    integer; ``r_hi = x - k ln2_hi`` is exact in one fma with ``ln2_hi`` the
    double nearest ``ln 2``; ``r_hi - k ln2_lo`` is rounded to ``r`` and its
    rounding error kept.  ``exp r = 1 + r + r**2/2 + r**3 Q1(r)`` with
    ``1 + r`` and ``r**2`` as exact double-doubles, so only the small rest
    and the final addition round.  ``2**k`` is added to the exponent bits.
    No branch, no table.
    """
    y = fma(x, _LOG2E, _ROUND)
    k = y - _ROUND
    r_hi = fma(-k, _LN2_HI, x)  # exact: a multiple of 2**-54 below 1/2
    r = fma(-k, _LN2_LO, r_hi)
    r_err = fma(-k, _LN2_LO, r_hi - r)  # (r_hi - k ln2_lo) - r, rounded
    t = 1.0 + r
    t_err = (1.0 - t) + r  # exact (Fast2Sum, |r| < 1)
    # exp(r) = 1 + r + r**2/2 + r**3 Q1(r): 1 + r as t + t_err, r**2 as r2 + r2_err.
    q1 = fma(fma(fma(fma(fma(fma(fma(fma(fma(
        _EXP_Q[10], r, _EXP_Q[9]), r, _EXP_Q[8]), r, _EXP_Q[7]), r, _EXP_Q[6]), r,
        _EXP_Q[5]), r, _EXP_Q[4]), r, _EXP_Q[3]), r, _EXP_Q[2]), r, _EXP_Q[1])
    r2 = fma(r, r, 0.0)
    r2_err = fma(r, r, -r2)
    # exp(r + r_err) = exp(r) (1 + r_err); exp(r) ~ 1 + r is enough for that term.
    small = fma(r2_err, 0.5, t_err + fma(r_err, r, r_err))
    low = fma(r2, 0.5, fma(r * r2, q1, small))  # _EXP_Q[0] is 0.5
    inner = np.float64(t + low).view(np.uint64)  # in [sqrt(1/2), sqrt(2)]
    # low 12 bits of y are k (two's complement); k + 1023 is in [2, 2046].
    scale = (np.float64(y).view(np.uint64) + _BIAS) << _EXP_SHIFT
    return np.uint64(inner + scale - _EXP_ONE).view(np.float64)


def sincos2pi64(u):
    """``(sin(2πu), cos(2πu))`` for ``u`` in ``[0, 1)``.

    Parameters
    ----------
    u : float
        A float64 in ``[0, 1)``; the callers pass dyadic ``k * 2**-32`` or
        ``k * 2**-53``.  Any ``|u| < 2**49`` works as well, the reduction
        being exact.

    Returns
    -------
    tuple of numpy.float64
        ``sin`` and ``cos``, each within 1 ulp (0.57 ulp measured) of its
        value at the exact angle ``2πu``.  Multiples of ``1/4`` give exact
        results, and their zeros are ``+0.0``.

    Notes
    -----
    The reduction is exact and in u-space: ``n = round(4u)`` by one fma,
    ``w = 4u - n`` in ``[-1/2, 1/2]`` (exact), angle ``π/2 w`` in
    ``[-π/4, π/4]``.  Polynomials in ``w`` with double-double leading
    terms give ``sin`` and ``cos`` there, so only the small rest and the
    final addition round; the quadrant ``n mod 4`` swaps them and flips
    signs by bit operations.  No branch, no table.
    """
    y = fma(4.0, u, _ROUND)
    w = fma(4.0, u, _ROUND - y)  # 4u - n, exact
    w2 = fma(w, w, 0.0)
    w2_err = fma(w, w, -w2)  # w**2 = w2 + w2_err exactly
    # sin: A w + P0 w**3 + w**5 P1(w**2), with w**3 = w3 + w3_err + w w2_err
    # to 2**-106 relative, so that only the sum of the small terms and the
    # final fma round.
    w3 = fma(w, w2, 0.0)
    w3_err = fma(w, w2, -w3)
    p1 = fma(fma(fma(fma(fma(_SIN_P1[5], w2, _SIN_P1[4]), w2, _SIN_P1[3]), w2, _SIN_P1[2]),
                 w2, _SIN_P1[1]), w2, _SIN_P1[0])
    small = fma(w3, _SIN_P0_LO, fma(fma(w, w2_err, w3_err), _SIN_P0_HI, fma(w, _A_LO, 0.0)))
    sin_w = fma(w, _A_HI, fma(w3, _SIN_P0_HI, fma(w3 * w2, p1, small)))
    # cos: 1 + B_HI w2 as an exact sum t + t_err, then the small terms.
    rr = fma(fma(fma(fma(fma(fma(_COS_R[6], w2, _COS_R[5]), w2, _COS_R[4]), w2, _COS_R[3]),
                     w2, _COS_R[2]), w2, _COS_R[1]), w2, _COS_R[0])
    b = fma(w2, _B_HI, 0.0)
    b_err = fma(w2, _B_HI, -b)
    t = 1.0 + b
    t_err = (1.0 - t) + b  # exact (Fast2Sum, |b| < 1)
    low = fma(w2 * w2, rr, fma(w2, _B_LO, fma(w2_err, _B_HI, t_err + b_err)))
    cos_w = t + low
    # Quadrant q = n mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s).
    q = np.float64(y).view(np.uint64) & _LOW2
    swap = (q & _BIT0) * _ALL
    sb = np.float64(sin_w).view(np.uint64)
    cb = np.float64(cos_w).view(np.uint64)
    sin_bits = ((sb & ~swap) | (cb & swap)) ^ ((q & _BIT1) << _SIGN_SHIFT)
    cos_bits = ((cb & ~swap) | (sb & swap)) ^ (((q + _BIT0) & _BIT1) << _SIGN_SHIFT)
    # + 0.0 turns the -0.0 of sin(pi) and cos(pi/2) into +0.0 and changes nothing else.
    return np.uint64(sin_bits).view(np.float64) + 0.0, np.uint64(cos_bits).view(np.float64) + 0.0
