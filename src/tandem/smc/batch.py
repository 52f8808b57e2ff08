"""Many small bootstrap filters in one fused CUDA kernel.

One CUDA block runs one filter and one thread carries one particle (a power
of two, at most 1024), through every time step in a single launch.  A step
propagates, weighs, reduces the weights in shared memory (maximum, prefix
sum, moments) and resamples by binary search in the shared cumulative sum.

Draws are addressed, not carried: with ``streams = FilterStreams.of(root)``,
filter ``f`` takes

* ``X_0`` of particle ``p`` from draw ``p`` of ``streams.initial.split(f)``,
* the noise of step ``t >= 1`` from draw ``(t - 1) n + p`` of
  ``streams.propagation.split(f)``,
* the resampling uniforms of step ``t`` from draw ``t n + p`` (multinomial)
  or ``t`` (systematic) of ``streams.resampling.split(f)``,

as f64 standard normals and ``[0, 1)`` uniforms, so every number equals
``tandem.normal_at`` / ``tandem.random_at`` of those streams on the CPU.

A model for the kernel is a :class:`BatchModel`: three plain Python
functions of scalars that numba-cuda compiles as device functions, and a
tuple of float parameters.  :func:`linear_gaussian` makes the one of a
:class:`~tandem.smc.LinearGaussian`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
from numba import cuda

from .. import arrays, core
from ..core.normal import FAST_TABLE
from ..distributions import PURPOSE_NORMAL64, _retry_key
from .filter import FilterStreams, _count, _observations
from .models import LinearGaussian


class BatchModel(NamedTuple):
    """A scalar state-space model as device functions.

    ``initial(z, params)`` maps a standard normal to ``X_0``;
    ``transition(x, z, params)`` maps the previous state and a standard
    normal to ``X_t``; ``log_density(x, y, params)`` is ``log g(y | x)``.
    ``params`` is a tuple of floats.
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


def linear_gaussian(model):
    """The :class:`BatchModel` of a :class:`~tandem.smc.LinearGaussian`."""
    if not isinstance(model, LinearGaussian):
        raise TypeError(f"model must be a LinearGaussian, got {type(model).__name__}")
    params = (model.transition, model.process_sd, model.observation_sd, model.initial_mean,
              model.initial_sd)
    return BatchModel(_lg_initial, _lg_transition, _lg_log_density, params)


@dataclass(frozen=True)
class BatchResult:
    """Per-filter results of :func:`batch_filters` (NumPy arrays).

    ``means``, ``variances`` and ``ess`` have shape ``(T, F)``, one column
    per filter, computed before resampling; ``log_likelihood`` has shape
    ``(F,)``.
    """

    means: np.ndarray
    variances: np.ndarray
    ess: np.ndarray
    log_likelihood: np.ndarray


SCHEMES = ("multinomial", "systematic")


