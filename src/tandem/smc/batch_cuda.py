"""The batch of filters as one fused CUDA kernel (:mod:`tandem.smc.batch_rule`'s rule).

One CUDA block runs one filter and one thread carries one particle (a power
of two, at most 1024), through every time step in a single launch.  A step
propagates, weighs, reduces the weights (maximum, prefix sum, moments) with
warp shuffles and one shared value per warp, and resamples by binary search
in the shared cumulative sum: three barriers a step.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import cuda

from .. import core
from ..backends import cuda as cuda_backend
from .batch_rule import NORMAL, UNIFORM, words
from .warp import WARP, device_function, kernel, lower_shuffles, shuffle_up, shuffle_xor

U64 = np.uint64


@functools.lru_cache(maxsize=None)
def _kernel(initial, transition, log_density, systematic, n_particles, generator):
    normal = cuda_backend.element_function(NORMAL.kind.name, generator)
    uniform = cuda_backend.element_function(UNIFORM.kind.name, generator)
    normal_params, uniform_params = words(NORMAL), words(UNIFORM)
    continuation = core.for_cuda().retry_key
    lower_shuffles()
    initial, transition, log_density = map(device_function, (initial, transition, log_density))
    n = n_particles

    width = min(n, WARP)  # lanes of a warp that carry particles
    warps = n // width
    mask = np.uint32((1 << width) - 1)

    @kernel(launch_bounds=n)
    def run(y, first_lane, keys, purpose, table, all_params, means, variances, ess,
            log_likelihood):
        # keys: the split keys of the initial, propagation and resampling
        # streams (one key for every lane); purpose: (word, domain) of the
        # normal's continuation purpose; table: the normal's.
        f = cuda.blockIdx.x
        p = cuda.threadIdx.x
        params = all_params[f]
        column = f if y.shape[1] > 1 else 0  # one column: every filter's data
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
            lw = log_density(x, y[t, column], params)
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


def run(model, systematic, generator, y, first_lane, keys, purpose, table, params, n):
    """Run a filter a row of ``params``, each on its column of ``y`` (or all on
    its one column), ``n`` particles each, on the GPU: ``(means, variances,
    ess, log_likelihood)`` as NumPy arrays; ``model`` is the three model
    functions."""
    kernel = _kernel(*model, systematic, n, generator)
    steps, filters = y.shape[0], len(params)
    outputs = [cuda.to_device(np.zeros(shape)) for shape in
               ((steps, filters), (steps, filters), (steps, filters), (filters,))]
    kernel[filters, n](cuda.to_device(y), U64(first_lane), cuda.to_device(keys),
                       cuda.to_device(purpose), cuda.to_device(table),
                       cuda.to_device(params), *outputs)
    return tuple(o.copy_to_host() for o in outputs)
