"""Tandem8x32: step T, seeding function F, chunks, stream order and child keys.

The generator of the tandem specification (``Tandem8x32``, ``tandem-rng/spec``
at commit 41bc1b52, ``SPEC.md`` sections 1 to 6; its text is in
``../shared/tandem-spec/``).  A state is ``(o, h)``, four exposed and four
hidden 32-bit words.  Words travel as ``numpy.uint64`` values below ``2**32``,
as in :mod:`tandem.core.bijections`, so one source runs as plain Python, under
``numba.njit`` and under ``numba.cuda.jit``.

Chunk ``c`` of a key starts at ``F(key, c, DOMAIN_STREAM, AUX_STREAM)`` and
emits the exposed half after each step: ``B(c, j)`` after ``j + 1`` steps.
Row ``r`` of the stream (1024 bits) holds ``B(8g + lane, j)`` for the eight
lanes, with ``g = r // K`` and ``j = r % K``.  Block ``b`` (128 bits, bit
position ``128 b``) is lane ``b % 8`` of row ``b // 8``.

Known answers: ``SPEC.md`` section 8 (``tests/test_tandem8x32.py``).

Guaranteed across versions: every function's output for every input.
"""

from ._marks import inline
from .bijections import MASK32, SHIFT32, U64

# SPEC.md section 2.
#: The rotations of the clock, of ``h1``, ``h2``, ``h3`` and the new ``h0``.
CLOCK_ROT = (7, 13, 22, 3)
CLOCK_WEYL = U64(0x9E3779B9)
LO_ROTATION = U64(16)
#: The round constants RC[1..8] of F.
ROUND_CONSTANTS = (0xD17CC1B7, 0xA7220A94, 0xFE13ABE8, 0xFA9A6EE0,
                   0xEDB14ACC, 0x9E21C820, 0xFF28B1D5, 0xEF5DE2B0)
DOMAIN_STREAM = U64(0x9E3779B9)
DOMAIN_SPLIT = U64(0xBB67AE85)
DOMAIN_FORK = U64(0xD2511F53)
DOMAIN_FOLD = U64(0xCD9E8D57)
DOMAIN_SEED = U64(0xA54FF53A)
AUX_STREAM = U64(0x94D049BB)
#: The largest chunk length; ``K`` is a power of two in ``[1, MAX_K]``.
MAX_K = 65536
#: ``Stream.generator`` of Tandem8x32, and its case of
#: :func:`tandem.core.addressing.block_at` (Philox is 0, Threefry 1).
TANDEM = 2
#: The lane of :func:`lane_block_at` that reads the key's own stream; every
#: other lane ``g`` reads ``split(g)`` (a draw's word index never reaches it).
OWN_LANE = U64(0xFFFFFFFFFFFFFFFF)
#: Bit of the first kernel key word where ``log2(K)`` travels (see :func:`lane_block_at`).
K_SHIFT = U64(32)

_ZERO = U64(0)
_ONE = U64(1)
_THREE = U64(3)
_SEVEN = U64(7)


def _rotl(x, r):
    return ((x << r) | (x >> (SHIFT32 - r))) & MASK32


@inline
def step(o0, o1, o2, o3, h0, h1, h2, h3):
    """Step T: ``(o', h')`` of ``(o, h)`` (SPEC.md section 3).

    ``o' = mix(o, h)``; ``h'`` is ``clock(h)`` with ``o'0`` fed back into its
    first word after the Weyl increment.
    """
    p0 = o0 * (h0 | _ONE)
    p1 = o2 * (h1 | _ONE)
    lo0 = p0 & MASK32
    lo1 = p1 & MASK32
    n0 = o1 ^ (p1 >> SHIFT32) ^ lo1
    n1 = _rotl(lo1, LO_ROTATION) ^ h2
    n2 = o3 ^ (p0 >> SHIFT32) ^ lo0
    n3 = _rotl(lo0, LO_ROTATION) ^ h3
    c0 = h0 ^ _rotl(h1, U64(CLOCK_ROT[0]))
    c1 = h1 ^ _rotl(h2, U64(CLOCK_ROT[1]))
    c2 = h2 ^ _rotl(h3, U64(CLOCK_ROT[2]))
    c3 = h3 ^ _rotl(c0, U64(CLOCK_ROT[3]))
    return n0, n1, n2, n3, ((c0 + CLOCK_WEYL) & MASK32) ^ n0, c1, c2, c3


def _round(o0, o1, o2, o3, h0, h1, h2, h3, rc):
    """One round of F: T, the round constant into ``o0``, then the halves swapped."""
    o0, o1, o2, o3, h0, h1, h2, h3 = step(o0, o1, o2, o3, h0, h1, h2, h3)
    return h0, h1, h2, h3, o0 ^ U64(rc), o1, o2, o3


