"""Exact sums of parent-set weights: the node score of order MCMC, the same on every device.

A node's score given an order is ``log sum_{P allowed} exp(score(P))``.  Each
allowed set contributes the integer

    t_P = rint(w_P 2**E),    w_P = exp64(score(P) - shift),

and the sum ``T = sum t_P`` is exact (integers), so it does not depend on the
order of the terms, on how a device splits them between threads, or on the
path by which the chain reached the order.  Then

    node score = shift + log64(T 2**-E),

with ``T`` rounded once to a double (:func:`limbs_value`).  The shift and the
scale:

* normally ``shift`` is the node's best score over every set (``top``), the
  weights are the table's ``exp64(score - top)``, and ``E = 51 - e`` where
  ``2**e <= M < 2**(e + 1)`` for the largest allowed weight ``M``: every term
  is below ``2**52`` and the largest at least ``2**51``;
* when ``M < 2**MIN_EXPONENT`` (every allowed set far below ``top``),
  ``shift`` is the best allowed score, the weights are ``exp64(score -
  shift)`` (0 below ``exp(-708)``) and ``E = 51``.

A term is an exact ``w 2**E + 2**52`` in floating point, whose bits less those
of ``2**52`` are ``rint(w 2**E)``; it is kept as two 26-bit limbs, summed in
int64, so a sum of fewer than ``2**27`` terms is exact and its double is
correctly rounded.  The rounding of the terms bounds the error of a node
score by ``n 2**-52`` relative for ``n`` allowed sets.

Plain Python on scalars: the CPU kernels of :mod:`tandem.bn.mcmc` call these
through Numba's CPU target (:func:`register`), the CUDA kernels of
:mod:`tandem.bn.cuda_mcmc` through a copy registered with numba-cuda alone.

Guaranteed across versions from 0.4 on: each function's value for each input.
"""

import numpy as np

from .. import core
from ..core.fmath import exp64, fma, log64

#: Bits of a limb: a term ``t < 2**52`` is ``hi 2**LIMB + lo``.
LIMB = 26
LIMB_MASK = np.int64((1 << LIMB) - 1)
_TWO_LIMB = 2.0**LIMB
_MAGIC = 2.0**52
_MAGIC_BITS = np.int64(0x4330000000000000)  # the bits of 2**52
#: The scale exponent is SCALE_BITS - e: the largest term lies in [2**51, 2**52).
SCALE_BITS = 51
#: Below ``2**MIN_EXPONENT`` the largest allowed weight sends a node to its own scale.
MIN_EXPONENT = -900
#: A sum of fewer terms than this is exact (its high limb stays below 2**53).
MAX_TERMS = 1 << 27
#: The exponent recorded for a node summed in its own scale, whose sum the incremental
#: rule cannot change (below any real one).
OWN_SCALE = np.int64(-(1 << 40))


def weight_bits(w):
    """The bits of a weight ``w >= 0`` as an int64: they order as the weights do."""
    return np.float64(w).view(np.int64)


def exponent(bits):
    """``e`` with ``2**e <= w < 2**(e + 1)`` for the weight of these (normal) bits."""
    return (bits >> 52) - 1023


def scale(e):
    """``2**(SCALE_BITS - e)``, exactly, for ``e`` in ``[MIN_EXPONENT, 0]``."""
    return np.int64((1023 + SCALE_BITS - e) << 52).view(np.float64)


def term(w, factor):
    """``rint(w factor)`` for ``0 <= w factor <= 2**52``, as an int64."""
    return np.float64(w * factor + _MAGIC).view(np.int64) - _MAGIC_BITS


def scaled_weight(score, shift):
    """A node's own-scale weight: ``exp64(score - shift)``, 0 outside ``[-708, 0]``."""
    d = score - shift
    return exp64(d) if -708.0 <= d <= 0.0 else 0.0


def normalised(hi, lo):
    """The limbs ``(hi, lo)`` of the same sum with ``0 <= lo < 2**LIMB``."""
    return hi + (lo >> LIMB), lo & LIMB_MASK


def limbs_value(hi, lo):
    """``hi 2**LIMB + lo`` (sums of limbs, non-negative) rounded once to a double."""
    top = hi + (lo >> LIMB)
    return fma(np.float64(top), _TWO_LIMB, np.float64(lo & LIMB_MASK))


def floor_nonnegative(x):
    """``floor(x)`` of a non-negative double, exactly, as a double."""
    if x >= _MAGIC:
        return x  # an integer already
    r = (x + _MAGIC) - _MAGIC  # x rounded to an integer, exactly
    return r - 1.0 if r > x else r


def target_limbs(x):
    """``floor(x)`` of a non-negative double as limbs ``(hi, lo)``, ``lo < 2**LIMB``."""
    hi = floor_nonnegative(x / _TWO_LIMB)
    return np.int64(hi), np.int64(floor_nonnegative(x) - hi * _TWO_LIMB)


def node_score(shift, hi, lo, e):
    """``shift + log64(T 2**-E)`` for the sum ``T`` of limbs ``(hi, lo)`` at scale
    exponent ``e``; ``T 2**-E`` is exact (a power of two)."""
    return shift + log64(limbs_value(hi, lo) / scale(e))


_INLINE = (weight_bits, exponent, scale, term, normalised)
_FUNCTIONS = (scaled_weight, limbs_value, floor_nonnegative, target_limbs, node_score)


# register(): callable from Numba's CPU code; register_cuda(), on the copy that
# tandem._twin.module("bn.order_sums") loads: from numba.cuda.jit code
register, register_cuda = core.registrars(_FUNCTIONS, inline=_INLINE)
