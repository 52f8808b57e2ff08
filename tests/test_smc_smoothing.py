"""Smoothing: the Rauch–Tung–Striebel smoother against Gaussian conditioning
of the joint law, and forward filtering–backward smoothing of particle
filters (tandem.smc.smooth) against it."""

import numpy as np
import pytest

import tandem
from tandem import smc

MODEL = smc.LinearGaussian(0.9, 0.3, 0.5)
Y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
VECTOR = smc.MultivariateLinearGaussian(
    A=[[0.8, 0.1], [0.0, 0.7]], Q=[[0.1, 0.02], [0.02, 0.05]], H=[[1.0, 0.5]], R=[[0.2]],
    m0=[0.0, 1.0], P0=[[1.0, 0.3], [0.3, 0.5]])
Y_VECTOR = [0.3, -0.1, 0.5, 0.2, -0.4]


def conditioned(model, y):
    """Means and variances of X_t given all of y, by conditioning the joint
    Gaussian of (X_0..X_{T-1}, Y_0..Y_{T-1}): an independent derivation."""
    A, Q, H, R = model.A, model.Q, model.H, model.R
    T, d = len(y), A.shape[0]
    mean_x = [model.m0]
    cov = np.zeros((T * d, T * d))
    blocks = [model.P0]
    for t in range(1, T):
        mean_x.append(A @ mean_x[-1])
        blocks.append(A @ blocks[-1] @ A.T + Q)
    for t in range(T):
        for s in range(t + 1):  # Cov(X_t, X_s) = A^(t-s) Var(X_s)
            block = np.linalg.matrix_power(A, t - s) @ blocks[s]
            cov[t * d:(t + 1) * d, s * d:(s + 1) * d] = block
            cov[s * d:(s + 1) * d, t * d:(t + 1) * d] = block.T
    big_h = np.kron(np.eye(T), H)
    cov_y = big_h @ cov @ big_h.T + np.kron(np.eye(T), R)
    y = np.asarray(y, dtype=float).reshape(-1)
    gain = cov @ big_h.T @ np.linalg.inv(cov_y)
    mean = np.concatenate(mean_x) + gain @ (y - big_h @ np.concatenate(mean_x))
    posterior = cov - gain @ big_h @ cov
    return mean.reshape(T, d), np.diag(posterior).reshape(T, d)


@pytest.mark.parametrize("model, y", [(MODEL, Y), (VECTOR, Y_VECTOR)])
def test_rts_equals_gaussian_conditioning(model, y):
    exact = smc.rts(model, y)
    full = model.as_multivariate() if isinstance(model, smc.LinearGaussian) else model
    means, variances = conditioned(full, y)
    np.testing.assert_allclose(np.reshape(exact.means, means.shape), means, atol=1e-12)
    np.testing.assert_allclose(np.reshape(exact.variances, variances.shape), variances,
                               atol=1e-12)
    assert exact.log_likelihood == smc.kalman(model, y).log_likelihood


@pytest.mark.parametrize("model, y, n", [(MODEL, Y, 1000), (VECTOR, Y_VECTOR, 500),
                                         (smc.StochasticVolatility(-1.0, 0.9, 0.4), None, 1000)])
def test_smoothed_means_match_rts(model, y, n):
    """16 independent filters (lanes of one root) each smoothed: the mean over
    runs of each step's smoothed mean within 7 of its standard errors (the
    runs' sd / 4) plus 0.01 for the O(1/n) bias, of RTS's; a t of 15 degrees
    of freedom beyond 7 has probability 4e-6, so about 5e-5 over the steps.
    The stochastic volatility model has no exact smoother: its smoothed means
    are checked against a run with 16 times the particles, the same way."""
    if y is None:
        y = [0.3, -1.2, 0.5, 0.1, -0.4, 0.9]
        reference = smc.smooth(smc.bootstrap_filter(tandem.Philox(5), model, y, 16 * n,
                                                    history=True), model).means
    else:
        reference = smc.rts(model, y).means
    root = tandem.Philox(31)
    runs = np.array([smc.smooth(smc.bootstrap_filter(root.split(r), model, y, n, history=True),
                                model).means for r in range(16)])
    se = runs.std(axis=0, ddof=1) / 4
    assert (np.abs(runs.mean(axis=0) - reference) < 7 * se + 0.01).all()
    assert (runs.std(axis=0) > 0).all()


def test_smoothing_needs_a_history_and_a_transition_density():
    run = smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 64)
    with pytest.raises(ValueError, match="history=True"):
        smc.smooth(run, MODEL)

    class NoDensity:
        pass

    kept = smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 64, history=True)
    with pytest.raises(TypeError, match="transition_logpdf"):
        smc.smooth(kept, NoDensity())
    # the history is the filter's own particles and weights at the end
    np.testing.assert_array_equal(kept.history[0][-1], kept.particles)
    np.testing.assert_allclose(kept.history[1][-1], kept.weights)
