"""Order MCMC (Friedman and Koller 2003) on a score table, with reproducible chains.

The state of a chain is a total order of the nodes. Its score is

    log P(D | order) = sum_i log sum_{Pa allowed} exp(score_i(Pa)),

where a parent set is allowed for node ``i`` when it is a row of the score
table (at most ``max_parents`` of ``i``'s candidate parents) and every parent
precedes ``i`` in the order. With a uniform prior on orders and a uniform
prior on the parent sets of each node given the order, this is the
order-modular model whose exact edge posteriors
:func:`tandem.bn.exact_edge_posteriors` computes.

Parallel tempering. With ``temperatures`` ``(1, beta_1, ..., beta_{R-1})``
each chain runs R replicas, replica ``r`` on the order posterior raised to
``beta_r``; every ``swap_every`` iterations neighbouring replicas offer to
exchange their orders (even pairs on even rounds, odd pairs on odd rounds).
Only replica 0 is kept: its orders are the chain's, and the DAGs are sampled
from them. With the single temperature 1 (the default) a chain is plain
order MCMC.

Randomness. A run derives five streams from ``root``:
``root.sub("tandem.bn.order_mcmc.initial")``,
``root.sub("tandem.bn.order_mcmc.moves")``,
``root.sub("tandem.bn.order_mcmc.dags")``,
``root.sub("tandem.bn.order_mcmc.tempered")`` and
``root.sub("tandem.bn.order_mcmc.swaps")``; chain ``c`` draws from the
``split(c)`` of each. Every draw is addressed, counted from the lane's
position (0 on Philox and Threefry, the root's on Tandem, whose ``sub`` and
``split`` keep it): the initial order takes 64-bit draw ``i`` of its lane
for the Fisher–Yates step of position ``i`` (every replica of a chain
starts from it); iteration ``t`` takes draws
``4t .. 4t + 3`` (move kind, two positions, acceptance or the Gibbs draw of a
position) of the moves lane for
replica 0 and of lane ``split(r)`` of the tempered lane for replica ``r``;
swap round ``s`` (after iteration ``(s + 1) swap_every - 1``) takes draw
``s (R - 1) + r`` of the swaps lane for the pair ``r, r + 1``; the DAG ``d``
sampled at iteration ``t`` takes draw ``(t * dags_per_order + d) * n + i``
of the dags lane for node ``i``. So a chain depends on nothing but ``root``, its index, the table and the
settings: not on how many chains run, on threads, on how the run is cut
into pieces, nor on a checkpoint and resume in between. The draws are
tandem's uniforms (:meth:`Stream.random`, :func:`tandem.random_at`) and the
node scores use :func:`tandem.core.exp64` and :func:`tandem.core.log64` (no
libm), so a chain is meant to be the same on every machine.
"""

from __future__ import annotations

import numbers
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numba
import numpy as np

from .. import _progress, core, files, parallel
from ..distributions import random_at
from ..stream import Stream
from ..tandem8x32 import Tandem
from . import combinations, node_sums, order_moves, order_sums
from .chain_state import Chain, Draws, Replica, Saved, Schedule
from .checkpoint import load_state, resume_path, save_state
from .order_moves import BATCHES, MOVES
from .result import SE_MERGE, OrderMCMCResult, OrderMCMCStreams, make_result
from .table import ScoreTable, check_device, default_memory_limit

core.register()
order_sums.register()
order_moves.register()

__all__ = ["order_mcmc", "OrderMCMCResult", "MOVES", "DEFAULT_MOVES", "BATCHES", "SE_MERGE",
           "SWAP_EVERY", "geometric_temperatures", "estimate_bytes"]


#: The moves that :func:`order_mcmc` proposes unless told otherwise.
DEFAULT_MOVES = ("adjacent", "transposition", "relocate")

#: Iterations of the first call of the chains' kernel; later calls aim at half a second.
FIRST_CHUNK = 64


PURPOSE_INITIAL = "tandem.bn.order_mcmc.initial"
PURPOSE_MOVES = "tandem.bn.order_mcmc.moves"
PURPOSE_DAGS = "tandem.bn.order_mcmc.dags"
PURPOSE_TEMPERED = "tandem.bn.order_mcmc.tempered"
PURPOSE_SWAPS = "tandem.bn.order_mcmc.swaps"

#: The default number of iterations between two rounds of replica swaps.
SWAP_EVERY = 10


