"""The laws whose parameters broadcast as NumPy's do, each one :class:`Law` record.

A law owns everything that makes it: its NumPy name and docs, its
parameters (their checks and defaults), how checked parameters become its
kinds' three parameter words, and its kinds themselves (:class:`tandem.rules.Kind`),
the law's rule first and then the kinds with the same values that run
faster for some parameters (its strategy: :attr:`Law.faster` for scalar
parameters, :attr:`Law.regimes` for arrays).  :mod:`tandem.kinds` registers
the kinds; :mod:`tandem.parametric` fills them.  :data:`TWO_PARTS` holds
the laws made of two others' elements, one :class:`TwoPartLaw` each.
``tandem.Generator``'s and ``tandem.Stream``'s methods, the ``tandem.<law>_at``
functions (:mod:`tandem.law_methods`), ``tandem.dask``'s functions and
``tandem compile`` are made from both.

To add a law: its element function in :mod:`tandem.core`, its transcription
in :mod:`tandem.oracle` (the independent check), and one :class:`Law` here
(a law of two parts: its value in :mod:`tandem.core.two_parts`, its parts in
``tandem.parametric._PARTS`` and one :class:`TwoPartLaw`).

This module imports only :mod:`tandem.core`, :mod:`tandem.oracle` and
:mod:`tandem.rules`, so the CUDA backend can load its own copy (see
:mod:`tandem._twin`).

Guaranteed across versions: each law's kinds, their rules and parameter words.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Callable, Optional

import numpy as np

from . import oracle
from .core import binomial, poisson, vonmises
from .core import ziggurat_tables as _normal64_tables
from .core.beta import johnk_first, johnk_retry
from .core.binomial import (binomial_btrs_first, binomial_btrs_fixed_first, binomial_first,
                             binomial_retry, binomial_table_first)
from .core.gamma import gamma_first, gamma_large_first, gamma_retry, gamma_small_first
from .core.inversion import (
    cauchy_standard,
    exp_wide64,
    geometric_count,
    gumbel_standard,
    laplace_standard,
    logistic_standard,
    open_uniform64,
    pareto_standard,
    power_standard,
    rayleigh_standard,
    triangular_standard,
    weibull_standard,
)
from .core.normal import FAST_TABLE, normal64_fast_table, normal64_miss_table
from .core.poisson import (poisson_first, poisson_inversion, poisson_ptrs_first,
                           poisson_ptrs_fixed_first, poisson_retry, poisson_steps_first,
                           poisson_table_first)
from .core.uniform import uniform64
from .core.vonmises import vonmises_first, vonmises_rejection_first, vonmises_retry
from .rules import Kind, Real, as_float, located, open_draw

_ZERO = np.uint64(0)


# -- the law record ---------------------------------------------------------------

@dataclass(frozen=True)
class Law:
    """A distribution whose parameters broadcast, defined once.

    Attributes
    ----------
    name : str
        Its ``numpy.random.Generator`` method.
    doc : str
        What its values are, the first line of the method's docstring.
    parameters : tuple of Real
        The parameters, in NumPy's order, each checked as float64, with
        NumPy's defaults.
    words : callable
        ``(*checked float64 arrays) -> three float64 arrays``, whose bits are
        the kinds' parameter words (they broadcast together).
    kinds : tuple of Kind
        The law's rule, then the kinds with its values that :attr:`faster`
        and :attr:`regimes` choose.
    check : callable or None
        ``(*checked arrays) -> None``: the checks that involve several
        parameters; raises ``ValueError``.
    faster : callable or None
        ``(three scalar parameter words as floats) -> (kind name, table) or
        None``: a kind of :attr:`kinds` whose fill runs faster for those
        parameters (a branch-free first attempt that the CPU vectorises), and
        the table its fill brings (None: the kind's own).
    regimes : callable or None
        ``(three float64 arrays of parameter words) -> ((kind name, mask), ...)``:
        for array parameters, the kinds of :attr:`kinds` that take each
        element's own words and run faster, and the elements each takes (the
        masks cover every element once).
    examples : tuple of tuple
        Parameters that take each kind :attr:`faster` chooses (for ``tandem
        compile`` and the docs' examples); empty: ones.
    """

    name: str
    doc: str
    parameters: tuple
    words: Callable
    kinds: tuple
    check: Optional[Callable] = None
    faster: Optional[Callable] = None
    regimes: Optional[Callable] = None
    examples: tuple = ()

    @property
    def kind(self) -> str:
        """The name of the law's rule, its first kind."""
        return self.kinds[0].name

    @property
    def counts(self) -> bool:
        """The values are counts, which the law returns as int64."""
        return self.kinds[0].counts

    @property
    def parameter_sets(self) -> tuple:
        """:attr:`examples`, or one set of ones."""
        return self.examples or ((1.0,) * len(self.parameters),)


# -- the value maps of the laws' kinds ------------------------------------------------

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


def map_normal64(lo, hi, params, table):
    z, accepted = normal64_fast_table(lo, hi, table)
    return located(z, params), accepted


# -- retries ----------------------------------------------------------------------

def retry_normal64(generator, c0, c1, c2, c3, g, lo, hi, params, table):
    return located(normal64_miss_table(generator, c0, c1, c2, c3, g, lo, hi, table), params)


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


# -- the laws' kinds -----------------------------------------------------------------

def _inverted(name, value_map, **traits):
    """A kind by inversion of one open uniform (:mod:`tandem.core.inversion`), f64."""
    return Kind(name, 2, value_map, getattr(oracle, name), **traits)


_NORMAL64_SHARED = 2 * _normal64_tables.LAYERS

# The f64 ziggurat (tandem.core.normal): its misses are rare, so they are deferred.
_NORMAL64 = Kind("normal64", 2, map_normal64, oracle.normal64, retry_normal64,
                 oracle.normal64_miss, "tandem.normal64", FAST_TABLE, _normal64_tables.MISS_RATE,
                 deferred=True, shared_words=_NORMAL64_SHARED)

# A block an element (tandem.core.gamma); misses are the normal's and the
# rejections, from 1 % to about 25 % of elements by the shape.  gamma64 is the
# law's rule in one kind, branches and all; gamma_large64 and gamma_small64
# have its values, branch-free so that the CPU's loop vectorises: shapes from
# 1 on, and below.
_GAMMA = tuple(Kind(name, 4, value_map, oracle.gamma64, retry_gamma64, oracle.gamma64_miss,
                    "tandem.gamma64", FAST_TABLE, miss_rate, deferred=True,
                    shared_words=shared)
               for name, value_map, miss_rate, shared in (
                   ("gamma64", map_gamma64, 0.1, _NORMAL64_SHARED),
                   ("gamma_large64", map_gamma_large64, 0.1, _NORMAL64_SHARED),
                   ("gamma_small64", map_gamma_small64, 0.3, 0)))


def _counting(name, value_map, oracle_name, retry, purpose, miss_rate=0.15, attempts=True):
    """A kind of counts as f64 whose misses (rejections) continue on ``purpose``."""
    return Kind(name, 4, value_map, getattr(oracle, oracle_name), retry,
                getattr(oracle, f"{oracle_name}_miss"), purpose, miss_rate=miss_rate,
                deferred=True, counts=True, attempts=attempts)


# Counts as f64 (tandem.core.poisson); PTRS rejects about 10 % from mean 10 on.
# poisson64 is the law's rule in one kind; the others have its values,
# branch-free so that the CPU's loop vectorises: PTRS from 10 on (for a scalar
# mean with PTRS's constants as the fill's table, tandem.core.poisson.ptrs_table),
# below 10 a table of the inversion's sums (tandem.core.poisson.inversion_table),
# and for means below 10 that differ by element the inversion's first
# SEARCH_STEPS counts by selects, the rest by its loop.
_POISSON = (
    _counting("poisson64", map_poisson64, "poisson64", retry_poisson64, "tandem.poisson"),
    _counting("poisson_ptrs64", map_poisson_ptrs64, "poisson64", retry_poisson64,
              "tandem.poisson"),
    _counting("poisson_ptrs_fixed64", map_poisson_ptrs_fixed64, "poisson64", retry_poisson64,
              "tandem.poisson"),
    Kind("poisson_table64", 4, map_poisson_table64, oracle.poisson64, counts=True),
    _counting("poisson_steps64", map_poisson_steps64, "poisson64", retry_poisson_steps64,
              "tandem.poisson", miss_rate=0.03, attempts=False),
)

# binomial64's values, branch-free: BTRS where n p (p at most 1/2) is 10 or
# more; for scalar parameters, with BTRS's constants as the fill's table
# (tandem.core.binomial.btrs_table), and a table of the inversion's sums below.
_BINOMIAL = (
    _counting("binomial64", map_binomial64, "binomial64", retry_binomial64, "tandem.binomial"),
    _counting("binomial_btrs64", map_binomial_btrs64, "binomial64", retry_binomial64,
              "tandem.binomial"),
    _counting("binomial_btrs_fixed64", map_binomial_btrs_fixed64, "binomial64",
              retry_binomial64, "tandem.binomial"),
    Kind("binomial_table64", 4, map_binomial_table64, oracle.binomial64, counts=True),
)

# vonmises64's values, branch-free: Best and Fisher's case, kappa in [1e-8, 1e6].
_VONMISES = tuple(Kind(name, 4, value_map, oracle.vonmises64, retry_vonmises64,
                       oracle.vonmises64_miss, "tandem.vonmises", miss_rate=0.35, deferred=True)
                  for name, value_map in (("vonmises64", map_vonmises64),
                                          ("vonmises_rejection64", map_vonmises_rejection64)))


# -- parameter words, checks and strategies ---------------------------------------------

def _located(loc, scale):
    return scale, loc, 0.0


def _shape_only(a):
    return a, 0.0, 0.0


def _finite_span(low, high):
    with np.errstate(over="ignore", invalid="ignore"):
        span = high - low
    # NumPy's check of the span: -0.0 (uniform(0, -0.0)) is negative too.
    if (high < low).any() or ((span == 0) & np.signbit(span)).any():
        raise ValueError("high must be at least low (high - low < 0)")
    if not np.isfinite(span).all():
        raise OverflowError("high - low overflows: the range exceeds the float64 range")


def _triangle(left, mode, right):
    if (left > mode).any():
        raise ValueError("left must be at most mode")
    if (mode > right).any():
        raise ValueError("mode must be at most right")
    if (left == right).any():
        raise ValueError("left must be below right")


def check_probability(p):
    """A ``ValueError`` unless every element of the checked ``p`` is at most 1."""
    if (p > 1.0).any():
        raise ValueError("p must be at most 1")


def _trials(n, p):
    check_probability(p)


def _vonmises_words(mu, kappa):
    """``(mu, kappa, s)``, ``s`` the envelope's parameter as NumPy computes it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 1.0 + np.sqrt(1.0 + 4.0 * kappa * kappa)
        rho = (r - np.sqrt(2.0 * r)) / (2.0 * kappa)
        s = np.where(kappa < 1e-5, np.where(kappa > 0, 1.0 / kappa + kappa, 0.0),
                     (1.0 + rho * rho) / (2.0 * rho))
    return mu, kappa, s


def _gamma_words(shape, scale):
    """``tandem.core.gamma``'s words, ``(d, c, d * scale)`` for ``shape >= 1`` and
    ``(shape, -1/shape, scale)`` below, by IEEE operations alone."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = shape - 1.0 / 3.0
        large = shape >= 1.0
        return (np.where(large, d, shape), np.where(large, 1.0 / np.sqrt(9.0 * d), -(1.0 / shape)),
                np.where(large, d * scale, scale))


def _vonmises_rejection(kappa):
    """Where :func:`tandem.core.vonmises.vonmises_first` takes Best and Fisher's case."""
    return (kappa >= vonmises.UNIFORM_BELOW) & (kappa <= vonmises.NORMAL_ABOVE)


def _vonmises_faster(mu, kappa, s):
    return ("vonmises_rejection64", None) if _vonmises_rejection(kappa) else None


def _vonmises_regimes(mu, kappa, s):
    rejection = _vonmises_rejection(kappa)
    return ("vonmises_rejection64", rejection), ("vonmises64", ~rejection)


def _gamma_faster(p, c, m):
    return ("gamma_large64" if c > 0.0 else "gamma_small64"), None


def _gamma_regimes(p, c, m):
    large = c > 0.0
    return ("gamma_large64", large), ("gamma_small64", ~large)


def _poisson_regimes(lam, *_):
    ptrs = lam >= poisson.INVERSION_BELOW
    return ("poisson_ptrs64", ptrs), ("poisson_steps64", ~ptrs)


def _binomial_regimes(n, p, _):
    btrs = n * np.minimum(p, 1.0 - p) >= binomial.INVERSION_BELOW
    return ("binomial_btrs64", btrs), ("binomial64", ~btrs)


# Cached, so that repeated fills bring the same table, which a GPU then copies once.
@functools.lru_cache(maxsize=256)
def _poisson_faster(lam, *_):
    if lam >= poisson.INVERSION_BELOW:
        return "poisson_ptrs_fixed64", poisson.ptrs_table(lam)
    return "poisson_table64", poisson.inversion_table(lam)


@functools.lru_cache(maxsize=256)
def _binomial_faster(n, p, _):
    if n * min(p, 1.0 - p) >= binomial.INVERSION_BELOW:
        return "binomial_btrs_fixed64", binomial.btrs_table(n, p)
    return "binomial_table64", binomial.inversion_table(n, p)


# -- the laws ------------------------------------------------------------------------

_F64_MAX = float(np.finfo(np.float64).max)
#: The largest Poisson mean and binomial trials: counts below 2**53 are
#: exact in f64, and a mean this large keeps them there but for a chance
#: below 1e-300.
LAM_MAX = 2.0**52


def _loc(default=None):
    return Real("loc", default=default)


def _scale(bound=1 / 128, default=None):
    return Real("scale", nonnegative=True, bound=bound, default=default)


def _location_scale(name, doc):
    """A law of location and scale over a standard value by inversion."""
    value_map = globals()[f"map_{name}64"]
    return Law(name, doc, (_loc(0.0), _scale(default=1.0)), _located,
               (_inverted(f"{name}64", value_map),))


_GAMMA_STRATEGY = dict(faster=_gamma_faster, regimes=_gamma_regimes)

#: Every law, by the name of its ``numpy.random.Generator`` method.
LAWS = {law.name: law for law in (
    Law("uniform", "Floats in ``[low, high)``: ``low + (high - low) u`` with one rounding, "
        "``u`` from ``random``",
        (Real("low", bound=1.0, infinite_overflows=True, default=0.0),
         Real("high", bound=1.0, infinite_overflows=True, default=1.0)),
        lambda low, high: (high - low, low, 0.0),
        (_inverted("uniform_range64", map_uniform_range64),), _finite_span,
        examples=((0.0, 1.0),)),
    _location_scale("laplace", "Laplace variates"),
    _location_scale("logistic", "Logistic variates"),
    _location_scale("gumbel", "Gumbel variates"),
    Law("standard_cauchy", "Standard Cauchy variates", (), lambda: (0.0, 0.0, 0.0),
        (_inverted("cauchy64", map_cauchy64),)),
    Law("rayleigh", "Rayleigh variates", (_scale(1.0 / 128, 1.0),), _shape_only,
        (_inverted("rayleigh64", map_rayleigh64),)),
    Law("weibull", "Weibull variates of shape ``a``", (Real("a", nonnegative=True, bound=1.0),),
        _shape_only, (_inverted("weibull64", map_weibull64),)),
    Law("power", "Power-law variates on ``[0, 1]``", (Real("a", positive=True, bound=1.0),),
        _shape_only, (_inverted("power64", map_power64),)),
    Law("triangular", "Triangular variates", (Real("left"), Real("mode"), Real("right")),
        lambda left, mode, right: (left, mode, right),
        (_inverted("triangular64", map_triangular64),), _triangle,
        examples=((0.0, 0.5, 1.0),)),
    # exp of the f64 normal, misses and all: lognormal(m, s) is exp of normal(m, s).
    Law("lognormal", "Log-normal variates: ``exp`` of ``normal(mean, sigma)``'s values, "
        "element for element", (Real("mean", default=0.0),
                                Real("sigma", nonnegative=True, bound=1 / 128, default=1.0)),
        lambda mean, sigma: (sigma, mean, 0.0),
        (replace(_NORMAL64, name="lognormal64", value_map=map_lognormal64,
                 oracle=oracle.lognormal64, retry=retry_lognormal64,
                 oracle_retry=oracle.lognormal64_miss),)),
    Law("standard_gamma", "Gamma variates of scale 1 (``tandem.core.gamma``)",
        (Real("shape", nonnegative=True, bound=1.0),), lambda shape: _gamma_words(shape, 1.0),
        _GAMMA, examples=((0.5,), (1.0,)), **_GAMMA_STRATEGY),
    Law("gamma", "Gamma variates: the value is the standard rule's with ``scale`` folded "
        "into its last product", (Real("shape", nonnegative=True, bound=1.0),
                                  Real("scale", nonnegative=True, bound=1.0, default=1.0)),
        _gamma_words, _GAMMA, examples=((0.5, 1.0), (1.0, 1.0)), **_GAMMA_STRATEGY),
    Law("chisquare", "Chi-square variates: ``gamma(df / 2, 2)``",
        (Real("df", positive=True, bound=1.0),), lambda df: _gamma_words(df * 0.5, 2.0),
        _GAMMA, examples=((1.0,), (3.0,)), **_GAMMA_STRATEGY),
    Law("poisson", "Poisson counts (int64, ``tandem.core.poisson``); ``lam`` at most "
        "``2**52``", (Real("lam", nonnegative=True, signed_zero=False,
                           bound=LAM_MAX / _F64_MAX, default=1.0),),
        _shape_only, _POISSON, faster=_poisson_faster, regimes=_poisson_regimes,
        examples=((1.0,), (30.0,))),
    Law("binomial", "Binomial counts (int64, ``tandem.core.binomial``); ``n`` below "
        "``2**52``", (Real("n", nonnegative=True, signed_zero=False, bound=LAM_MAX / _F64_MAX),
                      Real("p", nonnegative=True, signed_zero=False, bound=1.0)),
        lambda n, p: (np.trunc(n), p, 0.0), _BINOMIAL, _trials, faster=_binomial_faster,
        regimes=_binomial_regimes, examples=((10, 0.5), (100, 0.5))),
    Law("vonmises", "Von Mises variates on ``[-pi, pi]`` (``tandem.core.vonmises``)",
        (Real("mu", bound=1e-300), Real("kappa", nonnegative=True, bound=1e-10)),
        _vonmises_words, _VONMISES, faster=_vonmises_faster, regimes=_vonmises_regimes,
        examples=((0.0, 1.0), (0.0, 0.0))),
    Law("pareto", "Pareto II (Lomax) variates", (Real("a", positive=True, bound=1.0),),
        _shape_only, (_inverted("pareto64", map_pareto64),)),
    Law("normal", "Normal variates, by the f64 ziggurat (``tandem.core.normal``)",
        (_loc(0.0), _scale(default=1.0)), _located, (_NORMAL64,)),
    Law("geometric", "Trials up to the first success (int64)",
        (Real("p", positive=True, bound=1.0),), _shape_only,
        (_inverted("geometric64", map_geometric64, counts=True),), check_probability),
)}

#: Laws that other laws are made of, drawn only through them.
PARTS = {law.name: law for law in (
    # Jöhnk's beta, for both shapes at most 1 (tandem.core.beta).
    Law("beta_johnk", "Beta variates by Jöhnk's rule, for both shapes at most 1",
        (Real("a", positive=True, bound=1.0), Real("b", positive=True, bound=1.0)),
        lambda a, b: (a, b, 0.0),
        (Kind("beta_johnk64", 4, map_beta_johnk64, oracle.beta_johnk64, retry_beta_johnk64,
              oracle.beta_johnk64_miss, "tandem.beta", miss_rate=0.5, deferred=True),)),
)}


@dataclass(frozen=True)
class TwoPartLaw:
    """A law whose element is made of the elements of two others, 8 words an
    element: the first part at word ``8 i``, the second at ``8 i + 4``, each
    computed alone (:mod:`tandem.parametric` composes them).

    Attributes
    ----------
    name, doc, parameters, examples
        As :class:`Law`'s: its ``numpy.random.Generator`` method, what its
        values are, its parameters in NumPy's order (checked as float64) and
        example parameters (one set for each rule it chooses).
    counts : bool
        Whether its values are int64 counts.
    check : callable or None
        As :attr:`Law.check`.
    """

    name: str
    doc: str
    parameters: tuple
    examples: tuple
    counts: bool = False
    check: Optional[Callable] = None

    @property
    def parameter_sets(self) -> tuple:
        """The example parameters."""
        return self.examples


def _positive(name, bound=1.0):
    return Real(name, positive=True, bound=bound)


def _mixed_means(n, p):
    """negative_binomial's checks: ``p`` at most 1, and the gamma means it
    mixes, ``n (1 - p) / p``, at most ``2**50``, so that the Poisson means stay
    below ``2**52``."""
    check_probability(p)
    if not (n * np.divide(1.0 - p, p) <= LAM_MAX / 4).all():  # also for NaN
        raise ValueError("the mean n (1 - p) / p must be at most 2**50, as the Poisson "
                         "means it mixes stay below 2**52")


#: The laws of two parts, by name.
TWO_PARTS = {law.name: law for law in (
    TwoPartLaw("standard_t", "Student's t variates: ``z / sqrt(c / df)``, ``z`` normal and "
               "``c`` chisquare(df)", (_positive("df"),), ((3.0,),)),
    TwoPartLaw("f", "Fisher's F variates: ``(a / dfnum) / (b / dfden)``, ``a`` and ``b`` "
               "chisquare", (_positive("dfnum"), _positive("dfden")), ((2.0, 5.0),)),
    TwoPartLaw("negative_binomial", "Negative binomial counts (int64): the Poisson count of "
               "a gamma(n, (1 - p) / p) mean", (_positive("n"), _positive("p")),
               ((1.0, 0.5), (0.5, 0.5)), counts=True, check=_mixed_means),
    TwoPartLaw("wald", "Wald (inverse Gaussian) variates by Michael, Schucany and Haas's "
               "transformation", (_positive("mean", 1e-10), _positive("scale", 1e-10)),
               ((1.0, 2.0),)),
    TwoPartLaw("beta", "Beta variates: Jöhnk's rule where both shapes are at most 1, else "
               "``x / (x + y)`` of two standard gammas", (_positive("a"), _positive("b")),
               ((2.0, 3.0), (0.5, 0.5))),
)}


def law(name: str) -> Optional[Law]:
    """The law ``name`` of :data:`LAWS` or :data:`PARTS` (None if neither has it)."""
    return LAWS.get(name) or PARTS.get(name)


def kinds() -> dict:
    """Every law's kinds, by name (each once: laws may share them)."""
    found = {}
    for each in (*LAWS.values(), *PARTS.values()):
        for kind in each.kinds:
            assert found.setdefault(kind.name, kind) is kind, kind.name
    return found