@functools.lru_cache(maxsize=None)
def _kernel(initial, transition, log_density, systematic):
    cc = core.for_cuda()
    block_at, normal_fast, normal_miss = cc.block_at, cc.normal64_fast_table, cc.normal64_miss_table
    uniform64 = cc.uniform64
    jitable = _jitable()
    initial, transition, log_density = map(jitable, (initial, transition, log_density))
    U64 = np.uint64

    def draw(generator, k0, k1, k2, k3, lane, i):
        """The 64-bit draw ``i`` of a lane as its two words."""
        w = U64(2) * i
        x0, x1, x2, x3 = block_at(generator, k0, k1, k2, k3, lane, w >> U64(2))
        if w & U64(2):
            return x2, x3, w
        return x0, x1, w

    def normal_at(generator, keys, lane, i, table):
        lo, hi, w = draw(generator, keys[0], keys[1], keys[2], keys[3], lane, i)
        z, accepted = normal_fast(lo, hi, table)
        if not accepted:
            z = normal_miss(generator, keys[4], keys[5], keys[6], keys[7], w, lo, hi, table)
        return z

    def uniform_at(generator, keys, lane, i):
        lo, hi, _ = draw(generator, keys[0], keys[1], keys[2], keys[3], lane, i)
        return uniform64(lo, hi, U64(0))

    draw, normal_at, uniform_at = map(jitable, (draw, normal_at, uniform_at))

    @cuda.jit
    def run(y, generator, init_keys, prop_keys, resample_keys, table, params,
            means, variances, ess, log_likelihood):
        # init/prop keys: (F, 8) = key words, then the normal64 continuation
        # key of the filter's lane; resample keys: (F, 4).
        f = cuda.blockIdx.x
        p = cuda.threadIdx.x
        n = cuda.blockDim.x
        lane = U64(f)
        xs = cuda.shared.array(1024, np.float64)
        cdf = cuda.shared.array(1024, np.float64)
        work = cuda.shared.array(1024, np.float64)
        x = initial(normal_at(generator, init_keys[f], lane, U64(p), table), params)
        total_log = 0.0
        for t in range(y.shape[0]):
            if t > 0:
                z = normal_at(generator, prop_keys[f], lane, U64((t - 1) * n + p), table)
                x = transition(x, z, params)
            lw = log_density(x, y[t, f], params)
            # the largest log-weight
            work[p] = lw
            cuda.syncthreads()
            half = n // 2
            while half > 0:
                if p < half:
                    work[p] = max(work[p], work[p + half])
                cuda.syncthreads()
                half //= 2
            top = work[0]
            cuda.syncthreads()
            w = math.exp(lw - top)
            # inclusive prefix sum of the weights (Hillis-Steele)
            cdf[p] = w
            cuda.syncthreads()
            step = 1
            while step < n:
                add = cdf[p - step] if p >= step else 0.0
                cuda.syncthreads()
                cdf[p] += add
                cuda.syncthreads()
                step *= 2
            total = cdf[n - 1]
            # sums of w x, w x^2 and w^2 in one tree
            xs[p] = w * x
            work[p] = w * x * x
            cuda.syncthreads()
            half = n // 2
            while half > 0:
                if p < half:
                    xs[p] += xs[p + half]
                    work[p] += work[p + half]
                cuda.syncthreads()
                half //= 2
            mean = xs[0] / total
            second = work[0] / total
            cuda.syncthreads()
            work[p] = w * w
            cuda.syncthreads()
            half = n // 2
            while half > 0:
                if p < half:
                    work[p] += work[p + half]
                cuda.syncthreads()
                half //= 2
            if p == 0:
                means[t, f] = mean
                variances[t, f] = max(second - mean * mean, 0.0)
                ess[t, f] = total * total / work[0]
            total_log += top + math.log(total / n)
            if t < y.shape[0] - 1:
                if systematic:
                    u = (p + uniform_at(generator, resample_keys[f], lane, U64(t))) / n
                else:
                    u = uniform_at(generator, resample_keys[f], lane, U64(t * n + p))
                target = u * total
                lo, hi = 0, n - 1  # the first index whose cumulative weight exceeds target
                while lo < hi:
                    mid = (lo + hi) // 2
                    if cdf[mid] <= target:
                        lo = mid + 1
                    else:
                        hi = mid
                xs[p] = x
                cuda.syncthreads()
                x = xs[lo]
                cuda.syncthreads()
        if p == 0:
            log_likelihood[f] = total_log

    return run


def _jitable():
    from numba import config

    if config.ENABLE_CUDASIM:
        return lambda fn: fn
    from numba.cuda.extending import register_jitable

    return register_jitable


def _keys(streams, n_filters, continuation):
    """Per-filter key words of ``split(f)`` of each stream (and the normal64
    continuation key of that lane)."""
    rows = []
    for f in range(n_filters):
        lane = streams.split(f)
        key = lane.key + (0,) * (4 - len(lane.key))
        rows.append(key + (_retry_key(lane, PURPOSE_NORMAL64) if continuation else ()))
    return np.array(rows, dtype=np.uint64)


def batch_filters(root, model, observations, n_particles, *, resampling="systematic"):
    """Run one bootstrap filter per column of ``observations``, all in one kernel.

    Parameters
    ----------
    root : tandem.Stream or FilterStreams
        As for :func:`~tandem.smc.bootstrap_filter`; filter ``f`` draws from
        lane ``f`` (``split(f)``) of each of the three streams.
    model : BatchModel or LinearGaussian
    observations : array_like, shape (T, F)
        Column ``f`` is the data of filter ``f``.
    n_particles : int
        A power of two from 2 to 1024: the threads of each block.
    resampling : {"systematic", "multinomial"}

    Returns
    -------
    BatchResult

    Needs numba-cuda and a GPU, or Numba's CUDA simulator
    (``NUMBA_ENABLE_CUDASIM=1``, which is what CI runs).
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
    y = _observations(arrays.to_host(observations))
    if y.ndim != 2:
        raise ValueError(f"observations must have shape (T, F), got {y.shape}")
    steps, filters = y.shape
    generator = streams.initial.generator
    run = _kernel(*model[:3], resampling == "systematic")
    means, variances, ess = (np.zeros((steps, filters)) for _ in range(3))
    log_likelihood = np.zeros(filters)
    outputs = [cuda.to_device(a) for a in (means, variances, ess, log_likelihood)]
    run[filters, n](cuda.to_device(np.ascontiguousarray(y)), generator,
                    cuda.to_device(_keys(streams.initial, filters, True)),
                    cuda.to_device(_keys(streams.propagation, filters, True)),
                    cuda.to_device(_keys(streams.resampling, filters, False)),
                    cuda.to_device(np.asarray(FAST_TABLE)),
                    cuda.to_device(np.array(model.params, dtype=np.float64)), *outputs)
    means, variances, ess, log_likelihood = (o.copy_to_host() for o in outputs)
    return BatchResult(means, variances, ess, log_likelihood)
