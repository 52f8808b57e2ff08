"""Many small bootstrap filters in one compiled kernel, on the GPU or the CPU.

On the GPU one CUDA block runs one filter and one thread carries one
particle (:mod:`tandem.smc.batch_cuda`); on the CPU the filters run in
parallel, each particle in turn (:mod:`tandem.smc.batch_cpu`).  Both follow
one rule (:mod:`tandem.smc.batch_rule`), whose draws are addressed by
filter, step and particle: the same numbers on either device.

A model for the kernel is a :class:`tandem.smc.BatchModel`: three plain
Python functions of scalars that Numba compiles for the device, and a tuple
of float parameters (or, per filter, a row of an array of them).  :func:`tandem.smc.linear_gaussian` makes
the one of a :class:`tandem.smc.LinearGaussian`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .. import arrays
from ..stream import Stream, purpose_word
from .batch_models import BUILT_IN, BatchModel, linear_gaussian, stochastic_volatility
from .batch_rule import NORMAL, SCHEMES
from .filter import FilterStreams, _count, _observations
from .models import LinearGaussian, StochasticVolatility


@dataclass(frozen=True)
class BatchResult:
    """Per-filter results of :func:`tandem.smc.batch_filters` (NumPy arrays).

    ``means``, ``variances`` and ``ess`` have shape ``(T, F)``, one column
    per filter, computed before resampling; ``log_likelihood`` has shape
    ``(F,)``.

    Parameters
    ----------
    means : numpy.ndarray, shape (T, F)
        The weighted mean of each filter's particles at each step.
    variances : numpy.ndarray, shape (T, F)
        The weighted variance of each filter's particles at each step.
    ess : numpy.ndarray, shape (T, F)
        The effective sample size ``1 / sum(W**2)`` of each filter at each
        step.
    log_likelihood : numpy.ndarray, shape (F,)
        Each filter's estimate of ``log p(y_0 .. y_{T-1})``.

    Examples
    --------
    The kernel needs a GPU or Numba's CUDA simulator
    (``NUMBA_ENABLE_CUDASIM=1``):

    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = np.array([[0.1, -0.3], [0.4, 0.0], [-0.2, 0.2]])
    >>> result = smc.batch_filters(tandem.Philox(123456), model, y, 16)  # doctest: +SKIP
    >>> result.means.shape, result.ess.shape, result.log_likelihood.shape  # doctest: +SKIP
    ((3, 2), (3, 2), (2,))
    """

    means: np.ndarray
    variances: np.ndarray
    ess: np.ndarray
    log_likelihood: np.ndarray


def _split_keys(streams):
    """The key words of every ``split`` lane of each of the three streams."""
    return np.array([s.split(0).kernel_key for s in streams], dtype=np.uint64)


def _lowering(device):
    """The device's ``run``: the kernels of :mod:`tandem.smc.batch_cpu` or
    :mod:`tandem.smc.batch_cuda` (which imports numba-cuda)."""
    if device == "cuda":
        from . import batch_cuda as lowering
    elif device == "cpu":
        from . import batch_cpu as lowering
    else:
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r:.60}")
    return lowering.run


def _parameter_rows(params, model, filters):
    """The parameters of each filter, a C-ordered ``(filters, P)`` float64 array."""
    if params is None:
        return np.tile(np.asarray(model.params, dtype=np.float64), (filters, 1))
    rows = arrays.to_host(params, "params")
    if not isinstance(rows, np.ndarray) or rows.dtype.kind not in "iuf" or rows.ndim != 2:
        raise TypeError(f"params must be a real array of shape (F, P), got "
                        f"{getattr(rows, 'shape', type(rows).__name__)}")
    if rows.shape[0] != filters:
        raise ValueError(f"params must have one row a filter ({filters}), got {rows.shape[0]}")
    if not np.isfinite(rows).all():
        raise ValueError("params must be finite")
    return np.ascontiguousarray(rows, dtype=np.float64)


def batch_filters(root: Stream | FilterStreams,
                  model: BatchModel | LinearGaussian | StochasticVolatility,
                  observations: ArrayLike, n_particles: int, *, params: ArrayLike = None,
                  resampling: str = "systematic", first_lane: int = 0,
                  device: str = "cuda") -> BatchResult:
    """Run one bootstrap filter per column of ``observations``, all in one kernel.

    On the GPU one CUDA block runs one filter and one thread carries one
    particle, through every step in one launch; on the CPU the filters run
    on all threads.  The draws are addressed, not carried (see
    :mod:`tandem.smc.batch_rule`), so each equals ``tandem.normal_at`` or
    ``tandem.random_at`` of the filter's streams, on either device.

    Parameters
    ----------
    root : tandem.Stream or FilterStreams
        As for :func:`tandem.smc.bootstrap_filter`, of a Philox or Threefry
        stream; filter ``f`` draws from lane ``first_lane + f``
        (``split(first_lane + f)``) of each of the three streams.
    model : BatchModel, LinearGaussian or StochasticVolatility
        The model as device functions; a built-in model is turned into one
        by :func:`tandem.smc.linear_gaussian` or
        :func:`tandem.smc.stochastic_volatility`.
    observations : array_like, shape (T, F) or (T,)
        Column ``f`` is the data of filter ``f``; one column is every
        filter's (then ``params`` says how many filters).  Finite.
    n_particles : int
        On the GPU a power of two from 2 to 1024 (the threads of each
        block); on the CPU any count from 1.
    params : array_like, shape (F, P), optional
        Row ``f`` is the parameters of filter ``f``, in place of
        ``model.params`` (particle MCMC runs a filter a proposal).
    resampling : {"systematic", "multinomial"}, optional
        The resampling scheme, after every step but the last.
    first_lane : int, optional
        The lane of the first filter: the filters of columns ``a:b`` of a run
        are the run of those columns with ``first_lane=a``, bit for bit (how
        :func:`tandem.dask.batch_filters` spreads filters over GPUs).
    device : {"cuda", "cpu"}, optional
        Where the kernel runs.  The draws are the same; the sums of the
        weights are added in another order, so results agree to rounding.

    Returns
    -------
    BatchResult
        The moments and effective sample sizes of every filter at every
        step, and every filter's log-likelihood estimate.

    Raises
    ------
    TypeError
        If ``root``, ``model``, ``n_particles``, ``observations``, ``params``
        or ``first_lane`` is of the wrong type, or ``root`` is a Tandem8x32
        stream (whose ``split`` lanes are keys of their own).
    ValueError
        If ``n_particles`` is out of range, the scheme or device is unknown,
        ``observations`` is not a finite array of shape ``(T, F)`` or
        ``(T,)``, ``params`` has not one finite row a filter, or the lanes
        ``first_lane + f`` pass ``2**64``.

    See Also
    --------
    tandem.smc.bootstrap_filter : One filter, as array code on NumPy or CuPy.

    Notes
    -----
    ``device="cuda"`` needs numba-cuda and a GPU, or Numba's CUDA simulator
    (``NUMBA_ENABLE_CUDASIM=1``, which is what CI runs).

    Examples
    --------
    Two filters of 16 particles over three steps:

    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = np.array([[0.1, -0.3], [0.4, 0.0], [-0.2, 0.2]])
    >>> result = smc.batch_filters(tandem.Philox(123456), model, y, 16, device="cpu")
    >>> result.means.shape, result.log_likelihood.shape
    ((3, 2), (2,))

    The second filter alone, from its lane:

    >>> second = smc.batch_filters(tandem.Philox(123456), model, y[:, 1:], 16,
    ...                            first_lane=1, device="cpu")
    >>> bool((second.means[:, 0] == result.means[:, 1]).all())
    True

    Three filters of one series, each with its own transition coefficient:

    >>> rows = [[a, 0.3, 0.5, 0.0, 1.0] for a in (0.5, 0.9, 0.99)]
    >>> smc.batch_filters(tandem.Philox(1), model, y[:, 0], 16, params=rows,
    ...                   device="cpu").log_likelihood.shape
    (3,)
    """
    streams = FilterStreams.from_root(root)
    if streams.initial.generator not in (0, 1):
        raise TypeError(f"batch_filters draws the lanes of a Philox or Threefry stream, got "
                        f"a {type(streams.initial).__name__} stream")
    if type(model) in BUILT_IN:
        model = BUILT_IN[type(model)](model)
    if not isinstance(model, BatchModel):
        raise TypeError(f"model must be a BatchModel, LinearGaussian or StochasticVolatility, "
                        f"got {type(model).__name__}")
    run = _lowering(device)
    n = _count(n_particles, "n_particles")
    if device == "cuda" and (n < 2 or n > 1024 or n & (n - 1)):
        raise ValueError(f"n_particles must be a power of two from 2 to 1024 on the GPU, "
                         f"got {n}")
    if resampling not in SCHEMES:
        raise ValueError(f"resampling must be one of {SCHEMES}, got {resampling!r}")
    y = _observations(arrays.to_host(observations, "observations"))
    if y.ndim == 1 and params is not None:
        y = y[:, None]
        filters = len(params)
    elif y.ndim == 2:
        filters = y.shape[1]
    else:
        raise ValueError(f"observations must have shape (T, F), or (T,) with params, got "
                         f"{y.shape}")
    rows = _parameter_rows(params, model, filters)
    y = np.ascontiguousarray(y)  # one column stands for every filter's: not copied F times
    if isinstance(first_lane, (bool, np.bool_)) or not isinstance(first_lane, numbers.Integral):
        raise TypeError(f"first_lane must be an integer, got {first_lane!r:.60}")
    if first_lane < 0 or first_lane + filters > 2**64:
        raise ValueError(f"first_lane must be at least 0 and first_lane + filters at most "
                         f"2**64 (the lanes), got "
                         f"{first_lane} + {filters}")
    normal = NORMAL.kind
    means, variances, ess, log_likelihood = run(
        model[:3], resampling == "systematic", streams.initial.generator, y, int(first_lane),
        _split_keys(streams), np.array(purpose_word(normal.purpose), dtype=np.uint64),
        np.asarray(normal.table), rows, n)
    return BatchResult(means, variances, ess, log_likelihood)