def _initial_order(stream, n):
    """Fisher–Yates: position i swaps with floor(u_i (i + 1)), i = n-1 .. 1, u_i draw i."""
    u, _ = stream.random(n)
    order = np.arange(n, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        j = min(int(u[i] * (i + 1)), i)
        order[i], order[j] = order[j], order[i]
    return order


@numba.njit(cache=True)
def _add_parents(r, v, kt, edge_counts, batch):
    for q in range(kt.subsets.shape[1]):
        p = kt.subsets[r, q]
        if p < 0:
            break
        edge_counts[kt.candidates[v, p], v] += 1
        batch[v, p] += 1


@numba.njit(cache=True)
def _batch_of(i, batch_counts):
    """The batch of kept order ``i``, merging pairs of batches first where the
    batch size doubles at ``i``."""
    s = order_moves.batch_size(i)
    if i > 0 and s != order_moves.batch_size(i - 1):
        for j in range(BATCHES):
            batch_counts[j] = batch_counts[2 * j] + batch_counts[2 * j + 1]
        batch_counts[BATCHES:] = 0
    return i // s


@numba.njit(cache=True)
def _sample_dags(uniforms, dags, pos, kt, scratch, edge_counts, edge_given_order, batch):
    """DAGs given the order, and P(edge | order) for every edge; the DAGs'
    edges also count in ``batch`` (``[child, candidate slot]``).

    DAG d takes ``uniforms[d * n + v]`` for node v: the first allowed set in
    rank order at which the exact running sum of terms passes
    ``floor(u T)``, ``T`` the node's sum as a double.
    """
    flags, members, idx, scaled, state, best, guesses, shares, _ = scratch
    n = pos.shape[0]
    m = kt.candidates.shape[1]
    k = kt.subsets.shape[1]
    for v in range(n):
        count = node_sums.allowed(v, pos, kt.candidates, flags, members)
        row, e, _ = node_sums.node_sum(v, kt, count, scratch)
        factor = order_sums.scale(e)
        shares[:] = 0
        state[:3] = 0
        node_sums.blocks(node_sums.WALK_SHARES, row, kt.offsets, kt.binom, flags, members,
                         count, k, idx, factor, state, best, shares)
        total = order_sums.limbs_value(state[0], state[1])
        for p in range(m):
            if shares[0, p] > 0 or shares[1, p] > 0:
                edge_given_order[kt.candidates[v, p], v] += order_sums.limbs_value(
                    shares[0, p], shares[1, p]) / total
        for d in range(dags):
            state[:3] = 0
            state[3], state[4] = order_sums.target_limbs(uniforms[d * n + v] * total)
            node_sums.blocks(node_sums.WALK_FIND, row, kt.offsets, kt.binom, flags, members,
                             count, k, idx, factor, state, best, shares)
            r = state[2]
            if r < 0:  # rounding put the target past the end: the last set with a term
                r = _last_allowed(row, factor, flags, kt.subsets)
            _add_parents(r, v, kt, edge_counts, batch)


@numba.njit(cache=True)
def _last_allowed(row, factor, flags, subsets):
    """The last allowed set whose term is positive (0, the empty set, if none)."""
    for r in range(row.shape[0] - 1, 0, -1):
        if order_sums.term(row[r], factor) > 0:
            inside = True
            for q in range(subsets.shape[1]):
                p = subsets[r, q]
                if p < 0:
                    break
                if flags[p] == 0.0:
                    inside = False
                    break
            if inside:
                return r
    return 0


@numba.njit(cache=True)
def _move_rescored(v, kind, i, j, a, b, pos, kt, scratch, sums):
    """The node score of ``v``, in the range of a move of ``kind`` at ``i``, ``j`` that
    ``pos`` shows made (``a``, ``b`` the nodes that were at ``i``, ``j``): by the
    incremental rule where one candidate joins or leaves ``v``'s predecessors
    (:func:`tandem.bn.order_moves.move_rescoring`)."""
    leaving, joining, fresh = order_moves.move_rescoring(kind, i, j, v, a, b, pos)
    if fresh:
        return node_sums.node_score(v, pos, kt, scratch, sums)
    return node_sums.rescored(v, leaving, joining, pos, kt, scratch, sums)


@numba.njit(cache=True)
def _move(kind, i, j, log_u, beta, replica, total, kt, scratch, saved):
    """Propose ``kind`` at positions ``i``, ``j`` and accept it when ``log_u`` lies below
    ``beta`` times the change of the order score; returns (the score now, accepted)."""
    order, pos, node_scores, sums = replica
    saved_order, saved_scores, saved_sums = saved
    lo = min(i, j)
    hi = max(i, j)
    for p in range(lo, hi + 1):
        saved_order[p] = order[p]
    order_moves.apply_move(kind, i, j, order, pos)
    guesses, saved_guesses = scratch.guesses, scratch.saved_guesses
    a, b = saved_order[i], saved_order[j]  # the nodes proposed to move
    for p in range(lo, hi + 1):
        v = order[p]
        saved_scores[p] = node_scores[v]
        saved_guesses[p] = guesses[v]
        saved_sums[p] = sums[v]
        # a node between them keeps its score unless a moved node is its candidate
        if v == a or kt.slots[a, v] >= 0 or (kind != 2 and (v == b or kt.slots[b, v] >= 0)):
            node_scores[v] = _move_rescored(v, kind, i, j, a, b, pos, kt, scratch, sums)
    new_total = node_sums.total(node_scores)
    if new_total > -np.inf and (total == -np.inf or log_u < beta * (new_total - total)):
        return new_total, True
    for p in range(lo, hi + 1):
        node_scores[order[p]] = saved_scores[p]
        guesses[order[p]] = saved_guesses[p]
        sums[order[p]] = saved_sums[p]
    for p in range(lo, hi + 1):
        order[p] = saved_order[p]
        pos[order[p]] = p
    return total, False


@numba.njit(cache=True)
def _step_scores(v, step, end, replica, kt, scratch, position_scores):
    """Walk node ``v`` one position at a time by ``step`` (-1 or +1) up to ``end``,
    rescoring ``v`` and the node it passes (each loses or gains the other, the
    incremental rule): ``position_scores[j]`` is the order score with ``v`` at
    ``j``."""
    order, pos, node_scores, sums = replica
    j = pos[v]
    while j != end:
        w = order[j + step]
        order[j + step] = v
        order[j] = w
        pos[v] = j + step
        pos[w] = j
        earlier = step < 0
        if kt.slots[w, v] >= 0:
            node_scores[v] = node_sums.rescored(v, w if earlier else -1, -1 if earlier else w,
                                                pos, kt, scratch, sums)
        if kt.slots[v, w] >= 0:
            node_scores[w] = node_sums.rescored(w, -1 if earlier else v, v if earlier else -1,
                                                pos, kt, scratch, sums)
        j += step
        position_scores[j] = node_sums.total(node_scores)


@numba.njit(cache=True)
def _gibbs_position(i, u, beta, replica, total, kt, scratch, saved, position_scores):
    """Move the node at position ``i`` to a position drawn from its conditional law,
    ``P(j) ∝ exp(beta S_j)`` over all ``n`` positions (``S_j`` the order score with
    the node at ``j`` and the others in their order): a Gibbs step, always taken.
    ``u`` picks ``j`` by the inverse of the cumulative weights, in position order.
    Returns (the score now, whether the node moved)."""
    order, pos, node_scores, sums = replica
    saved_order, saved_scores, saved_sums = saved
    n = order.shape[0]
    v = order[i]
    saved_order[:] = order
    saved_scores[:] = node_scores
    saved_sums[:] = sums
    position_scores[i] = total
    for end in (0, n - 1):
        _step_scores(v, -1 if end == 0 else 1, end, replica, kt, scratch, position_scores)
        order[:] = saved_order
        node_scores[:] = saved_scores
        sums[:] = saved_sums
        for p in range(n):
            pos[order[p]] = p
    j = order_moves.gibbs_pick(position_scores, beta, u)
    if j == i:
        return total, False
    _step_scores(v, -1 if j < i else 1, j, replica, kt, scratch, position_scores)
    return node_sums.total(node_scores), True


@numba.njit(cache=True)
def _swap_replicas(a, b, orders, positions, node_scores, sums, totals):
    for p in range(orders.shape[1]):
        orders[a, p], orders[b, p] = orders[b, p], orders[a, p]
        positions[a, p], positions[b, p] = positions[b, p], positions[a, p]
        node_scores[a, p], node_scores[b, p] = node_scores[b, p], node_scores[a, p]
        for q in range(3):
            sums[a, p, q], sums[b, p, q] = sums[b, p, q], sums[a, p, q]
    totals[a], totals[b] = totals[b], totals[a]


@numba.njit(cache=True)
def _propose(t, r, schedule, draws, replica, total, kt, scratch, saved, position_scores):
    """Replica ``r``'s proposal of iteration ``t``, accepted or not: ``(its score
    now, the move kind, accepted)``."""
    first = 4 * (t - schedule.t0)
    u = draws.moves[r, first:first + 4]
    n = replica.order.shape[0]
    kind, i, j = order_moves.proposal(schedule.cum, u[0], u[1], u[2], n)
    beta = schedule.betas[r]
    if kind == 3:
        total, took = _gibbs_position(i, u[3], beta, replica, total, kt, scratch, saved,
                                      position_scores)
    else:
        # in (0, 1], so that its log is finite: exact, as u is a multiple of 2**-53
        total, took = _move(kind, i, j, order_moves.log_uniform(u[3]), beta, replica, total,
                            kt, scratch, saved)
    return total, kind, took


@numba.njit(cache=True)
def _offer_swaps(t, schedule, draws, chain, positions, node_scores, sums, totals):
    """After iteration ``t`` of a swap round, neighbouring replicas ``r, r + 1`` with
    ``r`` of the round's parity offer to exchange their orders (the deterministic
    even–odd scheme of Okabe et al. 2001)."""
    replicas = totals.shape[0]
    swap_every, betas = schedule.swap_every, schedule.betas
    first_round = (schedule.t0 + swap_every) // swap_every - 1
    s = (t + 1) // swap_every - 1
    for r in range(s % 2, replicas - 1, 2):
        log_u = order_moves.log_uniform(draws.swaps[(s - first_round) * (replicas - 1) + r])
        chain.swaps_proposed[r] += 1
        if totals[r + 1] > -np.inf and (
                totals[r] == -np.inf
                or log_u < (betas[r] - betas[r + 1]) * (totals[r + 1] - totals[r])):
            _swap_replicas(r, r + 1, chain.orders, positions, node_scores, sums, totals)
            chain.swaps_accepted[r] += 1


@numba.njit(cache=True)
def _record(t, kept, schedule, draws, chain, positions, totals, kt, scratch):
    """Iteration ``t``'s trace and best order, and, when ``t`` keeps its order
    (the ``kept``-th of this call), the DAGs sampled from it; returns the
    orders kept in this call so far."""
    chain.trace[t] = totals[0]
    for r in range(totals.shape[0]):
        if totals[r] > chain.best_score[0]:
            chain.best_score[0] = totals[r]
            chain.best_order[:] = chain.orders[r]
    if t < schedule.burn_in or (t - schedule.burn_in) % schedule.thin != 0:
        return kept
    b = _batch_of(chain.n_kept[0], chain.batch_counts)
    chain.n_kept[0] += 1
    n, dags = positions.shape[1], schedule.dags
    _sample_dags(draws.dags[kept * dags * n:(kept + 1) * dags * n], dags, positions[0], kt,
                 scratch, chain.edge_counts, chain.edge_given_order, chain.batch_counts[b])
    return kept + 1


@numba.njit(cache=True)
def _chain(schedule, draws, kt, chain):
    """Iterations ``schedule.t0 .. t1 - 1`` of one chain: each iteration every
    replica ``r`` (at inverse temperature ``betas[r]``, replica 0 the posterior
    itself) proposes a move (:func:`_propose`), the replicas offer swaps at the
    end of a swap round (:func:`_offer_swaps`), and the chain records the
    iteration (:func:`_record`)."""
    replicas, n = chain.orders.shape
    node_scores = np.empty((replicas, n), dtype=np.float64)
    sums = np.empty((replicas, n, 3), dtype=np.int64)
    positions = np.empty((replicas, n), dtype=np.int64)
    totals = np.empty(replicas, dtype=np.float64)
    for r in range(replicas):
        positions[r] = node_sums.order_node_sums(chain.orders[r], kt, node_scores[r], sums[r])
        totals[r] = node_sums.total(node_scores[r])
    scratch = node_sums.node_scratch(kt)
    saved = Saved(np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float64),
                  np.empty((n, 3), dtype=np.int64))
    position_scores = np.empty(n, dtype=np.float64)
    kept = 0
    for t in range(schedule.t0, schedule.t1):
        if n >= 2:
            for r in range(replicas):
                replica = Replica(chain.orders[r], positions[r], node_scores[r], sums[r])
                totals[r], kind, took = _propose(t, r, schedule, draws, replica, totals[r], kt,
                                                 scratch, saved, position_scores)
                if r == 0:
                    chain.proposed[kind] += 1
                    if took:
                        chain.accepted[kind] += 1
            if replicas > 1 and (t + 1) % schedule.swap_every == 0:
                _offer_swaps(t, schedule, draws, chain, positions, node_scores, sums, totals)
        kept = _record(t, kept, schedule, draws, chain, positions, totals, kt, scratch)


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def _advance(schedule, draws, kt, chains):
    """:func:`_chain` for every chain, in parallel; ``draws`` and ``chains`` hold
    each chain's arrays along their first axis."""
    for c in numba.prange(chains.orders.shape[0]):
        _chain(schedule, Draws(draws.moves[c], draws.swaps[c], draws.dags[c]), kt,
               Chain(chains.orders[c], chains.best_score[c:c + 1], chains.best_order[c],
                     chains.trace[c], chains.proposed[c], chains.accepted[c],
                     chains.swaps_proposed[c], chains.swaps_accepted[c], chains.edge_counts[c],
                     chains.edge_given_order[c], chains.n_kept[c:c + 1],
                     chains.batch_counts[c]))


