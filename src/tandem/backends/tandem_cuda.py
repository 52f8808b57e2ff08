"""Tandem8x32 fills on a CUDA GPU: one thread a chunk.

Thread ``t`` of a fill runs chunk ``c = 8 g + lane`` (``g`` the chunk group,
``lane = t % 8``): one F, then one step a block; block ``j`` of the chunk is
in row ``g K + j``: the eight threads of a group write one row's 128
contiguous bytes a step, as 16-byte stores (a thread whose block straddles
``out``'s 16-byte lines computes its neighbour's block too, and stores the
line they share).  A fill's elements map from its draws by the same functions as
on the CPU (:mod:`tandem.core.tandem_draws`), misses and rejections included,
so every bit agrees.

Under ``NUMBA_ENABLE_CUDASIM=1`` the kernels run in Numba's CUDA simulator on
NumPy arrays, which is how CI tests them.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import cuda

from .. import _twin
from .cuda import _address, _jitable, _kernel, _stream_of, _threads, store_group
from .cuda import _on_device as _cached_on_device
from .maps import named

U64 = np.uint64
#: Parameter words a law takes at most (``below``: a purpose key and two words).
PARAMS = 6
_t8 = _twin.module("core.tandem8x32")
_draws = _twin.module("core.tandem_draws")


def _words_of_draw(d, params, table, g, log2_k):
    return d


def _uniform24_of_draw(d, params, table, g, log2_k):
    return _draws.uniform24(d)


def _uniform53_of_draw(d, params, table, g, log2_k):
    return _draws.uniform53(d)


def _exponential32_of_draw(d, params, table, g, log2_k):
    return _draws.exponential32(d)


def _exponential64_of_draw(d, params, table, g, log2_k):
    return _draws.exponential64(d)


for _fn in (_words_of_draw, _uniform24_of_draw, _uniform53_of_draw, _exponential32_of_draw,
            _exponential64_of_draw):
    _jitable(_fn)


def _of_words(element):
    """A block's four values: ``element`` of each 32-bit word."""
    def values(o0, o1, o2, o3, params, table, w, log2_k):
        return (element(o0, params, table, w, log2_k),
                element(o1, params, table, w + U64(1), log2_k),
                element(o2, params, table, w + U64(2), log2_k),
                element(o3, params, table, w + U64(3), log2_k))

    return _jitable(named(f"of_words_{element.__name__}", values))


def _of_draws(element):
    """A block's two values: ``element`` of each 64-bit draw."""
    def values(o0, o1, o2, o3, params, table, w, log2_k):
        g = w >> U64(1)
        return (element(o0 | (o1 << U64(32)), params, table, g, log2_k),
                element(o2 | (o3 << U64(32)), params, table, g + U64(1), log2_k))

    return _jitable(named(f"of_draws_{element.__name__}", values))


def _of_pairs(o0, o1, o2, o3, params, table, w, log2_k):
    """A block's four float32 normals: the Box-Muller pairs of its words."""
    z0, z1 = _draws.box_muller32(o0, o1)
    z2, z3 = _draws.box_muller32(o2, o3)
    return z0, z1, z2, z3


_jitable(_of_pairs)

#: law -> (32-bit words an element, a block's values).
LAWS = {
    "words": (1, _of_words(_words_of_draw)),
    "words64": (2, _of_draws(_words_of_draw)),
    "uniform32": (1, _of_words(_uniform24_of_draw)),
    "uniform64": (2, _of_draws(_uniform53_of_draw)),
    "exponential32": (1, _of_words(_exponential32_of_draw)),
    "exponential64": (2, _of_draws(_exponential64_of_draw)),
    "normal64": (2, _of_draws(_draws.normal64_of_draw)),
    "below32": (1, _of_words(_draws.below32_of_draw)),
    "below64": (2, _of_draws(_draws.below64_of_draw)),
    "choice": (2, _of_draws(_draws.choice_of_draw)),
    "normal32": (1, _of_pairs),  # from an even word
}


def _chunk(k0, k1, k2, k3, log2_k, w0, t):
    """``(group, lane, state)`` of thread ``t`` of a fill from word ``w0``."""
    group = (w0 >> (U64(5) + log2_k)) + U64(t >> 3)
    lane = U64(t & 7)
    return group, lane, _t8.chunk_start(k0, k1, k2, k3, (group << U64(3)) | lane)


