"""Alias tables for weighted choice (Walker; Vose's O(n) construction).

The construction is exact integer arithmetic on masses rounded from the
weights, so the table, and therefore every index drawn from it, depends
only on the weights' values.  :func:`tandem.core.choice.alias_index` states
the lookup.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._types import ArrayLike
from .arrays import to_host

#: Draws resolve a column's threshold to 1 / 2**32 (the top 32 bits of the
#: within-column word are compared with it).
THRESHOLD_BITS = 32


def _vose(mass, capacity, threshold, alias):
    """Vose's pairing on integer masses that sum to ``n * capacity``.

    Writes each column's kept mass into ``threshold`` and its alias into
    ``alias``; columns that end full keep ``capacity`` and alias themselves.
    """
    n = mass.size
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    n_small = 0
    n_large = 0
    for k in range(n):
        alias[k] = k
        threshold[k] = capacity
        if mass[k] < capacity:
            small[n_small] = k
            n_small += 1
        else:
            large[n_large] = k
            n_large += 1
    while n_small and n_large:
        n_small -= 1
        s = small[n_small]
        l = large[n_large - 1]  # noqa: E741
        threshold[s] = mass[s]
        alias[s] = l
        mass[l] -= capacity - mass[s]
        if mass[l] < capacity:
            n_large -= 1
            small[n_small] = l
            n_small += 1


@functools.lru_cache(maxsize=None)
def _vose_compiled():
    from numba import njit

    return njit(cache=True)(_vose)


def check_weights(weights):
    """``weights`` as float64 after the checks, divided by the largest, and
    their exactly rounded sum."""
    w = to_host(weights, "weights")
    if w.dtype == object or not (np.issubdtype(w.dtype, np.floating)
                                 or np.issubdtype(w.dtype, np.integer)
                                 or w.dtype == np.bool_):
        raise TypeError(f"weights must be real numbers, got dtype {w.dtype}")
    if w.ndim != 1:
        raise ValueError(f"weights must be one-dimensional, got shape {w.shape}")
    if w.size == 0:
        raise ValueError("weights must not be empty")
    w = w.astype(np.float64)
    if not np.isfinite(w).all():
        raise ValueError("weights must be finite (no NaN or infinity)")
    if (w < 0).any():
        raise ValueError("weights must be non-negative")
    largest = w.max()
    if largest == 0:
        raise ValueError("weights must not all be zero")
    w = w / largest  # so that the sum cannot overflow
    return w, math.fsum(w)


def integer_masses(weights, capacity):
    """Masses ``m`` with ``sum(m) == n * capacity``, ``m[k] ~ n * capacity * p[k]``.

    The floors of the scaled weights, plus one for the largest remainders
    (or minus one for the smallest) until the sum is exact, so every mass is
    within one of its real value.
    """
    w, total = check_weights(weights)
    n = w.size
    target = w * (float(n * capacity) / total)
    mass = np.floor(target)
    remainder = target - mass
    mass = mass.astype(np.uint64)
    deficit = n * capacity - int(mass.sum(dtype=np.uint64))
    if deficit > 0:
        order = np.argsort(-remainder, kind="stable")
        mass[order[:deficit]] += np.uint64(1)
    elif deficit < 0:
        order = np.argsort(np.where(mass > 0, remainder, np.inf), kind="stable")
        mass[order[:-deficit]] -= np.uint64(1)
    return mass


class AliasTable:
    """A table for drawing indices ``0 .. n-1`` with probabilities ``weights / sum(weights)``.

    Parameters
    ----------
    weights : array_like of real, shape (n,)
        Non-negative and finite, not all zero; ``n < 2**32``.  They may
        live on a GPU (any array with ``__cuda_array_interface__``).

    Attributes
    ----------
    n : int
        The number of categories.
    table : numpy.ndarray of uint64, shape (n,)
        Column ``c``: its threshold ``T`` in the high 32 bits and its alias
        in the low 32 bits (a full column has ``T = 2**32 - 1`` and aliases
        itself).  One 8-byte word per column keeps a draw to one memory read.
        Read-only.
    index_dtype : numpy.dtype
        ``uint32``, the dtype of drawn indices.

    Notes
    -----
    Each column holds an integer mass of ``2**32``; the weights are rounded
    to integer masses that sum exactly to ``n`` columns, so every implied
    probability (:meth:`probabilities`) is within ``1 / (n * 2**32)`` of its
    weight's share.  The draw itself adds at most ``n / 2**64`` (see
    ``docs/spec.md``).

    The construction (Vose's pairing of small and large columns) is
    sequential, and a different pairing would draw different indices, so
    weights on a GPU are copied to the host once and the table is built
    there; the CUDA backend uploads the packed table on first use and keeps
    it for the table's lifetime.

    Guaranteed across versions: the table of every weight vector.

    Examples
    --------
    >>> import tandem
    >>> table = tandem.AliasTable([1.0, 3.0])
    >>> table.probabilities().tolist()
    [0.25, 0.75]
    """

    __slots__ = ("_n", "_table", "__weakref__")
    index_dtype = np.dtype(np.uint32)

    def __init__(self, weights: ArrayLike):
        weights = to_host(weights, "weights")
        n = weights.size
        if n >= 2**32:
            raise ValueError(f"weights must have fewer than 2**32 entries, got {n}")
        capacity = 1 << THRESHOLD_BITS
        mass = integer_masses(weights, capacity)
        threshold = np.empty(n, np.uint64)
        alias = np.empty(n, np.uint64)
        _vose_compiled()(mass, np.uint64(capacity), threshold, alias)
        # A full column (T = 2**32) aliases itself, so T = 2**32 - 1 draws alike.
        threshold = np.minimum(threshold, np.uint64(capacity - 1))
        self._set((threshold << np.uint64(32)) | alias)

    def _set(self, table):
        table.flags.writeable = False
        self._n = table.size
        self._table = table

    @property
    def n(self):
        """The number of categories.

        Examples
        --------
        >>> import tandem
        >>> tandem.AliasTable([1.0, 3.0, 0.0]).n
        3
        """
        return self._n

    @property
    def table(self):
        """The packed columns (read-only uint64): threshold above bit 32, alias below.

        Examples
        --------
        >>> import tandem
        >>> table = tandem.AliasTable([1.0, 3.0])
        >>> table.table.dtype, table.table.flags.writeable
        (dtype('uint64'), False)
        """
        return self._table

    def __len__(self):
        return self._n

    # Immutable: a copy is the table itself, and a pickle is checked on load.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_from_packed, (np.array(self._table),))

    def __repr__(self):
        return f"AliasTable(n={self.n})"

    def thresholds(self):
        """Each column's threshold.

        Returns
        -------
        numpy.ndarray of uint64
            ``T`` of each column: the column keeps its own index when the
            draw's low 32 bits are below ``T`` (``2**32 - 1`` for a full column).

        Examples
        --------
        >>> import tandem
        >>> tandem.AliasTable([1.0, 3.0]).thresholds().tolist()
        [2147483648, 4294967295]
        """
        return self.table >> np.uint64(32)

    def aliases(self):
        """Each column's alias.

        Returns
        -------
        numpy.ndarray of uint64
            The index a column gives when its threshold rejects the draw.

        Examples
        --------
        >>> import tandem
        >>> tandem.AliasTable([1.0, 3.0]).aliases().tolist()
        [1, 1]
        """
        return self.table & np.uint64(0xFFFFFFFF)

    def probabilities(self):
        """The probability of each index that the table implies.

        Returns
        -------
        numpy.ndarray of float64
            Within ``1 / (n 2**32)`` of each weight's share.

        Examples
        --------
        >>> import tandem
        >>> tandem.AliasTable([1.0, 1.0, 2.0]).probabilities().tolist()
        [0.25, 0.25, 0.5]
        """
        keep = self.thresholds().astype(np.float64) * 2.0**-THRESHOLD_BITS
        p = keep.copy()
        np.add.at(p, self.aliases().astype(np.intp), 1.0 - keep)
        return p / self.n


def _from_packed(table):
    """An :class:`AliasTable` from its packed columns, checked (for unpickling)."""
    table = np.array(table)
    if table.dtype != np.uint64 or table.ndim != 1 or not 0 < table.size < 2**32:
        raise ValueError("table: expected a non-empty 1-D uint64 array of packed columns")
    if ((table & np.uint64(0xFFFFFFFF)) >= np.uint64(table.size)).any():
        raise ValueError("table: an alias is not a column index")
    result = object.__new__(AliasTable)
    result._set(table)
    return result