# -- the table, prepared for the kernels --------------------------------------

class _Prepared:
    """Sorted scores, subset masks and rank tables for one score table."""

    def __init__(self, table):
        scores = np.asarray(table.scores)
        candidates = np.asarray(table.candidates)
        if scores.ndim != 2 or scores.dtype != np.float64:
            raise ValueError(f"table.scores must be a 2-D float64 array, got "
                             f"{scores.dtype} with shape {scores.shape}")
        n, width = scores.shape
        if candidates.ndim != 2 or candidates.shape[0] != n or \
                not np.issubdtype(candidates.dtype, np.integer):
            raise ValueError(f"table.candidates must be an integer array with {n} rows, "
                             f"got {candidates.dtype} with shape {candidates.shape}")
        m = candidates.shape[1]
        k = int(table.max_parents)
        if width != combinations.n_sets(m, k):
            raise ValueError(f"table.scores has {width} columns; {m} candidates and "
                             f"max_parents={k} give {combinations.n_sets(m, k)}")
        if m >= node_sums.MAX_SLOTS or width >= order_sums.MAX_TERMS:
            raise ValueError(f"order_mcmc sums at most {order_sums.MAX_TERMS - 1} parent sets "
                             f"of fewer than {node_sums.MAX_SLOTS} candidates exactly; this "
                             f"table has {width} sets over {m} candidates: restrict the "
                             f"candidates")
        self.scores = np.ascontiguousarray(scores)
        self.top, bad = node_sums.row_summaries(self.scores)
        if bad:
            raise ValueError("table.scores holds NaN or +inf")
        if n == 0:
            raise ValueError("the table has no nodes")
        if np.any((candidates < -1) | (candidates >= n)) or \
                np.any(candidates == np.arange(n)[:, None]):
            raise ValueError("table.candidates must hold node indices other than the row's "
                             "own node, or -1 padding")
        if not np.all(np.isfinite(scores[:, 0])):
            raise ValueError("every node needs a finite score for the empty parent set "
                             "(column 0 of table.scores)")
        self.n, self.m, self.k = n, m, k
        self.candidates = np.ascontiguousarray(candidates, dtype=np.int64)
        _, self.subsets = combinations.subset_table(m, k)
        self.weights = node_sums.row_weights(self.scores, self.top)
        slots = np.full((n, n), -1, dtype=np.int64)
        child, slot = np.nonzero(self.candidates >= 0)
        slots[self.candidates[child, slot], child] = slot
        self.kernel = node_sums.Kernel(self.candidates, self.scores, self.weights, self.top,
                              combinations.offsets(m, k), combinations.binomial_table(m, k),
                              self.subsets, slots)