_jitable(_chunk)


@functools.lru_cache(maxsize=None)
def _fill_kernel(law):
    """The kernel of ``law``: element ``i`` from the words from ``w0 + per i``;
    ``words`` is the number the fill consumes.

    A thread whose chunk lies whole inside the fill steps and stores with no
    test and no division: with a bounds test and a 64-bit division a step, the
    fills wrote at 43–49 % of memset, without them at 94 % (docs/performance.md).
    Its stores are 16 bytes where a block's values line up with ``out``'s
    16-byte lines (``line`` 0).  Where they start ``line`` values before a
    line, the thread also steps its right neighbour's chunk (the next lane of
    the row; for lane 7, lane 0 a row on) and stores the line that its last
    values and the neighbour's first ones fill: a store of 4 bytes each had
    run at 0.26x (docs/performance.md).  The chunks at the fill's ends take
    the general path.
    """
    per, values_of = LAWS[law]
    slots = 4 // per

    def fits(first, k, w0, end):
        """Whether the chunk from word ``first`` lies whole inside the fill, with
        the words of its right neighbour's block in a row too (its shifted line)."""
        return first >= w0 and first + (U64(k - 1) << U64(5)) + U64(7) < end

    fits = _jitable(named(f"fits_{law}", fits))

    if slots == 2:
        def line_of(values, neighbour, line):
            """The values of a line: ``values`` from ``line`` on, then the
            neighbour's first ones."""
            return values[1], neighbour[0]
    else:
        def line_of(values, neighbour, line):
            if line == 1:
                return values[1], values[2], values[3], neighbour[0]
            if line == 2:
                return values[2], values[3], neighbour[0], neighbour[1]
            return values[3], neighbour[0], neighbour[1], neighbour[2]

    line_of = _jitable(named(f"line_of_{law}", line_of))

    @_kernel()
    def fill(out, k0, k1, k2, k3, log2_k, w0, words, params, table, line):
        n = out.size
        end = w0 + words
        group, lane, s = _chunk(k0, k1, k2, k3, log2_k, w0, cuda.grid(1))
        start = group << (U64(5) + log2_k)
        if start >= end:
            return
        first = start | (lane << U64(2))  # the chunk's first word
        o0, o1, o2, o3, h0, h1, h2, h3 = s
        k = 1 << log2_k
        last = first + (U64(k - 1) << U64(5)) + U64(3)
        if first >= w0 and last < end and (first - w0) % U64(per) == 0 and line <= 0:
            e = (np.int64(first) - np.int64(w0)) // per
            for j in range(k):
                o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
                values = values_of(o0, o1, o2, o3, params, table, first + U64(j << 5), log2_k)
                if line == 0:
                    store_group(out, e, values)
                else:  # out off its element size's line: the same values, a store each
                    for q in range(slots):
                        out[e + q] = values[q]
                e += 32 // per
            return
        if line > 0 and fits(first, k, w0, end) and (first - w0) % U64(per) == 0:
            # The left neighbour stores this thread's first `line` values, if it
            # takes this path too; lane 0 of a chunk's first row has none.
            left = first - U64(4) if lane else first + U64(28)
            stored_left = left >= w0 and fits(left, k, w0, end)
            right = (lane + U64(1)) & U64(7)
            n0, n1, n2, n3, g0, g1, g2, g3 = _t8.chunk_start(k0, k1, k2, k3,
                                                             (group << U64(3)) | right)
            nfirst = start | (right << U64(2))
            if lane == 7:  # its neighbour's block is lane 0's a row on
                n0, n1, n2, n3, g0, g1, g2, g3 = _t8.step(n0, n1, n2, n3, g0, g1, g2, g3)
                nfirst += U64(32)
            e = (np.int64(first) - np.int64(w0)) // per
            for j in range(k):
                o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
                values = values_of(o0, o1, o2, o3, params, table, first + U64(j << 5), log2_k)
                if not stored_left or (lane == 0 and j == 0):
                    for q in range(line):
                        out[e + q] = values[q]
                if lane == 7 and j == k - 1:  # its neighbour is past the chunk's rows
                    for q in range(line, slots):
                        out[e + q] = values[q]
                else:
                    n0, n1, n2, n3, g0, g1, g2, g3 = _t8.step(n0, n1, n2, n3, g0, g1, g2, g3)
                    neighbour = values_of(n0, n1, n2, n3, params, table,
                                          nfirst + U64(j << 5), log2_k)
                    store_group(out, e + line, line_of(values, neighbour, line))
                e += 32 // per
            return
        for j in range(k):
            o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
            w = first + U64(j << 5)
            if w + U64(4) <= w0 or w >= end:
                continue
            e = (np.int64(w) - np.int64(w0)) // per
            values = values_of(o0, o1, o2, o3, params, table, w, log2_k)
            if line == 0 and e >= 0 and e + slots <= n:
                store_group(out, e, values)
                continue
            for q in range(slots):
                if 0 <= e + q < n:
                    out[e + q] = values[q]

    return fill


