"""Exact edge posteriors under the order-modular prior (Koivisto and Sood 2004).

The model is that of :func:`tandem.bn.order_mcmc`: a uniform prior on the
orders of the ``n`` nodes and, given an order, independent parent sets, each
uniform among the table's rows that the order allows. Then

    P(u -> v | D) = (1 / Z) sum_order sum_{G consistent with order} [u -> v in G]
                    prod_i exp(score_i(Pa_i(G))).

The dynamic program (Koivisto and Sood 2004, "Exact Bayesian structure
discovery in Bayesian networks"; Koivisto 2006, "Advances in exact Bayesian
structure discovery in Bayesian networks") sums over the ``n!`` orders
through the ``2**n`` sets of predecessors:

* ``alpha_i(U)``: the sum of ``exp(score_i(Pa))`` over the rows ``Pa ⊆ U``
  (a subset-sum transform per node);
* forward ``L(S) = sum_{i in S} L(S - i) alpha_i(S - i)``, the orders of
  ``S`` as a prefix; backward ``R(S) = sum_{i not in S} alpha_i(S) R(S + i)``,
  the orders of the rest after ``S``; ``Z = L(V) = R({})``;
* the posterior of the parent set ``Pa`` of ``v`` is
  ``exp(score_v(Pa)) beta_v(Pa) / Z`` with
  ``beta_v(Pa) = sum_{S ⊇ Pa, v not in S} L(S) R(S + v)`` (a superset-sum
  transform per node), and an edge's posterior sums that over the rows that
  hold the edge.

Everything is in log space. Time ``O(n**2 2**n + n * n_sets)``, memory
``(n + 3) 2**n`` doubles.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numba
import numpy as np

from . import combinations
from .data import Dataset
from .table import ScoreTable


__all__ = ["exact_edge_posteriors", "MAX_NODES"]

#: The largest number of nodes :func:`exact_edge_posteriors` accepts
#: (``(n + 3) 2**n`` doubles: 193 MiB at 20 nodes).
MAX_NODES = 20


@numba.njit(cache=True)
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@numba.njit(cache=True)
def _row_masks(candidates, subsets, scores):
    """Node bit mask of each row's parent set; -1 where the row is not a set (-inf)."""
    n, width = scores.shape
    masks = np.full((n, width), -1, dtype=np.int64)
    nodes = np.empty(max(subsets.shape[1], 1), dtype=np.int64)
    for v in range(n):
        for r in range(width):
            if scores[v, r] == -np.inf:
                continue
            count = combinations.set_members(subsets, candidates[v], r, nodes)
            if count >= 0:
                mask = 0
                for q in range(count):
                    mask |= 1 << nodes[q]
                masks[v, r] = mask
    return masks


@numba.njit(cache=True)
def _edge_posteriors(scores, masks):
    n, width = scores.shape
    size = 1 << n
    full = size - 1
    alpha = np.full((n, size), -np.inf)
    for v in range(n):
        for r in range(width):
            if masks[v, r] >= 0:
                alpha[v, masks[v, r]] = _logaddexp(alpha[v, masks[v, r]], scores[v, r])
        for b in range(n):
            bit = 1 << b
            for u in range(size):
                if u & bit:
                    alpha[v, u] = _logaddexp(alpha[v, u], alpha[v, u ^ bit])
    forward = np.full(size, -np.inf)
    forward[0] = 0.0
    for s in range(1, size):
        acc = -np.inf
        for i in range(n):
            bit = 1 << i
            if s & bit:
                acc = _logaddexp(acc, forward[s ^ bit] + alpha[i, s ^ bit])
        forward[s] = acc
    backward = np.full(size, -np.inf)
    backward[full] = 0.0
    for s in range(full - 1, -1, -1):
        acc = -np.inf
        for i in range(n):
            bit = 1 << i
            if not s & bit:
                acc = _logaddexp(acc, alpha[i, s] + backward[s | bit])
        backward[s] = acc
    log_z = forward[full]
    edges = np.zeros((n, n))
    beta = np.empty(size)
    for v in range(n):
        vbit = 1 << v
        for s in range(size):
            beta[s] = -np.inf if s & vbit else forward[s] + backward[s | vbit]
        for b in range(n):
            bit = 1 << b
            for s in range(size):
                if not s & bit:
                    beta[s] = _logaddexp(beta[s], beta[s | bit])
        for r in range(width):
            mask = masks[v, r]
            if mask <= 0:  # the empty set holds no edge; -1: not a set
                continue
            p = math.exp(scores[v, r] + beta[mask] - log_z)
            for u in range(n):
                if mask & (1 << u):
                    edges[u, v] += p
    return edges, log_z


