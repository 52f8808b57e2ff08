"""Every distribution of the stream contract, each defined once as a :class:`Kind`.

A kind names one rule of ``docs/spec.md``: how many words an element takes,
its parameters and their checks, the value map from a draw to an element,
what a rejected draw continues on, the oracle that the reference backend
runs, and the traits a compiled backend needs to launch it well.  From a
stream, a kind and its parameters, :func:`resolve` makes the one
backend-neutral :class:`FillRecord` that every backend takes.

The value maps are plain Python over :mod:`tandem.core`, with the signature
``(lo, hi, params, table) -> (value, accepted)`` (``hi`` is unused by
one-word kinds); ``params`` is a 3-tuple of uint64 words (floats travel as
their bits).  A retry ``(generator, c0..c3, g, lo, hi, params, table) ->
value`` gives a rejected element from lane ``g`` of its continuation key.
Each compiled backend registers the maps with Numba for its target.

This module imports only :mod:`tandem.core`, :mod:`tandem.checks` and
:mod:`tandem.oracle`, so the CUDA backend can load its own copy (see
:mod:`tandem._twin`).

To add a distribution: write its element function in ``tandem.core``, its
transcription in :mod:`tandem.oracle`, and one :class:`Kind` here.

Guaranteed across versions: each kind's rule, its purpose and its
parameters' words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from . import checks, oracle
from .core.addressing import join64
from .core.choice import alias_index
from .core.fmath import fma
from .core.beta import johnk_first, johnk_retry
from .core.binomial import (binomial_btrs_first, binomial_btrs_fixed_first, binomial_first,
                             binomial_retry, binomial_table_first)
from .core.gamma import gamma_first, gamma_large_first, gamma_retry, gamma_small_first
from .core.poisson import (poisson_first, poisson_inversion, poisson_ptrs_first,
                           poisson_ptrs_fixed_first, poisson_retry, poisson_steps_first,
                           poisson_table_first)
from .core.vonmises import vonmises_first, vonmises_rejection_first, vonmises_retry
from .core.inversion import (
    cauchy_standard,
    exp_wide64,
    geometric_count,
    pareto_standard,
    gumbel_standard,
    laplace_standard,
    logistic_standard,
    open_uniform64,
    power_standard,
    rayleigh_standard,
    triangular_standard,
    weibull_standard,
)
from .core.fmath32 import fma32
from .core.normal import FAST_TABLE, normal64_fast_table, normal64_miss_table, normal_pair
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
from .core import ziggurat_tables as _normal64_tables

U64 = np.uint64
_ZERO = U64(0)

#: Standard values of every normal and exponential map stay below this in
#: magnitude, so ``loc + scale * z`` cannot overflow within the bounds of
#: their parameters.
STANDARD_BOUND = 64.0


# -- parameters ---------------------------------------------------------------

@dataclass(frozen=True)
class Real:
    """A real parameter, checked in the output's precision.

    Attributes
    ----------
    name : str
        The argument's name, as the error messages give it.
    positive : bool
        Whether the value (after rounding to the output's dtype) must be > 0.
    nonnegative : bool
        Whether it must be >= 0.
    signed_zero : bool
        Whether a non-negative value must not be -0.0 either: NumPy's check of
        most parameters (its ``CONS_NON_NEGATIVE``, by the sign bit); False
        where NumPy compares (Poisson's ``lam``, binomial's ``n`` and ``p``),
        which takes -0.0 as 0.
    infinite_overflows : bool
        An infinite value raises ``OverflowError`` (NumPy's for ranges), not
        ``ValueError``.
    bound : float
        The largest magnitude, as a fraction of ``finfo(dtype).max``, that
        keeps every value of the fill finite.
    """

    name: str
    positive: bool = False
    bound: float = 0.5
    nonnegative: bool = False
    signed_zero: bool = True
    infinite_overflows: bool = False

    def check(self, value, dtype: np.dtype) -> float:
        """``value`` rounded to ``dtype`` (as a float), or a ``TypeError`` /
        ``ValueError`` naming the parameter."""
        value = checks.finite(value, self.name)
        with np.errstate(over="ignore", under="ignore"):
            rounded = float(dtype.type(value))
        limit = self.bound * float(np.finfo(dtype).max)
        if not abs(rounded) <= limit:
            raise ValueError(f"{self.name} must be at most {limit:.4g} in magnitude for "
                             f"{dtype} values, so that no value overflows; got {value}")
        if self.positive and not rounded > 0:
            raise ValueError(f"{self.name} must be positive in {dtype}, got {value}"
                             + (f" (it rounds to {rounded})" if rounded != value else ""))
        if self.nonnegative and (not rounded >= 0 or (
                self.signed_zero and math.copysign(1.0, rounded) < 0)):
            raise ValueError(f"{self.name} must be non-negative, got {value}")
        if value > 0 and rounded == 0:
            raise ValueError(f"{self.name} {value} rounds to 0 in {dtype}")
        return rounded if self.signed_zero else rounded + 0.0  # -0.0 as 0.0

    def check_array(self, values, dtype: np.dtype, xp=np):
        """The array ``values`` (NumPy or CuPy, as ``xp``) rounded to ``dtype``,
        after the checks of :meth:`check` on every element."""
        values = xp.asarray(values)
        if values.dtype.kind not in "fiu":
            raise TypeError(f"{self.name} must hold real numbers, got dtype {values.dtype}")
        values = values.astype(np.float64)
        if not bool(xp.isfinite(values).all()):
            error = OverflowError if self.infinite_overflows else ValueError
            raise error(f"{self.name} must be finite, got a non-finite element")
        with np.errstate(over="ignore", under="ignore"):
            rounded = values.astype(dtype)
        limit = self.bound * float(np.finfo(dtype).max)
        if not bool((abs(rounded) <= limit).all()):
            raise ValueError(f"{self.name} must be at most {limit:.4g} in magnitude for "
                             f"{dtype} values, so that no value overflows")
        if self.positive and not bool((rounded > 0).all()):
            raise ValueError(f"{self.name} must be positive in {dtype}, got an element "
                             f"{float(rounded.min())} after rounding")
        if self.nonnegative and not bool(((rounded >= 0) & ~(
                xp.signbit(rounded) & self.signed_zero)).all()):
            raise ValueError(f"{self.name} must be non-negative, got an element "
                             f"{float(rounded.min())}")
        if bool(((values > 0) & (rounded == 0)).any()):
            raise ValueError(f"{self.name}: a positive element rounds to 0 in {dtype}")
        return rounded if self.signed_zero else rounded + dtype.type(0.0)  # -0.0 as 0.0


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


# -- the kind record ------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Kind:
    """One distribution's rule, defined once.

    Attributes
    ----------
    name : str
        The kind's name, for example ``"normal32"``.
    width : int
        Words per element: 1 (a word), 2 (a 64-bit draw at an even position) or
        4 (a block, read as two 64-bit draws: its value map takes them as
        ``(lo, hi)``).
    value_map : callable or None
        ``(lo, hi, params, table) -> (value, accepted)`` over :mod:`tandem.core`
        (None for a kind that maps aligned word pairs: ``pair_map``).
    oracle : callable
        The same map transcribed from ``docs/spec.md`` in NumPy
        (:mod:`tandem.oracle`), on arrays of words (of pairs, for ``pair_map``).
    retry : callable or None
        The value of a rejected element (None when no draw is ever rejected).
    oracle_retry : callable or None
        The oracle of ``retry``; None means "redraw with ``oracle`` until accepted".
    purpose : str or None
        The purpose whose split lanes a rejected element continues on.
    table : numpy.ndarray or None
        The uint64 table the map reads (a fill may bring its own: choice).
    miss_rate : float
        The exact chance that a draw is rejected (0 for kinds that never reject;
        for bounded integers it depends on the span).
    deferred : bool
        Rare misses: a compiled fill marks them NaN and mends them after the
        fast path, so that no vector lane or warp waits on one.
    shared_words : int
        Words of ``table`` that a GPU fill copies to shared memory first.
    persistent : bool
        A GPU fill runs a grid that strides over the work (else one group
        per thread); measured per kind on the H200 (``docs/performance.md``).
    waves : int
        A persistent GPU fill launches this many times the resident blocks.
    pair_map : callable or None
        For a one-word kind whose elements come in aligned pairs (Box-Muller):
        ``(even, odd, params, table) -> (v0, v1, a0, a1)``.
    counts : bool
        The values are counts held in f64; a fill into int64 stores
        :func:`tandem.core.inversion.count64` of each.
    attempts : bool
        A block-an-element kind whose retry is the value map's attempts on
        blocks ``r = 0, 1, ...`` of lane ``g`` (the element's first word) of
        the continuation key, the first accepted giving the value: a GPU
        fill then takes one attempt a pass in each thread, with no mend.
    """

    name: str
    width: int
    value_map: Callable
    oracle: Callable
    retry: Optional[Callable] = None
    oracle_retry: Optional[Callable] = None
    purpose: Optional[str] = None
    table: Optional[np.ndarray] = field(default=None, repr=False)
    miss_rate: float = 0.0
    deferred: bool = False
    shared_words: int = 0
    persistent: bool = True
    waves: int = 1
    pair_map: Optional[Callable] = None
    counts: bool = False
    attempts: bool = False

    def __repr__(self):
        return f"Kind({self.name!r}, width={self.width})"


@dataclass(frozen=True)
class FillRecord:
    """Everything a backend needs to fill, and nothing more.

    Attributes
    ----------
    kind : str
        The name of a :data:`KINDS` entry.
    generator : int
        ``Stream.generator``: 0 Philox4x32-10, 1 Threefry4x32-20.
    key : tuple of int
        Four key words (Philox's last two are zero).
    lane : int
        The stream's lane.
    start : int
        The word of element 0's draw (a multiple of the kind's width).
    params : tuple of int
        Three parameter words below ``2**64``.
    retry_key : tuple of int
        Four key words of the continuation lanes (zeros when nothing is rejected).
    table : numpy.ndarray or None
        The uint64 table the map reads.
    """

    kind: str
    generator: int
    key: tuple
    lane: int
    start: int
    params: tuple = (0, 0, 0)
    retry_key: tuple = (0, 0, 0, 0)
    table: Optional[np.ndarray] = field(default=None, compare=False, repr=False)

    @property
    def width(self) -> int:
        """Words per element."""
        return KINDS[self.kind].width

    def at(self, start: int) -> "FillRecord":
        """The same fill with element 0 at word ``start``."""
        return FillRecord(self.kind, self.generator, self.key, self.lane, start, self.params,
                          self.retry_key, self.table)


def resolve(stream, kind: Kind, params=(0, 0, 0), table=None) -> FillRecord:
    """The :class:`FillRecord` of ``kind`` with parameter words ``params`` that
    starts at ``stream``'s position, rounded up to the kind's width.

    ``stream`` is a :class:`tandem.Stream` (read through its attributes and
    ``continuation``, so this module does not import it).
    """
    retry_key = (0, 0, 0, 0)
    if kind.purpose is not None:
        retry_key = stream.continuation(kind.purpose).kernel_key
    start = -(-stream.word_position // kind.width) * kind.width
    return FillRecord(kind.name, stream.generator, stream.kernel_key, stream.lane, start,
                      tuple(int(p) for p in params), retry_key,
                      kind.table if table is None else table)


# -- value maps ------------------------------------------------------------------

def as_float(bits):
    """The float64 whose bits are ``bits``."""
    return np.uint64(bits).view(np.float64)


def as_float32(bits):
    """The float64 whose bits are ``bits``, rounded to float32."""
    return np.float32(as_float(bits))


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
    z, accepted = normal64_fast_table(lo, hi, table)
    return fma(z, as_float(params[0]), as_float(params[1])), accepted


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


def located(x, params):
    """``fma(x, scale, loc)`` with ``(scale, loc)`` the first two parameter words."""
    return fma(x, as_float(params[0]), as_float(params[1]))


def open_draw(lo, hi):
    """The open uniform of the 64-bit draw ``(lo, hi)``."""
    return open_uniform64(join64(lo, hi))


def map_uniform_range64(lo, hi, params, table):
    return located(uniform64(lo, hi, _ZERO), params), True


def map_laplace64(lo, hi, params, table):
    return located(laplace_standard(open_draw(lo, hi)), params), True


def map_logistic64(lo, hi, params, table):
    return located(logistic_standard(open_draw(lo, hi)), params), True


def map_gumbel64(lo, hi, params, table):
    return located(gumbel_standard(open_draw(lo, hi)), params), True


def map_cauchy64(lo, hi, params, table):
    return cauchy_standard(open_draw(lo, hi)), True


def map_rayleigh64(lo, hi, params, table):
    return rayleigh_standard(open_draw(lo, hi)) * as_float(params[0]), True


def map_weibull64(lo, hi, params, table):
    return weibull_standard(open_draw(lo, hi), as_float(params[0])), True


def map_power64(lo, hi, params, table):
    return power_standard(open_draw(lo, hi), as_float(params[0])), True


def map_triangular64(lo, hi, params, table):
    return triangular_standard(open_draw(lo, hi), as_float(params[0]), as_float(params[1]),
                               as_float(params[2])), True


def map_pareto64(lo, hi, params, table):
    return pareto_standard(open_draw(lo, hi), as_float(params[0])), True


def map_geometric64(lo, hi, params, table):
    return geometric_count(open_draw(lo, hi), as_float(params[0])), True


def map_lognormal64(lo, hi, params, table):
    z, accepted = normal64_fast_table(lo, hi, table)
    return exp_wide64(located(z, params)), accepted


def map_gamma64(lo, hi, params, table):
    return gamma_first(lo, hi, as_float(params[0]), as_float(params[1]), as_float(params[2]),
                       table)


def map_gamma_large64(lo, hi, params, table):
    return gamma_large_first(lo, hi, as_float(params[0]), as_float(params[1]),
                             as_float(params[2]), table)


def map_gamma_small64(lo, hi, params, table):
    return gamma_small_first(lo, hi, as_float(params[0]), as_float(params[1]),
                             as_float(params[2]), table)


def map_poisson64(lo, hi, params, table):
    return poisson_first(lo, hi, as_float(params[0]))


def map_poisson_ptrs64(lo, hi, params, table):
    return poisson_ptrs_first(lo, hi, as_float(params[0]))


def map_poisson_ptrs_fixed64(lo, hi, params, table):
    return poisson_ptrs_fixed_first(lo, hi, table)


def map_poisson_steps64(lo, hi, params, table):
    return poisson_steps_first(lo, as_float(params[0]))


def map_poisson_table64(lo, hi, params, table):
    return poisson_table_first(lo, table)


def map_beta_johnk64(lo, hi, params, table):
    return johnk_first(lo, hi, as_float(params[0]), as_float(params[1]))


def map_vonmises64(lo, hi, params, table):
    return vonmises_first(lo, hi, as_float(params[0]), as_float(params[1]), as_float(params[2]))


def map_vonmises_rejection64(lo, hi, params, table):
    return vonmises_rejection_first(lo, hi, as_float(params[0]), as_float(params[1]),
                                    as_float(params[2]))


def map_binomial64(lo, hi, params, table):
    return binomial_first(lo, hi, as_float(params[0]), as_float(params[1]))


def map_binomial_btrs64(lo, hi, params, table):
    return binomial_btrs_first(lo, hi, as_float(params[0]), as_float(params[1]))


def map_binomial_btrs_fixed64(lo, hi, params, table):
    return binomial_btrs_fixed_first(lo, hi, as_float(params[0]), as_float(params[1]), table)


def map_binomial_table64(lo, hi, params, table):
    return binomial_table_first(lo, as_float(params[0]), as_float(params[1]), table)


# -- retries ----------------------------------------------------------------------

def retry_integers32(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return params[0] + integers32_retry(generator, c0, c1, c2, c3, g, params[1], params[2])


def retry_integers64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return params[0] + integers64_retry(generator, c0, c1, c2, c3, g, params[1], params[2])


def retry_normal64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    z = normal64_miss_table(generator, c0, c1, c2, c3, g, lo, hi, table)
    return fma(z, as_float(params[0]), as_float(params[1]))


def retry_lognormal64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    z = normal64_miss_table(generator, c0, c1, c2, c3, g, lo, hi, table)
    return exp_wide64(located(z, params))


def retry_gamma64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return gamma_retry(generator, c0, c1, c2, c3, g, lo, hi, as_float(params[0]),
                       as_float(params[1]), as_float(params[2]), table)


def retry_poisson64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return poisson_retry(generator, c0, c1, c2, c3, g, as_float(params[0]))


def retry_poisson_steps64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return poisson_inversion(open_uniform64(lo), as_float(params[0]))


def retry_binomial64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return binomial_retry(generator, c0, c1, c2, c3, g, as_float(params[0]), as_float(params[1]))


def retry_beta_johnk64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return johnk_retry(generator, c0, c1, c2, c3, g, lo, hi, as_float(params[0]),
                       as_float(params[1]))


def retry_vonmises64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return vonmises_retry(generator, c0, c1, c2, c3, g, as_float(params[0]), as_float(params[1]),
                          as_float(params[2]))


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


#: Every kind, by name.  The ``_zig`` kinds are ``method="zig"``.
KINDS = {kind.name: kind for kind in (
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
    _ziggurat("normal64", "tandem.normal64", 2, map_normal64, retry_normal64, FAST_TABLE,
              _normal64_tables, 2 * _normal64_tables.LAYERS),
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
    # By inversion of one open uniform (tandem.core.inversion), f64.
    Kind("uniform_range64", 2, map_uniform_range64, oracle.uniform_range64),
    Kind("laplace64", 2, map_laplace64, oracle.laplace64),
    Kind("logistic64", 2, map_logistic64, oracle.logistic64),
    Kind("gumbel64", 2, map_gumbel64, oracle.gumbel64),
    Kind("cauchy64", 2, map_cauchy64, oracle.cauchy64),
    Kind("rayleigh64", 2, map_rayleigh64, oracle.rayleigh64),
    Kind("weibull64", 2, map_weibull64, oracle.weibull64),
    Kind("power64", 2, map_power64, oracle.power64),
    Kind("triangular64", 2, map_triangular64, oracle.triangular64),
    Kind("pareto64", 2, map_pareto64, oracle.pareto64),
    Kind("geometric64", 2, map_geometric64, oracle.geometric64, counts=True),
    # exp of the f64 normal, misses and all: lognormal(m, s) is exp of normal(m, s).
    Kind("lognormal64", 2, map_lognormal64, oracle.lognormal64, retry_lognormal64,
         oracle.lognormal64_miss, "tandem.normal64", FAST_TABLE, _normal64_tables.MISS_RATE,
         deferred=True, shared_words=2 * _normal64_tables.LAYERS),
    # A block an element (tandem.core.gamma); misses are the normal's and the
    # rejections, from 1 % to about 25 % of elements by the shape.  The law's
    # rule in one kind, branches and all: the fills take the kinds of one
    # regime below (parametric.Law.faster and .regimes), held to this one.
    Kind("gamma64", 4, map_gamma64, oracle.gamma64, retry_gamma64, oracle.gamma64_miss,
         "tandem.gamma64", FAST_TABLE, 0.1, deferred=True,
         shared_words=2 * _normal64_tables.LAYERS),
    # gamma64's values, branch-free so that the CPU's loop vectorises: shapes
    # from 1 on, and below.
    Kind("gamma_large64", 4, map_gamma_large64, oracle.gamma64, retry_gamma64,
         oracle.gamma64_miss, "tandem.gamma64", FAST_TABLE, 0.1, deferred=True,
         shared_words=2 * _normal64_tables.LAYERS),
    Kind("gamma_small64", 4, map_gamma_small64, oracle.gamma64, retry_gamma64,
         oracle.gamma64_miss, "tandem.gamma64", FAST_TABLE, 0.3, deferred=True),
    # Counts as f64 (tandem.core.poisson); PTRS rejects about 10 % from mean 10 on.
    # The law's rule in one kind, as gamma64.
    Kind("poisson64", 4, map_poisson64, oracle.poisson64, retry_poisson64,
         oracle.poisson64_miss, "tandem.poisson", miss_rate=0.15, deferred=True, counts=True,
         attempts=True),
    # poisson64's values, branch-free so that the CPU's loop vectorises: PTRS
    # from 10 on; for a scalar mean, with PTRS's constants as the fill's table
    # (tandem.core.poisson.ptrs_table), and below 10 a table of the
    # inversion's sums (tandem.core.poisson.inversion_table).
    Kind("poisson_ptrs64", 4, map_poisson_ptrs64, oracle.poisson64, retry_poisson64,
         oracle.poisson64_miss, "tandem.poisson", miss_rate=0.15, deferred=True, counts=True,
         attempts=True),
    Kind("poisson_ptrs_fixed64", 4, map_poisson_ptrs_fixed64, oracle.poisson64, retry_poisson64,
         oracle.poisson64_miss, "tandem.poisson", miss_rate=0.15, deferred=True, counts=True,
         attempts=True),
    Kind("poisson_table64", 4, map_poisson_table64, oracle.poisson64, counts=True),
    # poisson64's values for means below 10 that differ by element: the
    # inversion's first SEARCH_STEPS counts by selects, the rest by its loop.
    Kind("poisson_steps64", 4, map_poisson_steps64, oracle.poisson64, retry_poisson_steps64,
         oracle.poisson64_miss, "tandem.poisson", miss_rate=0.03, deferred=True, counts=True),
    Kind("binomial64", 4, map_binomial64, oracle.binomial64, retry_binomial64,
         oracle.binomial64_miss, "tandem.binomial", miss_rate=0.15, deferred=True, counts=True,
         attempts=True),
    # binomial64's values, branch-free: BTRS where n p (p at most 1/2) is 10 or
    # more; for scalar parameters, with BTRS's constants as the fill's table
    # (tandem.core.binomial.btrs_table), and a table of the inversion's sums below.
    Kind("binomial_btrs64", 4, map_binomial_btrs64, oracle.binomial64, retry_binomial64,
         oracle.binomial64_miss, "tandem.binomial", miss_rate=0.15, deferred=True, counts=True,
         attempts=True),
    Kind("binomial_btrs_fixed64", 4, map_binomial_btrs_fixed64, oracle.binomial64,
         retry_binomial64, oracle.binomial64_miss, "tandem.binomial", miss_rate=0.15,
         deferred=True, counts=True, attempts=True),
    Kind("binomial_table64", 4, map_binomial_table64, oracle.binomial64, counts=True),
    # Jöhnk's beta, for both shapes at most 1 (tandem.core.beta).
    Kind("beta_johnk64", 4, map_beta_johnk64, oracle.beta_johnk64, retry_beta_johnk64,
         oracle.beta_johnk64_miss, "tandem.beta", miss_rate=0.5, deferred=True),
    Kind("vonmises64", 4, map_vonmises64, oracle.vonmises64, retry_vonmises64,
         oracle.vonmises64_miss, "tandem.vonmises", miss_rate=0.35, deferred=True),
    # vonmises64's values, branch-free: Best and Fisher's case, kappa in [1e-8, 1e6].
    Kind("vonmises_rejection64", 4, map_vonmises_rejection64, oracle.vonmises64,
         retry_vonmises64, oracle.vonmises64_miss, "tandem.vonmises", miss_rate=0.35,
         deferred=True),
)}


def functions():
    """Every map and retry of the registry (what a compiled backend registers)."""
    found = {as_float, as_float32, located, open_draw}
    for kind in KINDS.values():
        found.update(fn for fn in (kind.value_map, kind.retry, kind.pair_map)
                     if fn is not None)
    return sorted(found, key=lambda fn: fn.__name__)
