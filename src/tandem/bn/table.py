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
import time
import uuid
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Optional, Union

import numba
import numpy as np
from numba import njit, prange

from .. import _progress, arrays, core, files, parallel
from . import combinations, scores, terms
from .scores import Scorer, config_level, family_score, score_counts, scratch_sizes, table_bytes
from .._types import ArrayLike
from .data import Dataset


#: Fraction of the machine's total memory (:func:`total_memory`) that a table,
#: and order MCMC on it, may take by default. A fixed share of the total, not
#: of the memory free at the moment, so that the limit does not move with the
#: machine's other work.
MEMORY_FRACTION = 0.5

#: The fewest (node, set) entries per call of the parallel kernel, between
#: two advances of the progress bar (at most 100 calls otherwise).
MIN_CHUNK = 1 << 14


#: Fill calls aim at this many seconds each, so that the progress bar moves.
CHUNK_SECONDS = 0.5
#: Seconds of entries in a task of a table computed on Dask workers (``client=``).
WORKER_TASK_SECONDS = 2.0

#: A table whose rough bound of time (:func:`plan_table`) is below this many
#: seconds is not timed.
UNTIMED_SECONDS = 1.0

#: The timing sample grows until it takes this many seconds.
CALIBRATION_SECONDS = 0.05

#: The largest timing sample on a GPU (entries of one node).
GPU_CALIBRATION_ENTRIES = 1 << 20

#: The rough bound on a GPU entry's time is the CPU's times this.
ROUGH_GPU_FACTOR = 1e-3

#: The rough bound on one entry's time: a fixed cost, and a cost per row and level.
ROUGH_SECONDS_PER_ENTRY = 1e-5
ROUGH_SECONDS_PER_ROW = 2e-8

#: How :meth:`Budget.describe` names the settings (a command line names its options).
OPTIONS = {"max_parents": "max_parents={}", "candidates": "candidates={}",
           "memory": "memory_limit", "time": "time_limit"}


@dataclass(frozen=True)
class Budget:
    """Why a table was refused: what it needs, the limit, and settings that would fit.

    Attributes
    ----------
    resource : {"memory", "time"}
    need, limit : float
        Bytes or seconds.
    max_parents, m : int
        The table asked for: ``k`` and the candidates per node.
    alternatives : tuple of (str, int, float)
        ``(setting, value, need)``: the largest ``max_parents`` and the
        largest ``candidates`` that fit, where one does.
    """

    resource: str
    need: float
    limit: float
    max_parents: int
    m: int
    alternatives: tuple

    def describe(self, options=None):
        """The message, naming the settings as ``options`` does (default :data:`OPTIONS`)."""
        options = OPTIONS if options is None else options
        amount = _gib if self.resource == "memory" else _duration
        verb = "needs" if self.resource == "memory" else "would take"
        k = options["max_parents"].format(self.max_parents)
        ways = [f"{options[name].format(value)} would fit (about {amount(need)})"
                for name, value, need in self.alternatives]
        if not ways:
            bare = [options[name].format("").strip(" =") for name in ("max_parents",
                                                                     "candidates")]
            ways.append(f"neither a smaller {bare[0]} nor fewer {bare[1]} fits")
        limit = options.get(self.resource)
        if limit:
            ways.append(f"raise {limit}")
        return (f"a score table with {k} over {self.m} candidate parents per node {verb} "
                f"about {amount(self.need)}, more than the {self.resource} limit of "
                f"{amount(self.limit)}; " + ", or ".join(ways))


class _Refused:
    """A table over budget: the message from :attr:`budget` unless one is given."""

    def __init__(self, *args, budget=None):
        self.budget = budget
        super().__init__(*(args or ((budget.describe(),) if budget else ())))


class ScoreTableMemoryError(_Refused, MemoryError, ValueError):
    """The table would not fit in ``memory_limit``: lower ``max_parents`` or restrict ``candidates``.

    ``budget`` (a :class:`Budget`) says by how much, and what would fit.
    """


