"""tandem.bn.search.map_dag: the exact MAP DAG against enumeration, and the
search from orders on tables too large for the dynamic program."""

import itertools

import numpy as np
import pytest
from test_bn_exact import synthetic_table, table_rows

import tandem
from tandem.bn import graphs, order_mcmc
from tandem.bn.exact import MAX_NODES
from tandem.bn.search import map_dag


def best_by_enumeration(table):
    """The best DAG's score by plain Python: every DAG is consistent with an
    order, and given an order each node takes its best allowed row."""
    n = table.scores.shape[0]
    rows = list(table_rows(table))
    best = -np.inf
    for order in itertools.permutations(range(n)):
        position = {v: p for p, v in enumerate(order)}
        total = 0.0
        for v in range(n):
            total += max(s for u, pa, s in rows
                         if u == v and all(position[p] < position[v] for p in pa))
        best = max(best, total)
    return best


def local_scores(table):
    """``{(node, parent set): score}`` of every finite row."""
    return {(u, frozenset(pa)): s for u, pa, s in table_rows(table)}


def dag_score(table, dag, local=None):
    """The sum of the local scores of ``dag``'s parent sets (which must be rows)."""
    local = local_scores(table) if local is None else local
    return sum(local[v, frozenset(np.flatnonzero(dag[:, v]).tolist())]
               for v in range(dag.shape[0]))


@pytest.mark.parametrize("n,k,seed", [(4, 2, 1), (5, 2, 2), (5, 3, 3), (6, 2, 4), (6, 3, 5)])
def test_exact_map_dag_is_the_best_of_all_dags(n, k, seed):
    table = synthetic_table(n, k, seed, m=min(n - 1, 4))
    dag, score, exact = map_dag(table)
    assert exact and graphs.is_acyclic(dag)
    assert score == pytest.approx(best_by_enumeration(table), abs=1e-9)
    assert score == pytest.approx(dag_score(table, dag), abs=1e-9)


def test_search_from_orders_beyond_the_dynamic_program():
    n = MAX_NODES + 4
    table = synthetic_table(n, 2, 7, m=6)
    result = order_mcmc(table, tandem.Philox(5), chains=2, iterations=3000, progress=False)
    dag, score, exact = map_dag(table, result.chain_best_orders)
    assert not exact and graphs.is_acyclic(dag)
    assert score == pytest.approx(dag_score(table, dag), abs=1e-9)
    assert score >= result.best_dag_score - 1e-9
    # no single node's change of parent set improves it while staying acyclic
    local = local_scores(table)
    for (v, parents), s in local.items():
        own = local[v, frozenset(np.flatnonzero(dag[:, v]).tolist())]
        if s > own + 1e-9:
            trial = dag.copy()
            trial[:, v] = False
            trial[list(parents), v] = True
            assert not graphs.is_acyclic(trial)
    with pytest.raises(ValueError, match="needs orders"):
        map_dag(table)
    with pytest.raises(ValueError, match="permutation"):
        map_dag(table, np.zeros((1, n), dtype=int))
