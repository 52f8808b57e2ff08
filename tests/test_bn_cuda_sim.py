"""tandem.bn's CUDA kernels, run by Numba's CUDA simulator: score tables and order-MCMC
chains equal to the CPU's bit for bit.

``tests/conftest.py`` turns the simulator on (``NUMBA_ENABLE_CUDASIM=1``) unless
``TANDEM_GPU=1``; it runs every thread in Python, so the tables are small and the
chains short.  ``tests/gpu/test_bn_gpu.py`` checks the same on a real GPU, at size.
"""

import dataclasses
import os

import numpy as np
import pytest
from test_bn_exact import synthetic_table

import tandem
from tandem import bn
from tandem.bn import combinations, cuda_mcmc, cuda_table, mcmc, scores

pytestmark = [pytest.mark.filterwarnings("ignore:overflow encountered"),
              pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1",
                                 reason="the simulator is off (TANDEM_GPU=1: tests/gpu)")]


def spread_table(table, at, m):
    """``table`` with candidate slot ``q`` moved to slot ``at[q]`` of ``m`` (the others
    -1 padding, their sets -inf)."""
    k = table.max_parents
    old_m = table.candidates.shape[1]
    old_sizes, old_sets = combinations.subset_table(old_m, k)
    old_rank = {tuple(at[q] for q in old_sets[r, :old_sizes[r]]): r
                for r in range(len(old_sizes))}
    sizes, sets = combinations.subset_table(m, k)
    columns = [old_rank.get(tuple(sets[r, :sizes[r]]), -1) for r in range(len(sizes))]
    scores = np.where(np.array(columns) >= 0, table.scores[:, columns], -np.inf)
    candidates = np.full((table.candidates.shape[0], m), -1, table.candidates.dtype)
    candidates[:, list(at)] = table.candidates
    return dataclasses.replace(table, scores=scores, candidates=candidates,
                               fingerprint=table.fingerprint + "-spread")


def both_tables(data, **kwargs):
    cpu = bn.score_table(data, progress=False, **kwargs)
    gpu = bn.score_table(data, progress=False, device="cuda", **kwargs)
    return cpu, gpu


@pytest.mark.parametrize("score", ["bdeu", "k2", "bic"])
def test_binary_kernel_tables_equal_the_cpu(score):
    # asia: every column binary, so the kernel with every count in registers
    data = bn.load_network("asia").sample(150, tandem.Philox(3))
    cpu, gpu = both_tables(data, score=score, max_parents=3)
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_general_kernel_table_equals_the_cpu():
    # child: arities 2 to 6, 60 rows for up to 216 configurations (pruned, and the
    # CPU's sorted sparse branch), a candidate restriction with padding
    data = bn.load_network("child").sample(60, tandem.Philox(4))
    cpu, gpu = both_tables(data, max_parents=2, candidates=4)
    assert np.isneginf(cpu.scores).any() or cpu.m == 4
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_bge_table_equals_the_cpu():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 6))
    x[:, 1] += x[:, 0]
    cpu, gpu = both_tables(bn.Dataset.gaussian(x), score="bge", max_parents=3)
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_computed_lgammas_slices_and_a_file(tmp_path, monkeypatch):
    # counts past the ratio table take lgamma64 on the device; 7 slices, the last
    # partial; the table lands in a .npy file
    monkeypatch.setattr(scores, "TABLE_ENTRIES", 64)
    monkeypatch.setattr(cuda_table, "SLICE_ENTRIES", 40)
    data = bn.load_network("survey").sample(300, tandem.Philox(5))
    cpu = bn.score_table(data, max_parents=2, progress=False)
    gpu = bn.score_table(data, max_parents=2, progress=False, device="cuda",
                         out=tmp_path / "survey.npy")
    assert scores.table_counts(len(scores.memo_alphas(scores.scorer(data), 2)), 300) < 301
    np.testing.assert_array_equal(gpu.scores, cpu.scores)
    assert os.listdir(tmp_path) == ["survey.npy"]


@pytest.fixture
def few_threads(monkeypatch):
    """Few threads a chain, so that each walks several sets, and several calls of the
    kernel a run, so that the state kept between calls is used."""
    monkeypatch.setattr(cuda_mcmc, "THREADS", 4)
    monkeypatch.setattr(cuda_mcmc, "SMALL_THREADS", 4)
    monkeypatch.setattr(mcmc, "FIRST_CHUNK", 4)


