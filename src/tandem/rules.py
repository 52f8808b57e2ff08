"""The records that define every distribution: a parameter (:class:`Real`),
a rule (:class:`Kind`) and a fill resolved at a stream (:class:`FillRecord`).

:mod:`tandem.laws` defines the laws whose parameters broadcast, each with its
kinds, and :mod:`tandem.kinds` the rest and the registry of them all; both
write their value maps over :mod:`tandem.core` with the helpers here.  This
module imports only :mod:`tandem.core` and :mod:`tandem.checks`, so the CUDA
backend can load its own copy (see :mod:`tandem._twin`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from . import checks
from .core.addressing import join64
from .core.fmath import fma
from .core.inversion import open_uniform64

#: Standard values of every normal and exponential map stay below this in
#: magnitude, so ``loc + scale * z`` cannot overflow within the bounds of
#: their parameters.
STANDARD_BOUND = 64.0


# -- parameters ---------------------------------------------------------------

_F64 = np.dtype(np.float64)


def _largest(dtype) -> float:
    """The largest finite value of the float ``dtype`` (``numpy.finfo``'s ``max``)."""
    return _LARGEST.get(dtype) or _LARGEST.setdefault(dtype, float(np.finfo(dtype).max))


_LARGEST = {}


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
    default : float or None
        The value NumPy's method takes when the argument is left out (None:
        the argument is required).
    """

    name: str
    positive: bool = False
    bound: float = 0.5
    nonnegative: bool = False
    signed_zero: bool = True
    infinite_overflows: bool = False
    default: Optional[float] = None

    def check(self, value, dtype: np.dtype) -> float:
        """``value`` rounded to ``dtype`` (as a float), or a ``TypeError`` /
        ``ValueError`` naming the parameter."""
        if type(value) is float and dtype == _F64 and math.isfinite(value):
            rounded = value  # a Python float is an f64 already: the common call, at once
        else:
            value = checks.finite(value, self.name)
            with np.errstate(over="ignore", under="ignore"):
                rounded = float(dtype.type(value))
        limit = self.bound * _largest(dtype)
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
        values = checks.real_array(values, self.name, xp)
        if not bool(xp.isfinite(values).all()):
            error = OverflowError if self.infinite_overflows else ValueError
            raise error(f"{self.name} must be finite, got a non-finite element")
        with np.errstate(over="ignore", under="ignore"):
            rounded = values.astype(dtype)
        limit = self.bound * _largest(dtype)
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
        The name of a :data:`tandem.kinds.KINDS` entry.
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
    width : int
        Words per element (the kind's).
    """

    kind: str
    generator: int
    key: tuple
    lane: int
    start: int
    params: tuple = (0, 0, 0)
    retry_key: tuple = (0, 0, 0, 0)
    table: Optional[np.ndarray] = field(default=None, compare=False, repr=False)
    width: int = 1

    def at(self, start: int) -> "FillRecord":
        """The same fill with element 0 at word ``start``."""
        return FillRecord(self.kind, self.generator, self.key, self.lane, start, self.params,
                          self.retry_key, self.table, self.width)


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
                      kind.table if table is None else table, kind.width)


# -- what the value maps share ----------------------------------------------

def as_float(bits):
    """The float64 whose bits are ``bits``."""
    return np.uint64(bits).view(np.float64)


def as_float32(bits):
    """The float64 whose bits are ``bits``, rounded to float32."""
    return np.float32(as_float(bits))


def located(x, params):
    """``fma(x, scale, loc)`` with ``(scale, loc)`` the first two parameter words."""
    return fma(x, as_float(params[0]), as_float(params[1]))


def open_draw(lo, hi):
    """The open uniform of the 64-bit draw ``(lo, hi)``."""
    return open_uniform64(join64(lo, hi))
