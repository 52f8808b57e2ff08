"""tandem.bn.pruning: dominated parent sets, and tables without their candidates."""

import dataclasses
import itertools

import numpy as np
import pytest

import tandem
from tandem import bn
from tandem.bn import combinations, mcmc, node_sums, pruning


@pytest.fixture(scope="module")
def asia():
    # 60 rows: BDeu charges most parents more than they explain
    return bn.score_table(bn.load_network("asia").sample(60, tandem.Philox(3)), max_parents=3,
                          progress=False)


def brute_dominated(table, gap):
    out = np.zeros(table.scores.shape, dtype=bool)
    for v, r in np.ndindex(*table.scores.shape):
        positions = combinations.unrank(r, table.m, table.max_parents)
        below = max((table.scores[v, combinations.rank(np.array(sub, dtype=np.int64), table.m)]
                     for size in range(len(positions))
                     for sub in itertools.combinations(positions, size)), default=-np.inf)
        out[v, r] = below > -np.inf and below >= table.scores[v, r] + gap
    return out


@pytest.mark.parametrize("gap", [0.0, 2.5, pruning.PRUNE_GAP])
def test_dominated_sets_against_plain_python(asia, gap):
    got = pruning.dominated(asia, gap)
    assert np.array_equal(got, brute_dominated(asia, gap))
    assert not got[:, 0].any()


def test_pruning_with_no_gap_keeps_the_map_dag(asia):
    pruned = pruning.prune(asia, 0.0)
    assert pruned.m < asia.m and pruned.fingerprint != asia.fingerprint
    for v in range(asia.n_nodes):
        for r in range(pruned.n_sets):
            try:
                parents = pruned.parent_set(v, r)
            except ValueError:  # a padded slot
                assert pruned.scores[v, r] == -np.inf
                continue
            assert pruned.scores[v, r] == asia.scores[v, asia.rank(v, parents)]
    dropped = {name: set(names) for name, names in pruned.excluded.items()}
    for v, name in enumerate(asia.names):
        kept = {asia.names[c] for c in pruned.candidates[v] if c >= 0}
        before = {asia.names[c] for c in asia.candidates[v] if c >= 0}
        assert before - kept == dropped.get(name, set())
    dag, score, exact = bn.map_dag(asia)
    dag_pruned, score_pruned, exact_pruned = bn.map_dag(pruned)
    assert exact and exact_pruned
    assert np.array_equal(dag, dag_pruned) and score == score_pruned


def test_pruning_with_the_gap_leaves_order_scores_within_rounding(asia):
    # sink one candidate of every node 45 nats below the subsets without it:
    # PRUNE_GAP drops it, and no order score moves by more than rounding
    sunk = asia.scores.copy()
    _, subsets = combinations.subset_table(asia.m, asia.max_parents)
    holds_last = (subsets == asia.m - 1).any(axis=1)
    sunk[:, holds_last] = asia.scores[:, 0:1] - 45.0 - np.abs(asia.scores[:, holds_last])
    table = dataclasses.replace(asia, scores=sunk)
    assert pruning.prune(table) is not table and pruning.prune(table).m == asia.m - 1
    assert pruning.prune(asia) is asia  # nothing that far below at 60 rows
    full, pruned = mcmc._Prepared(table).kernel, mcmc._Prepared(pruning.prune(table)).kernel
    rng = np.random.default_rng(0)
    for _ in range(50):
        order = rng.permutation(asia.n_nodes)
        a, b = node_sums.order_score(order, full), node_sums.order_score(order, pruned)
        assert abs(a - b) <= 1e-13 * abs(a)


def test_bad_gap(asia):
    for gap in (-1.0, np.nan):
        with pytest.raises(ValueError, match="gap"):
            pruning.dominated(asia, gap)
