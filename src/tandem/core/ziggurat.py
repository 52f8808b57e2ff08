"""The 256-layer ziggurats (``method="zig"``): f32 normals, f64 and f32 exponentials.

Each takes one draw per element in the main stream:

* **normal f32**, one word ``w``: layer ``w & 255``, sign bit 8, ``m = w >> 9``
  (23 bits), the layout of NumPy's float ziggurat;
* **exponential f64**, one 64-bit draw ``d``: layer ``d & 255``, ``m = d >> 11``
  (53 bits; bits 8 to 10 are unused);
* **exponential f32**, one word ``w``: layer ``w & 255``, ``m = w >> 8`` (24 bits).

The fast path is ``m * W[layer]``, one correctly rounded product in the
output's precision (signed for the normal), taken when ``m < K[layer]``.
Otherwise the draw *misses*, and the miss functions resolve it in f64 on
64-bit draws ``u0, u1, ...`` of a continuation lane, each used once, in
order:

* layer 0, the tail: the normal's ``R + a`` by Marsaglia's method (two
  draws a try), the exponential's ``R`` plus a fresh exponential by the
  whole rule, on the next draw;
* a layer ``i > 0``, a wedge: keep ``x = m * W[i]`` when
  ``fma(V(u), F[i+1] - F[i], F[i]) < f(x)``, with ``V(u)`` the ``[0, 1)``
  uniform of the next draw and ``f`` the unnormalised density; otherwise
  the next draw is a whole new draw (for the f32 ziggurats, its low word),
  whose fast path gives the value or whose miss starts over.

It also holds the inversion ``-log u`` (``exponential(method="inv")``, and
the normal ziggurats' tails).

The tables come from :mod:`tandem.core.ziggurat_normal32`,
:mod:`~tandem.core.ziggurat_exponential64` and
:mod:`~tandem.core.ziggurat_exponential32`, packed into one uint64 array
each (``*_TABLE``) that the functions read, so that a GPU kernel can pass
a copy in shared memory.

Guaranteed across versions: every value for every draw.
"""

import numpy as np

from . import ziggurat_exponential32 as _e32
from . import ziggurat_exponential64 as _e64
from . import ziggurat_normal32 as _n32
from ._marks import inline
from .addressing import join64, pair_at
from .bijections import MASK32, SHIFT32, U64
from .fmath import exp64, fma, log64, product
from .fmath32 import log_word32, product32
from .uniform import top53_float, uniform64

_LAYERS = U64(256)
_LAYER_MASK = U64(255)
_ZERO = U64(0)
_ONE = U64(1)
_TWO = U64(2)
_FOUR = U64(4)
_SHIFT8 = U64(8)
_SHIFT9 = U64(9)
_SHIFT11 = U64(11)
_ZERO32 = np.float32(0.0)


def _packed32(tables):
    """``K << 32 | bits(W)`` per layer (one load on the fast path), then the bits of
    ``F`` as f64."""
    fast = (tables.K.astype(np.uint64) << np.uint64(32)) | tables.W.view(np.uint32)
    packed = np.concatenate([fast, tables.F.astype(np.float64).view(np.uint64)])
    packed.setflags(write=False)
    return packed


def _packed64(tables):
    """``K``, then the bits of ``W``, then those of ``F``."""
    packed = np.concatenate([tables.K, tables.W.view(np.uint64), tables.F.view(np.uint64)])
    packed.setflags(write=False)
    return packed


#: The tables of the f32 normal: ``K[i] << 32 | bits(W[i])`` at ``[i]``, the f64 bits
#: of ``F[i]`` at ``[256 + i]``.
NORMAL32_TABLE = _packed32(_n32)
#: The tables of the f64 exponential: ``K`` at ``[i]``, the bits of ``W`` at
#: ``[256 + i]`` and of ``F`` at ``[512 + i]``.
EXPONENTIAL64_TABLE = _packed64(_e64)
#: The tables of the f32 exponential, laid out as :data:`NORMAL32_TABLE`.
EXPONENTIAL32_TABLE = _packed32(_e32)

#: Words of each table that the fast path reads (a GPU copies them to shared memory).
FAST_WORDS32 = 256
FAST_WORDS64 = 512

_NORMAL32_R = _n32.R
_EXPONENTIAL64_R = _e64.R
_EXPONENTIAL32_R = _e32.R


def _f64(word):
    return np.uint64(word).view(np.float64)


def _f32(word):
    return np.uint32(word).view(np.float32)


@inline
def _fast32(w, table, shift):
    """``(m * W[layer], accepted)`` in f32 for the word ``w`` with ``m = w >> shift``."""
    entry = table[w & _LAYER_MASK]
    m = w >> shift
    return product32(np.float32(np.int32(m)), _f32(entry & MASK32)), m < (entry >> SHIFT32)


@inline
def normal32_fast_table(w, table):
    """The f32 normal's fast path for the word ``w``: ``(value, accepted)``.

    ``table`` is :data:`NORMAL32_TABLE` or a copy of it.  ``accepted`` is
    False for a miss (about 1.5 % of words); then :func:`normal32_miss_table`
    gives the element.
    """
    x, accepted = _fast32(w, table, _SHIFT9)
    return (-x if (w >> _SHIFT8) & _ONE else x), accepted


