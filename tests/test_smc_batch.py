"""The batch kernels of tandem.smc, on the CPU and in Numba's CUDA simulator
(CI) or on a GPU: against a NumPy transcription of their rule, against each
other, and against Kalman."""

import math

import numpy as np
import pytest

import tandem
from tandem import distributions as D
from tandem import smc

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered")

MODEL = smc.LinearGaussian(0.9, 0.3, 0.5)
Y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]


def transcription(root, model, y, n, systematic):
    """The batch kernel's rule in NumPy: same draws, NumPy sums."""
    a, sd, osd, m0, s0 = (model.transition, model.process_sd, model.observation_sd,
                          model.initial_mean, model.initial_sd)
    streams = smc.FilterStreams.of(root)
    steps, filters = y.shape
    means, ll = np.empty((steps, filters)), np.zeros(filters)
    p = np.arange(n)
    for f in range(filters):
        init, prop, res = (s.split(f) for s in streams)
        x = m0 + s0 * D.normal_at(init, p)
        for t in range(steps):
            if t:
                x = a * x + sd * D.normal_at(prop, (t - 1) * n + p)
            r = (y[t, f] - x) / osd
            lw = -0.5 * r * r - math.log(osd) - 0.9189385332046728
            top = lw.max()
            w = np.exp(lw - top)
            cdf = np.cumsum(w)
            means[t, f] = (w * x).sum() / cdf[-1]
            ll[f] += top + math.log(cdf[-1] / n)
            if t < steps - 1:
                u = ((p + D.random_at(res, [t])[0]) / n if systematic
                     else D.random_at(res, t * n + p))
                x = x[np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), n - 1)]
    return means, ll


@pytest.mark.parametrize("resampling, n, filters", [
    ("systematic", 16, 3), ("multinomial", 16, 3),
    ("systematic", 64, 2),  # two warps: the sums across warps
])
def test_kernel_follows_its_rule(resampling, n, filters):
    y = np.array([[0.1, 0.3, -0.5], [0.4, -0.2, 0.1], [-0.2, 0.0, 0.6], [0.3, 0.2, 0.0]])
    y = y[:, :filters]
    result = smc.batch_filters(tandem.Philox(5), MODEL, y, n, resampling=resampling)
    means, ll = transcription(tandem.Philox(5), MODEL, y, n, resampling == "systematic")
    # The kernel sums in another order and may fuse multiply-adds: rounding only.
    np.testing.assert_allclose(result.means, means, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.log_likelihood, ll, rtol=1e-12)
    assert (result.ess > 0).all() and (result.ess <= n + 1e-9).all()


def test_batch_mean_matches_kalman():
    """8 filters of 16 particles on the worked example (the simulator is
    slow; tests/gpu runs 256 filters of 1024).  Each filter's mean has a
    variance below 4 V_t / n (an effective sample of at least n / 4, which
    the ESS output confirms), so the mean over filters is within
    6 sqrt(4 V_t / (n F)) of Kalman except with probability 2e-9."""
    y = np.repeat(np.array(Y)[:, None], 8, axis=1)
    result = smc.batch_filters(tandem.Philox(77), MODEL, y, 16)
    exact = smc.kalman(MODEL, Y)
    assert (result.ess >= 16 / 4).all()
    bound = 6 * np.sqrt(4 * exact.variances / (16 * 8))
    assert (np.abs(result.means.mean(axis=1) - exact.means) < bound).all()
    assert np.isfinite(result.log_likelihood).all()


def test_columns_with_their_first_lane_equal_the_whole_run():
    y = np.sin(np.arange(20.0)).reshape(5, 4)
    whole = smc.batch_filters(tandem.Philox(8), MODEL, y, 8)
    part = smc.batch_filters(tandem.Philox(8), MODEL, y[:, 1:3], 8, first_lane=1)
    for name in ("means", "variances", "ess"):
        np.testing.assert_array_equal(getattr(part, name), getattr(whole, name)[:, 1:3])
    np.testing.assert_array_equal(part.log_likelihood, whole.log_likelihood[1:3])


@pytest.mark.parametrize("resampling, n", [("systematic", 16), ("multinomial", 16),
                                          ("systematic", 5), ("multinomial", 3)])
def test_cpu_kernel_follows_the_rule(resampling, n):
    """Any particle count on the CPU; the sums in order, as the transcription's."""
    y = np.array([[0.1, 0.3, -0.5], [0.4, -0.2, 0.1], [-0.2, 0.0, 0.6], [0.3, 0.2, 0.0]])
    result = smc.batch_filters(tandem.Philox(5), MODEL, y, n, resampling=resampling,
                               device="cpu")
    means, ll = transcription(tandem.Philox(5), MODEL, y, n, resampling == "systematic")
    np.testing.assert_allclose(result.means, means, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.log_likelihood, ll, rtol=1e-12)


