"""Particle filters on tandem streams.

* :func:`bootstrap_filter`: array code on NumPy or CuPy, with separate
  streams for initialisation, propagation and resampling.
* :func:`kalman`: the exact filter for linear Gaussian models, the reference.
* Models: :class:`LinearGaussian`, :class:`MultivariateLinearGaussian`,
  :class:`StochasticVolatility`, or your own (see :mod:`tandem.smc.models`).
"""

from .filter import (
    PURPOSE_INITIAL,
    PURPOSE_PROPAGATION,
    PURPOSE_RESAMPLING,
    FilterResult,
    FilterStreams,
    bootstrap_filter,
)
from .kalman import KalmanResult, kalman
from .models import LinearGaussian, MultivariateLinearGaussian, StochasticVolatility
from .resampling import SCHEMES, resample

__all__ = [
    "PURPOSE_INITIAL", "PURPOSE_PROPAGATION", "PURPOSE_RESAMPLING", "SCHEMES",
    "FilterResult", "FilterStreams", "KalmanResult", "LinearGaussian",
    "MultivariateLinearGaussian", "StochasticVolatility", "bootstrap_filter", "kalman",
    "resample",
]
