"""Local scores from counts: the one definition that the CPU and CUDA table kernels share.

Plain Python on scalars and arrays, in the contract's arithmetic (no libm:
:func:`tandem.core.lgamma64` and :func:`tandem.core.log64`; a product feeds
a sum only through an explicit :func:`tandem.core.fma`; sums in a fixed
order), so that a table computed by :mod:`tandem.bn.table` on the CPU and by
:mod:`tandem.bn.cuda_table` on a GPU is the same bit for bit.  The CPU
kernels call these functions through Numba's CPU target
(:func:`register`); the CUDA kernels call a second copy of this module,
registered with numba-cuda alone (see :mod:`tandem._twin`).

A discrete score is the sum over the parent configurations ``j`` with
``N_j > 0``, **in ascending order of ``j``** (the mixed-radix number of the
parents' states, the first parent the least significant digit), of
:func:`config_term`; BIC then subtracts :func:`bic_penalty`.  A BGe score is
:func:`bge_score`.

Guaranteed across versions from 0.4 on: each function's value for each
input, so that a score table is the same on every machine.
"""

import math

import numpy as np

from .. import core
from ..core.fmath import fma, log64, product
from ..core.special import lgamma64

#: Score identifiers, as the kernels take them.
BDEU, K2, BIC, BGE = 0, 1, 2, 3


def dirichlet(score_id, ess, q, r):
    """``(a_j, a_jk)``: the Dirichlet parameters of a configuration and of a cell, for a
    family of ``q`` parent configurations and ``r`` child states.

    BDeu: ``(ess / q, (ess / q) / r)``; K2: ``(r, 1)``; unused by BIC.
    """
    if score_id == BDEU:
        a_j = ess / q
        return a_j, a_j / r
    return np.float64(r), np.float64(1.0)


def alpha_row(alphas, a):
    """The index of ``a`` in the sorted ``alphas`` (the rows of the ratio table), or -1."""
    lo, hi = 0, alphas.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if alphas[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < alphas.shape[0] and alphas[lo] == a else -1


def lgamma_ratio(ratios, row, n, alpha):
    """``lgamma64(n + alpha) - lgamma64(alpha)``: ``ratios[row, n]`` where the table
    holds it (``row >= 0``; see :func:`tandem.bn.scores.ratio_table`), computed
    otherwise: the same value either way."""
    if row >= 0 and n < ratios.shape[1]:
        return ratios[row, n]
    return lgamma64(n + alpha) - lgamma64(alpha)


def count_log(logs, n):
    """``log64(n)`` of a positive count: ``logs[n]`` where the table holds it."""
    if n < logs.shape[0]:
        return logs[n]
    return log64(np.float64(n))


def config_term(score_id, counts, base, r, n_j, a_j, a_jk, row_j, row_jk, ratios, logs):
    """The score of one observed parent configuration: its child counts are
    ``counts[base .. base + r - 1]``, their sum ``n_j > 0``.

    * BDeu and K2: ``0 - R(n_j, a_j) + R(n_j0, a_jk) + ... `` over the cells with a
      positive count, left to right, ``R`` being :func:`lgamma_ratio`;
    * BIC: ``t = fma(n_jk, log n_jk - log n_j, t)`` over those cells, from ``t = 0``.
    """
    t = 0.0
    if score_id == BIC:
        log_n_j = count_log(logs, n_j)
        for x in range(r):
            n = counts[base + x]
            if n > 0:
                t = fma(np.float64(n), count_log(logs, n) - log_n_j, t)
        return t
    t -= lgamma_ratio(ratios, row_j, n_j, a_j)
    for x in range(r):
        n = counts[base + x]
        if n > 0:
            t += lgamma_ratio(ratios, row_jk, n, a_jk)
    return t


def bic_penalty(log_n, q, r):
    """BIC's ``log(n) q (r - 1) / 2``, rounded as ``((log_n / 2) q) (r - 1)``."""
    return product(product(0.5 * log_n, np.float64(q)), np.float64(r - 1))


def log_det(rmat, index, size, work):
    """``log det`` of ``rmat[index[:size]][:, index[:size]]`` (positive definite) by
    Cholesky in ``work``, its updates as fused multiply-adds: twice the sum of the
    logs of the pivots, in order."""
    for a in range(size):
        for b in range(size):
            work[a, b] = rmat[index[a], index[b]]
    total = 0.0
    for j in range(size):
        d = work[j, j]
        for p in range(j):
            d = fma(-work[j, p], work[j, p], d)
        d = math.sqrt(d)
        work[j, j] = d
        total += log64(d)
        for i in range(j + 1, size):
            v = work[i, j]
            for p in range(j):
                v = fma(-work[i, p], work[j, p], v)
            work[i, j] = v / d
    return 2.0 * total


def bge_score(consts, rmat, child, parents, n_parents, family, work):
    """The BGe score of ``child`` given ``parents[:n_parents]``:
    ``c0 + c1 log det R_P + c2 log det R_{P + child}``, with ``(c0, c1, c2) =
    consts[n_parents]`` (:func:`tandem.bn.scores.bge_constants`) and ``R`` the
    posterior matrix; ``family`` and ``work`` are scratch of ``n_parents + 1``."""
    for j in range(n_parents):
        family[j] = parents[j]
    family[n_parents] = child
    s = consts[n_parents, 0]
    if n_parents > 0:
        s = fma(consts[n_parents, 1], log_det(rmat, family, n_parents, work), s)
    return fma(consts[n_parents, 2], log_det(rmat, family, n_parents + 1, work), s)


_FUNCTIONS = (dirichlet, alpha_row, lgamma_ratio, count_log, config_term, bic_penalty, log_det,
              bge_score)


# register(): callable from Numba's CPU code; register_cuda(), on the copy that
# tandem._twin.module("bn.terms") loads: from numba.cuda.jit code
register, register_cuda = core.registrars(_FUNCTIONS)
