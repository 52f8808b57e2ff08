"""Every distribution of the stream contract, each defined once as a :class:`Kind`.

A kind (:class:`tandem.rules.Kind`) names one rule of ``docs/spec.md``: how
many words an element takes, the value map from a draw to an element, what
a rejected draw continues on, the oracle that the reference backend runs,
and the traits a compiled backend needs to launch it well.  From a stream, a
kind and its parameters, :func:`resolve` makes the one backend-neutral
:class:`FillRecord` that every backend takes.

This module defines the kinds of the fills of :mod:`tandem.distributions`
(bits, uniforms, bounded integers, Bernoulli, the f32 normals, the
exponentials, choice); each law of :mod:`tandem.laws` brings its own.
:data:`KINDS` holds them all.

The value maps are plain Python over :mod:`tandem.core`, with the signature
``(lo, hi, params, table) -> (value, accepted)`` (``hi`` is unused by
one-word kinds); ``params`` is a 3-tuple of uint64 words (floats travel as
their bits).  A retry ``(generator, c0..c3, g, lo, hi, params, table) ->
value`` gives a rejected element from lane ``g`` of its continuation key.
Each compiled backend registers the maps with Numba for its target.

This module imports only :mod:`tandem.core`, :mod:`tandem.checks`,
:mod:`tandem.oracle`, :mod:`tandem.rules` and :mod:`tandem.laws`, so the CUDA
backend can load its own copy (see :mod:`tandem._twin`).

Guaranteed across versions: each kind's rule, its purpose and its
parameters' words.
"""

from __future__ import annotations

import math

import numpy as np

from . import checks, laws, oracle
from .core.addressing import join64
from .core.choice import alias_index
from .core.fmath32 import fma32
from .core.normal import normal_pair
from .core.uniform import (
    bernoulli64,
    integers32_retry,
    integers64_retry,
    lemire32,
    lemire64,
    uniform32,
    uniform64,
)
from .core.ziggurat import (
    EXPONENTIAL32_TABLE,
    EXPONENTIAL64_TABLE,
    FAST_WORDS32,
    FAST_WORDS64,
    NORMAL32_TABLE,
    exponential32_fast_table,
    exponential32_inv,
    exponential32_miss_table,
    exponential64_fast_table,
    exponential64_inv,
    exponential64_miss_table,
    normal32_fast_table,
    normal32_miss_table,
)
from .core import ziggurat_exponential32, ziggurat_exponential64, ziggurat_normal32
from .rules import (STANDARD_BOUND, FillRecord, Kind, Real, as_float, as_float32, located,
                    open_draw, resolve)

__all__ = ["KINDS", "LOC", "SCALE", "STANDARD_BOUND", "FillRecord", "Kind", "Real",
           "float_word", "functions", "probability_words", "resolve"]

U64 = np.uint64
_ZERO = U64(0)

LOC = Real("loc", bound=0.5)
SCALE = Real("scale", nonnegative=True, bound=1 / (2 * STANDARD_BOUND))


def float_word(value: float) -> int:
    """The bits of the float64 ``value``, as a parameter word."""
    return int(np.float64(value).view(np.uint64))


def probability_words(p) -> tuple:
    """The words of ``bernoulli(p)``: ``(floor(p * 2**64), p == 1)``."""
    p = checks.real(p, "p")
    if not 0.0 <= p <= 1.0:  # also rejects NaN
        raise ValueError(f"p must be in [0, 1], got {p}")
    certain = p == 1.0
    return (0 if certain else int(math.ldexp(p, 64))), int(certain), 0


# -- value maps ------------------------------------------------------------------

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


def pair_normal32(even, odd, params, table):
    c, s = normal_pair(even, odd)
    scale, loc = as_float32(params[0]), as_float32(params[1])
    return fma32(c, scale, loc), fma32(s, scale, loc), True, True


def map_normal32_zig(lo, hi, params, table):
    z, accepted = normal32_fast_table(lo, table)
    return fma32(z, as_float32(params[0]), as_float32(params[1])), accepted


def map_exponential64_zig(lo, hi, params, table):
    e, accepted = exponential64_fast_table(lo, hi, table)
    return e * as_float(params[0]), accepted


