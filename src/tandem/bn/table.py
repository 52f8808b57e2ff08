"""Score tables: the local score of every node with every parent set of at most ``k`` nodes.

Node ``i`` may take its parents from its candidates ``candidates[i, :m]``
(all other nodes unless restricted). Its parent sets are the subsets of
``range(m)`` of size at most ``k`` in the order of the combinatorial number
system (:mod:`tandem.bn.combinations`): ``scores[i, r]`` is the local score of
node ``i`` given ``{candidates[i, p] for p in unrank(r, m, k)}``. A node with
fewer than ``m`` candidates has its row padded with ``-1``, and the sets that
use a padded slot score ``-inf``.

The table is computed by a ``numba`` parallel loop over (node, rank) pairs,
chunk by chunk so that a progress bar can advance; each entry is exactly
:func:`tandem.bn.local_score` of its set, whatever the number of threads.
"""

from __future__ import annotations

import hashlib
import numbers
import os
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .. import _progress
from . import combinations
from .scores import (
    Scorer,
    config_level,
    family_score,
    memo_alphas,
    score_counts,
    scratch_sizes,
)

#: Fraction of the available memory that a table may take by default.
MEMORY_FRACTION = 0.5

#: The fewest (node, set) entries per call of the parallel kernel, between
#: two advances of the progress bar (at most 100 calls otherwise).
MIN_CHUNK = 1 << 14


