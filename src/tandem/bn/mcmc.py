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

import json
import numbers
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import numba
import numpy as np

from .. import _progress, core, files, parallel
from ..distributions import random_at
from ..stream import Stream
from ..tandem8x32 import Tandem
from . import combinations, diagnostics, order_moves, order_sums, search, set_walks
from .order_moves import BATCHES
from .table import ScoreTable, candidate_matrix, check_device, default_memory_limit

core.register()
order_sums.register()
order_moves.register()
set_walks.register()

__all__ = ["order_mcmc", "OrderMCMCResult", "MOVES", "DEFAULT_MOVES", "BATCHES", "SE_MERGE",
           "SWAP_EVERY", "geometric_temperatures", "estimate_bytes"]

#: The move kinds, in the order of their columns in the acceptance arrays.
MOVES = ("adjacent", "transposition", "relocate", "gibbs_position")

#: The moves that :func:`order_mcmc` proposes unless told otherwise.
DEFAULT_MOVES = ("adjacent", "transposition", "relocate")

#: Iterations of the first call of the chains' kernel; later calls aim at half a second.
FIRST_CHUNK = 64

#: Each chain keeps its sampled DAGs' edge counts in batches of consecutive kept
#: orders, BATCHES to 2 BATCHES of them: while there are fewer than 2 BATCHES
#: kept orders a batch holds one; when the 2 BATCHES batches are full, each
#: pair merges into one and the batch size doubles. The batches depend only
#: on the number of kept orders, so a resumed run has the same ones. The
#: edges' R-hats take their means; their standard errors take the means of
#: SE_MERGE batches at a time (16 to 32 batches, long against the chains'
#: autocorrelation). See OrderMCMCResult.
SE_MERGE = 16

PURPOSE_INITIAL = "tandem.bn.order_mcmc.initial"
PURPOSE_MOVES = "tandem.bn.order_mcmc.moves"
PURPOSE_DAGS = "tandem.bn.order_mcmc.dags"
PURPOSE_TEMPERED = "tandem.bn.order_mcmc.tempered"
PURPOSE_SWAPS = "tandem.bn.order_mcmc.swaps"

#: The default number of iterations between two rounds of replica swaps.
SWAP_EVERY = 10

_CHECKPOINT_VERSION = 4


# -- the kernels ------------------------------------------------------------
#
# A node's allowed parent sets are walked in the order of their ranks, in
# blocks: for a size s >= 2, fixing the upper s - 1 positions c_1 < ... of a
# set leaves its lowest position a < c_1 free, and those sets have the
# consecutive ranks base + a. A block is then a pass over a row of weights
# exp(score - top) with the 0/1 vector of allowed positions: no exp, no
# branch, contiguous loads. Blocks whose upper positions are not all allowed
# are never visited. The sums are exact (tandem.bn.order_sums): the terms
# rint(w 2**E) in two int64 limbs, the scale 2**E set by the largest allowed
# weight, which the same pass finds; a pass whose guessed scale proves wrong
# is made again at the right one. Where every allowed set lies more than
# about 624 nats below the node's top score, the node takes the walk over
# its scores, for the best allowed one, then sums in that scale, in a row of
# scratch (no table-sized array beside the weights).

_LIMB = order_sums.LIMB
_MASK = order_sums.LIMB_MASK

# the walks of _blocks
_SUM, _FIND, _SHARES, _MAX = 0, 1, 2, 3


@numba.njit(cache=True)
def _allowed(v, pos, candidates, flags, members):
    """Which candidates of ``v`` precede it: 0/1 ``flags`` and ascending ``members``
    (returns their number)."""
    pv = pos[v]
    count = 0
    for q in range(candidates.shape[1]):
        c = candidates[v, q]
        if c >= 0 and pos[c] < pv:
            flags[q] = 1.0
            members[count] = q
            count += 1
        else:
            flags[q] = 0.0
    return count


#: A block's terms (each below 2**52) are summed in one int64: blocks hold fewer than
#: this many (the candidate slots), and the sums of fewer than MAX_TERMS are exact.
MAX_SLOTS = 2048


@numba.njit(cache=True)
def _block_terms(row, base, flags, length, factor):
    """The limbs of one block's terms over all its lowest positions, flagged, and the
    bits of its largest allowed weight (the walk that :func:`_block_sum` shortens)."""
    run = np.int64(0)
    largest = np.int64(0)
    for a in range(length):
        w = row[base + a] * flags[a]
        largest = max(largest, order_sums.weight_bits(w))
        run += order_sums.term(w, factor)
    return run >> _LIMB, run & _MASK, largest


@numba.njit(cache=True)
def _visit(mode, row, base, length, flags, uppers, n_upper, factor, state, best, acc):
    """One block of :func:`_blocks`; returns True when the walk is over (``_FIND``)."""
    if length <= 0:
        return False
    if mode == _MAX:
        for a in range(length):
            if flags[a] != 0.0 and row[base + a] > best[0]:
                best[0] = row[base + a]
        return False
    if mode == _SUM:
        hi, lo, largest = _block_terms(row, base, flags, length, factor)
        state[0] += hi
        state[1] += lo
        state[2] = max(state[2], largest)
        return False
    if mode == _SHARES:  # the block's sum, and the share of each lowest position and upper
        run = np.int64(0)
        for a in range(length):
            t = order_sums.term(row[base + a] * flags[a], factor)
            run += t
            acc[0, a] += t >> _LIMB
            acc[1, a] += t & _MASK
        for j in range(n_upper):
            acc[0, uppers[j]] += run >> _LIMB
            acc[1, uppers[j]] += run & _MASK
        state[0] += run >> _LIMB
        state[1] += run & _MASK
        return False
    # _FIND: set by set, the first whose running sum passes the target state[3], state[4]
    for a in range(length):
        t = order_sums.term(row[base + a] * flags[a], factor)
        if t > 0:
            state[0] += t >> _LIMB
            state[1] += t & _MASK
            if state[1] > _MASK:  # kept normalised: one carry at most
                state[0] += 1
                state[1] -= _MASK + 1
            if state[0] > state[3] or (state[0] == state[3] and state[1] > state[4]):
                state[2] = base + a
                return True
    return False