CHAINS = [
    # tempered replicas, every move, two DAGs an order
    (lambda: synthetic_table(5, 2, 13),
     dict(iterations=14, thin=3, burn_in=2, dags_per_order=2, temperatures=(1.0, 0.5),
          swap_every=4, moves={"adjacent": 1, "transposition": 1, "relocate": 1,
                               "gibbs_position": 0.5})),
    # nodes far below their top: the own scale
    (lambda: synthetic_table(5, 2, 12, strength=1000.0, noise=30.0),
     dict(iterations=12, thin=2, burn_in=2)),
    # sets of four parents
    (lambda: synthetic_table(7, 4, 3), dict(iterations=10, thin=2, burn_in=2)),
    # 66 candidate slots, five of them used, three past the first word of a slot mask
    (lambda: spread_table(synthetic_table(6, 1, 8), (0, 1, 63, 64, 65), 66),
     dict(iterations=8, thin=4, burn_in=1)),
]


@pytest.mark.parametrize("make,kwargs", CHAINS, ids=["tempered", "own-scale", "k4", "two-words"])
def test_chains_equal_the_cpu(make, kwargs, few_threads):
    table = make()
    cpu = bn.order_mcmc(table, tandem.Philox(5), chains=2, progress=False, **kwargs)
    gpu = bn.order_mcmc(table, tandem.Philox(5), chains=2, progress=False, device="cuda",
                        **kwargs)
    assert gpu == cpu


def test_chains_equal_the_cpu_with_more_threads_than_sets(monkeypatch):
    # 11 sets a node (5 nodes, k = 2) and 16 threads: every walk leaves threads idle
    monkeypatch.setattr(cuda_mcmc, "SMALL_THREADS", 16)
    table = synthetic_table(5, 2, 13)
    kwargs = dict(chains=2, iterations=8, thin=2, burn_in=2, dags_per_order=2,
                  progress=False)
    cpu = bn.order_mcmc(table, tandem.Philox(7), **kwargs)
    assert bn.order_mcmc(table, tandem.Philox(7), device="cuda", **kwargs) == cpu


def test_a_cpu_checkpoint_resumes_on_the_gpu(tmp_path, few_threads):
    table = synthetic_table(5, 2, 13)
    kwargs = dict(chains=2, thin=2, burn_in=4, progress=False)
    whole = bn.order_mcmc(table, tandem.Philox(6), iterations=12, **kwargs)
    path = tmp_path / "run.npz"
    bn.order_mcmc(table, tandem.Philox(6), iterations=6, checkpoint=path, **kwargs)
    resumed = bn.order_mcmc(table, tandem.Philox(6), iterations=12, resume=path,
                            device="cuda", **kwargs)
    assert resumed == whole


def test_chains_past_the_device_memory_are_refused(monkeypatch, few_threads):
    table = synthetic_table(5, 2, 13)
    class Small:  # a device with 1 KiB free
        def get_memory_info(self):
            return 1 << 10, 1 << 10

    monkeypatch.setattr(cuda_mcmc.cuda, "current_context", lambda: Small())
    with pytest.raises(MemoryError, match="GiB of device memory"):
        bn.order_mcmc(table, tandem.Philox(5), chains=2, iterations=4, progress=False,
                      device="cuda")


def test_fetch_copies_the_batches_in_use_and_clears_merged_ones():
    # a resumed run kept 500 orders a batch each; the device then kept 13 more, merged
    # pairs (batch size 2) and zeroed the upper half: batches 257.. must clear on the host
    from numba import cuda

    chains, batches, n, m = 2, 2 * mcmc.BATCHES, 3, 2
    host = {name: np.zeros(1, np.int64) for name in cuda_mcmc.STATE}
    rng = np.random.default_rng(1)
    stale = np.zeros((chains, batches, n, m), np.int32)
    stale[:, :500] = rng.integers(1, 9, (chains, 500, n, m))
    host["batch_counts"] = stale.copy()
    host["n_kept"] = np.full(chains, 500)
    chain_set = object.__new__(cuda_mcmc.DeviceChains)
    chain_set._host_batches = cuda_mcmc._batches_used(host["n_kept"])
    merged = np.zeros_like(stale)
    merged[:, :257] = rng.integers(1, 9, (chains, 257, n, m))
    chain_set._state = {name: cuda.to_device(host[name]) for name in cuda_mcmc.STATE}
    chain_set._state["batch_counts"] = cuda.to_device(merged)
    chain_set._state["n_kept"] = cuda.to_device(np.full(chains, 513))
    chain_set.fetch(host)
    np.testing.assert_array_equal(host["batch_counts"], merged)
    assert chain_set._host_batches == 257
    assert cuda_mcmc._batches_used(np.array([0, 0])) == 0
    assert cuda_mcmc._batches_used(np.array([513])) == 257
