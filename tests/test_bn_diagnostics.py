"""tandem.bn.diagnostics: R-hat, chain comparison, SHD, AUROC and the plots."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tandem.bn import diagnostics as dg


def halves_of(chains):
    """Each chain's first and last halves (the middle draw of an odd length dropped)."""
    halves = []
    for chain in chains:
        h = len(chain) // 2
        halves.append(list(chain[:h]))
        halves.append(list(chain[len(chain) - h:]))
    return halves


def gelman_rubin_by_hand(sequences):
    """BDA3's R-hat (eq. 11.4) of the sequences, written out with plain loops."""
    n = len(sequences[0])
    means = [sum(c) / n for c in sequences]
    grand = sum(means) / len(means)
    b = n * sum((mu - grand) ** 2 for mu in means) / (len(means) - 1)
    w = sum(sum((x - mu) ** 2 for x in c) / (n - 1)
            for c, mu in zip(sequences, means)) / len(sequences)
    return math.sqrt(((n - 1) / n * w + b / n) / w)


def rhat_by_hand(chains):
    """BDA3's split R-hat written out with plain loops."""
    return gelman_rubin_by_hand(halves_of(chains))


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


def ranked_rhat_by_scipy(x):
    """Vehtari et al.'s rank-normalised split R-hat of one quantity, ranks by
    SciPy's rankdata and normal scores by SciPy's ndtri, R-hat by hand."""
    from scipy.special import ndtri
    from scipy.stats import rankdata

    halves = np.array(halves_of(x))
    s = halves.size

    def z(values):
        return ndtri((rankdata(values.ravel()) - 0.375) / (s + 0.25)).reshape(values.shape)

    bulk = gelman_rubin_by_hand(z(halves))
    tail = gelman_rubin_by_hand(z(np.abs(halves - np.median(halves))))
    return max(bulk, tail)


@pytest.mark.parametrize("draws", [40, 41])
def test_ranked_rhat_equals_scipys_ranks_and_normal_scores(draws):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, draws, 3))
    x[2, :, 1] += 0.8
    x[..., 2] = np.round(x[..., 2])  # ties: average ranks
    got = dg.ranked_rhat(x)
    for q in range(3):
        assert got[q] == pytest.approx(ranked_rhat_by_scipy(x[..., q]), rel=1e-12)


def test_ranked_rhat_edge_cases():
    assert dg.ranked_rhat(np.zeros((4, 10))).shape == ()  # one quantity: a 0-d array
    same = np.zeros((4, 10, 2))
    stuck = np.zeros((4, 10, 2))
    stuck[0] = 1.0  # each half-chain constant, chain 0 elsewhere
    assert dg.ranked_rhat(same).tolist() == [1.0, 1.0]
    assert dg.ranked_rhat(stuck).tolist() == [math.inf, math.inf]
    assert np.isnan(dg.ranked_rhat(np.zeros((4, 3, 1)))).all()
    heavy = np.random.default_rng(4).standard_cauchy(size=(4, 400))[..., None]
    assert dg.ranked_rhat(heavy)[0] < 1.02  # ranks: no moments needed
    with pytest.raises(ValueError, match="chains, draws"):
        dg.ranked_rhat(np.zeros(5))


def test_batch_means_errors_of_an_autoregressive_chain():
    """AR(1) chains x_t = phi x_{t-1} + e_t (unit innovations) have the mean's
    asymptotic variance 1 / (1 - phi)**2 a draw and marginal variance
    1 / (1 - phi**2). With 4 chains of 2**15 draws in 32 batches, the
    estimated variance has a relative sd of about sqrt(2 / 124) = 0.13, so
    +-35 % on it (+-17 % on the error) is a 2.7 sd band: a false alarm rate
    near 0.7 %, for the fixed draws here."""
    phi, n = 0.8, 2**15
    e = np.random.default_rng(5).normal(size=(4, n))
    x = np.empty_like(e)
    x[:, 0] = e[:, 0] / math.sqrt(1 - phi**2)
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    size = n // 32
    means = x.reshape(4, 32, size).mean(axis=2)
    variance = 1 / (1 - phi**2)
    se, ess = dg.batch_means_errors(means, size, n, variance)
    truth = math.sqrt(1 / (1 - phi) ** 2 / n / 4)
    assert 0.83 < se / truth < 1.17
    assert ess == pytest.approx(variance / se**2)
    assert 0.7 < ess / (4 * n * (1 - phi) / (1 + phi)) < 1.4
    nan_se, nan_ess = dg.batch_means_errors(means[:, :1], size, n, variance)
    assert np.isnan(nan_se) and np.isnan(nan_ess)
    _, zero_variance = dg.batch_means_errors(means, size, n, 0.0)
    assert np.isnan(zero_variance)


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
    # the post-burn-in panel shows iterations 50 .. 199 alone
    assert len(figures[0].axes) == 2 and "after burn-in" in figures[0].axes[1].get_title()
    assert figures[0].axes[1].lines[0].get_xdata()[0] == 50
    assert len(dg.plot_traces(traces).axes) == 1
    # every true edge is marked by what became of it, and the extras too
    p = np.zeros((5, 5))
    p[0, 1] = 0.9  # found
    p[4, 2] = 0.8  # found reversed
    p[3, 0] = 0.7  # not a true edge
    labels = sorted(t.get_text() for t in dg.plot_edge_probabilities(
        p, true_adjacency=true).legends[0].get_texts())
    assert labels == ["found, not a true edge (1)", "true edge, found (p > 0.5) (1)",
                      "true edge, found reversed (1)"]
    # the most disputed edges are named
    chains[:, 3, 1] = [0.0, 0.5, 1.0]
    box = [t.get_text() for t in dg.plot_chain_scatter(chains, names=list("abcde"),
                                                      label=2).axes[0].texts]
    assert box[-1].splitlines()[1] == "1: d -> b (chains 0.00 to 1.00)"
    with pytest.raises(ValueError, match="two chains"):
        dg.plot_chain_scatter(chains[:1])
