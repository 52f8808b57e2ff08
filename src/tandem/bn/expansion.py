"""Iterative expansion of the candidate parents, after BiDAG's iterative MCMC
(Kuipers, Suter and Moffa 2022): a run on a restricted table finds a DAG; a
node's candidates then gain every node outside them that would improve the
node's parent set in that DAG; the table is rebuilt and the chains run again,
until no node gains a candidate.
"""

from __future__ import annotations

import numpy as np

from .graphs import is_acyclic
from .scores import local_score
from .table import candidate_matrix

__all__ = ["candidate_matrix", "expand_candidates"]


def _descendants(dag, v):
    below = np.zeros(dag.shape[0], dtype=bool)
    below[v] = True
    stack = [v]
    while stack:
        for w in np.flatnonzero(dag[stack.pop()] & ~below):
            below[w] = True
            stack.append(w)
    return below


def expand_candidates(data, table, dag, *, score=None, **settings):
    """Each node's candidates, grown by the nodes that would improve its
    parent set in ``dag``.

    For node ``v`` with parents ``Pa`` in ``dag`` and each node ``u`` outside
    its candidates and not among its descendants: ``u`` joins the candidates
    when ``score(v, Pa + u)`` passes ``score(v, Pa)``, or, where ``Pa``
    already holds ``table.max_parents`` nodes, when ``Pa`` with one member
    swapped for ``u`` does.

    Parameters
    ----------
    data : tandem.bn.Dataset
    table : ScoreTable
        The restricted table that ``dag`` was learned on.
    dag : array_like of bool, shape (n, n)
        For example the MAP DAG of the run (:func:`tandem.bn.map_dag`).
    score : str, optional
        Default ``table.score``; ``settings`` default ``table.settings``.

    Returns
    -------
    (numpy.ndarray of bool, int)
        The grown ``[parent, child]`` candidate matrix and the number of
        candidates added.

    Examples
    --------
    >>> import tandem
    >>> from tandem.bn import load_network, score_table, map_dag
    >>> data = load_network("asia").sample(2000, tandem.Philox(3))
    >>> table = score_table(data, candidates=1, max_parents=2, progress=False)
    >>> grown, added = expand_candidates(data, table, map_dag(table)[0])
    >>> added > 0
    True
    """
    dag = np.asarray(dag, dtype=bool)
    if not is_acyclic(dag):
        raise ValueError("dag has a cycle")
    score = table.score if score is None else score
    settings = dict(table.settings) if not settings else settings
    allowed = candidate_matrix(table)
    k = int(table.max_parents)
    grown = allowed.copy()

    def family(v, parents):
        return local_score(data, v, sorted(parents), score, **settings)

    for v in range(dag.shape[0]):
        parents = set(np.flatnonzero(dag[:, v]).tolist())
        base = family(v, parents)
        outside = np.flatnonzero(~allowed[:, v] & ~_descendants(dag, v))
        for u in outside.tolist():
            if len(parents) < k:
                better = family(v, parents | {u}) > base
            else:
                better = any(family(v, parents - {w} | {u}) > base for w in parents)
            if better:
                grown[u, v] = True
    return grown, int((grown & ~allowed).sum())
