"""tandem.bn.graphs: CPDAGs against pgmpy's, acyclic thresholding, export."""

import networkx as nx
import numpy as np
import pytest
from pgmpy.base import DAG

from tandem import bn
from tandem.bn import diagnostics, graphs


def random_dag(n, p, seed):
    """A DAG on n nodes: each pair i < j an edge with probability p, then the
    nodes relabelled by a random permutation (so edges run either way)."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p, k=1)
    perm = rng.permutation(n)
    dag = np.zeros((n, n), dtype=bool)
    dag[np.ix_(perm, perm)] = upper
    return dag


def pgmpy_cpdag(dag):
    """pgmpy's DAG.to_pdag(), as a PDAG matrix."""
    n = dag.shape[0]
    model = DAG([(int(a), int(b)) for a, b in np.argwhere(dag)])
    model.add_nodes_from(range(n))
    pdag = model.to_pdag()
    out = np.zeros((n, n), dtype=bool)
    for a, b in pdag.directed_edges:
        out[a, b] = True
    for a, b in pdag.undirected_edges:
        out[a, b] = out[b, a] = True
    return out


@pytest.mark.parametrize("seed", range(40))
def test_cpdag_equals_pgmpys(seed):
    n = 4 + seed % 9
    dag = random_dag(n, [0.2, 0.35, 0.5][seed % 3], seed)
    np.testing.assert_array_equal(graphs.cpdag(dag), pgmpy_cpdag(dag))


@pytest.mark.parametrize("name", ["asia", "sachs", "child", "alarm", "insurance"])
def test_cpdag_of_the_networks_equals_pgmpys(name):
    dag = bn.load_network(name).adjacency()
    np.testing.assert_array_equal(graphs.cpdag(dag), pgmpy_cpdag(dag))


def test_markov_equivalent_dags_share_their_cpdag():
    """Reversing a covered edge (the child's other parents are the parent's
    parents) keeps the equivalence class (Chickering 1995)."""
    checked = 0
    for seed in range(30):
        dag = random_dag(8, 0.4, seed)
        for a, b in np.argwhere(dag):
            others = dag[:, b].copy()
            others[a] = False
            if np.array_equal(others, dag[:, a]):
                flipped = dag.copy()
                flipped[a, b], flipped[b, a] = False, True
                np.testing.assert_array_equal(graphs.cpdag(flipped), graphs.cpdag(dag))
                assert diagnostics.structural_hamming_distance(
                    graphs.cpdag(flipped), graphs.cpdag(dag)) == 0
                assert diagnostics.structural_hamming_distance(flipped, dag) == 1
                checked += 1
                break
    assert checked > 10


def test_cpdag_refuses_a_cycle():
    with pytest.raises(ValueError, match="cycle"):
        graphs.cpdag(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=bool))


def test_thresholded_dag_is_acyclic_and_keeps_what_it_can():
    rng = np.random.default_rng(11)
    for _ in range(20):
        p = rng.random((9, 9)) * (1 - np.eye(9))
        dag = graphs.thresholded_dag(p, 0.6)
        assert graphs.is_acyclic(dag)
        assert not np.any(dag & (p <= 0.6))
        # every edge left out would close a cycle with the edges kept
        for a, b in np.argwhere((p > 0.6) & ~dag):
            closed = dag.copy()
            closed[a, b] = True
            assert not graphs.is_acyclic(closed)
    acyclic = random_dag(10, 0.3, 1)
    np.testing.assert_array_equal(graphs.thresholded_dag(acyclic * 0.9), acyclic)
    with pytest.raises(ValueError, match="NaN"):
        graphs.thresholded_dag(np.full((2, 2), np.nan))


def test_export_reads_back(tmp_path):
    dag = random_dag(7, 0.4, 3)
    g = graphs.cpdag(dag)
    names = [f"v{i} \"q\"" for i in range(7)]
    p = np.where(g, 0.75, 0.0)
    x = graphs.to_networkx(g, names, p)
    assert sorted(x.nodes) == sorted(names)
    assert {(names[a], names[b]) for a, b in np.argwhere(g)} == set(x.edges)
    assert all(d["undirected"] == bool(g[names.index(v), names.index(u)])
               for u, v, d in x.edges(data=True))
    path = tmp_path / "g.graphml"
    graphs.write_graphml(g, path, names, p)
    back = nx.read_graphml(path)
    written = {(u, v) for u, v in back.edges}
    arcs = {(names[a], names[b]) for a, b in np.argwhere(g & ~g.T)}
    lines = {(names[a], names[b]) for a, b in np.argwhere(np.triu(g & g.T))}
    assert written == arcs | lines
    assert all(d["probability"] == 0.75 for *_, d in back.edges(data=True))
    assert sum(d["undirected"] for *_, d in back.edges(data=True)) == len(lines)
    dot = graphs.to_dot(g, names)
    assert dot.count("->") == len(arcs) + len(lines) and dot.count("dir=none") == len(lines)
    assert '"v0 \\"q\\""' in dot
    with pytest.raises(ValueError, match="names"):
        graphs.to_dot(g, names[:3])