def estimate_bytes(n_nodes, m, max_parents, *, chains=4, iterations=10_000):
    """The bytes :func:`order_mcmc` takes beyond the score table itself, at its peak.

    For a table of ``n_nodes`` rows over ``m`` candidate slots: the weights
    (the one table-sized array), the subset table, and the chains' state,
    a row of scratch each, edge-count batches, traces and DAG uniforms
    (``chains`` counting every replica of a tempered run).
    """
    width = int(combinations.n_sets(m, max_parents))
    return (8 * n_nodes * width + 8 * width * (max_parents + 1)
            + chains * (16 * n_nodes * n_nodes + 8 * BATCHES * n_nodes * m + 8 * width
                        + 8 * iterations + (1 << 23)))


def _check_memory(table, chains, iterations, memory_limit):
    """Refuse, before anything is built, a run whose estimate passes the limit."""
    scores = np.asarray(table.scores)
    if scores.ndim != 2:
        return  # _Prepared says what is wrong
    n, m = scores.shape[0], np.shape(table.candidates)[-1]
    need = estimate_bytes(n, m, int(table.max_parents), chains=chains, iterations=iterations)
    if memory_limit is None:
        limit = default_memory_limit() - scores.nbytes
        what = "half the machine's memory less the table's"
    else:
        limit = _integer(memory_limit, "memory_limit", 0)
        what = "memory_limit"
    if need > limit:
        raise MemoryError(
            f"order_mcmc needs about {need / 2**30:.2f} GiB beside the table (the weights of "
            f"its {n} x {scores.shape[1]} entries, and "
            f"{chains} chains' state and {iterations} iterations of trace), more than "
            f"{max(limit, 0) / 2**30:.2f} GiB ({what}); restrict the candidates or "
            f"max_parents of the table, or pass memory_limit")


