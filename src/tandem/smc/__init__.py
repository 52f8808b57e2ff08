"""Particle filters on tandem streams.

* :func:`bootstrap_filter`: array code on NumPy or CuPy, with separate
  streams for initialisation, propagation and resampling.
* :func:`batch_filters`: many small filters in one fused CUDA kernel.
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

_BATCH = ("BatchModel", "BatchResult", "batch_filters", "linear_gaussian")


def __getattr__(name):
    # The batch kernel imports numba.cuda: only on first use.
    if name in _BATCH:
        from . import batch

        return getattr(batch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PURPOSE_INITIAL", "PURPOSE_PROPAGATION", "PURPOSE_RESAMPLING", "SCHEMES",
    "BatchModel", "BatchResult", "FilterResult", "FilterStreams", "KalmanResult", "LinearGaussian",
    "MultivariateLinearGaussian", "StochasticVolatility", "batch_filters",
    "bootstrap_filter", "kalman", "linear_gaussian", "resample",
]