class ScoreTableMemoryError(MemoryError, ValueError):
    """The table would not fit in ``memory_limit``: lower ``max_parents`` or restrict ``candidates``."""


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Local scores of every node with every parent set of at most ``max_parents`` candidates.

    Attributes
    ----------
    scores : numpy.ndarray of float64, shape (n_nodes, n_sets)
        ``scores[i, r]`` is the local score of node ``i`` given the parent set
        ``{candidates[i, p] for p in combinations.unrank(r, m, max_parents)}``;
        ``-inf`` where the set uses a padded (``-1``) candidate slot.
    candidates : numpy.ndarray of int32, shape (n_nodes, m)
        The candidate parents of each node, ascending, never the node itself,
        padded at the end with ``-1``.
    max_parents : int
        ``k``, the largest parent set.
    names : tuple of str
        The node names (the data set's columns).
    score : str
        ``"bdeu"``, ``"k2"``, ``"bic"`` or ``"bge"``.
    settings : dict
        The score's settings, defaults filled in (e.g. ``{"ess": 1.0}``).
    excluded : dict
        ``{node name: [names of the nodes it may not take as parents]}`` for
        every node whose candidates were restricted; ``{}`` when none were.
    n_rows : int
        The number of rows of the data.
    fingerprint : str
        SHA-256 (hex) of the data, the score, its settings, ``max_parents``
        and ``candidates``: equal fingerprints mean equal tables.
    """

    scores: np.ndarray
    candidates: np.ndarray
    max_parents: int
    names: tuple
    score: str
    settings: dict
    excluded: dict
    n_rows: int
    fingerprint: str

    @property
    def n_nodes(self):
        return self.scores.shape[0]

    @property
    def n_sets(self):
        return self.scores.shape[1]

    @property
    def m(self):
        """The number of candidate slots per node."""
        return self.candidates.shape[1]

    def parent_set(self, node, r):
        """The parents (node indices, ascending) that rank ``r`` stands for at ``node``.

        Raises ``ValueError`` when the set uses a padded slot.
        """
        positions = combinations.unrank(r, self.m, self.max_parents)
        parents = self.candidates[node, positions]
        if (parents < 0).any():
            raise ValueError(f"rank {r} uses a padded candidate slot of node {node}")
        return tuple(int(p) for p in parents)

    def rank(self, node, parents):
        """The rank of the parent set ``parents`` (node indices) at ``node``.

        Raises ``ValueError`` if a parent is not a candidate of ``node`` or
        there are more than ``max_parents``.
        """
        row = list(self.candidates[node])
        try:
            positions = sorted(row.index(int(p)) for p in parents)
        except ValueError:
            raise ValueError(f"a parent in {tuple(parents)} is not a candidate of node "
                             f"{self.names[node]!r}") from None
        if len(positions) > self.max_parents:
            raise ValueError(f"{len(positions)} parents exceed max_parents={self.max_parents}")
        return int(combinations.rank(np.array(positions, dtype=np.int64), self.m))


def available_memory():
    """Bytes of memory available now: MemAvailable from /proc/meminfo, else ``os.sysconf``."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def estimate_bytes(data, *, score="bdeu", max_parents=3, m=None, **settings):
    """The bytes :func:`score_table` will hold at its peak: table, candidates, data copy, scratch.

    ``m`` is the number of candidate slots per node (default ``n_vars - 1``).
    """
    s = Scorer(data, score, settings)
    k = _check_k(max_parents)
    return _estimate(s, data, k, data.n_vars - 1 if m is None else m, _blocks())


def _blocks():
    return 4 * numba.get_num_threads()


def _estimate(s, data, k, m, n_blocks):
    sets = combinations.n_sets(m, k)
    table = 8 * data.n_vars * sets
    side = 4 * data.n_vars * m + data.values.nbytes
    # Each running block allocates its scratch, each block keeps its lgamma cache.
    try:
        cells, rows, length, width, memo_rows, memo_length = scratch_sizes(s, min(k, m))
    except ValueError:  # families too large for int32 counts: beyond any memory anyway
        return table + side + numba.get_num_threads() * 4 * 2**31
    running = 4 * (cells + rows * length) + 8 * width * width + 16 * (k + 1)
    memo = 8 * memo_rows * memo_length
    return table + side + numba.get_num_threads() * running + n_blocks * memo


def _check_k(max_parents):
    if isinstance(max_parents, (bool, np.bool_)) or not isinstance(max_parents, numbers.Integral):
        raise TypeError(f"max_parents must be an integer, got {max_parents!r}")
    if max_parents < 0:
        raise ValueError(f"max_parents must be non-negative, got {max_parents}")
    return int(max_parents)


def _gib(n):
    return f"{n / 2**30:.3g} GiB"


@njit(cache=True, nogil=True)
def _next_subset(positions, size, m):
    """Advance ``positions[:size]`` to the subset of the next rank.

    Returns ``(new size, j)``: positions ``j + 1 ..`` are unchanged, or ``j =
    new size`` when the size grew (all changed).
    """
    j = 0
    while j < size - 1 and positions[j] + 1 == positions[j + 1]:
        j += 1
    if size == 0 or (j == size - 1 and positions[j] + 1 == m):
        # the last subset of this size: go to the first of the next size
        for i in range(size + 1):
            positions[i] = i
        return size + 1, size + 1
    positions[j] += 1
    for i in range(j):
        positions[i] = i
    return size, j


@njit(parallel=True, cache=True)
def _fill(score_id, columns, arities, r, params, candidates, k, sets, start, stop, out,
          n_cells, n_levels, n_length, side, memos, alphas):
    m = candidates.shape[1]
    total = stop - start
    n_blocks = memos.shape[0]
    for b in prange(n_blocks):
        lo = start + total * b // n_blocks
        hi = start + total * (b + 1) // n_blocks
        if lo >= hi:
            continue
        counts = np.zeros(n_cells, dtype=np.int32)
        # rows are written before they are read, except the last: no parents' configuration
        levels = np.empty((n_levels, n_length), dtype=np.int32)
        levels[n_levels - 1] = 0
        work = np.zeros((side, side))
        memo = memos[b]  # kept from chunk to chunk: block b runs on one thread at a time
        positions = np.zeros(k + 1, dtype=np.int64)
        parents = np.zeros(k + 1, dtype=np.int64)
        node = lo // sets
        size = combinations.unrank_into(lo - node * sets, m, k, positions)
        changed = size  # levels 0 .. changed - 1 are stale (all of them here)
        for item in range(lo, hi):
            rank = item - node * sets
            if rank == sets:  # the next node starts at the empty set
                node += 1
                size = 0
                changed = 0
            elif item > lo:
                size, j = _next_subset(positions, size, m)
                changed = max(changed, min(j + 1, size))
            padded = False
            q = 1
            for j in range(size):
                p = candidates[node, positions[j]]
                if p < 0:
                    padded = True
                else:
                    parents[j] = p
                    q *= arities[p]
            if padded:
                out[item] = -np.inf
                changed = size
                continue
            if score_id == 3:
                out[item] = family_score(score_id, columns, arities, r, params, node, parents,
                                         size, counts, levels, work, memo, alphas)
                continue
            # The parents past the first `changed` are those of the previous set:
            # their rows of `levels` still hold, recompute only the others; the
            # first row (always stale) is computed as the rows are counted.
            for j in range(changed - 1, -1, -1):
                config_level(columns, arities, parents, j, size, levels)
            changed = 0
            x = columns[node]
            r_child = arities[node]
            config = levels[0] if size > 0 else levels[n_levels - 1]
            for t in range(x.shape[0]):
                counts[config[t] * r_child + x[t]] += 1
            out[item] = score_counts(score_id, arities, params, node, q, config, counts, memo,
                                     alphas)


def _scratch_args(s, k, n_blocks):
    """The scratch shapes that ``_fill`` allocates per block, each block's lgamma cache and
    the parameters it caches."""
    cells, rows, length, side, memo_rows, memo_length = scratch_sizes(s, k)
    memos = np.full((n_blocks, memo_rows, memo_length), np.nan)
    return cells, rows, length, side, memos, memo_alphas(s, k)


def pairwise_gains(data, *, score="bdeu", **settings):
    """``G[j, i]``: local score of ``i`` given ``{j}`` minus that given ``{}``; zero diagonal.

    The ``[parent, child]`` layout of :meth:`Network.adjacency`.
    """
    s = Scorer(data, score, settings)
    return _pair_gains(s, data)


def _pair_gains(s, data):
    n = data.n_vars
    others = ~np.eye(n, dtype=bool)
    cand = np.array([np.flatnonzero(others[:, i]) for i in range(n)], dtype=np.int32).reshape(n, -1)
    m = cand.shape[1]
    sets = int(combinations.n_sets(m, 1))
    flat = np.empty(n * sets)
    _fill(*s.args, cand, np.int64(1), np.int64(sets), np.int64(0), np.int64(flat.size), flat,
          *_scratch_args(s, 1, _blocks()))
    scores = flat.reshape(n, sets)
    gains = np.zeros((n, n))
    for i in range(n):
        gains[cand[i], i] = scores[i, 1:] - scores[i, 0]
    return gains


def _candidates(candidates, data, s):
    """``(candidates int32 (n, m), excluded dict)`` from the ``candidates`` argument."""
    n = data.n_vars
    names = data.names
    if candidates is None:
        allowed = ~np.eye(n, dtype=bool)
    elif isinstance(candidates, numbers.Integral) and not isinstance(candidates, (bool, np.bool_)):
        top = int(candidates)
        if top < 0:
            raise ValueError(f"candidates must be non-negative, got {top}")
        allowed = ~np.eye(n, dtype=bool)
        if top < n - 1:
            gains = _pair_gains(s, data)  # [parent, child]
            allowed[:] = False
            for i in range(n):
                others = [j for j in range(n) if j != i]
                # best gain first, ties to the lower index
                ranked = sorted(others, key=lambda j: (-gains[j, i], j))
                allowed[ranked[:top], i] = True
    elif isinstance(candidates, dict):
        allowed = np.zeros((n, n), dtype=bool)
        given = set()
        for node, parents in candidates.items():
            i = data.index(node)
            given.add(i)
            if isinstance(parents, (str, bytes)) or not hasattr(parents, "__iter__"):
                raise TypeError(f"candidates[{node!r}] must be an iterable of nodes")
            for p in parents:
                j = data.index(p)
                if j == i:
                    raise ValueError(f"candidates[{node!r}] lists the node itself")
                allowed[j, i] = True
        missing = [names[i] for i in range(n) if i not in given]
        if missing:
            raise ValueError(f"the candidates mapping must give every node; missing: "
                             f"{missing[:5]}")
    else:
        allowed = np.asarray(candidates)
        if allowed.dtype != np.bool_:
            raise TypeError("candidates must be None, an int, a mapping, or a bool matrix "
                            f"[parent, child]; got {type(candidates).__name__}")
        if allowed.shape != (n, n):
            raise ValueError(f"the candidates matrix must have shape ({n}, {n}), got "
                             f"{allowed.shape}")
        if allowed.diagonal().any():
            i = int(np.flatnonzero(allowed.diagonal())[0])
            raise ValueError(f"the candidates matrix makes {names[i]!r} its own candidate")
    counts = allowed.sum(axis=0)
    m = int(counts.max()) if n else 0
    table = np.full((n, m), -1, dtype=np.int32)
    excluded = {}
    for i in range(n):
        parents = np.flatnonzero(allowed[:, i])
        table[i, :parents.size] = parents
        out = [names[j] for j in range(n) if j != i and not allowed[j, i]]
        if out:
            excluded[names[i]] = out
    return table, excluded


def score_table(data, *, score="bdeu", max_parents=3, candidates=None, memory_limit=None,
                progress=True, **settings):
    """The local score of every node with every parent set of at most ``max_parents`` candidates.

    Parameters
    ----------
    data : Dataset
    score : {"bdeu", "k2", "bic", "bge"}
        See :mod:`tandem.bn.scores`.
    max_parents : int
        ``k``, the largest parent set.
    candidates : None, int, mapping or bool array
        Which nodes each node may take as parents. None: all others. An int
        ``K``: the ``K`` nodes ``j`` with the largest pairwise gain
        ``local_score(i, {j}) - local_score(i, {})`` (ties to the lower index).
        A mapping ``{node: iterable of nodes}`` naming every node. A bool
        matrix ``M[parent, child]`` (a symmetric skeleton works as it is).
        What is left out is recorded in :attr:`ScoreTable.excluded`.
    memory_limit : int, optional
        Bytes the computation may take; default ``MEMORY_FRACTION`` of the
        memory available now. The need is estimated first
        (:func:`estimate_bytes`); beyond the limit :class:`ScoreTableMemoryError`
        (both a ``MemoryError`` and a ``ValueError``) names ``max_parents``.
    progress : bool or "always"
        A progress bar on stderr (when it is a terminal, unless "always").
    **settings
        The score's settings (``ess``; ``alpha_mu``, ``alpha_w``).

    Returns
    -------
    ScoreTable
    """
    s = Scorer(data, score, settings)
    k = _check_k(max_parents)
    if memory_limit is None:
        limit = int(MEMORY_FRACTION * available_memory())
    else:
        if isinstance(memory_limit, (bool, np.bool_)) or not isinstance(memory_limit,
                                                                         numbers.Real):
            raise TypeError(f"memory_limit must be a number of bytes, got {memory_limit!r}")
        if not memory_limit > 0:
            raise ValueError(f"memory_limit must be positive, got {memory_limit!r}")
        limit = memory_limit
    _progress._enabled(progress)
    n_blocks = _blocks()
    # Check the size before computing pairwise gains, then again for the final m.
    n = data.n_vars
    if not isinstance(candidates, numbers.Integral) or isinstance(candidates, bool):
        m_guess = n - 1 if candidates is None else None
    else:
        m_guess = min(int(candidates), n - 1) if candidates >= 0 else None
    if m_guess is not None:
        _check_memory(s, data, k, m_guess, n_blocks, limit)
    cand, excluded = _candidates(candidates, data, s)
    m = cand.shape[1]
    _check_memory(s, data, k, m, n_blocks, limit)

    sets = int(combinations.n_sets(m, k))
    flat = np.empty(n * sets, dtype=np.float64)
    total = flat.size
    scratch = _scratch_args(s, min(k, m), n_blocks)
    chunk = max(MIN_CHUNK, -(-total // 100))
    with _progress.bar(total, f"score table ({s.score}, k={k})", progress) as bar:
        for start in range(0, total, chunk):
            stop = min(start + chunk, total)
            _fill(*s.args, cand, np.int64(k), np.int64(sets), np.int64(start), np.int64(stop),
                  flat, *scratch)
            bar.update(stop - start)
    scores = flat.reshape(n, sets)
    scores.flags.writeable = False
    cand.flags.writeable = False
    return ScoreTable(scores, cand, k, data.names, s.score, dict(s.settings), excluded,
                      data.n_rows, _fingerprint(data, s, k, cand))


def _check_memory(s, data, k, m, n_blocks, limit):
    need = _estimate(s, data, k, m, n_blocks)
    if need <= limit:
        return
    hint = "no max_parents fits"
    for j in range(k - 1, -1, -1):
        if _estimate(s, data, j, m, n_blocks) <= limit:
            hint = f"max_parents={j} would fit"
            break
    raise ScoreTableMemoryError(
        f"a score table with max_parents={k} over {m} candidates per node needs about "
        f"{_gib(need)}, more than the limit of {_gib(limit)}; {hint}, or restrict the "
        f"candidate parents (candidates=K) or raise memory_limit")


def _fingerprint(data, s, k, cand):
    h = hashlib.sha256()
    h.update(data.fingerprint.encode())
    h.update(repr((s.score, sorted(s.settings.items()), k, cand.shape)).encode())
    h.update(np.ascontiguousarray(cand, dtype="<i4").tobytes())
    return h.hexdigest()


__all__ = [
    "MEMORY_FRACTION",
    "ScoreTable",
    "ScoreTableMemoryError",
    "available_memory",
    "estimate_bytes",
    "pairwise_gains",
    "score_table",
]
