"""How the compiled backends turn a kind's value map into per-element functions.

A fill's element ``i`` takes the draw at word ``start + width * i``; a
kind's value map (:mod:`tandem.kinds`) turns the draw's words into the
element.  A four-word kind (a block an element) maps the block's two 64-bit
draws.  The compiled backends map a whole block of four words at once:
for one-word kinds, by :func:`pairwise` maps over the aligned word pairs.
These factories are plain Python; each compiled backend registers what
they make with Numba for its target.
"""

import numpy as np

from ..core.addressing import join64
from ..core.inversion import count64

U64 = np.uint64
_ZERO = U64(0)


def named(name, fn):
    """``fn`` renamed ``name``.

    Numba names a compiled ``register_jitable`` function after its qualified
    name and argument types; two closures from one factory would share that
    symbol and the linker would call the wrong one.
    """
    fn.__name__ = fn.__qualname__ = name
    return fn


def pairwise(value_map):
    """The pair map that applies the one-word ``value_map`` to each word."""
    def pair(even, odd, params, table):
        v0, a0 = value_map(even, _ZERO, params, table)
        v1, a1 = value_map(odd, _ZERO, params, table)
        return v0, v1, a0, a1

    return named(f"pair_{value_map.__name__}", pair)


def no_retry(value_map):
    """The retry of a map that never rejects (never called; it fixes the type)."""
    def retry(generator, r0, r1, r2, r3, g, lo, hi, params, table):
        return value_map(_ZERO, _ZERO, params, table)[0]

    return named(f"no_retry_{value_map.__name__}", retry)


def element_draw(width, value_map, block_at):
    """The function ``(generator, k0..k3, lane, w, params, table) -> (value, accepted, lo, hi)``
    that maps the draw at word ``w`` alone; ``(lo, hi)`` is what a retry needs
    (for a four-word kind, the block's two 64-bit draws).

    ``block_at`` is ``(generator, k0..k3, lane, b) -> words``:
    :func:`tandem.core.addressing.block_at` (any generator), or one generator's
    block function taking the argument it ignores (the CUDA backend's kernels,
    built per generator).
    """
    def draw(generator, k0, k1, k2, k3, lane, w, params, table):
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, lane, w >> U64(2))
        if width == 4:
            lo, hi = join64(x0, x1), join64(x2, x3)
            value, accepted = value_map(lo, hi, params, table)
            return value, accepted, lo, hi
        j = w & U64(3)
        if j < 2:
            lo, hi = x0, x1
        else:
            lo, hi = x2, x3
        if width == 1:
            v0, v1, a0, a1 = value_map(lo, hi, params, table)
            if j & U64(1):
                return v1, a1, hi, _ZERO
            return v0, a0, lo, _ZERO
        value, accepted = value_map(lo, hi, params, table)
        return value, accepted, lo, hi

    return named(f"draw_{value_map.__name__}_{block_at.__name__}", draw)


def element(draw, retry):
    """The function ``(generator, k0..k3, lane, w, params, table, r0..r3) -> value``
    that computes the element whose draw starts at word ``w``, alone, from an
    :func:`element_draw` function and the kind's retry (None for a kind that
    never rejects a draw)."""
    def element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3):
        value, accepted, lo, hi = draw(generator, k0, k1, k2, k3, lane, w, params, table)
        if retry is not None and not accepted:
            value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
        return value

    return named(f"element_{draw.__name__}", element)


def multinomial_row(element):
    """The function ``(out, i, trials, p, generator, k0..k3, lane, start, table,
    r0..r3)`` that writes row ``i`` of multinomial counts into ``out`` (int64,
    ``k`` columns): count ``j < k - 1`` is :func:`tandem.core.inversion.count64`
    of the binomial element at block ``(k - 1) i + j`` (``element``: kind
    ``binomial64``'s) with the trials left and ``p[j]``; the last count is the
    trials left."""
    def row(out, i, trials, p, generator, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3):
        k = out.shape[1]
        left = trials
        for j in range(k - 1):
            w = start + U64(4) * (U64(k - 1) * U64(i) + U64(j))
            words = (np.float64(left).view(np.uint64), np.float64(p[j]).view(np.uint64), _ZERO)
            count = count64(element(generator, k0, k1, k2, k3, lane, w, words, table,
                                    r0, r1, r2, r3))
            out[i, j] = count
            left -= count
        out[i, k - 1] = left

    return named(f"multinomial_row_{element.__name__}", row)


