"""The von Mises rule of ``docs/spec.md``: angles in ``[-pi, pi]`` from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``;
``U = v(d0)`` and ``V = v(d1)`` are their open uniforms and the low bit of
``d0`` is the angle's sign.  With concentration ``kappa`` and ``s`` its
envelope's parameter (``tandem.parametric`` computes it as NumPy does):

* ``kappa < 1e-8``: ``pi (2 U - 1)``;
* ``kappa > 1e6``: a wrapped normal, ``z / sqrt(kappa)`` with ``z`` Box-Muller's
  of ``(U, (d1 >> 11) 2**-53)``;
* otherwise Best and Fisher's rejection (1979), as NumPy's ``vonmises``:
  ``Z = cos(pi U)``, ``W = (1 + s Z) / (s + Z)``, ``Y = kappa (s - W)``, accepted
  if ``Y (2 - Y) - V >= 0`` or ``log(Y / V) + 1 - Y >= 0``; the angle is
  ``acos(W)``.  Rejected attempts continue on lane ``g`` (the element's word)
  of the continuation key, attempt ``r = 0, 1, ...`` on block ``r``.

The angle plus ``mu`` is then wrapped into ``[-pi, pi]``.

:func:`vonmises_rejection_first` decides the first attempt of Best and
Fisher's case with no branch, for the kind that scalar concentrations in
``[1e-8, 1e6]`` take: the same values.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from ._marks import inline
from .fmath import fma, log64, sincos2pi64
from .inversion import floor64, open_uniform64
from .special import acos64

_PI = 3.141592653589793
_TWO_PI = 6.283185307179586
UNIFORM_BELOW, NORMAL_ABOVE = 1e-8, 1e6  # the concentrations of the three cases
_ONE = U64(1)


@inline
def _wrapped(angle, mu):
    """``angle + mu`` into ``[-pi, pi]``, as NumPy wraps it (an exact remainder)."""
    x = angle + mu
    a = abs(x) + _PI
    r = fma(0.0 - floor64(np.divide(a, _TWO_PI)), _TWO_PI, a)
    r = r + _TWO_PI if r < 0.0 else r
    r = r - _TWO_PI if r >= _TWO_PI else r
    r = r - _PI
    return 0.0 - r if x < 0.0 else r


@inline
def _best_fisher(u, v, kappa, s):
    """``(accepted, W)`` of one attempt."""
    z = sincos2pi64(u * 0.5)[1]
    w = np.divide(fma(s, z, 1.0), s + z)
    y = fma(kappa, s - w, 0.0)
    accepted = (fma(y, 2.0 - y, 0.0 - v) >= 0.0) | ((log64(np.divide(y, v)) + 1.0) - y >= 0.0)
    return accepted, w


@inline
def _angle(w, d0):
    angle = acos64(w)
    return 0.0 - angle if (d0 & _ONE) != U64(0) else angle


@inline
def vonmises_rejection_first(d0, d1, mu, kappa, s):
    """:func:`vonmises_first` for ``kappa`` in ``[UNIFORM_BELOW, NORMAL_ABOVE]``
    (Best and Fisher's case), with no branch, so that a fill's loop vectorises: the same
    values and acceptances."""
    accepted, w = _best_fisher(open_uniform64(d0), open_uniform64(d1), kappa, s)
    return _wrapped(_angle(w, d0), mu), accepted


def vonmises_first(d0, d1, mu, kappa, s):
    """``(angle, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    u = open_uniform64(d0)
    if kappa < UNIFORM_BELOW:
        return _wrapped(fma(_PI, fma(u, 2.0, -1.0), 0.0), mu), True
    if kappa > NORMAL_ABOVE:
        c = sincos2pi64(np.float64(d1 >> U64(11)) * 2.0**-53)[1]
        z = math.sqrt(log64(u) * -2.0) * c
        return _wrapped(np.divide(z, math.sqrt(kappa)), mu), True
    return vonmises_rejection_first(d0, d1, mu, kappa, s)


def vonmises_retry(generator, k0, k1, k2, k3, g, mu, kappa, s):
    """The angle of an element whose first attempt was rejected; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    r = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, r)
        d0 = join64(x0, x1)
        accepted, w = _best_fisher(open_uniform64(d0), open_uniform64(join64(x2, x3)), kappa,
                                   s)
        if accepted:
            return _wrapped(_angle(w, d0), mu)
        r += U64(1)
