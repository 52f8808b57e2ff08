"""Parent sets dominated by a subset, and score tables without the candidates
that only dominated sets use.

A parent set ``S`` of node ``v`` is dominated, with a gap ``g >= 0``, when a
proper subset ``T`` of ``S`` scores at least ``g`` more:
``score(T) >= score(S) + g``. Wherever an order allows ``S`` it allows
``T``, so:

* with ``g = 0`` no dominated set is ever a node's best allowed set: the
  MAP DAG given any order, and :func:`tandem.bn.map_dag`, are the same
  without them (the pruning of exact structure search, Teyssier and Koller
  2005; de Campos and Ji 2011);
* with ``g = PRUNE_GAP`` (40 nats) a dominated set weighs less than
  ``exp(-40) = 4.2e-18`` of a set that is always summed with it, under half
  an ulp of float64: the order scores of :func:`tandem.bn.order_mcmc` move
  by less than ``n_sets * 4.2e-18`` relative.

:func:`prune` drops each node's candidates that appear in no undominated set,
and gathers the smaller table from the scores already computed.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numba
import numpy as np

from . import combinations
from .table import ScoreTable


__all__ = ["PRUNE_GAP", "dominated", "prune"]

#: The gap (nats) under which dropping a dominated set changes a sum of set
#: weights by less than half an ulp of float64: exp(-40) = 4.2e-18 < 2**-54.
PRUNE_GAP = 40.0


@numba.njit(cache=True)
def _dominated(scores, subsets, binom, offsets, gap, out):
    """``out[v, r]``: a proper subset of set ``r`` scores at least ``gap`` above it.

    ``best[r]`` is the best score of set ``r`` and its subsets; the subsets
    of ``r`` with one position fewer have lower ranks (sizes come in order),
    so one pass in rank order fills it.
    """
    n, width = scores.shape
    k = subsets.shape[1]
    best = np.empty(width)
    for v in range(n):
        best[0] = scores[v, 0]
        out[v, 0] = False
        for r in range(1, width):
            size = 0
            while size < k and subsets[r, size] >= 0:
                size += 1
            below = -np.inf
            for drop in range(size):
                rank = offsets[size - 1]  # the colex rank of r without position ``drop``
                j = 0
                for q in range(size):
                    if q != drop:
                        rank += binom[subsets[r, q], j + 1]
                        j += 1
                below = max(below, best[rank])
            x = scores[v, r]
            out[v, r] = below > -np.inf and below >= x + gap
            best[r] = max(x, below)


def dominated(table, gap=PRUNE_GAP):
    """Which parent sets of ``table`` a proper subset beats by at least ``gap`` nats.

    Parameters
    ----------
    table : ScoreTable
    gap : float
        Non-negative. 0 gives the sets that can never be a best allowed set;
        :data:`PRUNE_GAP` those whose weight is lost in rounding.

    Returns
    -------
    numpy.ndarray of bool, shape (n_nodes, n_sets)
        False for the empty set, and for sets of ``-inf`` score only where
        no subset is finite (they are dominated otherwise).

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(500, tandem.Philox(1))
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> bool(dominated(table, 0.0)[:, 0].any())
    False
    """
    gap = float(gap)
    if not gap >= 0.0:
        raise ValueError(f"gap must be a non-negative number of nats, got {gap}")
    scores = np.ascontiguousarray(table.scores, dtype=np.float64)
    m, k = table.candidates.shape[1], int(table.max_parents)
    _, subsets = combinations.subset_table(m, k)
    out = np.empty(scores.shape, dtype=np.bool_)
    _dominated(scores, subsets, combinations.binomial_table(m, k), combinations.offsets(m, k),
               gap, out)
    return out


def prune(table: ScoreTable, gap: float = PRUNE_GAP) -> ScoreTable:
    """The table over the candidates that some undominated set of their node uses.

    Parameters
    ----------
    table : ScoreTable
        The table to prune, for example from :func:`tandem.bn.score_table`.
    gap : float, default PRUNE_GAP
        Non-negative, as for :func:`dominated`: a set is dominated when a
        proper subset beats it by at least ``gap`` nats. With 0 the MAP DAG
        is the same without the dominated sets; with :data:`PRUNE_GAP` (40
        nats) the order scores move by rounding only.

    Returns
    -------
    ScoreTable
        ``m`` becomes the largest number of candidates a node keeps; each
        node's kept candidates stay ascending, padded with ``-1``, and every
        score is gathered from ``table`` (bit for bit). ``excluded`` gains
        the dropped candidates, and the fingerprint covers the gap. The
        table itself when nothing is dropped.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> table = bn.score_table(bn.load_network("asia").sample(100, tandem.Philox(3)),
    ...                        max_parents=2, progress=False)
    >>> table.m, bn.prune(table, 0.0).m
    (7, 5)
    """
    used = _used_slots(table, dominated(table, gap))
    kept = [np.flatnonzero(row) for row in used]
    m_new = max(len(row) for row in kept)
    if m_new == table.m:
        return table
    k = int(table.max_parents)
    _, subsets = combinations.subset_table(m_new, k)
    slots = np.full((table.n_nodes, m_new), -1, dtype=np.int64)
    for v, row in enumerate(kept):
        slots[v, :len(row)] = row
    candidates = np.where(slots >= 0, np.take_along_axis(
        np.asarray(table.candidates), np.maximum(slots, 0), axis=1), -1).astype(np.int32)
    sizes = (subsets >= 0).sum(axis=1)
    binom, offsets = combinations.binomial_table(table.m, k), combinations.offsets(table.m, k)
    scores = np.empty((table.n_nodes, subsets.shape[0]))
    for v in range(table.n_nodes):
        # kept slots ascend, so a set's old positions ascend: its old colex rank
        old = np.where(subsets >= 0, slots[v][np.maximum(subsets, 0)], -1)
        padded = ((old < 0) & (subsets >= 0)).any(axis=1)
        ranks = offsets[sizes] + np.where(old >= 0, binom[np.maximum(old, 0),
                                                          np.arange(1, k + 1)], 0).sum(axis=1)
        scores[v] = np.where(padded, -np.inf, np.asarray(table.scores)[v, np.where(
            padded, 0, ranks)])
    excluded = dict(table.excluded)
    for v, row in enumerate(kept):
        dropped = [table.names[c] for c in np.asarray(table.candidates)[v]
                   if c >= 0 and c not in candidates[v]]
        if dropped:
            excluded[table.names[v]] = sorted(set(excluded.get(table.names[v], [])) |
                                              set(dropped))
    fingerprint = hashlib.sha256(f"{table.fingerprint} pruned {gap!r}".encode()).hexdigest()
    return replace(table, scores=scores, candidates=candidates, excluded=excluded,
                   fingerprint=fingerprint)


def _used_slots(table, is_dominated):
    """``[v, slot]``: the slot is in some undominated, finite set of node ``v``."""
    m, k = table.candidates.shape[1], int(table.max_parents)
    _, subsets = combinations.subset_table(m, k)
    keep = ~is_dominated & np.isfinite(np.asarray(table.scores))
    used = np.zeros((table.n_nodes, m), dtype=bool)
    for q in range(k):
        p = subsets[:, q]
        has = p >= 0
        v, r = np.nonzero(keep[:, has])
        used[v, p[has][r]] = True
    return used
