"""Fills and addressed draws: each public function checks its arguments,
picks its kind (:mod:`tandem.kinds`) and hands it to :mod:`tandem.engine`.

``docs/spec.md`` states each rule to the bit.
"""

from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from ._types import ArrayLike, Backend, DTypeLike, Device
from . import arrays, checks, engine, law_methods
from .backends import affine
from .alias import AliasTable
from .kinds import LOC, SCALE, float_word, probability_words
from .stream import Stream, register_fills

_INTERVALS = {"[0,1)": 0, "(0,1]": 1}
_EXPONENTIAL_METHODS = ("inv", "zig")
_NORMAL_METHODS = (None, "zig", "bm")
_INTEGER_DTYPES = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                                              np.uint8, np.uint16, np.uint32, np.uint64))


# -- bits ------------------------------------------------------------------

_BITS = {np.dtype(np.uint32): "bits32", np.dtype(np.uint64): "bits64",
         np.dtype(np.bool_): "bitsbool"}


def _bits(dtype):
    dtype = checks.dtype(dtype)
    if dtype not in _BITS:
        raise TypeError(f"dtype must be uint32, uint64 or bool, got {dtype}")
    return engine.spec(_BITS[dtype], dtype=dtype)


def bits(stream, size=None, *, dtype=np.uint32, out=None, threads=None, device=None,
         backend=None):
    """Raw bits; see :meth:`tandem.Stream.bits`."""
    return engine.run(stream, _bits(dtype), size, out, threads, device, backend)


def bits_at(stream: Stream, index: ArrayLike, *, dtype: DTypeLike = np.uint32,
            threads: Optional[int] = None, device: Device = None, backend: Backend = None):
    return engine.run_at(stream, _bits(dtype), index, threads, device, backend)


# -- uniform reals -----------------------------------------------------------

def real_dtype(dtype):
    """``dtype`` as float32 or float64, or a TypeError."""
    dtype = checks.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    return dtype


def _of_dtype(name, dtype):
    """The kind ``name`` + ``32`` or ``64`` for f32 or f64 values."""
    return name + ("32" if dtype == np.float32 else "64")


def random_spec(dtype, interval) -> engine.Spec:
    """The :class:`tandem.engine.Spec` of ``random(dtype=dtype, interval=interval)``."""
    dtype = real_dtype(dtype)
    if interval not in _INTERVALS:
        raise ValueError(f"interval must be '[0,1)' or '(0,1]', got {interval!r}")
    return engine.spec(_of_dtype("uniform", dtype), (_INTERVALS[interval], 0, 0), dtype)


def random(stream, size=None, *, dtype=np.float64, interval="[0,1)", out=None, threads=None,
           device=None, backend=None):
    """Uniform reals; see :meth:`tandem.Stream.random`."""
    return engine.run(stream, random_spec(dtype, interval), size, out, threads, device, backend)


def random_at(stream: Stream, index: ArrayLike, *, dtype: DTypeLike = np.float64,
              interval: str = "[0,1)", threads: Optional[int] = None, device: Device = None,
              backend: Backend = None):
    return engine.run_at(stream, random_spec(dtype, interval), index, threads, device, backend)


# -- bounded integers ----------------------------------------------------------

def integer_dtype(dtype):
    """``dtype`` as an integer dtype of native byte order, or the error NumPy gives."""
    dtype = checks.dtype(dtype)
    if dtype.kind in "iu" and not dtype.isnative:
        raise ValueError(f"dtype must have the native byte order, got {dtype}")
    if dtype not in _INTEGER_DTYPES:
        raise TypeError(f"dtype must be a signed or unsigned integer type, got {dtype}")
    return dtype


def _integers(low, high, dtype, endpoint):
    dtype = integer_dtype(dtype)
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
    return engine.spec("integers64" if wide else "integers32", params, dtype)


def integers(stream, low, high=None, size=None, *, dtype=np.int64, endpoint=False, out=None,
             threads=None, device=None, backend=None):
    """Unbiased integers; see :meth:`tandem.Stream.integers`."""
    return engine.run(stream, _integers(low, high, dtype, endpoint), size, out, threads, device,
                backend)


def integers_at(stream: Stream, index: ArrayLike, low: ArrayLike, high: Optional[ArrayLike] = None,
                *, dtype: DTypeLike = np.int64, endpoint: bool = False,
                threads: Optional[int] = None, device: Device = None, backend: Backend = None):
    return engine.run_at(stream, _integers(low, high, dtype, endpoint), index, threads, device,
                   backend)


# -- Bernoulli -----------------------------------------------------------------

def _bernoulli(p):
    return engine.spec("bernoulli", probability_words(p), np.bool_)


