"""Order MCMC on an NVIDIA GPU: the chains of :func:`tandem.bn.order_mcmc`, bit for bit.

One CUDA block runs one chain (its replicas one after another, as the CPU
does), so many chains run at once.  Thread 0 follows the chain's rules
(:mod:`tandem.bn.order_moves`: the proposals, the acceptances, the swaps,
the batches), reading the same uniforms as the CPU; every node score is a
collective step of the block:

* the block marks the node's allowed candidate slots in a mask (a thread a
  slot, by shared-memory atomics);
* its threads walk the node's parent sets in rank order, which is the order
  of the CPU's walk (:mod:`tandem.bn.mcmc`), thread ``t`` taking ranks ``t``,
  ``t + threads``, ... of each size, as far as the sets of slots below the
  highest allowed one reach: consecutive threads read neighbouring entries of
  the table, a set counts where its slot mask (:func:`set_tables`) holds no
  forbidden slot, and each thread sums its terms exactly
  (:mod:`tandem.bn.order_sums`); the incremental rule walks the list of the
  sets that hold the slot that moved (:func:`set_tables`) the same way;
* the limbs and the largest weight are reduced in shared memory, exactly, so
  the sum, its scale and the node score equal the CPU's bit for bit,
  whatever the number of threads.

A kept order's DAGs take the same steps: the sums of the sets that hold
each position by shared-memory atomics (integers: exact in any order), and
the inverse-CDF draw of a parent set by a prefix sum over the block of each
round of consecutive ranks, in walk order, until the running sum passes the
target.

Needs numba-cuda and a GPU, or Numba's CUDA simulator.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import config, cuda

from .. import _twin
from . import order_moves, order_sums

#: Threads per chain (a power of two) on a table of at least SMALL_TABLE sets a node;
#: SMALL_THREADS on a smaller one, whose node sums are too short to share among more
#: (fewer threads a chain let more chains run at once).
THREADS = 128
SMALL_THREADS = 32
SMALL_TABLE = 1 << 18
#: The chain kernel's register cap (None: the compiler's choice); fewer registers a
#: thread let more chains share a multiprocessor (docs/performance.md, 2026-12-04).
MAX_REGISTERS = 128

_LIMB = order_sums.LIMB
_MASK = order_sums.LIMB_MASK
_OWN_SCALE = order_sums.OWN_SCALE
_SUM, _SHARES, _MAX = 0, 1, 2


def device_module():
    """This module as :mod:`tandem._twin` loads it for numba-cuda."""
    return _twin.module("bn.cuda_mcmc")


def weight(row, scores, own, shift, r):
    """Set ``r``'s weight: the table's, or in the node's own scale."""
    if own:
        return order_sums.scaled_weight(scores[r], shift)
    return row[r]


def beyond(hi, lo, target_hi, target_lo):
    """Whether the normalised limbs ``(hi, lo)`` exceed the target's."""
    return hi > target_hi or (hi == target_hi and lo > target_lo)


_DEVICE_FUNCTIONS = (weight, beyond)


def _bits(x):
    return np.float64(x).view(np.int64)


def _float(b):
    return np.int64(b).view(np.float64)


