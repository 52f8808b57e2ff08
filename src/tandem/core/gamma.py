"""The gamma rule of ``docs/spec.md``: f64 variates of shape ``a`` from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``.

* Shape ``a >= 1``: Marsaglia and Tsang (2000).  ``z`` is the f64 normal
  rule's value of ``d0`` and ``u`` the open uniform of ``d1``; with
  ``d = a - 1/3`` and ``c = 1 / sqrt(9 d)``, ``t = 1 + c z`` and ``v = t**3``,
  the value ``m v`` (``m = d * scale``) is accepted if ``t > 0`` and
  ``u < 1 - 0.0331 z**4`` or ``log u < z**2 / 2 + d (1 - v + log v)``.
* Shape ``a < 1``: the rejection from a Weibull envelope that NumPy's
  ``standard_gamma`` uses: ``U`` the open uniform of ``d0``, ``V = -log`` of
  the open uniform of ``d1``; if ``U <= 1 - a``, ``X = U**(1/a)``, kept if
  ``X <= V``; else ``Y = -log((1 - U) / a)`` and ``X = (1 - a + a Y)**(1/a)``,
  kept if ``X <= V + Y``.  The value is ``X * scale``.

A first attempt that is rejected, or whose normal misses the ziggurat's fast
path, continues on lane ``g`` (the element's word) of the continuation key:
the normal's miss reads that lane from position 0, as the normal rule's
misses do, and the attempts after the first read blocks ``2**60 + 2 r``
(``z`` by Box-Muller of its two draws) and ``2**60 + 2 r + 1`` (``u``, or
``U`` and ``V``), ``r = 0, 1, ...``, which the normal's miss never reaches.

The parameter words are ``(d, c, m)`` for ``a >= 1`` and ``(a, -1/a,
scale)`` for ``a < 1`` (``tandem.parametric`` makes them): the sign of the
second tells them apart.  The value's product is
:func:`tandem.core.fmath.product`, so that a sum of values in the same
kernel (beta's ``x + y``) rounds as on the CPU.

:func:`gamma_large_first` and :func:`gamma_small_first` decide the first
attempt of each case with no branch, for the kinds that scalar shapes take:
the same values.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from ._marks import inline
from .fmath import fma, log64, product, sincos2pi64
from .inversion import exp_wide64, open_uniform64
from .normal import normal64_fast_table, normal64_miss_table

_LOW32 = U64(0xFFFFFFFF)
_THIRTY_TWO = U64(32)
_RETRY_BLOCK = U64(1 << 60)  # where the attempts after the first start, in blocks
_SQUEEZE = -0.0331  # Marsaglia and Tsang's squeeze constant


def _large_accepts(z, u, d, c):
    """``(accepted, v)`` of Marsaglia and Tsang's test (the squeeze first: it
    saves the logarithms for almost every draw)."""
    t = fma(c, z, 1.0)
    if t <= 0.0:
        return False, 0.0
    v = fma(t * t, t, 0.0)
    z2 = z * z
    if u < fma(z2 * z2, _SQUEEZE, 1.0):
        return True, v
    w = (1.0 - v) + log64(v)
    return log64(u) < fma(d, w, fma(z * 0.5, z, 0.0)), v


@inline
def _large_accepts_selected(z, u, d, c):
    """:func:`_large_accepts` by selects, not branches: both logarithms always."""
    t = fma(c, z, 1.0)
    positive = t > 0.0
    v = fma(t * t, t, 0.0)
    z2 = z * z
    squeezed = u < fma(z2 * z2, _SQUEEZE, 1.0)
    v_log = v if positive else 1.0  # a logarithm's argument where t <= 0 refuses anyway
    w = (1.0 - v_log) + log64(v_log)
    full = log64(u) < fma(d, w, fma(z * 0.5, z, 0.0))
    return positive & (squeezed | full), v if positive else 0.0


def _small_accepts(u, e, a, inv):
    """``(accepted, X)`` of the Weibull-envelope test for shape ``a < 1``."""
    if u <= 1.0 - a:
        x = exp_wide64(log64(u) * inv)
        return x <= e, x
    y = 0.0 - log64(np.divide(1.0 - u, a))
    x = exp_wide64(log64(fma(a, y, 1.0 - a)) * inv)
    return x <= e + y, x


@inline
def _small_accepts_selected(u, e, a, inv):
    """:func:`_small_accepts` by selects, not branches: both of its cases always,
    each on arguments that are safe where the other is selected."""
    low = u <= 1.0 - a
    x_low = exp_wide64(log64(u) * inv)
    y = 0.0 - log64(np.divide(1.0 - u, a if a > 0.0 else 1.0))
    x_high = exp_wide64(log64(1.0 if low else fma(a, y, 1.0 - a)) * inv)
    x = x_low if low else x_high
    return x <= (e if low else e + y), x


def _normal_fast(d, table):
    return normal64_fast_table(d & _LOW32, d >> _THIRTY_TWO, table)


def gamma_first(d0, d1, p, c, m, table):
    """``(value, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    if c > 0.0:
        z, fast = _normal_fast(d0, table)
        accepted, v = _large_accepts(z, open_uniform64(d1), p, c)
        return product(m, v), fast & accepted
    accepted, x = _small_accepts(open_uniform64(d0), 0.0 - log64(open_uniform64(d1)), p,
                                 0.0 - c)
    return product(x, m), accepted


@inline
def gamma_large_first(d0, d1, p, c, m, table):
    """:func:`gamma_first` for shapes from 1 on (``c > 0``), by selects, not
    branches, so that a fill's loop vectorises: the same values and
    acceptances."""
    z, fast = _normal_fast(d0, table)
    accepted, v = _large_accepts_selected(z, open_uniform64(d1), p, c)
    return product(m, v), fast & accepted


@inline
def gamma_small_first(d0, d1, p, c, m, table):
    """:func:`gamma_first` for shapes below 1 (``c < 0``), by selects, not
    branches: the same values and acceptances."""
    accepted, x = _small_accepts_selected(open_uniform64(d0),
                                          0.0 - log64(open_uniform64(d1)), p, 0.0 - c)
    return product(x, m), accepted


def _box_muller(x0, x1, x2, x3):
    """A standard normal from one block: ``sqrt(-2 log u1) cos(2 pi u2)``."""
    u1 = open_uniform64(join64(x0, x1))
    s, co = sincos2pi64(np.float64(join64(x2, x3) >> U64(11)) * 2.0**-53)
    return math.sqrt(log64(u1) * -2.0) * co


def gamma_retry(generator, k0, k1, k2, k3, g, d0, d1, p, c, m, table):
    """The value of an element whose first attempt on ``(d0, d1)`` failed; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    if c > 0.0:
        z, fast = _normal_fast(d0, table)
        if not fast:
            z = normal64_miss_table(generator, k0, k1, k2, k3, g, d0 & _LOW32,
                                    d0 >> _THIRTY_TWO, table)
            accepted, v = _large_accepts(z, open_uniform64(d1), p, c)
            if accepted:
                return product(m, v)
    b = _RETRY_BLOCK
    while True:
        y0, y1, y2, y3 = block_at(generator, k0, k1, k2, k3, g, b + U64(1))
        if c > 0.0:
            x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, b)
            accepted, v = _large_accepts(_box_muller(x0, x1, x2, x3),
                                         open_uniform64(join64(y0, y1)), p, c)
            if accepted:
                return product(m, v)
        else:
            e = 0.0 - log64(open_uniform64(join64(y2, y3)))
            accepted, x = _small_accepts(open_uniform64(join64(y0, y1)), e, p, 0.0 - c)
            if accepted:
                return product(x, m)
        b += U64(2)
