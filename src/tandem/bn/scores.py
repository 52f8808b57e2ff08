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
parents, and the same bits on every machine and device: the arithmetic is
the contract's (:mod:`tandem.bn.terms`, with :func:`tandem.core.lgamma64`
and :func:`tandem.core.log64`, no libm). The kernels are Numba functions
that a parallel loop may call; they read the data column by column.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from ..core.fmath import log64, product
from ..core.special import lgamma64
from .. import core
from . import terms
from .data import Dataset

terms.register()

#: The names of the scores, discrete (``"bdeu"``, ``"k2"``, ``"bic"``) then
#: Gaussian (``"bge"``), as :func:`tandem.bn.local_score` and
#: :func:`tandem.bn.score_table` take them.
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

    ``args`` is ``(score_id, columns, arities, rmat, params, consts)``: for
    discrete data the columns (``(n_vars, n_rows)``), the arities and
    ``params = (ess, log64(n_rows))``; for Gaussian data the posterior matrix
    ``rmat`` and the constants of :func:`bge_constants`.
    ``family_score(*scorer.args, child, parents, n_parents, *scratch(scorer, k),
    *scorer.tables(k))`` is the local score.
    """

    def __init__(self, data, score, settings):
        self.score, self.settings = check_score(data, score, settings)
        self.n_rows, self.n_vars = data.shape
        params = np.zeros(2)
        consts = np.zeros((0, 3))
        if data.kind == "discrete":
            columns = data.columns()
            arities = np.array(data.arities, dtype=np.int64)
            rmat = np.zeros((1, 1))
            params[:] = self.settings.get("ess", 1.0), log64(np.float64(max(data.n_rows, 1)))
        else:
            columns = np.zeros((0, 0), dtype=np.uint8)
            arities = np.zeros(0, dtype=np.int64)
            rmat = bge_matrix(data.values, self.settings["alpha_mu"], self.settings["alpha_w"])
            consts = bge_constants(data.n_rows, data.n_vars, self.settings["alpha_mu"],
                                   self.settings["alpha_w"])
        self.args = (np.int64(_ID[self.score]), columns, arities, rmat, params, consts)
        self._tables = {}

    def tables(self, max_parents):
        """``(alphas, ratios, logs)`` for families of at most ``max_parents`` parents:
        the Dirichlet parameters those use (:func:`memo_alphas`), the table of
        :func:`ratio_table` over them, and ``log64`` of the counts (BIC). Made once
        per ``max_parents``; read-only, shared by every thread."""
        if max_parents not in self._tables:
            alphas = memo_alphas(self, max_parents)
            counts = table_counts(len(alphas), self.n_rows)
            logs = (log_table(self.n_rows + 1) if self.score == "bic"
                    else np.zeros(1))
            self._tables[max_parents] = (alphas, ratio_table(alphas, counts), logs)
        return self._tables[max_parents]


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
    """``consts[l] = (c0, c1, c2)`` for parent sets of ``l = 0 .. n_vars - 1`` nodes: the BGe
    score is ``c0 + c1 log det R_P + c2 log det R_{P + child}``
    (:func:`tandem.bn.terms.bge_score`), with ``c = N + alpha_w - n_vars``,

    ``c0 = (log alpha_mu - log(N + alpha_mu)) / 2 + lgamma((c + l + 1) / 2)
    - lgamma((alpha_w - n_vars + l + 1) / 2) - N log(pi) / 2
    + (alpha_w - n_vars + 2 l + 1) log(t) / 2``, ``c1 = (c + l) / 2``,
    ``c2 = -(c + l + 1) / 2``,

    each in the contract's arithmetic (``log64``, ``lgamma64``, no fused
    products), left to right."""
    t = alpha_mu * (alpha_w - n_vars - 1) / (alpha_mu + 1)
    consts = np.empty((max(n_vars, 1), 3))
    c = n_rows + alpha_w - n_vars
    half_log_ratio = 0.5 * (log64(np.float64(alpha_mu)) - log64(np.float64(n_rows + alpha_mu)))
    log_pi_term = product(0.5 * n_rows, log64(np.float64(math.pi)))
    log_t = log64(np.float64(t))
    for ell in range(consts.shape[0]):
        s = half_log_ratio + lgamma64(np.float64(0.5 * (c + ell + 1)))
        s = s - lgamma64(np.float64(0.5 * (alpha_w - n_vars + ell + 1)))
        s = s - log_pi_term
        s = s + product(0.5 * (alpha_w - n_vars + 2 * ell + 1), log_t)
        consts[ell] = s, 0.5 * (c + ell), -0.5 * (c + ell + 1)
    return consts


#: The count tables hold at most this many entries (8 MiB): beyond, counts past
#: ``table_counts`` are computed as they come (the same values).
TABLE_ENTRIES = 1 << 20


def table_counts(n_alphas, n_rows):
    """The counts ``0 .. table_counts - 1`` that :func:`ratio_table` covers: every count
    of ``n_rows`` rows where :data:`TABLE_ENTRIES` allows, at least 64."""
    return int(min(n_rows + 1, max(64, TABLE_ENTRIES // max(n_alphas, 1))))


def memo_alphas(scorer, max_parents):
    """The Dirichlet parameters that families of at most ``max_parents`` parents use, sorted.

    BDeu: ``ess / q`` and ``(ess / q) / r`` for every product ``q`` of at most
    ``max_parents`` arities and every arity ``r``, computed as the kernel does;
    K2: ``1`` and every arity. Empty for the other scores.
    """
    _, _, arities, _, params, _ = scorer.args
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
    """``(cells, level rows, level length, side)``: the shapes of one thread's scratch for
    families of at most ``max_parents`` parents (a bound over all families).

    A family is a child and at most ``max_parents`` other columns, so its
    cells (parent configurations times child states) are at most the product
    of the ``max_parents + 1`` largest arities: a column is never its own
    parent.
    """
    _, columns, arities, _, _, _ = scorer.args
    if scorer.score == "bge":
        return 0, 1, max_parents + 1, max_parents + 1
    top = sorted((int(a) for a in arities), reverse=True)
    cells = math.prod(top[:max_parents + 1])
    _check_cells(cells, max_parents)
    return cells, max_parents + 2, columns.shape[1], 0


def _check_cells(cells, n_parents):
    # Counts and configurations are int32.
    if cells > 2**31 - 1:
        raise ValueError(f"a family of {n_parents} parents can have {cells} cells "
                         f"(parent configurations times child states), more than 2**31 - 1; "
                         f"lower max_parents")


def scratch(scorer, max_parents):
    """One thread's scratch ``(counts, levels, work)``: zeros."""
    cells, rows, length, side = scratch_sizes(scorer, max_parents)
    return (np.zeros(cells, dtype=np.int32), np.zeros((rows, length), dtype=np.int32),
            np.zeros((side, side)))


