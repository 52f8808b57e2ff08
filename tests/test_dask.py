"""tandem.dask: Dask arrays equal to the single-machine fills, whatever the chunks."""

import importlib.metadata
import os
import pickle
import signal
import sys
import time

import numpy as np
import pytest

import dask
import dask.array as da

import tandem
import tandem.dask as tdask
from tandem import parametric

ROOT = tandem.Philox(2026).sub("dask")

# (function, parameters before size, keywords, the single-machine fill)
FILLS = [
    ("bits", (), {}, lambda s, n: s.bits(n)),
    ("random", (), {}, lambda s, n: s.random(n)),
    ("random", (), {"dtype": np.float32}, lambda s, n: s.random(n, dtype=np.float32)),
    ("integers", (3, 1000), {}, lambda s, n: s.integers(3, 1000, n)),
    ("bernoulli", (0.3,), {}, lambda s, n: s.bernoulli(0.3, n)),
    ("normal", (), {"loc": 1.0, "scale": 2.0}, lambda s, n: s.normal(n, loc=1.0, scale=2.0)),
    ("exponential", (), {}, lambda s, n: s.exponential(n)),
    ("gamma", (0.7, 2.0), {}, lambda s, n: parametric.fill(s, "gamma", 0.7, 2.0, size=n)),
    ("poisson", (30.0,), {}, lambda s, n: parametric.fill(s, "poisson", 30.0, size=n)),
    ("vonmises", (0.5, 4.0), {}, lambda s, n: parametric.fill(s, "vonmises", 0.5, 4.0,
                                                              size=n)),
]

SHAPE = (12, 10)
CHUNKINGS = [(12, 10), (5, 10), (12, 3), (5, 4), ((1, 11), (9, 1)), "auto"]


def whole(fill, shape, stream=ROOT):
    values, after = fill(stream, int(np.prod(shape)))
    return np.asarray(values).reshape(shape), after


@pytest.mark.parametrize("name,params,options,local", FILLS,
                         ids=[f"{f[0]}-{i}" for i, f in enumerate(FILLS)])
def test_every_chunking_gives_the_whole_fill(name, params, options, local):
    expected, after = whole(local, SHAPE)
    for chunks in CHUNKINGS:
        x, next_stream = getattr(tdask, name)(ROOT, *params, size=SHAPE, chunks=chunks,
                                              **options)
        values = x.compute(scheduler="synchronous")
        assert values.dtype == expected.dtype
        np.testing.assert_array_equal(values, expected, err_msg=f"chunks {chunks}")
        assert next_stream == after


# (function, parameters before size): laws of two parts, elementwise parameters
COMPOSED = [("beta", (np.linspace(0.3, 3.0, 10), 0.8)), ("beta", (0.5, 0.7)),
            ("standard_t", (4.0,)), ("f", (3.0, np.arange(1.0, 11.0))),
            ("negative_binomial", (3.0, 0.4)), ("wald", (1.0, 2.0))]
# rows of k components
ROWS = [("dirichlet", ([0.5, 1.0, 2.0],)), ("dirichlet", ([0.05, 0.08],)),
        ("multinomial", (20, [0.2, 0.3, 0.5])),
        ("multivariate_normal", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]))]


@pytest.mark.parametrize("name,params", COMPOSED, ids=[c[0] for c in COMPOSED])
def test_laws_of_two_parts_equal_the_whole_fill(name, params):
    expected, after = getattr(parametric, name)(ROOT, *params, size=SHAPE)
    for chunks in CHUNKINGS:
        x, next_stream = getattr(tdask, name)(ROOT, *params, size=SHAPE, chunks=chunks)
        np.testing.assert_array_equal(x.compute(scheduler="synchronous"), expected,
                                      err_msg=f"chunks {chunks}")
        assert next_stream == after


@pytest.mark.parametrize("name,params", ROWS, ids=[r[0] + str(i) for i, r in enumerate(ROWS)])
def test_rows_equal_the_whole_fill(name, params):
    from tandem import multivariate

    expected, after = getattr(multivariate, name)(ROOT.at(3), *params, size=SHAPE)
    for chunks in CHUNKINGS:
        x, next_stream = getattr(tdask, name)(ROOT.at(3), *params, size=SHAPE, chunks=chunks)
        assert x.chunks[-1] == (expected.shape[-1],)
        np.testing.assert_array_equal(x.compute(scheduler="synchronous"), expected,
                                      err_msg=f"chunks {chunks}")
        assert next_stream == after


def test_three_dimensions_and_a_moved_stream():
    stream = ROOT.at(12345)  # not a multiple of the width: rounded up, as the fill is
    shape = (4, 5, 6)
    expected, after = whole(lambda s, n: s.normal(n), shape, stream)
    for chunks in [(2, 5, 6), (4, 2, 6), (1, 5, 2), (3, 4, 5)]:
        x, next_stream = tdask.normal(stream, size=shape, chunks=chunks)
        np.testing.assert_array_equal(x.compute(scheduler="synchronous"), expected)
        assert next_stream == after


