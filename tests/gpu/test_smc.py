"""tandem.smc on CuPy arrays: the same draws as on NumPy.

    TANDEM_GPU=1 pytest tests/gpu
"""

import numpy as np
import pytest

import tandem
from tandem import smc

cp = pytest.importorskip("cupy")


@pytest.mark.parametrize("scheme", smc.SCHEMES)
def test_cupy_filter_matches_numpy(scheme):
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    on_cpu = smc.bootstrap_filter(tandem.Philox(123456), model, y, 4096, resampling=scheme)
    on_gpu = smc.bootstrap_filter(tandem.Philox(123456), model, y, 4096, resampling=scheme,
                                  device="cuda")
    # Same draws; sums may round differently (see docs/smc.md).
    np.testing.assert_allclose(on_gpu.means.get(), on_cpu.means, rtol=0, atol=1e-9)
    assert on_gpu.log_likelihood == pytest.approx(on_cpu.log_likelihood, abs=1e-9)
    assert on_gpu.streams == on_cpu.streams


def test_batch_of_256_filters_matches_kalman():
    """256 filters of 1024 particles: the mean over filters is within 6
    standard errors of Kalman (t with 255 degrees of freedom: 4e-9)."""
    import math

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    result = smc.batch_filters(tandem.Philox(123456), model,
                               np.repeat(np.array(y)[:, None], 256, axis=1), 1024)
    exact = smc.kalman(model, y)
    se = result.means.std(axis=1, ddof=1) / math.sqrt(256)
    assert (np.abs(result.means.mean(axis=1) - exact.means) < 6 * se).all()


def test_batch_kernel_follows_its_rule_on_the_gpu():
    from test_smc_batch import MODEL, transcription

    y = np.random.default_rng(4).normal(size=(5, 4))
    result = smc.batch_filters(tandem.Philox(5), MODEL, y, 64)
    means, ll = transcription(tandem.Philox(5), MODEL, y, 64, True)
    np.testing.assert_allclose(result.means, means, rtol=0, atol=1e-9)
    np.testing.assert_allclose(result.log_likelihood, ll, rtol=1e-9)


@pytest.mark.parametrize("scheme", ["systematic", "multinomial"])
def test_batch_on_the_gpu_equals_the_cpu_to_rounding(scheme):
    """Same draws on both devices; the GPU fuses multiply-adds and sums by
    warps, so results agree to rounding.  The stochastic volatility model,
    a row of parameters a filter."""
    model = smc.StochasticVolatility(-1.0, 0.9, 0.4)
    y = np.random.default_rng(8).normal(size=20)
    rows = np.column_stack([np.linspace(-2, 0, 512), np.full(512, 0.9), np.full(512, 0.4)])
    on_gpu = smc.batch_filters(tandem.Philox(3), model, y, 256, params=rows, resampling=scheme)
    on_cpu = smc.batch_filters(tandem.Philox(3), model, y, 256, params=rows, resampling=scheme,
                               device="cpu")
    np.testing.assert_allclose(on_gpu.log_likelihood, on_cpu.log_likelihood, rtol=1e-9)
    np.testing.assert_allclose(on_gpu.means, on_cpu.means, rtol=0, atol=1e-9)


def test_pmmh_on_the_gpu_samples_the_cpu_posterior():
    """1024 chains x 300 iterations on the GPU against 64 x 300 on the CPU:
    the posterior means within 6 combined standard errors (spread of the
    chain means)."""
    from test_smc_pmmh import Y, prior

    def run(device, chains):
        return smc.pmmh(tandem.Philox(4), smc.linear_gaussian_family(), prior, Y, 128,
                        initial=[0.5, 1.0, 1.0], proposal_sd=[0.1, 0.1, 0.1], chains=chains,
                        iterations=300, device=device, progress=False)

    on_gpu, on_cpu = run("cuda", 1024), run("cpu", 64)
    for j in range(3):
        a, b = on_gpu.samples[:, :, j].mean(axis=1), on_cpu.samples[:, :, j].mean(axis=1)
        se = np.hypot(a.std(ddof=1) / np.sqrt(len(a)), b.std(ddof=1) / np.sqrt(len(b)))
        assert abs(a.mean() - b.mean()) < 6 * se


def test_smoothing_on_cupy_matches_numpy():
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    runs = [smc.bootstrap_filter(tandem.Philox(9), model, y, 2048, history=True, device=d)
            for d in ("cpu", "cuda")]
    on_cpu, on_gpu = (smc.smooth(run, model) for run in runs)
    np.testing.assert_allclose(on_gpu.means.get(), on_cpu.means, rtol=0, atol=1e-9)


class UserLinearGaussian(smc.LinearGaussian):
    """Not a built-in model to the filter, so it runs as CuPy-array code."""


class UserStochasticVolatility(smc.StochasticVolatility):
    """Not a built-in model to the filter, so it runs as CuPy-array code."""


@pytest.mark.parametrize("threshold", [None, 0.5])
@pytest.mark.parametrize("scheme", ["systematic", "stratified"])
@pytest.mark.parametrize("model", [smc.LinearGaussian(0.9, 0.3, 0.5),
                                   smc.StochasticVolatility(-1.0, 0.95, 0.25)])
def test_fused_filter_equals_the_array_filter(model, scheme, threshold):
    """The fused kernels and the CuPy-array code draw the same numbers: 5
    tiles (the last one partial), the same estimates to rounding."""
    user = (UserLinearGaussian(0.9, 0.3, 0.5) if isinstance(model, smc.LinearGaussian)
            else UserStochasticVolatility(-1.0, 0.95, 0.25))
    y = np.sin(np.arange(12.0))
    n = 4 * 2048 + 77
    fused = smc.bootstrap_filter(tandem.Philox(5), model, y, n, resampling=scheme,
                                 ess_threshold=threshold, device="cuda")
    array = smc.bootstrap_filter(tandem.Philox(5), user, y, n, resampling=scheme,
                                 ess_threshold=threshold, device="cuda")
    np.testing.assert_allclose(fused.means.get(), array.means.get(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(fused.variances.get(), array.variances.get(), rtol=1e-9)
    np.testing.assert_allclose(fused.ess, array.ess, rtol=1e-9)
    assert fused.log_likelihood == pytest.approx(array.log_likelihood, abs=1e-8)
    assert (fused.resampled == array.resampled).all()
    np.testing.assert_allclose(fused.particles.get(), array.particles.get(), rtol=0, atol=1e-9)
    assert fused.streams == array.streams


def test_fused_filter_of_ten_million_particles_matches_kalman():
    """n = 1e7: the means within 1e-3 of Kalman's (the Monte Carlo error of
    a mean is about 1e-4 here)."""
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = np.sin(np.arange(50.0))
    result = smc.bootstrap_filter(tandem.Philox(11), model, y, 10**7, device="cuda")
    assert np.abs(result.means.get() - smc.kalman(model, y).means).max() < 1e-3
