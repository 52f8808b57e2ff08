"""Fills as Dask arrays: the single-machine fill, cut into chunks that compute alone.

Element ``i`` (in C order) of a fill of ``w``-word draws from a stream is the
draw at word ``start + w i``, ``start`` the stream's position rounded up to a
multiple of ``w`` (the stream contract).  So a chunk needs nothing but the
stream and its own place in the array: each is computed by
``stream.at(start + w offset)`` filling its runs of consecutive elements, and
the whole array equals the single-machine fill bit for bit, whatever the
chunks, the scheduler, the workers, or a task that ran twice after a lost
worker.  The graph carries the stream, the parameters and the chunk
locations, never data.

Every function returns ``(dask array, next stream)``, as the Stream methods
return ``(values, next stream)``::

    import tandem, tandem.dask
    x, after = tandem.dask.normal(tandem.Philox(7), size=(40_000, 1_000),
                                  chunks=(5_000, 1_000))
    x.mean().compute()

Needs the extra ``dask`` (``dask[array]``, ``distributed``).  ``device="cuda"``
gives CuPy chunks (the extra ``cuda``).

Guaranteed across versions: each element's value for a given stream, law and
parameters, which is the single-machine fill's (see :mod:`tandem.stream`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

try:
    import dask.array as da
    from dask.base import tokenize
except ImportError as error:  # pragma: no cover - the extra is part of the tests'
    raise ImportError("tandem.dask needs Dask: python3 -m pip install 'tandem-rng[dask]'") \
        from error

from . import parametric
from .stream import Stream

#: Words past which no draw lies (a lane's length).
_LANE_END = 2**64

#: The Stream methods that fill elementwise, and their parameters before ``size``.
METHODS = {"bits": (), "random": (), "integers": ("low", "high"), "bernoulli": ("p",),
           "normal": (), "exponential": (), "choice": ("table",)}
#: The parametric laws (:data:`tandem.parametric.LAWS`).
LAWS = tuple(sorted(parametric.LAWS))


def _method_draw(name, stream, size, params, options):
    return getattr(stream, name)(*params, size=size, **options)


def _law_draw(name, stream, size, params, options):
    return parametric.fill(stream, name, *params, size=size, **options)


def _runs(location, shape):
    """The runs of consecutive elements (C order) of the chunk at ``location`` (a
    ``(start, stop)`` a dimension) of an array of ``shape``: ``(length, [(flat offset,
    index of the run's elements), ...])``."""
    extent = [stop - start for start, stop in location]
    # the last dimension the chunk does not span: a run is its extent there times
    # everything after it
    cut = max((d for d in range(len(shape)) if extent[d] != shape[d]), default=-1)
    if cut < 0:
        return math.prod(shape), [(0, Ellipsis)]
    length = extent[cut] * math.prod(shape[cut + 1:])
    runs = []
    for outer in np.ndindex(*extent[:cut]):
        first = tuple(location[d][0] + outer[d] for d in range(cut)) + (location[cut][0],)
        offset = int(np.ravel_multi_index(first + (0,) * (len(shape) - cut - 1), shape))
        where = tuple(slice(location[d][0] + outer[d], location[d][0] + outer[d] + 1)
                      for d in range(cut)) + (slice(*location[cut]),)
        runs.append((offset, where))
    return length, runs


def _chunk(draw, stream, start, width, shape, params, block_info=None):
    """The chunk that ``block_info`` places, filled from ``stream`` (see the module)."""
    info = block_info[None]
    location = info["array-location"]
    extent = tuple(stop - start_ for start_, stop in location)
    length, runs = _runs(location, shape)
    pieces = []
    for offset, where in runs:
        run_params = [p if np.ndim(p) == 0 else
                      np.ascontiguousarray(np.broadcast_to(p, shape)[where]).reshape(-1)
                      for p in params]
        values, _ = draw(stream.at(start + width * offset), length, run_params)
        pieces.append(values.reshape(-1))
    if len(pieces) == 1:
        return pieces[0].reshape(extent)
    xp = _array_module(pieces[0])
    return xp.concatenate(pieces).reshape(extent)


def _array_module(values):
    if type(values).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def _shape(size):
    if size is None:
        raise TypeError("size is required: the shape of the Dask array")
    if isinstance(size, (int, np.integer)):
        size = (size,)
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"size must not be negative, got {size}")
    return shape


def _fill(kind, name, stream, params, size, chunks, options):
    """The Dask array of the fill ``name`` of ``kind`` (a Stream method or a law):
    ``(array, next stream)``."""
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")
    shape = _shape(size)
    device = options.pop("device", None)
    draw = functools.partial(_method_draw if kind == "method" else _law_draw, name,
                             options=options)
    for p in params:
        if np.ndim(p) and np.broadcast_shapes(np.shape(p), shape) != shape:
            raise ValueError(f"{name}: a parameter of shape {np.shape(p)} does not broadcast "
                             f"to size {shape}")
    # the start and width, from fills of 0 and 1 element on the host (all checks too)
    scalar_params = [np.asarray(p).reshape(-1)[:1].reshape(()) if np.ndim(p) else p
                     for p in params]
    _, at_start = draw(stream, 0, scalar_params)
    one, after_one = draw(at_start, 1, scalar_params)
    start, width = at_start.position, after_one.position - at_start.position
    total = math.prod(shape)
    if start + width * total > _LANE_END:
        raise ValueError("size: the fill needs words past the end of the lane (2**64)")
    try:
        chunks = da.core.normalize_chunks(chunks, shape, dtype=one.dtype)
    except (ValueError, TypeError, NotImplementedError) as error:
        raise ValueError(f"chunks {chunks!r} do not fit size {shape}: {error}") from None
    meta = np.empty((0,) * len(shape), dtype=one.dtype)
    if device is not None:
        draw = functools.partial(draw.func, name, options={**options, "device": device})
        if device == "cuda":
            import cupy

            meta = cupy.empty((0,) * len(shape), dtype=one.dtype)
    token = tokenize(kind, name, stream, params, options, device, chunks)
    values = da.map_blocks(_chunk, draw, stream, start, width, shape, list(params),
                           chunks=chunks, dtype=one.dtype, meta=meta,
                           name=f"tandem-{name}-{token}")
    return values, stream.at(start + width * total)


def _method_function(name):
    before = METHODS[name]

    def fill(stream: Stream, *params, size=None, chunks="auto", **options):
        if len(params) > len(before):
            raise TypeError(f"{name}() takes {len(before)} parameters before size")
        return _fill("method", name, stream, params, size, chunks, options)

    fill.__name__ = fill.__qualname__ = name
    fill.__doc__ = f"""``stream.{name}(...)`` as a Dask array: ``(array, next stream)``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    *params
        ``{', '.join(before) or 'none'}``, as :meth:`tandem.Stream.{name}`.
    size : int or tuple of int
        The array's shape.
    chunks : int, tuple or "auto"
        Dask's chunk specification; the values do not depend on it.
    **options
        The method's keywords (``dtype``, ``device``, ...).

    Returns
    -------
    (dask.array.Array, tandem.Stream)
        The fill, equal to ``stream.{name}(...)`` bit for bit, and the stream after it.

    Examples
    --------
    >>> import tandem, tandem.dask
    >>> x, _ = tandem.dask.{name}(tandem.Philox(1), {'*params, ' if before else ''}size=(4, 6), chunks=(2, 3))
    """
    return fill


def _law_function(name):
    def fill(stream: Stream, *params, size=None, chunks="auto", **options):
        return _fill("law", name, stream, params, size, chunks, options)

    fill.__name__ = fill.__qualname__ = name
    fill.__doc__ = f"""The law ``{name}`` (:func:`tandem.parametric.fill`) as a Dask array:
    ``(array, next stream)``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    *params : float or array_like
        The law's parameters, in NumPy's order; arrays broadcast to ``size``.
    size : int or tuple of int
        The array's shape.
    chunks : int, tuple or "auto"
        Dask's chunk specification; the values do not depend on it.
    **options
        ``device``, ``threads``.

    Returns
    -------
    (dask.array.Array, tandem.Stream)
        Equal to ``parametric.fill(stream, "{name}", ...)`` bit for bit, and the
        stream after it.
    """
    return fill


def bootstrap_filters(client, roots, model, observations, n_particles, **options):
    """Independent bootstrap particle filters, a task each on a Dask cluster's workers.

    Parameters
    ----------
    client : distributed.Client
    roots : sequence of tandem.Stream
        Filter ``f``'s stream (as :func:`tandem.smc.bootstrap_filter`'s ``root``).
    model : object
        A model of :mod:`tandem.smc.models` (it travels to the workers once).
    observations : sequence of array_like
        Filter ``f``'s data, one entry a stream.
    n_particles : int
    **options
        :func:`tandem.smc.bootstrap_filter`'s keywords (``resampling``,
        ``ess_threshold``, ``device``: ``"cuda"`` runs each on its worker's GPU).

    Returns
    -------
    list of tandem.smc.FilterResult
        Equal, bit for bit, to ``[bootstrap_filter(r, model, y, n_particles,
        **options) for r, y in zip(roots, observations)]`` run locally: a
        filter's draws depend on its stream alone.

    Examples
    --------
    >>> # results = tandem.dask.bootstrap_filters(client, [root.split(f) for f in
    >>> #     range(100)], smc.LinearGaussian(0.9, 0.3, 0.5), ys, 4096)
    """
    from .smc import bootstrap_filter

    roots = list(roots)
    observations = list(observations)
    if len(roots) != len(observations):
        raise ValueError(f"roots and observations differ in length: {len(roots)} and "
                         f"{len(observations)}")
    for root in roots:
        if not isinstance(root, Stream):
            raise TypeError(f"roots must be tandem Streams, got {type(root).__name__}")
    shared = client.scatter(model, broadcast=True, hash=False)
    futures = [client.submit(bootstrap_filter, root, shared, np.asarray(y), n_particles,
                             key=f"tandem-filter-{tokenize(root, y, n_particles, options)}",
                             **options)
               for root, y in zip(roots, observations)]
    try:
        return client.gather(futures)
    finally:
        client.cancel(futures)


for _name in METHODS:
    globals()[_name] = _method_function(_name)
for _name in LAWS:
    if _name not in METHODS:
        globals()[_name] = _law_function(_name)
del _name

__all__ = sorted(set(METHODS) | set(LAWS)) + ["METHODS", "LAWS", "bootstrap_filters"]
