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
import uuid
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

try:
    import dask.array as da
    from dask.base import tokenize
except ImportError as error:  # pragma: no cover - the extra is part of the tests'
    raise ImportError("tandem.dask needs Dask: python3 -m pip install 'tandem-streams[dask]'") \
        from error

from ._types import ArrayLike, Chunks, Size
from . import arrays, law_methods, laws, multivariate, parametric
from .stream import Stream

#: Words past which no draw lies (a lane's length).
_LANE_END = 2**64

#: The Stream methods that fill elementwise, and their parameters before ``size``.
METHODS = {"bits": (), "random": (), "integers": ("low", "high"), "bernoulli": ("p",),
           "normal": (), "exponential": (), "choice": ("table",)}
#: The laws whose parameters broadcast (:data:`tandem.laws.LAWS`).
LAWS = tuple(sorted(laws.LAWS))
#: The laws that :mod:`tandem.parametric` composes of two parts, 8 words an element
#: (:data:`tandem.laws.TWO_PARTS`).
COMPOSED = tuple(sorted(laws.TWO_PARTS))
#: The laws of :mod:`tandem.multivariate`, whose draws are rows of ``k`` components
#: (the Dask array's last axis, one chunk).
ROWS = ("dirichlet", "multinomial", "multivariate_normal")


def _draw(function, bound, stream, size, params, options):
    """``function(stream, *bound, *params, size=size, **options)``: a fill's call."""
    return function(stream, *bound, *params, size=size, **options)


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
    """The chunk that ``block_info`` places, filled from ``stream`` (see the module).
    ``shape`` is the shape of the draws; a row's components follow it whole."""
    info = block_info[None]
    location = info["array-location"]
    extent = tuple(stop - start_ for start_, stop in location)
    length, runs = _runs(location[:len(shape)], shape)
    pieces = []
    for offset, where in runs:
        run_params = [p if np.ndim(p) == 0 else
                      np.ascontiguousarray(np.broadcast_to(p, shape)[where]).reshape(-1)
                      for p in params]
        values, _ = draw(stream.at(start + width * offset), length, run_params)
        pieces.append(values.reshape(-1))
    if len(pieces) == 1:
        return pieces[0].reshape(extent)
    return arrays.module_of(pieces[0]).concatenate(pieces).reshape(extent)


def _shape(size):
    if size is None:
        raise TypeError("size is required: the shape of the Dask array")
    return arrays.shape_of(size)


def _chunks(chunks, shape, row, dtype):
    """Dask's normalised chunks of an array of draws of ``shape``, each a ``row``
    (its shape, ``()`` for a scalar) whose axes are one chunk each."""
    if row and (not isinstance(chunks, (tuple, list)) or len(chunks) == len(shape)):
        chunks = (tuple(chunks) if isinstance(chunks, (tuple, list))
                  else (chunks,) * len(shape)) + row
    try:
        chunks = da.core.normalize_chunks(chunks, shape + row, dtype=dtype)
    except (ValueError, TypeError, NotImplementedError) as error:
        raise ValueError(f"chunks {chunks!r} do not fit size {shape + row}: {error}") from None
    if any(len(c) != 1 for c in chunks[len(shape):]):
        raise ValueError(f"chunks: the last axis holds a draw's {row[-1]} components and "
                         f"must be one chunk, got {chunks[-1]}")
    return chunks


def _fill(draw, name, stream, params, size, chunks, options):
    """The Dask array of the fill ``draw(stream, size, params, options)``, whose
    ``params`` broadcast elementwise to ``size``: ``(array, next stream)``."""
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")
    shape = _shape(size)
    for p in params:
        if np.ndim(p) and np.broadcast_shapes(np.shape(p), shape) != shape:
            raise ValueError(f"{name}: a parameter of shape {np.shape(p)} does not broadcast "
                             f"to size {shape}")
    # the start, the width and a row's shape from fills of 0 and 1 draw on the host
    # (which make every check too)
    on_host = functools.partial(draw, options={k: v for k, v in options.items()
                                               if k != "device"})
    scalar_params = [np.asarray(p).reshape(-1)[:1].reshape(()) if np.ndim(p) else p
                     for p in params]
    _, at_start = on_host(stream, 0, scalar_params)
    one, after_one = on_host(at_start, 1, scalar_params)
    start, width = at_start.position, after_one.position - at_start.position
    row = tuple(np.shape(one)[1:])
    total = math.prod(shape)
    if start + width * total > _LANE_END:
        raise ValueError("size: the fill needs words past the end of the lane (2**64)")
    chunks = _chunks(chunks, shape, row, one.dtype)
    meta = np.empty((0,) * len(chunks), dtype=one.dtype)
    if options.get("device") == "cuda":
        import cupy

        meta = cupy.empty(meta.shape, dtype=one.dtype)
    token = tokenize(draw, stream, params, options, chunks)
    values = da.map_blocks(_chunk, functools.partial(draw, options=options), stream, start,
                           width, shape, list(params), chunks=chunks, dtype=one.dtype,
                           meta=meta, name=f"tandem-{name}-{token}")
    return values, stream.at(start + width * total)


