"""The two counter-based bijections, exactly as Random123 defines them.

Each function maps a 128-bit counter ``(c0, c1, c2, c3)`` and a key to four
32-bit words.  Words travel as ``numpy.uint64`` values below ``2**32`` so that
one source runs as plain Python (host-side key derivation), under
``numba.njit`` and under ``numba.cuda.jit``: every product of two words fits
in 64 bits and every sum is masked back to 32 bits.

References: J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw,
"Parallel random numbers: as easy as 1, 2, 3", SC'11; Random123 1.14,
``include/Random123/philox.h`` and ``threefry.h``.  Known-answer vectors:
``tests/data/random123_kat_vectors.txt``.

Guaranteed across versions: the outputs of these functions for every input.
"""

import numpy as np

from ._marks import cuda_lowered, inline

U64 = np.uint64
MASK32 = U64(0xFFFFFFFF)
SHIFT32 = U64(32)

# Philox4x32 (philox.h): the two multipliers of the S-box and the two Weyl
# increments of the key schedule (golden ratio and sqrt(3) - 1, in 32 bits).
PHILOX_M4x32_0 = U64(0xD2511F53)
PHILOX_M4x32_1 = U64(0xCD9E8D57)
PHILOX_W32_0 = U64(0x9E3779B9)
PHILOX_W32_1 = U64(0xBB67AE85)
PHILOX_ROUNDS = 10

# Threefry4x32 (threefry.h): rotation constants R_32x4_<r % 8>_<0|1> and the
# key-schedule parity constant SKEIN_KS_PARITY32 from Skein 1.3.
THREEFRY_R0 = (10, 11, 13, 23, 6, 17, 25, 18)
THREEFRY_R1 = (26, 21, 27, 5, 20, 11, 10, 20)
SKEIN_KS_PARITY32 = U64(0x1BD11BDA)
# The same constants packed 5 bits each (round r % 8 at bits 5r), so that
# compiled code reads them with shifts rather than table lookups.
_R0_PACKED = U64(sum(r << (5 * i) for i, r in enumerate(THREEFRY_R0)))
_R1_PACKED = U64(sum(r << (5 * i) for i, r in enumerate(THREEFRY_R1)))
THREEFRY_ROUNDS = 20


@cuda_lowered
def mulhilo32(a, b):
    """The 64-bit product of two words as its (high, low) words.

    On a GPU: ``mul.hi.u32`` and ``mul.lo.u32`` instead of a 64-bit multiply.
    """
    p = a * b
    return p >> SHIFT32, p & MASK32