# -- settings and checkpoints -------------------------------------------------

def _integer(x, name, low):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    if x < low:
        raise ValueError(f"{name} must be at least {low}, got {x}")
    return int(x)


def _move_probabilities(moves):
    if isinstance(moves, str):
        moves = (moves,)
    if isinstance(moves, Mapping):
        weights = dict(moves)
    else:
        moves = tuple(moves)
        if len(set(moves)) != len(moves):
            raise ValueError(f"moves has duplicates: {moves!r}")
        weights = {name: 1.0 for name in moves}
    unknown = sorted(set(weights) - set(MOVES))
    if unknown:
        raise ValueError(f"moves: unknown move(s) {unknown}; choose from {MOVES}")
    values = np.array([float(weights.get(name, 0.0)) for name in MOVES])
    if not np.all(np.isfinite(values)) or np.any(values < 0) or values.sum() <= 0:
        raise ValueError(f"moves: weights must be finite, non-negative and not all zero, "
                         f"got {weights!r}")
    return values / values.sum()


def geometric_temperatures(replicas, hottest):
    """``replicas`` inverse temperatures from 1 down to ``hottest``, in geometric steps.

    Examples
    --------
    >>> geometric_temperatures(3, 0.25).tolist()
    [1.0, 0.5, 0.25]
    """
    replicas = _integer(replicas, "replicas", 1)
    hottest = float(hottest)
    if not 0.0 < hottest <= 1.0:
        raise ValueError(f"hottest must lie in (0, 1], got {hottest}")
    if replicas == 1:
        return np.ones(1)
    return hottest ** (np.arange(replicas) / (replicas - 1))


def _temperatures(temperatures):
    betas = np.array(temperatures, dtype=np.float64, ndmin=1)
    if betas.ndim != 1 or betas.size == 0 or betas[0] != 1.0 or not np.all(
            np.isfinite(betas)) or np.any(betas <= 0.0) or np.any(np.diff(betas) >= 0.0):
        raise ValueError(f"temperatures must be inverse temperatures from 1.0 down, strictly "
                         f"decreasing and positive, got {temperatures!r}")
    return betas


def _draws_from(lane, i):
    """``lane`` at its 64-bit draw ``i``, counted from its position (words, not a
    generator's own unit: a Tandem position is in bits)."""
    return lane.at_word(lane.word_position + 2 * i)


