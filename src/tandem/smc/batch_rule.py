"""The rule of :func:`tandem.smc.batch_filters`, which each device's kernel follows.

Draws are addressed, not carried: with ``streams = FilterStreams.of(root)``,
filter ``f`` takes

* ``X_0`` of particle ``p`` from draw ``p`` of ``streams.initial.split(f)``,
* the noise of step ``t >= 1`` from draw ``(t - 1) n + p`` of
  ``streams.propagation.split(f)``,
* the resampling uniforms of step ``t`` from draw ``t n + p`` (multinomial)
  or ``t`` (systematic) of ``streams.resampling.split(f)``,

as f64 standard normals and ``[0, 1)`` uniforms, so every number equals
``tandem.normal_at`` / ``tandem.random_at`` of those streams.

A step weighs the particles by ``exp(log g - max log g)``, records the
weighted mean, variance and effective sample size before resampling, adds
``max + log(sum w / n)`` to the log-likelihood, and (but after the last
step) resamples: particle ``p`` takes the first particle whose cumulative
weight exceeds ``u_p * sum w``, where ``u_p = (p + u) / n`` (systematic) or
``u_p`` is its own uniform (multinomial).  The devices add the weights in
different orders, so their results agree to rounding; their draws are the
same numbers.
"""

from __future__ import annotations

import numpy as np

from .. import distributions

#: The kinds and parameter words of the standard f64 normal and the [0, 1)
#: uniform, as tandem.normal_at and tandem.random_at resolve them.
NORMAL = distributions.normal_spec(0.0, 1.0, np.float64, None)
UNIFORM = distributions.random_spec(np.float64, "[0,1)")

#: The resampling schemes.
SCHEMES = ("multinomial", "systematic")


def words(spec) -> tuple:
    """A spec's three parameter words, as the element functions take them."""
    return tuple(np.uint64(p) for p in spec.params)
