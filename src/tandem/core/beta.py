"""Jöhnk's beta rule of ``docs/spec.md``, for both shapes at most 1, from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``:
``U = v(d0)``, ``V = v(d1)`` (open uniforms), ``X = exp(log(U) / a)``,
``Y = exp(log(V) / b)``.  The attempt is accepted if ``X + Y <= 1``; the
value is then ``X / (X + Y)``, or, where both have underflowed to 0, the same
ratio from the logarithms: with ``lx = log(U) / a``, ``ly = log(V) / b`` and
``m = max(lx, ly)``, ``exp((lx - m) - log(exp(lx - m) + exp(ly - m)))``.
Rejected attempts continue on lane ``g`` (the element's word) of the
continuation key, attempt ``r = 0, 1, ...`` on block ``r``.

Guaranteed across versions: each function's output for each input.
"""

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from .fmath import log64
from .inversion import exp_wide64, open_uniform64


def _johnk(u, v, a, b):
    """``(accepted, value)`` of one attempt of Jöhnk's rule."""
    lx = np.divide(log64(u), a)
    ly = np.divide(log64(v), b)
    x = exp_wide64(lx)
    y = exp_wide64(ly)
    total = x + y
    if not total <= 1.0:
        return False, 0.0
    if total > 0.0:
        return True, np.divide(x, total)
    m = max(lx, ly)
    lx -= m
    ly -= m
    return True, exp_wide64(lx - log64(exp_wide64(lx) + exp_wide64(ly)))


def johnk_first(d0, d1, a, b):
    """``(value, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    accepted, value = _johnk(open_uniform64(d0), open_uniform64(d1), a, b)
    return value, accepted


def johnk_retry(generator, k0, k1, k2, k3, g, a, b):
    """The value of an element whose first attempt was rejected; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    r = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, r)
        accepted, value = _johnk(open_uniform64(join64(x0, x1)),
                                 open_uniform64(join64(x2, x3)), a, b)
        if accepted:
            return value
        r += U64(1)
