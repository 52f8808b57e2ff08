"""Tandem8x32 fills on a CUDA GPU: one thread a chunk.

Thread ``t`` of a fill runs chunk ``c = 8 g + lane`` (``g`` the chunk group,
``lane = t % 8``): one F, then one step a block; block ``j`` of the chunk is
in row ``g K + j``: the eight threads of a group write one row's 128
contiguous bytes a step, as 16-byte stores (where the rows do not line up
with ``out``'s 128-byte lines, through shared memory: see
:func:`_fill_kernel`).  A fill's elements map from its draws by the same functions as
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

#: law -> (32-bit words an element, a block's values, the type a block's
#: values are staged in by a shifted fill).
LAWS = {
    "words": (1, _of_words(_words_of_draw), np.uint64),
    "words64": (2, _of_draws(_words_of_draw), np.uint64),
    "uniform32": (1, _of_words(_uniform24_of_draw), np.float32),
    "uniform64": (2, _of_draws(_uniform53_of_draw), np.float64),
    "exponential32": (1, _of_words(_exponential32_of_draw), np.float32),
    "exponential64": (2, _of_draws(_exponential64_of_draw), np.float64),
    "normal64": (2, _of_draws(_draws.normal64_of_draw), np.float64),
    "below32": (1, _of_words(_draws.below32_of_draw), np.uint64),
    "below64": (2, _of_draws(_draws.below64_of_draw), np.uint64),
    "choice": (2, _of_draws(_draws.choice_of_draw), np.uint64),
    "normal32": (1, _of_pairs, np.float32),  # from an even word
}
#: Chunk groups a block stages at most (256 threads); larger blocks store as
#: a fill off the lines does.
GROUPS = 32


def _chunk(k0, k1, k2, k3, log2_k, w0, t):
    """``(group, lane, state)`` of thread ``t`` of a fill from word ``w0``."""
    group = (w0 >> (U64(5) + log2_k)) + U64(t >> 3)
    lane = U64(t & 7)
    return group, lane, _t8.chunk_start(k0, k1, k2, k3, (group << U64(3)) | lane)


_jitable(_chunk)


def _gather(slots, row):
    """``gather(current, following, p)``: the ``slots`` values from position
    ``p`` of a staged row of ``row`` values, running on into the row after."""
    def at(current, following, p):
        return current[p] if p < row else following[p - row]

    at = _jitable(named(f"at_{row}", at))
    if slots == 4:
        def gather(current, following, p):
            return (at(current, following, p), at(current, following, p + 1),
                    at(current, following, p + 2), at(current, following, p + 3))
    else:
        def gather(current, following, p):
            return at(current, following, p), at(current, following, p + 1)

    return _jitable(named(f"gather_{slots}_{row}", gather))


@functools.lru_cache(maxsize=None)
def _fill_kernel(law):
    """The kernel of ``law``: element ``i`` from the words from ``w0 + per i``;
    ``words`` is the number the fill consumes.

    A thread whose chunk lies whole inside the fill steps and stores with no
    test and no division: with a bounds test and a 64-bit division a step, the
    fills wrote at 43–49 % of memset, without them at 94 % (docs/performance.md).
    Where a row's values line up with ``out``'s lines (``shift`` 0: a row's
    bytes, 128 or 64), its eight threads store the row as whole 16-byte
    stores.  Where the lines start ``shift`` values into a row, a block whose
    groups all lie inside the fill stages each row in shared memory, and
    thread ``lane`` stores the ``lane``-th part of the line that starts in
    that row, a step later (the line runs into the next row, or at a group's
    last, the next group's first).  Each thread steps its own chunk alone;
    the first values of a block's first row, before its first line, it
    stores itself.  Stepping the neighbour's chunk as well, the fills from
    word 1 had run at 0.78x of the aligned (docs/performance.md).  The chunks
    at the fill's ends take the general path.
    """
    per, values_of, staged = LAWS[law]
    slots = 4 // per
    row = 8 * slots  # a row's values
    gather = _gather(slots, row)

    @_kernel()
    def fill(out, k0, k1, k2, k3, log2_k, w0, words, params, table, shift):
        n = out.size
        end = w0 + words
        group, lane, s = _chunk(k0, k1, k2, k3, log2_k, w0, cuda.grid(1))
        o0, o1, o2, o3, h0, h1, h2, h3 = s
        k = 1 << log2_k
        start = group << (U64(5) + log2_k)
        first = start | (lane << U64(2))  # the chunk's first word
        groups = cuda.blockDim.x >> 3
        g0 = (w0 >> (U64(5) + log2_k)) + U64(cuda.blockIdx.x * groups)
        if (shift > 0 and groups <= GROUPS and g0 << (U64(5) + log2_k) >= w0
                and (g0 + U64(groups)) << (U64(5) + log2_k) <= end):
            rows = cuda.shared.array((3, GROUPS, row), staged)
            firsts = cuda.shared.array((GROUPS, row), staged)
            b = cuda.threadIdx.x >> 3
            mine = np.int64(lane) * slots  # the thread's position in a row
            e = (np.int64(start) - np.int64(w0)) // per  # the group's first element
            for j in range(k):
                o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
                values = values_of(o0, o1, o2, o3, params, table, first + U64(j << 5), log2_k)
                for q in range(slots):
                    rows[j % 3, b, mine + q] = values[q]
                if j == 0:
                    for q in range(slots):
                        firsts[b, mine + q] = values[q]
                        if b == 0 and mine + q < shift:
                            out[e + mine + q] = values[q]
                cuda.syncthreads()
                if j > 0:
                    store_group(out, e + shift + mine,
                                gather(rows[(j - 1) % 3, b], rows[j % 3, b], shift + mine))
                    e += row
            if b + 1 < groups:
                store_group(out, e + shift + mine,
                            gather(rows[(k - 1) % 3, b], firsts[b + 1], shift + mine))
            else:  # the next group, in the next block, stores its own first values
                for q in range(slots):
                    if shift + mine + q < row:
                        out[e + shift + mine + q] = rows[(k - 1) % 3, b, shift + mine + q]
            return
        if start >= end:
            return
        last = first + (U64(k - 1) << U64(5)) + U64(3)
        if first >= w0 and last < end and (first - w0) % U64(per) == 0 and shift <= 0:
            e = (np.int64(first) - np.int64(w0)) // per
            for j in range(k):
                o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
                values = values_of(o0, o1, o2, o3, params, table, first + U64(j << 5), log2_k)
                if shift == 0:
                    store_group(out, e, values)
                else:  # out off its element size's line: the same values, a store each
                    for q in range(slots):
                        out[e + q] = values[q]
                e += 32 // per
            return
        for j in range(k):
            o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
            w = first + U64(j << 5)
            if w + U64(4) <= w0 or w >= end:
                continue
            e = (np.int64(w) - np.int64(w0)) // per
            values = values_of(o0, o1, o2, o3, params, table, w, log2_k)
            if shift == 0 and e >= 0 and e + slots <= n:
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


def _shift(out, w0, per):
    """Values of a row before the first of ``out``'s lines that starts in it
    (a line: a row's bytes, ``8 * 16`` or ``8 * 8``): 0 where the rows line
    up; -1 where ``out`` is off its element size or the draws straddle
    blocks."""
    itemsize = out.dtype.itemsize
    address = _address(out)
    if address % itemsize or w0 % per:
        return -1
    line = 8 * (4 // per) * itemsize
    return (w0 // per * itemsize - address) % line // itemsize


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
    per = LAWS[law][0]
    words = n + (n & 1) if law == "normal32" else per * n  # a pair's last sine is dropped
    blocks, per_block = _grid(w0, words, log2_k, threads)
    words_of = [] if params is None else [U64(p) for p in params]
    params = tuple(words_of + [U64(0)] * (PARAMS - len(words_of)))
    table = _table_on_device(table, out)
    _fill_kernel(law)[blocks, per_block, _stream_of(out)](out, *args, U64(words), params, table,
                                                          np.int64(_shift(out, w0, per)))
    return out


def _table_on_device(table, like):
    """``table`` (None: none) where a fill into ``like`` reads it: a device copy
    made once per array (a copy a call, on the stream before the fill,
    waited for the fill before and halved the fills' speed)."""
    if isinstance(like, np.ndarray):  # the simulator copies its arguments back
        return np.zeros(1, np.uint64) if table is None else np.array(table)
    return _cached_on_device(table)