def scratch_bytes(scorer, max_parents):
    """The bytes of one thread's :func:`scratch`, computed without allocating it."""
    cells, rows, length, side = scratch_sizes(scorer, max_parents)
    return 4 * (cells + rows * length) + 8 * side * side


def table_bytes(scorer, max_parents):
    """The bytes of :meth:`Scorer.tables`, computed without making them."""
    n_alphas = len(memo_alphas(scorer, max_parents))
    logs = scorer.n_rows + 1 if scorer.score == "bic" else 1
    return 8 * (n_alphas * (1 + table_counts(n_alphas, scorer.n_rows)) + logs)


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
def count_family(columns, arities, parents, n_parents, child, levels, counts):
    """Count the rows of the family into ``counts[config * r + state]``; returns
    ``(q, config)``, the configurations' number and each row's (a row of ``levels``;
    the next-to-last row serves when there are no parents: it stays zero)."""
    q = 1
    for j in range(n_parents - 1, -1, -1):
        config_level(columns, arities, parents, j, n_parents, levels)
        q *= arities[parents[j]]
    config = levels[0] if n_parents > 0 else levels[levels.shape[0] - 2]
    r = arities[child]
    x = columns[child]
    for t in range(x.shape[0]):
        counts[config[t] * r + x[t]] += 1
    return q, config