def mix_state(o0, o1, o2, o3, h0, h1, h2, h3):
    """The seeding function F on a state: eight rounds (SPEC.md section 3)."""
    s = _round(o0, o1, o2, o3, h0, h1, h2, h3, ROUND_CONSTANTS[0])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[1])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[2])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[3])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[4])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[5])
    s = _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[6])
    return _round(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], ROUND_CONSTANTS[7])


def seeded(k0, k1, k2, k3, counter, domain, aux):
    """``F(key, counter, domain, aux)``: F of ``o = (lo32(counter), hi32(counter),
    domain, aux)``, ``h = key``."""
    return mix_state(counter & MASK32, counter >> SHIFT32, domain, aux, k0, k1, k2, k3)


def chunk_start(k0, k1, k2, k3, c):
    """The state that chunk ``c`` starts from; its block ``j`` is the exposed
    half after ``j + 1`` more steps."""
    return seeded(k0, k1, k2, k3, c, DOMAIN_STREAM, AUX_STREAM)


def block_at(k0, k1, k2, k3, log2_k, b):
    """Block ``b`` of the stream (bits ``128 b .. 128 b + 127``), as four words.

    Costs one F and ``j + 1 <= K`` steps at any ``b`` (SPEC.md section 4).
    """
    r = b >> _THREE
    j = r & ((_ONE << log2_k) - _ONE)
    c = ((r >> log2_k) << _THREE) | (b & _SEVEN)
    o0, o1, o2, o3, h0, h1, h2, h3 = chunk_start(k0, k1, k2, k3, c)
    for _ in range(j + _ONE):
        o0, o1, o2, o3, h0, h1, h2, h3 = step(o0, o1, o2, o3, h0, h1, h2, h3)
    return o0, o1, o2, o3


def word_at(k0, k1, k2, k3, log2_k, w):
    """Word ``w`` of the stream (bits ``32 w .. 32 w + 31``)."""
    x0, x1, x2, x3 = block_at(k0, k1, k2, k3, log2_k, w >> U64(2))
    t = w & _THREE
    if t == 0:
        return x0
    if t == 1:
        return x1
    if t == 2:
        return x2
    return x3


def lane_key(k0, k1, k2, k3, lane):
    """The key and ``log2(K)`` of ``lane`` of the kernel key words ``k``:
    ``(k0, k1, k2, k3, log2_k)``.

    The laws of tandem that the specification does not state read Tandem
    streams through the block interface of Philox and Threefry
    (:mod:`tandem.core.generators`).  There a key travels as four *kernel key
    words*: the four key words, with ``log2(K)`` above bit 32 of the first.
    Lane :data:`OWN_LANE` is the key's own stream; lane ``g`` is ``split(g)``
    of the key, at position 0 (where a rejected draw continues).
    """
    log2_k = k0 >> K_SHIFT
    k0 = k0 & MASK32
    if lane != OWN_LANE:
        k0, k1, k2, k3 = split_key(k0, k1, k2, k3, lane)
    return k0, k1, k2, k3, log2_k


def lane_block_at(k0, k1, k2, k3, lane, b):
    """Block ``b`` of ``lane`` of the kernel key words ``k`` (:func:`lane_key`): the
    generator-axis face of Tandem8x32."""
    k0, k1, k2, k3, log2_k = lane_key(k0, k1, k2, k3, lane)
    return block_at(k0, k1, k2, k3, log2_k, b)


def _half(s, which):
    if which == 0:
        return s[0], s[1], s[2], s[3]
    return s[4], s[5], s[6], s[7]


def seed_key(z0, z1, z2, z3):
    """The key of the integer seed whose little-endian words are ``z``
    (SPEC.md section 6): the exposed half of ``F((0, 0, DOMAIN_SEED, 0), z)``."""
    return _half(mix_state(_ZERO, _ZERO, DOMAIN_SEED, _ZERO, z0, z1, z2, z3), 0)


def split_key(k0, k1, k2, k3, i):
    """The key of ``split(i)``: half ``i & 1`` of ``F(key, i >> 1, DOMAIN_SPLIT, 0)``."""
    return _half(seeded(k0, k1, k2, k3, i >> _ONE, DOMAIN_SPLIT, _ZERO), i & _ONE)


def fork_key(k0, k1, k2, k3, b, i):
    """The key of child ``i`` of a fork at block ``b``: half ``i & 1`` of
    ``F(key, b, DOMAIN_FORK, lo32(i >> 1))``."""
    return _half(seeded(k0, k1, k2, k3, b, DOMAIN_FORK, (i >> _ONE) & MASK32), i & _ONE)


def purpose_key(k0, k1, k2, k3, u):
    """The key of ``purpose(u)``: the exposed half of ``F(key, u, DOMAIN_FOLD, 0)``."""
    return _half(seeded(k0, k1, k2, k3, u, DOMAIN_FOLD, _ZERO), 0)