def _stream_description(root):
    description = {"generator": type(root).__name__, "key": list(root.key), "lane": root.lane}
    if isinstance(root, Tandem):  # its children keep its position, and K orders its words
        description.update(position=root.position, K=root.K)
    return description


# -- the public function --------------------------------------------------------

def order_mcmc(table: ScoreTable, root: Stream, *, chains: int = 4, iterations: int = 10_000,
               burn_in: int | None = None, thin: int = 10,
               moves: Sequence[str] | Mapping[str, float] = DEFAULT_MOVES,
               dags_per_order: int = 1, temperatures: Sequence[float] = (1.0,),
               swap_every: int = SWAP_EVERY, checkpoint: str | os.PathLike | None = None,
               resume: str | os.PathLike | None = None, progress: bool | str = True,
               memory_limit: int | None = None, device: str = "cpu",
               client: Any = None) -> OrderMCMCResult:
    """Sample node orders by Metropolis–Hastings, and DAGs given the orders.

    Parameters
    ----------
    table : ScoreTable
        Local scores of every allowed parent set (see :func:`tandem.bn.score_table`).
        Any object with the attributes ``scores``, ``candidates``,
        ``max_parents``, ``names`` and ``fingerprint`` will do.
    root : tandem.Stream
        Where the randomness comes from (see the module docstring).
    chains : int
        Number of independent chains; chain ``c`` is the same whatever the
        number of chains.
    iterations : int
        Iterations per chain (a proposal and its acceptance test each). When
        resuming, the total to reach, counting the checkpoint's.
    burn_in : int, optional
        Iterations before the first kept order; default ``iterations // 2``,
        or the checkpoint's value when resuming.
    thin : int
        Keep the order after iteration ``t`` when ``t >= burn_in`` and
        ``(t - burn_in) % thin == 0``.
    moves : sequence of str, or mapping of str to float
        Move kinds to propose (uniformly), or their relative weights (default
        :data:`DEFAULT_MOVES`): ``"adjacent"`` swaps two neighbours,
        ``"transposition"`` swaps two positions, ``"relocate"`` moves one
        node to another position. Each is symmetric, so the acceptance
        probability is the ratio of the order scores; only the nodes between
        the two positions are rescored. ``"gibbs_position"`` takes one node
        and draws its position from its conditional law given the order of
        the others, over all ``n`` positions (a Gibbs step, always taken; it
        costs about ``2 n`` node scores, where the others cost the distance
        between their positions).
    dags_per_order : int
        DAGs sampled from each kept order: each node's parent set with
        probability proportional to ``exp(score)`` among the allowed ones.
    temperatures : sequence of float
        Inverse temperatures of the replicas of each chain, from 1 down,
        strictly decreasing and positive (see the module docstring and
        :func:`geometric_temperatures`). Each replica costs as much as a
        chain; the default ``(1.0,)`` runs no tempering.
    swap_every : int
        Iterations between two rounds of replica swaps.
    checkpoint : str or os.PathLike, optional
        A ``.npz`` file to write the state to: at the end, and every 30
        seconds or so during the run (atomically).
    resume : str or os.PathLike, optional
        A checkpoint to continue from. It must come from the same table
        (fingerprint), root, chains, burn-in, thin, moves, dags per order,
        temperatures and swap interval, else ``ValueError``. The continued chains equal, bit for bit, those
        of one uninterrupted run. The file is checked field by field before
        anything runs: exactly the fields of a checkpoint, no larger than
        these chains and iterations can make, each of its dtype and shape,
        every order a permutation of the nodes, the counters consistent with
        the iterations done, and the recorded scores those of the recorded
        orders. A damaged, empty or crafted file raises ``ValueError``
        naming ``resume`` and the field.
    progress : bool or "always"
        Show a progress bar (on a terminal).
    memory_limit : int, optional
        Bytes the sampler may take beside the table, estimated by
        :func:`estimate_bytes` before anything is built; past it
        ``MemoryError``. Default: :func:`tandem.bn.table.default_memory_limit`
        (half the machine's total memory) less the table's own bytes.
    device : {"cpu", "cuda"}
        Where the chains run: Numba's CPU kernels (a chain a core), or CUDA
        kernels on the current GPU (:mod:`tandem.bn.cuda_mcmc`: a chain a block
        of threads, every chain at once; needs numba-cuda). The chains are the
        same bit for bit on either, and so are their checkpoints: a run may
        resume on the other device.
    client : distributed.Client, optional
        Run the chains on a Dask cluster's workers, a task a chain (the table
        goes to each worker once).  Chain ``c`` equals its local twin bit for
        bit, so the result is the local run's; a task lost with a worker
        runs again to the same chain.  No checkpoints (``checkpoint`` and
        ``resume`` must be None); ``memory_limit`` and ``device`` apply on
        each worker.

    Returns
    -------
    OrderMCMCResult
        The edge probabilities (from the sampled DAGs and given the orders),
        their Monte Carlo errors and R-hats, the best order and its DAG, the
        traces and the acceptance rates. Chain ``c`` depends only on ``root``,
        its index, the table and the settings.

    Raises
    ------
    ValueError
        For a checkpoint to resume that does not match the run, or is
        damaged; or ``checkpoint`` or ``resume`` given with ``client``.
    MemoryError
        When the estimated need passes ``memory_limit`` (or, on a GPU, its
        free memory).

    Notes
    -----
    A node's score sums the weights ``exp(score - top)`` of its allowed parent
    sets, ``top`` being its best score over all sets; weights under
    ``exp(-708)`` count as zero. When the allowed sets' weights sum to less
    than ``1e-290``, the node sums them in their own scale instead,
    ``exp(score - best)`` with ``best`` its best allowed score. Either way a
    node score is within ``n_sets * 1e-17`` relative of the exact
    log-sum-exp, and DAG sampling draws from the same weights. Beside the
    table, the sampler keeps one array of its size (the weights). The scores
    are pure functions of the order, computed with :func:`tandem.core.exp64`
    and :func:`tandem.core.log64`.

    Cost: a proposal rescores the nodes between the two positions it
    touches; a node costs about as many multiply-adds as it has allowed
    parent sets whose upper members precede it. A kept order costs a pass
    over every node, so thinning saves time.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> result = bn.order_mcmc(table, tandem.Philox(7), chains=2, iterations=200, progress=False)
    >>> result.edge_probabilities.shape, result.samples
    ((8, 8), 10)
    >>> result.best_order.tolist()
    [1, 3, 5, 2, 4, 0, 6, 7]

    The same root gives the same run, and chain ``c`` is the same whatever
    the number of chains:

    >>> result == bn.order_mcmc(table, tandem.Philox(7), chains=2, iterations=200,
    ...                         progress=False)
    True
    >>> one = bn.order_mcmc(table, tandem.Philox(7), chains=1, iterations=200, progress=False)
    >>> bool((one.traces[0] == result.traces[0]).all())
    True
    """
    options = dict(iterations=iterations, burn_in=burn_in, thin=thin, moves=moves,
                   dags_per_order=dags_per_order, temperatures=temperatures,
                   swap_every=swap_every, memory_limit=memory_limit, device=device)
    if client is None:
        return _order_mcmc(table, root, 0, "result", chains=chains, checkpoint=checkpoint,
                           resume=resume, progress=progress, **options)
    if checkpoint is not None or resume is not None:
        raise ValueError("client=: chains on Dask workers write no checkpoint; give "
                         "checkpoint=None and resume=None")
    prepared, streams, burn_in = _order_mcmc(table, root, 0, "check", chains=chains,
                                             progress=False, **options)
    chains = int(chains)
    shared = client.scatter(table, broadcast=True, hash=False)
    run = uuid.uuid4().hex
    futures = [client.submit(_chain_state, shared, root, c, options,
                             key=f"tandem-chain-{run}-{c}") for c in range(chains)]
    states = []
    try:
        with _progress.bar(chains, "order MCMC (chains on workers)", progress) as bar:
            for future in futures:
                states.append(future.result())
                bar.update(1)
    finally:
        client.cancel(futures)
    state = {name: np.concatenate([s[name] for s in states]) for name in states[0]}
    return make_result(state, prepared, table, streams, int(iterations), burn_in, int(thin),
                   int(dags_per_order))