@numba.njit(cache=True)
def _blocks(mode, row, offsets, binom, flags, members, count, k, idx, factor, state, best,
            acc):
    """Walk the allowed sets of one node by blocks (see above), in rank order.

    ``_SUM``: the limbs of the terms ``rint(row[r] factor)`` into ``state[0:2]``
    and the bits of the largest allowed entry into ``state[2]`` (as
    :func:`_block_sum`, which walks the allowed lowest positions alone).
    ``_SHARES``: the limbs into ``state[0:2]``, and into ``acc[:, p]`` those of
    the sets holding position ``p``. ``_FIND``: the rank of the first set at
    which the running sum passes the target ``state[3] 2**LIMB + state[4]``
    into ``state[2]`` (-1 if none does). ``_MAX``: the largest allowed entry
    into ``best[0]`` (``row`` holding scores). Rank 0, the empty set, is always
    allowed.
    """
    m = flags.shape[0]
    uppers = np.empty(max(k, 1), dtype=np.int64)
    if mode == _MAX:
        best[0] = row[0]
    else:
        t = order_sums.term(row[0], factor)
        state[0] += t >> _LIMB
        state[1] += t & _MASK
        if mode == _SUM:
            state[2] = max(state[2], order_sums.weight_bits(row[0]))
        if mode == _FIND:
            state[2] = -1
            if t > 0 and (state[0] > state[3] or (state[0] == state[3] and
                                                  state[1] > state[4])):
                state[2] = 0
                return
    if k >= 1 and _visit(mode, row, offsets[1], m, flags, uppers, 0, factor, state, best,
                         acc):
        return
    if k >= 2:
        for ci in range(count):
            c = members[ci]
            uppers[0] = c
            if _visit(mode, row, offsets[2] + binom[c, 2], c, flags, uppers, 1, factor,
                      state, best, acc):
                return
    if k >= 3:
        for ci in range(count):
            c = members[ci]
            upper = offsets[3] + binom[c, 3]
            uppers[1] = c
            for bi in range(ci):
                b = members[bi]
                uppers[0] = b
                if _visit(mode, row, upper + binom[b, 2], b, flags, uppers, 2, factor, state,
                          best, acc):
                    return
    for s in range(4, k + 1):
        u = s - 1
        if u > count:
            return
        for j in range(u):
            idx[j] = j
        while True:
            base = offsets[s]
            for j in range(u):
                uppers[j] = members[idx[j]]
                base += binom[uppers[j], j + 2]
            if _visit(mode, row, base, uppers[0], flags, uppers, u, factor, state, best,
                      acc):
                return
            if not set_walks.next_upper(idx, u, count):
                break


@numba.njit(cache=True)
def _member_terms(row, base, members, count, factor):
    """The limbs of the terms ``row[base + a]`` for the allowed lowest positions ``a =
    members[:count]`` of one block, and the bits of the largest: two runs in int64
    (below 2**52 a term, exact), split into limbs at the end."""
    run0 = np.int64(0)
    run1 = np.int64(0)
    big0 = np.int64(0)
    big1 = np.int64(0)
    i = 0
    while i + 2 <= count:
        w0 = row[base + members[i]]
        w1 = row[base + members[i + 1]]
        big0 = max(big0, order_sums.weight_bits(w0))
        big1 = max(big1, order_sums.weight_bits(w1))
        run0 += order_sums.term(w0, factor)
        run1 += order_sums.term(w1, factor)
        i += 2
    if i < count:
        w0 = row[base + members[i]]
        big0 = max(big0, order_sums.weight_bits(w0))
        run0 += order_sums.term(w0, factor)
    run = run0 + run1
    return run >> _LIMB, run & _MASK, max(big0, big1)


@numba.njit(cache=True)
def _block_sum(row, offsets, binom, members, count, k, idx, factor, state):
    """``_blocks`` in mode ``_SUM`` into ``state[0:3]``: the same exact sum, each block
    over its allowed lowest positions alone (no flags), the limbs in registers."""
    t = order_sums.term(row[0], factor)
    hi = t >> _LIMB
    lo = t & _MASK
    largest = order_sums.weight_bits(row[0])
    if k >= 1:
        h, l, g = _member_terms(row, offsets[1], members, count, factor)
        hi += h
        lo += l
        largest = max(largest, g)
    if k >= 2:
        for ci in range(1, count):
            h, l, g = _member_terms(row, offsets[2] + binom[members[ci], 2], members, ci,
                                    factor)
            hi += h
            lo += l
            largest = max(largest, g)
    if k >= 3:
        for ci in range(2, count):
            upper = offsets[3] + binom[members[ci], 3]
            for bi in range(1, ci):
                h, l, g = _member_terms(row, upper + binom[members[bi], 2], members, bi,
                                        factor)
                hi += h
                lo += l
                largest = max(largest, g)
    for s in range(4, k + 1):
        u = s - 1
        if u >= count:
            break
        for j in range(u):
            idx[j] = j
        while True:
            base = offsets[s]
            for j in range(u):
                base += binom[members[idx[j]], j + 2]
            if idx[0] > 0:
                h, l, g = _member_terms(row, base, members, idx[0], factor)
                hi += h
                lo += l
                largest = max(largest, g)
            if not set_walks.next_upper(idx, u, count):
                break
    state[0] = hi
    state[1] = lo
    state[2] = largest


