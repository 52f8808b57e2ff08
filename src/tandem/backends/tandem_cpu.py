"""Tandem8x32 fills on the CPU: the stream in order, and the specification's draws.

A fill reads the stream's 32-bit words from word ``w0`` on through a
*cursor*: the eight lanes' states of the current row group, the words of
the row being read and where in it the next word is.  Rows are made eight
lanes at a time (one step each), so a fill costs one F per chunk and lane
and one step per block, wherever it starts (SPEC.md section 4).

Each kernel takes the key words, ``log2(K)`` and the word where its draws
start, and writes its ``out``; element ``i`` of a fill of ``w``-bit draws is
the draw at word ``w0 + i w / 32``.  Misses and rejections continue on the
fallback streams of Appendix A, keyed by the draw's index ``g`` in the
stream (the caller passes the purpose's key and the draw index of element 0).
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .. import core
from ..core.bijections import MASK32, SHIFT32
from ..core.tandem8x32 import (AUX_STREAM, CLOCK_ROT, CLOCK_WEYL, DOMAIN_STREAM, LO_ROTATION,
                                ROUND_CONSTANTS)
from ..core.tandem_draws import (below32_of_draw, below64_of_draw, box_muller32,
                                 choice_of_draw, exponential32, exponential64, neg2_log,
                                 normal64_of_draw, uniform24, uniform53)
from ..core.uniform import lemire32, lemire64
from .maps import named
from .serial import borrowed, in_ranges, pieces_for

core.register()
_inlined = functools.partial(core.jitable_cpu, inline=True)

U64 = np.uint64
ROW_WORDS = 32
#: Words a kernel maps at a time when ``K > 256``.
TILE_WORDS = 4096
_LANES = 8
_GROUP_LANES = 4 * _LANES
_FIVE = U64(5)
_ONE = U64(1)
_ZERO = U64(0)
_THREE = U64(3)


@intrinsic
def _store_row(typingctx, lanes, first, stride, out, at):
    """Store a row: ``out[at + 4 l + t] = lanes[first + stride t + l]`` for the
    eight lanes ``l`` and the four exposed words ``t``.

    The 4 x 8 transpose as LLVM vector shuffles, four 256-bit stores, where
    a loop of 32 scalar stores cost half the fill's time.
    """
    signature = types.void(lanes, types.intp, types.intp, out, types.intp)

    def codegen(context, builder, sig, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        words, pairs = ir.VectorType(i32, 8), ir.VectorType(i64, 4)
        source = context.make_array(sig.args[0])(context, builder, args[0]).data
        target = builder.gep(context.make_array(sig.args[3])(context, builder, args[3]).data,
                             [args[4]])

        def mask(*values):
            return ir.Constant(ir.VectorType(i32, len(values)), values)

        def word(t):
            at = builder.add(args[1], builder.mul(args[2], ir.Constant(i64, t)))
            return builder.load(builder.bitcast(builder.gep(source, [at]), words.as_pointer()),
                                align=4)

        o0, o1, o2, o3 = (word(t) for t in range(4))
        low, high = mask(0, 8, 1, 9, 2, 10, 3, 11), mask(4, 12, 5, 13, 6, 14, 7, 15)
        o01 = [builder.bitcast(builder.shuffle_vector(o0, o1, m), pairs) for m in (low, high)]
        o23 = [builder.bitcast(builder.shuffle_vector(o2, o3, m), pairs) for m in (low, high)]
        for k in range(4):
            row = builder.shuffle_vector(o01[k // 2], o23[k // 2],
                                         mask(0, 4, 1, 5) if k % 2 == 0 else mask(2, 6, 3, 7))
            address = builder.gep(target, [ir.Constant(i64, 8 * k)])
            builder.store(row, builder.bitcast(address, pairs.as_pointer()), align=4)
        return context.get_dummy_value()

    return signature, codegen


@intrinsic
def _store_pairs(typingctx, values, first, second, out, at):
    """Store a row of 64-bit values: ``out[at + 2 l + j] = values[(first, second)[j] + l]``
    for the eight lanes ``l``, the draws of a lane's words 0-1 and 2-3 in
    stream order: one shuffle and one 128-byte store, where the loop
    interleaving them cost more than the roof's stores.
    """
    signature = types.void(values, types.intp, types.intp, out, types.intp)

    def codegen(context, builder, sig, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        eight = ir.VectorType(i64, _LANES)
        source = context.make_array(sig.args[0])(context, builder, args[0]).data
        target = builder.gep(context.make_array(sig.args[3])(context, builder, args[3]).data,
                             [args[4]])

        def load(first):
            return builder.load(builder.bitcast(builder.gep(source, [first]),
                                                eight.as_pointer()), align=8)

        order = [i for lane in range(_LANES) for i in (lane, _LANES + lane)]
        row = builder.shuffle_vector(load(args[1]), load(args[2]),
                                     ir.Constant(ir.VectorType(i32, 2 * _LANES), order))
        builder.store(row, builder.bitcast(target, ir.VectorType(i64, 2 * _LANES).as_pointer()),
                      align=8)
        return context.get_dummy_value()

    return signature, codegen


def _lanes_step(count, of_seeding=False):
    """An intrinsic ``step(lanes)``: step T (:func:`tandem.core.tandem8x32.step`) of
    ``count`` lanes at once, ``lanes[count t + l]`` being word ``t`` (``o0 .. o3,
    h0 .. h3``) of lane ``l``.

    The CPU's lowering of the step for many lanes: each word of the state is
    one ``<count x i32>`` vector, so AVX-512 takes 16 lanes an instruction
    where Numba's 64-bit integers took 8; the products are 64-bit.

    With ``of_seeding``, ``step(lanes, constant)`` is a round of F: T, the
    round constant into ``o0``, the halves swapped, all in the stores.
    """
    def codegen(context, builder, sig, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        words, pairs = ir.VectorType(i32, count), ir.VectorType(i64, count // 2)
        base = context.make_array(sig.args[0])(context, builder, args[0]).data

        def splat(value, vector=words, scalar=i32):
            return ir.Constant(vector, [ir.Constant(scalar, value)] * vector.count)

        def address(t):
            return builder.bitcast(builder.gep(base, [ir.Constant(i64, count * t)]),
                                   words.as_pointer())

        def rotl(x, r):
            return builder.or_(builder.shl(x, splat(r)), builder.lshr(x, splat(32 - r)))

        def product(a, b):
            """The 64-bit products' (high, low) words, lane by lane.

            The even and odd lanes multiply as the low and high halves
            of 64-bit pairs (``vpmuludq`` each), their words blended
            back in place: widening the whole vector cost twice the
            instructions on AVX2.
            """
            a, b = builder.bitcast(a, pairs), builder.bitcast(b, pairs)
            low_half, shift = splat(0xFFFFFFFF, pairs, i64), splat(32, pairs, i64)
            even = builder.mul(builder.and_(a, low_half), builder.and_(b, low_half))
            odd = builder.mul(builder.lshr(a, shift), builder.lshr(b, shift))
            high = builder.or_(builder.lshr(even, shift),
                               builder.and_(odd, builder.not_(low_half)))
            low = builder.or_(builder.and_(even, low_half), builder.shl(odd, shift))
            return builder.bitcast(high, words), builder.bitcast(low, words)

        o0, o1, o2, o3, h0, h1, h2, h3 = (builder.load(address(t), align=4)
                                          for t in range(8))
        hi0, lo0 = product(o0, builder.or_(h0, splat(1)))
        hi1, lo1 = product(o2, builder.or_(h1, splat(1)))
        n0 = builder.xor(builder.xor(o1, hi1), lo1)
        n1 = builder.xor(rotl(lo1, int(LO_ROTATION)), h2)
        n2 = builder.xor(builder.xor(o3, hi0), lo0)
        n3 = builder.xor(rotl(lo0, int(LO_ROTATION)), h3)
        c0 = builder.xor(h0, rotl(h1, CLOCK_ROT[0]))
        c1 = builder.xor(h1, rotl(h2, CLOCK_ROT[1]))
        c2 = builder.xor(h2, rotl(h3, CLOCK_ROT[2]))
        c3 = builder.xor(h3, rotl(c0, CLOCK_ROT[3]))
        g0 = builder.xor(builder.add(c0, splat(int(CLOCK_WEYL))), n0)
        state = (n0, n1, n2, n3, g0, c1, c2, c3)
        if of_seeding:
            constant = builder.insert_element(ir.Constant(words, None), args[1],
                                              ir.Constant(i32, 0))
            constant = builder.shuffle_vector(constant, constant,
                                              ir.Constant(words, [0] * count))
            state = (g0, c1, c2, c3, builder.xor(n0, constant), n1, n2, n3)
        for t, value in enumerate(state):
            builder.store(value, address(t), align=4)
        return context.get_dummy_value()

    def step_lanes(typingctx, lanes):
        return types.void(lanes), codegen

    def round_lanes(typingctx, lanes, constant):
        return types.void(lanes, types.uint32), codegen

    return intrinsic(round_lanes if of_seeding else step_lanes)


_step_group = _lanes_step(_LANES)
_step_four_groups = _lanes_step(_GROUP_LANES)
_round_group = _lanes_step(_LANES, of_seeding=True)
_round_four_groups = _lanes_step(_GROUP_LANES, of_seeding=True)


_ROUND_CONSTANTS = np.array(ROUND_CONSTANTS, np.uint32)


@njit(cache=True)
def _start_groups(k0, k1, k2, k3, group, groups, lanes):
    """The states that start the chunk groups ``group .. group + groups - 1`` (1 or 4).

    ``F(key, c, DOMAIN_STREAM, AUX_STREAM)`` of every lane's chunk ``c``
    (:func:`tandem.core.tandem8x32.chunk_start`), its eight rounds stepping all
    lanes at once: one F a chunk cost two thirds of a fill's time, one lane
    at a time.
    """
    count = _LANES * groups
    for i in range(count):
        c = (U64(group) << _THREE) + U64(i)
        lanes[i] = c & MASK32
        lanes[count + i] = c >> SHIFT32
        lanes[2 * count + i] = DOMAIN_STREAM
        lanes[3 * count + i] = AUX_STREAM
        lanes[4 * count + i] = k0
        lanes[5 * count + i] = k1
        lanes[6 * count + i] = k2
        lanes[7 * count + i] = k3
    for r in range(8):
        if groups == 4:
            _round_four_groups(lanes, _ROUND_CONSTANTS[r])
        else:
            _round_group(lanes, _ROUND_CONSTANTS[r])


@njit(cache=True)
def _rows(lanes, count, out, at):
    """``count`` rows of one chunk group into ``out[at:]``."""
    for r in range(count):
        _step_group(lanes)
        _store_row(lanes, 0, _LANES, out, at + ROW_WORDS * r)


@_inlined
def _word_rows(lanes, values, out, k, r):
    """Row ``r`` of each of four chunk groups into ``out``, as raw words."""
    for q in range(4):
        _store_row(lanes, _LANES * q, _GROUP_LANES, out, ROW_WORDS * (q * k + r))


def _groups_of(rows):
    """``groups(k0, k1, k2, k3, log2_k, group, out)``: chunk groups ``group ..
    group + 3`` into ``out``, ``rows(lanes, values, out, k, r)`` laying out row
    ``r`` of the four as it is made (``values``: 128 elements of scratch).

    Four groups step together: 32 lanes, four independent chains, where one
    group's eight lanes wait on the latency of each step.  ``groups`` is
    registered under its name in this module (``rows``' name, ``_groups`` for
    ``_rows``): a kernel's disk cache is keyed by a pickle of its closure, and
    a function found under its name pickles as that name, where a nested one
    pickles by value with the dispatchers it calls, whose pickles differ from
    process to process (the kernels were compiled anew in every process).
    """
    def groups(k0, k1, k2, k3, log2_k, group, out):
        lanes = np.empty(8 * _GROUP_LANES, np.uint32)
        values = np.empty(4 * _GROUP_LANES, out.dtype)
        _start_groups(k0, k1, k2, k3, group, 4, lanes)
        k = 1 << log2_k
        for r in range(k):
            _step_four_groups(lanes)
            rows(lanes, values, out, k, r)

    name = rows.__name__.removesuffix("_rows") + "_groups"
    globals()[name] = core.jitable_cpu(named(name, groups))
    return groups


_word_groups = _groups_of(_word_rows)


@njit(cache=True)
def _emit(k0, k1, k2, k3, log2_k, row, count, lanes, out, at):
    """Rows ``row .. row + count - 1`` into ``out[at:]``; ``lanes`` holds the states
    before them (any values at the start of a chunk group)."""
    k = np.int64(1) << log2_k
    done = 0
    while done < count:
        r = np.int64(row) + done
        j = r & (k - 1)
        if j == 0 and count - done >= 4 * k:
            _word_groups(k0, k1, k2, k3, log2_k, r >> log2_k, out[at + ROW_WORDS * done:])
            done += 4 * k
            continue
        if j == 0:
            _start_groups(k0, k1, k2, k3, r >> log2_k, 1, lanes)
        run = min(count - done, k - j)
        _rows(lanes, run, out, at + ROW_WORDS * done)
        done += run


@njit(cache=True)
def open_cursor(k0, k1, k2, k3, log2_k, w0):
    """A cursor whose next word is word ``w0``: ``(lanes, row_words, where)``.

    ``where[0]`` is the next row to make and ``where[1]`` the next word of
    ``row_words`` to read (32: none left).
    """
    lanes = np.zeros(8 * _LANES, np.uint32)
    row_words = np.zeros(ROW_WORDS, np.uint32)
    where = np.zeros(2, np.uint64)
    row = w0 >> _FIVE
    j = row & ((_ONE << log2_k) - _ONE)
    if j != 0:
        _start_groups(k0, k1, k2, k3, row >> log2_k, 1, lanes)
        for _ in range(j):  # step to row j of the group, dropping the words
            _rows(lanes, 1, row_words, 0)
    offset = w0 & U64(31)
    if offset:
        _emit(k0, k1, k2, k3, log2_k, row, 1, lanes, row_words, 0)
        row += _ONE
    where[0] = row
    where[1] = offset if offset else ROW_WORDS
    return lanes, row_words, where


@njit(cache=True)
def take(k0, k1, k2, k3, log2_k, cursor, out, at, count):
    """The cursor's next ``count`` words into ``out[at:at + count]``."""
    lanes, row_words, where = cursor
    row = where[0]
    i = np.int64(where[1])
    at = np.int64(at)
    count = np.int64(count)
    n = np.int64(0)
    while i < ROW_WORDS and n < count:
        out[at + n] = row_words[i]
        i += 1
        n += 1
    whole = (count - n) // ROW_WORDS
    if whole:
        _emit(k0, k1, k2, k3, log2_k, row, whole, lanes, out, at + n)
        row += U64(whole)
        n += ROW_WORDS * whole
    if n < count:
        _emit(k0, k1, k2, k3, log2_k, row, 1, lanes, row_words, 0)
        row += _ONE
        i = 0
        while n < count:
            out[at + n] = row_words[i]
            i += 1
            n += 1
    where[0] = row
    where[1] = U64(i)