@functools.lru_cache(maxsize=None)
def kernels(m, k, n, threads, max_registers=None):
    """``advance``: the chain kernel for tables of ``m`` candidate slots and sets of at
    most ``k``, ``n`` nodes and ``threads`` threads a chain (a power of two), with at
    most ``max_registers`` registers a thread.  Call it on :func:`device_module`'s
    copy."""
    order_sums.register_cuda()
    order_moves.register_cuda()
    if not config.ENABLE_CUDASIM:
        from numba.cuda.extending import register_jitable

        for fn in _DEVICE_FUNCTIONS + (_bits, _float):
            register_jitable(fn)
    slots = max(m, 1)
    words = _words(m)
    batches = order_moves.BATCHES

    @cuda.jit(device=True)
    def forbid(allowed, forbidden, w):
        """Into ``forbidden``: the mask of the slots outside ``allowed``, slot ``w``
        allowed too where ``w >= 0``."""
        for q in range(words):
            forbidden[q] = ~allowed[q]
        if w >= 0:
            forbidden[w >> 6] &= ~(np.int64(1) << (w & 63))

    @cuda.jit(device=True)
    def inside(masks, r, forbidden):
        """Whether set ``r`` holds no forbidden slot."""
        outside = np.int64(0)
        for q in range(words):
            outside |= masks[q, r] & forbidden[q]
        return outside == 0

    @cuda.jit(device=True)
    def walk(mode, row, scores, own, shift, forbidden, limit, offsets, binom, subsets, masks,
             factor, acc, state):
        """This thread's sets of the node's allowed sets, in rank order (the CPU's walk
        order), the block's threads taking consecutive ranks of each size (so that their
        loads coalesce), only ranks below ``offsets[s] + C(limit, s)`` (the sets of
        size ``s`` of slots below ``limit``), a set allowed where it holds no
        ``forbidden`` slot: ``_SUM``: the limbs into ``state[0:2]``, the largest
        weight's bits into ``state[2]``; ``_MAX``: the largest score into ``state[3]``
        (float bits); ``_SHARES``: the limbs into ``state[0:2]`` and, by atomics, into
        ``acc[:, p]`` those of the sets holding slot ``p``."""
        tid = cuda.threadIdx.x
        hi = state[0]
        lo = state[1]
        largest = state[2]
        best = _float(state[3])
        for s in range(1, k + 1):
            for r in range(offsets[s] + tid, offsets[s] + binom[limit, s], threads):
                if inside(masks, r, forbidden):
                    if mode == _MAX:
                        best = max(best, scores[r])
                    else:
                        w = weight(row, scores, own, shift, r)
                        t = order_sums.term(w, factor)
                        hi += t >> _LIMB
                        lo += t & _MASK
                        if mode == _SUM:
                            largest = max(largest, order_sums.weight_bits(w))
                        else:
                            for q in range(s):
                                p = subsets[r, q]
                                cuda.atomic.add(acc, (0, p), t >> _LIMB)
                                cuda.atomic.add(acc, (1, p), t & _MASK)
        state[0] = hi
        state[1] = lo
        state[2] = largest
        state[3] = _bits(best)

    @cuda.jit(device=True)
    def found_set(row, scores, own, shift, forbidden, limit, offsets, binom, masks, factor, red,
                  info, start, target_hi, target_lo):
        """Collective: the rank of the first allowed set, in rank order, at which the
        running sum of terms, from ``start``, passes the target limbs; -1 if none does.
        The threads take consecutive ranks, and a prefix sum over the block finds the
        one."""
        tid = cuda.threadIdx.x
        run_hi, run_lo = order_sums.normalised(start >> _LIMB, start & _MASK)
        for s in range(1, k + 1):
            end = offsets[s] + binom[limit, s]
            for first in range(offsets[s], end, threads):
                r = first + tid
                t = np.int64(0)
                if r < end and inside(masks, r, forbidden):
                    t = order_sums.term(weight(row, scores, own, shift, r), factor)
                red[0, tid] = t >> _LIMB
                red[1, tid] = t & _MASK
                inclusive_scan(red, 2, tid)
                hi, lo = order_sums.normalised(run_hi + red[0, tid], run_lo + red[1, tid])
                passes = beyond(hi, lo, target_hi, target_lo)
                hi, lo = order_sums.normalised(hi - (t >> _LIMB), lo - (t & _MASK))
                if passes and not beyond(hi, lo, target_hi, target_lo):
                    info[8] = r
                run_hi, run_lo = order_sums.normalised(run_hi + red[0, threads - 1],
                                                       run_lo + red[1, threads - 1])
                if cuda.syncthreads_or(1 if passes else 0) != 0:
                    return info[8]
        return -1

    @cuda.jit(device=True)
    def reduce(red, tid):
        """Tree reduction into column 0 of ``red``: sums of rows 0 and 1, the maximum of
        row 2 (int) and of row 3 (float bits)."""
        stride = threads // 2
        while stride > 0:
            if tid < stride:
                red[0, tid] += red[0, tid + stride]
                red[1, tid] += red[1, tid + stride]
                red[2, tid] = max(red[2, tid], red[2, tid + stride])
                if _float(red[3, tid + stride]) > _float(red[3, tid]):
                    red[3, tid] = red[3, tid + stride]
            cuda.syncthreads()
            stride //= 2

    @cuda.jit(device=True)
    def inclusive_scan(red, rows, tid):
        """Collective: each of ``red``'s first ``rows`` rows replaced by its inclusive
        prefix sums over the block (Hillis and Steele)."""
        cuda.syncthreads()
        step = 1
        while step < threads:
            for q in range(rows):
                x = red[q, tid - step] if tid >= step else 0
                cuda.syncthreads()
                red[q, tid] += x
                cuda.syncthreads()
            step *= 2

    @cuda.jit(device=True)
    def allowed_slots(v, pos, candidates, skip, allowed, info):
        """Collective: the mask of the candidate slots of ``v`` that precede it (all but
        ``skip``) into ``allowed``, and one more than the highest of them (0 if none)
        into ``info[0]``.  A thread a slot, by shared-memory atomics."""
        tid = cuda.threadIdx.x
        cuda.syncthreads()
        for q in range(tid, words, threads):
            allowed[q] = 0
        if tid == 0:
            info[0] = 0
        cuda.syncthreads()
        before = pos[v]
        for q in range(tid, candidates.shape[1], threads):
            if q != skip:
                c = candidates[v, q]
                if c >= 0 and pos[c] < before:
                    cuda.atomic.or_(allowed, q >> 6, np.int64(1) << (q & 63))
                    cuda.atomic.max(info, 0, q + 1)
        cuda.syncthreads()

    @cuda.jit(device=True)
    def reduce_state(red, tid, state):
        """Collective: every thread's limbs ``state[0:2]`` summed, its largest weight's
        bits ``state[2]`` and largest score ``state[3]`` (float bits) maximised, into
        ``red[0:4, 0]``."""
        red[0, tid] = state[0]
        red[1, tid] = state[1]
        red[2, tid] = state[2]
        red[3, tid] = state[3]
        cuda.syncthreads()
        reduce(red, tid)

    @cuda.jit(device=True)
    def node_sum(v, pos, candidates, scores, weights, top, offsets, binom, subsets, masks, guess,
                 allowed, info, red, forbidden, state, acc):
        """Collective: the exact sum of ``v``'s allowed sets, as :func:`node_sums.node_sum`.
        Leaves in ``info``: ``[0]`` one more than the highest allowed slot, ``[1]``,
        ``[2]`` the limbs, ``[3]`` e, ``[4]`` 1 in the own scale, ``[5]`` the shift's
        float bits; in ``forbidden``, the mask of the slots that do not precede ``v``."""
        tid = cuda.threadIdx.x
        allowed_slots(v, pos, candidates, -1, allowed, info)
        if tid == 0:
            info[3] = guess[v]
            info[4] = 0
            info[5] = _bits(top[v])
        cuda.syncthreads()
        limit = info[0]
        forbid(allowed, forbidden, -1)
        row = weights[v]
        srow = scores[v]
        mode = _SUM
        # one walk, so that the kernel holds one copy of it: sums at the guessed scale,
        # then at the largest allowed weight's; in the own scale, the best allowed score
        # (_MAX) first
        while True:
            e = info[3]
            own = info[4] != 0
            shift = _float(info[5])
            factor = order_sums.scale(e) if mode == _SUM else 1.0
            for j in range(4):
                state[j] = 0
            if mode == _MAX:
                state[3] = _bits(srow[0]) if tid == 0 else _bits(-math.inf)
            elif tid == 0:
                w0 = weight(row, srow, own, shift, 0)
                t0 = order_sums.term(w0, factor)
                state[0] = t0 >> _LIMB
                state[1] = t0 & _MASK
                state[2] = order_sums.weight_bits(w0)
            walk(mode, row, srow, own, shift, forbidden, limit, offsets, binom, subsets, masks,
                 factor, acc, state)
            reduce_state(red, tid, state)
            if tid == 0:
                info[6] = 1  # done
                if mode == _MAX:
                    info[3] = 0
                    info[4] = 1
                    info[5] = red[3, 0]
                    info[6] = 0
                else:
                    found = order_sums.exponent(red[2, 0])
                    info[1] = red[0, 0]
                    info[2] = red[1, 0]
                    if not own:
                        if found < order_sums.MIN_EXPONENT:
                            info[6] = 2  # to the own scale
                        elif found != e:
                            info[3] = found
                            guess[v] = found
                            info[6] = 0
            cuda.syncthreads()
            decision = info[6]
            cuda.syncthreads()
            if decision == 1:
                return
            mode = _MAX if decision == 2 else _SUM

    @cuda.jit(device=True)
    def node_score(v, pos, sums, candidates, scores, weights, top, offsets, binom, subsets, masks,
                   guess, allowed, info, red, forbidden, state, acc):
        """Collective: ``v``'s node score, returned to every thread; its exact sum into
        ``sums[v]``, as :func:`node_sums.node_score`."""
        node_sum(v, pos, candidates, scores, weights, top, offsets, binom, subsets, masks, guess,
                 allowed, info, red, forbidden, state, acc)
        if cuda.threadIdx.x == 0:
            info[7] = _bits(order_sums.node_score(_float(info[5]), info[1], info[2], info[3]))
            sums[v, 0], sums[v, 1] = order_sums.normalised(info[1], info[2])
            sums[v, 2] = _OWN_SCALE if info[4] != 0 else info[3]
        cuda.syncthreads()
        score = _float(info[7])
        cuda.syncthreads()
        return score

    @cuda.jit(device=True)
    def holding_walk(row, w, forbidden, limit, holding, holding_ends, masks, factor, state):
        """This thread's sets of those that hold slot ``w`` and no ``forbidden`` slot, as
        :func:`node_sums.holding_sum` sums them (the singleton ``{w}`` too), the block's
        threads taking consecutive entries of ``holding[w]`` (the sets that hold ``w``,
        by their highest slot), those of slots below ``limit`` alone: the limbs into
        ``state[0:2]``, the largest weight's bits into ``state[2]``."""
        hi = state[0]
        lo = state[1]
        largest = state[2]
        for i in range(cuda.threadIdx.x, holding_ends[w, max(limit, w + 1)], threads):
            r = holding[w, i]
            if inside(masks, r, forbidden):
                x = row[r]
                largest = max(largest, order_sums.weight_bits(x))
                t = order_sums.term(x, factor)
                hi += t >> _LIMB
                lo += t & _MASK
        state[0] = hi
        state[1] = lo
        state[2] = largest

    @cuda.jit(device=True)
    def rescored(v, leaving, joining, fresh, pos, sums, candidates, slots_of, scores, weights, top,
                 offsets, binom, subsets, masks, holding, holding_ends, guess, allowed, info, red,
                 forbidden, state, acc):
        """Collective: as :func:`node_sums.rescored`, the incremental rule (:func:`node_score`
        where ``fresh``); returns ``v``'s node score to every thread.  Every node score
        of the kernel goes through here or :func:`sample_dags`: each call site is a
        copy of the code, and a kernel larger than the instruction caches waits on
        its fetches."""
        tid = cuda.threadIdx.x
        e = _OWN_SCALE if fresh else sums[v, 2]
        join = slots_of[joining, v] if joining >= 0 else -1
        if e != _OWN_SCALE:
            allowed_slots(v, pos, candidates, join, allowed, info)
        if tid == 0:
            info[9] = 0
            if e != _OWN_SCALE:
                info[9] = 1
                info[10] = slots_of[leaving, v] if leaving >= 0 else -1
                info[11] = join
                info[14] = sums[v, 0]
                info[15] = sums[v, 1]
        cuda.syncthreads()
        if info[9] != 0:
            limit = info[0]
            factor = order_sums.scale(e)
            row = weights[v]
            for side in range(2):
                slot = info[10 + side]
                if slot >= 0 and info[9] != 0:
                    state[0] = 0
                    state[1] = 0
                    state[2] = 0
                    state[3] = _bits(-math.inf)
                    forbid(allowed, forbidden, slot)
                    holding_walk(row, slot, forbidden, limit, holding, holding_ends, masks, factor,
                                 state)
                    reduce_state(red, tid, state)
                    if tid == 0:
                        found = order_sums.exponent(red[2, 0])
                        if found > e or (side == 0 and found == e):
                            info[9] = 0  # the scale may change: score afresh
                        elif side == 0:
                            info[14] -= red[0, 0]
                            info[15] -= red[1, 0]
                        else:
                            info[14] += red[0, 0]
                            info[15] += red[1, 0]
                    cuda.syncthreads()
        if info[9] == 0:
            cuda.syncthreads()
            return node_score(v, pos, sums, candidates, scores, weights, top, offsets, binom,
                              subsets, masks, guess, allowed, info, red, forbidden, state, acc)
        if tid == 0:
            hi, lo = order_sums.normalised(info[14], info[15])
            sums[v, 0] = hi
            sums[v, 1] = lo
            info[7] = _bits(order_sums.node_score(top[v], hi, lo, e))
        cuda.syncthreads()
        score = _float(info[7])
        cuda.syncthreads()
        return score

    @cuda.jit(device=True)
    def sample_dags(uniforms, dags, pos, candidates, scores, weights, top, offsets, binom, subsets,
                    masks, guess, allowed, info, red, forbidden, state, acc, edge_counts,
                    edge_given_order, batch):
        """Collective: the DAGs and P(edge | order) of one kept order, as
        :func:`mcmc._sample_dags`."""
        tid = cuda.threadIdx.x
        n = pos.shape[0]
        for v in range(n):
            node_sum(v, pos, candidates, scores, weights, top, offsets, binom, subsets, masks,
                     guess, allowed, info, red, forbidden, state, acc)
            limit = info[0]
            e = info[3]
            own = info[4] != 0
            shift = _float(info[5])
            factor = order_sums.scale(e)
            row = weights[v]
            srow = scores[v]
            for q in range(tid, slots, threads):
                acc[0, q] = 0
                acc[1, q] = 0
            cuda.syncthreads()
            for j in range(4):
                state[j] = 0
            walk(_SHARES, row, srow, own, shift, forbidden, limit, offsets, binom, subsets, masks,
                 factor, acc, state)
            cuda.syncthreads()
            total = order_sums.limbs_value(info[1], info[2])
            for q in range(tid, candidates.shape[1], threads):
                if acc[0, q] > 0 or acc[1, q] > 0:
                    edge_given_order[candidates[v, q], v] += order_sums.limbs_value(
                        acc[0, q], acc[1, q]) / total
            t0 = order_sums.term(weight(row, srow, own, shift, 0), factor)
            for d in range(dags):
                target_hi, target_lo = order_sums.target_limbs(uniforms[d * n + v] * total)
                hi, lo = order_sums.normalised(t0 >> _LIMB, t0 & _MASK)
                r = 0
                if t0 == 0 or not beyond(hi, lo, target_hi, target_lo):
                    r = found_set(row, srow, own, shift, forbidden, limit, offsets, binom, masks,
                                  factor, red, info, t0, target_hi, target_lo)
                if tid == 0:
                    if r < 0:  # rounding put the target past the end
                        r = 0
                        for x in range(scores.shape[1] - 1, 0, -1):
                            if order_sums.term(weight(row, srow, own, shift, x), factor) > 0 \
                                    and inside(masks, x, forbidden):
                                r = x
                                break
                    for q in range(subsets.shape[1]):
                        p = subsets[r, q]
                        if p < 0:
                            break
                        edge_counts[candidates[v, p], v] += 1
                        batch[v, p] += 1
            cuda.syncthreads()

    @cuda.jit(device=True)
    def order_scores(order, pos, node_scores, sums, candidates, slots_of, scores, weights, top,
                     offsets, binom, subsets, masks, holding, holding_ends, guess, allowed, info,
                     red, forbidden, state, acc):
        """Collective: positions and every node score of ``order``; returns the total."""
        tid = cuda.threadIdx.x
        n = order.shape[0]
        for p in range(tid, n, threads):
            pos[order[p]] = p
        cuda.syncthreads()
        for v in range(n):
            x = rescored(v, -1, -1, True, pos, sums, candidates, slots_of, scores, weights, top,
                         offsets, binom, subsets, masks, holding, holding_ends, guess, allowed,
                         info, red, forbidden, state, acc)
            if tid == 0:
                node_scores[v] = x
        cuda.syncthreads()
        total = 0.0
        for v in range(n):
            total += node_scores[v]
        return total

    @cuda.jit(**({} if config.ENABLE_CUDASIM or max_registers is None
                 else {"max_registers": max_registers}))
    def advance(rescore, t0, t1, burn_in, thin, dags, cum, swap_every, betas, move_uniforms,
                swap_uniforms, dag_uniforms, candidates, slots_of, scores, weights, top,
                offsets, binom, subsets, masks, holding, holding_ends, orders, best_score,
                best_order, trace, proposed, accepted, swaps_proposed, swaps_accepted,
                edge_counts, edge_given_order, n_kept, batch_counts, positions, node_scores,
                totals, guesses, saved_order, saved_scores, position_scores, todo, sums,
                saved_sums):
        """Iterations ``t0 .. t1 - 1`` of chain ``blockIdx.x``, as :func:`mcmc._chain`;
        the replicas' positions, node scores and sums are found afresh where
        ``rescore``, else kept from the launch before (equal: see :func:`rescored`)."""
        c = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        allowed = cuda.shared.array(words, np.int64)
        acc = cuda.shared.array((2, slots), np.int64)
        red = cuda.shared.array((4, threads), np.int64)
        info = cuda.shared.array(16, np.int64)  # see node_sum, rescored
        forbidden = cuda.local.array(words, np.int64)
        state = cuda.local.array(4, np.int64)
        replicas = orders.shape[1]
        n = orders.shape[2]
        guess = guesses[c]
        for r in range(replicas if rescore != 0 else 0):
            x = order_scores(orders[c, r], positions[c, r], node_scores[c, r], sums[c, r],
                             candidates, slots_of, scores, weights, top, offsets, binom, subsets,
                             masks, holding, holding_ends, guess, allowed, info, red, forbidden,
                             state, acc)
            if tid == 0:
                totals[c, r] = x
        cuda.syncthreads()
        first_round = (t0 + swap_every) // swap_every - 1
        kept = 0
        for t in range(t0, t1):
            if n >= 2:
                first = 4 * (t - t0)
                for r in range(replicas):
                    order = orders[c, r]
                    pos = positions[c, r]
                    scores_r = node_scores[c, r]
                    u0 = move_uniforms[c, r, first]
                    u1 = move_uniforms[c, r, first + 1]
                    u2 = move_uniforms[c, r, first + 2]
                    u3 = move_uniforms[c, r, first + 3]
                    kind, i, j = order_moves.proposal(cum, u0, u1, u2, n)
                    total = totals[c, r]
                    took = False
                    if kind == 3:
                        total, took = gibbs_position(
                            i, u3, betas[r], order, pos, scores_r, sums[c, r], total,
                            candidates, slots_of, scores, weights, top, offsets, binom, subsets,
                            masks, holding, holding_ends, guess, allowed, info, red, forbidden,
                            state, acc, saved_order[c], saved_scores[c], saved_sums[c],
                            position_scores[c])
                    else:
                        total, took = move(
                            kind, i, j, order_moves.log_uniform(u3), betas[r], order, pos,
                            scores_r, sums[c, r], total, candidates, slots_of, scores,
                            weights, top, offsets, binom, subsets, masks, holding, holding_ends,
                            guess, allowed, info, red, forbidden, state, acc, saved_order[c],
                            saved_scores[c], saved_sums[c], todo[c])
                    if tid == 0:
                        totals[c, r] = total
                        if r == 0:
                            proposed[c, kind] += 1
                            if took:
                                accepted[c, kind] += 1
                    cuda.syncthreads()
                if tid == 0 and replicas > 1 and (t + 1) % swap_every == 0:
                    s = (t + 1) // swap_every - 1
                    for r in range(s % 2, replicas - 1, 2):
                        log_u = order_moves.log_uniform(
                            swap_uniforms[c, (s - first_round) * (replicas - 1) + r])
                        swaps_proposed[c, r] += 1
                        if totals[c, r + 1] > -math.inf and (
                                totals[c, r] == -math.inf
                                or log_u < (betas[r] - betas[r + 1]) * (
                                    totals[c, r + 1] - totals[c, r])):
                            for p in range(n):
                                a = orders[c, r, p]
                                orders[c, r, p] = orders[c, r + 1, p]
                                orders[c, r + 1, p] = a
                                a = positions[c, r, p]
                                positions[c, r, p] = positions[c, r + 1, p]
                                positions[c, r + 1, p] = a
                                x = node_scores[c, r, p]
                                node_scores[c, r, p] = node_scores[c, r + 1, p]
                                node_scores[c, r + 1, p] = x
                                for q in range(3):
                                    a = sums[c, r, p, q]
                                    sums[c, r, p, q] = sums[c, r + 1, p, q]
                                    sums[c, r + 1, p, q] = a
                            x = totals[c, r]
                            totals[c, r] = totals[c, r + 1]
                            totals[c, r + 1] = x
                            swaps_accepted[c, r] += 1
                cuda.syncthreads()
            if tid == 0:
                trace[c, t] = totals[c, 0]
                for r in range(replicas):
                    if totals[c, r] > best_score[c]:
                        best_score[c] = totals[c, r]
                        for p in range(n):
                            best_order[c, p] = orders[c, r, p]
            keep = t >= burn_in and (t - burn_in) % thin == 0
            if keep:
                i = n_kept[c]
                size = order_moves.batch_size(i)
                merge = i > 0 and size != order_moves.batch_size(i - 1)
                cuda.syncthreads()
                if merge:  # pairs of batches merge where the batch size doubles: a cell each
                    width = batch_counts.shape[3]
                    for x in range(tid, batch_counts.shape[2] * width, threads):
                        v = x // width
                        q = x - v * width
                        for b in range(batches):
                            batch_counts[c, b, v, q] = (batch_counts[c, 2 * b, v, q]
                                                        + batch_counts[c, 2 * b + 1, v, q])
                        for b in range(batches, 2 * batches):
                            batch_counts[c, b, v, q] = 0
                    cuda.syncthreads()
                sample_dags(dag_uniforms[c, kept * dags * n:(kept + 1) * dags * n], dags,
                            positions[c, 0], candidates, scores, weights, top, offsets, binom,
                            subsets, masks, guess, allowed, info, red, forbidden, state, acc,
                            edge_counts[c], edge_given_order[c], batch_counts[c, i // size])
                if tid == 0:
                    n_kept[c] += 1
                kept += 1
            cuda.syncthreads()

    @cuda.jit(device=True)
    def move(kind, i, j, log_u, beta, order, pos, node_scores, sums, total, candidates, slots_of,
             scores, weights, top, offsets, binom, subsets, masks, holding, holding_ends, guess,
             allowed, info, red, forbidden, state, acc, saved_order, saved_scores, saved_sums,
             todo):
        """Collective: as :func:`mcmc._move`; returns (the score now, accepted)."""
        tid = cuda.threadIdx.x
        lo = min(i, j)
        hi = max(i, j)
        a = order[i]
        b = order[j]
        cuda.syncthreads()
        if tid == 0:
            for p in range(lo, hi + 1):
                saved_order[p] = order[p]
            order_moves.apply_move(kind, i, j, order, pos)
            count = 0
            for p in range(lo, hi + 1):
                v = order[p]
                saved_scores[p] = node_scores[v]
                for q in range(3):
                    saved_sums[p, q] = sums[v, q]
                todo[2 * p] = guess[v]
                if v == a or slots_of[a, v] >= 0 or (kind != 2 and (v == b
                                                                   or slots_of[b, v] >= 0)):
                    todo[2 * p + 1] = 1
                    count += 1
                else:
                    todo[2 * p + 1] = 0
        cuda.syncthreads()
        for p in range(lo, hi + 1):
            if todo[2 * p + 1] != 0:
                v = order[p]
                leaving, joining, fresh = order_moves.move_rescoring(kind, i, j, v, a, b, pos)
                x = rescored(v, leaving, joining, fresh, pos, sums, candidates, slots_of, scores,
                             weights, top, offsets, binom, subsets, masks, holding, holding_ends,
                             guess, allowed, info, red, forbidden, state, acc)
                if tid == 0:
                    node_scores[v] = x
                cuda.syncthreads()
        new_total = 0.0
        for v in range(order.shape[0]):
            new_total += node_scores[v]
        took = new_total > -math.inf and (total == -math.inf
                                          or log_u < beta * (new_total - total))
        cuda.syncthreads()
        if took:
            return new_total, True
        if tid == 0:
            for p in range(lo, hi + 1):
                node_scores[order[p]] = saved_scores[p]
                guess[order[p]] = todo[2 * p]
                for q in range(3):
                    sums[order[p], q] = saved_sums[p, q]
            for p in range(lo, hi + 1):
                order[p] = saved_order[p]
                pos[order[p]] = p
        cuda.syncthreads()
        return total, False

    @cuda.jit(device=True)
    def step_scores(v, step, end, order, pos, node_scores, sums, candidates, slots_of, scores,
                    weights, top, offsets, binom, subsets, masks, holding, holding_ends, guess,
                    allowed, info, red, forbidden, state, acc, position_scores):
        """Collective: as :func:`mcmc._step_scores`."""
        tid = cuda.threadIdx.x
        cuda.syncthreads()
        j = pos[v]
        cuda.syncthreads()
        while j != end:
            w = order[j + step]
            cuda.syncthreads()
            if tid == 0:
                order[j + step] = v
                order[j] = w
                pos[v] = j + step
                pos[w] = j
            cuda.syncthreads()
            # v loses w moving earlier, gains it moving later; w the other way round
            for side in range(2):
                x = v if side == 0 else w
                other = w if side == 0 else v
                if slots_of[other, x] >= 0:
                    losing = (step < 0) == (side == 0)
                    score = rescored(x, other if losing else -1, -1 if losing else other, False,
                                     pos, sums, candidates, slots_of, scores, weights, top,
                                     offsets, binom, subsets, masks, holding, holding_ends, guess,
                                     allowed, info, red, forbidden, state, acc)
                    if tid == 0:
                        node_scores[x] = score
            j += step
            cuda.syncthreads()
            if tid == 0:
                total = 0.0
                for q in range(order.shape[0]):
                    total += node_scores[q]
                position_scores[j] = total
            cuda.syncthreads()

    @cuda.jit(device=True)
    def copy_order(order, node_scores, sums, to_order, to_scores, to_sums):
        """An order, its node scores and their sums, copied (by one thread)."""
        for p in range(order.shape[0]):
            to_order[p] = order[p]
            to_scores[p] = node_scores[p]
            for q in range(3):
                to_sums[p, q] = sums[p, q]

    @cuda.jit(device=True)
    def gibbs_position(i, u, beta, order, pos, node_scores, sums, total, candidates, slots_of,
                       scores, weights, top, offsets, binom, subsets, masks, holding, holding_ends,
                       guess, allowed, info, red, forbidden, state, acc, saved_order, saved_scores,
                       saved_sums, position_scores):
        """Collective: as :func:`mcmc._gibbs_position`."""
        tid = cuda.threadIdx.x
        n = order.shape[0]
        v = order[i]
        cuda.syncthreads()
        if tid == 0:
            copy_order(order, node_scores, sums, saved_order, saved_scores, saved_sums)
            position_scores[i] = total
        cuda.syncthreads()
        j = i
        # phases 0 and 1 walk v to either end and put the order back; phase 2 walks it
        # to the position drawn (one call site of step_scores: see rescored)
        for phase in range(3):
            if phase == 2:
                if tid == 0:
                    info[8] = order_moves.gibbs_pick(position_scores, beta, u)
                cuda.syncthreads()
                j = info[8]
                cuda.syncthreads()
                if j == i:
                    return total, False
            end = 0 if phase == 0 else (n - 1 if phase == 1 else j)
            step_scores(v, -1 if end < i else 1, end, order, pos, node_scores, sums, candidates,
                        slots_of, scores, weights, top, offsets, binom, subsets, masks, holding,
                        holding_ends, guess, allowed, info, red, forbidden, state, acc,
                        position_scores)
            if phase < 2:
                if tid == 0:
                    copy_order(saved_order, saved_scores, saved_sums, order, node_scores, sums)
                    for p in range(n):
                        pos[order[p]] = p
                cuda.syncthreads()
        new_total = 0.0
        for q in range(n):
            new_total += node_scores[q]
        return new_total, True

    return advance


# -- the host side ---------------------------------------------------------------

def zeros(like):
    """A device array of zeros shaped as the host array ``like``, set on the device."""
    out = cuda.device_array(like.shape, like.dtype)
    if not config.ENABLE_CUDASIM:
        from numba.cuda.cudadrv.driver import device_memset

        device_memset(out, 0, out.nbytes)
    else:
        out.copy_to_device(np.zeros(like.shape, like.dtype))
    return out


#: The chain state that :func:`tandem.bn.order_mcmc` keeps (and checkpoints), by name.
STATE = ("orders", "best_score", "best_order", "trace", "proposed", "accepted",
         "swaps_proposed", "swaps_accepted", "edge_counts", "edge_given_order", "n_kept",
         "batch_counts")
#: The state that a new run starts at zero: set on the device, not copied to it.
ZEROED = ("proposed", "accepted", "swaps_proposed", "swaps_accepted", "edge_counts",
          "edge_given_order", "n_kept", "batch_counts")


class DeviceChains:
    """Chains on the GPU: the prepared table and the chains' state in device memory.

    Parameters
    ----------
    kernel : tandem.bn.node_sums.Kernel
        The prepared table.
    state : dict of numpy.ndarray
        The chains' state, as :func:`tandem.bn.order_mcmc` keeps it; :meth:`fetch`
        writes it back.
    fresh : bool
        Whether ``state`` is a new run's, whose arrays of :data:`ZEROED` are zeros.
    threads : int, optional
        Threads a chain (a power of two); default :data:`THREADS`, or
        :data:`SMALL_THREADS` on a table of fewer than :data:`SMALL_TABLE` sets.
    """

    def __init__(self, kernel, state, fresh=False, threads=None):
        if threads is None:
            threads = THREADS if kernel.scores.shape[1] >= SMALL_TABLE else SMALL_THREADS
        threads = int(threads)
        if threads < 1 or threads & (threads - 1):
            raise ValueError(f"threads must be a power of two, got {threads}")
        chains, replicas, n = state["orders"].shape
        m = kernel.candidates.shape[1]
        k = kernel.subsets.shape[1]
        self.threads = threads
        table = (kernel.candidates, kernel.slots, kernel.scores, kernel.weights, kernel.top,
                 kernel.offsets, kernel.binom, kernel.subsets, *set_tables(kernel.subsets, m))
        need = (sum(a.nbytes for a in table) + sum(state[name].nbytes for name in STATE)
                + 8 * chains * (replicas * (6 * n + 1) + 9 * n))
        free, _ = cuda.current_context().get_memory_info()
        if need > free:
            raise MemoryError(f"order_mcmc on the GPU needs {need / 2**30:.2f} GiB of device "
                              f"memory (the table's scores, weights and set tables, and the "
                              f"chains' state and scratch); "
                              f"{free / 2**30:.2f} GiB are free: prune the table, restrict "
                              f"its candidates or run on the CPU")
        self._advance = device_module().kernels(m, k, n, threads, MAX_REGISTERS)
        self._table = [cuda.to_device(np.ascontiguousarray(a)) for a in table]
        self._state = {name: zeros(state[name]) if fresh and name in ZEROED
                       else cuda.to_device(np.ascontiguousarray(state[name]))
                       for name in STATE}
        self._rescore = True
        self._host_batches = _batches_used(state["n_kept"])
        i8, f8 = np.int64, np.float64
        self._scratch = [cuda.device_array((chains, replicas, n), i8),
                         cuda.device_array((chains, replicas, n), f8),
                         cuda.device_array((chains, replicas), f8),
                         cuda.to_device(np.zeros((chains, n), i8)),
                         cuda.device_array((chains, n), i8), cuda.device_array((chains, n), f8),
                         cuda.device_array((chains, n), f8),
                         cuda.device_array((chains, 2 * n), i8),
                         cuda.device_array((chains, replicas, n, 3), i8),
                         cuda.device_array((chains, n, 3), i8)]
        self.chains = chains

    def advance(self, t0, t1, burn_in, thin, dags, cum, swap_every, betas, move_uniforms,
                swap_uniforms, dag_uniforms):
        """Iterations ``t0 .. t1 - 1`` of every chain (waits for the device)."""
        args = [np.int64(t0), np.int64(t1), np.int64(burn_in), np.int64(thin), np.int64(dags),
                cuda.to_device(np.ascontiguousarray(cum)), np.int64(swap_every),
                cuda.to_device(np.ascontiguousarray(betas))]
        args += [cuda.to_device(np.ascontiguousarray(a)) for a in (move_uniforms,
                                                                    swap_uniforms,
                                                                    dag_uniforms)]
        self._advance[self.chains, self.threads](np.int64(self._rescore), *args, *self._table,
                                                 *(self._state[name] for name in STATE),
                                                 *self._scratch)
        cuda.synchronize()
        self._rescore = False

    def fetch(self, state):
        """Copy the chains' state back into the host arrays of ``state``.

        Of the edge-count batches, only those that hold kept orders on either
        side travel: the rest are zero on both (``state`` is the host copy this
        object was made from or last fetched to)."""
        for name in STATE:
            if name != "batch_counts":
                state[name][...] = self._state[name].copy_to_host()
        counts, host = self._state["batch_counts"], state["batch_counts"]
        used = _batches_used(state["n_kept"])
        copied = max(used, self._host_batches)  # merged batches are zero on the device
        if copied == counts.shape[1]:
            host[...] = counts.copy_to_host()
        elif copied:
            for c in range(counts.shape[0]):  # contiguous on the device: a copy each
                counts[c, :copied].copy_to_host(host[c, :copied])
        self._host_batches = used


def _words(m):
    """The int64 words of a mask of ``m`` slots."""
    return max(-(-m // 64), 1)


def set_tables(subsets, m):
    """The tables of the device's walks over the parent sets of ``subsets`` (the rows
    of :func:`tandem.bn.combinations.subset_table` for ``m`` slots, in rank order).

    Returns
    -------
    masks : numpy.ndarray of int64, shape (words, n_sets)
        Bit ``q % 64`` of ``masks[q // 64, r]`` says whether set ``r`` holds slot ``q``.
    holding : numpy.ndarray of int32, shape (m, h)
        ``holding[w]``: the ranks of the ``h`` sets that hold slot ``w``, by their
        highest slot, then by rank.
    holding_ends : numpy.ndarray of int64, shape (m, m + 1)
        ``holding_ends[w, L]``: how many of ``holding[w]`` hold no slot of ``L`` or
        above, so that those are its first entries.
    """
    n_sets, k = subsets.shape
    words = _words(m)
    masks = np.zeros((words, n_sets), np.uint64)
    sets, column = np.nonzero(subsets >= 0)
    slot = subsets[sets, column]
    np.bitwise_or.at(masks, (slot // 64, sets), np.left_shift(np.uint64(1),
                                                              (slot % 64).astype(np.uint64)))
    highest = subsets.max(axis=1, initial=-1)
    by_slot = np.lexsort((sets, highest[sets], slot))  # sets rank within each highest slot
    h = len(sets) // m if m else 0
    holding = sets[by_slot].astype(np.int32).reshape(m, h)
    ends = np.zeros((m, m + 1), np.int64)
    for w in range(m):
        ends[w] = np.searchsorted(highest[holding[w]], np.arange(m + 1), side="left")
    return masks.view(np.int64), holding, ends


def _batches_used(n_kept):
    """How many edge-count batches hold the orders of chains that kept ``n_kept``."""
    kept = int(np.max(n_kept, initial=0))
    if kept == 0:
        return 0
    return -(-kept // order_moves.batch_size(kept - 1))
