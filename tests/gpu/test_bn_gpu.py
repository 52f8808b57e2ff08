"""tandem.bn's score tables on a real GPU: equal to the CPU's bit for bit.

    TANDEM_GPU=1 pytest tests/gpu/test_bn_gpu.py

hepar2 and pathfinder are read from ``$TANDEM_NETWORKS`` (default
``../shared/data/networks``, or ``.gpu-data/networks`` in the checkout, the
folder a GPU run carries).
"""

import os

import numpy as np
import pytest

import tandem
from tandem import bn
from tandem.bn import cuda_table, scores

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDERS = [os.environ.get("TANDEM_NETWORKS", ""), os.path.join(ROOT, "..", "shared", "data",
                                                                "networks"),
           os.path.join(ROOT, ".gpu-data", "networks")]


def network(name):
    if name in bn.NETWORKS:
        return bn.load_network(name)
    for folder in FOLDERS:
        path = os.path.join(folder, f"{name}.bif.gz")
        if folder and os.path.exists(path):
            return bn.read_bif(path)
    pytest.skip(f"{name}.bif.gz not found in {FOLDERS}")


def both(data, **kwargs):
    cpu = bn.score_table(data, progress=False, **kwargs)
    gpu = bn.score_table(data, progress=False, device="cuda", **kwargs)
    return cpu, gpu


@pytest.mark.parametrize("name", ["alarm", "hepar2"])
def test_k3_tables_equal_the_cpu(name):
    data = network(name).sample(1000, tandem.Philox(2024).sub(name))
    cpu, gpu = both(data, max_parents=3)
    assert gpu.scores.shape == cpu.scores.shape
    np.testing.assert_array_equal(gpu.scores, cpu.scores)
    assert gpu.fingerprint == cpu.fingerprint


@pytest.mark.parametrize("score", ["k2", "bic"])
def test_other_discrete_scores_equal_the_cpu(score):
    data = network("alarm").sample(2000, tandem.Philox(7))
    cpu, gpu = both(data, score=score, max_parents=2)
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_bge_equals_the_cpu():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 12))
    x[:, 1:] += 0.7 * x[:, :-1]
    data = bn.Dataset.gaussian(x)
    cpu, gpu = both(data, score="bge", max_parents=4)
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_large_arities_and_computed_lgammas_equal_the_cpu(monkeypatch):
    """pathfinder: a 63-state node (the configurations pruned depth first) and counts past
    the ratio table (lgamma64 on the device)."""
    monkeypatch.setattr(scores, "TABLE_ENTRIES", 1 << 12)
    data = network("pathfinder").sample(1000, tandem.Philox(11))
    cpu, gpu = both(data, max_parents=2)
    assert scores.table_counts(len(scores.memo_alphas(scores.scorer(data), 2)), 1000) < 1001
    np.testing.assert_array_equal(gpu.scores, cpu.scores)


def test_many_slices_and_a_file(tmp_path, monkeypatch):
    data = network("alarm").sample(500, tandem.Philox(9))
    cpu = bn.score_table(data, max_parents=2, progress=False)
    monkeypatch.setattr(cuda_table, "SLICE_ENTRIES", 999)  # 25 slices, the last partial
    gpu = bn.score_table(data, max_parents=2, progress=False, device="cuda",
                         out=tmp_path / "alarm.npy")
    np.testing.assert_array_equal(gpu.scores, cpu.scores)
    assert isinstance(gpu.scores, np.memmap) and os.listdir(tmp_path) == ["alarm.npy"]


@pytest.mark.parametrize("name, kwargs", [
    ("alarm", dict(iterations=400, temperatures=(1.0, 0.6, 0.3),
                   moves={"adjacent": 1, "transposition": 1, "relocate": 1,
                          "gibbs_position": 0.25})),
    ("hepar2", dict(iterations=300)),
])
def test_chains_equal_the_cpu(name, kwargs):
    data = network(name).sample(1000, tandem.Philox(2024).sub(name))
    table = bn.score_table(data, max_parents=3, progress=False, device="cuda")
    cpu = bn.order_mcmc(table, tandem.Philox(1), chains=4, thin=5, progress=False, **kwargs)
    gpu = bn.order_mcmc(table, tandem.Philox(1), chains=4, thin=5, progress=False,
                        device="cuda", **kwargs)
    assert gpu == cpu


def test_a_gpu_checkpoint_resumes_on_the_cpu(tmp_path):
    data = network("alarm").sample(1000, tandem.Philox(3))
    table = bn.score_table(data, max_parents=3, progress=False)
    kwargs = dict(chains=3, thin=4, burn_in=50, progress=False)
    whole = bn.order_mcmc(table, tandem.Philox(2), iterations=200, **kwargs)
    path = tmp_path / "run.npz"
    bn.order_mcmc(table, tandem.Philox(2), iterations=90, checkpoint=path, device="cuda",
                  **kwargs)
    assert bn.order_mcmc(table, tandem.Philox(2), iterations=200, resume=path,
                         **kwargs) == whole
