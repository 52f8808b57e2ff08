"""The fused GPU filter (tandem.smc.filter_cuda) in Numba's CUDA simulator:
the array filter's draws and estimates, to rounding.

Under the simulator ``bootstrap_filter(..., device="cuda")`` of a built-in
model runs these kernels and returns NumPy arrays; blocks are 64 threads of
4 particles there, so 300 particles make two tiles, the second partial.
"""

import numpy as np
import pytest

import tandem
from tandem import smc
from tandem.smc import filter_cuda

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator's uint maths


def _same_run(fused, array):
    np.testing.assert_allclose(fused.means, array.means, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fused.variances, array.variances, rtol=1e-10)
    np.testing.assert_allclose(fused.ess, array.ess, rtol=1e-10)
    assert fused.log_likelihood == pytest.approx(array.log_likelihood, abs=1e-10)
    assert (fused.resampled == array.resampled).all()
    np.testing.assert_allclose(fused.particles, array.particles, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fused.weights, array.weights, rtol=1e-10, atol=1e-15)
    assert fused.streams == array.streams


def test_tiles_cover_the_particles_in_the_simulator():
    assert filter_cuda.TILE == 256 and 300 > filter_cuda.TILE


def test_systematic_with_a_threshold_equals_the_array_filter():
    """Linear Gaussian, resampling when the ESS falls below half: the same
    resamplings, ancestors and streams as the CPU's array filter."""
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = np.sin(np.arange(5.0)) * 2
    args = (model, y, 300)
    fused = smc.bootstrap_filter(tandem.Threefry(7), *args, ess_threshold=0.5, device="cuda")
    array = smc.bootstrap_filter(tandem.Threefry(7), *args, ess_threshold=0.5)
    assert array.resampled.any() and not array.resampled[:-1].all()
    _same_run(fused, array)


def test_stratified_stochastic_volatility_equals_the_array_filter():
    model = smc.StochasticVolatility(-1.0, 0.9, 0.3)
    y = np.cos(np.arange(4.0))
    fused = smc.bootstrap_filter(tandem.Philox(3), model, y, 300, resampling="stratified",
                                 device="cuda")
    array = smc.bootstrap_filter(tandem.Philox(3), model, y, 300, resampling="stratified")
    _same_run(fused, array)


def test_a_step_with_no_weight_stops_the_run():
    """Every log-density is -inf at step 2: the error the array filter
    raises, after no further step runs."""
    model = smc.LinearGaussian(0.9, 0.3, 1e-100)
    with pytest.raises(ValueError, match="all weights are zero at step 2"):
        smc.bootstrap_filter(tandem.Philox(1), model, [0.0, 0.0, 1e300, 0.0], 40,
                             device="cuda")
    with pytest.raises(ValueError, match="all weights are zero at step 2"):
        smc.bootstrap_filter(tandem.Philox(1), model, [0.0, 0.0, 1e300, 0.0], 40)


@pytest.mark.parametrize("model, resampling, root", [
    (smc.LinearGaussian(0.9, 0.3, 0.5), "multinomial", tandem.Philox(1)),
    (smc.LinearGaussian(0.9, 0.3, 0.5), "residual", tandem.Philox(1)),
    (smc.LinearGaussian(0.9, 0.3, 0.5), "systematic", tandem.Tandem(1)),
    (smc.MultivariateLinearGaussian([[0.9]], [[0.1]], [[1.0]], [[0.2]], [0.0], [[1.0]]),
     "systematic", tandem.Philox(1)),
])
def test_what_runs_as_array_code(model, resampling, root):
    streams = smc.FilterStreams.of(root)
    assert not filter_cuda.eligible(model, streams, resampling)


def test_draws_past_the_end_of_the_lane_are_refused():
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    root = tandem.Philox(1).sub(smc.PURPOSE_PROPAGATION).at(2**64 - 100)
    streams = smc.FilterStreams(tandem.Philox(1), root, tandem.Philox(2))
    with pytest.raises(ValueError, match="past the end"):
        smc.bootstrap_filter(streams, model, [0.0, 1.0, 2.0], 40, device="cuda")
