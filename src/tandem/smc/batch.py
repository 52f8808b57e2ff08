"""Many small bootstrap filters in one fused CUDA kernel.

One CUDA block runs one filter and one thread carries one particle (a power
of two, at most 1024), through every time step in a single launch.  A step
propagates, weighs, reduces the weights (maximum, prefix sum, moments) with
warp shuffles and one shared value per warp, and resamples by binary search
in the shared cumulative sum: three barriers a step.

Draws are addressed, not carried: with ``streams = FilterStreams.of(root)``,
filter ``f`` takes

* ``X_0`` of particle ``p`` from draw ``p`` of ``streams.initial.split(f)``,
* the noise of step ``t >= 1`` from draw ``(t - 1) n + p`` of
  ``streams.propagation.split(f)``,
* the resampling uniforms of step ``t`` from draw ``t n + p`` (multinomial)
  or ``t`` (systematic) of ``streams.resampling.split(f)``,

as f64 standard normals and ``[0, 1)`` uniforms, so every number equals
``tandem.normal_at`` / ``tandem.random_at`` of those streams on the CPU.

A model for the kernel is a :class:`tandem.smc.BatchModel`: three plain
Python functions of scalars that numba-cuda compiles as device functions,
and a tuple of float parameters.  :func:`tandem.smc.linear_gaussian` makes
the one of a :class:`tandem.smc.LinearGaussian`.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from numba import cuda

from .. import arrays, core, distributions
from ..stream import Stream, purpose_word
from .filter import FilterStreams, _count, _observations
from .models import LinearGaussian

U64 = np.uint64


class BatchModel(NamedTuple):
    """A scalar state-space model as device functions, for :func:`tandem.smc.batch_filters`.

    The three functions are plain Python functions of scalars that
    numba-cuda compiles as device functions.

    Parameters
    ----------
    initial : callable
        ``initial(z, params)`` maps a standard normal ``z`` to ``X_0``.
    transition : callable
        ``transition(x, z, params)`` maps the previous state and a standard
        normal to ``X_t``.
    log_density : callable
        ``log_density(x, y, params)`` is ``log g(y | x)``.
    params : tuple of float
        The parameters, passed to each function.

    Examples
    --------
    A random walk observed in unit Gaussian noise, with a step size of 0.5:

    >>> import math
    >>> from tandem import smc
    >>> walk = smc.BatchModel(
    ...     initial=lambda z, params: z,
    ...     transition=lambda x, z, params: x + params[0] * z,
    ...     log_density=lambda x, y, params: -0.5 * (y - x) ** 2 - 0.5 * math.log(2 * math.pi),
    ...     params=(0.5,))
    >>> walk.transition(1.0, 2.0, walk.params)
    2.0
    """

    initial: Callable
    transition: Callable
    log_density: Callable
    params: tuple


def _lg_initial(z, params):
    return params[3] + params[4] * z


def _lg_transition(x, z, params):
    return params[0] * x + params[1] * z


def _lg_log_density(x, y, params):
    r = (y - x) / params[2]
    return -0.5 * r * r - math.log(params[2]) - 0.9189385332046728  # log sqrt(2 pi)


def linear_gaussian(model: LinearGaussian) -> BatchModel:
    """The batch model of a scalar linear Gaussian model.

    Parameters
    ----------
    model : LinearGaussian
        The model.

    Returns
    -------
    BatchModel
        The same model as device functions, with ``params`` ``(transition,
        process_sd, observation_sd, initial_mean, initial_sd)``.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`tandem.smc.LinearGaussian`.

    Examples
    --------
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> batch_model = smc.linear_gaussian(model)
    >>> batch_model.params
    (0.9, 0.3, 0.5, 0.0, 1.0)
    >>> batch_model.transition(1.0, 0.0, batch_model.params)
    0.9
    """
    if not isinstance(model, LinearGaussian):
        raise TypeError(f"model must be a LinearGaussian, got {type(model).__name__}")
    params = (model.transition, model.process_sd, model.observation_sd, model.initial_mean,
              model.initial_sd)
    return BatchModel(_lg_initial, _lg_transition, _lg_log_density, params)


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


SCHEMES = ("multinomial", "systematic")


# The kinds and parameter words of the standard f64 normal and the [0, 1)
# uniform, as tandem.normal_at and tandem.random_at resolve them.
NORMAL = distributions.normal_spec(0.0, 1.0, np.float64, None)
UNIFORM = distributions.random_spec(np.float64, "[0,1)")


@functools.lru_cache(maxsize=None)
def _kernel(initial, transition, log_density, systematic, n_particles, generator):
    from ..backends import cuda as cuda_backend

    normal = cuda_backend.element_function(NORMAL.kind.name, generator)
    uniform = cuda_backend.element_function(UNIFORM.kind.name, generator)
    normal_params, uniform_params = (tuple(U64(p) for p in spec.params)
                                     for spec in (NORMAL, UNIFORM))
    continuation = core.for_cuda().retry_key
    jitable = _jitable()
    if jitable is not _simulated:
        _lower_shuffles()
    initial, transition, log_density = map(jitable, (initial, transition, log_density))
    n = n_particles

    width = min(n, WARP)  # lanes of a warp that carry particles
    warps = n // width
    mask = np.uint32((1 << width) - 1)

    @_cuda_kernel(launch_bounds=n)
    def run(y, first_lane, keys, purpose, table, params, means, variances, ess,
            log_likelihood):
        # keys: the split keys of the initial, propagation and resampling
        # streams (one key for every lane); purpose: (word, domain) of the
        # normal's continuation purpose; table: the normal's.
        f = cuda.blockIdx.x
        p = cuda.threadIdx.x
        lane, warp = p % width, p // width
        stream_lane = first_lane + U64(f)
        xs = cuda.shared.array(n, np.float64)
        cdf = cuda.shared.array(n, np.float64)
        # per warp: largest log-weight, sums of w, w x, w x^2, w^2
        warp_top = cuda.shared.array(warps, np.float64)
        warp_sums = cuda.shared.array((4, warps), np.float64)
        i0, i1, i2, i3 = keys[0, 0], keys[0, 1], keys[0, 2], keys[0, 3]
        q0, q1, q2, q3 = keys[1, 0], keys[1, 1], keys[1, 2], keys[1, 3]
        r0, r1, r2, r3 = keys[2, 0], keys[2, 1], keys[2, 2], keys[2, 3]
        ci0, ci1, ci2, ci3 = continuation(generator, i0, i1, i2, i3, stream_lane, purpose[0],
                                          purpose[1])
        cq0, cq1, cq2, cq3 = continuation(generator, q0, q1, q2, q3, stream_lane, purpose[0],
                                          purpose[1])
        x = initial(normal(generator, i0, i1, i2, i3, stream_lane, U64(2 * p), normal_params,
                           table, ci0, ci1, ci2, ci3), params)
        total_log = 0.0
        # Three barriers a step: the next step's first writes to shared
        # memory come after its first barrier, which every thread reaches
        # only when done reading this step's.
        for t in range(y.shape[0]):
            if t > 0:
                z = normal(generator, q0, q1, q2, q3, stream_lane, U64(2 * ((t - 1) * n + p)),
                           normal_params, table, cq0, cq1, cq2, cq3)
                x = transition(x, z, params)
            lw = log_density(x, y[t, f], params)
            top = lw
            offset = width // 2
            while offset > 0:
                top = max(top, shuffle_xor(mask, top, offset))
                offset //= 2
            if lane == 0:
                warp_top[warp] = top
            cuda.syncthreads()
            for k in range(warps):
                top = max(top, warp_top[k])
            w = math.exp(lw - top)
            # inclusive prefix sum of w within the warp; warp sums of the moments
            c = w
            d = 1
            while d < width:
                before = shuffle_up(mask, c, d)
                if lane >= d:
                    c += before
                d *= 2
            wx, wxx, ww = w * x, w * x * x, w * w
            offset = width // 2
            while offset > 0:
                wx += shuffle_xor(mask, wx, offset)
                wxx += shuffle_xor(mask, wxx, offset)
                ww += shuffle_xor(mask, ww, offset)
                offset //= 2
            if lane == width - 1:
                warp_sums[0, warp] = c
            if lane == 0:
                warp_sums[1, warp] = wx
                warp_sums[2, warp] = wxx
                warp_sums[3, warp] = ww
            xs[p] = x
            cuda.syncthreads()
            total = 0.0
            for k in range(warps):
                if k == warp:
                    c += total
                total += warp_sums[0, k]
            cdf[p] = c
            cuda.syncthreads()
            if p == 0:
                wx = wxx = ww = 0.0
                for k in range(warps):
                    wx += warp_sums[1, k]
                    wxx += warp_sums[2, k]
                    ww += warp_sums[3, k]
                mean = wx / total
                means[t, f] = mean
                variances[t, f] = max(wxx / total - mean * mean, 0.0)
                ess[t, f] = total * total / ww
            total_log += top + math.log(total / n)
            if t < y.shape[0] - 1:
                draw = U64(2 * t) if systematic else U64(2 * (t * n + p))
                u = uniform(generator, r0, r1, r2, r3, stream_lane, draw, uniform_params, table,
                            r0, r1, r2, r3)
                if systematic:
                    u = (p + u) / n
                target = u * total
                lo, hi = 0, n - 1  # the first index whose cumulative weight exceeds target
                while lo < hi:
                    mid = (lo + hi) // 2
                    if cdf[mid] <= target:
                        lo = mid + 1
                    else:
                        hi = mid
                x = xs[lo]
        if p == 0:
            log_likelihood[f] = total_log

    return run


WARP = 32


def shuffle_xor(mask, value, offset):
    """``value`` of the lane ``offset`` away by xor (``cuda.shfl_xor_sync``).

    This body is what Numba's CUDA simulator runs, which has no shuffles: it
    trades through shared memory between two barriers, so every thread of
    the block must call it.  On a GPU it compiles to one shuffle.
    """
    lanes = cuda.shared.array(1024, np.float64)
    p = cuda.threadIdx.x
    lanes[p] = value
    cuda.syncthreads()
    other = lanes[p ^ offset]
    cuda.syncthreads()
    return other


def shuffle_up(mask, value, delta):
    """``value`` of the lane ``delta`` below, or its own in the first
    ``delta`` lanes of a warp (``cuda.shfl_up_sync``); see :func:`shuffle_xor`."""
    lanes = cuda.shared.array(1024, np.float64)
    p = cuda.threadIdx.x
    lanes[p] = value
    cuda.syncthreads()
    other = lanes[p - delta] if p % WARP >= delta else value
    cuda.syncthreads()
    return other


@functools.lru_cache(maxsize=None)
def _lower_shuffles():
    from numba.cuda.extending import overload

    @overload(shuffle_xor, target="cuda")
    def _shuffle_xor(mask, value, offset):
        return lambda mask, value, offset: cuda.shfl_xor_sync(mask, value, offset)

    @overload(shuffle_up, target="cuda")
    def _shuffle_up(mask, value, delta):
        return lambda mask, value, delta: cuda.shfl_up_sync(mask, value, delta)


def _cuda_kernel(**options):
    """``cuda.jit`` with ``options`` (which the simulator does not take)."""
    from numba import config

    return cuda.jit if config.ENABLE_CUDASIM else cuda.jit(**options)


def _simulated(fn):
    return fn


def _jitable():
    from numba import config

    if config.ENABLE_CUDASIM:
        return _simulated
    from numba.cuda.extending import register_jitable

    return register_jitable


def _split_keys(streams):
    """The key words of every ``split`` lane of each of the three streams."""
    return np.array([s.split(0).kernel_key for s in streams], dtype=np.uint64)


def batch_filters(root: Stream | FilterStreams, model: BatchModel | LinearGaussian,
                  observations: ArrayLike, n_particles: int, *,
                  resampling: str = "systematic", first_lane: int = 0) -> BatchResult:
    """Run one bootstrap filter per column of ``observations``, all in one kernel.

    One CUDA block runs one filter and one thread carries one particle,
    through every step in one launch.  The draws are addressed, not carried
    (see :mod:`tandem.smc.batch`), so each equals ``tandem.normal_at`` or
    ``tandem.random_at`` of the filter's streams on the CPU.

    Parameters
    ----------
    root : tandem.Stream or FilterStreams
        As for :func:`tandem.smc.bootstrap_filter`; filter ``f`` draws from
        lane ``first_lane + f`` (``split(first_lane + f)``) of each of the three
        streams.
    model : BatchModel or LinearGaussian
        The model as device functions; a ``LinearGaussian`` is turned into
        one by :func:`tandem.smc.linear_gaussian`.
    observations : array_like, shape (T, F)
        Column ``f`` is the data of filter ``f``; finite.
    n_particles : int
        A power of two from 2 to 1024: the threads of each block.
    resampling : {"systematic", "multinomial"}, optional
        The resampling scheme, after every step but the last.
    first_lane : int, optional
        The lane of the first filter: the filters of columns ``a:b`` of a run
        are the run of those columns with ``first_lane=a``, bit for bit (how
        :func:`tandem.dask.batch_filters` spreads filters over GPUs).

    Returns
    -------
    BatchResult
        The moments and effective sample sizes of every filter at every
        step, and every filter's log-likelihood estimate.

    Raises
    ------
    TypeError
        If ``root``, ``model``, ``n_particles``, ``observations`` or
        ``first_lane`` is of the wrong type.
    ValueError
        If ``n_particles`` is not a power of two from 2 to 1024, the scheme
        is unknown, ``observations`` is not a finite array of shape
        ``(T, F)``, or the lanes ``first_lane + f`` pass ``2**64``.

    See Also
    --------
    tandem.smc.bootstrap_filter : One filter, as array code on NumPy or CuPy.

    Notes
    -----
    Needs numba-cuda and a GPU, or Numba's CUDA simulator
    (``NUMBA_ENABLE_CUDASIM=1``, which is what CI runs).

    Examples
    --------
    Two filters of 16 particles over three steps (on a GPU, or in the
    simulator):

    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = np.array([[0.1, -0.3], [0.4, 0.0], [-0.2, 0.2]])
    >>> result = smc.batch_filters(tandem.Philox(123456), model, y, 16)  # doctest: +SKIP
    >>> result.means.shape, result.log_likelihood.shape  # doctest: +SKIP
    ((3, 2), (2,))

    The second filter alone, from its lane:

    >>> second = smc.batch_filters(tandem.Philox(123456), model, y[:, 1:], 16,
    ...                            first_lane=1)  # doctest: +SKIP
    >>> bool((second.means[:, 0] == result.means[:, 1]).all())  # doctest: +SKIP
    True
    """
    streams = FilterStreams.from_root(root)
    if isinstance(model, LinearGaussian):
        model = linear_gaussian(model)
    if not isinstance(model, BatchModel):
        raise TypeError(f"model must be a BatchModel or LinearGaussian, got "
                        f"{type(model).__name__}")
    n = _count(n_particles, "n_particles")
    if n < 2 or n > 1024 or n & (n - 1):
        raise ValueError(f"n_particles must be a power of two from 2 to 1024, got {n}")
    if resampling not in SCHEMES:
        raise ValueError(f"resampling must be one of {SCHEMES}, got {resampling!r}")
    y = _observations(arrays.to_host(observations, "observations"))
    if y.ndim != 2:
        raise ValueError(f"observations must have shape (T, F), got {y.shape}")
    steps, filters = y.shape
    if isinstance(first_lane, (bool, np.bool_)) or not isinstance(first_lane, numbers.Integral):
        raise TypeError(f"first_lane must be an integer, got {first_lane!r:.60}")
    if first_lane < 0 or first_lane + filters > 2**64:
        raise ValueError(f"first_lane must be at least 0 and first_lane + filters at most "
                         f"2**64 (the lanes), got "
                         f"{first_lane} + {filters}")
    run = _kernel(*model[:3], resampling == "systematic", n, streams.initial.generator)
    means, variances, ess = (np.zeros((steps, filters)) for _ in range(3))
    log_likelihood = np.zeros(filters)
    outputs = [cuda.to_device(a) for a in (means, variances, ess, log_likelihood)]
    normal = NORMAL.kind
    run[filters, n](cuda.to_device(np.ascontiguousarray(y)), U64(first_lane),
                    cuda.to_device(_split_keys(streams)),
                    cuda.to_device(np.array(purpose_word(normal.purpose), dtype=np.uint64)),
                    cuda.to_device(np.asarray(normal.table)),
                    cuda.to_device(np.array(model.params, dtype=np.float64)), *outputs)
    means, variances, ess, log_likelihood = (o.copy_to_host() for o in outputs)
    return BatchResult(means, variances, ess, log_likelihood)