def test_parameter_arrays_broadcast_over_the_chunks():
    loc = np.arange(10.0)[None, :]
    scale = np.linspace(0.5, 2.0, 12)[:, None]
    expected, _ = parametric.fill(ROOT, "laplace", loc, scale, size=SHAPE)
    for chunks in [(5, 10), (12, 3), (5, 4)]:
        x, _ = tdask.laplace(ROOT, loc, scale, size=SHAPE, chunks=chunks)
        np.testing.assert_array_equal(x.compute(scheduler="synchronous"), expected)


def test_choice_from_an_alias_table():
    table = tandem.AliasTable([1.0, 2.0, 3.0, 0.5])
    expected, _ = ROOT.choice(table, 120)
    x, _ = tdask.choice(ROOT, table, size=SHAPE, chunks=(5, 4))
    np.testing.assert_array_equal(x.compute(scheduler="synchronous"),
                                  np.asarray(expected).reshape(SHAPE))


def test_four_threads_equal_the_serial_result():
    # each chunk runs tandem's kernels, from four of Dask's threads at once: fills
    # on tandem's pool, a multivariate normal's rows in a parallel region
    x, _ = tdask.normal(ROOT, size=(400_000,), chunks=25_000)
    serial = x.compute(scheduler="synchronous")
    with dask.config.set(scheduler="threads", num_workers=4):
        for _ in range(3):
            np.testing.assert_array_equal(x.compute(), serial)
    y, _ = tdask.gamma(ROOT, 0.5, 1.0, size=(200_000,), chunks=10_000)
    np.testing.assert_array_equal(y.compute(scheduler="threads", num_workers=4),
                                  y.compute(scheduler="synchronous"))
    rows, _ = tdask.multivariate_normal(ROOT, [0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]],
                                        size=(40_000,), chunks=10_000)
    np.testing.assert_array_equal(rows.compute(scheduler="threads", num_workers=4),
                                  rows.compute(scheduler="synchronous"))
    import numba

    # tandem picks tbb where it loads (installed with it on x86-64), else workqueue
    # behind a lock (tandem.parallel); the next test runs workqueue
    try:
        importlib.metadata.version("tbb")
    except importlib.metadata.PackageNotFoundError:
        assert numba.threading_layer() == "workqueue"
    else:
        assert numba.threading_layer() == "tbb"


WORKQUEUE_THREADS = """
import dask, numpy as np, tandem, tandem.dask
x, _ = tandem.dask.normal(tandem.Philox(3), size=(200_000,), chunks=10_000)
serial = x.compute(scheduler="synchronous")
rows, _ = tandem.dask.multivariate_normal(tandem.Philox(3), [0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]],
                                         size=(40_000,), chunks=10_000)
serial_rows = rows.compute(scheduler="synchronous")  # parallel regions
for _ in range(3):
    assert (x.compute(scheduler="threads", num_workers=4) == serial).all()
    assert (rows.compute(scheduler="threads", num_workers=4) == serial_rows).all()
import numba
print("ok", numba.threading_layer())
"""


def test_four_threads_under_workqueue_neither_abort_nor_change_a_value():
    # workqueue aborts the process when two threads enter a parallel region at once:
    # tandem's lock must keep Dask's threads out of each other's way
    from test_process_models import _run

    assert _run(WORKQUEUE_THREADS, layer="workqueue") == ["ok", "workqueue"]


def test_the_process_scheduler_equals_the_serial_result():
    x, _ = tdask.gamma(ROOT, 2.5, 1.0, size=(4, 50_000), chunks=(1, 20_000))
    serial = x.compute(scheduler="synchronous")
    from shadows import path_without_shadows

    with path_without_shadows():  # the pool's processes start with this path
        processes = x.compute(scheduler="processes", num_workers=2)
    np.testing.assert_array_equal(processes, serial)


def test_the_graph_carries_no_data():
    x, _ = tdask.normal(ROOT, size=(2_000, 1_000), chunks=(250, 1_000))  # 16 MB
    graph = dict(x.__dask_graph__())
    assert len(pickle.dumps(graph)) < 20_000
    assert not any(isinstance(v, np.ndarray) and v.size > 1 for v in _leaves(graph))


def _leaves(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            yield from _leaves(v)
    else:
        yield obj


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="chunks"):
        tdask.random(ROOT, size=(10, 10), chunks=(3, 3, 3))
    with pytest.raises(ValueError, match="chunks"):
        tdask.random(ROOT, size=(10,), chunks=((4, 4),))  # does not add up to 10
    with pytest.raises(ValueError, match="negative"):
        tdask.random(ROOT, size=(-1, 3))
    with pytest.raises(TypeError, match="size is required"):
        tdask.random(ROOT)
    with pytest.raises(TypeError, match="Stream"):
        tdask.random(np.random.default_rng(1), size=3)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        tdask.random(ROOT.at(2**64 - 8), size=(5,))
    with pytest.raises(ValueError, match="broadcast"):
        tdask.laplace(ROOT, np.zeros(3), 1.0, size=(4, 5))
    with pytest.raises(TypeError, match="parameters before size"):
        tdask.normal(ROOT, 0.0, size=3)
    with pytest.raises(ValueError):  # the law's own check, at once, not in a task
        tdask.gamma(ROOT, -1.0, 1.0, size=(4,))
    with pytest.raises(ValueError):
        tdask.beta(ROOT, 0.0, 1.0, size=(4,))
    with pytest.raises(ValueError, match="one chunk"):  # a row's components split
        tdask.dirichlet(ROOT, [1.0, 2.0, 3.0], size=(4,), chunks=(2, 2))
    with pytest.raises(ValueError, match="alpha"):
        tdask.dirichlet(ROOT, [[1.0]], size=(4,))


