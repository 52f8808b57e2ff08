"""The exact Kalman filter for linear Gaussian models.

The reference for the particle filters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .models import LinearGaussian, MultivariateLinearGaussian


@dataclass(frozen=True)
class KalmanResult:
    """The result of :func:`tandem.smc.kalman`.

    Filtering moments of ``X_t | Y_0..Y_t`` and ``log p(Y_0..Y_{T-1})``.
    ``means`` and ``variances`` have shape ``(T,)`` for a scalar model and
    ``(T, d)`` (the diagonal of ``covariances``) otherwise.

    Parameters
    ----------
    means : numpy.ndarray, shape (T,) or (T, d)
        The means of ``X_t`` given ``Y_0 .. Y_t``.
    variances : numpy.ndarray, shape (T,) or (T, d)
        Their variances (per coordinate for a vector state).
    covariances : numpy.ndarray, shape (T, d, d)
        Their covariance matrices (``d = 1`` for a scalar model).
    log_likelihood : float
        ``log p(Y_0 .. Y_{T-1})``.

    Examples
    --------
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> exact = smc.kalman(model, [0.1, 0.4, -0.2])
    >>> exact.means.shape, exact.covariances.shape
    ((3,), (3, 1, 1))
    """

    means: np.ndarray
    variances: np.ndarray
    covariances: np.ndarray
    log_likelihood: float


def kalman(model: LinearGaussian | MultivariateLinearGaussian,
           observations: ArrayLike) -> KalmanResult:
    """Exact filtering means, variances and log-likelihood of a linear Gaussian model.

    The reference for the particle filters: it is itself checked against
    Gaussian conditioning of the joint law of ``(X, Y)`` and SciPy's
    multivariate normal density.

    Parameters
    ----------
    model : LinearGaussian or MultivariateLinearGaussian
        The model.
    observations : array_like, shape (T,) or (T, k)
        ``Y_t`` observes ``X_t``, ``t = 0 .. T-1``, with ``X_0`` from the
        initial distribution (the convention of
        :func:`tandem.smc.bootstrap_filter`); finite.

    Returns
    -------
    KalmanResult
        The filtering means, variances and covariances at every step, and
        the log-likelihood of all the observations.

    Raises
    ------
    TypeError
        If ``model`` is not a linear Gaussian model.
    ValueError
        If an observation is not finite.

    See Also
    --------
    tandem.smc.bootstrap_filter : The particle filter it checks.

    Notes
    -----
    The covariances are updated in Joseph form, which keeps them symmetric.

    Examples
    --------
    The worked example of ``docs/smc.md``:

    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> exact = smc.kalman(model, [0.1, 0.4, -0.2, 0.3, 0.0, 0.2])
    >>> exact.means.round(6)
    array([0.08    , 0.236653, 0.033774, 0.142475, 0.075573, 0.122023])
    >>> round(exact.log_likelihood, 5)
    -4.01789
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


def rts(model: LinearGaussian | MultivariateLinearGaussian,
        observations: ArrayLike) -> KalmanResult:
    """Exact smoothing means and variances of a linear Gaussian model: the
    Rauch–Tung–Striebel smoother over :func:`tandem.smc.kalman`'s filter.

    Parameters
    ----------
    model : LinearGaussian or MultivariateLinearGaussian
        The model.
    observations : array_like, shape (T,) or (T, k)
        As for :func:`tandem.smc.kalman`.

    Returns
    -------
    KalmanResult
        The moments of ``X_t | Y_0 .. Y_{T-1}`` at every step, and the
        log-likelihood.

    Raises
    ------
    TypeError
        If ``model`` is not a linear Gaussian model.
    ValueError
        If an observation is not finite.

    Examples
    --------
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    >>> smoothed = smc.rts(model, y)
    >>> bool(smoothed.means[-1] == smc.kalman(model, y).means[-1])  # the last step is filtered
    True
    """
    filtered = kalman(model, observations)
    scalar = isinstance(model, LinearGaussian)
    full = model.as_multivariate() if scalar else model
    A, Q = full.A, full.Q
    T, d = len(filtered.covariances), A.shape[0]
    means = filtered.means.reshape(T, d).copy()
    covariances = filtered.covariances.copy()
    for t in range(T - 2, -1, -1):
        P = filtered.covariances[t]
        predicted = A @ P @ A.T + Q
        gain = np.linalg.solve(predicted, A @ P).T  # P A' predicted^-1
        means[t] = means[t] + gain @ (means[t + 1] - A @ means[t])
        covariances[t] = P + gain @ (covariances[t + 1] - predicted) @ gain.T
    variances = np.diagonal(covariances, axis1=1, axis2=2).copy()
    if scalar:
        means, variances = means[:, 0], variances[:, 0]
    return KalmanResult(means, variances, covariances, filtered.log_likelihood)