@inline
def philox4x32_rounds(c0, c1, c2, c3, k0, k1, rounds):
    """Philox4x32 with ``rounds`` rounds; returns the four output words."""
    for _ in range(rounds):
        hi0, lo0 = mulhilo32(PHILOX_M4x32_0, c0)
        hi1, lo1 = mulhilo32(PHILOX_M4x32_1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        # The key schedule: the bump after the last round is never used.
        k0 = (k0 + PHILOX_W32_0) & MASK32
        k1 = (k1 + PHILOX_W32_1) & MASK32
    return c0, c1, c2, c3


@inline
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10: the default Philox bijection."""
    return philox4x32_rounds(c0, c1, c2, c3, k0, k1, PHILOX_ROUNDS)


# The round helpers are left to LLVM to inline (they cannot fail, so it does,
# and vectorises a fill's loop over blocks): inlined at Numba's level instead,
# threefry4x32's 20 rounds took a Threefry fill 142 s to compile, not 5.
def _rotl32(x, r):
    return ((x << r) | (x >> (SHIFT32 - r))) & MASK32


def _threefry_round(x0, x1, x2, x3, ra, rb):
    """One round: mix ``(x0, x1)`` by ``ra`` and ``(x2, x3)`` by ``rb``, then
    swap ``x1`` and ``x3`` (the next round's pairs)."""
    x0 = (x0 + x1) & MASK32
    x1 = _rotl32(x1, ra) ^ x0
    x2 = (x2 + x3) & MASK32
    x3 = _rotl32(x3, rb) ^ x2
    return x0, x3, x2, x1


def _threefry_four_rounds(x0, x1, x2, x3, j):
    """Four rounds with the rotation constants ``j .. j + 3`` (0 or 4); the
    swaps cancel."""
    x0, x1, x2, x3 = _threefry_round(x0, x1, x2, x3, U64(THREEFRY_R0[j]), U64(THREEFRY_R1[j]))
    x0, x1, x2, x3 = _threefry_round(x0, x1, x2, x3, U64(THREEFRY_R0[j + 1]),
                                     U64(THREEFRY_R1[j + 1]))
    x0, x1, x2, x3 = _threefry_round(x0, x1, x2, x3, U64(THREEFRY_R0[j + 2]),
                                     U64(THREEFRY_R1[j + 2]))
    return _threefry_round(x0, x1, x2, x3, U64(THREEFRY_R0[j + 3]), U64(THREEFRY_R1[j + 3]))


def _threefry_injected(x0, x1, x2, x3, a, b, c, d, s):
    """Key injection ``s``: the schedule's words ``a .. d``, and ``s`` added to the last."""
    return (x0 + a) & MASK32, (x1 + b) & MASK32, (x2 + c) & MASK32, (x3 + d + U64(s)) & MASK32


@inline
def threefry4x32_rounds(c0, c1, c2, c3, k0, k1, k2, k3, rounds):
    """Threefry4x32 with ``rounds`` rounds; returns the four output words."""
    ks0, ks1, ks2, ks3, ks4 = k0, k1, k2, k3, SKEIN_KS_PARITY32 ^ k0 ^ k1 ^ k2 ^ k3
    x0, x1, x2, x3 = _threefry_injected(c0, c1, c2, c3, k0, k1, k2, k3, 0)
    for r in range(rounds):
        shift = U64(5 * (r % 8))
        x0, x1, x2, x3 = _threefry_round(x0, x1, x2, x3, (_R0_PACKED >> shift) & U64(31),
                                         (_R1_PACKED >> shift) & U64(31))
        if r % 4 == 3:
            # Key injection s = (r + 1) / 4 adds ks[s % 5 + i] and s; the
            # schedule rotates by one word per injection.
            ks0, ks1, ks2, ks3, ks4 = ks1, ks2, ks3, ks4, ks0
            x0, x1, x2, x3 = _threefry_injected(x0, x1, x2, x3, ks0, ks1, ks2, ks3,
                                                (r + 1) // 4)
    if rounds % 2 == 1:
        x1, x3 = x3, x1
    return x0, x1, x2, x3


@inline
def threefry4x32(c0, c1, c2, c3, k0, k1, k2, k3):
    """Threefry4x32-20, the default Threefry bijection: its rounds written out,
    as ``threefry.h`` unrolls them, so that a compiled loop over blocks
    vectorises (:func:`threefry4x32_rounds` with 20 rounds, the same words)."""
    k4 = SKEIN_KS_PARITY32 ^ k0 ^ k1 ^ k2 ^ k3
    x0, x1, x2, x3 = _threefry_injected(c0, c1, c2, c3, k0, k1, k2, k3, 0)
    x0, x1, x2, x3 = _threefry_four_rounds(x0, x1, x2, x3, 0)
    x0, x1, x2, x3 = _threefry_injected(x0, x1, x2, x3, k1, k2, k3, k4, 1)
    x0, x1, x2, x3 = _threefry_four_rounds(x0, x1, x2, x3, 4)
    x0, x1, x2, x3 = _threefry_injected(x0, x1, x2, x3, k2, k3, k4, k0, 2)
    x0, x1, x2, x3 = _threefry_four_rounds(x0, x1, x2, x3, 0)
    x0, x1, x2, x3 = _threefry_injected(x0, x1, x2, x3, k3, k4, k0, k1, 3)
    x0, x1, x2, x3 = _threefry_four_rounds(x0, x1, x2, x3, 4)
    x0, x1, x2, x3 = _threefry_injected(x0, x1, x2, x3, k4, k0, k1, k2, 4)
    x0, x1, x2, x3 = _threefry_four_rounds(x0, x1, x2, x3, 0)
    return _threefry_injected(x0, x1, x2, x3, k0, k1, k2, k3, 5)


PHILOX = 0
THREEFRY = 1


def block(generator, c0, c1, c2, c3, k0, k1, k2, k3):
    """One block of the stream's bijection: Philox (0, ignores k2, k3) or Threefry (1).

    ``generator`` is a run-time integer and this is a call, not inlined: hot
    loops call :func:`tandem.core.addressing.philox_block_at` or
    ``threefry_block_at`` instead.
    """
    if generator == PHILOX:
        return philox4x32(c0, c1, c2, c3, k0, k1)
    return threefry4x32(c0, c1, c2, c3, k0, k1, k2, k3)