def dirichlet_row(element):
    """The function ``(out, i, each, generator, k0..k3, lane, start, table, r0..r3)``
    that writes row ``i`` of Dirichlet values into ``out`` (f64, ``k`` columns):
    the gamma elements at blocks ``k i + j`` (``element``: kind ``gamma64``'s)
    with the parameter words ``each[:, j]`` of column ``j``, each divided by their
    sum in the order of ``j``."""
    def row(out, i, each, generator, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3):
        k = out.shape[1]
        total = 0.0
        for j in range(k):
            w = start + U64(4) * (U64(k) * U64(i) + U64(j))
            value = element(generator, k0, k1, k2, k3, lane, w,
                            (each[0, j], each[1, j], each[2, j]), table, r0, r1, r2, r3)
            out[i, j] = value
            total += value
        for j in range(k):
            out[i, j] = out[i, j] / total

    return named(f"dirichlet_row_{element.__name__}", row)


def block_draw(kind, value_map=None):
    """The function ``(x0, x1, x2, x3, j, params, table) -> (value, accepted, lo, hi)``
    that maps the element whose draw starts at word ``j`` of a block: a one-word
    kind maps its own word alone, as a compiled-fast kernel wants.
    ``value_map``: in place of the kind's own (of a kind without a pair map)."""
    name = f"block_draw_{kind.name}" + (f"_{value_map.__name__}" if value_map else "")
    pair_map, value_map = kind.pair_map, value_map or kind.value_map

    if kind.width == 4:
        def draw(x0, x1, x2, x3, j, params, table):
            lo, hi = join64(x0, x1), join64(x2, x3)
            value, accepted = value_map(lo, hi, params, table)
            return value, accepted, lo, hi
    elif pair_map is not None:
        def draw(x0, x1, x2, x3, j, params, table):
            lo, hi = (x2, x3) if j & U64(2) else (x0, x1)
            v0, v1, a0, a1 = pair_map(lo, hi, params, table)
            if j & U64(1):
                return v1, a1, hi, _ZERO
            return v0, a0, lo, _ZERO
    elif kind.width == 1:
        def draw(x0, x1, x2, x3, j, params, table):
            word = x3 if j == U64(3) else x2 if j == U64(2) else x1 if j == U64(1) else x0
            value, accepted = value_map(word, _ZERO, params, table)
            return value, accepted, word, _ZERO
    else:
        def draw(x0, x1, x2, x3, j, params, table):
            lo, hi = (x2, x3) if j & U64(2) else (x0, x1)
            value, accepted = value_map(lo, hi, params, table)
            return value, accepted, lo, hi

    return named(name, draw)


def kernel_functions(kind, mark=None):
    """``(pair or value map, retry)`` of ``kind`` as the kernels call them: a
    pair map for one-word kinds, and a typed stand-in for kinds that never retry.

    ``mark``, if given, wraps the kind's value map before it is paired (the
    CPU's NaN marks of deferred misses).
    """
    if kind.pair_map is not None:
        return kind.pair_map, kind.retry
    value_map = kind.value_map if mark is None else mark(kind.value_map)
    if kind.width == 1:
        value_map = pairwise(value_map)
    return value_map, kind.retry or no_retry(kind.value_map)


def counted(value_map, retry):
    """``value_map`` and ``retry`` of a kind whose f64 values are counts
    (``Kind.counts``), made to give :func:`tandem.core.inversion.count64` of
    each: the int64 a fill stores."""
    def counted_map(lo, hi, params, table):
        value, accepted = value_map(lo, hi, params, table)
        return count64(value), accepted

    def counted_retry(generator, r0, r1, r2, r3, g, lo, hi, params, table):
        return count64(retry(generator, r0, r1, r2, r3, g, lo, hi, params, table))

    return (named(f"counted_{value_map.__name__}", counted_map),
            named(f"counted_{retry.__name__}", counted_retry))


def made_here(kind, *functions):
    """Those of ``functions`` that a factory here made, not ``kind``'s own
    (which every backend registers with Numba once, at import)."""
    own = (kind.value_map, kind.retry, kind.pair_map)
    return [fn for fn in functions if fn not in own]


def two_part(fn):
    """``fn`` of :mod:`tandem.core.two_parts` as ``(a, b, p, q) -> value``: the two
    parts' values and the law's parameters, of which ``fn`` takes as many as
    it names after the parts."""
    arity = fn.__code__.co_argcount - 2
    if arity == 0:
        def value(a, b, p, q):
            return fn(a, b)
    elif arity == 1:
        def value(a, b, p, q):
            return fn(a, b, p)
    else:
        def value(a, b, p, q):
            return fn(a, b, p, q)

    return named(f"two_part_{fn.__name__}", value)
