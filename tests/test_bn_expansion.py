"""tandem.bn.expansion: candidates grown from a run's MAP DAG, and the rounds
of tandem.bn.report.learn(expand=...)."""

import numpy as np
import pytest

import tandem
from tandem import bn
from tandem.bn import expansion, local_score, map_dag, report, score_table


@pytest.fixture(scope="module")
def asia():
    network = bn.load_network("asia")
    return network, network.sample(3000, tandem.Philox(12))


def test_added_candidates_each_improve_a_parent_set(asia):
    network, data = asia
    table = score_table(data, candidates=1, max_parents=2, progress=False)
    dag = map_dag(table)[0]
    grown, added = expansion.expand_candidates(data, table, dag)
    before = expansion.candidate_matrix(table)
    assert added == int((grown & ~before).sum()) > 0 and np.all(grown >= before)
    for u, v in np.argwhere(grown & ~before):
        parents = sorted(np.flatnonzero(dag[:, v]).tolist())
        base = local_score(data, v, parents, "bdeu", ess=1.0)
        if len(parents) < 2:
            assert local_score(data, v, parents + [u], "bdeu", ess=1.0) > base
        else:
            assert max(local_score(data, v, [p for p in parents if p != w] + [u], "bdeu",
                                   ess=1.0) for w in parents) > base
        assert not dag[v, u]  # never a child of v (a cycle)
    with pytest.raises(ValueError, match="cycle"):
        expansion.expand_candidates(data, table, dag | dag.T)


def test_learn_expands_until_nothing_is_added(asia):
    network, data = asia
    truth = network.adjacency()
    learned = report.learn(data, candidates=1, max_parents=2, chains=2, iterations=2000,
                           expand=5, progress=False)
    rounds = learned.settings["expansion_rounds"]
    assert rounds[0]["candidates_added"] > 0 and rounds[-1]["candidates_added"] == 0
    start = expansion.candidate_matrix(score_table(data, candidates=1, max_parents=2,
                                                   progress=False))
    end = expansion.candidate_matrix(learned.table)
    assert (end & truth).sum() > (start & truth).sum()
    assert learned.summary()["settings"]["expand"] == 5
