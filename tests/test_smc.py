"""tandem.smc against the exact Kalman filter and the laws of resampling.

Every statistical check runs on fixed streams, so it is deterministic; each
states the rate at which it would fail by chance.
"""

import math

import numpy as np
import pytest
from scipy import stats

import tandem
from tandem import smc

MODEL = smc.LinearGaussian(0.9, 0.3, 0.5)
Y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]


def joint_gaussian_filter(model, y):
    """Filtering means and log-likelihood by conditioning the joint Gaussian
    of (X_0..X_T, Y_0..Y_T): an independent derivation of what Kalman gives."""
    T = len(y)
    cov_x = np.empty((T, T))
    var = model.initial_sd**2
    for t in range(T):
        if t:
            var = model.transition**2 * var + model.process_sd**2
        cov_x[t, t] = var
        for s in range(t):
            cov_x[s, t] = cov_x[t, s] = model.transition ** (t - s) * cov_x[s, s]
    mean_x = model.initial_mean * model.transition ** np.arange(T)
    cov_y = cov_x + model.observation_sd**2 * np.eye(T)
    means = [mean_x[t] + cov_x[t, :t + 1] @ np.linalg.solve(cov_y[:t + 1, :t + 1],
                                                            np.asarray(y[:t + 1]) - mean_x[:t + 1])
             for t in range(T)]
    return np.array(means), stats.multivariate_normal(mean_x, cov_y).logpdf(y)


def test_kalman_equals_gaussian_conditioning():
    result = smc.kalman(MODEL, Y)
    means, log_likelihood = joint_gaussian_filter(MODEL, Y)
    np.testing.assert_allclose(result.means, means, rtol=0, atol=1e-12)
    assert result.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)
    assert result.means[0] == pytest.approx(0.08) and result.variances[0] == pytest.approx(0.2)
    vector = smc.kalman(MODEL.as_multivariate(), Y)
    np.testing.assert_allclose(vector.means[:, 0], result.means, atol=1e-14)


def mc_sd_of_means(model, y, n, runs=40):
    """The Monte Carlo sd of the filter's means at ``n`` particles, from
    ``runs`` independent filters (lanes of one root)."""
    root = tandem.Philox(2718)
    means = [smc.bootstrap_filter(root.split(r), model, y, n).means for r in range(runs)]
    return np.std(means, axis=0, ddof=1)


def test_worked_example_within_monte_carlo_error():
    """65,536 particles from Philox(123456) against Kalman.

    The bound is 6 Monte Carlo sds, each estimated from 40 filters of 4,096
    particles and scaled by sqrt(4096 / 65536).  A normal error passes
    6 sds with probability 2e-9; with the sd itself estimated (39 degrees of
    freedom) the false-alarm rate per step is below 1e-5.
    """
    result = smc.bootstrap_filter(tandem.Philox(123456), MODEL, Y, 65536)
    exact = smc.kalman(MODEL, Y)
    bound = 6 * mc_sd_of_means(MODEL, Y, 4096) * math.sqrt(4096 / 65536)
    error = np.abs(result.means - exact.means)
    assert (error < bound).all(), (error, bound)
    assert error.max() < 0.01
    np.testing.assert_allclose(result.variances, exact.variances, rtol=0.05)
    assert result.ess.min() > 0.5 * 65536 and result.resampled[:-1].all()


def test_vector_model_within_monte_carlo_error():
    model = smc.MultivariateLinearGaussian(
        A=[[0.8, 0.1], [0.0, 0.7]], Q=[[0.1, 0.02], [0.02, 0.05]], H=[[1.0, 0.5]], R=[[0.2]],
        m0=[0.0, 1.0], P0=[[1.0, 0.3], [0.3, 0.5]])
    y = [0.3, -0.1, 0.5, 0.2]
    result = smc.bootstrap_filter(tandem.Philox(99), model, y, 16384)
    exact = smc.kalman(model, y)
    sd = np.sqrt(exact.variances / result.ess[:, None])
    # 8 sds of an effective sample: loose for path degeneracy, 1e-15 by chance.
    assert (np.abs(result.means - exact.means) < 8 * sd).all()


