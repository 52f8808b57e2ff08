"""tandem.dask on a GPU: CuPy chunks, and filters on GPU workers, against local runs.

    TANDEM_GPU=1 pytest tests/gpu
"""

import numpy as np
import pytest

import tandem
import tandem.dask as tdask
from tandem import multivariate, parametric, smc

cp = pytest.importorskip("cupy")

ROOT = tandem.Philox(2026).sub("dask-gpu")
MODEL = smc.LinearGaussian(0.9, 0.3, 0.5)


@pytest.mark.parametrize("fill,local", [
    (lambda **k: tdask.normal(ROOT, **k), lambda: ROOT.normal((300, 200))),
    (lambda **k: tdask.gamma(ROOT, 0.7, 2.0, **k),
     lambda: parametric.fill(ROOT, "gamma", 0.7, 2.0, size=(300, 200))),
    (lambda **k: tdask.beta(ROOT, 2.0, 3.0, **k), lambda: parametric.beta(ROOT, 2.0, 3.0,
                                                                          (300, 200))),
    (lambda **k: tdask.dirichlet(ROOT, [0.5, 1.0, 2.0], **k),
     lambda: multivariate.dirichlet(ROOT, [0.5, 1.0, 2.0], (300, 200))),
], ids=["normal", "gamma", "beta", "dirichlet"])
def test_cupy_chunks_equal_the_cpu_fill(fill, local):
    expected, after = local()
    for chunks in [(300, 200), (64, 200), (300, 33), (17, 50)]:
        x, next_stream = fill(size=(300, 200), chunks=chunks, device="cuda")
        assert isinstance(x._meta, cp.ndarray)
        values = x.compute(scheduler="threads")
        assert isinstance(values, cp.ndarray)
        np.testing.assert_array_equal(values.get(), expected, err_msg=f"chunks {chunks}")
        assert next_stream == after


def test_bootstrap_filters_on_gpu_workers_equal_the_local_ones(client):
    roots = [tandem.Philox(11).split(f) for f in range(4)]
    ys = [np.sin(np.arange(40) / (f + 2.0)) for f in range(4)]
    remote = tdask.bootstrap_filters(client, roots, MODEL, ys, 4096, device="cuda")
    for root, y, result in zip(roots, ys, remote):
        local = smc.bootstrap_filter(root, MODEL, y, 4096, device="cuda")
        assert result.log_likelihood == local.log_likelihood
        for name in ("means", "variances", "ess", "particles", "weights"):
            np.testing.assert_array_equal(cp.asnumpy(getattr(result, name)),
                                          cp.asnumpy(getattr(local, name)))


def test_batch_filters_on_gpu_workers_equal_one_run(client):
    y = np.cos(np.arange(50 * 300) / 7.0).reshape(50, 300)
    local = smc.batch_filters(tandem.Philox(12), MODEL, y, 256)
    for tasks in (None, 7):
        remote = tdask.batch_filters(client, tandem.Philox(12), MODEL, y, 256, tasks=tasks)
        for name in ("means", "variances", "ess", "log_likelihood"):
            np.testing.assert_array_equal(getattr(remote, name), getattr(local, name))
