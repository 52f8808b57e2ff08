"""Fills on the CPU: loops over ``tandem.core``, compiled by Numba.

Every fill has one shape: element ``i`` is a function of the draw at word
``start + width * i`` (``width`` 1, 2 or 4).  A fill splits into a head (the
elements before the first whole block), whole blocks in fixed-size chunks,
and a tail.  The chunks are cut into even pieces, each a call of one serial
``nogil`` kernel on tandem's pool of threads (:mod:`.serial`), so the result
never depends on the thread count.  Inside a chunk, a tile of blocks is
written to a small buffer by the generator's tile function (:mod:`.tiles`,
called through its address: one kernel a kind serves every generator), and
mapped from it branch-free, so that LLVM vectorises the map; a tile that
saw a rejected draw is mended afterwards element by element from its
continuation stream (a block-an-element kind's misses by their retry
alone).  Addressed fills of 64-bit draws and blocks run in the same tiles
and pieces, each element from its own block.

Kernels compile on first use and are cached on disk by Numba.
"""

import contextlib
import functools
from typing import Callable, NamedTuple

import numba
import numpy as np
from numba import njit, prange

from .. import core, kinds, laws, parallel, rules
from ..core import addressing
from ..core.addressing import join64
from ..core.beta import johnk_first, johnk_value
from ..core.inversion import count64
from ..core.bijections import philox4x32_rounds, threefry4x32_rounds
from . import maps, tiles
from .serial import borrowed, pieces_for

core.register()

U64 = np.uint64
_ZERO = U64(0)
_CHUNK_BLOCKS = 1 << 12  # blocks per prange iteration: 16 Ki words
_TILE_BLOCKS = tiles.TILE_BLOCKS  # blocks per branch-free tile
_T = U64(_TILE_BLOCKS)
_WORD = tiles.WORD  # of a tile's words
_NAN_OR_ONE = np.array([np.nan, 1.0])  # indexed by an accepted flag


def _nan_marked(value_map, table):
    """``value_map`` with NaN for a miss, reading ``table`` as a constant (see _make_kernels).

    A constant, not the kernel's table argument: LLVM cannot rule out that an
    array argument aliases ``out``, and the normal64 fill ran about 40 %
    slower so.  A branch here would trip Numba's SSA check after inlining.
    """
    def marked(lo, hi, params, unused):
        value, accepted = value_map(lo, hi, params, table)
        return value * _NAN_OR_ONE[U64(accepted)], accepted

    return maps.named(f"nan_marked_{value_map.__name__}", marked)


def _with_table(value_map, table):
    """``value_map`` reading ``table`` (None: its table argument) as a constant,
    registered for inlining (``value_map`` itself already is)."""
    if table is None:
        return value_map

    def constant(lo, hi, params, unused):
        return value_map(lo, hi, params, table)

    return core.jitable_cpu(maps.named(f"with_table_{value_map.__name__}", constant),
                            inline=True)


@functools.partial(core.jitable_cpu, inline=True)
def _draws(words, slot, wide):
    """The draw of a tile's block ``slot``: its two 64-bit draws if ``wide``, else
    its first pair of words (a 64-bit draw's low and high word)."""
    x0, x1, x2, x3 = tiles.block(words, slot)
    if wide:
        return join64(x0, x1), join64(x2, x3)
    return x0, x1


# The maps are inlined at Numba's IR level so that LLVM vectorises the tiles.
for _fn in kinds.functions():
    core.jitable_cpu(_fn, inline=True)


