"""The exact Kalman filter for linear Gaussian models: the reference for the
particle filters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .models import LinearGaussian, MultivariateLinearGaussian


@dataclass(frozen=True)
class KalmanResult:
    """Filtering moments of ``X_t | Y_0..Y_t`` and ``log p(Y_0..Y_{T-1})``.

    ``means`` and ``variances`` have shape ``(T,)`` for a scalar model and
    ``(T, d)`` (the diagonal of ``covariances``) otherwise.
    """

    means: np.ndarray
    variances: np.ndarray
    covariances: np.ndarray
    log_likelihood: float


def kalman(model, observations):
    """Exact filtering means, variances and log-likelihood of a linear Gaussian model.

    Parameters
    ----------
    model : LinearGaussian or MultivariateLinearGaussian
    observations : array_like, shape (T,) or (T, k)
        ``Y_t`` observes ``X_t``, ``t = 0 .. T-1``, with ``X_0`` from the
        initial distribution (the convention of :func:`bootstrap_filter`).
    """
    scalar = isinstance(model, LinearGaussian)
    if scalar:
        model = model.as_multivariate()
    if not isinstance(model, MultivariateLinearGaussian):
        raise TypeError(f"kalman needs a linear Gaussian model, got {type(model).__name__}")
    y = np.asarray(observations, dtype=np.float64)
    y = y.reshape(len(y), -1)
    if not np.isfinite(y).all():
        raise ValueError("observations must be finite")
    A, Q, H, R = model.A, model.Q, model.H, model.R
    d = A.shape[0]
    means, covariances = np.empty((len(y), d)), np.empty((len(y), d, d))
    m, P = model.m0.copy(), model.P0.copy()
    log_likelihood = 0.0
    for t, y_t in enumerate(y):
        if t > 0:
            m, P = A @ m, A @ P @ A.T + Q
        S = H @ P @ H.T + R
        K = np.linalg.solve(S, H @ P).T  # P H' S^-1, S symmetric
        r = y_t - H @ m
        log_likelihood += -0.5 * (len(r) * np.log(2 * np.pi) + np.linalg.slogdet(S)[1]
                                  + r @ np.linalg.solve(S, r))
        m = m + K @ r
        I_KH = np.eye(d) - K @ H
        P = I_KH @ P @ I_KH.T + K @ R @ K.T  # Joseph form: stays symmetric
        means[t], covariances[t] = m, P
    variances = np.diagonal(covariances, axis1=1, axis2=2).copy()
    if scalar:
        means, variances = means[:, 0], variances[:, 0]
    return KalmanResult(means, variances, covariances, float(log_likelihood))
