"""Particle filters on tandem streams.

* :func:`bootstrap_filter`: array code on NumPy or CuPy, with separate
  streams for initialisation, propagation and resampling.
* :func:`batch_filters`: many small filters in one compiled kernel, on the
  GPU (one fused CUDA kernel) or the CPU.
* :func:`pmmh`: particle marginal Metropolis–Hastings of a
  :class:`ModelFamily`'s parameters, a batch of filters an iteration.
* :func:`kalman`: the exact filter for linear Gaussian models, the reference;
  :func:`rts`, its Rauch–Tung–Striebel smoother.
* :func:`smooth`: forward filtering, backward smoothing of a filter run.
* Models: :class:`LinearGaussian`, :class:`MultivariateLinearGaussian`,
  :class:`StochasticVolatility`, or your own (see :mod:`tandem.smc.models`).

Every random number of a filter comes from three streams of its root, one
per purpose (:class:`FilterStreams`): ``root.sub(PURPOSE_INITIAL)``,
``root.sub(PURPOSE_PROPAGATION)`` and ``root.sub(PURPOSE_RESAMPLING)``, the
strings ``"tandem.smc.initial"``, ``"tandem.smc.propagation"`` and
``"tandem.smc.resampling"``.  So one root reproduces a run, on any device.
``SCHEMES`` names the resampling schemes of :func:`resample` and
:func:`bootstrap_filter`: ``("multinomial", "systematic", "stratified",
"residual")``.
"""

from .filter import (
    PURPOSE_INITIAL,
    PURPOSE_PROPAGATION,
    PURPOSE_RESAMPLING,
    FilterResult,
    FilterStreams,
    bootstrap_filter,
)
from .kalman import KalmanResult, kalman, rts
from .models import LinearGaussian, MultivariateLinearGaussian, StochasticVolatility
from .resampling import SCHEMES, resample
from .smoothing import SmoothingResult, smooth

_BATCH = ("BatchModel", "BatchResult", "batch_filters", "linear_gaussian",
          "stochastic_volatility")
_PMMH = ("ModelFamily", "PMMHResult", "linear_gaussian_family", "pmmh")


def __getattr__(name):
    # The batch kernels compile on first use; import them then.
    if name in _BATCH:
        from . import batch

        return getattr(batch, name)
    if name in _PMMH:
        from . import particle_mcmc

        return getattr(particle_mcmc, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PURPOSE_INITIAL", "PURPOSE_PROPAGATION", "PURPOSE_RESAMPLING", "SCHEMES",
    "BatchModel", "BatchResult", "FilterResult", "FilterStreams", "KalmanResult", "LinearGaussian",
    "ModelFamily", "MultivariateLinearGaussian", "PMMHResult", "StochasticVolatility",
    "batch_filters", "bootstrap_filter", "kalman", "linear_gaussian", "linear_gaussian_family",
    "pmmh", "resample", "rts", "SmoothingResult", "smooth", "stochastic_volatility",
]