@numba.njit(cache=True)
def _gathered_terms(row, base, binom, column, members, start, stop, factor):
    """As :func:`_member_terms`, for the sets whose second position ``a =
    members[start:stop]`` is free: ranks ``base + binom[a, column]``."""
    run = np.int64(0)
    largest = np.int64(0)
    for i in range(start, stop):
        w = row[base + binom[members[i], column]]
        largest = max(largest, order_sums.weight_bits(w))
        run += order_sums.term(w, factor)
    return run >> _LIMB, run & _MASK, largest


@numba.njit(cache=True)
def _holding_sum(row, offsets, binom, members, count, w, k, idx, factor):
    """The limbs and the largest weight's bits of the terms of the sets that hold slot
    ``w`` and others of ``members[:count]`` (``w`` not among them): the change of a
    node's sum when ``w`` joins or leaves its allowed candidates (the incremental
    rule). By blocks as :func:`_block_sum`: the upper others ``H`` fixed, the lowest
    other ``a`` free, below ``w`` (consecutive ranks) or between ``w`` and ``H``."""
    if k == 0:
        return np.int64(0), np.int64(0), np.int64(0)
    below = 0  # members below w
    while below < count and members[below] < w:
        below += 1
    x = row[offsets[1] + w]
    hi = order_sums.term(x, factor)
    lo = hi & _MASK
    hi >>= _LIMB
    largest = order_sums.weight_bits(x)
    if k >= 2:  # {a, w}
        h, l, g = _member_terms(row, offsets[2] + binom[w, 2], members, below, factor)
        h2, l2, g2 = _gathered_terms(row, offsets[2] + w, binom, 2, members, below, count,
                                     factor)
        hi += h + h2
        lo += l + l2
        largest = max(largest, g, g2)
    for s in range(3, k + 1):
        u = s - 2  # the upper others
        if u >= count:
            break
        for j in range(u):
            idx[j] = j
        while True:
            h0 = idx[0]
            if h0 > 0:
                low, high = set_walks.holding_bases(members, idx, u, w, offsets[s], binom)
                h, l, g = _member_terms(row, low, members, min(h0, below), factor)  # a < w
                hi += h
                lo += l
                largest = max(largest, g)
                if below < h0:  # w < a < H
                    h, l, g = _gathered_terms(row, high, binom, 2, members, below, h0, factor)
                    hi += h
                    lo += l
                    largest = max(largest, g)
            if not set_walks.next_upper(idx, u, count):
                break
    return hi, lo, largest


@numba.njit(cache=True)
def _scaled(scores, shift, out):
    """``out[r]`` = :func:`tandem.bn.order_sums.scaled_weight` of ``scores[r]``: the
    own-scale weights (0 above ``shift``, the sets that the caller's flags leave
    out, whose weights would overflow, and inf * 0 is NaN)."""
    for r in range(scores.shape[0]):
        out[r] = order_sums.scaled_weight(scores[r], shift)


def _weights(scores, top):
    """The table's weights ``exp64(score - top)`` (:func:`_scaled`), row by row in
    parallel."""
    out = np.empty(scores.shape)
    _fill_weights(scores, top, out)
    return out


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def _fill_weights(scores, top, out):
    for v in numba.prange(scores.shape[0]):
        _scaled(scores[v], top[v], out[v])


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def _row_summaries(scores):
    """Each row's largest score, and whether any row holds NaN or +inf."""
    top = np.empty(scores.shape[0])
    bad = np.zeros(scores.shape[0], dtype=np.bool_)
    for v in numba.prange(scores.shape[0]):
        best = -np.inf
        for r in range(scores.shape[1]):
            x = scores[v, r]
            if x != x or x == np.inf:
                bad[v] = True
            elif x > best:
                best = x
        top[v] = best
    return top, bad.any()


class _Kernel(NamedTuple):
    """The prepared table as the kernels take it."""

    candidates: np.ndarray  # (n, m) int64
    scores: np.ndarray  # (n, n_sets): the table's own array
    weights: np.ndarray  # (n, n_sets): exp(score - top), 0 for -inf
    top: np.ndarray  # (n,): each node's best score
    offsets: np.ndarray
    binom: np.ndarray
    subsets: np.ndarray  # (n_sets, k) positions, -1 padded
    slots: np.ndarray  # (n, n) int64: slots[u, v] is u's candidate slot at v, or -1


@numba.njit(cache=True)
def _node_sum(v, kt, count, scratch):
    """The exact sum of ``v``'s allowed sets (:mod:`tandem.bn.order_sums`) given the
    ``flags`` and ``members`` of the scratch: ``(row, e, shift)``, the limbs in
    ``state[0:2]``. ``row`` is ``kt.weights[v]`` (``shift = top[v]``) or, where the
    largest allowed weight is below ``2**MIN_EXPONENT``, ``scaled`` filled with the
    own-scale weights (``shift`` the best allowed score, ``e = 0``). ``guesses[v]``,
    the scale last found for ``v``, spares the second pass when it holds."""
    flags, members, idx, scaled, state, best, guesses, shares, _ = scratch
    k = kt.subsets.shape[1]
    row = kt.weights[v]
    e = guesses[v]
    while True:
        _block_sum(row, kt.offsets, kt.binom, members, count, k, idx, order_sums.scale(e),
                   state)
        found = order_sums.exponent(state[2])
        if found < order_sums.MIN_EXPONENT:
            break
        if found == e:
            return row, e, kt.top[v]
        e = found
        guesses[v] = e
    _blocks(_MAX, kt.scores[v], kt.offsets, kt.binom, flags, members, count, k, idx, 1.0,
            state, best, shares)
    shift = best[0]
    _scaled(kt.scores[v], shift, scaled)
    _block_sum(scaled, kt.offsets, kt.binom, members, count, k, idx, order_sums.scale(0),
               state)
    return scaled, 0, shift