_SIGNATURE_DOC = """
    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    *params
        {params}
    size : int or tuple of int
        The shape of the draws{rows}.
    chunks : int, tuple or "auto"
        Dask's chunk specification; the values do not depend on it.
    **options
        {options}

    Returns
    -------
    (dask.array.Array, tandem.Stream)
        Equal to ``{local}`` bit for bit, and the stream after it.

    Examples
    --------
    >>> import tandem, tandem.dask
    >>> x, _ = tandem.dask.{name}(tandem.Philox(1), {example}size=(4, 6), chunks=(2, 3))
    """


def _public(name, fill, summary, **doc):
    fill.__name__ = fill.__qualname__ = name
    fill.__doc__ = summary + "\n" + _SIGNATURE_DOC.format(name=name, **doc)
    return fill


def _method_function(name):
    before = METHODS[name]

    def fill(stream: Stream, *params: ArrayLike, size: Size = None, chunks: Chunks = "auto",
             **options: Any) -> tuple[Any, Stream]:
        if len(params) > len(before):
            raise TypeError(f"{name}() takes {len(before)} parameters before size")
        return _fill(functools.partial(_draw, getattr(Stream, name), ()), name, stream,
                     params, size, chunks, options)

    return _public(name, fill, f"``stream.{name}(...)`` as a Dask array: ``(array, next "
                   "stream)``.", params=f"``{', '.join(before) or 'none'}``, as "
                   f":meth:`tandem.Stream.{name}`.", rows="",
                   options="The method's keywords (``dtype``, ``device``, ...).",
                   local=f"stream.{name}(...)",
                   example={"integers": "0, 10, ", "bernoulli": "0.3, ",
                            "choice": "tandem.AliasTable([1.0, 2.0]), "}.get(name, ""))


def _law_function(name):
    draw = functools.partial(_draw, parametric.fill, (name,))

    def fill(stream: Stream, *params: ArrayLike, size: Size = None, chunks: Chunks = "auto",
             **options: Any) -> tuple[Any, Stream]:
        return _fill(draw, name, stream, params, size, chunks, options)

    law = laws.LAWS.get(name) or laws.TWO_PARTS[name]
    return _public(name, fill, f"The law ``{name}`` as a Dask array: ``(array, next stream)``."
                   f"  {law.doc}.", params="The law's parameters, in NumPy's order; arrays "
                   "broadcast to ``size``.", rows="", options="``device``, ``threads``.",
                   local=f'parametric.fill(stream, "{name}", ...)',
                   example=law_methods.example(law))


def _rows_function(name):
    function = getattr(multivariate, name)

    def fill(stream: Stream, *params: ArrayLike, size: Size = None, chunks: Chunks = "auto",
             **options: Any) -> tuple[Any, Stream]:
        return _fill(functools.partial(_draw, function, params), name, stream, (),
                     size, chunks, options)

    return _public(name, fill, f"Rows of ``multivariate.{name}`` as a Dask array: "
                   "``(array, next stream)``.", params="The law's parameters, in NumPy's "
                   "order (one for every row).", rows=", each a row of ``k`` components in "
                   "the array's last axis (one chunk)",
                   options="The law's keywords (``device``, ``threads``, ...).",
                   local=f"multivariate.{name}(stream, ...)", example=_EXAMPLES[name])


#: The docs' example parameters of the row laws.
_EXAMPLES = {"dirichlet": "[1.0, 2.0], ",
             "multinomial": "10, [0.2, 0.8], ",
             "multivariate_normal": "[0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], "}


def _gathered(client, futures):
    """The results of ``futures`` (of keys of their own), which are then released."""
    try:
        return client.gather(futures)
    finally:
        client.cancel(futures)