@njit(cache=True)
def tile_blocks(k0, k1, k2, k3, log2_k, first, count, words, tile):
    """Blocks ``first .. first + count - 1`` into a tile of the CPU kernels
    (:mod:`tandem.backends.tiles`): word ``t`` of the ``i``-th block to
    ``words[t * tile + i]``.

    A row's eight blocks are the eight lanes' exposed words, already in the
    tile's lane-major order: no transpose.  A tile that starts inside a
    chunk steps to its row first, so it costs up to ``K - 1`` steps more.
    """
    lanes = np.empty(8 * _LANES, np.uint32)
    k = U64(1) << log2_k
    end = first + count
    b = first
    while b < end:
        r = b >> _THREE
        j = r & (k - _ONE)
        if b == first or j == 0:
            _start_groups(k0, k1, k2, k3, r >> log2_k, 1, lanes)
            for _ in range(j):
                _step_group(lanes)
        _step_group(lanes)
        row_end = min(end, (r + _ONE) << _THREE)
        for t in range(4):
            for c in range(b, row_end):
                words[U64(t) * tile + (c - first)] = lanes[U64(t * _LANES) + (c & U64(7))]
        b = row_end


@njit(cache=True, nogil=True)
def fill_words(k0, k1, k2, k3, log2_k, w0, out, a, b):
    """Words ``w0 + a .. w0 + b - 1`` into ``out[a:b]`` (uint32)."""
    cursor = open_cursor(k0, k1, k2, k3, log2_k, w0 + U64(a))
    take(k0, k1, k2, k3, log2_k, cursor, out, a, b - a)