@numba.njit(cache=True)
def _node_score(v, pos, kt, scratch, sums):
    """``v``'s node score, its exact sum kept in ``sums[v] = (hi, lo, e)`` (the limbs
    normalised, ``e`` :data:`tandem.bn.order_sums.OWN_SCALE` in the node's own scale)."""
    flags, members, _, _, state, _, _, _, _ = scratch
    count = _allowed(v, pos, kt.candidates, flags, members)
    _, e, shift = _node_sum(v, kt, count, scratch)
    sums[v, 0], sums[v, 1] = order_sums.normalised(state[0], state[1])
    # the own scale's shift, the best allowed score, lies over 600 nats below the top
    sums[v, 2] = e if shift == kt.top[v] else order_sums.OWN_SCALE
    return order_sums.node_score(shift, state[0], state[1], e)


@numba.njit(cache=True)
def _rescored(v, leaving, joining, pos, kt, scratch, sums):
    """``v``'s node score after candidate ``leaving`` stops preceding it and ``joining``
    starts to (nodes, or -1; ``pos`` is the new order), by the incremental rule: the
    terms of the sets that hold ``leaving`` come off ``v``'s exact sum, those that
    hold ``joining`` go on. The sum is the one that :func:`_node_score` would make
    (integers, the same scale), so the score is the same bit for bit; where the scale
    could change (the largest allowed weight leaves, or a larger one joins) or ``v``
    is in its own scale, the node is scored afresh."""
    e = sums[v, 2]
    if e == order_sums.OWN_SCALE:
        return _node_score(v, pos, kt, scratch, sums)
    flags, members, idx, _, _, _, _, _, _ = scratch
    count = _allowed(v, pos, kt.candidates, flags, members)
    join = kt.slots[joining, v] if joining >= 0 else -1
    if join >= 0:  # the others: the allowed candidates but the one joining
        q = 0
        while members[q] != join:
            q += 1
        for p in range(q, count - 1):
            members[p] = members[p + 1]
        count -= 1
    k = kt.subsets.shape[1]
    row = kt.weights[v]
    factor = order_sums.scale(e)
    hi = sums[v, 0]
    lo = sums[v, 1]
    leave = kt.slots[leaving, v] if leaving >= 0 else -1
    if leave >= 0:
        h, l, g = _holding_sum(row, kt.offsets, kt.binom, members, count, leave, k, idx,
                               factor)
        if order_sums.exponent(g) >= e:
            return _node_score(v, pos, kt, scratch, sums)
        hi -= h
        lo -= l
    if join >= 0:
        h, l, g = _holding_sum(row, kt.offsets, kt.binom, members, count, join, k, idx,
                               factor)
        if order_sums.exponent(g) > e:
            return _node_score(v, pos, kt, scratch, sums)
        hi += h
        lo += l
    sums[v, 0], sums[v, 1] = order_sums.normalised(hi, lo)
    return order_sums.node_score(kt.top[v], sums[v, 0], sums[v, 1], e)


@numba.njit(cache=True)
def _node_score_scratch(kt):
    """The scratch of :func:`_node_score`: flags, members, idx, a row of own-scale
    weights, the walk's state and best entry, the scale guesses, the per-position
    shares, and the guesses a rejected move puts back."""
    n, m = kt.candidates.shape
    return (np.empty(m, dtype=np.float64), np.empty(m, dtype=np.int64),
            np.empty(max(kt.subsets.shape[1], 1), dtype=np.int64),
            np.empty(kt.weights.shape[1], dtype=np.float64), np.zeros(5, dtype=np.int64),
            np.zeros(1), np.zeros(n, dtype=np.int64), np.zeros((2, m), dtype=np.int64),
            np.zeros(n, dtype=np.int64))


@numba.njit(cache=True)
def _order_node_sums(order, kt, node_scores, sums):
    """The positions of ``order``, its node scores and their sums (:func:`_node_score`)."""
    n = order.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for p in range(n):
        pos[order[p]] = p
    scratch = _node_score_scratch(kt)
    for v in range(n):
        node_scores[v] = _node_score(v, pos, kt, scratch, sums)
    return pos


@numba.njit(cache=True)
def _order_node_scores(order, kt, node_scores):
    return _order_node_sums(order, kt, node_scores,
                            np.empty((order.shape[0], 3), dtype=np.int64))


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def _order_totals(orders, kt):
    """Each order's score (the sum of its node scores), the orders in parallel."""
    totals = np.empty(orders.shape[0])
    for c in numba.prange(orders.shape[0]):
        node_scores = np.empty(orders.shape[1])
        _order_node_scores(orders[c], kt, node_scores)
        totals[c] = _total(node_scores)
    return totals


