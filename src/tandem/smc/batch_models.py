"""Scalar state-space models as device functions, for the compiled filters.

A :class:`BatchModel` is three plain Python functions of scalars, which
Numba compiles for the CPU or the GPU, and a tuple of parameters.
:data:`BUILT_IN` turns each built-in array model into one; the batch of
filters (:mod:`tandem.smc.batch`) and the fused GPU filter
(:mod:`tandem.smc.filter_cuda`) both run them.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

from .models import LinearGaussian, StochasticVolatility


class BatchModel(NamedTuple):
    """A scalar state-space model as device functions, for :func:`tandem.smc.batch_filters`.

    The three functions are plain Python functions of scalars that Numba
    compiles for the device (numba-cuda's device functions on the GPU).

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


def _sv_initial(z, params):
    return params[0] + params[2] / math.sqrt(1.0 - params[1] * params[1]) * z


def _sv_transition(x, z, params):
    return params[0] + params[1] * (x - params[0]) + params[2] * z


def _sv_log_density(x, y, params):
    return -0.5 * (y * y * math.exp(-x) + x) - 0.9189385332046728  # log sqrt(2 pi)


def stochastic_volatility(model: StochasticVolatility) -> BatchModel:
    """The batch model of a stochastic volatility model.

    Parameters
    ----------
    model : StochasticVolatility
        The model.

    Returns
    -------
    BatchModel
        The same model as device functions, with ``params`` ``(mu, phi,
        sigma)``: ``X_0`` from the stationary law, ``log N(y; 0, exp(x))``.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`tandem.smc.StochasticVolatility`.

    Examples
    --------
    >>> from tandem import smc
    >>> batch_model = smc.stochastic_volatility(smc.StochasticVolatility(-1.0, 0.6, 0.4))
    >>> batch_model.params
    (-1.0, 0.6, 0.4)
    >>> batch_model.initial(1.0, batch_model.params)
    -0.5
    """
    if not isinstance(model, StochasticVolatility):
        raise TypeError(f"model must be a StochasticVolatility, got {type(model).__name__}")
    return BatchModel(_sv_initial, _sv_transition, _sv_log_density,
                      (model.mu, model.phi, model.sigma))


#: The batch models of the built-in array models.
BUILT_IN = {LinearGaussian: linear_gaussian, StochasticVolatility: stochastic_volatility}
