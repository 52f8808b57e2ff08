"""Weighted choice: the lookup of an alias table.

A table of ``n < 2**32`` columns is a uint64 array of shape ``(n,)``:
column ``c`` holds its threshold ``T`` in the high 32 bits and its alias in
the low 32 bits, so that a draw reads one word.  A 64-bit
draw ``d`` picks column ``c = floor(d * n / 2**64)``; the low 64 bits of
``d * n`` are then uniform within the column, and column ``c`` keeps its own
index when their top 32 bits are below ``T[c]``, else gives its alias.

Guaranteed across versions: this lookup.
"""

from ._marks import inline
from .addressing import join64
from .bijections import MASK32, SHIFT32
from .uniform import mulhilo64


@inline
def alias_index(lo, hi, n, table):
    """The index that the draw ``(lo, hi)`` picks from the ``n``-column ``table``."""
    column, within = mulhilo64(join64(lo, hi), n)
    entry = table[column]
    if (within >> SHIFT32) < (entry >> SHIFT32):
        return column
    return entry & MASK32
