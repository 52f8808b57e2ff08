"""Maps from draws to uniform reals, bounded integers and Bernoulli bools.

Every map is exact integer or exactly rounded arithmetic, so it gives the
same bits on every target.

Guaranteed across versions: each map's output for each input.
"""

import numpy as np

from ._marks import cuda_lowered, inline

from .addressing import pair_at, word_at
from .bijections import MASK32, SHIFT32, U64

_SHIFT8 = U64(8)
_SHIFT11 = U64(11)
_TWO31 = U64(2**31)
_F32_ULP = np.float32(2.0**-24)
_F64_ULP = 2.0**-53


def word_float(w):
    """The word ``w`` (below ``2**32``) as an exact f64.

    Goes through int32 because x86 converts int32 vectors to f64 and, before
    AVX-512, has no vector conversion from int64.
    """
    return np.float64(np.int32(w - _TWO31)) + 2.0**31


def top53_float(lo, hi):
    """The top 53 bits of the 64-bit draw ``(lo, hi)`` as an exact f64 integer."""
    # hi * 2**21 is exact, so a fused multiply-add on CUDA rounds the same.
    return word_float(hi) * 2.0**21 + np.float64(np.int32(lo >> _SHIFT11))


@inline
def uniform32(w, offset):
    """f32 from the top 24 bits of word ``w``.

    ``offset`` 0 gives ``[0, 1)``, offset 1 gives ``(0, 1]``.
    """
    return np.float32(np.int32((w >> _SHIFT8) + offset)) * _F32_ULP


@inline
def uniform64(lo, hi, offset):
    """f64 from the top 53 bits of the 64-bit draw ``(lo, hi)``.

    ``offset`` 0 gives ``[0, 1)``, offset 1 gives ``(0, 1]``.
    """
    return (top53_float(lo, hi) + np.float64(np.int32(offset))) * _F64_ULP


@inline
@cuda_lowered
def mulhilo64(a, b):
    """The 128-bit product of two uint64 as (high, low) words.

    On a GPU: ``mul.hi.u64`` and ``mul.lo.u64``.
    """
    a0 = a & MASK32
    a1 = a >> SHIFT32
    b0 = b & MASK32
    b1 = b >> SHIFT32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> SHIFT32) + (p01 & MASK32) + (p10 & MASK32)
    low = (p00 & MASK32) | ((mid & MASK32) << SHIFT32)
    high = p11 + (p01 >> SHIFT32) + (p10 >> SHIFT32) + (mid >> SHIFT32)
    return high, low


@inline
def lemire32(w, span, threshold):
    """Lemire's bounded integer from word ``w``: (offset in [0, span), accepted).

    ``span`` is in ``[1, 2**32]`` and ``threshold`` is ``2**32 mod span``.
    """
    m = w * span
    return m >> SHIFT32, (m & MASK32) >= threshold


@inline
def lemire64(lo, hi, span, threshold):
    """Lemire's bounded integer from a 64-bit draw: (offset, accepted).

    ``span`` is in ``[1, 2**64)``, or 0 for ``2**64``; ``threshold`` is
    ``2**64 mod span``.
    """
    d = (hi << SHIFT32) | lo
    if span == 0:
        return d, True
    high, low = mulhilo64(d, span)
    return high, low >= threshold


@inline
def bernoulli64(lo, hi, threshold, certain):
    """True with probability ``threshold / 2**64``, or always if ``certain`` is 1."""
    return (certain != U64(0)) | (((hi << SHIFT32) | lo) < threshold)


def integers32_retry(generator, k0, k1, k2, k3, g, span, threshold):
    """Offset for a rejected 32-bit draw: words 0, 1, ... of lane ``g`` of the
    continuation key until one is accepted."""
    w = U64(0)
    while True:
        offset, accepted = lemire32(word_at(generator, k0, k1, k2, k3, g, w), span, threshold)
        if accepted:
            return offset
        w += U64(1)


def integers64_retry(generator, k0, k1, k2, k3, g, span, threshold):
    """Offset for a rejected 64-bit draw: draws 0, 1, ... of lane ``g`` of the
    continuation key until one is accepted."""
    w = U64(0)
    while True:
        lo, hi = pair_at(generator, k0, k1, k2, k3, g, w)
        offset, accepted = lemire64(lo, hi, span, threshold)
        if accepted:
            return offset
        w += U64(2)


def uniform64_at(generator, k0, k1, k2, k3, lane, i):
    """Element ``i`` of ``random()`` (f64, ``[0, 1)``) from position 0 of (key, lane)."""
    lo, hi = pair_at(generator, k0, k1, k2, k3, lane, U64(2) * i)
    return uniform64(lo, hi, U64(0))
