"""The Poisson rule of ``docs/spec.md``: counts of mean ``lam`` from a block.

An element takes one stream block, read as two 64-bit draws ``(d0, d1)``,
and its count is returned as an f64 (exact: counts stay below ``2**53``).

* ``lam < 10``: inversion of ``u``, the open uniform of ``d0``: ``k`` is the
  first count whose running sum of ``p_k`` (``p_0 = exp(-lam)``, ``p_k =
  p_{k-1} lam / k``) reaches ``u``; a sum that stops growing stops the count.
* ``lam >= 10``: Hörmann's transformed rejection with squeeze (PTRS, 1993),
  as NumPy's ``poisson`` runs it, on ``U = v(d0) - 1/2`` and ``V = v(d1)``.
  Rejected attempts continue on lane ``g`` (the element's word) of the
  continuation key, attempt ``r = 0, 1, ...`` on block ``r``.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from .addressing import block_at, join64
from .bijections import U64
from .fmath import exp64, fma, log64
from .inversion import floor64, open_uniform64
from .special import lgamma64

#: Means below this take the inversion, the others PTRS.
INVERSION_BELOW = 10.0


def poisson_inversion(u, lam):
    """The count by sequential search of ``u`` (f64)."""
    p = exp64(0.0 - lam)
    total = p
    k = 0.0
    while u > total:
        k += 1.0
        p = np.divide(p * lam, k)
        grown = total + p
        if grown == total:
            break
        total = grown
    return k


def _ptrs(u, v, lam):
    """``(accepted, k)`` of one PTRS attempt on ``U = u - 1/2`` and ``V = v``."""
    slam = math.sqrt(lam)
    b = fma(2.53, slam, 0.931)
    a = fma(0.02483, b, -0.059)
    shifted = u - 0.5
    us = 0.5 - abs(shifted)
    k = floor64(fma(np.divide(a * 2.0, us) + b, shifted, lam) + 0.43)
    if us >= 0.07 and v <= 0.9277 - np.divide(3.6224, b - 2.0):
        return True, k
    if k < 0.0 or (us < 0.013 and v > us):
        return False, k
    inv_alpha = 1.1239 + np.divide(1.1328, b - 3.4)
    lhs = (log64(v) + log64(inv_alpha)) - log64(np.divide(a, us * us) + b)
    rhs = fma(k, log64(lam), 0.0 - lam) - lgamma64(k + 1.0)
    return lhs <= rhs, k


def poisson_first(d0, d1, lam):
    """``(count, accepted)`` of the first attempt on the draws ``(d0, d1)``."""
    u = open_uniform64(d0)
    if lam < INVERSION_BELOW:
        return poisson_inversion(u, lam), True
    accepted, k = _ptrs(u, open_uniform64(d1), lam)
    return k, accepted


def poisson_retry(generator, k0, k1, k2, k3, g, lam):
    """The count of an element whose first PTRS attempt was rejected; its
    continuation is lane ``g`` of the key ``k0..k3``."""
    b = U64(0)
    while True:
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, g, b)
        accepted, k = _ptrs(open_uniform64(join64(x0, x1)), open_uniform64(join64(x2, x3)),
                            lam)
        if accepted:
            return k
        b += U64(1)