@pytest.mark.parametrize("resampling", ["systematic", "multinomial"])
def test_cpu_and_gpu_kernels_agree(resampling):
    """Equal draws: the same filters to rounding (8 filters of 32 particles)."""
    y = np.cos(np.arange(24.0)).reshape(3, 8)
    on_cpu = smc.batch_filters(tandem.Threefry(3), MODEL, y, 32, resampling=resampling,
                               device="cpu")
    on_gpu = smc.batch_filters(tandem.Threefry(3), MODEL, y, 32, resampling=resampling)
    for name in ("means", "variances", "ess", "log_likelihood"):
        np.testing.assert_allclose(getattr(on_cpu, name), getattr(on_gpu, name), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_each_filter_takes_its_row_of_parameters(device):
    """A row of ``params`` a filter equals a run of that filter's model on its lane."""
    y = np.array([0.1, 0.4, -0.2, 0.3])
    rows = np.array([[0.5, 0.3, 0.5, 0.0, 1.0], [0.9, 0.2, 0.4, 0.1, 2.0],
                     [-0.3, 1.0, 0.7, 0.0, 0.5]])
    together = smc.batch_filters(tandem.Philox(6), MODEL, y, 8, params=rows, device=device)
    for f, row in enumerate(rows):
        alone = smc.batch_filters(tandem.Philox(6), smc.LinearGaussian(*row), y[:, None], 8,
                                  first_lane=f, device=device)
        np.testing.assert_array_equal(together.means[:, f], alone.means[:, 0])
        np.testing.assert_array_equal(together.log_likelihood[f], alone.log_likelihood[0])


def test_stochastic_volatility_batch_matches_the_array_filter():
    """64 filters of 256 particles (CPU) against the array filter with 2**17
    particles on the same series: the mean over filters of each step's
    filtering mean within 6 sqrt(4 V_t / (n F)) + 6 sqrt(4 V_t / N) of the
    reference's (each filter worth at least n / 4 particles, which the ESS
    output confirms), a false alarm below 1e-8 a step; and the mean
    log-likelihood within 6 of its spread over the filters / sqrt(F) of the
    reference's."""
    model = smc.StochasticVolatility(mu=-1.0, phi=0.9, sigma=0.4)
    y = np.array([0.3, -1.2, 0.5, 0.1, -0.4, 0.9, -0.2, 0.05])
    batch = smc.batch_filters(tandem.Philox(31), model, y, 256,
                              params=np.tile([-1.0, 0.9, 0.4], (64, 1)), device="cpu")
    reference = smc.bootstrap_filter(tandem.Philox(32), model, y, 2**17)
    assert (batch.ess >= 256 / 4).all()
    bound = 6 * np.sqrt(4 * reference.variances / (256 * 64)) + 6 * np.sqrt(
        4 * reference.variances / 2**17)
    assert (np.abs(batch.means.mean(axis=1) - reference.means) < bound).all()
    spread = batch.log_likelihood.std() / np.sqrt(64)
    assert abs(batch.log_likelihood.mean() - reference.log_likelihood) < 6 * spread + 0.02


def test_a_user_written_model_matches_kalman():
    """A model written as three lambdas (the linear Gaussian model
    LinearGaussian(0.7, 0.5, 1.0) in other words): 32 filters of 128
    particles, the mean over filters within 6 sqrt(4 V_t / (n F)) of Kalman's."""
    walk = smc.BatchModel(
        initial=lambda z, params: z,
        transition=lambda x, z, params: params[0] * x + params[1] * z,
        log_density=lambda x, y, params: -0.5 * (y - x) ** 2 - 0.9189385332046728,
        params=(0.7, 0.5))
    y = np.array(Y)
    result = smc.batch_filters(tandem.Philox(13), walk, np.repeat(y[:, None], 32, axis=1), 128,
                               device="cpu")
    exact = smc.kalman(smc.LinearGaussian(0.7, 0.5, 1.0), y)
    assert (result.ess >= 128 / 4).all()
    bound = 6 * np.sqrt(4 * exact.variances / (128 * 32))
    assert (np.abs(result.means.mean(axis=1) - exact.means) < bound).all()


@pytest.mark.parametrize("call,error,match", [
    (lambda: smc.batch_filters(tandem.Tandem(1), MODEL, np.zeros((3, 2)), 8), TypeError,
     "Philox or Threefry"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8, device="tpu"),
     ValueError, "device"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros(3), 8, params=np.zeros(5)),
     TypeError, r"\(F, P\)"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8,
                               params=np.zeros((3, 5))), ValueError, "one row a filter"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 1)), 8,
                               params=[[np.nan] * 5]), ValueError, "finite"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 0, device="cpu"),
     ValueError, "positive"),

    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8,
                               first_lane=2**64 - 1), ValueError, "2\\*\\*64"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8,
                               first_lane=-1), ValueError, "at least 0"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8,
                               first_lane=1.0), TypeError, "first_lane"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 24), ValueError,
     "power of two"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros(3), 8), ValueError,
     r"\(T, F\)"),
    (lambda: smc.batch_filters(tandem.Philox(1), MODEL, np.zeros((3, 2)), 8,
                               resampling="residual"), ValueError, "resampling"),
    (lambda: smc.batch_filters(tandem.Philox(1), object(), np.zeros((3, 2)), 8), TypeError,
     "BatchModel"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