@numba.njit(cache=True)
def _total(node_scores):
    # Summed in node order, so an order's score never depends on the path to it.
    t = 0.0
    for v in range(node_scores.shape[0]):
        t += node_scores[v]
    return t


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
        count = _allowed(v, pos, kt.candidates, flags, members)
        row, e, _ = _node_sum(v, kt, count, scratch)
        factor = order_sums.scale(e)
        shares[:] = 0
        state[:3] = 0
        _blocks(_SHARES, row, kt.offsets, kt.binom, flags, members, count, k, idx, factor,
                state, best, shares)
        total = order_sums.limbs_value(state[0], state[1])
        for p in range(m):
            if shares[0, p] > 0 or shares[1, p] > 0:
                edge_given_order[kt.candidates[v, p], v] += order_sums.limbs_value(
                    shares[0, p], shares[1, p]) / total
        for d in range(dags):
            state[:3] = 0
            state[3], state[4] = order_sums.target_limbs(uniforms[d * n + v] * total)
            _blocks(_FIND, row, kt.offsets, kt.binom, flags, members, count, k, idx, factor,
                    state, best, shares)
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
        return _node_score(v, pos, kt, scratch, sums)
    return _rescored(v, leaving, joining, pos, kt, scratch, sums)


@numba.njit(cache=True)
def _move(kind, i, j, log_u, beta, order, pos, node_scores, sums, total, kt, scratch,
          saved_order, saved_scores, saved_sums):
    """Propose ``kind`` at positions ``i``, ``j`` and accept it when ``log_u`` lies below
    ``beta`` times the change of the order score; returns (the score now, accepted)."""
    lo = min(i, j)
    hi = max(i, j)
    for p in range(lo, hi + 1):
        saved_order[p] = order[p]
    order_moves.apply_move(kind, i, j, order, pos)
    guesses, saved_guesses = scratch[6], scratch[8]
    a, b = saved_order[i], saved_order[j]  # the nodes proposed to move
    for p in range(lo, hi + 1):
        v = order[p]
        saved_scores[p] = node_scores[v]
        saved_guesses[p] = guesses[v]
        saved_sums[p] = sums[v]
        # a node between them keeps its score unless a moved node is its candidate
        if v == a or kt.slots[a, v] >= 0 or (kind != 2 and (v == b or kt.slots[b, v] >= 0)):
            node_scores[v] = _move_rescored(v, kind, i, j, a, b, pos, kt, scratch, sums)
    new_total = _total(node_scores)
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
def _step_scores(v, step, end, order, pos, node_scores, sums, kt, scratch, position_scores):
    """Walk node ``v`` one position at a time by ``step`` (-1 or +1) up to ``end``,
    rescoring ``v`` and the node it passes (each loses or gains the other, the
    incremental rule): ``position_scores[j]`` is the order score with ``v`` at
    ``j``."""
    j = pos[v]
    while j != end:
        w = order[j + step]
        order[j + step] = v
        order[j] = w
        pos[v] = j + step
        pos[w] = j
        earlier = step < 0
        if kt.slots[w, v] >= 0:
            node_scores[v] = _rescored(v, w if earlier else -1, -1 if earlier else w, pos, kt,
                                       scratch, sums)
        if kt.slots[v, w] >= 0:
            node_scores[w] = _rescored(w, -1 if earlier else v, v if earlier else -1, pos, kt,
                                       scratch, sums)
        j += step
        position_scores[j] = _total(node_scores)


