"""What order MCMC returns: :class:`OrderMCMCResult`, made from the chains' state
(:func:`make_result`), with each edge's estimate and its Monte Carlo error."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from . import diagnostics, order_moves, search
from .order_moves import MOVES
from .table import per_edge

#: Each chain keeps its sampled DAGs' edge counts in batches of consecutive kept
#: orders, BATCHES to 2 BATCHES of them: while there are fewer than 2 BATCHES
#: kept orders a batch holds one; when the 2 BATCHES batches are full, each
#: pair merges into one and the batch size doubles. The batches depend only
#: on the number of kept orders, so a resumed run has the same ones. The
#: edges' R-hats take their means; their standard errors take the means of
#: SE_MERGE batches at a time (16 to 32 batches, long against the chains'
#: autocorrelation). See OrderMCMCResult.
SE_MERGE = 16


class OrderMCMCStreams(dict):
    """The five streams of a run, by purpose: ``initial``, ``moves``, ``dags``,
    ``tempered`` and ``swaps``.

    Chain ``c`` draws from ``split(c)`` of each.
    """


@dataclass(frozen=True, eq=False)
class OrderMCMCResult:
    """What :func:`order_mcmc` returns.

    Arrays indexed ``[parent, child]`` are over the table's nodes, in the
    order of ``names``. Two results are equal (``==``) when every field is:
    arrays of the same dtype and shape with the same values (NaN equal to
    NaN), so a resumed run equals the uninterrupted one. Results are not
    hashable. Frozen: each parameter is kept as the attribute of the same
    name; :func:`order_mcmc` makes them.

    Parameters
    ----------
    edge_probabilities : numpy.ndarray, shape (n, n)
        The fraction of the sampled DAGs, pooled over chains, that hold the
        edge ``parent -> child``: the order-MCMC estimate of its posterior.
    chain_edge_probabilities : numpy.ndarray, shape (chains, n, n)
        The same per chain.
    edge_standard_errors : numpy.ndarray, shape (n, n)
        The Monte Carlo standard error of ``edge_probabilities``: the
        largest of (1) batch means within each chain (``2 BATCHES /
        SE_MERGE`` batches of consecutive kept orders at most, at least half
        as many once ``BATCHES`` orders are kept; a last, partial batch left
        out), combined over the chains
        (:func:`tandem.bn.diagnostics.batch_means_errors`); (2) the spread
        of the chains' estimates, ``sd / sqrt(chains)``; and (3) a floor,
        ``sqrt(q (1 - q) / m)`` with ``q = (c + 1) / (N + 2)`` (``c`` of the
        ``N`` sampled DAGs in the edge's rarer state) and ``m`` the pooled
        effective sample size of the kept order scores
        (:func:`tandem.bn.diagnostics.pooled_ess`, at most ``N``): no edge,
        however rarely its other state was sampled, is claimed more precise
        than the orders that sampled it (``docs/bn.md``, "Honest errors").
        Zero where the table allows no edge; NaN with fewer than 2 full
        batches.
    edge_ess : numpy.ndarray, shape (n, n)
        Each edge's effective sample size: the number of independent DAG
        draws that would give its standard error, ``p (1 - p) / se**2``, so
        at most the order scores' ESS (in rarer states, fewer). NaN where
        ``p`` is 0 or 1.
    edge_rhat : numpy.ndarray, shape (n, n)
        Each edge's rank-normalised split R-hat over the means of the chains'
        :data:`BATCHES` to 2 :data:`BATCHES` batches
        (:func:`tandem.bn.diagnostics.ranked_rhat`): 1.0 where every batch
        agrees, NaN where the table allows no edge or with fewer than 4 full
        batches.
    edge_probabilities_given_orders : numpy.ndarray, shape (n, n)
        The average over the kept orders of ``P(edge | order)``, computed
        exactly for each order (a Rao–Blackwellised estimate: same limit,
        smaller Monte Carlo error).
    chain_edge_probabilities_given_orders : numpy.ndarray, shape (chains, n, n)
        The same per chain.
    best_order : numpy.ndarray of int64, shape (n,)
        The highest-scoring order any chain visited, as node indices from
        first to last (ties go to the lower chain, then the earlier visit).
    best_order_score : float
        Its log score.
    chain_best_orders : numpy.ndarray of int64, shape (chains, n)
        Each chain's highest-scoring order (where
        :func:`tandem.bn.search.map_dag` starts on large tables).
    best_dag : numpy.ndarray of bool, shape (n, n)
        The best DAG that ``best_order`` allows: each node's highest-scoring
        allowed parent set.
    best_dag_score : float
        Its score: the sum of the chosen local scores.
    traces : numpy.ndarray, shape (chains, iterations)
        The order log score after each iteration (burn-in included).
    acceptance_rates : dict of str to numpy.ndarray
        Per move kind, the fraction of its proposals accepted in each chain
        (NaN where it was never proposed).
    swap_rates : numpy.ndarray, shape (chains, replicas - 1)
        The fraction of the swaps offered between replicas ``r`` and ``r + 1``
        that were taken (NaN where none was offered).
    proposed : numpy.ndarray of int64, shape (chains, len(MOVES))
        Proposals per chain and move kind (columns in :data:`MOVES` order),
        of replica 0.
    accepted : numpy.ndarray of int64, shape (chains, len(MOVES))
        Acceptances; for ``"gibbs_position"``, draws that moved the node.
    samples : int
        DAGs sampled per chain.
    iterations : int
        Iterations per chain, as :func:`order_mcmc` was given them.
    burn_in : int
        Iterations before the first kept order.
    thin : int
        The spacing of the kept orders.
    dags_per_order : int
        DAGs sampled from each kept order.
    names : tuple of str
        The node names (the table's).
    streams : OrderMCMCStreams
        The run's streams (see the module docstring).

    See Also
    --------
    tandem.bn.exact_edge_posteriors : The exact edge posteriors, up to 20 nodes.
    tandem.bn.rhat : Split R-hat of the order score's ``traces``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> result = bn.order_mcmc(table, tandem.Philox(7), chains=2, iterations=200, progress=False)
    >>> result.edge_probabilities.shape, result.chain_edge_probabilities.shape
    ((8, 8), (2, 8, 8))
    >>> result.traces.shape, result.burn_in, result.thin, result.samples
    ((2, 200), 100, 10, 10)
    >>> result.best_order.tolist(), round(result.best_order_score, 3)
    ([1, 3, 5, 2, 4, 0, 6, 7], -482.353)
    """

    edge_probabilities: np.ndarray
    chain_edge_probabilities: np.ndarray
    edge_standard_errors: np.ndarray
    edge_ess: np.ndarray
    edge_rhat: np.ndarray
    edge_probabilities_given_orders: np.ndarray
    chain_edge_probabilities_given_orders: np.ndarray
    best_order: np.ndarray
    best_order_score: float
    chain_best_orders: np.ndarray
    best_dag: np.ndarray
    best_dag_score: float
    traces: np.ndarray
    acceptance_rates: dict
    swap_rates: np.ndarray
    proposed: np.ndarray
    accepted: np.ndarray
    samples: int
    iterations: int
    burn_in: int
    thin: int
    dags_per_order: int
    names: tuple
    streams: OrderMCMCStreams = field(repr=False)

    def __eq__(self, other):
        if not isinstance(other, OrderMCMCResult):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None


def _same(a, b):
    """Equality of result fields: arrays by dtype, shape and values (NaN == NaN), dicts by
    keys and values, floats with NaN == NaN."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape
                and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and bool(a == b)


def make_result(state, prepared, table, streams, iterations, burn_in, thin, dags_per_order):
    """The :class:`OrderMCMCResult` of the chains' final ``state``."""
    n_kept = state["n_kept"]
    kept = np.maximum(n_kept, 1)[:, None, None]
    chain_edges = state["edge_counts"] / (kept * dags_per_order)
    chain_given = state["edge_given_order"] / kept
    nan = np.full((prepared.n, prepared.n), np.nan)
    has = n_kept > 0
    if has.any():
        weights = n_kept[has] / n_kept[has].sum()
        edges = np.tensordot(weights, chain_edges[has], axes=1)
        given = np.tensordot(weights, chain_given[has], axes=1)
    else:
        edges, given = nan, nan.copy()
    chain_edges[~has] = np.nan
    chain_given[~has] = np.nan
    se, ess, rhat = _edge_errors(state, prepared, edges, chain_edges, dags_per_order,
                                 state["trace"][:, burn_in::thin])
    best_chain = int(np.argmax(state["best_score"]))
    best_order = state["best_order"][best_chain].copy()
    rows = search._order_rows(best_order, prepared.candidates, prepared.scores,
                              prepared.subsets)
    best_dag = search._adjacency(rows, prepared.candidates, prepared.subsets)
    best_dag_score = sum(float(prepared.scores[v, r]) for v, r in enumerate(rows))
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = state["accepted"] / state["proposed"]
        swap_rates = state["swaps_accepted"] / state["swaps_proposed"]
    return OrderMCMCResult(
        edge_probabilities=edges,
        chain_edge_probabilities=chain_edges,
        edge_standard_errors=se,
        edge_ess=ess,
        edge_rhat=rhat,
        edge_probabilities_given_orders=given,
        chain_edge_probabilities_given_orders=chain_given,
        best_order=best_order,
        best_order_score=float(state["best_score"][best_chain]),
        chain_best_orders=state["best_order"].copy(),
        best_dag=best_dag,
        best_dag_score=float(best_dag_score),
        traces=state["trace"],
        acceptance_rates={name: rates[:, i] for i, name in enumerate(MOVES)},
        swap_rates=swap_rates,
        proposed=state["proposed"],
        accepted=state["accepted"],
        samples=int(n_kept[0]) * dags_per_order,
        iterations=iterations,
        burn_in=burn_in,
        thin=thin,
        dags_per_order=dags_per_order,
        names=tuple(getattr(table, "names", ())),
        streams=streams,
    )


def _edge_errors(state, prepared, edges, chain_edges, dags_per_order, kept_scores):
    """``(se, ess, rhat)`` of the pooled edge probabilities ``edges``.

    The standard error is the largest of three (``docs/bn.md``, "Honest
    errors"): batch means of the chains' edge counts (full batches, all
    chains keeping as many orders); the spread of the chains' estimates
    ``chain_edges``; and a floor that no edge goes below, that of
    ``(c + 1) / (N + 2)`` (``c`` the sampled DAGs, of ``N``, in the edge's
    rarer state) over as many independent draws as the chains' kept order
    scores ``kept_scores`` are worth (their pooled ESS, at most ``N``).
    """
    kept = int(state["n_kept"][0])
    size = order_moves.batch_size(max(kept - 1, 0))
    full = kept // size
    counts = state["batch_counts"]
    chains = counts.shape[0]
    merged = full // SE_MERGE
    long_counts = counts[:, :merged * SE_MERGE].reshape(
        chains, merged, SE_MERGE, *counts.shape[2:]).sum(axis=2)
    candidates = prepared.candidates
    child, slot = np.nonzero(candidates >= 0)
    p, spread = np.zeros(candidates.shape), np.zeros(candidates.shape)
    p[child, slot] = edges[candidates[child, slot], child]
    if chains > 1:
        spread[child, slot] = diagnostics.edge_standard_errors(chain_edges)[
            candidates[child, slot], child]
    long_size = size * SE_MERGE
    se, _ = diagnostics.batch_means_errors(long_counts / float(long_size * dags_per_order),
                                           long_size, kept, p * (1.0 - p))
    samples = chains * kept * dags_per_order
    worth = min(float(samples), np.nan_to_num(diagnostics.pooled_ess(kept_scores),
                                              nan=float(samples)))
    rarer = np.rint(np.minimum(p, 1.0 - p) * samples)
    laplace = (rarer + 1.0) / (samples + 2.0)
    floor = np.sqrt(laplace * (1.0 - laplace) / max(worth, 1.0))
    se = np.maximum(se, np.maximum(spread, floor))  # NaN (too few batches) stays NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        ess = np.where(p * (1.0 - p) > 0, p * (1.0 - p) / se**2, np.nan)
    rhat = diagnostics.ranked_rhat(counts[:, :full] / float(size * dags_per_order))
    return (per_edge(se, candidates, 0.0), per_edge(ess, candidates, np.nan),
            per_edge(rhat, candidates, np.nan))
