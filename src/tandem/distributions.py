"""Fills and addressed draws: checks, the rule of each distribution, dispatch.

Each public function checks its arguments, states the distribution as a
:class:`FillSpec` (which value map, how many words per element, its integer
parameters, and the key its rejections continue on), and hands it to a
backend.  ``docs/spec.md`` states each rule to the bit.
"""

from __future__ import annotations

import importlib
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from . import arrays, checks
from .alias import AliasTable
from .core.normal import FAST_TABLE
from .stream import POSITION_LIMIT, Stream, _derive_split, register_fills

#: Purposes of the continuation streams of rejected draws.
PURPOSE_INTEGERS = "tandem.integers"
PURPOSE_NORMAL64 = "tandem.normal64"

_WIDTH = {"bits32": 1, "bits64": 2, "bitsbool": 1, "uniform32": 1, "uniform64": 2,
          "integers32": 1, "integers64": 2, "bernoulli": 2, "normal32": 1, "normal64": 2,
          "exponential32": 1, "exponential64": 2, "choice": 2}
_BACKENDS = ("cpu", "cuda", "reference")
_INTERVALS = {"[0,1)": 0, "(0,1]": 1}
_INTEGER_DTYPES = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                                              np.uint8, np.uint16, np.uint32, np.uint64))


@dataclass(frozen=True)
class FillSpec:
    """One distribution with its parameters, as a backend needs it.

    Attributes
    ----------
    kind : str
        The value map (a key of the backends' tables).
    params : tuple of int
        Three integer parameters below ``2**64``.
    retry_key : tuple of int
        Four key words of the continuation streams (zeros when the map never
        rejects).
    table : numpy.ndarray or None
        A uint64 lookup table: the packed alias table of ``choice``, the
        ziggurat's tables of ``normal64``.
    """

    kind: str
    params: tuple = (0, 0, 0)
    retry_key: tuple = (0, 0, 0, 0)
    table: np.ndarray | None = field(default=None, compare=False)

    @property
    def width(self):
        """Words per element: 1 or 2 (a 64-bit draw at an even position)."""
        return _WIDTH[self.kind]


def _backend(name):
    if name not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {name!r}")
    return importlib.import_module(f".backends.{name}", __package__)


