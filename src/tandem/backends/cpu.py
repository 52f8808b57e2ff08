"""Fills on the CPU: ``@njit(parallel=True)`` loops over ``tandem.core``.

Every fill has one shape: element ``i`` is a function of the draw at word
``start + width * i`` (``width`` 1 or 2).  A fill splits into a head (the
elements before the first whole block), whole blocks in fixed-size chunks
(one ``prange`` iteration each, so the result never depends on the thread
count), and a tail.  Inside a chunk, tiles of blocks run branch-free so that
LLVM vectorises them; a tile that saw a rejected draw is mended afterwards
element by element from its continuation stream.

Kernels compile on first use and are cached on disk by Numba.
"""

import contextlib
import functools

import numba
import numpy as np
from numba import njit, prange
from numba.extending import register_jitable

from .. import core
from ..core.addressing import join64, philox_block_at, threefry_block_at
from ..core.bijections import philox4x32_rounds, threefry4x32_rounds
from ..core.choice import alias_index
from ..core.fmath import fma
from ..core.normal import (
    exponential64,
    exponential_word,
    normal64_fast,
    normal64_miss,
    normal_pair,
)
from ..core.uniform import (
    bernoulli64,
    integers32_retry,
    integers64_retry,
    lemire32,
    lemire64,
    uniform32,
    uniform64,
)

core.register()

U64 = np.uint64
_ZERO = U64(0)
_CHUNK_BLOCKS = 1 << 12  # blocks per prange iteration: 16 Ki words
_TILE_BLOCKS = 32  # blocks per branch-free tile
_NAN_OR_ONE = np.array([np.nan, 1.0])  # indexed by an accepted flag


# -- value maps: (lo, hi, params, table) -> (value, accepted) ---------------
# ``params`` is a 3-tuple of uint64 (floats travel as their bits), ``table`` a
# uint64 array (the alias table of choice, unused by the rest); ``hi`` is unused
# by one-word maps.

def _inline(fn):
    return register_jitable(inline="always")(fn)


@_inline
def _as_float(bits):
    return np.uint64(bits).view(np.float64)


@_inline
def _map_bits32(lo, hi, params, table):
    return lo, True


@_inline
def _map_bits64(lo, hi, params, table):
    return join64(lo, hi), True


@_inline
def _map_bitsbool(lo, hi, params, table):
    return (lo >> U64(31)) != _ZERO, True


@_inline
def _map_uniform32(lo, hi, params, table):
    return uniform32(lo, params[0]), True


@_inline
def _map_uniform64(lo, hi, params, table):
    return uniform64(lo, hi, params[0]), True


@_inline
def _map_integers32(lo, hi, params, table):
    offset, accepted = lemire32(lo, params[1], params[2])
    return params[0] + offset, accepted


@_inline
def _map_integers64(lo, hi, params, table):
    offset, accepted = lemire64(lo, hi, params[1], params[2])
    return params[0] + offset, accepted


@_inline
def _map_bernoulli(lo, hi, params, table):
    return bernoulli64(lo, hi, params[0], params[1]), True


@_inline
def _map_normal64(lo, hi, params, table):
    z, accepted = normal64_fast(lo, hi)
    # NaN marks a miss for the mending pass (see _make_kernels); a branch here
    # would trip Numba's SSA check after inlining.
    value = fma(z, _as_float(params[0]), _as_float(params[1])) * _NAN_OR_ONE[U64(accepted)]
    return value, accepted


@_inline
def _map_exponential64(lo, hi, params, table):
    return exponential64(lo, hi) * _as_float(params[0]), True


@_inline
def _map_exponential32(lo, hi, params, table):
    return np.float32(exponential_word(lo) * _as_float(params[0])), True


@_inline
def _map_choice(lo, hi, params, table):
    return alias_index(lo, hi, params[0], table), True


# -- pair maps of one-word kinds: (even, odd, params, table) -> (v0, v1, a0, a1)