def test_likelihood_is_unbiased_on_the_natural_scale():
    """E[exp(log L-hat)] = L: the mean of L-hat / L over 400 filters of 128
    particles.  z = (mean - 1) / (sd / sqrt(400)) passes |z| < 5 with
    probability 1 - 6e-7 (the ratio's tails are light here: Var(log L-hat)
    is about 0.02)."""
    exact = smc.kalman(MODEL, Y).log_likelihood
    root = tandem.Philox(31415)
    logs = np.array([smc.bootstrap_filter(root.split(r), MODEL, Y, 128).log_likelihood
                     for r in range(400)])
    assert logs.var() < 1.0
    ratio = np.exp(logs - exact)
    z = (ratio.mean() - 1) / (ratio.std(ddof=1) / math.sqrt(len(ratio)))
    assert abs(z) < 5, z
    # log L-hat is biased downwards (Jensen): its mean sits below log L.
    assert logs.mean() < exact


@pytest.mark.parametrize("scheme", smc.SCHEMES)
def test_offspring_counts_match_n_times_the_weights(scheme):
    """Over 300 resamplings of 1,000 particles, each particle's mean count is
    within 6 multinomial sds of n W (the other schemes vary less); with 1,000
    particles the false-alarm rate is below 2e-6."""
    rng = np.random.default_rng(0)
    weights = rng.gamma(0.5, size=1000)
    weights[::10] = 0.0
    weights /= weights.sum()
    n, runs = weights.size, 300
    stream = tandem.Philox(5).sub(scheme)
    counts = np.zeros(n)
    for _ in range(runs):
        ancestors, stream = smc.resample(scheme, weights, stream)
        assert ancestors.size == n and (np.diff(ancestors) >= 0).all()
        c = np.bincount(ancestors, minlength=n)
        assert not c[weights == 0].any()
        if scheme == "systematic":
            assert ((c >= np.floor(n * weights)) & (c <= np.ceil(n * weights))).all()
        if scheme == "residual":
            assert (c >= np.floor(n * weights)).all()
        counts += c
    sd = np.sqrt(n * weights * (1 - weights) / runs)
    assert (np.abs(counts / runs - n * weights) <= 6 * sd + 1e-12).all()


def test_uniforms_per_step_do_not_depend_on_the_weights():
    stream = tandem.Philox(8)
    for scheme, used in (("systematic", 1), ("multinomial", 50), ("residual", 50)):
        for weights in (np.full(50, 0.02), np.eye(1, 50)[0]):
            _, after = smc.resample(scheme, weights, stream)
            assert after.position == stream.position + 2 * used


def test_same_root_same_result_and_streams_continue():
    a = smc.bootstrap_filter(tandem.Philox(4), MODEL, Y, 1000, resampling="residual")
    b = smc.bootstrap_filter(tandem.Philox(4), MODEL, Y, 1000, resampling="residual")
    np.testing.assert_array_equal(a.means, b.means)
    np.testing.assert_array_equal(a.particles, b.particles)
    assert a.log_likelihood == b.log_likelihood and a.streams == b.streams
    assert a.streams.initial == smc.FilterStreams.of(tandem.Philox(4)).initial.at(2 * 1000)
    c = smc.bootstrap_filter(a.streams, MODEL, Y, 1000, resampling="residual")
    assert not np.array_equal(c.means, a.means)


def test_adaptive_resampling_and_stochastic_volatility():
    model = smc.StochasticVolatility(mu=-1.0, phi=0.9, sigma=0.3)
    y = np.array([0.5, -0.3, 1.2, 0.1, -0.8, 0.05, 0.4, -1.5])
    always = smc.bootstrap_filter(tandem.Philox(6), model, y, 4000)
    adaptive = smc.bootstrap_filter(tandem.Philox(6), model, y, 4000, ess_threshold=0.5)
    assert always.resampled[:-1].all() and not always.resampled[-1]
    assert not adaptive.resampled.all()
    assert (adaptive.ess[:-1][~adaptive.resampled[:-1]] >= 0.5 * 4000).all()
    # Two estimates of one log-likelihood, each with an sd near 0.05.
    assert abs(always.log_likelihood - adaptive.log_likelihood) < 0.5


