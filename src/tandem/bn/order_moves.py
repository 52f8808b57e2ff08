"""The rules of an order-MCMC step that every device follows: the proposal from its
uniforms, and the batching of the kept orders' edge counts.

Plain Python on scalars, called by :mod:`tandem.bn.mcmc` on the CPU and by
:mod:`tandem.bn.cuda_mcmc` on a GPU (through a copy registered with
numba-cuda alone), so that a chain is the same on both.
"""

import numpy as np

from .. import core
from ..core.fmath import exp64, log64

_ULP = 2.0**-53

#: Each chain keeps its sampled DAGs' edge counts in batches of consecutive kept
#: orders, BATCHES to 2 BATCHES of them (see :mod:`tandem.bn.mcmc`).
BATCHES = 256

#: The move kinds, in the order of their columns in the acceptance arrays.
MOVES = ("adjacent", "transposition", "relocate", "gibbs_position")


def proposal(cum, u_kind, u_i, u_j, n):
    """``(kind, i, j)``: the move kind (an index of :data:`tandem.bn.mcmc.MOVES`, from
    the cumulative probabilities ``cum``) and its two positions, from three uniforms.

    Adjacent: ``i = floor(u_i (n - 1))``, ``j = i + 1``; the others: ``i =
    floor(u_i n)`` and ``j`` the ``floor(u_j (n - 1))``-th of the other positions.
    """
    kind = 3
    if u_kind < cum[0]:
        kind = 0
    elif u_kind < cum[1]:
        kind = 1
    elif u_kind < cum[2]:
        kind = 2
    if kind == 0:
        i = min(np.int64(u_i * (n - 1)), n - 2)
        j = i + 1
    else:
        i = min(np.int64(u_i * n), n - 1)
        j = min(np.int64(u_j * (n - 1)), n - 2)
        if j >= i:
            j += 1
    return kind, i, j


def apply_move(kind, i, j, order, pos):
    """Make the move ``kind`` at positions ``i``, ``j`` in ``order`` and its positions
    ``pos``: a swap of the two (``kind`` 0 or 1), or the node at ``i`` moved to
    ``j`` with the nodes between shifted by one (``kind`` 2)."""
    if kind < 2:
        node = order[i]
        order[i] = order[j]
        order[j] = node
    else:
        node = order[i]
        if i < j:
            for p in range(i, j):
                order[p] = order[p + 1]
        else:
            for p in range(i, j, -1):
                order[p] = order[p - 1]
        order[j] = node
    for p in range(min(i, j), max(i, j) + 1):
        pos[order[p]] = p


def move_rescoring(kind, i, j, v, a, b, pos):
    """How node ``v``, in the range of a move of ``kind`` at ``i``, ``j`` (``a``, ``b``
    the nodes that were there; ``pos`` the positions after the move), is rescored:
    ``(leaving, joining, fresh)``, the candidate that stops preceding ``v`` and the
    one that starts to (nodes, or -1) for the incremental rule, or ``fresh`` where
    more than one changes (a moved node that passes several others).

    A swap (``kind`` 0 or 1): a node between loses the earlier, gains the later; a
    relocation of ``a``: the nodes between lose it (``i < j``) or gain it.
    """
    adjacent = abs(i - j) == 1
    if kind < 2:
        if v == a or v == b:
            other = b if v == a else a
            if pos[v] > pos[other]:
                return -1, other, not adjacent
            return other, -1, not adjacent
        if i < j:
            return a, b, False
        return b, a, False
    if v == a:
        if i < j:
            return -1, b, not adjacent
        return b, -1, not adjacent
    if i < j:
        return a, -1, False
    return -1, a, False


def batch_size(i):
    """The batch size in effect when kept order ``i`` (from 0) is added: the least power
    of two ``s`` with ``i // s < 2 BATCHES``."""
    s = 1
    while i // s >= 2 * BATCHES:
        s *= 2
    return s


def log_uniform(u):
    """``log(u + 2**-53)`` of a uniform ``u`` in ``[0, 1)``: finite, and exact in its
    argument (``u`` is a multiple of ``2**-53``); the log of an acceptance test."""
    return log64(u + _ULP)


def gibbs_pick(position_scores, beta, u):
    """The position drawn by a Gibbs step from the order scores ``S_j`` of each position:
    the first ``j`` (the last at most) with ``u W < W_j``, ``W_j`` the running sums in
    position order of ``exp64(beta (S_j - max S))`` (0 below ``exp(-708)``), which
    replace ``position_scores``."""
    n = position_scores.shape[0]
    top = position_scores[0]
    for j in range(1, n):
        top = max(top, position_scores[j])
    cumulative = 0.0
    for j in range(n):
        d = beta * (position_scores[j] - top)
        position_scores[j] = cumulative + (exp64(d) if d >= -708.0 else 0.0)
        cumulative = position_scores[j]
    target = u * cumulative
    j = 0
    while j < n - 1 and not target < position_scores[j]:
        j += 1
    return j


_FUNCTIONS = (proposal, apply_move, move_rescoring, batch_size, log_uniform, gibbs_pick)


# register(): callable from Numba's CPU code; register_cuda(), on the copy that
# tandem._twin.module("bn.order_moves") loads: from numba.cuda.jit code
register, register_cuda = core.registrars(_FUNCTIONS)