def _contract_kernels(digest):
    """The kernels that compute with :mod:`tandem.bn.terms` and :mod:`tandem.core`.

    ``digest`` (their sources' :func:`tandem.core.source_digest`) is in each
    one's closure, which keys Numba's disk cache, so that a change there
    compiles them again.  They call one another by their module names.
    """

    @njit(cache=True)
    def make_ratio_table(alphas, counts):
        """``table[i, n] = lgamma64(n + alphas[i]) - lgamma64(alphas[i])`` for ``n < counts``."""
        table = np.empty((alphas.shape[0], counts + (digest & 0)))
        for i in range(alphas.shape[0]):
            base = lgamma64(alphas[i])
            for n in range(counts):
                table[i, n] = lgamma64(n + alphas[i]) - base
        return table

    @njit(cache=True)
    def make_log_table(counts):
        """``logs[n] = log64(n)`` for ``1 <= n < counts`` (``logs[0] = 0``, unused)."""
        logs = np.zeros(max(counts, 1) + (digest & 0))
        for n in range(1, counts):
            logs[n] = log64(np.float64(n))
        return logs

    @njit(cache=True, nogil=True)
    def observed_term(score_id, counts, base, r, a_j, a_jk, row_j, row_jk, ratios, logs):
        """:func:`tandem.bn.terms.config_term` of the configuration at ``base`` if it is
        observed, else 0; zeroes its cells."""
        n_j = digest & 0
        for x in range(r):
            n_j += counts[base + x]
        if n_j == 0:
            return 0.0
        t = terms.config_term(score_id, counts, base, r, n_j, a_j, a_jk, row_j, row_jk, ratios,
                              logs)
        for x in range(r):
            counts[base + x] = 0
        return t

    @njit(cache=True, nogil=True)
    def counts_score(score_id, arities, params, child, q, config, counts, order, alphas, ratios,
                     logs):
        """The discrete score of ``child`` from its counts: ``counts[c * r + x]`` rows with
        parent configuration ``c`` (of ``q``; ``config`` per row) and child state ``x``.

        Sums :func:`tandem.bn.terms.config_term` over the observed configurations
        in ascending order (the contract, :mod:`tandem.bn.terms`). Leaves
        ``counts`` zero; ``order`` is scratch of ``config``'s length, and
        ``(alphas, ratios, logs)`` are :meth:`Scorer.tables`.
        """
        r = arities[child]
        n_rows = config.shape[0] + (digest & 0)
        a_j, a_jk = terms.dirichlet(score_id, params[0], q, r)
        row_j = terms.alpha_row(alphas, a_j)
        row_jk = terms.alpha_row(alphas, a_jk)
        s = 0.0
        if q * r <= n_rows:
            for c in range(q):
                s += _observed_term(score_id, counts, c * r, r, a_j, a_jk, row_j, row_jk,
                                    ratios, logs)
        else:
            # Few rows for many cells: the observed configurations only, sorted (a
            # configuration seen again reads as unobserved, its cells zeroed).
            for t in range(n_rows):
                order[t] = config[t]
            order[:n_rows].sort()
            for t in range(n_rows):
                s += _observed_term(score_id, counts, order[t] * r, r, a_j, a_jk, row_j, row_jk,
                                    ratios, logs)
        if score_id == terms.BIC:
            s -= terms.bic_penalty(params[1], q, r)
        return s

    @njit(cache=True, nogil=True)
    def local_family_score(score_id, columns, arities, rmat, params, consts, child, parents,
                           n_parents, counts, levels, work, alphas, ratios, logs):
        """The local score of ``child`` given ``parents[:n_parents]`` (see the module
        docstring).

        ``counts``, ``levels`` and ``work`` are one thread's scratch
        (:func:`scratch`), ``(alphas, ratios, logs)`` are :meth:`Scorer.tables`;
        ``counts`` is zero on entry and left zero on return.
        """
        if score_id == terms.BGE + (digest & 0):
            return terms.bge_score(consts, rmat, child, parents, n_parents, levels[0], work)
        q, config = count_family(columns, arities, parents, n_parents, child, levels, counts)
        return score_counts(score_id, arities, params, child, q, config, counts,
                            levels[levels.shape[0] - 1], alphas, ratios, logs)

    return make_ratio_table, make_log_table, observed_term, counts_score, local_family_score


(ratio_table, log_table, _observed_term, score_counts, family_score) = _contract_kernels(
    core.source_digest(__file__, terms.__file__))


def _node(data, node, what):
    try:
        return data.index(node)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{what}: {e}") from None


def local_score(data: Dataset, node: str | int, parents: Sequence[str | int] = (),
                score: str = "bdeu", **settings: Any) -> float:
    """The local score of ``node`` given ``parents`` in ``data``.

    Parameters
    ----------
    data : Dataset
        Discrete data for ``"bdeu"``, ``"k2"`` and ``"bic"``, Gaussian data
        for ``"bge"``.
    node : str or int
        A column name or index.
    parents : iterable of str or int, default ()
        Distinct columns other than ``node``; their order does not matter.
    score : {"bdeu", "k2", "bic", "bge"}
        See the module docstring; a Gaussian score on discrete data, or the
        reverse, raises ``ValueError``.
    **settings
        ``ess`` for BDeu (default 1); ``alpha_mu`` (default 1) and
        ``alpha_w`` (default ``n_vars + alpha_mu + 1``) for BGe. None takes
        the default.

    Returns
    -------
    float
        The log marginal likelihood (BDeu, K2, BGe) or BIC of the family:
        the same number whatever the order of ``parents``, and the same bits
        on every machine, as in :func:`tandem.bn.score_table`.

    Raises
    ------
    ValueError
        For an unknown score or one of the wrong kind for the data, a bad
        setting value, an unknown column, ``node`` among its parents, or a
        repeated parent.
    TypeError
        For an unknown setting, or ``parents`` that is not an iterable of
        columns.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> round(bn.local_score(data, "lung"), 3), round(bn.local_score(data, "lung", ["smoke"]), 3)
    (-50.981, -50.167)
    >>> round(bn.local_score(data, "lung", ["smoke"], score="bic"), 3)
    -50.18
    >>> bn.local_score(data, "either", ["lung", "tub"]) == bn.local_score(data, "either", [1, 3])
    True
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
        # this family's cells only; no count tables (a table's value equals a fresh one)
        q = math.prod(int(a) for a in arities[ps])
        _check_cells(q * int(arities[i]), len(ps))
        counts = np.zeros(q * int(arities[i]), dtype=np.int32)
        levels, work = np.zeros((side + 1, n_rows), np.int32), np.zeros((0, 0))
    return float(family_score(*s.args, np.int64(i), ps, np.int64(len(ps)), counts, levels,
                              work, np.zeros(0), np.zeros((0, 0)), np.zeros(1)))


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
