"""Fills of the f64 distributions whose parameters broadcast as NumPy's do.

Each :class:`Law` names its kind (:mod:`tandem.kinds`), its parameters in
NumPy's argument order with their checks, declared once, and how the
checked parameters become the kind's three parameter words.  Scalar
parameters take the kind's fill kernels; array parameters take the kernels
that read each element's own words, which give the same values, bit for
bit, for the same parameters.

``docs/spec.md`` states each rule to the bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

import numbers

from . import arrays
from .distributions import (
    _backend,
    _check_stream,
    _check_threads,
    _run,
    _run_at,
    _spec,
    integer_dtype,
)
from .kinds import KINDS, Real, resolve
from .stream import POSITION_LIMIT

_F64 = np.dtype(np.float64)


@dataclass(frozen=True)
class Law:
    """A distribution's parameters and how they become its kind's words.

    Attributes
    ----------
    kind : str
        The name of a :data:`tandem.kinds.KINDS` entry.
    parameters : tuple of Real
        The parameters, in NumPy's order, each checked as float64.
    words : callable
        ``(*checked float64 arrays) -> three float64 arrays``, whose bits are
        the kind's parameter words (they broadcast together).
    check : callable or None
        ``(*checked arrays) -> None``: the checks that involve several
        parameters; raises ``ValueError``.
    counts : bool
        The kind's f64 values are counts, which the law returns as int64.
    """

    kind: str
    parameters: tuple
    words: Callable
    check: Optional[Callable] = None
    counts: bool = False


def _located(loc, scale):
    return scale, loc, 0.0


def _shape_only(a):
    return a, 0.0, 0.0


def _finite_span(low, high):
    if (high < low).any():
        raise ValueError("high must be at least low")
    with np.errstate(over="ignore", invalid="ignore"):
        span = high - low
    if not np.isfinite(span).all():
        raise OverflowError("high - low overflows: the range exceeds the float64 range")


def _triangle(left, mode, right):
    if (left > mode).any():
        raise ValueError("left must be at most mode")
    if (mode > right).any():
        raise ValueError("mode must be at most right")
    if (left == right).any():
        raise ValueError("left must be below right")


def _gamma_words(shape, scale):
    """``tandem.core.gamma``'s words, ``(d, c, d * scale)`` for ``shape >= 1`` and
    ``(shape, -1/shape, scale)`` below, by IEEE operations alone."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = shape - 1.0 / 3.0
        large = shape >= 1.0
        return (np.where(large, d, shape), np.where(large, 1.0 / np.sqrt(9.0 * d), -(1.0 / shape)),
                np.where(large, d * scale, scale))


_F64_MAX = float(np.finfo(np.float64).max)
# Counts below 2**53 are exact in f64; a mean this large keeps them there
# but for a chance below 1e-300.
_LAM_MAX = 2.0**52
_LOC, _SCALE = Real("loc"), Real("scale", nonnegative=True, bound=1 / 128)
_SHAPE = Real("shape", nonnegative=True, bound=1.0)

#: Every law, by the name of its ``numpy.random.Generator`` method.
LAWS = {
    "uniform": Law("uniform_range64", (Real("low", bound=1.0, infinite_overflows=True),
                                       Real("high", bound=1.0, infinite_overflows=True)),
                   lambda low, high: (high - low, low, 0.0), _finite_span),
    "laplace": Law("laplace64", (_LOC, _SCALE), _located),
    "logistic": Law("logistic64", (_LOC, _SCALE), _located),
    "gumbel": Law("gumbel64", (_LOC, _SCALE), _located),
    "standard_cauchy": Law("cauchy64", (), lambda: (0.0, 0.0, 0.0)),
    "rayleigh": Law("rayleigh64", (_SCALE,), _shape_only),
    "weibull": Law("weibull64", (Real("a", nonnegative=True, bound=1.0),), _shape_only),
    "power": Law("power64", (Real("a", positive=True, bound=1.0),), _shape_only),
    "triangular": Law("triangular64", (Real("left"), Real("mode"), Real("right")),
                      lambda left, mode, right: (left, mode, right), _triangle),
    "lognormal": Law("lognormal64", (Real("mean"), Real("sigma", nonnegative=True,
                                                        bound=1 / 128)),
                     lambda mean, sigma: (sigma, mean, 0.0)),
    "standard_gamma": Law("gamma64", (_SHAPE,), lambda shape: _gamma_words(shape, 1.0)),
    "gamma": Law("gamma64", (_SHAPE, Real("scale", nonnegative=True, bound=1.0)),
                 _gamma_words),
    "chisquare": Law("gamma64", (Real("df", positive=True, bound=1.0),),
                     lambda df: _gamma_words(df * 0.5, 2.0)),
    "poisson": Law("poisson64", (Real("lam", nonnegative=True, bound=_LAM_MAX / _F64_MAX),),
                   _shape_only, counts=True),
}


