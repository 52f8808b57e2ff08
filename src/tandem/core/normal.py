"""The f64 normal's ziggurat, and the per-element normals users' kernels call.

The f64 normal is a 1024-layer ziggurat on one 64-bit draw ``d``: layer
``d & 1023``, sign bit 10, mantissa ``m = d >> 11`` (53 bits).  The fast
path returns ``±m * W[layer]`` when ``m < K[layer]``; otherwise the draw is a
miss, resolved by :func:`normal64_miss` on its continuation stream.  The f32
normal is Box-Muller on an aligned word pair, in f32 (:func:`normal_pair`);
its 256-layer ziggurat (``method="zig"``) is in :mod:`tandem.core.ziggurat`.

The tables are in :mod:`tandem.core.ziggurat_tables`; the math functions in
:mod:`tandem.core.fmath`.  Every product that feeds a sum goes through
``fma`` (or is exact), so CPU and GPU round alike.

Guaranteed across versions: every value for every draw.
"""

import numpy as np

from ._marks import inline
from .addressing import join64, pair_at, word_at
from .bijections import U64
from .fmath import exp64, fma, product
from .fmath32 import log_word32, product32, sincos2pi_word32, sqrt32
from .uniform import top53_float, uniform64
from .ziggurat import exponential64_inv, normal32_fast_table, normal32_miss_table
from .ziggurat_tables import K, R, F, W

#: The ziggurat's tables in one uint64 array: ``K`` at ``[layer]``, the bits
#: of ``W`` at ``[1024 + layer]`` and those of ``F`` at ``[2048 + i]``.  The
#: fast path reads the first 2048 words.  A GPU kernel passes the array in
#: device or shared memory (see :func:`normal64_fast_table`).
FAST_TABLE = np.concatenate([K, W.view(np.uint64), F.view(np.uint64)])
FAST_TABLE.setflags(write=False)
_W_OFFSET = U64(K.size)
_F_OFFSET = U64(K.size + W.size)

_LAYER_MASK = U64(1023)
_SIGN_SHIFT = U64(10)
_MANTISSA_SHIFT = U64(11)
_ZERO = U64(0)
_ONE = U64(1)
_TWO = U64(2)
_FOUR = U64(4)
_MINUS_TWO32 = np.float32(-2.0)


def _table_float(table, i):
    """The float64 whose bits are ``table[i]``."""
    return np.uint64(table[i]).view(np.float64)


def _signed(x, d):
    """``x`` with the sign of bit 10 of the draw ``d``."""
    return -x if (d >> _SIGN_SHIFT) & _ONE else x


@inline
def normal64_fast(lo, hi):
    """The ziggurat's fast path for the draw ``(lo, hi)``: ``(value, accepted)``.

    ``accepted`` is False for a miss (about 0.4 % of draws); then ``value``
    is meaningless and :func:`normal64_miss` gives the element.
    """
    return normal64_fast_table(lo, hi, FAST_TABLE)


@inline
def normal64_fast_table(lo, hi, table):
    """:func:`normal64_fast` reading its tables from ``table`` (a copy of :data:`FAST_TABLE`).

    On a GPU a module-level array lives in constant memory, where the lanes
    of a warp that read different layers wait on each other; a copy in
    device memory does not.
    """
    d = join64(lo, hi)
    layer = d & _LAYER_MASK
    x = product(top53_float(lo, hi), _table_float(table, _W_OFFSET + layer))
    return _signed(x, d), (d >> _MANTISSA_SHIFT) < table[layer]


def normal64_miss(generator, k0, k1, k2, k3, g, lo, hi):
    """The normal variate of a draw ``(lo, hi)`` that missed the fast path.

    Uses draws 0, 1, 2, ... of lane ``g`` under the continuation key
    ``(k0, k1, k2, k3)``: layer 0 samples the tail beyond ``R`` by
    Marsaglia's method (two draws a try); a layer ``i > 0`` tests its wedge
    with one draw, and a rejection starts over with a whole new draw.
    """
    return normal64_miss_table(generator, k0, k1, k2, k3, g, lo, hi, FAST_TABLE)