def _make_kernels(width, value_map, retry, nan_marks, lean_draw):
    """The fill and addressed kernels of one kind, for every generator.

    ``value_map`` is a pair map when ``width`` is 1 (so that a map may use
    both words of an aligned pair) and a value map when it is 2.  The
    kernels take the generator's tile functions (:mod:`.tiles`) as
    arguments: a tile's blocks are written to a small buffer by them, and
    mapped from it.  With ``nan_marks`` the map returns NaN for a rejected
    draw, and mending a tile recomputes only those elements.  The lean
    kernels map their blocks by ``lean_draw``
    (:func:`tandem.backends.maps.block_draw`).
    """
    per_block = 4 // width
    digest = _SOURCES  # in the kernels' closures: see core.source_digest
    # A block an element with deferred misses: a tile keeps each element's
    # acceptance, and a miss is mended by its retry alone (the map is not run
    # again; that doubled the cost of a miss).
    flagged = nan_marks and width == 4 and retry is not None

    draw = core.jitable_cpu(maps.element_draw(width, value_map, addressing.block_at))
    element = core.jitable_cpu(maps.element(draw, retry))

    # A plain function, not a dispatcher, in the kernels' closure: Numba keys
    # its disk cache on the closure's pickle, and a dispatcher's differs in
    # every process.
    @functools.partial(core.jitable_cpu, inline=True)
    def store_block(out, e, x0, x1, x2, x3, params, table):
        """Map one block's words into ``out[e:e + per_block]``; whether all were accepted."""
        if width == 4:
            v0, a0 = value_map(join64(x0, x1), join64(x2, x3), params, table)
            out[e] = v0
            return a0
        if width == 1:
            v0, v1, a0, a1 = value_map(x0, x1, params, table)
            v2, v3, a2, a3 = value_map(x2, x3, params, table)
            out[e] = v0
            out[e + U64(1)] = v1
            out[e + U64(2)] = v2
            out[e + U64(3)] = v3
            return a0 & a1 & a2 & a3
        v0, a0 = value_map(x0, x1, params, table)
        v1, a1 = value_map(x2, x3, params, table)
        out[e] = v0
        out[e + U64(1)] = v1
        return a0 & a1

    @functools.partial(core.jitable_cpu, inline=True)
    def retried(generator, words, slot, w, params, table, r0, r1, r2, r3):
        """A flagged miss's value: its retry on the words of the tile's block ``slot``."""
        lo, hi = _draws(words, slot, True)
        return retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)

    @njit(nogil=True, cache=True)
    def fill(out, words, accepted, piece, pieces, run, generator, k0, k1, k2, k3, lane, start,
             params, table, r0, r1, r2, r3):
        out, words, accepted, table = (borrowed(out), borrowed(words), borrowed(accepted),
                                       borrowed(table))
        n = out.size + (digest & 0)
        first_block = (start + U64(3)) >> U64(2)
        head = min(n, np.int64((first_block * U64(4) - start) // U64(width)))
        blocks = (n - head) // per_block
        if piece == 0:
            for i in range(head):
                w = start + U64(width * i)
                out[i] = element(generator, k0, k1, k2, k3, lane, w, params, table,
                                 r0, r1, r2, r3)
        chunks = (blocks + _CHUNK_BLOCKS - 1) // _CHUNK_BLOCKS
        for c in range(chunks * piece // pieces, chunks * (piece + 1) // pieces):
            c_end = min(blocks, (c + 1) * _CHUNK_BLOCKS)
            for t in range(c * _CHUNK_BLOCKS, c_end, _TILE_BLOCKS):
                t_end = min(c_end, t + _TILE_BLOCKS)
                tiles.call(run, k0, k1, k2, k3, lane, first_block + U64(t), t_end - t, words)
                all_accepted = True
                for j in range(t, t_end):
                    # Unsigned indices: Numba adds no negative-index fix-up,
                    # which would stop LLVM from vectorising the loop.
                    s = U64(j - t)
                    x0, x1, x2, x3 = tiles.block(words, s)
                    a = store_block(out, U64(head + per_block * j), x0, x1, x2, x3, params,
                                    table)
                    if flagged:
                        accepted[s] = a
                    all_accepted &= a
                if flagged and not all_accepted:
                    for j in range(t, t_end):
                        if accepted[j - t]:
                            continue
                        e = head + j
                        out[e] = retried(generator, words, j - t, start + U64(4 * e), params,
                                         table, r0, r1, r2, r3)
                elif not all_accepted:
                    for e in range(head + per_block * t, head + per_block * t_end):
                        if nan_marks:
                            if not np.isnan(out[e]):
                                continue
                        w = start + U64(width * e)
                        out[e] = element(generator, k0, k1, k2, k3, lane, w, params, table,
                                         r0, r1, r2, r3)
        if piece == pieces - 1:
            for i in range(head + per_block * blocks, n):
                w = start + U64(width * i)
                out[i] = element(generator, k0, k1, k2, k3, lane, w, params, table,
                                 r0, r1, r2, r3)

    def addressed_kernel(own_params):
        """The addressed kernel ``(out, words, at, accepted, piece, pieces, index, each,
        gather, generator, k0..k3, lane, start, params, table, r0..r3)``: element
        ``index[i]`` into ``out[i]`` for the ``i`` of piece ``piece``, with the
        parameter words ``params``, or, with ``own_params``, ``each[:, i]``."""
        if own_params:
            def params_of(params, each, i):
                j = U64(i)  # unsigned: no negative-index fix-up (see fill)
                return (each[U64(0), j], each[U64(1), j], each[U64(2), j])
        else:
            def params_of(params, each, i):
                return params
        core.jitable_cpu(params_of, inline=True)

        @njit(nogil=True, cache=True)
        def addressed(out, words, at, accepted, piece, pieces, index, each, gather, generator,
                      k0, k1, k2, k3, lane, start, params, table, r0, r1, r2, r3):
            out, words, at, accepted = borrowed(out), borrowed(words), borrowed(at), \
                borrowed(accepted)
            index, each, table = borrowed(index), borrowed(each), borrowed(table)
            n = index.size + (digest & 0)
            if width == 1:
                for i in range(n * piece // pieces, n * (piece + 1) // pieces):
                    w = start + U64(width) * index[i]
                    out[i] = element(generator, k0, k1, k2, k3, lane, w,
                                     params_of(params, each, i), table, r0, r1, r2, r3)
                return
            # Tiles as the fill's, each element from its own block: the bijection
            # and the map vectorise over any indices.
            chunks = (n + _CHUNK_BLOCKS - 1) // _CHUNK_BLOCKS
            for c in range(chunks * piece // pieces, chunks * (piece + 1) // pieces):
                c_end = min(n, (c + 1) * _CHUNK_BLOCKS)
                for t in range(c * _CHUNK_BLOCKS, c_end, _TILE_BLOCKS):
                    t_end = min(c_end, t + _TILE_BLOCKS)
                    for i in range(t, t_end):
                        at[U64(i - t)] = (start + U64(width) * index[i]) >> U64(2)
                    tiles.call(gather, k0, k1, k2, k3, lane, at, t_end - t, words)
                    all_accepted = True
                    for i in range(t, t_end):
                        w = start + U64(width) * index[i]
                        s = U64(i - t)
                        x0, x1, x2, x3 = tiles.block(words, s)
                        p = params_of(params, each, i)
                        if width == 4:
                            value, a = value_map(join64(x0, x1), join64(x2, x3), p, table)
                        else:  # a 64-bit draw: the block's first or second word pair
                            upper = (w & U64(2)) != _ZERO
                            value, a = value_map(x2 if upper else x0, x3 if upper else x1,
                                                 p, table)
                        out[i] = value
                        if flagged:
                            accepted[s] = a
                        all_accepted &= a
                    if flagged and not all_accepted:  # a miss's retry alone, as the fill's
                        for i in range(t, t_end):
                            if accepted[i - t]:
                                continue
                            w = start + U64(width) * index[i]
                            out[i] = retried(generator, words, i - t, w,
                                             params_of(params, each, i), table, r0, r1, r2, r3)
                    elif not all_accepted:
                        for i in range(t, t_end):
                            if nan_marks:
                                if not np.isnan(out[i]):
                                    continue
                            w = start + U64(width) * index[i]
                            out[i] = element(generator, k0, k1, k2, k3, lane, w,
                                             params_of(params, each, i), table,
                                             r0, r1, r2, r3)

        return addressed

    # The lean kernels call their tile function and map (no inlining at
    # Numba's level, which re-types the caller each time), and reuse a tile
    # for the elements it holds.
    @njit(cache=True)
    def lean_fill(out, run, generator, k0, k1, k2, k3, lane, start, params, table,
                  r0, r1, r2, r3):
        n = out.size + (digest & 0)
        words = np.empty(4 * _TILE_BLOCKS, dtype=_WORD)
        last = (start + U64(width * n) - U64(1)) >> U64(2) if n else _ZERO
        first = _ZERO
        for i in range(n):
            w = start + U64(width * i)
            b = w >> U64(2)
            if i == 0 or b >= first + _T:
                first = b
                tiles.call(run, k0, k1, k2, k3, lane, b, min(_T, last - b + U64(1)), words)
            s = b - first
            x0, x1, x2, x3 = tiles.block(words, s)
            value, accepted, lo, hi = lean_draw(x0, x1, x2, x3, w & U64(3), params, table)
            if retry is not None and not accepted:
                value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
            out[i] = value

    def lean_element(words, run, generator, k0, k1, k2, k3, lane, w, params, table,
                     r0, r1, r2, r3):
        """The element whose draw starts at word ``w``, by the lean functions
        (``words``: a tile's scratch)."""
        tiles.call(run, k0, k1, k2, k3, lane, w >> U64(2), U64(1), words)
        x0, x1, x2, x3 = tiles.block(words, 0)
        value, accepted, lo, hi = lean_draw(x0, x1, x2, x3, w & U64(3), params, table)
        if retry is not None and not accepted:
            value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
        return value

    lean_element = core.jitable_cpu(maps.named(f"lean_element_{lean_draw.__name__}",
                                               lean_element))

    @njit(cache=True)
    def lean_addressed(out, index, run, generator, k0, k1, k2, k3, lane, start, params, table,
                       r0, r1, r2, r3):
        words = np.empty(4 * _TILE_BLOCKS, dtype=_WORD)
        for i in range(index.size + (digest & 0)):
            w = start + U64(width) * index[i]
            out[i] = lean_element(words, run, generator, k0, k1, k2, k3, lane, w, params,
                                  table, r0, r1, r2, r3)

    @njit(cache=True)
    def lean_each_addressed(out, index, each, run, generator, k0, k1, k2, k3, lane, start,
                            table, r0, r1, r2, r3):
        words = np.empty(4 * _TILE_BLOCKS, dtype=_WORD)
        for i in range(out.size + (digest & 0)):
            w = start + U64(width) * index[i]
            params = (each[0, i], each[1, i], each[2, i])
            out[i] = lean_element(words, run, generator, k0, k1, k2, k3, lane, w, params,
                                  table, r0, r1, r2, r3)

    return Kernels(fill, addressed_kernel(False), lean_fill, lean_addressed,
                   addressed_kernel(True), lean_each_addressed)


class Kernels(NamedTuple):
    """The compiled functions of one kind and generator (each compiles on first call).

    ``fill`` and ``addressed`` vectorise, and do one piece of their cut a call
    (:func:`_in_pieces` runs the pieces on every thread); ``lean_fill`` and
    ``lean_addressed`` are serial loops that call their block function and
    map, which compile in a fraction of the time (the values are the same).  ``each_addressed`` and ``lean_each_addressed`` compute elements
    with parameters of their own.
    """

    fill: Callable
    addressed: Callable
    lean_fill: Callable
    lean_addressed: Callable
    each_addressed: Callable
    lean_each_addressed: Callable


# Fills of fewer elements take the lean kernels: their first call compiles in
# a few seconds, where the vectorised kernels' takes up to half a minute, and
# at this size both run in tens of microseconds (docs/performance.md).
LEAN_BELOW = 1 << 10

_SOURCES = core.source_digest(rules.__file__, kinds.__file__, laws.__file__, maps.__file__,
                              tiles.__file__)


@functools.lru_cache(maxsize=None)
def _kernels(name, counted):
    """The kernels of the kind ``name``; ``counted``: with int64 values
    (``maps.counted``), whose misses (blocks all) are flagged, not marked NaN."""
    kind = kinds.KINDS[name]

    def marked(value_map):
        return core.jitable_cpu(_nan_marked(value_map, kind.table), inline=True)

    value_map, retry = maps.kernel_functions(kind, marked if kind.deferred and not counted
                                             else None)
    for fn in maps.made_here(kind, value_map, retry):
        core.jitable_cpu(fn, inline=True)
    lean_map = None
    if counted:
        value_map, retry = (core.jitable_cpu(fn, inline=True)
                            for fn in maps.counted(value_map, retry))
        lean_map = value_map
    return _make_kernels(kind.width, value_map, kind.retry and retry, nan_marks=kind.deferred,
                         lean_draw=core.jitable_cpu(maps.block_draw(kind, lean_map)))


def _kernels_into(record, out):
    """The kernels of ``record``'s kind for the output array ``out``."""
    counted = kinds.KINDS[record.kind].counts and out.dtype == np.int64
    return _kernels(record.kind, counted)


@contextlib.contextmanager
def _threads(threads):
    previous = numba.get_num_threads()
    if threads is None or threads == previous:
        yield
        return
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


_NO_TABLE = np.zeros(0, dtype=np.uint64)
_NO_EACH = np.zeros((3, 0), dtype=np.uint64)


def _args(record):
    key = tuple(U64(k) for k in record.key)
    retry = tuple(U64(k) for k in record.retry_key)
    params = tuple(U64(p) for p in record.params)
    table = _NO_TABLE if record.table is None else record.table
    return (record.generator, *key, U64(record.lane), U64(record.start), params, table, *retry)


# A serial kernel's scratch, made a piece: (elements, dtype).
_WORDS = (4 * _TILE_BLOCKS, _WORD)  # a tile's words
_FLAGS = (_TILE_BLOCKS, np.bool_)  # a tile's acceptances
_HALF_TILE = (_TILE_BLOCKS // 2, np.float64)  # a tile's values of one part
_TILE_BLOCK_INDICES = (_TILE_BLOCKS, np.uint64)


def _in_pieces(kernel, out, threads, scratch, *args, below=_CHUNK_BLOCKS):
    """``kernel(out, *arrays, p, pieces, *args)`` for each piece ``p`` of the
    cut, on tandem's pool: the serial ``nogil`` kernels' launch, each piece
    with ``arrays`` of its own, made as ``scratch`` says; one piece for
    fewer than ``below`` elements."""
    pieces = _serial_below(below, pieces_for(threads), out.size)

    def piece(p):
        kernel(out, *(np.empty(n, dtype) for n, dtype in scratch), p, pieces, *args)

    parallel.in_pieces(piece, pieces)


def _serial_below(n, threads, size):
    """One thread for work of fewer than ``n`` items: a parallel region costs
    more than it gains there (its barrier took about 8 ms on a busy 2-core
    machine, where one thread filled one element in 76 µs)."""
    return 1 if size < n else threads


def fill(record, out, threads=None):
    """Write ``out.size`` elements of ``record``'s fill into flat ``out``."""
    kernels = _kernels_into(record, out)
    run = tiles.address(record.generator, "run")
    if out.size < LEAN_BELOW:
        kernels.lean_fill(out, run, *_args(record))
        return
    # Fewer than two chunks of blocks make one piece anyway.
    _in_pieces(kernels.fill, out, threads, (_WORDS, _FLAGS), run, *_args(record),
               below=2 * _CHUNK_BLOCKS * 4 // record.width)


def addressed_each(record, index, each, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``, with the
    parameter words ``each[:, i]`` (a C-ordered ``(3, n)`` uint64 array) in place
    of ``record.params``."""
    kernels = _kernels_into(record, out)
    args = _args(record)
    if out.size < LEAN_BELOW:
        kernels.lean_each_addressed(out, index, each, tiles.address(record.generator, "run"),
                                    *args[:7], *args[8:])
        return
    _in_pieces(kernels.each_addressed, out, threads, (_WORDS, _TILE_BLOCK_INDICES, _FLAGS),
               index, each, tiles.address(record.generator, "gather"), *args)


def addressed(record, index, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``."""
    kernels = _kernels_into(record, out)
    if out.size < LEAN_BELOW:
        kernels.lean_addressed(out, index, tiles.address(record.generator, "run"),
                               *_args(record))
        return
    _in_pieces(kernels.addressed, out, threads, (_WORDS, _TILE_BLOCK_INDICES, _FLAGS),
               index, _NO_EACH, tiles.address(record.generator, "gather"), *_args(record))


@functools.lru_cache(maxsize=None)
def _two_part_kernel(name):
    value = core.jitable_cpu(maps.two_part(getattr(core.two_parts, name)), inline=True)
    digest = _SOURCES

    @njit(parallel=True, cache=True)
    def combine(out, a, b, p, q, step):
        for i in prange(out.size + (digest & 0)):
            j = i * step
            out[i] = value(a[i], b[i], p[j], q[j])

    return parallel.guarded(combine)


def two_parts(name, out, a, b, p, q, threads=None):
    """``out[i] = core.two_parts.<name>(a[i], b[i], p[j], q[j])`` for flat f64
    arrays, ``j`` being ``i`` where ``p`` and ``q`` hold one parameter an
    element, and 0 where they hold one."""
    step = 1 if p.size > 1 else 0
    with _threads(_serial_below(_CHUNK_BLOCKS, threads, out.size)):
        _two_part_kernel(name)(out, a, b, p, q, step)


@functools.lru_cache(maxsize=None)
def _two_part_fill_kernel(first, second, name):
    """The one kernel of a law of two parts with scalar parameters: in each
    tile, the blocks ``2 i`` and ``2 i + 1`` of element ``i`` staged, the
    parts mapped from them (kinds ``first`` and ``second``, their misses
    mended by their retries), and the value ``core.two_parts.<name>``."""
    widths = [kinds.KINDS[k].width for k in (first, second)]
    (map_a, retry_a), (map_b, retry_b) = (maps.kernel_functions(kinds.KINDS[k])
                                          for k in (first, second))
    for kind, fns in ((first, (map_a, retry_a)), (second, (map_b, retry_b))):
        for fn in maps.made_here(kinds.KINDS[kind], *fns):
            core.jitable_cpu(fn, inline=True)
    # The kinds' tables as constants, not arguments (see _nan_marked).
    map_a, map_b = (_with_table(m, kinds.KINDS[k].table)
                    for m, k in ((map_a, first), (map_b, second)))
    value = core.jitable_cpu(maps.two_part(getattr(core.two_parts, name)), inline=True)
    wide_a, wide_b = widths[0] == 4, widths[1] == 4
    digest = _SOURCES
    per_tile = _TILE_BLOCKS // 2

    @njit(nogil=True, cache=True)
    def fill(out, words, a, b, accepted, piece, pieces, run, generator, k0, k1, k2, k3, lane,
             start, pa, ta, ra0, ra1, ra2, ra3, pb, tb, rb0, rb1, rb2, rb3, p, q, step):
        out, words, a, b = borrowed(out), borrowed(words), borrowed(a), borrowed(b)
        accepted, ta, tb = borrowed(accepted), borrowed(ta), borrowed(tb)
        n = out.size + (digest & 0)
        first_block = start >> U64(2)
        per_chunk = _CHUNK_BLOCKS // 2
        chunks = (n + per_chunk - 1) // per_chunk
        for c in range(chunks * piece // pieces, chunks * (piece + 1) // pieces):
            c_end = min(n, (c + 1) * per_chunk)
            for t in range(c * per_chunk, c_end, per_tile):
                t_end = min(c_end, t + per_tile)
                tiles.call(run, k0, k1, k2, k3, lane, first_block + U64(2 * t),
                           2 * (t_end - t), words)
                all_accepted = True
                for i in range(t, t_end):
                    e = U64(i - t)  # unsigned: no negative-index fix-up
                    lo_a, hi_a = _draws(words, U64(2) * e, wide_a)
                    lo_b, hi_b = _draws(words, U64(2) * e + U64(1), wide_b)
                    va, oka = map_a(lo_a, hi_a, pa, ta)
                    vb, okb = map_b(lo_b, hi_b, pb, tb)
                    a[e] = va
                    b[e] = vb
                    accepted[U64(2) * e] = oka
                    accepted[U64(2) * e + U64(1)] = okb
                    all_accepted &= oka & okb
                if not all_accepted:
                    for i in range(t, t_end):
                        e = i - t
                        w = start + U64(8 * i)
                        if not accepted[2 * e]:
                            lo, hi = _draws(words, 2 * e, wide_a)
                            a[e] = retry_a(generator, ra0, ra1, ra2, ra3, w, lo, hi, pa, ta)
                        if not accepted[2 * e + 1]:
                            lo, hi = _draws(words, 2 * e + 1, wide_b)
                            b[e] = retry_b(generator, rb0, rb1, rb2, rb3, w + U64(4), lo, hi,
                                           pb, tb)
                for i in range(t, t_end):
                    j = i * step
                    out[i] = value(a[i - t], b[i - t], p[j], q[j])

    return fill


def two_part_fill(first, second, name, out, p, q, threads=None):
    """The fill of a law of two parts in one kernel: ``out[i]`` is
    ``core.two_parts.<name>`` of the element at word ``8 i`` of the fill
    ``first`` and of ``second``'s at word ``8 i + 4``, with the law's
    parameters ``p[j]``, ``q[j]`` (``j`` as for :func:`two_parts`); ``first``
    and ``second`` are the parts' records, of one stream at one start (a
    multiple of 4).  The same values as the parts computed alone, which is
    how fewer than ``LEAN_BELOW`` elements are made (by the lean kernels,
    which compile faster)."""
    if out.size < LEAN_BELOW:
        parts = []
        for record, word in ((first, 0), (second, 4)):
            index = np.arange(word // record.width, 8 * out.size // record.width,
                              8 // record.width, dtype=np.uint64)
            parts.append(np.empty(out.size))
            addressed(record, index, parts[-1], threads)
        two_parts(name, out, *parts, p, q, threads)
        return
    step = 1 if p.size > 1 else 0
    a, b = _args(first), _args(second)
    kernel = _two_part_fill_kernel(first.kind, second.kind, name)
    _in_pieces(kernel, out, threads, (_WORDS, _HALF_TILE, _HALF_TILE, _FLAGS),
               tiles.address(first.generator, "run"), *a, *b[7:], p, q, step)


@functools.lru_cache(maxsize=None)
def _poisson_mixture_fill_kernel(mixing):
    """The one kernel of a Poisson mixture with scalar parameters: in each tile,
    the blocks ``2 i`` and ``2 i + 1`` of element ``i`` staged, the mean mapped
    from the first (kind ``mixing``, its misses mended by its retry), then
    the count from the second by both Poisson regimes' maps, selected by the
    mean, and the misses of the regime taken mended by its retry."""
    kind = kinds.KINDS[mixing]
    if kind.width != 4:
        raise ValueError(f"a mixing kind takes a block an element, not {kind.name!r}")
    map_mean, retry_mean = maps.kernel_functions(kind)
    for fn in maps.made_here(kind, map_mean, retry_mean):
        core.jitable_cpu(fn, inline=True)
    map_mean = _with_table(map_mean, kind.table)
    steps, ptrs = kinds.KINDS["poisson_steps64"], kinds.KINDS["poisson_ptrs64"]
    map_steps, retry_steps, map_ptrs, retry_ptrs = (steps.value_map, steps.retry,
                                                    ptrs.value_map, ptrs.retry)
    digest = _SOURCES
    per_tile = _TILE_BLOCKS // 2

    @njit(nogil=True, cache=True)
    def fill(out, words, means, counts, accepted, piece, pieces, run, generator, k0, k1, k2, k3,
             lane, start, pa, ta, ra0, ra1, ra2, ra3, rb0, rb1, rb2, rb3, mean_limit, ptrs_from):
        out, words, means, counts = borrowed(out), borrowed(words), borrowed(means), \
            borrowed(counts)
        accepted, ta = borrowed(accepted), borrowed(ta)
        n = out.size + (digest & 0)
        first_block = start >> U64(2)
        per_chunk = _CHUNK_BLOCKS // 2
        chunks = (n + per_chunk - 1) // per_chunk
        for c in range(chunks * piece // pieces, chunks * (piece + 1) // pieces):
            c_end = min(n, (c + 1) * per_chunk)
            for t in range(c * per_chunk, c_end, per_tile):
                t_end = min(c_end, t + per_tile)
                tiles.call(run, k0, k1, k2, k3, lane, first_block + U64(2 * t),
                           2 * (t_end - t), words)
                all_accepted = True
                for i in range(t, t_end):
                    e = U64(i - t)  # unsigned: no negative-index fix-up
                    lo, hi = _draws(words, U64(2) * e, True)
                    value, ok = map_mean(lo, hi, pa, ta)
                    means[e] = value
                    accepted[e] = ok
                    all_accepted &= ok
                if not all_accepted:
                    for i in range(t, t_end):
                        e = i - t
                        if not accepted[e]:
                            lo, hi = _draws(words, 2 * e, True)
                            means[e] = retry_mean(generator, ra0, ra1, ra2, ra3,
                                                  start + U64(8 * i), lo, hi, pa, ta)
                all_accepted = True
                for i in range(t, t_end):
                    e = U64(i - t)
                    lo, hi = _draws(words, U64(2) * e + U64(1), True)
                    pb = (np.float64(min(means[e], mean_limit)).view(np.uint64), _ZERO, _ZERO)
                    large, ok_large = map_ptrs(lo, hi, pb, ta)
                    small, ok_small = map_steps(lo, hi, pb, ta)
                    ptrs_taken = means[e] >= ptrs_from
                    counts[e] = large if ptrs_taken else small
                    ok = ok_large if ptrs_taken else ok_small
                    accepted[e] = ok
                    all_accepted &= ok
                if not all_accepted:
                    for i in range(t, t_end):
                        e = i - t
                        if not accepted[e]:
                            pb = (np.float64(min(means[e], mean_limit)).view(np.uint64), _ZERO,
                                  _ZERO)
                            w = start + U64(8 * i + 4)
                            lo, hi = _draws(words, 2 * e + 1, True)
                            if means[e] >= ptrs_from:
                                counts[e] = retry_ptrs(generator, rb0, rb1, rb2, rb3, w, lo, hi,
                                                       pb, ta)
                            else:
                                counts[e] = retry_steps(generator, rb0, rb1, rb2, rb3, w, lo,
                                                        hi, pb, ta)
                for i in range(t, t_end):
                    out[i] = count64(counts[i - t])

    return fill


def poisson_mixture_fill(mixing, poisson, out, mean_limit, ptrs_from, threads=None):
    """A Poisson mixture (``negative_binomial``) in one kernel: ``out[i]`` (int64)
    is the Poisson count at word ``8 i + 4`` whose mean is ``min(y, mean_limit)``,
    ``y`` the element of the fill ``mixing`` at word ``8 i``; the count is
    ``poisson_ptrs64``'s from mean ``ptrs_from`` on, else ``poisson_steps64``'s
    (the regimes of ``tandem.laws.LAWS["poisson"]``).  ``mixing`` and ``poisson``
    are records of one stream at one start, a multiple of 4 (``poisson``:
    either Poisson kind's, for its retry key)."""
    a, b = _args(mixing), _args(poisson)
    kernel = _poisson_mixture_fill_kernel(mixing.kind)
    _in_pieces(kernel, out, threads, (_WORDS, _HALF_TILE, _HALF_TILE, _FLAGS),
               tiles.address(mixing.generator, "run"), *a, *b[9:], np.float64(mean_limit),
               np.float64(ptrs_from))


@functools.lru_cache(maxsize=None)
def _johnk_fill_kernel():
    """The one kernel of Jöhnk's beta with scalar shapes, element ``i`` from block
    ``2 i``: in each tile, the first attempts by selects, then the misses'
    retries in rounds, attempt ``r`` of every pending miss at once (by
    selects too), an underflowed attempt's value by
    :func:`tandem.core.beta.johnk_value`."""
    digest = _SOURCES

    @njit(nogil=True, cache=True)
    def fill(out, words, piece, pieces, gather, across, k0, k1, k2, k3, lane, start, a, b,
             r0, r1, r2, r3):
        out, words = borrowed(out), borrowed(words)
        # Made here, not passed: LLVM then knows that no store to them
        # changes out (as scratch arguments, the fill ran 7 % slower).
        at = np.empty(_TILE_BLOCKS, dtype=np.uint64)
        values = np.empty(_TILE_BLOCKS)
        accepted = np.empty(_TILE_BLOCKS, dtype=np.bool_)
        n = out.size + (digest & 0)
        first_block = start >> U64(2)
        per_chunk = _CHUNK_BLOCKS // 2
        chunks = (n + per_chunk - 1) // per_chunk
        for c in range(chunks * piece // pieces, chunks * (piece + 1) // pieces):
            c_end = min(n, (c + 1) * per_chunk)
            for t in range(c * per_chunk, c_end, _TILE_BLOCKS):
                t_end = min(c_end, t + _TILE_BLOCKS)
                for i in range(t, t_end):
                    at[U64(i - t)] = first_block + U64(2 * i)  # unsigned: see fill
                tiles.call(gather, k0, k1, k2, k3, lane, at, t_end - t, words)
                all_accepted = True
                for i in range(t, t_end):
                    e = U64(i - t)
                    lo, hi = _draws(words, e, True)
                    value, ok = johnk_first(lo, hi, a, b)
                    out[i] = value
                    accepted[e] = ok
                    all_accepted &= ok
                if all_accepted:
                    continue
                count = 0
                for i in range(t, t_end):
                    if accepted[i - t]:
                        continue
                    if out[i] == 0.0:  # underflowed: accepted by the retry's first step
                        lo, hi = _draws(words, i - t, True)
                        out[i] = johnk_value(lo, hi, a, b)
                    else:
                        at[count] = start + U64(8 * i)  # the miss's continuation lane
                        count += 1
                r = U64(0)
                while count:
                    tiles.call(across, r0, r1, r2, r3, at, r, count, words)
                    for k in range(count):
                        lo, hi = _draws(words, k, True)
                        value, ok = johnk_first(lo, hi, a, b)
                        values[U64(k)] = value
                        accepted[U64(k)] = ok
                    kept = 0
                    for k in range(count):
                        i = (at[k] - start) >> U64(3)
                        if accepted[k]:
                            out[i] = values[k]
                        elif values[k] == 0.0:
                            lo, hi = _draws(words, k, True)
                            out[i] = johnk_value(lo, hi, a, b)
                        else:
                            at[kept] = at[k]
                            kept += 1
                    count = kept
                    r += U64(1)

    return fill


def johnk_fill(record, out, threads=None):
    """Jöhnk's beta (kind ``beta_johnk64``) in one kernel: ``out[i]`` is the
    element of ``record``'s fill at block ``2 i`` (its draw at word ``8 i`` of a
    start that is a multiple of 4), with its misses' retries in rounds: the
    same values as ``addressed`` of those elements, which is how fewer than
    ``LEAN_BELOW`` elements are made (by the lean kernels, which compile
    faster)."""
    if out.size < LEAN_BELOW:
        addressed(record, np.arange(0, 2 * out.size, 2, dtype=np.uint64), out, threads)
        return
    args = _args(record)
    a, b = (np.uint64(w).view(np.float64) for w in record.params[:2])
    _in_pieces(_johnk_fill_kernel(), out, threads, (_WORDS,),
               tiles.address(record.generator, "gather"),
               tiles.address(record.generator, "across"), *args[1:7], a, b, *args[9:])


@functools.lru_cache(maxsize=None)
def _row_kernels():
    from ..core.fmath import fma

    digest = _SOURCES

    @njit(parallel=True, cache=True)
    def transformed(z, m, mean, out):
        for i in prange(z.shape[0] + (digest & 0)):
            for r in range(m.shape[1]):
                acc = mean[r]
                for c in range(m.shape[0]):
                    acc = fma(z[i, c], m[c, r], acc)
                out[i, r] = acc

    @njit(parallel=True, cache=True)
    def normalised(g, out):
        for i in prange(g.shape[0] + (digest & 0)):
            total = 0.0
            for j in range(g.shape[1]):
                total += g[i, j]
            for j in range(g.shape[1]):
                out[i, j] = np.divide(g[i, j], total)

    return parallel.guarded(transformed), parallel.guarded(normalised)


def transformed_rows(z, m, mean, out, threads=None):
    """``out[i, r] = mean[r] + sum_c z[i, c] m[c, r]``: ``fma`` after ``fma`` in the
    order of ``c`` (2-D f64 arrays, ``mean`` 1-D)."""
    with _threads(_serial_below(_CHUNK_BLOCKS, threads, z.size)):
        _row_kernels()[0](z, m, mean, out)


def normalised_rows(g, out, threads=None):
    """``out[i, j] = g[i, j] / (g[i, 0] + ... + g[i, k - 1])``, the sum in order."""
    with _threads(_serial_below(_CHUNK_BLOCKS, threads, g.size)):
        _row_kernels()[1](g, out)


@functools.lru_cache(maxsize=None)
def element_function(name):
    """The function that computes one element of the kind ``name`` alone, as
    :func:`tandem.backends.cuda.element_function` on the GPU.

    Parameters
    ----------
    name : str
        A kind of :data:`tandem.kinds.KINDS`, for example ``"normal64"``.

    Returns
    -------
    callable
        ``element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3)``,
        callable from Numba-compiled CPU code: the element whose draw starts at
        word ``w`` of (key, lane), the addressed kernels' values bit for bit.

    Examples
    --------
    >>> normal = element_function("normal64")
    """
    kind = kinds.KINDS[name]
    value_map, retry = maps.kernel_functions(kind)
    draw = core.jitable_cpu(maps.element_draw(kind.width, value_map, addressing.block_at))
    return core.jitable_cpu(maps.element(draw, kind.retry and retry))


@functools.lru_cache(maxsize=None)
def _multinomial_rows_kernel():
    row = core.jitable_cpu(maps.multinomial_row(element_function("binomial64")))
    digest = _SOURCES

    @njit(parallel=True, cache=True)
    def rows(out, trials, p, generator, k0, k1, k2, k3, lane, start, params, table,
             r0, r1, r2, r3):
        for i in prange(out.shape[0] + (digest & 0)):
            row(out, i, trials, p, generator, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3)

    return parallel.guarded(rows)


def multinomial_rows(record, trials, p, out, threads=None):
    """Multinomial counts, a row an element: ``out[i, j]`` (int64, ``j < k - 1``)
    is element ``(k - 1) i + j`` of ``record``'s fill (kind ``binomial64``) with
    the trials left in the row and ``p[j]``; ``out[i, k - 1]`` is the trials
    left.  The same counts as those elements computed alone."""
    kernel = _multinomial_rows_kernel()
    with _threads(_serial_below(_CHUNK_BLOCKS // 4, threads, out.shape[0])):
        kernel(out, np.int64(trials), p, *_args(record))


@njit(parallel=True, cache=True)
def _bijection_rows(threefry, counter, key, rounds, out):
    for i in prange(counter.shape[0]):
        c = counter[i]
        k = key[i]
        if threefry:
            y = threefry4x32_rounds(
                U64(c[0]), U64(c[1]), U64(c[2]), U64(c[3]),
                U64(k[0]), U64(k[1]), U64(k[2]), U64(k[3]), rounds)
        else:
            y = philox4x32_rounds(
                U64(c[0]), U64(c[1]), U64(c[2]), U64(c[3]), U64(k[0]), U64(k[1]), rounds)
        for j in range(4):
            out[i, j] = y[j]


_bijection_rows_guarded = parallel.guarded(_bijection_rows)


def bijection_array(name, counter, key, rounds, out):
    """Rows of ``out`` = the bijection ``name`` of rows of ``counter`` and ``key`` (uint32)."""
    threefry = name == "threefry4x32"
    if not threefry:
        key = np.concatenate([key, np.zeros_like(key)], axis=1)
    _bijection_rows_guarded(threefry, counter, key, rounds, out)