def _checked(law, values):
    if len(values) != len(law.parameters):
        raise TypeError(f"{len(law.parameters)} parameters expected, got {len(values)}")
    checked = []
    for parameter, value in zip(law.parameters, values):
        arrays.refuse_masked(value, parameter.name)
        if type(value) is not np.ndarray and isinstance(value, np.ndarray) and not value.ndim:
            float(value)  # a 0-d subclass's own conversion, whose errors NumPy propagates
        if arrays.device_of(value) == "cuda":
            raise NotImplementedError(f"{parameter.name}: parameters on the GPU are not "
                                      "supported yet; pass host values")
        checked.append(parameter.check_array(value, _F64))
    if law.check is not None:
        law.check(*checked)
    return checked


def _prepare(name, params):
    """``(kind, parameter words, the parameters' names)``: the words as uint64
    arrays that broadcast together."""
    if name not in LAWS:
        raise ValueError(f"no law named {name!r:.60}; the laws are {sorted(LAWS)}")
    law = LAWS[name]
    words = np.broadcast_arrays(*law.words(*_checked(law, params)))
    names = " and ".join(p.name for p in law.parameters)
    return (KINDS[law.kind], [np.array(w, dtype=np.float64).view(np.uint64) for w in words],
            names)


def _fits(params_shape, shape, what, names):
    try:
        fits = np.broadcast_shapes(params_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{names} (shape {params_shape}) do not broadcast to the shape of "
                         f"{what}, {shape}")


def _each(words, shape):
    """Each element's three parameter words, as the rows of an ``(n, 3)`` array."""
    each = np.empty((int(np.prod(shape)), 3), dtype=np.uint64)
    for j, w in enumerate(words):
        each[:, j] = np.broadcast_to(w, shape).reshape(-1)
    return each


def _host_only(device):
    if device not in (None, "cpu"):
        raise NotImplementedError("array parameters on the GPU are not supported yet")


def fill(stream, name: str, *params, size=None, out=None, threads=None, device=None,
         backend=None):
    """Draw from the law ``name`` with parameters ``params``: ``(values, next stream)``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    name : str
        A key of :data:`LAWS`, for example ``"laplace"``.
    *params : float or array_like
        The law's parameters, in NumPy's order; arrays broadcast as NumPy's.
    size : int or tuple of int, optional
        The output's shape; the parameters must broadcast to it.  None: the
        parameters' broadcast shape (one value for scalars).
    out, threads, device, backend
        As for :func:`tandem.distributions.normal`.

    Returns
    -------
    (numpy.ndarray, tandem.Stream)
        Float64 values (int64 counts for ``poisson``), and the stream after
        them.  Element ``i`` takes the draw of ``w`` words (the kind's width,
        2 or 4) at word ``w i`` from the stream's position (rounded up to a
        multiple of ``w``), whatever the parameters' shapes: a fill cut
        anywhere equals the whole, and equal parameters give equal values,
        arrays or not.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> x, after = parametric.fill(tandem.Philox(1), "laplace", 0.0, [1.0, 2.0])
    >>> x.shape, after.position
    ((2,), 4)
    """
    kind, words, names = _prepare(name, params)
    counts = LAWS[name].counts
    into = out
    if counts and out is not None:  # the f64 counts first, then into ``out``
        if getattr(out, "dtype", None) != np.int64:
            raise TypeError(f"out must be an int64 array for {name}, got "
                            f"{getattr(out, 'dtype', type(out).__name__)}")
        size, out, device = out.shape, None, arrays.device_of(out)
    if not words[0].shape:
        spec = _spec(kind.name, tuple(int(w) for w in words), _F64)
        values, after = _run(stream, spec, size, out, threads, device, backend)
    else:
        _host_only(device)
        values, after = _fill_each(stream, kind, words, names, size, out, _F64, threads,
                                   backend)
    return (_as_counts(values, into) if counts else values), after


def _as_counts(values, into=None):
    """The f64 counts ``values`` as int64, in ``into`` when given."""
    if into is not None:
        into[...] = values
        return into
    return np.int64(values) if np.ndim(values) == 0 else values.astype(np.int64)


