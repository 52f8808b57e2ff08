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


# -- value maps: (lo, hi, params) -> (value, accepted) ---------------------
# ``params`` is a 3-tuple of uint64; ``hi`` is unused by one-word maps.

def _inline(fn):
    return register_jitable(inline="always")(fn)


@_inline
def _map_bits32(lo, hi, params):
    return lo, True


@_inline
def _map_bits64(lo, hi, params):
    return join64(lo, hi), True


@_inline
def _map_bitsbool(lo, hi, params):
    return (lo >> U64(31)) != _ZERO, True


@_inline
def _map_uniform32(lo, hi, params):
    return uniform32(lo, params[0]), True


@_inline
def _map_uniform64(lo, hi, params):
    return uniform64(lo, hi, params[0]), True


@_inline
def _map_integers32(lo, hi, params):
    offset, accepted = lemire32(lo, params[1], params[2])
    return params[0] + offset, accepted


@_inline
def _map_integers64(lo, hi, params):
    offset, accepted = lemire64(lo, hi, params[1], params[2])
    return params[0] + offset, accepted


@_inline
def _map_bernoulli(lo, hi, params):
    return bernoulli64(lo, hi, params[0], params[1]), True


# -- retries for rejected draws: (generator, retry key, g, params) -> value ---

@_inline
def _retry_integers32(generator, r0, r1, r2, r3, g, params):
    return params[0] + integers32_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


@_inline
def _retry_integers64(generator, r0, r1, r2, r3, g, params):
    return params[0] + integers64_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


def _jitable_as(name, fn):
    """Register the closure ``fn`` under a unique name.

    Numba names a compiled ``register_jitable`` function after its qualified
    name and argument types; two closures from one factory would share that
    symbol and the linker would call the wrong one.
    """
    fn.__name__ = fn.__qualname__ = name
    return register_jitable(fn)


def _make_kernels(width, value_map, retry, block_at):
    """The fill and addressed kernels of one value map for one generator.

    ``block_at`` is the generator's inlined block function: each kernel
    compiles one bijection, not both.
    """
    per_block = 4 // width

    def element(generator, k0, k1, k2, k3, lane, w, params, r0, r1, r2, r3):
        x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, w >> U64(2))
        j = w & U64(3)
        if j == 0:
            lo, hi = x0, x1
        elif j == 1:
            lo, hi = x1, _ZERO
        elif j == 2:
            lo, hi = x2, x3
        else:
            lo, hi = x3, _ZERO
        value, accepted = value_map(lo, hi, params)
        if not accepted:
            value = retry(generator, r0, r1, r2, r3, w, params)
        return value

    element = _jitable_as(f"element_{value_map.__name__}_{block_at.__name__}", element)

    @njit(parallel=True, cache=True)
    def fill(out, generator, k0, k1, k2, k3, lane, start, params, r0, r1, r2, r3):
        n = out.size
        first_block = (start + U64(3)) >> U64(2)
        head = min(n, np.int64((first_block * U64(4) - start) // U64(width)))
        blocks = (n - head) // per_block
        for i in range(head):
            w = start + U64(width * i)
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, r0, r1, r2, r3)
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
                        v0, a0 = value_map(x0, _ZERO, params)
                        v1, a1 = value_map(x1, _ZERO, params)
                        v2, a2 = value_map(x2, _ZERO, params)
                        v3, a3 = value_map(x3, _ZERO, params)
                        out[e] = v0
                        out[e + U64(1)] = v1
                        out[e + U64(2)] = v2
                        out[e + U64(3)] = v3
                        all_accepted &= a0 & a1 & a2 & a3
                    else:
                        v0, a0 = value_map(x0, x1, params)
                        v1, a1 = value_map(x2, x3, params)
                        out[e] = v0
                        out[e + U64(1)] = v1
                        all_accepted &= a0 & a1
                if not all_accepted:
                    for e in range(head + per_block * t, head + per_block * t_end):
                        w = start + U64(width * e)
                        out[e] = element(generator, k0, k1, k2, k3, lane, w, params,
                                         r0, r1, r2, r3)
        for i in range(head + per_block * blocks, n):
            w = start + U64(width * i)
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, r0, r1, r2, r3)

    @njit(parallel=True, cache=True)
    def addressed(out, index, generator, k0, k1, k2, k3, lane, start, params, r0, r1, r2, r3):
        for i in prange(index.size):
            w = start + U64(width) * index[i]
            out[i] = element(generator, k0, k1, k2, k3, lane, w, params, r0, r1, r2, r3)

    return fill, addressed


def _no_retry(value_map):
    def retry(generator, r0, r1, r2, r3, g, params):
        return value_map(_ZERO, _ZERO, params)[0]

    return _jitable_as(f"no_retry_{value_map.__name__}", retry)


_MAPS = {
    "bits32": (_map_bits32, _no_retry(_map_bits32)),
    "bits64": (_map_bits64, _no_retry(_map_bits64)),
    "bitsbool": (_map_bitsbool, _no_retry(_map_bitsbool)),
    "uniform32": (_map_uniform32, _no_retry(_map_uniform32)),
    "uniform64": (_map_uniform64, _no_retry(_map_uniform64)),
    "integers32": (_map_integers32, _retry_integers32),
    "integers64": (_map_integers64, _retry_integers64),
    "bernoulli": (_map_bernoulli, _no_retry(_map_bernoulli)),
}
_BLOCK_AT = (philox_block_at, threefry_block_at)  # indexed by Stream.generator


@functools.lru_cache(maxsize=None)
def _kernels(kind, width, generator):
    value_map, retry = _MAPS[kind]
    return _make_kernels(width, value_map, retry, _BLOCK_AT[generator])


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


def _args(spec, stream):
    key = tuple(U64(k) for k in stream.key) + (_ZERO,) * (4 - len(stream.key))
    retry = tuple(U64(k) for k in spec.retry_key)
    params = tuple(U64(p) for p in spec.params)
    return (stream.generator, *key, U64(stream.lane), U64(stream.position), params, *retry)


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