@_inline
def _pair_normal32(even, odd, params, table):
    c, s = normal_pair(even, odd)
    scale, loc = _as_float(params[0]), _as_float(params[1])
    return np.float32(fma(c, scale, loc)), np.float32(fma(s, scale, loc)), True, True


def _pairwise(value_map):
    """The pair map that applies the one-word ``value_map`` to each word."""
    def pair(even, odd, params, table):
        v0, a0 = value_map(even, _ZERO, params, table)
        v1, a1 = value_map(odd, _ZERO, params, table)
        return v0, v1, a0, a1

    return _jitable_as(f"pair_{value_map.__name__}", pair, inline="always")


# -- retries of rejected draws: (generator, retry key, g, lo, hi, params, table) -> value

@_inline
def _never_retried32(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return np.float32(0.0)


@_inline
def _retry_integers32(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return params[0] + integers32_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


@_inline
def _retry_integers64(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return params[0] + integers64_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


@_inline
def _retry_normal64(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    z = normal64_miss(generator, r0, r1, r2, r3, g, lo, hi)
    return fma(z, _as_float(params[0]), _as_float(params[1]))


def _jitable_as(name, fn, inline="never"):
    """Register the closure ``fn`` under a unique name.

    Numba names a compiled ``register_jitable`` function after its qualified
    name and argument types; two closures from one factory would share that
    symbol and the linker would call the wrong one.
    """
    fn.__name__ = fn.__qualname__ = name
    return register_jitable(inline=inline)(fn)


def _make_kernels(width, value_map, retry, block_at, nan_marks):
    """The fill and addressed kernels of one kind for one generator.

    ``value_map`` is a pair map when ``width`` is 1 (so that a map may use
    both words of an aligned pair) and a value map when it is 2.
    ``block_at`` is the generator's inlined block function: each kernel
    compiles one bijection, not both.  With ``nan_marks`` the map returns NaN
    for a rejected draw, and mending a tile recomputes only those elements.
    """
    per_block = 4 // width

    def element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3):
        x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, w >> U64(2))
        j = w & U64(3)
        if j < 2:
            lo, hi = x0, x1
        else:
            lo, hi = x2, x3
        if width == 1:
            v0, v1, a0, a1 = value_map(lo, hi, params, table)
            if j & U64(1):
                value, accepted = v1, a1
                lo = hi
            else:
                value, accepted = v0, a0
            hi = _ZERO
        else:
            value, accepted = value_map(lo, hi, params, table)
        if not accepted:
            value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
        return value

    element = _jitable_as(f"element_{value_map.__name__}_{block_at.__name__}", element)

    @njit(parallel=True, cache=True)
    def fill(out, generator, k0, k1, k2, k3, lane, start, params, table, r0, r1, r2, r3):
        n = out.size
        first_block = (start + U64(3)) >> U64(2)
        head = min(n, np.int64((first_block * U64(4) - start) // U64(width)))
        blocks = (n - head) // per_block
        for i in range(head):
            w = start + U64(width * i)
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3)
        chunks = (blocks + _CHUNK_BLOCKS - 1) // _CHUNK_BLOCKS
        for c in prange(chunks):
            c_end = min(blocks, (c + 1) * _CHUNK_BLOCKS)
            for t in range(c * _CHUNK_BLOCKS, c_end, _TILE_BLOCKS):
                t_end = min(c_end, t + _TILE_BLOCKS)
                all_accepted = True
                for j in range(t, t_end):
                    x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, first_block + U64(j))
                    # Unsigned indices: Numba adds no negative-index fix-up,
                    # which would stop LLVM from vectorising the loop.
                    e = U64(head + per_block * j)
                    if width == 1:
                        v0, v1, a0, a1 = value_map(x0, x1, params, table)
                        v2, v3, a2, a3 = value_map(x2, x3, params, table)
                        out[e] = v0
                        out[e + U64(1)] = v1
                        out[e + U64(2)] = v2
                        out[e + U64(3)] = v3
                        all_accepted &= a0 & a1 & a2 & a3
                    else:
                        v0, a0 = value_map(x0, x1, params, table)
                        v1, a1 = value_map(x2, x3, params, table)
                        out[e] = v0
                        out[e + U64(1)] = v1
                        all_accepted &= a0 & a1
                if not all_accepted:
                    for e in range(head + per_block * t, head + per_block * t_end):
                        if nan_marks:
                            if not np.isnan(out[e]):
                                continue
                        w = start + U64(width * e)
                        out[e] = element(generator, k0, k1, k2, k3, lane, w, params, table,
                                         r0, r1, r2, r3)
        for i in range(head + per_block * blocks, n):
            w = start + U64(width * i)
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3)

    @njit(parallel=True, cache=True)
    def addressed(out, index, generator, k0, k1, k2, k3, lane, start, params, table,
                  r0, r1, r2, r3):
        for i in prange(index.size):
            w = start + U64(width) * index[i]
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3)

    return fill, addressed


