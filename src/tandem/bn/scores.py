"""Local scores: log marginal likelihoods (or BIC) of one node given a parent set.

Discrete data (``Dataset.kind == "discrete"``), with ``N_jk`` the number of
rows where the parents are in configuration ``j`` (of ``q``) and the node in
state ``k`` (of ``r``), ``N_j = sum_k N_jk``:

* ``"bdeu"``: ``sum_j [lgamma(a/q) - lgamma(N_j + a/q)
  + sum_k (lgamma(N_jk + a/(q r)) - lgamma(a/(q r)))]``, with the equivalent
  sample size ``a = ess`` (default 1).
* ``"k2"``: ``sum_j [lgamma(r) - lgamma(N_j + r) + sum_k lgamma(N_jk + 1)]``
  (Cooper and Herskovits).
* ``"bic"``: ``sum_jk N_jk log(N_jk / N_j) - log(n) q (r - 1) / 2``.

``q`` counts every configuration of the parents' declared states (the
``arities``), observed or not. BDeu and BIC equal pgmpy's ``BDeu`` and
``BIC`` given the same state names. pgmpy's ``K2`` adds ``lgamma(r)`` for
each unobserved parent configuration as well, so it differs from this K2 by
``(q - q_observed) lgamma(r)`` when ``r > 2``.

Gaussian data: ``"bge"``, the score of Geiger and Heckerman with the
correction of Kuipers, Moffa and Heckerman (2014), parametrised as in
BiDAG: a normal-Wishart prior with mean ``0``, ``alpha_mu`` (default 1),
``alpha_w`` (default ``n_vars + alpha_mu + 1``) and ``T = t I`` with
``t = alpha_mu (alpha_w - n_vars - 1) / (alpha_mu + 1)``.

Every score of a parent set is the same number whatever the order of the
parents. The kernels are Numba functions that a parallel loop may call; they
read the data column by column.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numba import njit

#: The scores, discrete then Gaussian.
SCORES = ("bdeu", "k2", "bic", "bge")
DISCRETE_SCORES = ("bdeu", "k2", "bic")
GAUSSIAN_SCORES = ("bge",)

_DEFAULTS = {"bdeu": {"ess": 1.0}, "k2": {}, "bic": {}, "bge": {"alpha_mu": 1.0, "alpha_w": None}}
_ID = {"bdeu": 0, "k2": 1, "bic": 2, "bge": 3}


def check_score(data, score, settings):
    """``(score, settings)`` checked against ``data``, settings completed with defaults.

    A setting given as None takes its default (and is ignored by a score
    without it). Raises ``ValueError`` for an unknown score or one of the
    wrong kind for the data, ``TypeError`` for an unknown setting and
    ``ValueError`` for a bad value.
    """
    from .data import Dataset

    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a tandem.bn.Dataset, got {type(data).__name__}")
    if not isinstance(score, str) or score.lower() not in SCORES:
        raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}")
    score = score.lower()
    if data.kind == "discrete" and score in GAUSSIAN_SCORES:
        raise ValueError(f"score {score!r} is for Gaussian data, and these data are discrete; "
                         f"use one of {', '.join(DISCRETE_SCORES)}")
    if data.kind == "gaussian" and score in DISCRETE_SCORES:
        raise ValueError(f"score {score!r} is for discrete data, and these data are Gaussian; "
                         f"use 'bge'")
    out = dict(_DEFAULTS[score])
    for key, value in settings.items():
        if value is None and key in ("ess", "alpha_mu", "alpha_w"):
            continue  # None asks for the default, and is no error for a score without it
        if key not in out:
            allowed = ", ".join(out) or "none"
            raise TypeError(f"unknown setting {key!r} for score {score!r} (settings: {allowed})")
        out[key] = value
    for key, value in list(out.items()):
        if key == "alpha_w" and value is None:
            value = data.n_vars + out["alpha_mu"] + 1.0
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"{key} must be a real number, got {value!r}")
        value = float(value)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{key} must be positive and finite, got {value!r}")
        out[key] = value
    if score == "bge" and not out["alpha_w"] > data.n_vars - 1:
        raise ValueError(f"alpha_w must exceed n_vars - 1 = {data.n_vars - 1}, "
                         f"got {out['alpha_w']!r}")
    return score, out


class Scorer:
    """What the kernels need to score families of one data set: built by :func:`scorer`.

    ``family_score(*scorer.args, child, parents, n_parents, *scratch(scorer, k))``
    is the local score.
    """

    def __init__(self, data, score, settings):
        self.score, self.settings = check_score(data, score, settings)
        self.n_rows, self.n_vars = data.shape
        if data.kind == "discrete":
            columns = data.columns()
            arities = np.array(data.arities, dtype=np.int64)
            r = np.zeros((1, 1))
            log_n = math.log(data.n_rows)
            params = np.array([self.settings.get("ess", 1.0), log_n])
        else:
            columns = np.zeros((0, 0), dtype=np.uint8)
            arities = np.zeros(0, dtype=np.int64)
            r = bge_matrix(data.values, self.settings["alpha_mu"], self.settings["alpha_w"])
            params = bge_constants(data.n_rows, data.n_vars, self.settings["alpha_mu"],
                                   self.settings["alpha_w"])
        self.args = (np.int64(_ID[self.score]), columns, arities, r, params)


def scorer(data, score="bdeu", **settings):
    """A :class:`Scorer` for ``data`` (checks the score and its settings)."""
    return Scorer(data, score, settings)


def bge_matrix(x, alpha_mu, alpha_w):
    """The posterior matrix ``R = T + S + (N alpha_mu / (N + alpha_mu)) xbar xbar^T``.

    ``S`` is the scatter matrix about the column means ``xbar``, summed row by
    row in a fixed order (no BLAS), so ``R`` does not depend on the machine's
    linear algebra library or its threads.
    """
    n_vars = x.shape[1]
    t = alpha_mu * (alpha_w - n_vars - 1) / (alpha_mu + 1)
    return _bge_matrix(np.ascontiguousarray(x, dtype=np.float64), alpha_mu, t)


@njit(cache=True)
def _bge_matrix(x, alpha_mu, t):
    n_rows, n_vars = x.shape
    mean = np.zeros(n_vars)
    for i in range(n_rows):
        for a in range(n_vars):
            mean[a] += x[i, a]
    for a in range(n_vars):
        mean[a] /= n_rows
    r = np.zeros((n_vars, n_vars))
    centred = np.empty(n_vars)
    for i in range(n_rows):
        for a in range(n_vars):
            centred[a] = x[i, a] - mean[a]
        for a in range(n_vars):
            for b in range(a + 1):
                r[a, b] += centred[a] * centred[b]
    w = n_rows * alpha_mu / (n_rows + alpha_mu)
    for a in range(n_vars):
        for b in range(a + 1):
            r[a, b] += w * mean[a] * mean[b]
            r[b, a] = r[a, b]
        r[a, a] += t
    return r


def bge_constants(n_rows, n_vars, alpha_mu, alpha_w):
    """``(N, n_vars, alpha_mu, alpha_w, t)`` as the BGe kernel reads them."""
    t = alpha_mu * (alpha_w - n_vars - 1) / (alpha_mu + 1)
    return np.array([float(n_rows), float(n_vars), alpha_mu, alpha_w, t])


#: Counts up to this many rows get their lgamma differences cached across families.
MEMO_COUNTS = 512


def memo_alphas(scorer, max_parents):
    """The Dirichlet parameters that families of at most ``max_parents`` parents use, sorted.

    BDeu: ``ess / q`` and ``(ess / q) / r`` for every product ``q`` of at most
    ``max_parents`` arities and every arity ``r``, computed as the kernel does;
    K2: ``1`` and every arity. Empty for the other scores.
    """
    _, _, arities, _, params = scorer.args
    if scorer.score not in ("bdeu", "k2"):
        return np.zeros(0)
    distinct = sorted({int(a) for a in arities})
    if scorer.score == "k2":
        return np.array(sorted({1.0, *map(float, distinct)}))
    products = {(0, 1)}
    for a in arities:  # products of sub-multisets of the arities, by size
        products |= {(size + 1, p * int(a)) for size, p in products if size < max_parents}
    ess = float(params[0])
    values = set()
    for _, q in products:
        a_j = ess / q
        values.add(a_j)
        values.update(a_j / r for r in distinct)
    return np.array(sorted(values))


def scratch_sizes(scorer, max_parents):
    """``(cells, level rows, level length, side, memo rows, memo length)``: the shapes of one
    thread's scratch for families of at most ``max_parents`` parents (a bound over all
    families).

    A family is a child and at most ``max_parents`` other columns, so its
    cells (parent configurations times child states) are at most the product
    of the ``max_parents + 1`` largest arities: a column is never its own
    parent.
    """
    _, columns, arities, _, _ = scorer.args
    if scorer.score == "bge":
        return 0, 1, max_parents + 1, max_parents + 1, 0, 0
    top = sorted((int(a) for a in arities), reverse=True)
    cells = math.prod(top[:max_parents + 1])
    _check_cells(cells, max_parents)
    n_rows = columns.shape[1]
    n_alphas = len(memo_alphas(scorer, max_parents))
    return (cells, max_parents + 1, n_rows, 0, n_alphas,
            min(n_rows, MEMO_COUNTS) + 1 if n_alphas else 0)


def _check_cells(cells, n_parents):
    # Counts and configurations are int32.
    if cells > 2**31 - 1:
        raise ValueError(f"a family of {n_parents} parents can have {cells} cells "
                         f"(parent configurations times child states), more than 2**31 - 1; "
                         f"lower max_parents")


def scratch(scorer, max_parents):
    """One thread's scratch ``(counts, levels, work, memo)``: zeros, and NaN in ``memo``."""
    cells, rows, length, side, memo_rows, memo_length = scratch_sizes(scorer, max_parents)
    return (np.zeros(cells, dtype=np.int32), np.zeros((rows, length), dtype=np.int32),
            np.zeros((side, side)), np.full((memo_rows, memo_length), np.nan))


