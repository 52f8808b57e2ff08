"""Jöhnk's beta rule of ``docs/spec.md``, for both shapes at most 1, from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``:
``U = v(d0)``, ``V = v(d1)`` (open uniforms), ``X = exp(log(U) / a)``,
``Y = exp(log(V) / b)``.  The attempt is accepted if ``X + Y <= 1``; the
value is then ``X / (X + Y)``, or, where both have underflowed to 0, the same
ratio from the logarithms: with ``lx = log(U) / a``, ``ly = log(V) / b`` and
``m = max(lx, ly)``, ``exp((lx - m) - log(exp(lx - m) + exp(ly - m)))``; where
both are ``-inf`` (``a`` and ``b`` below about 1e-308), ``1 / (1 + exp(d))``
with ``s = min(a, b)`` and ``d = (log(V) / (b / s) - log(U) / (a / s)) / s``.
Rejected attempts continue on lane ``g`` (the element's word) of the
continuation key, attempt ``r = 0, 1, ...`` on block ``r``.

Guaranteed across versions: each function's output for each input.
"""

import numpy as np

from ._marks import inline
from .addressing import block_at, join64
from .bijections import U64
from .fmath import log64
from .inversion import exp_wide64, open_uniform64

_SMALLEST = 5e-324  # the least positive float64: a divisor for X + Y = 0 that is never used


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
    if m == -np.inf:  # both quotients overflowed too: ly - lx from finite, scaled ones
        s = min(a, b)
        d = np.divide(np.divide(log64(v), np.divide(b, s)) - np.divide(log64(u), np.divide(a, s)),
                      s)
        return True, np.divide(1.0, 1.0 + exp_wide64(d))
    lx -= m
    ly -= m
    return True, exp_wide64(lx - log64(exp_wide64(lx) + exp_wide64(ly)))


@inline
def johnk_first(d0, d1, a, b):
    """``(value, accepted)`` of the first attempt on the draws ``(d0, d1)``, by
    selects, not branches: an attempt whose ``X + Y`` underflowed to 0 counts
    as rejected here, and :func:`johnk_retry` gives its value.  A rejected
    attempt's value is 0 exactly where it underflowed (else ``X > 0``, since
    ``Y <= 1 < X + Y``)."""
    x = exp_wide64(np.divide(log64(open_uniform64(d0)), a))
    y = exp_wide64(np.divide(log64(open_uniform64(d1)), b))
    total = x + y
    return np.divide(x, max(total, _SMALLEST)), (total <= 1.0) & (total > 0.0)


def johnk_value(d0, d1, a, b):
    """The value of an accepted attempt on the draws ``(d0, d1)``, underflowed or
    not (what :func:`johnk_first` leaves to :func:`johnk_retry`)."""
    return _johnk(open_uniform64(d0), open_uniform64(d1), a, b)[1]


def johnk_retry(generator, k0, k1, k2, k3, g, d0, d1, a, b):
    """The value of an element whose first attempt, on the draws ``(d0, d1)``,
    :func:`johnk_first` did not accept; its continuation is lane ``g`` of the
    key ``k0..k3``."""
    accepted, value = _johnk(open_uniform64(d0), open_uniform64(d1), a, b)
    if accepted:  # X + Y underflowed
        return value
    r = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, r)
        accepted, value = _johnk(open_uniform64(join64(x0, x1)),
                                 open_uniform64(join64(x2, x3)), a, b)
        if accepted:
            return value
        r += U64(1)