def _no_retry(value_map):
    def retry(generator, r0, r1, r2, r3, g, lo, hi, params, table):
        return value_map(_ZERO, _ZERO, params, table)[0]

    return _jitable_as(f"no_retry_{value_map.__name__}", retry)


def _one_word(value_map, retry=None):
    return _pairwise(value_map), retry or _no_retry(value_map), False


def _two_word(value_map, retry=None, nan_marks=False):
    return value_map, retry or _no_retry(value_map), nan_marks


_MAPS = {
    "bits32": _one_word(_map_bits32),
    "bits64": _two_word(_map_bits64),
    "bitsbool": _one_word(_map_bitsbool),
    "uniform32": _one_word(_map_uniform32),
    "uniform64": _two_word(_map_uniform64),
    "integers32": _one_word(_map_integers32, _retry_integers32),
    "integers64": _two_word(_map_integers64, _retry_integers64),
    "bernoulli": _two_word(_map_bernoulli),
    "normal32": (_pair_normal32, _never_retried32, False),
    "normal64": _two_word(_map_normal64, _retry_normal64, nan_marks=True),
    "exponential32": _one_word(_map_exponential32),
    "exponential64": _two_word(_map_exponential64),
    "choice": _two_word(_map_choice),
}
_BLOCK_AT = (philox_block_at, threefry_block_at)  # indexed by Stream.generator


@functools.lru_cache(maxsize=None)
def _kernels(kind, width, generator):
    value_map, retry, nan_marks = _MAPS[kind]
    return _make_kernels(width, value_map, retry, _BLOCK_AT[generator], nan_marks)


@contextlib.contextmanager
def _threads(threads):
    if threads is None:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


_NO_TABLE = np.zeros(0, dtype=np.uint64)


def _args(spec, stream):
    key = tuple(U64(k) for k in stream.key) + (_ZERO,) * (4 - len(stream.key))
    retry = tuple(U64(k) for k in spec.retry_key)
    params = tuple(U64(p) for p in spec.params)
    table = _NO_TABLE if spec.table is None else spec.table
    return (stream.generator, *key, U64(stream.lane), U64(stream.position), params, table,
            *retry)


def fill(spec, stream, out, threads=None):
    """Write ``out.size`` elements of ``spec`` from ``stream.position`` into flat ``out``."""
    kernel = _kernels(spec.kind, spec.width, stream.generator)[0]
    with _threads(threads):
        kernel(out, *_args(spec, stream))


def addressed(spec, stream, index, out, threads=None):
    """Write element ``index[i]`` of the fill from ``stream`` into ``out[i]``."""
    kernel = _kernels(spec.kind, spec.width, stream.generator)[1]
    with _threads(threads):
        kernel(out, index, *_args(spec, stream))


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


def bijection_array(name, counter, key, rounds, out):
    """Rows of ``out`` = the bijection ``name`` of rows of ``counter`` and ``key`` (uint32)."""
    threefry = name == "threefry4x32"
    if not threefry:
        key = np.concatenate([key, np.zeros_like(key)], axis=1)
    _bijection_rows(threefry, counter, key, rounds, out)
