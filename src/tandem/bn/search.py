"""The highest-scoring DAG of a score table: the maximum a posteriori DAG under
a uniform prior on the table's parent sets.

* Up to :data:`tandem.bn.exact.MAX_NODES` nodes, exactly, by Silander and
  Myllymäki's dynamic program (2006): each node's best parent set within
  every set of nodes, then the best sink of every set.
* Beyond, by search from orders (the chains' best orders of
  :func:`tandem.bn.order_mcmc`): each order's best DAG (each node's best
  parent set among its predecessors), then coordinate ascent over parent
  sets (each node in turn takes its best parent set that keeps the graph
  acyclic, until no node changes), the best result kept. This reaches a
  DAG that no change of one node's parent set improves; it is exact within
  the orders it starts from, not over all DAGs.
"""

from __future__ import annotations
from typing import Optional

import numba
import numpy as np

from . import combinations
from .exact import MAX_NODES, _row_masks
from .._types import ArrayLike
from .table import ScoreTable

__all__ = ["map_dag"]


@numba.njit(cache=True)
def _exact(scores, masks):
    """``(rows, score)``: each node's row in the best DAG, by the dynamic program."""
    n, width = scores.shape
    size = 1 << n
    best = np.full((n, size), -np.inf)
    row = np.full((n, size), -1, dtype=np.int32)
    for v in range(n):
        for r in range(width):
            mask = masks[v, r]
            if mask >= 0 and scores[v, r] > best[v, mask]:
                best[v, mask] = scores[v, r]
                row[v, mask] = r
        for b in range(n):  # best within a set: over its subsets
            bit = 1 << b
            for u in range(size):
                if u & bit and best[v, u ^ bit] > best[v, u]:
                    best[v, u] = best[v, u ^ bit]
                    row[v, u] = row[v, u ^ bit]
    total = np.full(size, -np.inf)
    sink = np.full(size, -1, dtype=np.int8)
    total[0] = 0.0
    for s in range(1, size):
        for v in range(n):
            bit = 1 << v
            if s & bit:
                t = total[s ^ bit] + best[v, s ^ bit]
                if t > total[s]:
                    total[s] = t
                    sink[s] = v
    rows = np.full(n, -1, dtype=np.int64)
    s = size - 1
    while s:
        v = sink[s]
        if v < 0:
            break
        s ^= 1 << v
        rows[v] = row[v, s]
    return rows, total[size - 1]


@numba.njit(cache=True)
def _order_rows(order, candidates, scores, subsets):
    """Each node's best row among those whose members precede it in ``order``
    (ties: the lowest row)."""
    n = order.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for p in range(n):
        pos[order[p]] = p
    nodes = np.empty(max(subsets.shape[1], 1), dtype=np.int64)
    rows = np.zeros(n, dtype=np.int64)
    for v in range(n):
        best = -np.inf
        for r in range(scores.shape[1]):
            if not scores[v, r] > best:
                continue
            count = combinations.set_members(subsets, candidates[v], r, nodes)
            ok = count >= 0
            for q in range(max(count, 0)):
                ok &= pos[nodes[q]] < pos[v]
            if ok:
                best = scores[v, r]
                rows[v] = r
    return rows


@numba.njit(cache=True)
def _adjacency(rows, candidates, subsets):
    n = rows.shape[0]
    nodes = np.empty(max(subsets.shape[1], 1), dtype=np.int64)
    a = np.zeros((n, n), dtype=np.bool_)
    for v in range(n):
        for q in range(combinations.set_members(subsets, candidates[v], rows[v], nodes)):
            a[nodes[q], v] = True
    return a


@numba.njit(cache=True)
def _ascend(rows, candidates, scores, ranked, subsets):
    """Coordinate ascent from ``rows`` (in place): each node in turn takes its
    best row (``ranked[v]``: rows best first) whose members are not among its
    descendants, while that improves its score; returns the total score."""
    n = rows.shape[0]
    a = _adjacency(rows, candidates, subsets)
    nodes = np.empty(max(subsets.shape[1], 1), dtype=np.int64)
    below = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    changed = True
    while changed:
        changed = False
        for v in range(n):
            below[:] = False  # v and its descendants
            below[v] = True
            stack[0] = v
            top = 1
            while top:
                top -= 1
                u = stack[top]
                for w in range(n):
                    if a[u, w] and not below[w]:
                        below[w] = True
                        stack[top] = w
                        top += 1
            for i in range(ranked.shape[1]):
                r = ranked[v, i]
                if not scores[v, r] > scores[v, rows[v]]:
                    break
                count = combinations.set_members(subsets, candidates[v], r, nodes)
                ok = count >= 0
                for q in range(max(count, 0)):
                    ok &= not below[nodes[q]]
                if ok:
                    for q in range(combinations.set_members(subsets, candidates[v], rows[v],
                                                            nodes)):
                        a[nodes[q], v] = False
                    rows[v] = r
                    for q in range(combinations.set_members(subsets, candidates[v], r, nodes)):
                        a[nodes[q], v] = True
                    changed = True
                    break
    total = 0.0
    for v in range(n):
        total += scores[v, rows[v]]
    return total


def map_dag(table: ScoreTable, orders: Optional[ArrayLike] = None) -> tuple:
    """The highest-scoring DAG of ``table``.

    Exactly up to :data:`tandem.bn.exact.MAX_NODES` nodes, else by search
    from ``orders`` (see the module docstring).

    Parameters
    ----------
    table : ScoreTable
        Any object with ``scores``, ``candidates`` and ``max_parents``.
    orders : array_like of int, shape (k, n), optional
        Orders to start from beyond ``MAX_NODES`` nodes, for example
        ``OrderMCMCResult.chain_best_orders``; needed there.

    Returns
    -------
    (numpy.ndarray of bool, float, bool)
        The DAG ``[parent, child]``, its score (the sum of its local scores),
        and whether it is exact (the best of all DAGs of the table).

    Examples
    --------
    >>> import tandem
    >>> from tandem.bn import load_network, map_dag, score_table
    >>> data = load_network("asia").sample(500, tandem.Philox(1))
    >>> dag, score, exact = map_dag(score_table(data, max_parents=2, progress=False))
    >>> exact, dag.shape
    (True, (8, 8))
    """
    scores = np.ascontiguousarray(np.asarray(table.scores), dtype=np.float64)
    candidates = np.ascontiguousarray(np.asarray(table.candidates), dtype=np.int64)
    n = scores.shape[0]
    m, k = candidates.shape[1], int(table.max_parents)
    _, subsets = combinations.subset_table(m, k)
    if n <= MAX_NODES:
        rows, score = _exact(scores, _row_masks(candidates, subsets, scores))
        if np.any(rows < 0) or not np.isfinite(score):
            raise ValueError("no DAG has a finite score under this table")
        return _adjacency(rows, candidates, subsets), float(score), True
    if orders is None:
        raise ValueError(f"a table of {n} nodes (more than {MAX_NODES}) needs orders to "
                         f"start the search from")
    orders = np.asarray(orders, dtype=np.int64).reshape(-1, n)
    ranked = np.argsort(-scores, axis=1, kind="stable")
    best = (None, -np.inf)
    for order in orders:
        if not np.array_equal(np.sort(order), np.arange(n)):
            raise ValueError("each order must be a permutation of the nodes")
        rows = _order_rows(order, candidates, scores, subsets)
        score = _ascend(rows, candidates, scores, ranked, subsets)
        if score > best[1]:
            best = (rows, score)
    return _adjacency(best[0], candidates, subsets), float(best[1]), False
