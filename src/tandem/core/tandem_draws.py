"""The tandem specification's derived draws (Tandem8x32, Appendices A and C).

Maps from the draws of a Tandem8x32 stream to values, each as the text of
``SPEC.md`` (``tandem-rng/spec`` at 41bc1b52) states it:

* :func:`uniform53` and :func:`uniform24`: the Float64 and Float32 mappings
  of section 5;
* :func:`neg2_log`: the reference logarithm ``L(x) = -2 ln x``, rounded
  operation by operation as the text orders it, so that it is exact across
  implementations;
* :func:`normal64_fast` and :func:`normal64_miss`: the 1024-layer ziggurat
  with the tables ``W``, ``K_FLOOR`` and ``F`` of
  :mod:`tandem.core.ziggurat_tables` (the text's ``W``, ``K`` and ``Y``);
* :func:`box_muller32`: the Float32 normal pair, in f32 by
  :mod:`tandem.core.fmath32`, the same bits on the CPU and the GPU;
* :func:`exponential64` (``0.5 L(1 - u)``, exact) and :func:`exponential32`
  (``L`` of the f32 uniform, rounded once to f32);
* :func:`choice_index`: the draw of Appendix C's exact alias table.

Misses of the ziggurat continue on the UInt64 draws of a fallback stream,
``split(g)`` of ``purpose(P_N64)``: ``fallback_word`` reads them.

Guaranteed across versions: every value for every draw.
"""

import numpy as np

from ._marks import inline
from .bijections import MASK32, SHIFT32, U64
from .fmath import fma, product
from .normal import normal_pair
from .tandem8x32 import block_at, split_key
from .uniform import lemire32, lemire64, mulhilo64
from .ziggurat_tables import F, K_FLOOR, R, W

#: Purposes reserved by the specification for the fallbacks of bounded fills
#: (32- and 64-bit draws) and of Float64 normals.
PURPOSE_BELOW32 = 0x424C573332
PURPOSE_BELOW64 = 0x424C573634
PURPOSE_NORMAL64 = 0x4E524D3634

#: The ziggurat's tables in one uint64 array: ``K_FLOOR`` at ``[layer]``,
#: the bits of ``W`` at ``[1024 + layer]`` and those of ``F`` (the text's
#: ``Y``, 1025 entries) at ``[2048 + i]``.
ZIGGURAT_TABLE = np.concatenate([K_FLOOR, W.view(np.uint64), F.view(np.uint64)])
ZIGGURAT_TABLE.setflags(write=False)
_W_AT = U64(1024)
_Y_AT = U64(2048)

# SPEC.md Appendix A, the reference logarithm.
_LOG_OFFSET = U64(0x00095F6200000000)
_MANTISSA = U64(0x000FFFFFFFFFFFFF)
_SQRT_HALF_BITS = U64(0x3FE6A09E00000000)
_LN4_HI = float.fromhex("0x1.62e42fee00000p+0")
_LN4_LO = float.fromhex("0x1.a39ef00000000p-32")
_C1 = float.fromhex("0x1.55555555553b4p-2")
_C2 = float.fromhex("0x1.9999999b8be41p-3")
_C3 = float.fromhex("0x1.2492462428654p-3")
_C4 = float.fromhex("0x1.c71fd2b1ef828p-4")
_C5 = float.fromhex("0x1.7381dac46557bp-4")
_C6 = float.fromhex("0x1.54797261814c6p-4")

_ZERO = U64(0)
_ONE = U64(1)
_TWO = U64(2)
_EIGHT = U64(8)
_SHIFT10 = U64(10)
_SHIFT11 = U64(11)
_SHIFT52 = U64(52)
_LAYER_MASK = U64(1023)
_TOP24 = U64(0xFFFFFF00)
_F64_ULP = 2.0**-53
_F32_ULP = np.float32(2.0**-24)
_TWO52_BITS = U64(0x4330000000000000)  # the bits of 2**52
_TWO52 = 2.0**52


@inline
def uniform53(d):
    """The Float64 of the 64-bit draw ``d``: ``(d >> 11) 2**-53``, in ``[0, 1)``."""
    return np.float64(d >> _SHIFT11) * _F64_ULP


