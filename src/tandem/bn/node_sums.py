"""Node scores of order MCMC: each node's sum over its allowed parent sets, exactly.

The score of an order is the sum of its node scores,
``log sum_{Pa allowed} exp(score_v(Pa))`` (:mod:`tandem.bn.mcmc`). This
module computes them from the prepared table (:class:`Kernel`): afresh
(:func:`node_score`), after one candidate leaves or joins a node's
predecessors (:func:`rescored`, the incremental rule, equal bit for bit),
and for whole orders (:func:`order_node_sums`, :func:`order_totals`). The
CPU chains (:mod:`tandem.bn.mcmc`) and the exact checks of the tests use
them; the CUDA chains (:mod:`tandem.bn.cuda_mcmc`) walk the same sets.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .. import parallel
from . import order_sums, set_walks

order_sums.register()
set_walks.register()


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

# the walks of blocks
WALK_SUM, WALK_FIND, WALK_SHARES, WALK_MAX = 0, 1, 2, 3


@numba.njit(cache=True)
def allowed(v, pos, candidates, flags, members):
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
def block_terms(row, base, flags, length, factor):
    """The limbs of one block's terms over all its lowest positions, flagged, and the
    bits of its largest allowed weight (the walk that :func:`block_sum` shortens)."""
    run = np.int64(0)
    largest = np.int64(0)
    for a in range(length):
        w = row[base + a] * flags[a]
        largest = max(largest, order_sums.weight_bits(w))
        run += order_sums.term(w, factor)
    return run >> _LIMB, run & _MASK, largest


@numba.njit(cache=True)
def visit(mode, row, base, length, flags, uppers, n_upper, factor, state, best, acc):
    """One block of :func:`blocks`; returns True when the walk is over (``WALK_FIND``)."""
    if length <= 0:
        return False
    if mode == WALK_MAX:
        for a in range(length):
            if flags[a] != 0.0 and row[base + a] > best[0]:
                best[0] = row[base + a]
        return False
    if mode == WALK_SUM:
        hi, lo, largest = block_terms(row, base, flags, length, factor)
        state[0] += hi
        state[1] += lo
        state[2] = max(state[2], largest)
        return False
    if mode == WALK_SHARES:  # the block's sum, and the share of each lowest position and upper
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
    # WALK_FIND: set by set, the first whose running sum passes the target state[3], state[4]
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
def blocks(mode, row, offsets, binom, flags, members, count, k, idx, factor, state, best,
            acc):
    """Walk the allowed sets of one node by blocks (see above), in rank order.

    ``WALK_SUM``: the limbs of the terms ``rint(row[r] factor)`` into ``state[0:2]``
    and the bits of the largest allowed entry into ``state[2]`` (as
    :func:`block_sum`, which walks the allowed lowest positions alone).
    ``WALK_SHARES``: the limbs into ``state[0:2]``, and into ``acc[:, p]`` those of
    the sets holding position ``p``. ``WALK_FIND``: the rank of the first set at
    which the running sum passes the target ``state[3] 2**LIMB + state[4]``
    into ``state[2]`` (-1 if none does). ``WALK_MAX``: the largest allowed entry
    into ``best[0]`` (``row`` holding scores). Rank 0, the empty set, is always
    allowed.
    """
    m = flags.shape[0]
    uppers = np.empty(max(k, 1), dtype=np.int64)
    if mode == WALK_MAX:
        best[0] = row[0]
    else:
        t = order_sums.term(row[0], factor)
        state[0] += t >> _LIMB
        state[1] += t & _MASK
        if mode == WALK_SUM:
            state[2] = max(state[2], order_sums.weight_bits(row[0]))
        if mode == WALK_FIND:
            state[2] = -1
            if t > 0 and (state[0] > state[3] or (state[0] == state[3] and
                                                  state[1] > state[4])):
                state[2] = 0
                return
    if k >= 1 and visit(mode, row, offsets[1], m, flags, uppers, 0, factor, state, best,
                         acc):
        return
    if k >= 2:
        for ci in range(count):
            c = members[ci]
            uppers[0] = c
            if visit(mode, row, offsets[2] + binom[c, 2], c, flags, uppers, 1, factor,
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
                if visit(mode, row, upper + binom[b, 2], b, flags, uppers, 2, factor, state,
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
            if visit(mode, row, base, uppers[0], flags, uppers, u, factor, state, best,
                      acc):
                return
            if not set_walks.next_upper(idx, u, count):
                break


@numba.njit(cache=True)
def member_terms(row, base, members, count, factor):
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
def block_sum(row, offsets, binom, members, count, k, idx, factor, state):
    """``blocks`` in mode ``WALK_SUM`` into ``state[0:3]``: the same exact sum, each block
    over its allowed lowest positions alone (no flags), the limbs in registers."""
    t = order_sums.term(row[0], factor)
    hi = t >> _LIMB
    lo = t & _MASK
    largest = order_sums.weight_bits(row[0])
    if k >= 1:
        h, l, g = member_terms(row, offsets[1], members, count, factor)
        hi += h
        lo += l
        largest = max(largest, g)
    if k >= 2:
        for ci in range(1, count):
            h, l, g = member_terms(row, offsets[2] + binom[members[ci], 2], members, ci,
                                    factor)
            hi += h
            lo += l
            largest = max(largest, g)
    if k >= 3:
        for ci in range(2, count):
            upper = offsets[3] + binom[members[ci], 3]
            for bi in range(1, ci):
                h, l, g = member_terms(row, upper + binom[members[bi], 2], members, bi,
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
                h, l, g = member_terms(row, base, members, idx[0], factor)
                hi += h
                lo += l
                largest = max(largest, g)
            if not set_walks.next_upper(idx, u, count):
                break
    state[0] = hi
    state[1] = lo
    state[2] = largest


@numba.njit(cache=True)
def gathered_terms(row, base, binom, column, members, start, stop, factor):
    """As :func:`member_terms`, for the sets whose second position ``a =
    members[start:stop]`` is free: ranks ``base + binom[a, column]``."""
    run = np.int64(0)
    largest = np.int64(0)
    for i in range(start, stop):
        w = row[base + binom[members[i], column]]
        largest = max(largest, order_sums.weight_bits(w))
        run += order_sums.term(w, factor)
    return run >> _LIMB, run & _MASK, largest


@numba.njit(cache=True)
def holding_sum(row, offsets, binom, members, count, w, k, idx, factor):
    """The limbs and the largest weight's bits of the terms of the sets that hold slot
    ``w`` and others of ``members[:count]`` (``w`` not among them): the change of a
    node's sum when ``w`` joins or leaves its allowed candidates (the incremental
    rule). By blocks as :func:`block_sum`: the upper others ``H`` fixed, the lowest
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
        h, l, g = member_terms(row, offsets[2] + binom[w, 2], members, below, factor)
        h2, l2, g2 = gathered_terms(row, offsets[2] + w, binom, 2, members, below, count,
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
                h, l, g = member_terms(row, low, members, min(h0, below), factor)  # a < w
                hi += h
                lo += l
                largest = max(largest, g)
                if below < h0:  # w < a < H
                    h, l, g = gathered_terms(row, high, binom, 2, members, below, h0, factor)
                    hi += h
                    lo += l
                    largest = max(largest, g)
            if not set_walks.next_upper(idx, u, count):
                break
    return hi, lo, largest


@numba.njit(cache=True)
def scale_row(scores, shift, out):
    """``out[r]`` = :func:`tandem.bn.order_sums.scaled_weight` of ``scores[r]``: the
    own-scale weights (0 above ``shift``, the sets that the caller's flags leave
    out, whose weights would overflow, and inf * 0 is NaN)."""
    for r in range(scores.shape[0]):
        out[r] = order_sums.scaled_weight(scores[r], shift)


def row_weights(scores, top):
    """The table's weights ``exp64(score - top)`` (:func:`scaled`), row by row in
    parallel."""
    out = np.empty(scores.shape)
    fill_weights(scores, top, out)
    return out


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def fill_weights(scores, top, out):
    for v in numba.prange(scores.shape[0]):
        scale_row(scores[v], top[v], out[v])


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def row_summaries(scores):
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


class Kernel(NamedTuple):
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
def node_sum(v, kt, count, scratch):
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
        block_sum(row, kt.offsets, kt.binom, members, count, k, idx, order_sums.scale(e),
                   state)
        found = order_sums.exponent(state[2])
        if found < order_sums.MIN_EXPONENT:
            break
        if found == e:
            return row, e, kt.top[v]
        e = found
        guesses[v] = e
    blocks(WALK_MAX, kt.scores[v], kt.offsets, kt.binom, flags, members, count, k, idx, 1.0,
            state, best, shares)
    shift = best[0]
    scale_row(kt.scores[v], shift, scaled)
    block_sum(scaled, kt.offsets, kt.binom, members, count, k, idx, order_sums.scale(0),
               state)
    return scaled, 0, shift


@numba.njit(cache=True)
def node_score(v, pos, kt, scratch, sums):
    """``v``'s node score, its exact sum kept in ``sums[v] = (hi, lo, e)`` (the limbs
    normalised, ``e`` :data:`tandem.bn.order_sums.OWN_SCALE` in the node's own scale)."""
    flags, members, _, _, state, _, _, _, _ = scratch
    count = allowed(v, pos, kt.candidates, flags, members)
    _, e, shift = node_sum(v, kt, count, scratch)
    sums[v, 0], sums[v, 1] = order_sums.normalised(state[0], state[1])
    # the own scale's shift, the best allowed score, lies over 600 nats below the top
    sums[v, 2] = e if shift == kt.top[v] else order_sums.OWN_SCALE
    return order_sums.node_score(shift, state[0], state[1], e)


@numba.njit(cache=True)
def rescored(v, leaving, joining, pos, kt, scratch, sums):
    """``v``'s node score after candidate ``leaving`` stops preceding it and ``joining``
    starts to (nodes, or -1; ``pos`` is the new order), by the incremental rule: the
    terms of the sets that hold ``leaving`` come off ``v``'s exact sum, those that
    hold ``joining`` go on. The sum is the one that :func:`node_score` would make
    (integers, the same scale), so the score is the same bit for bit; where the scale
    could change (the largest allowed weight leaves, or a larger one joins) or ``v``
    is in its own scale, the node is scored afresh."""
    e = sums[v, 2]
    if e == order_sums.OWN_SCALE:
        return node_score(v, pos, kt, scratch, sums)
    flags, members, idx, _, _, _, _, _, _ = scratch
    count = allowed(v, pos, kt.candidates, flags, members)
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
        h, l, g = holding_sum(row, kt.offsets, kt.binom, members, count, leave, k, idx,
                               factor)
        if order_sums.exponent(g) >= e:
            return node_score(v, pos, kt, scratch, sums)
        hi -= h
        lo -= l
    if join >= 0:
        h, l, g = holding_sum(row, kt.offsets, kt.binom, members, count, join, k, idx,
                               factor)
        if order_sums.exponent(g) > e:
            return node_score(v, pos, kt, scratch, sums)
        hi += h
        lo += l
    sums[v, 0], sums[v, 1] = order_sums.normalised(hi, lo)
    return order_sums.node_score(kt.top[v], sums[v, 0], sums[v, 1], e)


class Scratch(NamedTuple):
    """The working arrays of :func:`node_score` and :func:`rescored`, made once a
    chain (:func:`node_scratch`)."""

    flags: np.ndarray  # (m,) 1.0 where a candidate slot precedes the node
    members: np.ndarray  # (m,) the allowed slots
    idx: np.ndarray  # (k,) a walk's positions
    scaled: np.ndarray  # (n_sets,) a row of own-scale weights
    state: np.ndarray  # (5,) the walk's limbs and counts
    best: np.ndarray  # (1,) the walk's best entry
    guesses: np.ndarray  # (n,) the scale last found for each node
    shares: np.ndarray  # (2, m) per-position shares
    saved_guesses: np.ndarray  # (n,) the guesses a rejected move puts back


@numba.njit(cache=True)
def node_scratch(kt):
    """A :class:`Scratch` for the table ``kt``."""
    n, m = kt.candidates.shape
    return Scratch(np.empty(m, dtype=np.float64), np.empty(m, dtype=np.int64),
                   np.empty(max(kt.subsets.shape[1], 1), dtype=np.int64),
                   np.empty(kt.weights.shape[1], dtype=np.float64), np.zeros(5, dtype=np.int64),
                   np.zeros(1), np.zeros(n, dtype=np.int64), np.zeros((2, m), dtype=np.int64),
                   np.zeros(n, dtype=np.int64))


@numba.njit(cache=True)
def order_node_sums(order, kt, node_scores, sums):
    """The positions of ``order``, its node scores and their sums (:func:`node_score`)."""
    n = order.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for p in range(n):
        pos[order[p]] = p
    scratch = node_scratch(kt)
    for v in range(n):
        node_scores[v] = node_score(v, pos, kt, scratch, sums)
    return pos


@numba.njit(cache=True)
def order_node_scores(order, kt, node_scores):
    return order_node_sums(order, kt, node_scores,
                            np.empty((order.shape[0], 3), dtype=np.int64))


@parallel.guarded
@numba.njit(parallel=True, cache=True)
def order_totals(orders, kt):
    """Each order's score (the sum of its node scores), the orders in parallel."""
    totals = np.empty(orders.shape[0])
    for c in numba.prange(orders.shape[0]):
        node_scores = np.empty(orders.shape[1])
        order_node_scores(orders[c], kt, node_scores)
        totals[c] = total(node_scores)
    return totals


@numba.njit(cache=True)
def total(node_scores):
    # Summed in node order, so an order's score never depends on the path to it.
    t = 0.0
    for v in range(node_scores.shape[0]):
        t += node_scores[v]
    return t


def order_score(order, kernel):
    """The score of ``order``: its node scores (:func:`order_node_scores`) summed
    in node order (:func:`total`), as a chain records it."""
    scores = np.empty(order.shape[0])
    order_node_scores(order, kernel, scores)
    return total(scores)
