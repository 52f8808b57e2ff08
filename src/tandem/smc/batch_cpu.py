"""The batch of filters on the CPU (:mod:`tandem.smc.batch_rule`'s rule).

One serial compiled kernel over a range of filters, which releases the GIL:
as many ranges as ``numba.get_num_threads()`` run on tandem's pool of
threads (``tandem.parallel.in_pieces``; a ``parallel=True`` kernel took
twice as long to compile, 27 s against 12 s cold on the 2-core machine).
Each filter's particles go in order, the cumulative weights in one pass,
and systematic resampling as one merge of the sorted targets with them.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from numba import njit

from .. import core, parallel
from ..backends import cpu as cpu_backend
from .batch_rule import NORMAL, UNIFORM, words

U64 = np.uint64


@functools.lru_cache(maxsize=None)
def _kernel(initial, transition, log_density, systematic):
    core.register()
    from ..core.derivation import retry_key

    normal = cpu_backend.element_function(NORMAL.kind.name)
    uniform = cpu_backend.element_function(UNIFORM.kind.name)
    normal_params, uniform_params = words(NORMAL), words(UNIFORM)
    initial, transition, log_density = (core.jitable_cpu(f) for f in
                                        (initial, transition, log_density))

    @njit(nogil=True, cache=True)
    def run(generator, y, first_lane, keys, purpose, table, all_params, n, means, variances,
            ess, log_likelihood, first, last):
        steps = y.shape[0]
        for f in range(first, last):
            params = all_params[f]
            column = f if y.shape[1] > 1 else 0  # one column: every filter's data
            lane = first_lane + U64(f)
            i0, i1, i2, i3 = keys[0, 0], keys[0, 1], keys[0, 2], keys[0, 3]
            q0, q1, q2, q3 = keys[1, 0], keys[1, 1], keys[1, 2], keys[1, 3]
            r0, r1, r2, r3 = keys[2, 0], keys[2, 1], keys[2, 2], keys[2, 3]
            ci0, ci1, ci2, ci3 = retry_key(generator, i0, i1, i2, i3, lane, purpose[0],
                                           purpose[1])
            cq0, cq1, cq2, cq3 = retry_key(generator, q0, q1, q2, q3, lane, purpose[0],
                                           purpose[1])
            xs = np.empty(n)
            drawn = np.empty(n)
            cdf = np.empty(n)
            for p in range(n):
                xs[p] = initial(normal(generator, i0, i1, i2, i3, lane, U64(2 * p),
                                       normal_params, table, ci0, ci1, ci2, ci3), params)
            total_log = 0.0
            for t in range(steps):
                if t > 0:
                    for p in range(n):
                        z = normal(generator, q0, q1, q2, q3, lane, U64(2 * ((t - 1) * n + p)),
                                   normal_params, table, cq0, cq1, cq2, cq3)
                        xs[p] = transition(xs[p], z, params)
                top = -np.inf
                for p in range(n):
                    cdf[p] = log_density(xs[p], y[t, column], params)
                    top = max(top, cdf[p])
                total = wx = wxx = ww = 0.0
                for p in range(n):
                    w = math.exp(cdf[p] - top)
                    total += w
                    cdf[p] = total
                    wx += w * xs[p]
                    wxx += w * xs[p] * xs[p]
                    ww += w * w
                mean = wx / total
                means[t, f] = mean
                variances[t, f] = max(wxx / total - mean * mean, 0.0)
                ess[t, f] = total * total / ww
                total_log += top + math.log(total / n)
                if t == steps - 1:
                    break
                if systematic:
                    u = uniform(generator, r0, r1, r2, r3, lane, U64(2 * t), uniform_params,
                                table, r0, r1, r2, r3)
                    j = 0
                    for p in range(n):  # the targets rise with p: one merge
                        target = (p + u) / n * total
                        while j < n - 1 and cdf[j] <= target:
                            j += 1
                        drawn[p] = xs[j]
                else:
                    for p in range(n):
                        target = uniform(generator, r0, r1, r2, r3, lane, U64(2 * (t * n + p)),
                                         uniform_params, table, r0, r1, r2, r3) * total
                        lo, hi = 0, n - 1  # the first index whose cumulative weight passes
                        while lo < hi:
                            mid = (lo + hi) // 2
                            if cdf[mid] <= target:
                                lo = mid + 1
                            else:
                                hi = mid
                        drawn[p] = xs[lo]
                xs, drawn = drawn, xs
            log_likelihood[f] = total_log

    return run


#: Particle-steps below which the filters run on the calling thread alone.
SERIAL_BELOW = 1 << 15
def run(model, systematic, generator, y, first_lane, keys, purpose, table, params, n):
    """Run a filter a row of ``params``, each on its column of ``y`` (or all on
    its one column), ``n`` particles each, on the CPU: ``(means, variances,
    ess, log_likelihood)`` as NumPy arrays; ``model`` is the three model
    functions."""
    steps, filters = y.shape[0], len(params)
    means, variances, ess = (np.zeros((steps, filters)) for _ in range(3))
    log_likelihood = np.zeros(filters)
    kernel = _kernel(*model, systematic)

    def filters_from(first, last):
        kernel(U64(generator), y, U64(first_lane), keys, purpose, table, params, n, means,
               variances, ess, log_likelihood, first, last)

    pieces = 1 if steps * filters * n < SERIAL_BELOW else min(filters, numba.get_num_threads())
    parallel.in_pieces(lambda p: filters_from(filters * p // pieces, filters * (p + 1) // pieces),
                       pieces)
    return means, variances, ess, log_likelihood