@inline
def uniform24(w):
    """The Float32 of the 32-bit draw ``w``: ``(w >> 8) 2**-24``, in ``[0, 1)``."""
    return np.float32(np.int32(w >> _EIGHT)) * _F32_ULP


def neg2_log(x):
    """``L(x) = -2 ln x`` for a float64 ``x`` in ``(0, 1]``, the reference logarithm.

    Every ``fma`` rounds once and every other operation rounds once, none
    fused, so the bits are the same wherever it runs (``neg2_log_f64`` of
    the C reference).
    """
    ix = np.float64(x).view(np.uint64) + _LOG_OFFSET
    # 1023 - (ix >> 52), exactly, through the float 2**52 + e: the CPU then
    # vectorises the loop (it has no int64-to-float conversion in AVX2).
    e = U64((ix >> _SHIFT52) | _TWO52_BITS).view(np.float64) - _TWO52
    nk = 1023.0 - e
    m = U64((ix & _MANTISSA) + _SQRT_HALF_BITS).view(np.float64)
    # np.divide, not /: Numba's / checks for a zero divisor, which stops the
    # loop's vectorisation (m + 1 > 1 here).
    s = np.divide(m - 1.0, m + 1.0)
    z = product(s, s)
    p = fma(z, fma(z, fma(z, fma(z, fma(z, fma(z, _C6, _C5), _C4), _C3), _C2), _C1), 1.0)
    return fma(nk, _LN4_LO, fma(nk, _LN4_HI, product(product(s, -4.0), p)))


def fallback_word(c0, c1, c2, c3, log2_k, q):
    """UInt64 draw ``q`` of the fallback stream with key ``c`` from position 0."""
    x0, x1, x2, x3 = block_at(c0, c1, c2, c3, log2_k, q >> _ONE)
    if q & _ONE:
        return x2 | (x3 << SHIFT32)
    return x0 | (x1 << SHIFT32)


def _table_float(table, i):
    return np.uint64(table[i]).view(np.float64)


@inline
def normal64_fast(d, table):
    """The ziggurat's fast path for the 64-bit draw ``d``: ``(x, accepted)``.

    ``x = (-1)**s ra W[i]`` with layer ``i = d & 1023``, sign ``s`` bit 10 and
    ``ra = d >> 11``; accepted when ``ra < K[i]`` (99.57 % of draws).
    ``table`` is :data:`ZIGGURAT_TABLE` (on a GPU, a device copy).  The sign
    multiplies, exactly, rather than branches: a branch on a random bit cost
    the CPU's fills half their time in mispredictions.
    """
    layer = d & _LAYER_MASK
    ra = d >> _SHIFT11
    x = product(np.float64(ra), _table_float(table, _W_AT + layer))
    return product(x, 1.0 - 2.0 * np.float64(np.int32((d >> _SHIFT10) & _ONE))), \
        ra < table[layer]


def normal64_miss(c0, c1, c2, c3, log2_k, d, table):
    """The normal of a draw ``d`` that missed the fast path, from the UInt64
    draws of the fallback key ``c`` in order (Appendix A's loop)."""
    q = _ZERO
    while True:
        layer = d & _LAYER_MASK
        negative = (d >> _SHIFT10) & _ONE
        if layer == 0:
            while True:
                a = 0.5 * neg2_log(1.0 - uniform53(fallback_word(c0, c1, c2, c3, log2_k, q))) / R
                b = 0.5 * neg2_log(1.0 - uniform53(fallback_word(c0, c1, c2, c3, log2_k,
                                                                  q + _ONE)))
                q += _TWO
                if b + b >= product(a, a):
                    return -(R + a) if negative else R + a
        x = product(np.float64(d >> _SHIFT11), _table_float(table, _W_AT + layer))
        if negative:
            x = -x
        y0 = _table_float(table, _Y_AT + layer)
        y1 = _table_float(table, _Y_AT + layer + _ONE)
        u = uniform53(fallback_word(c0, c1, c2, c3, log2_k, q))
        q += _ONE
        y = y0 + product(u, y1 - y0)
        if -0.5 * neg2_log(y) < -0.5 * product(x, x):
            return x
        d = fallback_word(c0, c1, c2, c3, log2_k, q)
        q += _ONE
        x, accepted = normal64_fast(d, table)
        if accepted:
            return x


