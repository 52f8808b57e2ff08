"""tandem.bn.exact_edge_posteriors against brute-force enumeration of every order."""

import hashlib
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pytest

from tandem.bn import combinations
from tandem.bn.exact import MAX_NODES, exact_edge_posteriors


@dataclass(frozen=True)
class SyntheticTable:
    """The fields of tandem.bn.ScoreTable, from a hand-made score array."""

    scores: np.ndarray
    candidates: np.ndarray
    max_parents: int
    names: tuple
    score: str = "synthetic"
    settings: dict = field(default_factory=dict)
    excluded: dict = field(default_factory=dict)
    n_rows: int = 0
    fingerprint: str = ""


def synthetic_table(n, k, seed, *, m=None, strength=3.0, noise=1.0):
    """Scores that favour a hidden DAG, with noise; ``m < n - 1`` candidates pads with -1.

    Parent sets of size s pay s nats; each parent that precedes the node in a
    hidden order and is 'linked' to it gains ``strength``.
    """
    rng = np.random.default_rng(seed)
    m = n - 1 if m is None else m
    candidates = np.full((n, m), -1, dtype=np.int32)
    for i in range(n):
        others = np.array([j for j in range(n) if j != i])
        # some nodes get fewer candidates than m: padded slots are -1
        count = m if i % 3 else max(m - 1, 0)
        pick = np.sort(rng.choice(others, size=min(count, n - 1), replace=False))
        candidates[i, :len(pick)] = pick
    hidden = np.argsort(rng.permutation(n))  # position of each node in the hidden order
    sizes, positions = combinations.subset_table(m, k)
    scores = np.empty((n, combinations.n_sets(m, k)))
    for i in range(n):
        for r in range(scores.shape[1]):
            slots = positions[r, :sizes[r]]
            if np.any(candidates[i, slots] < 0):
                scores[i, r] = -np.inf
                continue
            gain = sum(strength for p in candidates[i, slots]
                       if hidden[p] < hidden[i] and (p * 7 + i) % 3 != 0)
            scores[i, r] = gain - sizes[r] + noise * rng.standard_normal()
    digest = hashlib.sha256(scores.tobytes() + candidates.tobytes()).hexdigest()[:16]
    return SyntheticTable(scores, candidates, k, tuple(f"x{i}" for i in range(n)),
                          fingerprint=digest)


def table_rows(table):
    """(node, parent tuple, score) for every finite row, by plain unranking."""
    n, width = table.scores.shape
    m = table.candidates.shape[1]
    for v in range(n):
        for r in range(width):
            if np.isfinite(table.scores[v, r]):
                slots = combinations.unrank(r, m, table.max_parents)
                yield v, tuple(int(table.candidates[v, p]) for p in slots), table.scores[v, r]


def brute_force(table):
    """Edge posteriors and order posteriors by enumerating all n! orders.

    Returns (edges, orders, log_weights, edges_given_order): the weight of an
    order is prod_v sum_{allowed Pa} exp(score); the edge posterior given an
    order is the allowed rows' share holding the edge.
    """
    n = table.scores.shape[0]
    rows = list(table_rows(table))
    orders, log_weights, given = [], [], []
    for order in itertools.permutations(range(n)):
        position = {v: p for p, v in enumerate(order)}
        log_w = 0.0
        edge = np.zeros((n, n))
        for v in range(n):
            allowed = [(pa, s) for (u, pa, s) in rows
                       if u == v and all(position[p] < position[v] for p in pa)]
            top = max(s for _, s in allowed)
            weights = [math.exp(s - top) for _, s in allowed]
            total = sum(weights)
            log_w += top + math.log(total)
            for (pa, _), w in zip(allowed, weights):
                for p in pa:
                    edge[p, v] += w / total
        orders.append(order)
        log_weights.append(log_w)
        given.append(edge)
    log_weights = np.array(log_weights)
    posterior = np.exp(log_weights - log_weights.max())
    posterior /= posterior.sum()
    edges = np.tensordot(posterior, np.array(given), axes=1)
    return edges, orders, log_weights, np.array(given)


@pytest.mark.parametrize("n,k,m,seed", [(3, 2, None, 0), (4, 2, None, 1), (5, 3, None, 2),
                                        (5, 2, 3, 3), (6, 2, None, 4), (6, 3, 4, 5)])
def test_matches_enumeration_of_orders(n, k, m, seed):
    table = synthetic_table(n, k, seed, m=m)
    expected = brute_force(table)[0]
    got = exact_edge_posteriors(table=table)
    assert got.shape == (n, n)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert np.all(np.diag(got) == 0)


def test_peaked_scores_in_log_space():
    # score differences of thousands of nats: no under- or overflow
    table = synthetic_table(5, 2, 7, strength=2000.0, noise=300.0)
    expected = brute_force(table)[0]
    np.testing.assert_allclose(exact_edge_posteriors(table=table), expected, atol=1e-9)


def test_uniform_scores_closed_form():
    # all-zero scores, two nodes: orders are equally likely; given 0 < 1 the
    # parent set of 1 is {} or {0}, so P(0 -> 1) = 1/2 * 1/2.
    table = SyntheticTable(np.zeros((2, 2)), np.array([[1], [0]], dtype=np.int32), 1,
                           ("a", "b"))
    np.testing.assert_allclose(exact_edge_posteriors(table=table), [[0, 0.25], [0.25, 0]])


def test_errors():
    with pytest.raises(ValueError, match="either data or table"):
        exact_edge_posteriors()
    big = MAX_NODES + 1
    table = SyntheticTable(np.zeros((big, 1)), np.zeros((big, 0), dtype=np.int32), 0,
                           tuple(range(big)))
    with pytest.raises(ValueError, match="at most 20 nodes"):
        exact_edge_posteriors(table=table)
    bad = SyntheticTable(np.zeros((3, 5)), np.array([[1, 2], [0, 2], [0, 1]]), 2, ())
    with pytest.raises(ValueError, match="columns"):
        exact_edge_posteriors(table=bad)