@functools.lru_cache(maxsize=None)
def _pairs_kernel():
    """Box-Muller pairs of a words array (a fill from an odd word)."""

    @_kernel()
    def pairs(words, out):
        j = cuda.grid(1)
        if 2 * j < out.size:
            z0, z1 = _draws.box_muller32(U64(words[2 * j]), U64(words[2 * j + 1]))
            out[2 * j] = z0
            if 2 * j + 1 < out.size:
                out[2 * j + 1] = z1

    return pairs


def _grid(w0, words, log2_k, threads):
    """``(blocks, threads)`` for the chunk groups that words ``w0 .. w0 + words`` touch."""
    shift = 5 + log2_k
    groups = ((w0 + words - 1) >> shift) - (w0 >> shift) + 1
    threads = min(_threads(threads), (8 * groups + 31) // 32 * 32)  # no idle warps
    return (8 * groups + threads - 1) // threads, threads


def _line(out, w0, per):
    """Values of a block before the next line of ``out`` that a block's values
    fill (16 bytes, or 8 for 32-bit values of 64-bit draws): 0 where the
    blocks line up; -1 where ``out`` is off its element size."""
    itemsize = out.dtype.itemsize
    address = _address(out)
    if address % itemsize or (w0 * itemsize) % per:
        return -1
    return (w0 * itemsize // per - address) % (itemsize * (4 // per)) // itemsize


def fill(law, key, log2_k, w0, out, params=None, table=None, threads=None):
    """Fill ``out`` (a flat CUDA array, or under the simulator a NumPy one) with
    ``law``'s elements from word ``w0`` of the stream of ``key``.

    Parameters
    ----------
    law : str
        A key of :data:`LAWS`.
    key : tuple of int
        The four key words.
    log2_k : int
        ``log2(K)``.
    w0 : int
        The word of element 0's draw.
    out : array
        The output, of the law's dtype.
    params, table : numpy.ndarray of uint64, optional
        The law's parameters (at most :data:`PARAMS`, passed by value) and
        table (see :mod:`tandem.core.tandem_draws`).
    threads : int, optional
        Threads per CUDA block; never changes a bit.
    """
    n = out.size
    if n == 0:
        return out
    args = (*(U64(k) for k in key), U64(log2_k), U64(w0))
    if law == "normal32" and w0 % 2:  # the pairs straddle blocks: words first
        words = cuda.device_array(n + (n & 1), np.uint32, stream=_stream_of(out)) \
            if not isinstance(out, np.ndarray) else np.empty(n + (n & 1), np.uint32)
        fill("words", key, log2_k, w0, words, threads=threads)
        per_block = _threads(threads)
        _pairs_kernel()[((n + 1) // 2 + per_block - 1) // per_block, per_block,
                        _stream_of(out)](words, out)
        return out
    per, _ = LAWS[law]
    words = n + (n & 1) if law == "normal32" else per * n  # a pair's last sine is dropped
    blocks, per_block = _grid(w0, words, log2_k, threads)
    words_of = [] if params is None else [U64(p) for p in params]
    params = tuple(words_of + [U64(0)] * (PARAMS - len(words_of)))
    table = _table_on_device(table, out)
    _fill_kernel(law)[blocks, per_block, _stream_of(out)](out, *args, U64(words), params, table,
                                                          np.int64(_line(out, w0, per)))
    return out


def _table_on_device(table, like):
    """``table`` (None: none) where a fill into ``like`` reads it: a device copy
    made once per array (a copy a call, on the stream before the fill,
    waited for the fill before and halved the fills' speed)."""
    if isinstance(like, np.ndarray):  # the simulator copies its arguments back
        return np.zeros(1, np.uint64) if table is None else np.array(table)
    return _cached_on_device(table)