@inline
def exponential64(d):
    """The standard exponential of the 64-bit draw ``d``: ``0.5 L(1 - u)``."""
    return 0.5 * neg2_log(1.0 - uniform53(d))


@inline
def exponential32(w):
    """The standard exponential of the 32-bit draw ``w``, in f32.

    ``L(1 - u)`` of the f32 uniform ``u`` (exact in f64), halved and rounded
    once to f32: within 0.5 ulp of ``-log(1 - u)`` (0.49999996 measured over all
    2**24 inputs), the same on every target.
    """
    return np.float32(0.5 * neg2_log(1.0 - np.float64(uniform24(w))))


@inline
def box_muller32(a, b):
    """The Float32 normal pair of the 32-bit draws ``(a, b)``: ``(z0, z1)``.

    ``r = sqrt(-2 log(1 - u(a)))``, ``z0 = r cos 2π u(b)``, ``z1 = r sin 2π u(b)``,
    in f32: :func:`tandem.core.normal.normal_pair` of the word whose ``(w + 1)
    2**-32`` is ``1 - u(a)`` and of the word of ``u(b)``.
    """
    return normal_pair(MASK32 - (a & _TOP24), b & _TOP24)


@inline
def choice_index(d, m, capacity, cut, alias):
    """Appendix C's index for the 64-bit draw ``d`` from a table of ``m`` columns.

    ``x = d m``; column ``j = x >> 64`` keeps its index when ``((x mod 2**64)
    S) >> 64 < cut[j]``, else gives ``alias[j]``.
    """
    j, f = mulhilo64(d, m)
    v, _ = mulhilo64(f, capacity)
    if v < cut[j]:
        return j
    return U64(alias[j])


# -- elements of fills ----------------------------------------------------------------
# ``(d, params, table, g, log2_k) -> value``: element of a fill whose draw is
# ``d``, the ``g``-th draw of the fill's key, the form every backend's fill
# kernel maps with.  ``params`` holds the fallback purpose's key first.

@inline
def normal64_of_draw(d, params, table, g, log2_k):
    """The Float64 normal; ``params``: the key of ``purpose(P_N64)``; ``table``:
    :data:`ZIGGURAT_TABLE`."""
    x, accepted = normal64_fast(d, table)
    if accepted:
        return x
    c0, c1, c2, c3 = split_key(params[0], params[1], params[2], params[3], g)
    return normal64_miss(c0, c1, c2, c3, log2_k, d, table)


@inline
def below32_of_draw(d, params, table, g, log2_k):
    """A bounded integer of a 32-bit draw; ``params``: the key of ``purpose(P_32)``,
    the range and ``(2**32 - range) mod range``.  A rejected draw retries on the
    32-bit draws of ``split(g)`` of the purpose, from its position 0."""
    value, accepted = lemire32(d, params[4], params[5])
    if accepted:
        return value
    c0, c1, c2, c3 = split_key(params[0], params[1], params[2], params[3], g)
    q = _ZERO
    while True:
        x = fallback_word(c0, c1, c2, c3, log2_k, q >> _ONE)
        value, accepted = lemire32((x >> SHIFT32) if q & _ONE else (x & MASK32), params[4],
                                   params[5])
        if accepted:
            return value
        q += _ONE


@inline
def below64_of_draw(d, params, table, g, log2_k):
    """A bounded integer of a 64-bit draw; ``params``: the key of ``purpose(P_64)``,
    the range (0 for ``2**64``) and ``(2**64 - range) mod range``."""
    value, accepted = lemire64(d & MASK32, d >> SHIFT32, params[4], params[5])
    if accepted:
        return value
    c0, c1, c2, c3 = split_key(params[0], params[1], params[2], params[3], g)
    q = _ZERO
    while True:
        x = fallback_word(c0, c1, c2, c3, log2_k, q)
        value, accepted = lemire64(x & MASK32, x >> SHIFT32, params[4], params[5])
        if accepted:
            return value
        q += _ONE


@inline
def choice_of_draw(d, params, table, g, log2_k):
    """A weighted choice; ``params``: ``m`` and ``S``; ``table``: ``cut``, then ``alias``."""
    m = params[0]
    return choice_index(d, m, params[1], table[:m], table[m:])