def _check_stream(stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")


def _check_threads(threads):
    if threads is None:
        return
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")


def _start(stream, width):
    """The position of element 0: the stream's position, rounded up to ``width``."""
    return -(-stream.position // width) * width


def _retry_key(stream, purpose):
    key = _derive_split(stream.generator, stream.sub(purpose).key, 0)
    return key + (0,) * (4 - len(key))


def _run(stream, spec, size, out, dtype, threads, device, backend):
    """Fill ``size`` or ``out`` with ``spec`` from ``stream``: (values, next stream).

    ``backend`` None means the device's own (``cpu`` or ``cuda``).
    """
    _check_stream(stream)
    _check_threads(threads)
    start = _start(stream, spec.width)

    def check_lane(n):
        end = start + spec.width * n
        if end > POSITION_LIMIT:
            raise ValueError(f"size: the fill needs words up to {end}, past the end of the "
                             "lane (2**64 words)")

    target = arrays.output(size, out, dtype, device, check_count=check_lane)
    end = start + spec.width * target.flat.size
    if target.flat.size:
        _backend(backend or target.device).fill(spec, stream.at(start), target.flat, threads)
    return target.result(), stream.at(end)


def _run_at(stream, spec, index, dtype, threads, device, backend):
    """Elements ``index`` of the fill of ``spec`` that starts at ``stream``."""
    _check_stream(stream)
    _check_threads(threads)
    flat, shape, device = arrays.index_array(index, device)
    start = _start(stream, spec.width)
    if flat.size and start + spec.width * (int(flat.max()) + 1) > POSITION_LIMIT:
        raise ValueError("index reaches past the end of the lane (2**64 words)")
    target = arrays.output(flat.size, None, dtype, device)
    if flat.size:
        _backend(backend or device).addressed(spec, stream.at(start), arrays.flat(flat),
                                              target.flat, threads)
    return target.array.reshape(shape)


# -- bits ------------------------------------------------------------------

_BITS = {np.dtype(np.uint32): "bits32", np.dtype(np.uint64): "bits64",
         np.dtype(np.bool_): "bitsbool"}


def _bits_spec(dtype):
    dtype = checks.dtype(dtype)
    if dtype not in _BITS:
        raise TypeError(f"dtype must be uint32, uint64 or bool, got {dtype}")
    return FillSpec(_BITS[dtype]), dtype


def bits(stream, size=None, *, dtype=np.uint32, out=None, threads=None, device=None,
         backend=None):
    """Raw bits; see :meth:`tandem.Stream.bits`."""
    spec, dtype = _bits_spec(dtype)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def bits_at(stream, index, *, dtype=np.uint32, threads=None, device=None,
            backend=None):
    """Elements ``index`` of ``stream.bits(...)``, each computed alone."""
    spec, dtype = _bits_spec(dtype)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


# -- uniform reals -----------------------------------------------------------

def _real_dtype(dtype):
    dtype = checks.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    return dtype


def _random_spec(dtype, interval):
    dtype = _real_dtype(dtype)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be '[0,1)' or '(0,1]', got {interval!r}")
    kind = "uniform32" if dtype == np.float32 else "uniform64"
    return FillSpec(kind, (_INTERVALS[interval], 0, 0)), dtype


def random(stream, size=None, *, dtype=np.float64, interval="[0,1)", out=None, threads=None,
           device=None, backend=None):
    """Uniform reals; see :meth:`tandem.Stream.random`."""
    spec, dtype = _random_spec(dtype, interval)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def random_at(stream, index, *, dtype=np.float64, interval="[0,1)", threads=None,
              device=None, backend=None):
    """Elements ``index`` of ``stream.random(...)``, each computed alone."""
    spec, dtype = _random_spec(dtype, interval)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


# -- bounded integers ----------------------------------------------------------

def _integers_spec(stream, low, high, dtype, endpoint):
    dtype = checks.dtype(dtype)
    if dtype not in _INTEGER_DTYPES:
        raise TypeError(f"dtype must be a signed or unsigned integer type, got {dtype}")
    if high is None:
        low, high = 0, low
    low, high = checks.integer(low, "low"), checks.integer(high, "high")
    if endpoint:
        high += 1
    if low >= high:
        raise ValueError(f"low must be below high, got low={low}, high={high}"
                         + (" (endpoint=True)" if endpoint else ""))
    info = np.iinfo(dtype)
    if low < info.min or high - 1 > info.max:
        raise ValueError(f"low and high must give a range within dtype {dtype}, got "
                         f"[{low!r:.40}, {high!r:.40})")
    span = high - low
    wide = span > 2**32
    modulus = 2**64 if wide else 2**32
    params = (low % 2**64, span % 2**64, modulus % span)
    kind = "integers64" if wide else "integers32"
    return FillSpec(kind, params, _retry_key(stream, PURPOSE_INTEGERS)), dtype


def integers(stream, low, high=None, size=None, *, dtype=np.int64, endpoint=False, out=None,
             threads=None, device=None, backend=None):
    """Unbiased integers; see :meth:`tandem.Stream.integers`."""
    _check_stream(stream)
    spec, dtype = _integers_spec(stream, low, high, dtype, endpoint)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def integers_at(stream, index, low, high=None, *, dtype=np.int64, endpoint=False, threads=None,
                device=None, backend=None):
    """Elements ``index`` of ``stream.integers(low, high, ...)``, each computed alone."""
    _check_stream(stream)
    spec, dtype = _integers_spec(stream, low, high, dtype, endpoint)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


# -- Bernoulli -----------------------------------------------------------------

def _bernoulli_spec(p):
    p = checks.real(p, "p")
    if not 0.0 <= p <= 1.0:  # also rejects NaN
        raise ValueError(f"p must be in [0, 1], got {p}")
    certain = p == 1.0
    threshold = 0 if certain else int(math.ldexp(p, 64))
    return FillSpec("bernoulli", (threshold, int(certain), 0))


def bernoulli(stream, p, size=None, *, out=None, threads=None, device=None, backend=None):
    """Bernoulli(p) bools; see :meth:`tandem.Stream.bernoulli`."""
    return _run(stream, _bernoulli_spec(p), size, out, np.bool_, threads, device, backend)


def bernoulli_at(stream, index, p, *, threads=None, device=None, backend=None):
    """Elements ``index`` of ``stream.bernoulli(p, ...)``, each computed alone."""
    return _run_at(stream, _bernoulli_spec(p), index, np.bool_, threads, device, backend)


# -- normal and exponential ------------------------------------------------------

def _float_bits(value):
    return int(np.float64(value).view(np.uint64))


#: Standard values of every normal and exponential map stay below this in
#: magnitude, so ``loc + scale * z`` cannot overflow within the bounds below.
_STANDARD_BOUND = 64.0


def _in_dtype(value, name, dtype, bound):
    """``value`` rounded to ``dtype`` (as a float), refused unless finite and
    at most ``bound * finfo(dtype).max`` in magnitude after the rounding."""
    value = checks.finite(value, name)
    with np.errstate(over="ignore", under="ignore"):
        rounded = float(dtype.type(value))
    limit = bound * float(np.finfo(dtype).max)
    if not abs(rounded) <= limit:
        raise ValueError(f"{name} must be at most {limit:.4g} in magnitude for {dtype} "
                         f"values, so that no value overflows; got {value}")
    return rounded


def _scale(scale, dtype):
    value = _in_dtype(scale, "scale", dtype, 1 / (2 * _STANDARD_BOUND))
    if not value > 0:
        raise ValueError(f"scale must be positive in {dtype}, got {scale}"
                         + (f" (it rounds to {value})" if value != scale else ""))
    return value


def _normal_spec(stream, loc, scale, dtype):
    dtype = _real_dtype(dtype)
    params = (_float_bits(_scale(scale, dtype)), _float_bits(_in_dtype(loc, "loc", dtype, 0.5)),
              0)
    if dtype == np.float32:
        return FillSpec("normal32", params), dtype
    return FillSpec("normal64", params, _retry_key(stream, PURPOSE_NORMAL64),
                    table=FAST_TABLE), dtype


def normal(stream, size=None, *, loc=0.0, scale=1.0, dtype=np.float64, out=None, threads=None,
           device=None, backend=None):
    """Normal variates; see :meth:`tandem.Stream.normal`."""
    _check_stream(stream)
    spec, dtype = _normal_spec(stream, loc, scale, dtype)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def normal_at(stream, index, *, loc=0.0, scale=1.0, dtype=np.float64, threads=None,
              device=None, backend=None):
    """Elements ``index`` of ``stream.normal(...)``, each computed alone."""
    _check_stream(stream)
    spec, dtype = _normal_spec(stream, loc, scale, dtype)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


def _exponential_spec(scale, dtype):
    dtype = _real_dtype(dtype)
    kind = "exponential32" if dtype == np.float32 else "exponential64"
    return FillSpec(kind, (_float_bits(_scale(scale, dtype)), 0, 0)), dtype


def exponential(stream, size=None, *, scale=1.0, dtype=np.float64, out=None, threads=None,
                device=None, backend=None):
    """Exponential variates; see :meth:`tandem.Stream.exponential`."""
    spec, dtype = _exponential_spec(scale, dtype)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def exponential_at(stream, index, *, scale=1.0, dtype=np.float64, threads=None,
                   device=None, backend=None):
    """Elements ``index`` of ``stream.exponential(...)``, each computed alone."""
    spec, dtype = _exponential_spec(scale, dtype)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


# -- weighted choice -----------------------------------------------------------------

def _choice_spec(table):
    if not isinstance(table, AliasTable):
        raise TypeError(f"table must be a tandem.AliasTable, got {type(table).__name__}")
    return FillSpec("choice", (table.n, 0, 0), table=table.table), table.index_dtype


def choice(stream, table, size=None, *, out=None, threads=None, device=None, backend=None):
    """Indices drawn from an alias table; see :meth:`tandem.Stream.choice`."""
    spec, dtype = _choice_spec(table)
    return _run(stream, spec, size, out, dtype, threads, device, backend)


def choice_at(stream, index, table, *, threads=None, device=None, backend=None):
    """Elements ``index`` of ``stream.choice(table, ...)``, each computed alone."""
    spec, dtype = _choice_spec(table)
    return _run_at(stream, spec, index, dtype, threads, device, backend)


register_fills(bits=bits, random=random, integers=integers, bernoulli=bernoulli, normal=normal,
               exponential=exponential, choice=choice)