def exact_edge_posteriors(data: Dataset | None = None, *, score: str = "bdeu",
                          ess: float = 1.0, max_parents: int = 3,
                          table: Optional[ScoreTable] = None,
                          **settings: Any) -> np.ndarray:
    """Posterior probability of every edge, summed exactly over all orders and DAGs.

    Parameters
    ----------
    data : tandem.bn.Dataset, optional
        The data, scored with :func:`tandem.bn.score_table`. Leave it out
        when giving ``table``.
    score : str
        Score name for :func:`tandem.bn.score_table` (``"bdeu"``, ``"k2"``,
        ``"bic"``, ``"bge"``).
    ess : float
        Equivalent sample size of BDeu (ignored by the other scores).
    max_parents : int
        Largest parent set.
    table : ScoreTable, optional
        A prebuilt table to use instead of ``data`` (``score``, ``ess`` and
        ``max_parents`` are then ignored). Any object with ``scores``,
        ``candidates`` and ``max_parents`` will do.
    **settings
        Further settings of the score (BGe's ``alpha_mu`` and ``alpha_w``),
        passed to :func:`tandem.bn.score_table`.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        ``[parent, child]``: the posterior probability of the edge
        ``parent -> child`` under the order-modular prior (uniform over
        orders, uniform over the allowed parent sets given the order), the
        model whose posterior :func:`tandem.bn.order_mcmc` samples. The
        diagonal is zero.

    Raises
    ------
    ValueError
        If the table has more than :data:`MAX_NODES` nodes, or neither or
        both of ``data`` and ``table`` are given.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> posteriors = bn.exact_edge_posteriors(data, max_parents=2)
    >>> posteriors.shape, posteriors.diagonal().tolist()
    ((8, 8), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    >>> round(float(posteriors[3, 5]), 3)              # lung -> either
    0.77
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> bool((bn.exact_edge_posteriors(table=table) == posteriors).all())
    True
    """
    if (data is None) == (table is None):
        raise ValueError("give either data or table")
    if table is None:
        from .table import score_table

        if score == "bdeu":
            settings["ess"] = ess
        table = score_table(data, score=score, max_parents=max_parents, progress=False,
                            **settings)
    scores = np.ascontiguousarray(np.asarray(table.scores), dtype=np.float64)
    candidates = np.ascontiguousarray(np.asarray(table.candidates), dtype=np.int64)
    if scores.ndim != 2 or candidates.ndim != 2 or candidates.shape[0] != scores.shape[0]:
        raise ValueError(f"table: scores {scores.shape} and candidates {candidates.shape} "
                         f"do not describe one set of nodes")
    n = scores.shape[0]
    if n > MAX_NODES:
        raise ValueError(f"exact_edge_posteriors handles at most {MAX_NODES} nodes "
                         f"(time and memory grow as 2**n); this table has {n}")
    m, k = candidates.shape[1], int(table.max_parents)
    if scores.shape[1] != combinations.n_sets(m, k):
        raise ValueError(f"table.scores has {scores.shape[1]} columns; {m} candidates and "
                         f"max_parents={k} give {combinations.n_sets(m, k)}")
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise ValueError("table.scores holds NaN or +inf")
    _, subsets = combinations.subset_table(m, k)
    masks = _row_masks(candidates, subsets, scores)
    edges, log_z = _edge_posteriors(scores, masks)
    if not np.isfinite(log_z):
        raise ValueError("no DAG has a finite score under this table")
    return edges
