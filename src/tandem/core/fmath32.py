"""The f32 math functions of the contract: fma, and the log and sin/cos of a word.

The f32 normals and exponentials are computed in f32, because a GPU runs
f32 arithmetic at twice the rate of f64 or more (the H200: 128 against 64
operations per clock and multiprocessor) and the f64 versions made those
fills FP64-bound at under a third of the write bandwidth.  The rule that
keeps CPU and GPU alike is that of :mod:`tandem.core.fmath`: only
correctly rounded ``+``, ``-``, ``*``, ``sqrt``, conversions, bit
operations and the explicit fused multiply-add :func:`fma32`; a rounded
product never feeds a sum except through ``fma32``.

Both functions take a 32-bit word rather than a float: the argument is
reduced exactly from the word's integer value (for the logarithm through
an exact f64, for sin and cos in integer arithmetic), so the only rounding
before the polynomial is one conversion of the reduced argument to f32.

Accuracy: within 1.5 f32 ulps of the exact value.  Measured by
``tools/ulp_accuracy.py`` on 2**24 words a set, the maximum is 1.391 ulp
for ``log_word32`` and 1.291 for ``sincos2pi_word32``, and about 85 % of
results are correctly rounded (``docs/spec.md``); ``tests/test_fmath.py``
pins these bounds on smaller sets.

Polynomial coefficients: interpolants at the Chebyshev nodes of the stated
interval (widened by ``2**-20``), computed with mpmath at 50 digits and
rounded to the nearest f32 (``tools/ulp_accuracy.py --coefficients``
prints them); lowest degree first.

Guaranteed across versions: each function's output for each input.
"""

import math
from fractions import Fraction

import numpy as np

from ._marks import cuda_lowered, inline
from .bijections import U64
# The bit fields of a float64, and the carry that reduces its mantissa to
# [sqrt(1/2), sqrt(2)), as in log64.
from .fmath import _EXP_ONE, _EXP_SHIFT, _LOG_CARRY, _TWO52_BITS

F32 = np.float32

# ---- log --------------------------------------------------------------------
# (w | _TWO52_BITS) viewed as an f64 is 2**52 + w, so subtracting _TWO52_LESS_ONE
# leaves w + 1, exactly.
_TWO52_LESS_ONE = 4503599627370495.0
_ONE = U64(1)
# kb | _K_BITS viewed as an f32 is 2**23 + kb, so subtracting _K_ZERO leaves
# the exponent k of u = (w + 1) 2**-32 = 2**k z: kb = k + 1023 + 32.
_K_BITS = U64(0x4B000000)
_K_ZERO = F32(2.0**23 + 1023 + 32)
# ln 2 = _LN2_HI + _LN2_LO: _LN2_HI has 16 significant bits, so k * _LN2_HI
# is exact for |k| <= 32.
_LN2_HI = F32(0.693145751953125)  # 0x3F317200
_LN2_LO = F32(1.428606765330187e-06)  # ln 2 - _LN2_HI, rounded: 0x35BFBE8E
# log(1 + f) = f + f**2 Q(f) on f in [sqrt(1/2) - 1, sqrt(2) - 1], degree 8;
# relative error of Q below 2**-23.7.
_LOG_Q = (F32(-0.4999999701976776), F32(0.3333333134651184), F32(-0.2500078082084656),
          F32(0.20001234114170074), F32(-0.16626645624637604), F32(0.14204855263233185),
          F32(-0.13127557933330536), F32(0.12722676992416382), F32(-0.07673641294240952))

# ---- sin, cos of 2 pi t -------------------------------------------------------
# t = w 2**-32 = (n + v) / 4 with n = round(4t) and v in [-1/2, 1/2): the
# angle is n pi/2 + a with a = pi/2 v.  In s = (w + 2**29) mod 2**32, the
# top two bits are n mod 4 and the low 30 are v 2**30 + 2**29.
_MASK32 = U64(0xFFFFFFFF)
_QUARTER_SHIFT = U64(30)
_MASK30 = U64(2**30 - 1)
_EIGHTH = U64(2**29)
_TWO = U64(2)
_V_SCALE = F32(2.0**-30)
_A_HI = F32(1.5707963705062866)  # pi/2 rounded: 0x3FC90FDB
_A_LO = F32(-4.371138828673793e-08)  # pi/2 - _A_HI, rounded: 0xB33BBD2E
# sin(pi/2 v) = v (A + x S(x)) and cos(pi/2 v) = 1 + x C(x), x = v**2 in
# [0, 1/4], degree 3; relative errors of S and C below 2**-25.7 and 2**-24.9.
_SIN_S = (F32(-0.6459640860557556), F32(0.07969260960817337), F32(-0.00468147499486804),
          F32(0.00015865151362959296))
_COS_C = (F32(-1.2337005138397217), F32(0.253669410943985), F32(-0.02086152881383896),
          F32(0.0009067399078048766))


def _round_to_f32(exact):
    """The f32 nearest the rational ``exact`` (ties to even), for finite results."""
    x = F32(float(exact))  # within one f32 ulp: the f64 rounding may have made a tie
    best = x
    for y in (np.nextafter(x, F32(-np.inf)), np.nextafter(x, F32(np.inf))):
        dy, db = abs(Fraction(float(y)) - exact), abs(Fraction(float(best)) - exact)
        if dy < db or (dy == db and int(y.view(np.uint32)) & 1 == 0):
            best = y
    return best