def bootstrap_filters(client: Any, roots: Sequence[Stream], model: Any, observations: ArrayLike,
                      n_particles: int, **options: Any):
    """Independent bootstrap particle filters, a task each on a Dask cluster's workers.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    roots : sequence of tandem.Stream
        Filter ``f``'s stream (as :func:`tandem.smc.bootstrap_filter`'s ``root``).
    model : object
        A model of :mod:`tandem.smc.models` (it travels to the workers once).
    observations : sequence of array_like
        Filter ``f``'s data, one entry a stream.
    n_particles : int
        Particles a filter.
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
    >>> import numpy as np, tandem, tandem.dask
    >>> from distributed import Client
    >>> from tandem import smc
    >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
    >>> root, ys = tandem.Philox(1), [np.zeros(5), np.ones(5)]
    >>> model = smc.LinearGaussian(0.9, 0.3, 0.5)
    >>> results = tandem.dask.bootstrap_filters(client, [root.split(0), root.split(1)],
    ...                                         model, ys, 64)
    >>> local = smc.bootstrap_filter(root.split(1), model, ys[1], 64)
    >>> bool(results[1].log_likelihood == local.log_likelihood)
    True
    >>> client.close()
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
    run = uuid.uuid4().hex
    futures = [client.submit(bootstrap_filter, root, shared, np.asarray(y), n_particles,
                             key=f"tandem-filter-{run}-{f}",
                             **options)
               for f, (root, y) in enumerate(zip(roots, observations))]
    return _gathered(client, futures)


def batch_filters(client: Any, root: Stream, model: Any, observations: ArrayLike, n_particles: int,
                  *, resampling: str = "systematic", tasks: Optional[int] = None):
    """:func:`tandem.smc.batch_filters` with its filters spread over a cluster's GPU
    workers: each task runs the fused kernel on a block of columns.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client; its workers have GPUs.
    root : tandem.Stream
        As :func:`tandem.smc.batch_filters`.
    model : object
        As :func:`tandem.smc.batch_filters`.
    observations : array_like
        Shape ``(T, F)``: filter ``f``'s data is column ``f``.
    n_particles : int
        Particles a filter.
    resampling : str
        As :func:`tandem.smc.batch_filters`.
    tasks : int, optional
        How many blocks of columns (at most one a filter); default one a worker.

    Returns
    -------
    tandem.smc.BatchResult
        Equal, bit for bit, to ``smc.batch_filters(root, model, observations,
        n_particles, resampling=resampling)`` run on one GPU: block ``a:b`` runs
        with ``first_lane=a``, so each filter draws from its own lane.

    Examples
    --------
    A cluster of GPU workers (the fused kernel runs on CUDA alone):

    >>> result = tandem.dask.batch_filters(client, tandem.Philox(1),
    ...     smc.LinearGaussian(0.9, 0.3, 0.5), ys, 256)  # doctest: +SKIP
    """
    from .smc import BatchResult
    from .smc import batch_filters as fused

    y = np.asarray(observations)
    if y.ndim != 2 or y.shape[1] == 0:
        raise ValueError(f"observations must have shape (T, F) with F > 0, got {y.shape}")
    if tasks is None:
        tasks = max(1, len(client.scheduler_info()["workers"]))
    if isinstance(tasks, bool) or not isinstance(tasks, (int, np.integer)) or tasks < 1:
        raise ValueError(f"tasks must be a positive integer, got {tasks!r:.60}")
    edges = np.linspace(0, y.shape[1], min(int(tasks), y.shape[1]) + 1).astype(int)
    run = uuid.uuid4().hex
    futures = [client.submit(fused, root, model, y[:, a:b], n_particles, resampling=resampling,
                             first_lane=int(a), key=f"tandem-batch-filters-{run}-{a}")
               for a, b in zip(edges[:-1], edges[1:])]
    parts = _gathered(client, futures)
    return BatchResult(*(np.concatenate([getattr(p, name) for p in parts], axis=-1)
                         for name in ("means", "variances", "ess", "log_likelihood")))


for _name in METHODS:
    globals()[_name] = _method_function(_name)
for _name in LAWS + COMPOSED:
    if _name not in METHODS:
        globals()[_name] = _law_function(_name)
for _name in ROWS:
    globals()[_name] = _rows_function(_name)
del _name

__all__ = sorted(set(METHODS) | set(LAWS) | set(COMPOSED) | set(ROWS)) + [
    "METHODS", "LAWS", "COMPOSED", "ROWS", "bootstrap_filters", "batch_filters"]