def scratch_bytes(scorer, max_parents):
    """The bytes of one thread's :func:`scratch`, computed without allocating it."""
    cells, rows, length, side, memo_rows, memo_length = scratch_sizes(scorer, max_parents)
    return 4 * (cells + rows * length) + 8 * (side * side + memo_rows * memo_length)


@njit(cache=True, nogil=True)
def _row(alphas, a):
    """The index of ``a`` in the sorted ``alphas``, or -1."""
    lo, hi = 0, alphas.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if alphas[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < alphas.shape[0] and alphas[lo] == a else -1


@njit(cache=True, nogil=True)
def _lgamma_ratio(memo, row, n, alpha):
    """``lgamma(n + alpha) - lgamma(alpha)``, cached in ``memo[row, n]`` (NaN: not yet).

    The value is the same whether it comes from the cache or not.
    """
    if row < 0 or n >= memo.shape[1]:
        return math.lgamma(n + alpha) - math.lgamma(alpha)
    v = memo[row, n]
    if math.isnan(v):
        v = math.lgamma(n + alpha) - math.lgamma(alpha)
        memo[row, n] = v
    return v


@njit(cache=True, nogil=True)
def config_level(columns, arities, parents, j, n_parents, levels):
    """Row ``j`` of the parent configurations: the mixed-radix number of parents ``j ..
    n_parents - 1``, parent ``j`` the least significant digit.

    ``levels[j] = levels[j + 1] * arity(parents[j]) + column(parents[j])``, so
    ``levels[0]`` is the configuration of every row, and a caller that changes
    only the first parents recomputes only the first rows.
    """
    column = columns[parents[j]]
    out = levels[j]
    if j == n_parents - 1:
        for t in range(out.shape[0]):
            out[t] = column[t]
    else:
        a = arities[parents[j]]
        up = levels[j + 1]
        for t in range(out.shape[0]):
            out[t] = up[t] * a + column[t]


@njit(cache=True, nogil=True)
def _term(score_id, counts, base, r, a_j, a_jk, memo, row_j, row_jk):
    """The score of one parent configuration (cells ``base .. base + r - 1``),
    zero if it is unobserved; zeroes its cells."""
    n_j = 0
    for k in range(r):
        n_j += counts[base + k]
    if n_j == 0:
        return 0.0
    s = 0.0
    if score_id == 2:
        log_n_j = math.log(n_j)
        for k in range(r):
            n_jk = counts[base + k]
            if n_jk > 0:
                s += n_jk * (math.log(n_jk) - log_n_j)
                counts[base + k] = 0
        return s
    s -= _lgamma_ratio(memo, row_j, n_j, a_j)
    for k in range(r):
        n_jk = counts[base + k]
        if n_jk > 0:
            s += _lgamma_ratio(memo, row_jk, n_jk, a_jk)
            counts[base + k] = 0
    return s


@njit(cache=True, nogil=True)
def score_counts(score_id, arities, params, child, q, config, counts, memo, alphas):
    """The discrete score of ``child`` from its counts: ``counts[c * r + x]`` rows with
    parent configuration ``c`` (of ``q``; ``config`` per row) and child state ``x``.

    Leaves ``counts`` zero. ``memo`` caches lgamma differences for the
    parameters in ``alphas`` (none when ``alphas`` is empty).
    """
    r = arities[child]
    n_rows = config.shape[0]
    if score_id == 0:
        a_j = params[0] / q
        a_jk = a_j / r
    else:
        a_j = float(r)
        a_jk = 1.0
    row_j = _row(alphas, a_j)
    row_jk = _row(alphas, a_jk)
    s = 0.0
    if q * r <= n_rows:
        for c in range(q):
            s += _term(score_id, counts, c * r, r, a_j, a_jk, memo, row_j, row_jk)
    else:
        # Few rows for many cells: visit the observed configurations only,
        # in order of first appearance (a visited one reads as unobserved).
        for t in range(n_rows):
            s += _term(score_id, counts, config[t] * r, r, a_j, a_jk, memo, row_j, row_jk)
    if score_id == 2:
        s -= 0.5 * params[1] * q * (r - 1)
    return s


@njit(cache=True, nogil=True)
def _discrete(score_id, columns, arities, params, child, parents, n_parents, counts, levels,
              memo, alphas):
    q = 1
    for j in range(n_parents - 1, -1, -1):
        config_level(columns, arities, parents, j, n_parents, levels)
        q *= arities[parents[j]]
    # the last row of levels is never written: the configuration of no parents
    config = levels[0] if n_parents > 0 else levels[levels.shape[0] - 1]
    r = arities[child]
    x = columns[child]
    for t in range(x.shape[0]):
        counts[config[t] * r + x[t]] += 1
    return score_counts(score_id, arities, params, child, q, config, counts, memo, alphas)


@njit(cache=True, nogil=True)
def _log_det(r, index, size, work):
    """log det of ``r[index[:size]][:, index[:size]]`` by Cholesky (positive definite)."""
    for a in range(size):
        for b in range(size):
            work[a, b] = r[index[a], index[b]]
    total = 0.0
    for j in range(size):
        d = work[j, j]
        for p in range(j):
            d -= work[j, p] * work[j, p]
        d = math.sqrt(d)
        work[j, j] = d
        total += math.log(d)
        for i in range(j + 1, size):
            v = work[i, j]
            for p in range(j):
                v -= work[i, p] * work[j, p]
            work[i, j] = v / d
    return 2.0 * total


@njit(cache=True, nogil=True)
def _bge(r, params, child, parents, n_parents, family, work):
    n_rows, n_vars, alpha_mu, alpha_w, t = params[0], params[1], params[2], params[3], params[4]
    ell = n_parents
    c = n_rows + alpha_w - n_vars
    s = (0.5 * (math.log(alpha_mu) - math.log(n_rows + alpha_mu))
         + math.lgamma(0.5 * (c + ell + 1)) - math.lgamma(0.5 * (alpha_w - n_vars + ell + 1))
         - 0.5 * n_rows * math.log(math.pi)
         + 0.5 * (alpha_w - n_vars + 2 * ell + 1) * math.log(t))
    for j in range(n_parents):
        family[j] = parents[j]
    family[n_parents] = child
    if n_parents > 0:
        s += 0.5 * (c + ell) * _log_det(r, family, n_parents, work)
    s -= 0.5 * (c + ell + 1) * _log_det(r, family, n_parents + 1, work)
    return s


@njit(cache=True, nogil=True)
def family_score(score_id, columns, arities, r, params, child, parents, n_parents, counts,
                 levels, work, memo, alphas):
    """The local score of ``child`` given ``parents[:n_parents]`` (see the module docstring).

    ``counts``, ``levels``, ``work`` and ``memo`` are one thread's scratch
    (:func:`scratch`), ``alphas`` is :func:`memo_alphas`; ``counts`` is zero
    on entry and left zero on return.
    """
    if score_id == 3:
        return _bge(r, params, child, parents, n_parents, levels[0], work)
    return _discrete(score_id, columns, arities, params, child, parents, n_parents, counts,
                     levels, memo, alphas)


def _node(data, node, what):
    try:
        return data.index(node)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{what}: {e}") from None


def local_score(data, node, parents=(), score="bdeu", **settings):
    """The local score of ``node`` given ``parents`` in ``data``.

    Parameters
    ----------
    data : Dataset
    node : str or int
        A column name or index.
    parents : iterable of str or int
        Distinct columns other than ``node``; their order does not matter.
    score : {"bdeu", "k2", "bic", "bge"}
        See the module docstring; a Gaussian score on discrete data, or the
        reverse, raises ``ValueError``.
    **settings
        ``ess`` for BDeu; ``alpha_mu`` and ``alpha_w`` for BGe.

    Returns
    -------
    float
    """
    s = Scorer(data, score, settings)
    i = _node(data, node, "node")
    if isinstance(parents, (str, bytes)) or not hasattr(parents, "__iter__"):
        raise TypeError("parents must be an iterable of column names or indices")
    ps = [_node(data, p, "parents") for p in parents]
    if i in ps:
        raise ValueError(f"node {data.names[i]!r} cannot be its own parent")
    if len(set(ps)) != len(ps):
        raise ValueError("parents has a repeated column")
    ps = np.array(sorted(ps), dtype=np.int64)
    n_rows = s.args[1].shape[1]
    side = len(ps) + 1
    arities = s.args[2]
    if s.score == "bge":
        counts, levels, work = np.zeros(0, np.int32), np.zeros((1, side), np.int32), np.zeros(
            (side, side))
    else:
        # this family's cells only; no lgamma cache (a cached value equals a fresh one)
        q = math.prod(int(a) for a in arities[ps])
        _check_cells(q * int(arities[i]), len(ps))
        counts = np.zeros(q * int(arities[i]), dtype=np.int32)
        levels, work = np.zeros((side, n_rows), np.int32), np.zeros((0, 0))
    return float(family_score(*s.args, np.int64(i), ps, np.int64(len(ps)), counts, levels,
                              work, np.zeros((0, 0)), np.zeros(0)))


__all__ = [
    "DISCRETE_SCORES",
    "GAUSSIAN_SCORES",
    "SCORES",
    "Scorer",
    "check_score",
    "family_score",
    "local_score",
    "scorer",
]