# -- a cluster of two worker processes on loopback (tests/conftest.py's client) ----

def _slowly(block):  # sent by value: the workers cannot import this module
    time.sleep(0.3)
    return block


def test_two_workers_give_the_local_result(client):
    expected, _ = whole(lambda s, n: parametric.fill(s, "poisson", 4.0, size=n), (300, 40))
    for chunks in [(100, 40), (300, 7), (37, 11)]:
        x, _ = tdask.poisson(ROOT, 4.0, size=(300, 40), chunks=chunks)
        np.testing.assert_array_equal(client.compute(x).result(timeout=120), expected)


def test_a_killed_worker_changes_nothing(client):
    expected, _ = whole(lambda s, n: s.normal(n), (40, 5_000))
    x, _ = tdask.normal(ROOT, size=(40, 5_000), chunks=(2, 5_000))
    future = client.compute(x.map_blocks(_slowly, dtype=x.dtype))
    deadline = time.monotonic() + 60
    while client.processing() and not any(client.processing().values()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)  # some chunks done, others running
    victim = sorted(client.scheduler_info()["workers"])[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)  # its nanny starts another; its tasks run again
    np.testing.assert_array_equal(future.result(timeout=120), expected)
    assert victim not in client.scheduler_info()["workers"]


def test_a_score_table_on_the_workers_equals_the_local_one(client):
    from tandem import bn

    data = bn.load_network("alarm").sample(500, tandem.Philox(3))
    local = bn.score_table(data, max_parents=2, progress=False)
    remote = bn.score_table(data, max_parents=2, progress=False, client=client)
    np.testing.assert_array_equal(remote.scores, local.scores)
    assert remote.fingerprint == local.fingerprint
    with pytest.raises(ValueError, match="device='cpu'"):
        bn.score_table(data, max_parents=1, progress=False, device="cuda", client=client)


def test_chains_on_the_workers_equal_their_local_twins(client):
    from tandem import bn

    data = bn.load_network("asia").sample(300, tandem.Philox(4))
    table = bn.score_table(data, max_parents=2, progress=False)
    kwargs = dict(chains=3, iterations=60, thin=3, temperatures=(1.0, 0.6), swap_every=5,
                  progress=False)
    local = bn.order_mcmc(table, tandem.Philox(9), **kwargs)
    assert bn.order_mcmc(table, tandem.Philox(9), client=client, **kwargs) == local
    with pytest.raises(ValueError, match="checkpoint"):
        bn.order_mcmc(table, tandem.Philox(9), client=client, checkpoint="run.npz", **kwargs)
    with pytest.raises(ValueError, match="chains"):  # checked before anything is sent
        bn.order_mcmc(table, tandem.Philox(9), client=client, chains=0, iterations=5)


def test_filters_on_the_workers_equal_the_local_ones(client):
    from tandem import smc

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    roots = [tandem.Philox(11).split(f) for f in range(4)]
    ys = [np.sin(np.arange(30) / (f + 2.0)) for f in range(4)]
    remote = tdask.bootstrap_filters(client, roots, model, ys, 256, ess_threshold=0.5)
    for root, y, result in zip(roots, ys, remote):
        local = smc.bootstrap_filter(root, model, y, 256, ess_threshold=0.5)
        assert result.log_likelihood == local.log_likelihood
        for name in ("means", "variances", "ess", "resampled", "particles", "weights"):
            np.testing.assert_array_equal(getattr(result, name), getattr(local, name))
        assert result.streams == local.streams
    with pytest.raises(ValueError, match="differ in length"):
        tdask.bootstrap_filters(client, roots, model, ys[:2], 256)


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's int32 words
def test_batch_filters_on_the_workers_equal_one_run(client):
    # the workers run the fused kernel in Numba's CUDA simulator here (they inherit
    # NUMBA_ENABLE_CUDASIM from conftest), on their GPUs in tests/gpu
    from tandem import smc

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = np.cos(np.arange(30.0) / 3.0).reshape(6, 5)
    local = smc.batch_filters(tandem.Philox(12), model, y, 8)
    for tasks in (None, 3, 5):
        remote = tdask.batch_filters(client, tandem.Philox(12), model, y, 8, tasks=tasks)
        for name in ("means", "variances", "ess", "log_likelihood"):
            np.testing.assert_array_equal(getattr(remote, name), getattr(local, name))
    with pytest.raises(ValueError, match="tasks"):
        tdask.batch_filters(client, tandem.Philox(12), model, y, 8, tasks=0)
