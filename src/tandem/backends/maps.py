"""What every backend computes per element: value maps and retries, as plain Python.

A fill's element ``i`` takes the draw at word ``start + width * i``.  A
*value map* ``(lo, hi, params, table) -> (value, accepted)`` turns the draw's
words into the element (``hi`` is unused by one-word kinds).  One-word kinds
are written as *pair maps* ``(even, odd, params, table) -> (v0, v1, a0, a1)``
over the aligned word pair, so that Box-Muller can use both words.  A
*retry* ``(generator, r0, r1, r2, r3, g, lo, hi, params, table) -> value``
gives a rejected element from lane ``g`` of its continuation key.

``params`` is a 3-tuple of uint64 (floats travel as their bits) and
``table`` a uint64 array (the packed alias table of choice, or the
ziggurat's :data:`tandem.core.normal.FAST_TABLE` on a GPU).

The functions are plain Python over :mod:`tandem.core`; each compiled
backend registers them with Numba for its target (:func:`functions`).
"""

import numpy as np

from ..core.addressing import join64
from ..core.choice import alias_index
from ..core.fmath import fma
from ..core.fmath32 import fma32
from ..core.normal import (
    exponential64,
    exponential_word,
    normal64_fast_table,
    normal64_miss_table,
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

U64 = np.uint64
_ZERO = U64(0)


def as_float(bits):
    """The float64 whose bits are ``bits``."""
    return np.uint64(bits).view(np.float64)


def as_float32(bits):
    """The float64 whose bits are ``bits``, rounded to float32."""
    return np.float32(as_float(bits))


# -- value maps ---------------------------------------------------------------

def map_bits32(lo, hi, params, table):
    return lo, True


def map_bits64(lo, hi, params, table):
    return join64(lo, hi), True


def map_bitsbool(lo, hi, params, table):
    return (lo >> U64(31)) != _ZERO, True


def map_uniform32(lo, hi, params, table):
    return uniform32(lo, params[0]), True


def map_uniform64(lo, hi, params, table):
    return uniform64(lo, hi, params[0]), True


def map_integers32(lo, hi, params, table):
    offset, accepted = lemire32(lo, params[1], params[2])
    return params[0] + offset, accepted


def map_integers64(lo, hi, params, table):
    offset, accepted = lemire64(lo, hi, params[1], params[2])
    return params[0] + offset, accepted


def map_bernoulli(lo, hi, params, table):
    return bernoulli64(lo, hi, params[0], params[1]), True


def map_normal64(lo, hi, params, table):
    """The ziggurat's fast path, with its tables in ``table``."""
    z, accepted = normal64_fast_table(lo, hi, table)
    return fma(z, as_float(params[0]), as_float(params[1])), accepted


def map_exponential64(lo, hi, params, table):
    return exponential64(lo, hi) * as_float(params[0]), True


def map_exponential32(lo, hi, params, table):
    return exponential_word(lo) * as_float32(params[0]), True


def map_choice(lo, hi, params, table):
    return alias_index(lo, hi, params[0], table), True


def pair_normal32(even, odd, params, table):
    c, s = normal_pair(even, odd)
    scale, loc = as_float32(params[0]), as_float32(params[1])
    return fma32(c, scale, loc), fma32(s, scale, loc), True, True


# -- retries ----------------------------------------------------------------------

def never_retried32(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return np.float32(0.0)


def retry_integers32(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return params[0] + integers32_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


def retry_integers64(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    return params[0] + integers64_retry(generator, r0, r1, r2, r3, g, params[1], params[2])


def retry_normal64(generator, r0, r1, r2, r3, g, lo, hi, params, table):
    z = normal64_miss_table(generator, r0, r1, r2, r3, g, lo, hi, table)
    return fma(z, as_float(params[0]), as_float(params[1]))


# -- factories ---------------------------------------------------------------------

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
    that maps the draw at word ``w`` alone; ``(lo, hi)`` is what a retry needs.

    ``block_at`` is a generator's block function of :mod:`tandem.core.addressing`.
    """
    def draw(generator, k0, k1, k2, k3, lane, w, params, table):
        x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, w >> U64(2))
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
    :func:`element_draw` function and the kind's retry."""
    def element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3):
        value, accepted, lo, hi = draw(generator, k0, k1, k2, k3, lane, w, params, table)
        if not accepted:
            value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
        return value

    return named(f"element_{draw.__name__}", element)


def _one_word(value_map, retry=None):
    return pairwise(value_map), retry or no_retry(value_map)


def _two_word(value_map, retry=None):
    return value_map, retry or no_retry(value_map)


#: kind -> (map, retry): a pair map for one-word kinds, a value map for two-word ones.
KINDS = {
    "bits32": _one_word(map_bits32),
    "bits64": _two_word(map_bits64),
    "bitsbool": _one_word(map_bitsbool),
    "uniform32": _one_word(map_uniform32),
    "uniform64": _two_word(map_uniform64),
    "integers32": _one_word(map_integers32, retry_integers32),
    "integers64": _two_word(map_integers64, retry_integers64),
    "bernoulli": _two_word(map_bernoulli),
    "normal32": (pair_normal32, never_retried32),
    "normal64": _two_word(map_normal64, retry_normal64),
    "exponential32": _one_word(map_exponential32),
    "exponential64": _two_word(map_exponential64),
    "choice": _two_word(map_choice),
}


def functions():
    """Every function of this module that compiled code calls, closures included."""
    found = {fn for fn in globals().values()
             if callable(fn) and getattr(fn, "__module__", None) == __name__
             and fn.__name__.startswith(("map_", "pair_", "retry_", "never_", "as_float"))}
    for pair in KINDS.values():
        found.update(pair)
    return sorted(found, key=lambda fn: fn.__name__)