@_inlined
def _words8(a):
    """The first eight words of ``a`` (zeros past its end) as a tuple: values
    that LLVM keeps in registers, where an array's words are read again at
    every element in case a store to ``out`` changed them."""
    n = a.size
    return (a[0] if n > 0 else _ZERO, a[1] if n > 1 else _ZERO, a[2] if n > 2 else _ZERO,
            a[3] if n > 3 else _ZERO, a[4] if n > 4 else _ZERO, a[5] if n > 5 else _ZERO,
            a[6] if n > 6 else _ZERO, a[7] if n > 7 else _ZERO)


@_inlined
def skip(cursor, rows):
    """Move a cursor that stands at the start of a row past ``rows`` whole rows;
    the next row then starts a chunk group, whose states the cursor makes."""
    where = cursor[2]
    where[0] += rows


@_inlined
def _tile_words(log2_k):
    """Words a kernel maps at a time: four chunk groups (``128 K``, 16 KiB at
    ``K = 32``) where that is at most 128 KiB, so that whole tiles take the
    four-group path of :func:`take`."""
    return np.int64(ROW_WORDS * 4) << log2_k if log2_k <= 8 else np.int64(TILE_WORDS)


@_inlined
def _tile_room(w0, per, s, tile):
    """Elements of ``per`` words from element ``s`` to the next tile boundary of
    the stream, so that the tiles after the first are aligned."""
    w = np.int64(w0 & U64(0x7FFFFFFFFFFFFFFF)) + per * s
    return max(np.int64(1), (tile - w % tile) // per)


_F32_DRAW = 2.0**-32
_F64_ULP = 2.0**-53
_SIGN32 = np.uint32(0x80000000)
_TWO31 = 2.0**31


@_inlined
def _uniform24_rows(lanes, values, out, k, r):
    """Row ``r`` of each of four chunk groups as f32 uniforms into ``out``, from
    the lanes just stepped: every exposed word mapped where it lies (a loop
    LLVM vectorises), then laid out in stream order as the raw words are."""
    for i in range(4 * _GROUP_LANES):
        values[i] = uniform24(U64(lanes[i]))
    for q in range(4):
        _store_row(values, _LANES * q, _GROUP_LANES, out, ROW_WORDS * (q * k + r))


@_inlined
def _uniform53_values(lanes, values):
    """The f64 uniforms of row ``r`` of four chunk groups, from the lanes just
    stepped, into ``values[:2 * _GROUP_LANES]``, where the lanes lie.

    A lane's 64-bit draws are its words ``(0, 1)`` and ``(2, 3)``, low word
    first, so each uniform is made as ``hi 2**-32 + (lo >> 11) 2**-53``:
    :func:`uniform53` to the bit (both terms and their sum are exact), in
    conversions of 32-bit integers, which AVX2 has, where the 64-bit one it
    lacks went element by element.
    """
    for j in range(2):
        for i in range(_GROUP_LANES):
            hi = lanes[2 * _GROUP_LANES * j + _GROUP_LANES + i]
            lo = lanes[2 * _GROUP_LANES * j + i]
            values[_GROUP_LANES * j + i] = (
                (np.float64(np.int32(hi ^ _SIGN32)) + _TWO31) * _F32_DRAW
                + np.float64(np.int32(lo >> 11)) * _F64_ULP)


@_inlined
def _store_f64_rows(values, out, k, r):
    """The values of :func:`_uniform53_values`'s places into ``out``, in stream order."""
    for q in range(4):
        _store_pairs(values, _LANES * q, _GROUP_LANES + _LANES * q, out,
                     ROW_WORDS // 2 * (q * k + r))


@_inlined
def _uniform53_rows(lanes, values, out, k, r):
    """Row ``r`` of each of four chunk groups as f64 uniforms into ``out``."""
    _uniform53_values(lanes, values)
    _store_f64_rows(values, out, k, r)


@_inlined
def _exponential53_rows(lanes, values, out, k, r):
    """Row ``r`` of each of four chunk groups as f64 exponentials into ``out``:
    :func:`exponential64`, ``0.5 L(1 - u)``, of the uniforms made where the
    lanes lie (a loop LLVM vectorises), rather than in a second pass over the
    cursor's buffer."""
    _uniform53_values(lanes, values)
    for i in range(2 * _GROUP_LANES):
        values[i] = 0.5 * neg2_log(1.0 - values[i])
    _store_f64_rows(values, out, k, r)


def _draw_kernel(width, value_of, rows=None):
    """A fill kernel: element ``i`` is ``value_of(draw)`` of the ``width``-bit draw
    (32 or 64) at word ``w0 + i width / 32``; misses are ``value_of``'s business
    through ``params`` (and ``g``, the draw's index in the stream).

    With ``rows``, whole spans of four chunk groups go through
    ``rows(lanes, values, out, k, r)`` after each step, which maps row ``r``
    of the four groups into ``out`` (the span's elements) as it is made, so
    that the steps overlap the stores as in the raw fill
    (docs/performance.md).  Otherwise the draws go through the cursor, a
    tile at a time.
    """
    per = width // 32
    four_groups = None if rows is None else _groups_of(rows)

    @njit(cache=True, nogil=True)
    def kernel(k0, k1, k2, k3, log2_k, w0, out, a, b, params, table, g0):
        """Elements ``a .. b - 1`` into ``out[a:b]``."""
        params, table = _words8(params), borrowed(table)
        cursor = open_cursor(k0, k1, k2, k3, log2_k, w0 + U64(per * a))
        tile = _tile_words(log2_k)
        buf = np.empty(tile, np.uint32)
        s = a
        while s < b:
            m = min(_tile_room(w0, per, s, tile), b - s)
            w = w0 + U64(per * s)
            if rows is not None and per * m == 128 << log2_k and w % U64(per * m) == 0:
                four_groups(k0, k1, k2, k3, log2_k, w >> (U64(5) + log2_k), out[s:s + m])
                skip(cursor, U64(4) << log2_k)
            else:
                take(k0, k1, k2, k3, log2_k, cursor, buf, 0, per * m)
                draws = buf if per == 1 else buf.view(np.uint64)
                values = out[s:s + m]
                for i in range(m):
                    values[i] = value_of(U64(draws[i]), params, table, g0 + U64(s + i),
                                         log2_k)
            s += m

    return kernel


def _of_draw(value_map):
    """``value_map(d)`` as a kernel's ``value_of``, for a law without misses."""
    def value_of(d, params, table, g, log2_k):
        return value_map(d)

    return _inlined(value_of)


#: The kernels, by the name of their law.
uniform64_fill = _draw_kernel(64, _of_draw(uniform53), rows=_uniform53_rows)
uniform32_fill = _draw_kernel(32, _of_draw(uniform24), rows=_uniform24_rows)
exponential64_fill = _draw_kernel(64, _of_draw(exponential64), rows=_exponential53_rows)
exponential32_fill = _draw_kernel(32, _of_draw(exponential32))
normal64_fill = _draw_kernel(64, normal64_of_draw)
below32_fill = _draw_kernel(32, below32_of_draw)
below64_fill = _draw_kernel(64, below64_of_draw)
choice_fill = _draw_kernel(64, choice_of_draw)


@njit(cache=True, nogil=True)
def normal32_fill(k0, k1, k2, k3, log2_k, w0, out, a, b):
    """Box-Muller pairs ``a .. b - 1``: elements ``2j`` and ``2j + 1`` from words
    ``w0 + 2j`` and ``w0 + 2j + 1``; an odd ``out.size`` keeps the cosine of
    the last pair."""
    n = out.size
    cursor = open_cursor(k0, k1, k2, k3, log2_k, w0 + U64(2 * a))
    tile = _tile_words(log2_k)
    buf = np.empty(tile, np.uint32)
    s = a
    while s < b:
        m = min(_tile_room(w0, 2, s, tile), b - s)
        take(k0, k1, k2, k3, log2_k, cursor, buf, 0, 2 * m)
        whole = min(m, n // 2 - s)  # pairs that keep both halves
        # a view with its own indices: indexing out at 2 (s + i) ran 3x slower
        both = out[2 * s:2 * (s + whole)]
        for i in range(whole):
            z0, z1 = box_muller32(U64(buf[2 * i]), U64(buf[2 * i + 1]))
            both[2 * i] = z0
            both[2 * i + 1] = z1
        if whole < m:  # an odd size: the last pair's cosine
            out[n - 1] = box_muller32(U64(buf[2 * whole]), U64(buf[2 * whole + 1]))[0]
        s += m


@njit(cache=True)
def below_scalars(k0, k1, k2, k3, log2_k, w0, width, span, threshold, out):
    """``out.size`` scalar bounded draws in sequence from word ``w0``, each
    rejecting onto the next draw of the stream; returns the words consumed."""
    cursor = open_cursor(k0, k1, k2, k3, log2_k, w0)
    buf = np.empty(2, np.uint32)
    used = 0
    per = width // 32
    for i in range(out.size):
        while True:
            take(k0, k1, k2, k3, log2_k, cursor, buf, 0, per)
            used += per
            if per == 1:
                value, accepted = lemire32(U64(buf[0]), span, threshold)
            else:
                value, accepted = lemire64(U64(buf[0]), U64(buf[1]), span, threshold)
            if accepted:
                out[i] = value
                break
    return used


_KERNELS = {"uniform32": (1, uniform32_fill), "uniform64": (2, uniform64_fill),
            "exponential32": (1, exponential32_fill), "exponential64": (2, exponential64_fill),
            "normal64": (2, normal64_fill), "below32": (1, below32_fill),
            "below64": (2, below64_fill), "choice": (2, choice_fill)}
_NONE = np.zeros(1, np.uint64)


@functools.lru_cache(maxsize=1024)
def _key_words(key, log2_k):
    """The kernels' first arguments: the key's words and ``log2 K`` as uint64."""
    return (*(U64(k) for k in key), U64(log2_k))


def fill(law, key, log2_k, w0, out, params=None, table=None, threads=None):
    """Fill the flat NumPy array ``out`` with ``law``'s elements from word ``w0`` of
    the stream of ``key``; the same protocol as :func:`tandem.backends.tandem_cuda.fill`.

    ``law`` is ``"words"`` or ``"words64"`` (raw draws), ``"normal32"`` or a key
    of ``_KERNELS``; ``threads`` is the number of CPU threads (by default all,
    for fills of ``2**16`` elements or more).
    """
    n = out.size
    if n == 0:
        return out
    pieces = 1 if n < (1 << 16) else pieces_for(threads)
    args = (*_key_words(key, log2_k), U64(w0))
    if law in ("words", "words64"):
        words = out.view(np.uint32)
        in_ranges(words.size, pieces, lambda a, b: fill_words(*args, words, a, b))
    elif law == "normal32":
        in_ranges((n + 1) // 2, pieces, lambda a, b: normal32_fill(*args, out, a, b))
    else:
        per, kernel = _KERNELS[law]
        params = _NONE if params is None else params
        table = _NONE if table is None else table
        g0 = U64(w0 // per)
        in_ranges(n, pieces, lambda a, b: kernel(*args, out, a, b, params, table, g0))
    return out