@inline
def exponential32_fast_table(w, table):
    """The f32 exponential's fast path for the word ``w``: ``(value, accepted)``
    (misses, about 2.2 %: :func:`exponential32_miss_table`)."""
    return _fast32(w, table, _SHIFT8)


@inline
def exponential64_fast_table(lo, hi, table):
    """The f64 exponential's fast path for the draw ``(lo, hi)``: ``(value, accepted)``
    (misses, about 2.2 %: :func:`exponential64_miss_table`)."""
    d = join64(lo, hi)
    layer = d & _LAYER_MASK
    x = product(top53_float(lo, hi), _f64(table[_LAYERS + layer]))
    return x, (d >> _SHIFT11) < table[layer]


def _wedge_keeps(u_lo, u_hi, f0, f1, density):
    """Whether the wedge point of height ``V(u)`` between ``f0`` and ``f1`` is under
    the curve, whose height at the point is ``density``."""
    return fma(uniform64(u_lo, u_hi, _ZERO), f1 - f0, f0) < density


@inline
def exponential64_inv(lo, hi):
    """``-log u`` with ``u`` the ``(0, 1]`` uniform of the draw ``(lo, hi)``:
    ``exponential(method="inv")`` in f64, and the normal ziggurats' tails."""
    return 0.0 - log64(uniform64(lo, hi, _ONE))


@inline
def exponential32_inv(w):
    """``-log u`` with ``u = (w + 1) / 2**32`` in ``(0, 1]``, in f32:
    ``exponential(dtype=float32, method="inv")``."""
    return _ZERO32 - log_word32(w)


def normal32_miss_table(generator, c0, c1, c2, c3, g, w, table):
    """The f32 normal of a word ``w`` that missed the fast path, from draws 0, 1,
    ... of lane ``g`` under the continuation key ``(c0, c1, c2, c3)``."""
    t = _ZERO
    while True:
        layer = w & _LAYER_MASK
        negative = (w >> _SHIFT8) & _ONE
        if layer == _ZERO:
            while True:
                a_lo, a_hi = pair_at(generator, c0, c1, c2, c3, g, t)
                b_lo, b_hi = pair_at(generator, c0, c1, c2, c3, g, t + _TWO)
                t += _FOUR
                a = exponential64_inv(a_lo, a_hi) / _NORMAL32_R
                b = exponential64_inv(b_lo, b_hi)
                if b + b > a * a:
                    x = np.float32(_NORMAL32_R + a)
                    return -x if negative else x
        x32, _ = _fast32(w, table, _SHIFT9)
        x = np.float64(x32)
        u_lo, u_hi = pair_at(generator, c0, c1, c2, c3, g, t)
        t += _TWO
        # x * -0.5 is exact, so this is the rounded -x**2/2 however it compiles.
        if _wedge_keeps(u_lo, u_hi, _f64(table[_LAYERS + layer]),
                        _f64(table[_LAYERS + layer + _ONE]), exp64(fma(x, x * -0.5, 0.0))):
            return -x32 if negative else x32
        w, _ = pair_at(generator, c0, c1, c2, c3, g, t)
        t += _TWO
        z, accepted = normal32_fast_table(w, table)
        if accepted:
            return z


def exponential64_miss_table(generator, c0, c1, c2, c3, g, lo, hi, table):
    """The f64 exponential of a draw ``(lo, hi)`` that missed the fast path, from
    draws 0, 1, ... of lane ``g`` under the continuation key ``(c0, c1, c2, c3)``."""
    offset = 0.0
    t = _ZERO
    while True:
        layer = join64(lo, hi) & _LAYER_MASK
        if layer == _ZERO:
            offset += _EXPONENTIAL64_R
        else:
            x = product(top53_float(lo, hi), _f64(table[_LAYERS + layer]))
            u_lo, u_hi = pair_at(generator, c0, c1, c2, c3, g, t)
            t += _TWO
            if _wedge_keeps(u_lo, u_hi, _f64(table[_TWO * _LAYERS + layer]),
                            _f64(table[_TWO * _LAYERS + layer + _ONE]), exp64(0.0 - x)):
                return offset + x
        lo, hi = pair_at(generator, c0, c1, c2, c3, g, t)
        t += _TWO
        x, accepted = exponential64_fast_table(lo, hi, table)
        if accepted:
            return offset + x


def exponential32_miss_table(generator, c0, c1, c2, c3, g, w, table):
    """The f32 exponential of a word ``w`` that missed the fast path, from draws
    0, 1, ... of lane ``g`` under the continuation key ``(c0, c1, c2, c3)``; the
    sum with the tails' offset is rounded to f32 once."""
    offset = 0.0
    t = _ZERO
    while True:
        layer = w & _LAYER_MASK
        if layer == _ZERO:
            offset += _EXPONENTIAL32_R
        else:
            x32, _ = _fast32(w, table, _SHIFT8)
            x = np.float64(x32)
            u_lo, u_hi = pair_at(generator, c0, c1, c2, c3, g, t)
            t += _TWO
            if _wedge_keeps(u_lo, u_hi, _f64(table[_LAYERS + layer]),
                            _f64(table[_LAYERS + layer + _ONE]), exp64(0.0 - x)):
                return np.float32(offset + x)
        w, _ = pair_at(generator, c0, c1, c2, c3, g, t)
        t += _TWO
        x32, accepted = exponential32_fast_table(w, table)
        if accepted:
            return np.float32(offset + np.float64(x32))