def bernoulli(stream, p, size=None, *, out=None, threads=None, device=None, backend=None):
    """Bernoulli(p) bools; see :meth:`tandem.Stream.bernoulli`."""
    return engine.run(stream, _bernoulli(p), size, out, threads, device, backend)


def bernoulli_at(stream: Stream, index: ArrayLike, p: ArrayLike, *, threads: Optional[int] = None,
                 device: Device = None, backend: Backend = None):
    return engine.run_at(stream, _bernoulli(p), index, threads, device, backend)


# -- normal and exponential ------------------------------------------------------

def normal_spec(loc, scale, dtype, method) -> engine.Spec:
    """The :class:`tandem.engine.Spec` of ``normal(loc, scale, dtype=dtype, method=method)``."""
    dtype = real_dtype(dtype)
    if method not in _NORMAL_METHODS:
        raise ValueError(f"method must be None, 'zig' or 'bm', got {method!r:.60}")
    if method == "bm" and dtype == np.float64:
        raise ValueError("method='bm' (Box-Muller) is the f32 normal's; the f64 normal is "
                         "a ziggurat (method=None or 'zig')")
    name = _of_dtype("normal", dtype) + ("_zig" if method == "zig" and dtype == np.float32
                                         else "")
    params = (float_word(SCALE.check(scale, dtype)), float_word(LOC.check(loc, dtype)), 0)
    return engine.spec(name, params, dtype)


def _exponential(scale, dtype, method):
    dtype = real_dtype(dtype)
    if method not in _EXPONENTIAL_METHODS:
        raise ValueError(f"method must be 'inv' or 'zig', got {method!r:.60}")
    name = _of_dtype("exponential", dtype) + ("_zig" if method == "zig" else "")
    return engine.spec(name, (float_word(SCALE.check(scale, dtype)), 0, 0), dtype)


# -- array parameters -------------------------------------------------------------------
# A fill whose loc or scale is an array draws the standard variates and then
# applies each element's own parameters (tandem.backends.affine), which gives
# the values of a fill with those parameters as scalars, bit for bit.

def is_array(value) -> bool:
    """Whether a loc or scale is an array parameter (NumPy or CUDA, not 0-d)."""
    if isinstance(value, (type, numbers.Number, np.generic, str, bytes)):
        return False  # the scalar checks name what is wrong with these
    return np.ndim(value) > 0 or arrays.device_of(value) == "cuda"


NO_LOC = object()  # exponential's: a scale alone (None is a loc, and refused)


def located(dtype, out, device, size_or_index, at, loc=NO_LOC, scale=1.0):
    """``(finish, device, shape)`` for array parameters: the checks run here,
    before anything is drawn; ``finish`` applies them to the standard values of
    ``shape`` on ``device``."""
    dtype = real_dtype(dtype)
    given = [v for v in (loc, scale, out) if v is not None and v is not NO_LOC]
    device = arrays.check_device(device) or next(
        (arrays.device_of(v) for v in given if arrays.device_of(v) == "cuda"), "cpu")
    xp = arrays.module(device)
    for name, value in (("loc", loc), ("scale", scale)):
        arrays.refuse_masked(value, name)
    checked_scale = SCALE.check_array(scale, dtype, xp)
    checked_loc = None if loc is NO_LOC else LOC.check_array(loc, dtype, xp)
    what = "index" if at else "out" if out is not None else "size"
    try:
        params = np.broadcast_shapes(*(p.shape for p in (checked_scale, checked_loc)
                                       if p is not None))
    except ValueError:
        raise ValueError(f"loc and scale (shapes {np.shape(loc)}, {np.shape(scale)}) do not "
                         "broadcast together") from None
    if at:
        shape = np.shape(size_or_index)
    elif out is not None:
        shape = arrays.out_shape(out)
    else:
        shape = arrays.shape_of(size_or_index)
    if shape is None:
        shape = params
    elif len(params) > len(shape) or any(p not in (1, d) for p, d in
                                         zip(params[::-1], shape[::-1])):
        raise ValueError(f"loc and scale (shape {params}) do not broadcast to the shape of "
                         f"{what}, {shape}")

    def finish(values):
        affine.located(values, checked_scale, checked_loc)

    return finish, device, shape


def normal(stream, size=None, *, loc=0.0, scale=1.0, dtype=np.float64, method=None, out=None,
           threads=None, device=None, backend=None):
    """Normal variates; see :meth:`tandem.Stream.normal`.  ``loc`` and ``scale``
    may be arrays that broadcast to the output's shape."""
    if is_array(loc) or is_array(scale):
        finish, device, shape = located(dtype, out, device, size, False, loc, scale)
        return engine.run(stream, normal_spec(-0.0, 1.0, dtype, method),
                    None if out is not None else shape, out, threads, device, backend, finish)
    return engine.run(stream, normal_spec(loc, scale, dtype, method), size, out, threads, device,
                backend)


