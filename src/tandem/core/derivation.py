"""Key derivation: ``sub`` (purposes) and ``split`` (lanes), in reserved domains.

A data block of a stream has the counter ``(lo32(b), hi32(b), lo32(lane),
hi32(lane))`` with block index ``b = position // 4 < 2**62``, so its second
counter word is always below ``2**30``.  Derivations put a domain tag of at
least ``2**31`` in that word, so a derived key is never computed from a
counter that names a data block of the key it derives from.

Guaranteed across versions: the domain tags and every derived key.
"""

from .bijections import MASK32, PHILOX, SHIFT32, U64, block

ZERO = U64(0)

# Second counter word of a derivation; data blocks keep it below 2**30.
DOMAIN_SPLIT = U64(0xC0000001)  # split(g): one key per (key, lane)
DOMAIN_LANE = U64(0xC0000002)  # sub(p), step 1: fold the lane into the key
DOMAIN_PURPOSE_INT = U64(0xC0000003)  # sub(p), step 2, p an integer
DOMAIN_PURPOSE_STR = U64(0xC0000004)  # sub(p), step 2, p = hash of a string


def derive_key(generator, k0, k1, k2, k3, x, domain):
    """The key that ``generator`` derives from (key, 64-bit ``x``) in ``domain``.

    Philox keys keep the first two output words (the last two are zero).
    """
    y0, y1, y2, y3 = block(generator, x & MASK32, domain, x >> SHIFT32, ZERO,
                           k0, k1, k2, k3)
    if generator == PHILOX:
        return y0, y1, ZERO, ZERO
    return y0, y1, y2, y3


def split_key(generator, k0, k1, k2, k3, lane):
    """Key of every ``split(g)`` stream of the stream (key, lane)."""
    return derive_key(generator, k0, k1, k2, k3, lane, DOMAIN_SPLIT)


def sub_key(generator, k0, k1, k2, k3, lane, purpose, purpose_domain):
    """Key of ``sub(purpose)`` of the stream (key, lane).

    ``purpose`` is the 64-bit purpose word and ``purpose_domain`` is
    ``DOMAIN_PURPOSE_INT`` or ``DOMAIN_PURPOSE_STR``.
    """
    l0, l1, l2, l3 = derive_key(generator, k0, k1, k2, k3, lane, DOMAIN_LANE)
    return derive_key(generator, l0, l1, l2, l3, purpose, purpose_domain)


def retry_key(generator, k0, k1, k2, k3, lane, purpose, purpose_domain):
    """Key of the continuation streams of a fill on the stream (key, lane) whose
    rejected draws continue on ``purpose``: the split key of its ``sub(purpose)``.

    A rejected element whose draw starts at word ``w`` continues on lane
    ``w`` of this key (``docs/spec.md``).  Derive it once per lane: it costs
    three bijections.
    """
    s0, s1, s2, s3 = sub_key(generator, k0, k1, k2, k3, lane, purpose, purpose_domain)
    return split_key(generator, s0, s1, s2, s3, ZERO)
