"""Forward filtering, backward smoothing: the marginal smoothing weights of a
filter's particles (Doucet, Godsill and Andrieu 2000; Chopin and
Papaspiliopoulos 2020, ch. 12).

With the filter's particles ``x_t^i`` and normalised weights ``W_t^i``
before resampling, kept at every step (``bootstrap_filter(...,
history=True)``), the smoothing weights go backwards from ``W_{T-1}``:

    W_{t|T}^i = W_t^i sum_j W_{t+1|T}^j f(x_{t+1}^j | x_t^i) / sum_k W_t^k f(x_{t+1}^j | x_t^k)

``O(n**2)`` a step, on NumPy or CuPy arrays as the particles are; each
column of ``f`` is scaled by its largest entry, which the ratio cancels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..arrays import module_of
from .filter import FilterResult


class SmoothingResult(NamedTuple):
    """Moments of ``X_t | Y_0 .. Y_{T-1}`` from :func:`tandem.smc.smooth`.

    Parameters
    ----------
    means : numpy.ndarray or cupy.ndarray, shape (T,) or (T, d)
        The smoothed means.
    variances : numpy.ndarray or cupy.ndarray, shape (T,) or (T, d)
        The smoothed variances (per coordinate for a vector state).
    weights : numpy.ndarray or cupy.ndarray, shape (T, n)
        The marginal smoothing weights of the filter's particles.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> run = smc.bootstrap_filter(tandem.Philox(1), model, [0.1, 0.4], 100, history=True)
    >>> smc.smooth(run, model).weights.shape
    (2, 100)
    """

    means: object
    variances: object
    weights: object


def smooth(result: FilterResult, model: object) -> SmoothingResult:
    """Marginal smoothing moments of a filter run (forward filtering, backward smoothing).

    Parameters
    ----------
    result : FilterResult
        A run of :func:`tandem.smc.bootstrap_filter` with ``history=True``.
    model : object
        The run's model, with ``transition_logpdf(x_before, x, t)`` (the
        built-in models have it).

    Returns
    -------
    SmoothingResult
        The smoothed means, variances and weights of every step.

    Raises
    ------
    ValueError
        If ``result`` kept no history.
    TypeError
        If ``model`` has no ``transition_logpdf``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    >>> run = smc.bootstrap_filter(tandem.Philox(1), model, y, 2000, history=True)
    >>> smoothed = smc.smooth(run, model)
    >>> exact = smc.rts(model, y)
    >>> bool(abs(smoothed.means - exact.means).max() < 0.05)
    True
    """
    if not isinstance(result, FilterResult) or result.history is None:
        raise ValueError("result must be a bootstrap_filter run with history=True")
    if not callable(getattr(model, "transition_logpdf", None)):
        raise TypeError(f"model must have transition_logpdf(x_before, x, t) to smooth, got "
                        f"{type(model).__name__}")
    particles, filtered = result.history
    xp = module_of(particles)
    T = len(particles)
    smoothed = xp.empty_like(filtered)
    smoothed[T - 1] = filtered[T - 1]
    for t in range(T - 2, -1, -1):
        log_f = model.transition_logpdf(particles[t], particles[t + 1], t + 1)
        f = xp.exp(log_f - log_f.max(axis=0, keepdims=True))
        predicted = filtered[t] @ f  # sum_k W_t^k f(x_{t+1}^j | x_t^k), scaled by column
        ratio = xp.where(predicted > 0, smoothed[t + 1] / xp.where(predicted > 0, predicted, 1.0),
                         0.0)
        w = filtered[t] * (f @ ratio)
        smoothed[t] = w / w.sum()
    shape = (T, len(filtered[0])) + (1,) * (particles.ndim - 2)
    W = smoothed.reshape(shape)
    means = (W * particles).sum(axis=1)
    variances = (W * (particles - means[:, None]) ** 2).sum(axis=1)
    return SmoothingResult(means, variances, smoothed)