def map_exponential32_zig(lo, hi, params, table):
    e, accepted = exponential32_fast_table(lo, table)
    return e * as_float32(params[0]), accepted


def map_exponential64(lo, hi, params, table):
    return exponential64_inv(lo, hi) * as_float(params[0]), True


def map_exponential32(lo, hi, params, table):
    return exponential32_inv(lo) * as_float32(params[0]), True


def map_choice(lo, hi, params, table):
    return alias_index(lo, hi, params[0], table), True


# -- retries ----------------------------------------------------------------------

def retry_integers32(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return params[0] + integers32_retry(generator, c0, c1, c2, c3, g, params[1], params[2])


def retry_integers64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return params[0] + integers64_retry(generator, c0, c1, c2, c3, g, params[1], params[2])


def never_retried32(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return np.float32(0.0)


def retry_normal32_zig(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    z = normal32_miss_table(generator, c0, c1, c2, c3, g, lo, table)
    return fma32(z, as_float32(params[0]), as_float32(params[1]))


def retry_exponential64_zig(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return exponential64_miss_table(generator, c0, c1, c2, c3, g, lo, hi, table) * as_float(
        params[0])


def retry_exponential32_zig(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return exponential32_miss_table(generator, c0, c1, c2, c3, g, lo, table) * as_float32(
        params[0])


# -- the registry -------------------------------------------------------------------

def _ziggurat(name, purpose, width, value_map, retry, table, tables, shared_words):
    """A ziggurat's kind: its misses are rare, so they are deferred."""
    return Kind(name, width, value_map, getattr(oracle, name), retry,
                getattr(oracle, f"{name}_miss"), purpose, table, tables.MISS_RATE,
                deferred=True, shared_words=shared_words)


_DISTRIBUTIONS = (
    Kind("bits32", 1, map_bits32, oracle.bits32, waves=16),
    Kind("bits64", 2, map_bits64, oracle.bits64, waves=16),
    Kind("bitsbool", 1, map_bitsbool, oracle.bitsbool),
    Kind("uniform32", 1, map_uniform32, oracle.uniform32),
    Kind("uniform64", 2, map_uniform64, oracle.uniform64),
    # Bounded integers (their retry loop) and choice (its table gathers) ran
    # faster on the H200 one group a thread.
    Kind("integers32", 1, map_integers32, oracle.integers32, retry_integers32,
         purpose="tandem.integers", persistent=False),
    Kind("integers64", 2, map_integers64, oracle.integers64, retry_integers64,
         purpose="tandem.integers", persistent=False),
    Kind("bernoulli", 2, map_bernoulli, oracle.bernoulli),
    Kind("normal32", 1, None, oracle.normal32, never_retried32, pair_map=pair_normal32),
    _ziggurat("normal32_zig", "tandem.normal32", 1, map_normal32_zig, retry_normal32_zig,
              NORMAL32_TABLE, ziggurat_normal32, FAST_WORDS32),
    Kind("exponential64", 2, map_exponential64, oracle.exponential64),
    Kind("exponential32", 1, map_exponential32, oracle.exponential32),
    _ziggurat("exponential64_zig", "tandem.exponential64", 2, map_exponential64_zig,
              retry_exponential64_zig, EXPONENTIAL64_TABLE, ziggurat_exponential64,
              FAST_WORDS64),
    _ziggurat("exponential32_zig", "tandem.exponential32", 1, map_exponential32_zig,
              retry_exponential32_zig, EXPONENTIAL32_TABLE, ziggurat_exponential32,
              FAST_WORDS32),
    Kind("choice", 2, map_choice, oracle.choice, persistent=False),
)

#: Every kind, by name: the fills' above, then the laws' (each defined with its
#: law).  The ``_zig`` kinds are ``method="zig"``.
KINDS = {kind.name: kind for kind in _DISTRIBUTIONS} | laws.kinds()


def functions():
    """Every map and retry of the registry (what a compiled backend registers)."""
    found = {as_float, as_float32, located, open_draw}
    for kind in KINDS.values():
        found.update(fn for fn in (kind.value_map, kind.retry, kind.pair_map)
                     if fn is not None)
    return sorted(found, key=lambda fn: fn.__name__)
