"""The laws of tandem.parametric on a real GPU equal the CPU's, bit for bit."""

import numpy as np
import pytest

import tandem
from tandem import parametric

from test_parametric import FASTER, LAWS


@pytest.mark.parametrize("start", [0, 1, 6])
@pytest.mark.parametrize("name", sorted(LAWS))
def test_gpu_fill_equals_cpu(name, start):
    import cupy

    stream = tandem.Philox(20261201).sub("gpu").sub(name).at(start)
    n = 3 * 2**20 + 5
    on_gpu, after = parametric.fill(stream, name, *LAWS[name][0], size=n, device="cuda")
    assert isinstance(on_gpu, cupy.ndarray)
    on_cpu, cpu_after = parametric.fill(stream, name, *LAWS[name][0], size=n)
    assert after == cpu_after
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), on_cpu)
    index = np.array([0, 17, n - 1])
    at = parametric.at(stream, name, cupy.asarray(index), *LAWS[name][0])
    np.testing.assert_array_equal(cupy.asnumpy(at), on_cpu[index])


def test_gpu_johnks_beta_equals_cpu():
    import cupy

    stream = tandem.Philox(20261201).sub("gpu").sub("beta_johnk")
    n = 2**20 + 3
    on_gpu, _ = parametric.fill(stream, "beta_johnk", 0.4, 0.7, size=n, device="cuda")
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu),
                                  parametric.fill(stream, "beta_johnk", 0.4, 0.7, size=n)[0])


@pytest.mark.parametrize("name,params,kind", FASTER)
def test_gpu_faster_kinds_equal_cpu(name, params, kind):
    import cupy

    stream = tandem.Philox(20261201).sub("gpu-faster").sub(name).at(3)
    n = 2**20 + 7
    on_gpu, _ = parametric.fill(stream, name, *params, size=n, device="cuda")
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu),
                                  parametric.fill(stream, name, *params, size=n)[0])