def _fill_each(stream, kind, words, names, size, out, dtype, threads, backend):
    """The fill of ``kind`` whose elements take their parameter words from the
    broadcast ``words`` (of the parameters ``names``): ``(values, next stream)``."""
    _check_stream(stream)
    _check_threads(threads)
    shape = words[0].shape
    target_shape = out.shape if out is not None else arrays.shape_of(size)
    target_shape = shape if target_shape is None else tuple(target_shape)
    _fits(shape, target_shape, "out" if out is not None else "size", names)
    record = resolve(stream, kind)

    def check_lane(n):
        if record.start + kind.width * n > POSITION_LIMIT:
            raise ValueError("size: the fill needs words past the end of the lane (2**64)")

    target = arrays.output(None if out is not None else target_shape, out, dtype, "cpu",
                           check_count=check_lane)
    n = target.flat.size
    if n:
        _backend(backend or "cpu").addressed_each(
            record, np.arange(n, dtype=np.uint64), _each(words, target_shape), target.flat,
            threads)
    return target.result(), stream.at(record.start + kind.width * n)


def _integer_bounds(value, name):
    """``value`` as an object array of Python ints (exact for any 64-bit bound)."""
    arrays.refuse_masked(value, name)
    # Lists as objects: NumPy would make floats of bounds past int64.
    values = value if isinstance(value, np.ndarray) else np.array(value, dtype=object)
    if values.dtype.kind not in "iu" and not (values.dtype == object and all(
            isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
            for v in values.flat)):
        raise TypeError(f"{name} must hold integers, got dtype {values.dtype}")
    return values.astype(object)


def integers(stream, low, high=None, size=None, *, dtype=np.int64, endpoint=False, out=None,
             threads=None, backend=None):
    """Integers in ``[low, high)`` with array bounds that broadcast: ``(values, next stream)``.

    Each element is the rule of :func:`tandem.distributions.integers` with its
    own bounds; the draw width (32 or 64 bits) is the widest any element
    needs, so bounds that are all equal give the values of those bounds as
    scalars.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> k, _ = parametric.integers(tandem.Philox(1), [0, 10], [5, 20])
    >>> bool(0 <= k[0] < 5 and 10 <= k[1] < 20)
    True
    """
    dtype = integer_dtype(dtype)
    if high is None:
        low, high = 0, low
    low, high = _integer_bounds(low, "low"), _integer_bounds(high, "high")
    if endpoint:
        high = high + 1
    low, high = np.broadcast_arrays(low, high)
    if (low >= high).any():
        raise ValueError("low must be below high" + (" (endpoint=True)" if endpoint else ""))
    info = np.iinfo(dtype)
    if (low < info.min).any() or (high - 1 > info.max).any():
        raise ValueError(f"low and high must give ranges within dtype {dtype}")
    span = high - low
    wide = bool((span > 2**32).any()) if span.size else False
    modulus = 2**64 if wide else 2**32
    words = [np.array([int(v) % 2**64 for v in w.flat], dtype=np.uint64).reshape(w.shape)
             for w in (low, span, modulus % span)]
    kind = KINDS["integers64" if wide else "integers32"]
    return _fill_each(stream, kind, words, "low and high", size, out, dtype, threads, backend)


def at(stream, name: str, index, *params, threads=None, device=None, backend=None):
    """Elements ``index`` of ``fill(stream, name, *params, ...)``, each computed alone.

    Array parameters broadcast to the shape of ``index``, element ``j`` of the
    result taking the parameters at ``j``.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> from tandem import parametric
    >>> s = tandem.Philox(1)
    >>> bool(parametric.at(s, "gumbel", [5], 0.0, 1.0)[0]
    ...      == parametric.fill(s, "gumbel", 0.0, 1.0, size=6)[0][5])
    True
    """
    kind, words, names = _prepare(name, params)
    if not words[0].shape:
        spec = _spec(kind.name, tuple(int(w) for w in words), _F64)
        values = _run_at(stream, spec, index, threads, device, backend)
        return _as_counts(values) if LAWS[name].counts else values
    _check_stream(stream)
    _check_threads(threads)
    _host_only(device)
    flat, shape, _ = arrays.index_array(index, "cpu")
    _fits(words[0].shape, shape, "index", names)
    record = resolve(stream, kind)
    if flat.size and record.start + kind.width * (int(flat.max()) + 1) > POSITION_LIMIT:
        raise ValueError("index reaches past the end of the lane (2**64 words)")
    values = np.empty(flat.size, dtype=_F64)
    if flat.size:
        _backend(backend or "cpu").addressed_each(record, flat, _each(words, shape), values,
                                                  threads)
    values = values.reshape(shape)
    return _as_counts(values) if LAWS[name].counts else values