def _chain_state(table, root, c, options):
    """The state of chain ``c`` alone after its run (a task on a worker)."""
    return _order_mcmc(table, root, c, "state", chains=1, progress=False, **options)


def _order_mcmc(table, root, first, mode, *, chains, iterations, burn_in, thin, moves,
                dags_per_order, temperatures, swap_every, memory_limit, device,
                checkpoint=None, resume=None, progress=True):
    """Chains ``first .. first + chains - 1`` of :func:`order_mcmc`: ``mode`` "result"
    gives the result, "state" the chains' state, "check" checks the arguments and
    gives ``(prepared table, streams, burn-in)`` without running anything."""
    if not isinstance(root, Stream):
        raise TypeError(f"root must be a tandem Stream, got {type(root).__name__}")
    device = check_device(device)
    chains = _integer(chains, "chains", 1)
    iterations = _integer(iterations, "iterations", 0)
    burn_in_given = burn_in is not None
    burn_in = iterations // 2 if burn_in is None else _integer(burn_in, "burn_in", 0)
    thin = _integer(thin, "thin", 1)
    dags_per_order = _integer(dags_per_order, "dags_per_order", 1)
    probabilities = _move_probabilities(moves)
    betas = _temperatures(temperatures)
    swap_every = _integer(swap_every, "swap_every", 1)
    if checkpoint is not None:
        checkpoint = files.target(checkpoint, "checkpoint", "an .npz file")
    if resume is not None:
        resume = resume_path(resume)
    replicas = betas.shape[0]
    _check_memory(table, chains * replicas, iterations, memory_limit)
    prepared = _Prepared(table)
    n = prepared.n
    fingerprint = str(table.fingerprint)

    settings = {
        "root": _stream_description(root), "chains": chains, "burn_in": burn_in,
        "thin": thin, "dags_per_order": dags_per_order,
        "moves": [float(p) for p in probabilities], "nodes": n,
        "temperatures": betas.tolist(), "swap_every": swap_every,
    }

    streams = OrderMCMCStreams(initial=root.sub(PURPOSE_INITIAL), moves=root.sub(PURPOSE_MOVES),
                               dags=root.sub(PURPOSE_DAGS), tempered=root.sub(PURPOSE_TEMPERED),
                               swaps=root.sub(PURPOSE_SWAPS))
    if mode == "check":
        return prepared, streams, burn_in
    ids = range(first, first + chains)

    if resume is not None:
        state, done = load_state(resume, settings, fingerprint, burn_in_given, iterations, prepared)
        burn_in = settings["burn_in"]
    else:
        done = 0
        orders = np.array([_initial_order(streams["initial"].split(c), n)
                           for c in ids]).reshape(chains, n)
        best_score = node_sums.order_totals(orders, prepared.kernel)
        state = {
            "orders": np.repeat(orders[:, None], replicas, axis=1), "best_score": best_score,
            "best_order": orders.copy(),
            "swaps_proposed": np.zeros((chains, replicas - 1), dtype=np.int64),
            "swaps_accepted": np.zeros((chains, replicas - 1), dtype=np.int64),
            "trace": np.full((chains, iterations), np.nan),
            "proposed": np.zeros((chains, len(MOVES)), dtype=np.int64),
            "accepted": np.zeros((chains, len(MOVES)), dtype=np.int64),
            "edge_counts": np.zeros((chains, n, n), dtype=np.int64),
            "edge_given_order": np.zeros((chains, n, n)),
            "n_kept": np.zeros(chains, dtype=np.int64),
            "batch_counts": np.zeros((chains, 2 * BATCHES, n, prepared.m), dtype=np.int32),
        }

    cum = np.cumsum(probabilities)
    move_streams = [[streams["moves"].split(c)]
                    + [streams["tempered"].split(c).split(r) for r in range(1, replicas)]
                    for c in ids]
    swap_streams = [streams["swaps"].split(c) for c in ids]
    dag_streams = [streams["dags"].split(c) for c in ids]

    def draws(t0, t1):
        # iteration t: draws 4t .. 4t + 3 of each replica's moves lane (64-bit draw i
        # is at word 2i); swap round s: draws s (R - 1) .. of the swaps lane; the DAGs
        # of a kept t: draws (t * dags + d) * n + v of the dags lane
        moves_u = np.array([[_draws_from(s, 4 * t0).random(4 * (t1 - t0))[0] for s in lanes]
                            for lanes in move_streams])
        first_round, end_round = (t0 + swap_every) // swap_every - 1, t1 // swap_every
        swaps_u = np.array([_draws_from(s, first_round * (replicas - 1)).random(
            max(end_round - first_round, 0) * (replicas - 1))[0] for s in swap_streams])
        first = burn_in + max(0, -(-(t0 - burn_in) // thin)) * thin
        kept = np.arange(first, t1, thin, dtype=np.uint64)
        index = ((kept[:, None] * dags_per_order + np.arange(dags_per_order, dtype=np.uint64))
                 [:, :, None] * n + np.arange(n, dtype=np.uint64)).ravel()
        if index.size:
            dags_u = np.array([random_at(s, index) for s in dag_streams])
        else:
            dags_u = np.zeros((chains, 0))
        return (moves_u.reshape(chains, replicas, -1), swaps_u.reshape(chains, -1),
                dags_u.reshape(chains, -1))

    on_device = None
    if device == "cuda":
        from .cuda_mcmc import DeviceChains

        on_device = DeviceChains(prepared.kernel, state, fresh=resume is None)

    def write(t):
        if on_device is not None:
            on_device.fetch(state)
        if checkpoint is not None:
            save_state(checkpoint, {**state, "trace": state["trace"][:, :t], "done": t},
                  settings, fingerprint)

    chunk = FIRST_CHUNK
    # at most about 8 MiB of DAG uniforms per chain and chunk
    largest = max(16, min(1 << 16, (1 << 20) * thin // (n * dags_per_order)))
    last_write = time.monotonic()
    with _progress.bar(iterations - done, "order MCMC", progress) as bar:
        t = done
        while t < iterations:
            t1 = min(iterations, t + chunk)
            start = time.monotonic()
            moves_u, swaps_u, dags_u = draws(t, t1)
            if on_device is not None:
                on_device.advance(t, t1, burn_in, thin, dags_per_order, cum, swap_every, betas,
                                  moves_u, swaps_u, dags_u)
            else:
                _advance(Schedule(t, t1, burn_in, thin, dags_per_order, swap_every, cum, betas),
                         Draws(moves_u, swaps_u, dags_u), prepared.kernel,
                         Chain(*(state[name] for name in Chain._fields)))
            bar.update(t1 - t)
            elapsed = time.monotonic() - start
            # aim at chunks of about half a second: the bar moves, the overhead stays small
            chunk = int(min(max(chunk * 0.5 / max(elapsed, 1e-6), 16), chunk * 4, largest))
            t = t1
            if checkpoint is not None and time.monotonic() - last_write > 30.0:
                write(t)
                last_write = time.monotonic()
    write(iterations)
    if mode == "state":
        return state
    return make_result(state, prepared, table, streams, iterations, burn_in, thin,
                   dags_per_order)