def normal64_miss_table(generator, k0, k1, k2, k3, g, lo, hi, table):
    """:func:`normal64_miss` reading its tables from ``table`` (a copy of
    :data:`FAST_TABLE`), as a GPU kernel does from device memory."""
    d = join64(lo, hi)
    t = _ZERO
    while True:
        layer = d & _LAYER_MASK
        if layer == 0:
            while True:
                a_lo, a_hi = pair_at(generator, k0, k1, k2, k3, g, t)
                b_lo, b_hi = pair_at(generator, k0, k1, k2, k3, g, t + _TWO)
                t += _FOUR
                a = exponential64_inv(a_lo, a_hi) / R
                b = exponential64_inv(b_lo, b_hi)
                if b + b > a * a:
                    return _signed(R + a, d)
        x = product(top53_float(lo, hi), _table_float(table, _W_OFFSET + layer))
        u_lo, u_hi = pair_at(generator, k0, k1, k2, k3, g, t)
        t += _TWO
        u = uniform64(u_lo, u_hi, _ZERO)
        f0 = _table_float(table, _F_OFFSET + layer)
        f1 = _table_float(table, _F_OFFSET + layer + _ONE)
        # x * -0.5 is exact, so this is the rounded -x**2/2 however it compiles.
        if fma(u, f1 - f0, f0) < exp64(fma(x, x * -0.5, 0.0)):
            return _signed(x, d)
        lo, hi = pair_at(generator, k0, k1, k2, k3, g, t)
        t += _TWO
        value, accepted = normal64_fast_table(lo, hi, table)
        if accepted:
            return value
        d = join64(lo, hi)


def normal64_at(generator, k0, k1, k2, k3, c0, c1, c2, c3, lane, i, table):
    """Element ``i`` of ``normal()`` (f64, standard) from position 0 of (key, lane).

    ``(c0, c1, c2, c3)`` is the lane's continuation key,
    :func:`tandem.core.derivation.retry_key` with the purpose word and domain
    of ``"tandem.normal64"`` (``tandem.purpose_word``), and ``table`` is
    :data:`FAST_TABLE` (on a GPU, a device copy of it).
    """
    w = _TWO * i
    lo, hi = pair_at(generator, k0, k1, k2, k3, lane, w)
    z, accepted = normal64_fast_table(lo, hi, table)
    if not accepted:
        z = normal64_miss_table(generator, c0, c1, c2, c3, w, lo, hi, table)
    return z


@inline
def normal_pair(even, odd):
    """Box-Muller on the word pair ``(even, odd)``: ``(r cos θ, r sin θ)`` in f32.

    ``r = sqrt(-2 log u)`` with ``u = (even + 1) / 2**32`` in ``(0, 1]`` and
    ``θ = 2π odd / 2**32``, by :mod:`tandem.core.fmath32`.  The even word's
    element takes the cosine, the odd word's the sine.
    """
    r = sqrt32(log_word32(even) * _MINUS_TWO32)
    s, c = sincos2pi_word32(odd)
    return product32(r, c), product32(r, s)


def normal32_at(generator, k0, k1, k2, k3, lane, i):
    """Element ``i`` of ``normal(dtype=float32)`` (standard) from position 0 of (key, lane).

    For a run of elements, :func:`normal_pair` on the words of each block
    gives four at the cost of one bijection.
    """
    lo, hi = pair_at(generator, k0, k1, k2, k3, lane, i & ~_ONE)
    c, s = normal_pair(lo, hi)
    return s if i & _ONE else c


def normal32_zig_at(generator, k0, k1, k2, k3, c0, c1, c2, c3, lane, i, table):
    """Element ``i`` of ``normal(dtype=float32, method="zig")`` (standard) from
    position 0 of (key, lane).

    ``(c0, c1, c2, c3)`` is the continuation key of ``"tandem.normal32"``
    (as for :func:`normal64_at`) and ``table`` is
    :data:`tandem.core.ziggurat.NORMAL32_TABLE` (on a GPU, a device copy).
    """
    w = word_at(generator, k0, k1, k2, k3, lane, i)
    z, accepted = normal32_fast_table(w, table)
    if not accepted:
        z = normal32_miss_table(generator, c0, c1, c2, c3, i, w, table)
    return z
