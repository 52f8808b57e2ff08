"""tandem.bn.independence: the chi-square tail and the G² test against SciPy, and
the PC-stable skeleton against a plain implementation on SciPy's tests."""

import itertools

import numpy as np
import pytest
from scipy import stats

import tandem
from tandem.bn import load_network
from tandem.bn.independence import chi2_sf, g_test, pc_skeleton


@pytest.mark.parametrize("df", [1, 2, 3, 7, 30, 200, 900])
def test_chi2_sf_equals_scipys(df):
    for x in [0.0, 1e-6, 0.3, 1.0, df * 0.5, df, df + 3 * np.sqrt(2 * df), 5 * df + 40]:
        assert chi2_sf(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-11, abs=1e-300)


def g_by_scipy(data, x, y, z):
    """G² summed over the configurations of z, each by SciPy's
    chi2_contingency (log-likelihood, no continuity correction) on the
    rows and columns seen in it."""
    frame = data.to_dataframe()
    g2, df = 0.0, 0
    groups = [((), frame)] if not z else frame.groupby(list(z), observed=True)
    for _, part in groups:
        table = np.array(part.groupby([x, y], observed=True).size().unstack(fill_value=0))
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        if min(table.shape) < 2:
            continue
        result = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
        g2 += result.statistic
        df += result.dof
    return g2, df


@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm").sample(3000, tandem.Philox(4))


@pytest.mark.parametrize("x,y,z", [("HR", "CO", ()), ("HR", "BP", ("CO",)),
                                   ("VENTLUNG", "VENTALV", ("INTUBATION", "KINKEDTUBE")),
                                   ("HISTORY", "CVP", ("LVFAILURE", "HYPOVOLEMIA")),
                                   ("SAO2", "PVSAT", ("FIO2", "VENTALV"))])
def test_g_test_equals_scipys(alarm, x, y, z):
    g2, df, p = g_test(alarm, x, y, z)
    want_g2, want_df = g_by_scipy(alarm, x, y, z)
    assert g2 == pytest.approx(want_g2, rel=1e-9, abs=1e-9) and df == want_df
    assert p == pytest.approx(stats.chi2.sf(want_g2, want_df), rel=1e-9, abs=1e-300)


def test_g_test_refuses_bad_columns(alarm):
    with pytest.raises(ValueError, match="distinct"):
        g_test(alarm, "HR", "HR")
    with pytest.raises(ValueError, match="distinct"):
        g_test(alarm, "HR", "CO", ["CO"])


def pc_stable_by_scipy(data, alpha, max_order):
    """PC-stable's skeleton, written plainly, on g_by_scipy's statistics."""
    n, names = data.n_vars, data.names
    adjacent = ~np.eye(n, dtype=bool)
    for level in range(max_order + 1):
        before = adjacent.copy()
        for a, b in itertools.combinations(range(n), 2):
            for x, y in ((a, b), (b, a)):
                if not adjacent[x, y]:
                    break
                others = [c for c in range(n) if before[x, c] and c != y]
                for s in itertools.combinations(others, level):
                    g2, df = g_by_scipy(data, names[x], names[y], [names[c] for c in s])
                    if (stats.chi2.sf(g2, df) if df else 1.0) > alpha:
                        adjacent[x, y] = adjacent[y, x] = False
                        break
    return adjacent


@pytest.mark.parametrize("name,rows", [("asia", 3000), ("survey", 1500)])
def test_pc_skeleton_equals_the_plain_algorithm(name, rows):
    data = load_network(name).sample(rows, tandem.Philox(6))
    skeleton = pc_skeleton(data, alpha=0.01, max_order=2)
    assert np.array_equal(skeleton, skeleton.T) and not np.any(np.diag(skeleton))
    np.testing.assert_array_equal(skeleton, pc_stable_by_scipy(data, 0.01, 2))


def test_pc_skeleton_finds_most_true_edges_and_feeds_the_table():
    network = load_network("sachs")
    data = network.sample(5000, tandem.Philox(8))
    truth = network.adjacency() | network.adjacency().T
    skeleton = pc_skeleton(data)
    found = (skeleton & truth).sum() / truth.sum()
    assert found >= 0.8 and (skeleton & ~truth).sum() <= 0.2 * skeleton.sum()
    from tandem.bn import score_table

    table = score_table(data, candidates=skeleton, max_parents=2, progress=False)
    for v in range(data.n_vars):
        allowed = set(table.candidates[v][table.candidates[v] >= 0].tolist())
        assert allowed == set(np.flatnonzero(skeleton[:, v]).tolist())
    with pytest.raises(ValueError, match="alpha"):
        pc_skeleton(data, alpha=1.5)