@numba.njit(cache=True)
def _gibbs_position(i, u, beta, order, pos, node_scores, sums, total, kt, scratch,
                    saved_order, saved_scores, saved_sums, position_scores):
    """Move the node at position ``i`` to a position drawn from its conditional law,
    ``P(j) ∝ exp(beta S_j)`` over all ``n`` positions (``S_j`` the order score with
    the node at ``j`` and the others in their order): a Gibbs step, always taken.
    ``u`` picks ``j`` by the inverse of the cumulative weights, in position order.
    Returns (the score now, whether the node moved)."""
    n = order.shape[0]
    v = order[i]
    saved_order[:] = order
    saved_scores[:] = node_scores
    saved_sums[:] = sums
    position_scores[i] = total
    for end in (0, n - 1):
        _step_scores(v, -1 if end == 0 else 1, end, order, pos, node_scores, sums, kt,
                     scratch, position_scores)
        order[:] = saved_order
        node_scores[:] = saved_scores
        sums[:] = saved_sums
        for p in range(n):
            pos[order[p]] = p
    j = order_moves.gibbs_pick(position_scores, beta, u)
    if j == i:
        return total, False
    _step_scores(v, -1 if j < i else 1, j, order, pos, node_scores, sums, kt, scratch,
                 position_scores)
    return _total(node_scores), True


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
def _chain(t0, t1, burn_in, thin, dags, cum, swap_every, betas, move_uniforms,
           swap_uniforms, dag_uniforms, kt, orders, best_score, best_order, trace, proposed,
           accepted, swaps_proposed, swaps_accepted, edge_counts, edge_given_order, n_kept,
           batch_counts):
    """Iterations ``t0 .. t1 - 1`` of one chain: every replica ``r`` (at inverse
    temperature ``betas[r]``, replica 0 the posterior itself) takes a proposal per
    iteration; after iterations ``t`` with ``(t + 1) % swap_every == 0`` neighbouring
    replicas ``r, r + 1`` with ``r`` of the parity of the swap round offer to exchange
    their orders (the deterministic even–odd scheme of Okabe et al. 2001)."""
    replicas, n = orders.shape
    node_scores = np.empty((replicas, n), dtype=np.float64)
    sums = np.empty((replicas, n, 3), dtype=np.int64)
    positions = np.empty((replicas, n), dtype=np.int64)
    totals = np.empty(replicas, dtype=np.float64)
    for r in range(replicas):
        positions[r] = _order_node_sums(orders[r], kt, node_scores[r], sums[r])
        totals[r] = _total(node_scores[r])
    scratch = _node_score_scratch(kt)
    saved_order = np.empty(n, dtype=np.int64)
    saved_scores = np.empty(n, dtype=np.float64)
    saved_sums = np.empty((n, 3), dtype=np.int64)
    position_scores = np.empty(n, dtype=np.float64)
    first_round = (t0 + swap_every) // swap_every - 1
    kept = 0
    for t in range(t0, t1):
        if n >= 2:
            first = 4 * (t - t0)
            for r in range(replicas):
                u = move_uniforms[r, first:first + 4]
                kind, i, j = order_moves.proposal(cum, u[0], u[1], u[2], n)
                if kind == 3:
                    totals[r], took = _gibbs_position(i, u[3], betas[r], orders[r],
                                                      positions[r], node_scores[r], sums[r],
                                                      totals[r], kt, scratch, saved_order,
                                                      saved_scores, saved_sums,
                                                      position_scores)
                else:
                    # in (0, 1], so that its log is finite: exact, as u is a multiple of 2**-53
                    totals[r], took = _move(kind, i, j, order_moves.log_uniform(u[3]),
                                            betas[r], orders[r], positions[r], node_scores[r],
                                            sums[r], totals[r], kt, scratch, saved_order,
                                            saved_scores, saved_sums)
                if r == 0:
                    proposed[kind] += 1
                    if took:
                        accepted[kind] += 1
            if replicas > 1 and (t + 1) % swap_every == 0:
                s = (t + 1) // swap_every - 1
                for r in range(s % 2, replicas - 1, 2):
                    log_u = order_moves.log_uniform(
                        swap_uniforms[(s - first_round) * (replicas - 1) + r])
                    swaps_proposed[r] += 1
                    if totals[r + 1] > -np.inf and (
                            totals[r] == -np.inf
                            or log_u < (betas[r] - betas[r + 1]) * (totals[r + 1] - totals[r])):
                        _swap_replicas(r, r + 1, orders, positions, node_scores, sums,
                                       totals)
                        swaps_accepted[r] += 1
        trace[t] = totals[0]
        for r in range(replicas):
            if totals[r] > best_score[0]:
                best_score[0] = totals[r]
                best_order[:] = orders[r]
        if t >= burn_in and (t - burn_in) % thin == 0:
            b = _batch_of(n_kept[0], batch_counts)
            n_kept[0] += 1
            _sample_dags(dag_uniforms[kept * dags * n:(kept + 1) * dags * n], dags,
                         positions[0], kt, scratch, edge_counts,
                         edge_given_order, batch_counts[b])
            kept += 1


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def _advance(t0, t1, burn_in, thin, dags, cum, swap_every, betas, move_uniforms,
             swap_uniforms, dag_uniforms, kt, orders, best_score, best_order, trace, proposed,
             accepted, swaps_proposed, swaps_accepted, edge_counts, edge_given_order, n_kept,
             batch_counts):
    for c in numba.prange(orders.shape[0]):
        _chain(t0, t1, burn_in, thin, dags, cum, swap_every, betas, move_uniforms[c],
               swap_uniforms[c], dag_uniforms[c], kt, orders[c], best_score[c:c + 1],
               best_order[c], trace[c], proposed[c], accepted[c], swaps_proposed[c],
               swaps_accepted[c], edge_counts[c], edge_given_order[c], n_kept[c:c + 1],
               batch_counts[c])


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
        if m >= MAX_SLOTS or width >= order_sums.MAX_TERMS:
            raise ValueError(f"order_mcmc sums at most {order_sums.MAX_TERMS - 1} parent sets "
                             f"of fewer than {MAX_SLOTS} candidates exactly; this table has "
                             f"{width} sets over {m} candidates: restrict the candidates")
        self.scores = np.ascontiguousarray(scores)
        self.top, bad = _row_summaries(self.scores)
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
        self.weights = _weights(self.scores, self.top)
        slots = np.full((n, n), -1, dtype=np.int64)
        child, slot = np.nonzero(self.candidates >= 0)
        slots[self.candidates[child, slot], child] = slot
        self.kernel = _Kernel(self.candidates, self.scores, self.weights, self.top,
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


def _save(path, state, settings, fingerprint):
    with files.replacing(path, "wb") as f:
        np.savez(f, version=_CHECKPOINT_VERSION, fingerprint=fingerprint,
                 settings=json.dumps(settings, sort_keys=True), **state)


def _array_fields(chains, n, m, done, replicas=1):
    """The arrays of a checkpoint: ``{name: (dtype, shape)}`` for ``chains`` chains of
    ``replicas`` replicas of ``n`` nodes with ``m`` candidate slots that ran ``done``
    iterations."""
    i8, f8 = np.dtype(np.int64), np.dtype(np.float64)
    return {
        "orders": (i8, (chains, replicas, n)), "best_order": (i8, (chains, n)),
        "swaps_proposed": (i8, (chains, replicas - 1)),
        "swaps_accepted": (i8, (chains, replicas - 1)),
        "best_score": (f8, (chains,)), "trace": (f8, (chains, done)),
        "proposed": (i8, (chains, len(MOVES))), "accepted": (i8, (chains, len(MOVES))),
        "edge_counts": (i8, (chains, n, n)), "edge_given_order": (f8, (chains, n, n)),
        "n_kept": (i8, (chains,)), "batch_counts": (np.dtype(np.int32), (chains, 2 * BATCHES, n, m)),
    }


_HEADER_FIELDS = ("version", "fingerprint", "settings", "done")


class _Refusal:
    """Raises the ``ValueError`` of a checkpoint that cannot be resumed, naming ``resume``."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __call__(self, field, why):
        where = f"field {field!r}: " if field else ""
        raise ValueError(f"resume: {self.path}: {where}{why}")


def _resume_path(resume):
    """``resume`` as a path (a ``TypeError`` naming ``resume`` otherwise)."""
    try:
        return os.fspath(resume)
    except TypeError:
        raise TypeError(f"resume must be the path of a checkpoint (a str or os.PathLike), "
                        f"got {type(resume).__name__}") from None


def _read_checkpoint(path, refuse, most_bytes):
    """The arrays of the ``.npz`` file ``path``, checked to be exactly the fields of a
    checkpoint and to hold at most ``most_bytes`` (before anything is read)."""
    try:
        f = np.load(path, allow_pickle=False)
    except Exception as error:  # any failure to open or parse: damaged, empty, not npz
        refuse(None, f"cannot be read as an order-MCMC checkpoint "
                     f"({type(error).__name__}: {error})")
    if not isinstance(f, np.lib.npyio.NpzFile):
        refuse(None, "is not an order-MCMC checkpoint (an .npz file)")
    with f:
        names = set(f.files)
        wanted = set(_HEADER_FIELDS) | set(_array_fields(0, 0, 0, 0, 0))
        if names - wanted or wanted - names:
            refuse(None, f"is not an order-MCMC checkpoint of version {_CHECKPOINT_VERSION}: "
                         f"missing fields {sorted(wanted - names)}, unknown fields "
                         f"{sorted(names - wanted)}")
        size = sum(info.file_size for info in f.zip.infolist())
        if size > most_bytes:
            refuse(None, f"holds {size} bytes, more than the {most_bytes} that a checkpoint "
                         f"of these chains and iterations can")
        data = {}
        for name in sorted(names):
            try:
                data[name] = f[name]
            except Exception as error:  # a damaged member: CRC, truncation, pickled data
                refuse(name, f"cannot be read ({type(error).__name__}: {error})")
    return data


def _scalar(data, name, kind, refuse):
    """The 0-d field ``name`` as a Python value; ``kind`` is "int" or "str"."""
    a = data[name]
    good = a.shape == () and (a.dtype.kind in "iu" if kind == "int" else a.dtype.kind == "U")
    if not good:
        refuse(name, f"must be a single {kind}, got {a.dtype} with shape {a.shape}")
    return int(a) if kind == "int" else str(a)


def _checked_settings(data, settings, burn_in_given, refuse):
    """Compare the checkpoint's settings with ``settings`` (taking its burn-in when none
    was given)."""
    try:
        theirs = json.loads(_scalar(data, "settings", "str", refuse))
    except json.JSONDecodeError as error:
        refuse("settings", f"is not JSON ({error})")
    if not isinstance(theirs, dict):
        refuse("settings", f"must be a JSON object, got {type(theirs).__name__}")
    if not burn_in_given and "burn_in" in theirs:
        b = theirs["burn_in"]
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            refuse("settings", f"burn_in must be a non-negative integer, got {b!r}")
        settings["burn_in"] = b
    differ = sorted(key for key in set(settings) | set(theirs)
                    if settings.get(key) != theirs.get(key))
    if differ:
        details = "; ".join(f"{key}: checkpoint {theirs.get(key)!r}, now {settings.get(key)!r}"
                            for key in differ)
        refuse(None, f"was written with other settings ({details})")


def _checked_arrays(data, chains, n, m, done, replicas, refuse):
    """The state arrays, each of its dtype and shape, as fresh writable copies."""
    state = {}
    for name, (dtype, shape) in _array_fields(chains, n, m, done, replicas).items():
        a = data[name]
        if a.dtype != dtype or a.shape != shape:
            refuse(name, f"must be {dtype} with shape {shape}, got {a.dtype} with shape "
                         f"{a.shape}")
        state[name] = np.array(a)
    return state


def _n_kept(done, burn_in, thin):
    """Orders kept in iterations ``0 .. done - 1``."""
    return max(0, -(-(done - burn_in) // thin))


def _scattered(per_slot, candidates, fill=0.0):
    """``[..., child, slot]`` values as ``[..., parent, child]``: ``fill`` where the
    table allows no edge (and on the diagonal)."""
    n = candidates.shape[0]
    out = np.full(per_slot.shape[:-2] + (n, n), fill, dtype=per_slot.dtype)
    child, slot = np.nonzero(candidates >= 0)
    out[..., candidates[child, slot], child] = per_slot[..., child, slot]
    return out


def _check_counts(state, n, done, settings, allowed, refuse, candidates):
    """The counters: proposals, acceptances, kept orders, edge counts and their batches."""
    proposed, accepted = state["proposed"], state["accepted"]
    per_chain = done if n >= 2 else 0
    if np.any(proposed < 0) or np.any(proposed.sum(axis=1) != per_chain):
        refuse("proposed", f"must be non-negative and sum to {per_chain} proposals per chain")
    if np.any(accepted < 0) or np.any(accepted > proposed):
        refuse("accepted", "must lie between 0 and the proposals of each move")
    rounds = done // settings["swap_every"] if n >= 2 else 0
    pairs = np.arange(len(settings["temperatures"]) - 1)
    offered = (rounds - pairs % 2 + 1) // 2  # the rounds of pair r's parity
    if not np.array_equal(state["swaps_proposed"], np.broadcast_to(
            offered, state["swaps_proposed"].shape)):
        refuse("swaps_proposed", f"must be {offered.tolist()} for {done} iterations")
    if np.any(state["swaps_accepted"] < 0) or np.any(state["swaps_accepted"] > offered):
        refuse("swaps_accepted", "must lie between 0 and the swaps offered")
    kept = _n_kept(done, settings["burn_in"], settings["thin"])
    if np.any(state["n_kept"] != kept):
        refuse("n_kept", f"must be {kept} for {done} iterations, got "
                         f"{state['n_kept'].tolist()}")
    most = kept * settings["dags_per_order"]
    counts = state["edge_counts"]
    if np.any(counts < 0) or np.any(counts > most) or np.any(counts[:, ~allowed]):
        refuse("edge_counts", f"must lie in 0 .. {most}, zero where the table allows no edge")
    batches = state["batch_counts"]
    used = -(-kept // order_moves.batch_size(max(kept - 1, 0)))
    if np.any(batches < 0) or np.any(batches[:, used:]) or np.any(
            batches[:, :, candidates < 0]) or not np.array_equal(
            _scattered(batches.sum(axis=1), candidates, 0), counts):
        refuse("batch_counts", f"must be non-negative, zero past batch {used} and on "
                               f"padding, and sum to edge_counts")
    given = state["edge_given_order"]
    if not (np.all(np.isfinite(given)) and np.all(given >= 0)
            and np.all(given <= kept * (1 + 1e-9)) and not np.any(given[:, ~allowed])):
        refuse("edge_given_order", f"must lie in [0, {kept}], zero where the table allows "
                                   f"no edge")


def _order_score(order, kernel):
    node_scores = np.empty(order.shape[0])
    _order_node_scores(order, kernel, node_scores)
    return _total(node_scores)


def _check_orders(state, n, done, kernel, refuse):
    """Orders are permutations, and the scores agree with them (scores are pure functions
    of the order, so exactly)."""
    for name in ("orders", "best_order"):
        if not np.array_equal(np.sort(state[name], axis=-1),
                              np.broadcast_to(np.arange(n), state[name].shape)):
            refuse(name, f"must hold one permutation of the {n} nodes per chain and replica")
    trace, best = state["trace"], state["best_score"]
    if not np.all(np.isfinite(trace)):
        refuse("trace", "must be finite")
    for c in range(state["orders"].shape[0]):
        now = trace[c, done - 1] if done else best[c]
        if _order_score(state["orders"][c, 0], kernel) != now:
            refuse("orders", f"chain {c}'s order does not have the score the checkpoint "
                             f"records for it")
        if _order_score(state["best_order"][c], kernel) != best[c] or (
                done and best[c] < trace[c].max()):
            refuse("best_score", f"chain {c}'s best score is not that of its best order, "
                                 f"or lies below its trace")


def _load(path, settings, fingerprint, burn_in_given, iterations, prepared):
    """Read and check the checkpoint ``path`` field by field; returns ``(state, done)``.

    ``settings`` gets the checkpoint's burn-in when none was given. Every
    refusal is a ``ValueError`` naming ``resume`` and the field.
    """
    refuse = _Refusal(path)
    chains, n = settings["chains"], prepared.n
    m = prepared.m
    replicas = len(settings["temperatures"])
    most = 8 * chains * (iterations + (3 + replicas) * n + 2 * n * n + BATCHES * n * m
                         + 2 * replicas + 16) + (1 << 20)
    data = _read_checkpoint(path, refuse, most)
    if _scalar(data, "version", "int", refuse) != _CHECKPOINT_VERSION:
        refuse("version", f"must be {_CHECKPOINT_VERSION}, got {data['version']}")
    theirs = _scalar(data, "fingerprint", "str", refuse)
    if theirs != fingerprint:
        refuse("fingerprint", f"was written for another score table (fingerprint "
                              f"{theirs!r}, this table's is {fingerprint!r})")
    _checked_settings(data, settings, burn_in_given, refuse)
    done = _scalar(data, "done", "int", refuse)
    if done < 0:
        refuse("done", f"must be non-negative, got {done}")
    if iterations < done:
        refuse(None, f"ran {done} iterations, more than iterations={iterations}")
    state = _checked_arrays(data, chains, n, m, done, replicas, refuse)
    _check_counts(state, n, done, settings, candidate_matrix(prepared), refuse,
                  prepared.candidates)
    _check_orders(state, n, done, prepared.kernel, refuse)
    trace = np.full((chains, iterations), np.nan)
    trace[:, :done] = state["trace"]
    state["trace"] = trace
    return state, done


# -- the public function --------------------------------------------------------

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
    return _result(state, prepared, table, streams, int(iterations), burn_in, int(thin),
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
        resume = _resume_path(resume)
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
        state, done = _load(resume, settings, fingerprint, burn_in_given, iterations, prepared)
        burn_in = settings["burn_in"]
    else:
        done = 0
        orders = np.array([_initial_order(streams["initial"].split(c), n)
                           for c in ids]).reshape(chains, n)
        best_score = _order_totals(orders, prepared.kernel)
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
            _save(checkpoint, {**state, "trace": state["trace"][:, :t], "done": t},
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
                _advance(t, t1, burn_in, thin, dags_per_order, cum, swap_every, betas,
                         moves_u, swaps_u, dags_u, prepared.kernel, state["orders"],
                         state["best_score"], state["best_order"], state["trace"],
                         state["proposed"], state["accepted"], state["swaps_proposed"],
                         state["swaps_accepted"], state["edge_counts"],
                         state["edge_given_order"], state["n_kept"], state["batch_counts"])
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
    return _result(state, prepared, table, streams, iterations, burn_in, thin,
                   dags_per_order)


def _result(state, prepared, table, streams, iterations, burn_in, thin, dags_per_order):
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
        spread[child, slot] = chain_edges[:, candidates[child, slot], child].std(
            axis=0, ddof=1) / np.sqrt(chains)
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
    return (_scattered(se, candidates, 0.0), _scattered(ess, candidates, np.nan),
            _scattered(rhat, candidates, np.nan))
