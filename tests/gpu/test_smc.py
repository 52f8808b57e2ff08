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