class ScoreTableTimeError(_Refused, ValueError):
    """The table would take longer than ``time_limit``: lower ``max_parents`` or restrict
    ``candidates``.

    ``budget`` (a :class:`Budget`) says by how much, and what would fit.
    """


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Local scores of every node with every parent set of at most ``max_parents`` candidates.

    Made by :func:`tandem.bn.score_table` (or :func:`tandem.bn.prune`), which
    check their input; the constructor checks nothing. Frozen: each
    parameter is kept as the attribute of the same name. Tables compare by
    identity; equal fingerprints mean equal tables.

    Parameters
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

    See Also
    --------
    tandem.bn.score_table : Compute a table from a data set.
    tandem.bn.order_mcmc : Sample orders and DAGs on a table.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> table.scores.shape, table.m, table.max_parents
    ((8, 29), 7, 2)
    >>> table.names[3], table.candidates[3].tolist()
    ('lung', [0, 1, 2, 4, 5, 6, 7])
    >>> table.score, table.settings, table.excluded, table.n_rows
    ('bdeu', {'ess': 1.0}, {}, 200)
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
    def n_nodes(self) -> int:
        """The number of nodes (the data set's columns).

        Returns
        -------
        int
            ``scores.shape[0]``.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
        >>> table = bn.score_table(data, max_parents=2, progress=False)
        >>> table.n_nodes
        8
        """
        return self.scores.shape[0]

    @property
    def n_sets(self) -> int:
        """The number of parent sets per node: the subsets of at most ``max_parents`` slots.

        Returns
        -------
        int
            ``scores.shape[1]``, the sum of ``C(m, s)`` for ``s`` up to
            ``max_parents``.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
        >>> table = bn.score_table(data, max_parents=2, progress=False)
        >>> table.n_sets                     # 1 + 7 + 21 sets of 7 candidates
        29
        """
        return self.scores.shape[1]

    @property
    def m(self) -> int:
        """The number of candidate slots per node.

        Returns
        -------
        int
            ``candidates.shape[1]``: the most candidates any node has.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
        >>> table = bn.score_table(data, max_parents=2, progress=False)
        >>> table.m
        7
        >>> bn.score_table(data, max_parents=2, candidates=3, progress=False).m
        3
        """
        return self.candidates.shape[1]

    def parent_set(self, node: int, r: int) -> tuple:
        """The parents (node indices, ascending) that rank ``r`` stands for at ``node``.

        Parameters
        ----------
        node : int
            A node index.
        r : int
            A rank in ``range(n_sets)``: a column of ``scores``.

        Returns
        -------
        tuple of int
            The parent set, node indices in ascending order; ``()`` for rank 0.

        Raises
        ------
        ValueError
            When the set uses a padded slot.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
        >>> table = bn.score_table(data, max_parents=2, progress=False)
        >>> table.parent_set(3, 0), table.parent_set(3, 1), table.parent_set(3, 8)
        ((), (0,), (0, 1))
        """
        positions = combinations.unrank(r, self.m, self.max_parents)
        parents = self.candidates[node, positions]
        if (parents < 0).any():
            raise ValueError(f"rank {r} uses a padded candidate slot of node {node}")
        return tuple(int(p) for p in parents)

    def rank(self, node: int, parents: Sequence[int]) -> int:
        """The rank of the parent set ``parents`` (node indices) at ``node``.

        Parameters
        ----------
        node : int
            A node index.
        parents : iterable of int
            Candidates of ``node``, in any order.

        Returns
        -------
        int
            The column of ``scores`` that holds the set: the inverse of
            :meth:`parent_set`.

        Raises
        ------
        ValueError
            If a parent is not a candidate of ``node`` or there are more than
            ``max_parents``.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
        >>> table = bn.score_table(data, max_parents=2, progress=False)
        >>> r = table.rank(3, (4, 2))
        >>> r, table.parent_set(3, r)
        (13, (2, 4))
        >>> bool(table.scores[3, table.rank(3, [2])] == bn.local_score(data, 3, [2]))
        True
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


def _meminfo(field):
    """The ``field`` of /proc/meminfo in bytes, or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_limit():
    """The memory limit of this process's control group (v2 or v1), or None."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            return int(text)
    return None


def total_memory():
    """Bytes of memory this process may use in all: the machine's (MemTotal, else
    ``os.sysconf``), or its control group's limit where that is lower (a
    container). The default memory limits are :data:`MEMORY_FRACTION` of it."""
    total = _meminfo("MemTotal")
    if total is None:
        try:
            total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            total = 16 * 2**30
    limit = _cgroup_limit()
    return total if limit is None else min(total, limit)


def available_memory():
    """Bytes of memory available now: MemAvailable from /proc/meminfo, else ``os.sysconf``
    (for information: the limits use :func:`total_memory`)."""
    available = _meminfo("MemAvailable")
    if available is not None:
        return available
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def candidate_matrix(table):
    """The bool ``[parent, child]`` matrix of ``table.candidates`` (what
    :func:`score_table` takes back as ``candidates``)."""
    candidates = np.asarray(table.candidates)
    n = candidates.shape[0]
    allowed = np.zeros((n, n), dtype=bool)
    child, slot = np.nonzero(candidates >= 0)
    allowed[candidates[child, slot], child] = True
    return allowed


def per_edge(per_slot, candidates, fill=0.0):
    """``[..., child, slot]`` values as ``[..., parent, child]``: ``fill`` where the
    table allows no edge (and on the diagonal)."""
    n = candidates.shape[0]
    out = np.full(per_slot.shape[:-2] + (n, n), fill, dtype=per_slot.dtype)
    child, slot = np.nonzero(candidates >= 0)
    out[..., candidates[child, slot], child] = per_slot[..., child, slot]
    return out


def default_memory_limit():
    """:data:`MEMORY_FRACTION` of :func:`total_memory`, in bytes."""
    return int(MEMORY_FRACTION * total_memory())


def estimate_bytes(data, *, score="bdeu", max_parents=3, m=None, device="cpu", out=None,
                   **settings):
    """The host bytes :func:`score_table` will hold at its peak: table (unless ``out`` is a
    file), candidates, data copy, count tables and scratch (on the CPU) or pinned slices
    (on a GPU).

    ``m`` is the number of candidate slots per node (default ``n_vars - 1``).
    """
    s = Scorer(data, score, settings)
    k = _check_k(max_parents)
    return _estimate(s, data, k, data.n_vars - 1 if m is None else m, check_device(device),
                     out is not None)


def _blocks():
    return 4 * numba.get_num_threads()


def _estimate(s, data, k, m, device="cpu", on_disk=False):
    sets = combinations.n_sets(m, k)
    table = 0 if on_disk else 8 * data.n_vars * sets
    side = 4 * data.n_vars * m + data.values.nbytes
    if device == "cuda":  # two slices in pinned memory; the count tables
        return (table + side + 2 * 8 * min(data.n_vars * sets, _cuda().SLICE_ENTRIES)
                + table_bytes(s, min(k, m)))
    # Each running block allocates its scratch; the count tables are shared.
    try:
        cells, rows, length, width = scratch_sizes(s, min(k, m))
    except ValueError:  # families too large for int32 counts: beyond any memory anyway
        return table + side + numba.get_num_threads() * 4 * 2**31
    running = 4 * (cells + rows * length) + 8 * width * width + 16 * (k + 1)
    return table + side + numba.get_num_threads() * running + table_bytes(s, min(k, m))


def _cuda():
    from . import cuda_table

    return cuda_table


def check_device(device):
    """``device`` as ``"cpu"`` or ``"cuda"`` (None is the CPU); for CUDA, numba-cuda and a GPU
    (or Numba's CUDA simulator) must be there."""
    device = arrays.check_device(device) or "cpu"
    if device == "cuda":
        try:
            from numba import cuda
        except ImportError:
            raise ImportError("device='cuda' needs numba-cuda: pip install 'tandem-streams[cuda]'"
                              ) from None
        if not cuda.is_available():
            raise RuntimeError("device='cuda': no CUDA GPU is available")
    return device


def _check_k(max_parents):
    if isinstance(max_parents, (bool, np.bool_)) or not isinstance(max_parents, numbers.Integral):
        raise TypeError(f"max_parents must be an integer, got {max_parents!r}")
    if max_parents < 0:
        raise ValueError(f"max_parents must be non-negative, got {max_parents}")
    return int(max_parents)


def _gib(n):
    return f"{n / 2**30:.3g} GiB"


def _duration(seconds):
    if seconds < 90:
        return f"{seconds:.2g} s"
    if seconds < 5400:
        return f"{seconds / 60:.2g} min"
    return f"{seconds / 3600:.3g} h"


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


def _fill_kernel(digest):
    """The parallel fill; ``digest`` keys its disk cache (see :mod:`tandem.bn.scores`)."""

    @parallel.guarded
    @njit(parallel=True, cache=True)
    def fill(score_id, columns, arities, rmat, params, consts, candidates, k, sets, start, stop,
             out, n_blocks, n_cells, n_levels, n_length, side, alphas, ratios, logs):
        """Entries ``start .. stop - 1`` of the flat table (node-major) into ``out[0 .. stop -
        start - 1]``, in ``n_blocks`` blocks of consecutive entries."""
        m = candidates.shape[1]
        total = stop - start + (digest & 0)
        for b in prange(n_blocks):
            lo = start + total * b // n_blocks
            hi = start + total * (b + 1) // n_blocks
            if lo >= hi:
                continue
            counts = np.zeros(n_cells, dtype=np.int32)
            # rows are written before they are read, but the next-to-last (the
            # configuration of no parents) and the last (scratch for sorting)
            levels = np.empty((n_levels, n_length), dtype=np.int32)
            levels[max(n_levels - 2, 0)] = 0
            order = levels[n_levels - 1]
            work = np.zeros((side, side))
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
                    out[item - start] = -np.inf
                    changed = size
                    continue
                if score_id == terms.BGE:
                    out[item - start] = family_score(score_id, columns, arities, rmat, params,
                                                     consts, node, parents, size, counts,
                                                     levels, work, alphas, ratios, logs)
                    continue
                # The parents past the first `changed` are those of the previous set:
                # their rows of `levels` still hold, recompute only the others; the
                # first row (always stale) is computed as the rows are counted.
                for j in range(changed - 1, -1, -1):
                    config_level(columns, arities, parents, j, size, levels)
                changed = 0
                x = columns[node]
                r_child = arities[node]
                config = levels[0] if size > 0 else levels[n_levels - 2]
                for t in range(x.shape[0]):
                    counts[config[t] * r_child + x[t]] += 1
                out[item - start] = score_counts(score_id, arities, params, node, q, config,
                                                 counts, order, alphas, ratios, logs)

    return fill


_fill = _fill_kernel(core.source_digest(scores.__file__, terms.__file__))


def _scratch_args(s, k, n_blocks):
    """``_fill``'s arguments after ``out``: the blocks, the scratch shapes each block
    allocates and the score's count tables (shared by every block)."""
    return (np.int64(n_blocks), *scratch_sizes(s, k), *s.tables(k))


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


def score_table(data: Dataset, *, score: str = "bdeu", max_parents: int = 3,
                candidates: Optional[ArrayLike] = None, memory_limit: int | None = None,
                time_limit: float | None = None, progress: bool | str = True, device: str = "cpu",
                out: Union[str, os.PathLike, None] = None, client: Any = None,
                **settings: Any) -> ScoreTable:
    """The local score of every node with every parent set of at most ``max_parents`` candidates.

    Parameters
    ----------
    data : Dataset
        The data: discrete for ``"bdeu"``, ``"k2"`` and ``"bic"``, Gaussian
        for ``"bge"``.
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
        Bytes the computation may take; default :data:`MEMORY_FRACTION` of
        :func:`total_memory`. The need is estimated first
        (:func:`estimate_bytes`); beyond the limit :class:`ScoreTableMemoryError`
        (both a ``MemoryError`` and a ``ValueError``) names ``max_parents``.
    time_limit : float, optional
        Seconds the computation may take; default no limit. The time is
        estimated first (:func:`plan_table`); beyond the limit
        :class:`ScoreTableTimeError` (a ``ValueError``) names ``max_parents``
        and ``candidates`` values that fit.
    progress : bool or "always"
        A progress bar on stderr (when it is a terminal, unless "always").
    device : {"cpu", "cuda"}
        Where the scores are computed: Numba's parallel CPU kernels, or CUDA
        kernels on the current GPU (:mod:`tandem.bn.cuda_table`, needs
        numba-cuda). The table is the same bit for bit either way, and lands
        in host memory (or ``out``) either way; on a GPU it streams through
        the device in slices, so it need not fit there.
    out : str or os.PathLike, optional
        A ``.npy`` file to write the table to, through a memory map, instead
        of holding it in memory (``ScoreTable.scores`` is then a read-only
        memory map of the file). The file is written beside itself under a
        temporary name and renamed when complete: an interrupted or failed
        computation leaves no file.
    client : distributed.Client, optional
        Compute the entries on a Dask cluster's workers (their CPUs): the
        table's plan (the data, the candidates, the scorer) goes to each
        worker once, then each task takes the bounds of a range of the
        combinatorial index and returns its scores, which gather into the
        same table, bit for bit, as a local computation.  A task lost with a
        worker runs again to the same values.
    **settings
        The score's settings (``ess``; ``alpha_mu``, ``alpha_w``).

    Returns
    -------
    ScoreTable
        Every entry exactly :func:`tandem.bn.local_score` of its set, the
        same bit for bit whatever the number of threads, the chunking, the
        device or the cluster.

    Raises
    ------
    tandem.bn.table.ScoreTableMemoryError
        Past ``memory_limit``.
    tandem.bn.table.ScoreTableTimeError
        Past ``time_limit``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import bn
    >>> data = bn.load_network("asia").sample(200, tandem.Philox(1))
    >>> table = bn.score_table(data, max_parents=2, progress=False)
    >>> table.scores.shape
    (8, 29)
    >>> bool(table.scores[3, table.rank(3, [2])] == bn.local_score(data, "lung", ["smoke"]))
    True
    >>> top = bn.score_table(data, max_parents=2, candidates=3, progress=False)
    >>> top.scores.shape, top.excluded["lung"]
    ((8, 7), ['asia', 'tub', 'smoke', 'bronc'])
    """
    _progress._enabled(progress)
    return plan_table(data, score=score, max_parents=max_parents, candidates=candidates,
                      memory_limit=memory_limit, time_limit=time_limit, device=device, out=out,
                      **settings).compute(progress, client)


def plan_table(data, *, score="bdeu", max_parents=3, candidates=None, memory_limit=None,
               time_limit=None, extra_bytes=None, device="cpu", out=None, **settings):
    """Check a score table against its memory and time budgets, before computing it.

    Takes the arguments of :func:`score_table` (but ``progress``), and
    ``extra_bytes``: None, or a function of ``(max_parents, m)`` giving the
    bytes that the caller will need besides the table (say
    :func:`tandem.bn.mcmc.estimate_bytes`), counted against ``memory_limit``
    with it. Resolves
    the candidates (``candidates=K`` computes the pairwise gains), estimates
    the peak host memory (:func:`estimate_bytes`), the device memory on a GPU
    (``plan.device_bytes``) and the time: on a table that might take a second
    or more, the fill kernel is timed on a sample of the largest parent sets
    of a few nodes, and the time per entry is scaled to the whole table.
    Raises :class:`ScoreTableMemoryError` or :class:`ScoreTableTimeError`
    past ``memory_limit`` or ``time_limit``.

    Returns
    -------
    TablePlan
        ``plan.compute(progress)`` makes the table.
    """
    s = Scorer(data, score, settings)
    k = _check_k(max_parents)
    device = check_device(device)
    path = _check_out(out)
    memory = _check_limit(memory_limit, "memory_limit", "a number of bytes")
    memory = default_memory_limit() if memory is None else memory
    seconds = _check_limit(time_limit, "time_limit", "a number of seconds")
    # Check the size before computing pairwise gains, then again for the final m.
    n = data.n_vars
    if not isinstance(candidates, numbers.Integral) or isinstance(candidates, bool):
        m_guess = n - 1 if candidates is None else None
    else:
        m_guess = min(int(candidates), n - 1) if candidates >= 0 else None
    where = (device, path is not None)
    if m_guess is not None:
        _check_memory(s, data, k, m_guess, where, memory, extra_bytes)
    cand, excluded = _candidates(candidates, data, s)
    m = cand.shape[1]
    need = _check_memory(s, data, k, m, where, memory, extra_bytes)
    plan = TablePlan(data, s, k, cand, excluded, need, device, path)
    if seconds is not None and plan.seconds > seconds:
        raise ScoreTableTimeError(budget=_time_budget(plan, seconds))
    return plan


def _check_out(out):
    """``out`` as an absolute path whose folder exists, or None."""
    return None if out is None else files.target(out, "out", "a .npy file")


class TablePlan:
    """A score table that passed its checks, ready to compute (see :func:`plan_table`).

    Attributes
    ----------
    max_parents : int
    n_nodes, m, n_sets : int
        Nodes, candidate slots per node, parent sets per node.
    device : {"cpu", "cuda"}
    bytes : int
        The estimated peak host memory.
    device_bytes : int
        The device memory it takes on a GPU (0 on the CPU): the data's bitsets
        and tables, and two slices of the table.
    seconds : float
        The estimated time: measured (``measured``) or, for a small table, a
        generous bound below a second.
    measured : bool
    seconds_per_entry : float
        Wall seconds per (node, set) entry, from which ``seconds`` comes.
    """

    def __init__(self, data, s, k, cand, excluded, need, device="cpu", path=None):
        self._data, self._s, self._cand, self._excluded = data, s, cand, excluded
        self._path = path
        self.max_parents, self.n_nodes, self.m = k, data.n_vars, cand.shape[1]
        self.n_sets = int(combinations.n_sets(self.m, k))
        self.device = device
        self.bytes = need
        self.device_bytes = 0
        if device == "cuda":
            cuda_table = _cuda()
            self._device_fill = cuda_table.TableFill(s, cand, k, self.n_sets)
            free, _ = cuda_table.cuda.current_context().get_memory_info()
            self.device_bytes = cuda_table.device_bytes(self._device_fill.total,
                                                        self._device_fill.input_bytes, free)
            rough = ROUGH_GPU_FACTOR * _rough_seconds_per_entry(s, k)
        else:
            self._scratch = _scratch_args(s, min(k, cand.shape[1]), _blocks())
            rough = _rough_seconds_per_entry(s, k)
        self.measured = self.n_nodes * self.n_sets * rough >= UNTIMED_SECONDS
        self.seconds_per_entry = self._time_entries() if self.measured else rough
        self.seconds = self.seconds_per_entry * self.n_nodes * self.n_sets

    def _time_entries(self):
        """Wall seconds per entry of the fill, on the last (largest) sets of up to three
        of the nodes with the most candidates; the sample grows until it takes
        ``CALIBRATION_SECONDS``.  On a GPU the sample is larger (a GPU is filled only
        by many entries at once) and each entry counts its copy to the host."""
        counts = (self._cand >= 0).sum(axis=1)
        full = np.flatnonzero(counts == counts.max())
        nodes = sorted({int(full[0]), int(full[len(full) // 2]), int(full[-1])})
        largest = GPU_CALIBRATION_ENTRIES if self.device == "cuda" else MIN_CHUNK
        out = np.empty(min(self.n_sets, largest))

        def run(size):
            t0 = time.perf_counter()
            for node in nodes:
                stop = (node + 1) * self.n_sets
                self._fill(stop - size, stop, out)
            return time.perf_counter() - t0

        run(1)  # compiles, on a fresh cache
        size = min(64, out.size)
        while True:
            elapsed = run(size)
            if elapsed >= CALIBRATION_SECONDS or size == out.size:
                return elapsed / (size * len(nodes))
            size = min(4 * size, out.size)

    def _fill(self, start, stop, out):
        """Entries ``start .. stop - 1`` into the host array ``out[:stop - start]``."""
        if self.device == "cuda":
            device_out = _cuda().cuda.device_array(stop - start)
            self._device_fill.launch(start, stop, device_out)
            device_out.copy_to_host(out[:stop - start])
            return
        _fill(*self._s.args, self._cand, np.int64(self.max_parents), np.int64(self.n_sets),
              np.int64(start), np.int64(stop), out, *self._scratch)

    def _entries(self, start, stop):
        """Entries ``start .. stop - 1``, as a new array (a task on a worker)."""
        out = np.empty(stop - start)
        self._fill(start, stop, out)
        return out

    def _on_workers(self, client, flat, bar):
        """Every entry into ``flat``, by tasks of :data:`WORKER_TASK_SECONDS` or so on
        the workers of ``client``, gathered in order."""
        total = flat.size
        chunk = self._chunk(total, WORKER_TASK_SECONDS, 16)
        plan = client.scatter(self, broadcast=True, hash=False)
        run = uuid.uuid4().hex
        ranges = [(start, min(start + chunk, total)) for start in range(0, total, chunk)]
        futures = [client.submit(TablePlan._entries, plan, start, stop,
                                 key=f"tandem-table-{run}-{start}")
                   for start, stop in ranges]
        try:
            for (start, stop), future in zip(ranges, futures):
                flat[start:stop] = future.result()
                bar.update(stop - start)
        finally:
            client.cancel(futures)

    def _chunk(self, total, seconds=CHUNK_SECONDS, parts=100):
        """Entries a call: about ``seconds`` of them where the plan was timed, else a
        ``parts``-th of ``total``; at least :data:`MIN_CHUNK`."""
        if not self.measured:
            return max(MIN_CHUNK, -(-total // parts))
        return max(MIN_CHUNK, int(seconds / max(self.seconds_per_entry, 1e-12)))

    def compute(self, progress=True, client=None):
        """The :class:`ScoreTable`; ``progress`` and ``client`` as for :func:`score_table`."""
        _progress._enabled(progress)
        if client is not None and self.device == "cuda":
            raise ValueError("client= computes on the workers' CPUs: give device='cpu'")
        s, k, sets = self._s, self.max_parents, self.n_sets
        total = self.n_nodes * sets
        with _Destination(self._path, (self.n_nodes, sets)) as dest, _progress.bar(
                total, f"score table ({s.score}, k={k}{', cuda' if self.device == 'cuda' else ''})",
                progress) as bar:
            flat = dest.flat
            if self.device == "cuda":
                _cuda().compute(self._device_fill, flat, bar)
            elif client is not None:
                self._on_workers(client, flat, bar)
            else:
                chunk = self._chunk(total)
                for start in range(0, total, chunk):
                    stop = min(start + chunk, total)
                    self._fill(start, stop, flat[start:stop])
                    bar.update(stop - start)
        scores = dest.result
        cand = self._cand
        cand.flags.writeable = False
        data = self._data
        return ScoreTable(scores, cand, k, data.names, s.score, dict(s.settings),
                          self._excluded, data.n_rows, _fingerprint(data, s, k, cand))


class _Destination:
    """Where a table is written: a new array, or a ``.npy`` file written under a
    temporary name and moved into place once complete (:func:`tandem.files.replacing`;
    removed on failure)."""

    def __init__(self, path, shape):
        self._path, self._shape = path, shape
        self._file = None
        self.result = None

    def __enter__(self):
        if self._path is None:
            self._array = np.empty(self._shape, dtype=np.float64)
        else:
            self._file = files.replacing(self._path, "w+b")
            f = self._file.__enter__()
            np.lib.format.write_array_header_1_0(f, {"descr": np.dtype(np.float64).str,
                                                     "fortran_order": False,
                                                     "shape": self._shape})
            self._array = np.memmap(f, dtype=np.float64, mode="r+", offset=f.tell(),
                                    shape=self._shape)
        self.flat = self._array.reshape(-1)
        return self

    def __exit__(self, kind, error, traceback):
        if self._path is None:
            if kind is None:
                self._array.flags.writeable = False
                self.result = self._array
            return False
        array, self._array, self.flat = self._array, None, None
        if kind is None:
            array.flush()
        del array
        self._file.__exit__(kind, error, traceback)
        if kind is None:
            self.result = np.load(self._path, mmap_mode="r")
        return False


def estimate_seconds(data, *, score="bdeu", max_parents=3, candidates=None, **settings):
    """The estimated seconds of :func:`score_table` (see :func:`plan_table`)."""
    return plan_table(data, score=score, max_parents=max_parents, candidates=candidates,
                      memory_limit=float("inf"), **settings).seconds


def _rough_seconds_per_entry(s, k):
    """A generous bound on one entry's time on one thread: a pass over the rows per level
    and per cell, and a fixed cost."""
    per_row = 0.0 if s.score == "bge" else ROUGH_SECONDS_PER_ROW * (k + 2)
    return ROUGH_SECONDS_PER_ENTRY + per_row * s.n_rows


def _check_limit(limit, name, what):
    if limit is None:
        return None
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {limit!r}")
    if not limit > 0:
        raise ValueError(f"{name} must be positive, got {limit!r}")
    return limit


def _check_memory(s, data, k, m, where, limit, extra_bytes=None):
    """The bytes the table (and ``extra_bytes``) need, ``where = (device, on_disk)``;
    :class:`ScoreTableMemoryError` past ``limit``."""

    def cost(j, c):
        return _estimate(s, data, j, c, *where) + (0 if extra_bytes is None
                                                   else extra_bytes(j, c))

    need = cost(k, m)
    if need <= limit:
        return need
    raise ScoreTableMemoryError(budget=Budget("memory", need, limit, k, m,
                                              _alternatives(cost, k, m, limit)))


def _time_budget(plan, limit):
    n, per = plan.n_nodes, plan.seconds_per_entry

    def cost(j, c):
        pairs = n * n if c < plan.m else 0  # candidates=K scores the pairs first
        return per * (n * int(combinations.n_sets(c, j)) + pairs)

    return Budget("time", plan.seconds, limit, plan.max_parents, plan.m,
                  _alternatives(cost, plan.max_parents, plan.m, limit))


def _alternatives(cost, k, m, limit):
    """``(setting, value, need)`` for the largest ``max_parents`` in ``1 .. k - 1`` and the
    largest ``candidates`` in ``1 .. m - 1`` whose ``cost(max_parents, candidates)`` fits
    ``limit``."""
    found = []
    for j in range(k - 1, 0, -1):  # max_parents=0, no edges at all, is no way out
        if cost(j, m) <= limit:
            found.append(("max_parents", j, cost(j, m)))
            break
    lo, hi = 0, m - 1  # the largest c in [1, m - 1] with cost(k, c) <= limit, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if cost(k, mid) <= limit else (lo, mid - 1)
    if lo >= 1:
        found.append(("candidates", lo, cost(k, lo)))
    return tuple(found)


def _fingerprint(data, s, k, cand):
    h = hashlib.sha256()
    h.update(data.fingerprint.encode())
    h.update(repr((s.score, sorted(s.settings.items()), k, cand.shape)).encode())
    h.update(np.ascontiguousarray(cand, dtype="<i4").tobytes())
    return h.hexdigest()


__all__ = [
    "MEMORY_FRACTION",
    "Budget",
    "ScoreTable",
    "ScoreTableMemoryError",
    "ScoreTableTimeError",
    "TablePlan",
    "available_memory",
    "total_memory",
    "default_memory_limit",
    "candidate_matrix",
    "estimate_bytes",
    "estimate_seconds",
    "pairwise_gains",
    "plan_table",
    "score_table",
]