def fma32(a, b, c):
    """``a * b + c`` in f32 with one rounding (to nearest, ties to even).

    Parameters
    ----------
    a, b, c : float
        Finite values, taken as float32.

    Returns
    -------
    numpy.float32
        The exact ``a * b + c`` rounded once; an exact zero has the sign
        IEEE 754 gives it.

    Notes
    -----
    As plain Python this computes with :class:`fractions.Fraction`.
    Compiled code runs LLVM's ``llvm.fma.f32`` on the CPU and
    ``fma.rn.f32`` on CUDA (:mod:`tandem.core._lowering`), which round the
    same way.
    """
    a, b, c = F32(a), F32(b), F32(c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        negative = (a == 0 or b == 0) and c == 0 and \
            np.signbit(a) != np.signbit(b) and np.signbit(c)
        return F32(-0.0 if negative else 0.0)
    return _round_to_f32(exact)


fma32.__tandem_lowered__ = True


@inline
@cuda_lowered
def product32(a, b):
    """``a * b`` in float32, rounded once, as a value no compiler fuses into a
    later sum (PTX ``mul.rn.f32`` on CUDA); see :func:`tandem.core.fmath.product`.

    Examples
    --------
    >>> float(product32(F32(3.0), F32(0.5)))
    1.5
    """
    return F32(a) * F32(b)


def sqrt32(x):
    """The correctly rounded square root of the f32 ``x`` (``x >= 0``).

    Numba compiles ``math.sqrt`` of an f32 to the f32 instruction
    (``sqrtss``, ``sqrt.rn.f32``).  As plain Python the f64 square root,
    rounded to f32, is the same: 53 >= 2 * 24 + 2 bits make the double
    rounding harmless.
    """
    return F32(math.sqrt(F32(x)))


def log_word32(w):
    """``log u`` in f32 for ``u = (w + 1) 2**-32``, ``w`` a 32-bit word.

    Parameters
    ----------
    w : numpy.uint64
        Below ``2**32``.

    Returns
    -------
    numpy.float32
        ``log u`` in ``[-22.181, 0]`` within 1.5 ulp (1.39 measured); ``+0.0``
        for ``w = 2**32 - 1``.

    Notes
    -----
    ``w + 1`` is exact as an f64, and its bits give ``u = 2**k z`` with
    ``z`` in ``[sqrt(1/2), sqrt(2))``; ``f = z - 1`` is exact in f64 and
    rounded once to f32.  Then ``log u = k ln2_hi + (k ln2_lo + f + f**2
    Q(f))``, two fmas with ``k ln2_hi`` exact.
    """
    bits = np.float64(np.uint64(w | _TWO52_BITS).view(np.float64) - _TWO52_LESS_ONE).view(np.uint64)
    kb = (bits + _LOG_CARRY) >> _EXP_SHIFT
    z = np.uint64(bits + _EXP_ONE - (kb << _EXP_SHIFT)).view(np.float64)
    f = F32(z - 1.0)
    k = np.uint32(kb | _K_BITS).view(np.float32) - _K_ZERO
    q = fma32(fma32(fma32(fma32(fma32(fma32(fma32(fma32(
        _LOG_Q[8], f, _LOG_Q[7]), f, _LOG_Q[6]), f, _LOG_Q[5]), f, _LOG_Q[4]), f,
        _LOG_Q[3]), f, _LOG_Q[2]), f, _LOG_Q[1]), f, _LOG_Q[0])
    return fma32(k, _LN2_HI, fma32(k, _LN2_LO, fma32(f * f, q, f)))


def sincos2pi_word32(w):
    """``(sin 2πt, cos 2πt)`` in f32 for ``t = w 2**-32``, ``w`` a 32-bit word.

    Parameters
    ----------
    w : numpy.uint64
        Below ``2**32``.

    Returns
    -------
    tuple of numpy.float32
        ``sin`` and ``cos``, each within 1.5 ulp (1.29 measured) of its value
        at the exact angle.  Multiples of ``π/2`` give exact results, with
        the zeros' signs of ``±sin`` and ``±cos`` at ``v = +0``.

    Notes
    -----
    ``n = round(4t)`` and ``v = 4t - n`` in ``[-1/2, 1/2)`` come from the
    word by integer arithmetic; ``v 2**30`` is an exact int32, converted to
    f32 once.  ``sin(π/2 v) = A v + v x S(x)`` (``A`` as two f32) and
    ``cos(π/2 v) = 1 + x C(x)`` with ``x = v**2``; the quadrant ``n mod 4``
    swaps them and flips signs.
    """
    shifted = (w + _EIGHTH) & _MASK32
    q = shifted >> _QUARTER_SHIFT  # n mod 4, the quadrant
    v = F32(np.int32(np.int64(shifted & _MASK30) - np.int64(_EIGHTH))) * _V_SCALE
    x = v * v
    s = fma32(fma32(fma32(_SIN_S[3], x, _SIN_S[2]), x, _SIN_S[1]), x, _SIN_S[0])
    sin_v = fma32(v, _A_HI, fma32(v, fma32(x, s, _A_LO), F32(0.0)))
    c = fma32(fma32(fma32(_COS_C[3], x, _COS_C[2]), x, _COS_C[1]), x, _COS_C[0])
    cos_v = fma32(x, c, F32(1.0))
    # (sin, cos) by quadrant: (s, c), (c, -s), (-s, -c), (-c, s)
    swapped = (q & _ONE) != 0
    sin_q = cos_v if swapped else sin_v
    cos_q = sin_v if swapped else cos_v
    sin_t = -sin_q if (q & _TWO) != 0 else sin_q
    cos_t = -cos_q if ((q + _ONE) & _TWO) != 0 else cos_q
    return sin_t, cos_t