def normal_at(stream: Stream, index: ArrayLike, *, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0,
              dtype: DTypeLike = np.float64, method: Optional[str] = None,
              threads: Optional[int] = None, device: Device = None, backend: Backend = None):
    if is_array(loc) or is_array(scale):
        finish, device, _ = located(dtype, None, device, index, True, loc, scale)
        return engine.run_at(stream, normal_spec(-0.0, 1.0, dtype, method), index, threads, device,
                       backend, finish)
    return engine.run_at(stream, normal_spec(loc, scale, dtype, method), index, threads, device,
                   backend)


def exponential(stream, size=None, *, scale=1.0, dtype=np.float64, method="inv", out=None,
                threads=None, device=None, backend=None):
    """Exponential variates; see :meth:`tandem.Stream.exponential`.  ``scale`` may
    be an array that broadcasts to the output's shape."""
    if is_array(scale):
        finish, device, shape = located(dtype, out, device, size, False, scale=scale)
        return engine.run(stream, _exponential(1.0, dtype, method), None if out is not None else shape,
                    out, threads, device, backend, finish)
    return engine.run(stream, _exponential(scale, dtype, method), size, out, threads, device,
                backend)


def exponential_at(stream: Stream, index: ArrayLike, *, scale: ArrayLike = 1.0,
                   dtype: DTypeLike = np.float64, method: Optional[str] = "inv",
                   threads: Optional[int] = None, device: Device = None, backend: Backend = None):
    if is_array(scale):
        finish, device, _ = located(dtype, None, device, index, True, scale=scale)
        return engine.run_at(stream, _exponential(1.0, dtype, method), index, threads, device,
                       backend, finish)
    return engine.run_at(stream, _exponential(scale, dtype, method), index, threads, device,
                   backend)


# -- weighted choice -----------------------------------------------------------------

def _choice(table):
    if not isinstance(table, AliasTable):
        raise TypeError(f"table must be a tandem.AliasTable, got {type(table).__name__}")
    return engine.spec("choice", (table.n, 0, 0), table.index_dtype, table.table)


def choice(stream, table, size=None, *, out=None, threads=None, device=None, backend=None):
    """Indices drawn from an alias table; see :meth:`tandem.Stream.choice`."""
    return engine.run(stream, _choice(table), size, out, threads, device, backend)


def choice_at(stream: Stream, index: ArrayLike, table: AliasTable, *, threads: Optional[int] = None,
              device: Device = None, backend: Backend = None):
    return engine.run_at(stream, _choice(table), index, threads, device, backend)


_DTYPE = "    The values' type.\n"
for _function, _parameters, _returns, _example in (
        (bits_at, "dtype : {uint32, uint64, bool}\n" + _DTYPE, "``dtype`` values",
         "dtype='uint64', "),
        (random_at, "dtype : {float64, float32}\n" + _DTYPE
         + "interval : {'[0,1)', '(0,1]'}\n    The interval of the values.\n",
         "``dtype`` values", "dtype='float32', "),
        (integers_at, "low, high : int\n    The interval ``[low, high)``; ``high=None`` means "
         "``[0, low)``.\ndtype : {int64, int32, int16, int8, uint64, uint32, uint16, uint8}\n"
         + _DTYPE + "endpoint : bool\n    Whether ``high`` is included.\n", "``dtype`` values",
         "0, 10, "),
        (bernoulli_at, "p : float\n    The probability of True, in ``[0, 1]``.\n", "bool values",
         "0.3, "),
        (normal_at, "loc, scale : float or array_like of floats\n    Mean and standard deviation."
         "\ndtype : {float64, float32}\n" + _DTYPE
         + "method : {None, 'zig', 'bm'}\n    The rule (:meth:`tandem.Stream.normal`).\n",
         "``dtype`` values", "loc=1.0, scale=2.0, "),
        (exponential_at, "scale : float or array_like of floats\n    The mean.\n"
         "dtype : {float64, float32}\n" + _DTYPE
         + "method : {'inv', 'zig'}\n    The rule (:meth:`tandem.Stream.exponential`).\n",
         "``dtype`` values", "scale=2.0, "),
        (choice_at, "table : tandem.AliasTable\n    The weights, prepared once.\n",
         "Indices of the table's ``index_dtype``", "tandem.AliasTable([0.2, 0.8]), ")):
    _function.__doc__ = law_methods.at_doc(_function.__name__[:-3], _parameters, _returns,
                                           _example, backend=True)

register_fills(bits=bits, random=random, integers=integers, bernoulli=bernoulli, normal=normal,
               exponential=exponential, choice=choice)
