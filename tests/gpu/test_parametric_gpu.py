"""The laws of tandem.parametric on a real GPU equal the CPU's, bit for bit."""

import numpy as np
import pytest

import tandem
from tandem import parametric

from test_parametric import FASTER, LAWS


@pytest.mark.parametrize("generator", [tandem.Philox, tandem.Tandem])
@pytest.mark.parametrize("start", [0, 1, 6])
@pytest.mark.parametrize("name", sorted(LAWS))
def test_gpu_fill_equals_cpu(name, start, generator):
    """Also on Tandem8x32 streams (the generator axis; start in words)."""
    import cupy

    stream = generator(20261201).sub("gpu").sub(name)
    stream = stream.at_word(stream.word_position + start)
    n = 3 * 2**20 + 5
    on_gpu, after = parametric.fill(stream, name, *LAWS[name][0], size=n, device="cuda")
    assert isinstance(on_gpu, cupy.ndarray)
    on_cpu, cpu_after = parametric.fill(stream, name, *LAWS[name][0], size=n)
    assert after == cpu_after
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), on_cpu)
    index = np.array([0, 17, n - 1])
    at = parametric.at(stream, name, cupy.asarray(index), *LAWS[name][0])
    np.testing.assert_array_equal(cupy.asnumpy(at), on_cpu[index])


@pytest.mark.parametrize("p", [0.2, 1e-300])
def test_gpu_geometric_counts_equal_cpu(p):
    """Stored as int64 by the kernel, the counts from 2**63 on as the largest int64."""
    import cupy

    stream = tandem.Philox(20261202).sub("gpu-geometric")
    n = 2**20 + 3
    on_gpu, _ = parametric.fill(stream, "geometric", p, size=n, device="cuda")
    assert on_gpu.dtype == np.int64
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu),
                                  parametric.fill(stream, "geometric", p, size=n)[0])


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


TWO_PARTS = [("standard_t", (3.0,)), ("standard_t", ([1.0, 30.0],)), ("f", (2.0, 3.0)),
             ("wald", (1.0, 2.0)), ("beta", (2.0, 3.0)), ("beta", (0.5, 0.5)),
             ("beta", (1.0, 1.0)), ("beta", (1e-3, 1e-3)),
             ("beta", ([0.5, 2.0], 0.7)), ("negative_binomial", (4.0, 0.3)),
             ("negative_binomial", (0.5, 0.05)), ("negative_binomial", ([4.0, 0.5], 0.3))]


@pytest.mark.parametrize("name,params", TWO_PARTS)
def test_gpu_laws_of_two_parts_equal_cpu(name, params):
    import cupy

    stream = tandem.Philox(20261202).sub("gpu-two-parts").sub(name).at(5)
    law = getattr(parametric, name)
    size = (2**19 + 3, 2)
    on_gpu, after = law(stream, *params, size=size, device="cuda")
    assert isinstance(on_gpu, cupy.ndarray)
    on_cpu, cpu_after = law(stream, *params, size=size)
    assert after == cpu_after
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), on_cpu)


ARRAYS = [("poisson", (np.linspace(0.0, 40.0, 1000),)),
          ("standard_gamma", (np.linspace(1e-3, 5.0, 1000),)),
          ("binomial", (np.arange(1000.0), np.linspace(0.0, 1.0, 1000))),
          ("laplace", (np.linspace(-1.0, 1.0, 1000), 2.0))]


@pytest.mark.parametrize("name,params", ARRAYS)
def test_gpu_array_parameters_equal_cpu(name, params):
    """Each element's own parameter words, host or CuPy arrays, by fill and
    by ``at``, across the regimes of the laws that have them."""
    import cupy

    stream = tandem.Philox(20261202).sub("gpu-arrays").sub(name)
    on_gpu, after = parametric.fill(stream, name, cupy.asarray(params[0]), *params[1:],
                                    size=(1000, 1000), device="cuda")
    assert isinstance(on_gpu, cupy.ndarray)
    on_cpu, cpu_after = parametric.fill(stream, name, *params, size=(1000, 1000))
    assert after == cpu_after
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), on_cpu)
    index = np.array([0, 17, 999_999])
    own = [p[index % 1000] if np.ndim(p) else p for p in params]  # each element's parameters
    at = parametric.at(stream, name, cupy.asarray(index), *own)
    np.testing.assert_array_equal(cupy.asnumpy(at), on_cpu.reshape(-1)[index])


@pytest.mark.parametrize("law,args", [
    ("multivariate_normal", ([0.5, -1.0], [[2.0, 0.6], [0.6, 1.0]], 2**18 + 3)),
    ("dirichlet", ([1.0, 2.0, 3.0], 2**18 + 3)), ("dirichlet", ([0.01, 0.05], 2**16 + 3)),
    ("dirichlet", ([0.5, 0.0, 1e-3, 4.0], 2**18 + 3)),
    ("dirichlet", ([1e-320, 3e-320, 1e-308], 2**16 + 3)),  # Jöhnk's logarithms at -inf
    ("multinomial", (100, [0.2, 0.3, 0.5], 2**16 + 3))])
def test_gpu_multivariate_laws_equal_cpu(law, args):
    import cupy

    from tandem import multivariate

    stream = tandem.Philox(20261202).sub("gpu-multivariate").sub(law)
    on_gpu, after = getattr(multivariate, law)(stream, *args, device="cuda")
    assert isinstance(on_gpu, cupy.ndarray)
    on_cpu, cpu_after = getattr(multivariate, law)(stream, *args)
    assert after == cpu_after
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), on_cpu)
