"""Where a word of a stream comes from.

Word ``w`` of lane ``s`` under key ``k`` is word ``w % 4`` of the block at
counter ``(lo32(w // 4), hi32(w // 4), lo32(s), hi32(s))``.  A 64-bit draw is
the two words at an even position ``w`` and ``w + 1``, low word first.
With the Philox key ``(lo32(seed), hi32(seed))`` this is the sequence of
cuRAND's ``curand()`` after ``curand_init(seed, s, w, &state)``.

Guaranteed across versions: this layout.
"""

from ._marks import inline
from .bijections import MASK32, SHIFT32, U64, block, philox4x32, threefry4x32
from .tandem8x32 import TANDEM, lane_block_at

TWO = U64(2)
THREE = U64(3)


@inline
def philox_block_at(k0, k1, k2, k3, lane, b):
    """The four words of Philox block ``b`` (positions ``4b .. 4b + 3``) of ``lane``."""
    return philox4x32(b & MASK32, b >> SHIFT32, lane & MASK32, lane >> SHIFT32, k0, k1)


@inline
def threefry_block_at(k0, k1, k2, k3, lane, b):
    """The four words of Threefry block ``b`` (positions ``4b .. 4b + 3``) of ``lane``."""
    return threefry4x32(b & MASK32, b >> SHIFT32, lane & MASK32, lane >> SHIFT32,
                        k0, k1, k2, k3)


def block_at(generator, k0, k1, k2, k3, lane, b):
    """The four words of block ``b`` of ``lane`` for any generator (a call)."""
    if generator == TANDEM:
        return lane_block_at(k0, k1, k2, k3, lane, b)
    return block(generator, b & MASK32, b >> SHIFT32, lane & MASK32, lane >> SHIFT32,
                 k0, k1, k2, k3)


def word_at(generator, k0, k1, k2, k3, lane, w):
    """Word ``w`` of ``lane``, as a uint64 below ``2**32``."""
    x = block_at(generator, k0, k1, k2, k3, lane, w >> TWO)
    j = w & THREE
    if j == 0:
        return x[0]
    if j == 1:
        return x[1]
    if j == 2:
        return x[2]
    return x[3]


def pair_at(generator, k0, k1, k2, k3, lane, w):
    """The words ``(w, w + 1)`` for an even ``w``: a 64-bit draw as (low, high)."""
    x = block_at(generator, k0, k1, k2, k3, lane, w >> TWO)
    if w & TWO:
        return x[2], x[3]
    return x[0], x[1]


@inline
def join64(lo, hi):
    """The 64-bit draw of the word pair (low, high)."""
    return lo | (hi << SHIFT32)