@pytest.mark.parametrize("call,error,match", [
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 0), ValueError, "positive"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 10.0), TypeError, "integer"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, [0.1, np.nan], 10), ValueError,
     "step 1"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, [], 10), ValueError, "non-empty"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 10, resampling="bogus"),
     ValueError, "resampling"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), MODEL, Y, 10, ess_threshold=1.5),
     ValueError, "ess_threshold"),
    (lambda: smc.bootstrap_filter(123, MODEL, Y, 10), TypeError, "root"),
    (lambda: smc.LinearGaussian(0.9, -1.0, 0.5), ValueError, "process_sd"),
    (lambda: smc.StochasticVolatility(phi=1.0), ValueError, "phi"),
    (lambda: smc.kalman(smc.StochasticVolatility(), Y), TypeError, "linear Gaussian"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_all_weights_zero_is_an_error():
    class Impossible(smc.LinearGaussian):
        def observation_logpdf(self, x, y, t):
            return np.full(x.shape[0], -np.inf) if t == 2 else super().observation_logpdf(x, y, t)

    with pytest.raises(ValueError, match="step 2"):
        smc.bootstrap_filter(tandem.Philox(1), Impossible(0.9, 0.3, 0.5), Y, 100)


def test_merge_equals_searchsorted():
    from tandem.smc._merge import inverse_cdf_sorted

    rng = np.random.default_rng(3)
    weights = rng.random(500)
    weights[rng.random(500) < 0.3] = 0.0  # flat stretches of the CDF
    cdf = np.cumsum(weights / weights.sum())
    points = np.sort(np.concatenate([rng.random(2000), cdf[:50], [1.0, 1.5]]))
    expected = np.minimum(np.searchsorted(cdf, points, side="right"), cdf.size - 1)
    np.testing.assert_array_equal(inverse_cdf_sorted(cdf, points), expected)


@pytest.mark.parametrize("columns", [None, 2])
@pytest.mark.parametrize("scheme", ["systematic", "stratified", "multinomial"])
def test_compiled_passes_follow_the_array_rule_at_any_thread_count(scheme, columns):
    """Three chunks of the compiled passes on a vector and a matrix of
    particles: the same bits on 1 and 2 threads, the rule of
    ``resample_into`` exactly, and the array code's ancestors and moments
    (here on NumPy) to rounding."""
    import numba

    from tandem.smc import _merge

    n = 2 * _merge._CHUNK + 123
    shape = (n,) if columns is None else (n, columns)
    rng = np.random.default_rng(8)
    x = rng.normal(size=shape)
    log_weights = rng.normal(size=n)
    log_weights[rng.random(n) < 0.2] = -np.inf  # zero weights: flat stretches of the CDF
    log_weights[rng.random(n) < 0.01] = 3.0  # particles with many offspring
    u = np.sort(rng.random(n)) if scheme == "multinomial" else rng.random(n)
    runs = []
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(threads)
        w, cdf, out = np.empty(n), np.empty(n), np.empty(shape)
        mean, variance = np.empty(columns or 1), np.empty(columns or 1)
        top, total, squares = _merge.weigh(log_weights, x, w, cdf, mean, variance)
        _merge.resample_into(_merge.SCHEME_CODES[scheme], cdf, u, x, out)
        runs.append((w, cdf, mean, variance, out, (top, total, squares)))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    w, cdf, mean, variance, out, (top, total, squares) = runs[0]
    scaled = {"systematic": np.arange(n) + u[0], "stratified": np.arange(n) + u,
              "multinomial": u * n}[scheme]
    exact = np.minimum(np.searchsorted(cdf * (n / cdf[-1]), scaled, side="right"), n - 1)
    np.testing.assert_array_equal(out, x[exact])
    x, out = x.reshape(n, -1), out.reshape(n, -1)
    W = np.exp(log_weights - log_weights.max())
    W /= W.sum()
    np.testing.assert_allclose(mean, W @ x, rtol=1e-12)
    np.testing.assert_allclose(variance, W @ (x - W @ x) ** 2, rtol=1e-12)
    assert total * total / squares == pytest.approx(1 / (W * W).sum(), rel=1e-12)
    points = {"systematic": (np.arange(n) + u[0]) / n, "stratified": (np.arange(n) + u) / n,
              "multinomial": u}[scheme]
    expected = np.minimum(np.searchsorted(np.cumsum(W), points, side="right"), n - 1)
    # the same rule; an ancestor may differ where a point is within rounding
    # of a cumulative weight (normalised here, not there)
    assert (out == x[expected]).all(axis=1).mean() > 0.9999
