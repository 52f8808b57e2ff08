"""tandem.bn.diagnostics: R-hat, chain comparison, SHD, AUROC and the plots."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tandem.bn import diagnostics as dg


def rhat_by_hand(chains):
    """BDA3's split R-hat written out with plain loops."""
    halves = []
    for chain in chains:
        h = len(chain) // 2
        halves.append(list(chain[:h]))
        halves.append(list(chain[len(chain) - h:]))
    n = len(halves[0])
    means = [sum(c) / n for c in halves]
    grand = sum(means) / len(means)
    b = n * sum((mu - grand) ** 2 for mu in means) / (len(means) - 1)
    w = sum(sum((x - mu) ** 2 for x in c) / (n - 1) for c, mu in zip(halves, means)) / len(halves)
    return math.sqrt(((n - 1) / n * w + b / n) / w)


@pytest.mark.parametrize("draws", [40, 41])
def test_rhat_by_hand(draws):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, draws)) + np.array([[0.0], [0.3], [1.0]])
    x[1] += np.linspace(0, 2, draws)  # a trend inside one chain: split R-hat sees it
    assert dg.rhat(x) == pytest.approx(rhat_by_hand(x), rel=1e-12)
    assert dg.rhat(np.c_[np.zeros((3, 5)), x], burn_in=5) == pytest.approx(rhat_by_hand(x),
                                                                           rel=1e-12)


def test_rhat_behaviour():
    rng = np.random.default_rng(1)
    mixed = rng.normal(size=(4, 4000))
    assert abs(dg.rhat(mixed) - 1.0) < 0.01
    apart = mixed + np.arange(4)[:, None]
    assert dg.rhat(apart) > 1.5
    assert math.isnan(dg.rhat(mixed[:, :3]))
    assert dg.rhat(np.ones((2, 10))) == 1.0
    assert dg.rhat(np.r_[np.ones((1, 10)), np.zeros((1, 10))]) == math.inf
    with pytest.raises(ValueError, match="2-D"):
        dg.rhat(np.ones(10))
    with pytest.raises(ValueError, match="burn_in"):
        dg.rhat(mixed, burn_in=-1)


def test_chain_comparison():
    p = np.zeros((3, 2, 2))
    p[0, 0, 1] = 0.5
    p[1, 0, 1] = 0.7
    p[2, 1, 0] = 0.2
    d = dg.chain_differences(p)
    np.testing.assert_allclose(d, [[0, 0.2, 0.5], [0.2, 0, 0.7], [0.5, 0.7, 0]])
    se = dg.edge_standard_errors(p)
    assert se[0, 1] == pytest.approx(np.std([0.5, 0.7, 0.0], ddof=1) / math.sqrt(3))
    with pytest.raises(ValueError, match="two chains"):
        dg.edge_standard_errors(p[:1])
    with pytest.raises(ValueError, match="shape"):
        dg.chain_differences(np.zeros((2, 3)))


def test_shd():
    true = np.zeros((4, 4), dtype=bool)
    true[0, 1] = true[1, 2] = true[2, 3] = True
    assert dg.structural_hamming_distance(true, true) == 0
    est = true.copy()
    est[0, 1], est[1, 0] = False, True  # reversed: 1
    est[0, 3] = True  # extra: 1
    est[2, 3] = False  # missing: 1
    assert dg.structural_hamming_distance(est, true) == 3
    assert dg.structural_hamming_distance(est.astype(int), true.astype(int)) == 3
    assert dg.structural_hamming_distance(true, est) == 3
    with pytest.raises(ValueError, match="0 and 1"):
        dg.structural_hamming_distance(est * 0.7, true)
    with pytest.raises(ValueError, match="4 x 4"):
        dg.structural_hamming_distance(est[:3, :3], true)
    with pytest.raises(ValueError, match="self-loop"):
        dg.structural_hamming_distance(np.eye(4), true)


def test_auroc_equals_scikit_learn():
    rng = np.random.default_rng(2)
    n = 9
    true = np.triu(rng.random((n, n)) < 0.3, k=1)
    perm = rng.permutation(n)
    true = true[np.ix_(perm, perm)]
    # probabilities with many ties (rounded) and some signal
    p = np.round(np.clip(0.4 * true + rng.random((n, n)) * 0.7, 0, 1), 1)
    np.fill_diagonal(p, 0)
    off = ~np.eye(n, dtype=bool)
    assert dg.edge_auroc(p, true) == pytest.approx(roc_auc_score(true[off], p[off]), abs=1e-14)
    iu = np.triu_indices(n, k=1)
    expected = roc_auc_score((true | true.T)[iu], (p + p.T)[iu])
    assert dg.edge_auroc(p, true, directed=False) == pytest.approx(expected, abs=1e-14)
    assert dg.edge_auroc(true.astype(float), true) == 1.0
    assert math.isnan(dg.edge_auroc(p, np.zeros((n, n), dtype=bool)))


def test_plots(tmp_path):
    from matplotlib.figure import Figure

    rng = np.random.default_rng(3)
    traces = np.cumsum(rng.normal(size=(3, 200)), axis=1)
    chains = rng.random((3, 5, 5))
    true = np.zeros((5, 5), dtype=bool)
    true[0, 1] = true[2, 4] = True
    figures = [dg.plot_traces(traces, burn_in=50),
               dg.plot_edge_probabilities(chains.mean(axis=0), names=list("abcde"),
                                          true_adjacency=true),
               dg.plot_chain_scatter(chains)]
    for i, fig in enumerate(figures):
        assert isinstance(fig, Figure)
        path = tmp_path / f"f{i}.png"
        fig.savefig(path, dpi=50)
        assert path.stat().st_size > 1000
    assert "R-hat" in figures[0].axes[0].get_title()
    with pytest.raises(ValueError, match="two chains"):
        dg.plot_chain_scatter(chains[:1])
