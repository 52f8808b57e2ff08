"""Weighted choice: the lookup of an alias table.

A table of ``n`` columns is a uint64 array of shape ``(n, 2)``: row ``c``
holds column ``c``'s threshold ``T`` in ``[0, 2**32]`` and its alias (side
by side, so a draw reads one cache line).  A 64-bit
draw ``d`` picks column ``c = floor(d * n / 2**64)``; the low 64 bits of
``d * n`` are then uniform within the column, and column ``c`` keeps its own
index when their top 32 bits are below ``T[c]``, else gives its alias.

Guaranteed across versions: this lookup.
"""

from ._marks import inline
from .addressing import join64
from .bijections import SHIFT32
from .uniform import mulhilo64


@inline
def alias_index(lo, hi, n, table):
    """The index that the draw ``(lo, hi)`` picks from the ``n``-column ``table``."""
    column, within = mulhilo64(join64(lo, hi), n)
    if (within >> SHIFT32) < table[column, 0]:
        return column
    return table[column, 1]
