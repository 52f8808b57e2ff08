"""Conditional independence on discrete counts, and the PC skeleton built on it.

* :func:`g_test`: the likelihood-ratio (G², "log-likelihood") test of
  ``X ⊥ Y | Z`` on the counts of a :class:`tandem.bn.Dataset`.
* :func:`pc_skeleton`: the undirected skeleton of the PC algorithm in its
  order-independent ("stable") form (Colombo and Maathuis 2014): edges are
  removed level by level, each level testing against the adjacencies the
  level started with.

The skeleton serves as candidate parents for :func:`tandem.bn.score_table`
(``candidates=`` a bool matrix), as BiDAG's search spaces start from.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["chi2_sf", "g_test", "pc_skeleton"]


def _upper_gamma_regularized(a, x):
    """``Q(a, x) = Gamma(a, x) / Gamma(a)`` for ``a > 0``, ``x >= 0``: a power
    series below ``x = a + 1``, Legendre's continued fraction (evaluated by
    the modified Lentz method) above; relative error near 1e-15."""
    if x <= 0.0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:  # P by its series, Q = 1 - P
        term = total = 1.0 / a
        denominator = a
        while abs(term) > abs(total) * 1e-17:
            denominator += 1.0
            term *= x / denominator
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    fraction = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        fraction *= step
        if abs(step - 1.0) < 1e-16:
            break
    return math.exp(log_front) * fraction


def chi2_sf(x, df):
    """The chi-square law's survival function ``P(X > x)`` with ``df`` degrees
    of freedom (``Q(df / 2, x / 2)``).

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 12)
    0.05
    """
    if df <= 0:
        return 1.0
    return _upper_gamma_regularized(df / 2.0, max(float(x), 0.0) / 2.0)


def _configurations(codes, arities, columns):
    """Each row's configuration of ``columns`` as one integer (mixed radix),
    renumbered densely over the configurations that occur: ``(index, count)``."""
    if not columns:
        return np.zeros(codes.shape[0], dtype=np.int64), 1
    index = np.zeros(codes.shape[0], dtype=np.int64)
    for c in columns:
        index = index * arities[c] + codes[:, c]
    _, dense = np.unique(index, return_inverse=True)
    return dense.reshape(-1), int(dense.max()) + 1


def g_test(data, x, y, z=()):
    """The G² test of ``x ⊥ y | z`` on the counts of the discrete ``data``.

    ``G² = 2 sum O log(O / E)`` over the cells of each configuration of
    ``z`` that occurs, ``E = n(x, z) n(y, z) / n(z)``; degrees of freedom
    ``sum_z (r_x(z) - 1)(r_y(z) - 1)`` with ``r(z)`` the states seen in that
    configuration (at least 1).

    Parameters
    ----------
    data : tandem.bn.Dataset
        Discrete.
    x, y : int or str
        Two columns.
    z : sequence of int or str
        The conditioning columns.

    Returns
    -------
    (float, int, float)
        ``G²``, the degrees of freedom and the p-value (1 with no degree of
        freedom).

    Examples
    --------
    >>> import tandem
    >>> from tandem.bn import load_network
    >>> data = load_network("asia").sample(2000, tandem.Philox(1))
    >>> g_test(data, "tub", "either")[2] < 1e-6        # tub -> either
    True
    >>> g_test(data, "tub", "xray", ["either"])[2] > 1e-3  # blocked by either
    True
    """
    if data.kind != "discrete":
        raise TypeError("g_test needs discrete data")
    codes = np.asarray(data.codes, dtype=np.int64)
    arities = data.arities
    x, y = data.index(x), data.index(y)
    z = [data.index(c) for c in z]
    if x == y or x in z or y in z:
        raise ValueError("x, y and z must be distinct columns")
    zi, nz = _configurations(codes, arities, z)
    rx, ry = arities[x], arities[y]
    counts = np.bincount((zi * rx + codes[:, x]) * ry + codes[:, y],
                         minlength=nz * rx * ry).reshape(nz, rx, ry).astype(np.float64)
    n_xz = counts.sum(axis=2, keepdims=True)
    n_yz = counts.sum(axis=1, keepdims=True)
    n_z = counts.sum(axis=(1, 2), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = n_xz * n_yz / n_z
        terms = np.where(counts > 0, counts * np.log(counts / expected), 0.0)
    g2 = float(2.0 * terms.sum())
    seen_x = (n_xz[:, :, 0] > 0).sum(axis=1)
    seen_y = (n_yz[:, 0, :] > 0).sum(axis=1)
    df = int(np.sum(np.maximum(seen_x - 1, 0) * np.maximum(seen_y - 1, 0)))
    return g2, df, chi2_sf(g2, df)


def pc_skeleton(data, *, alpha=0.01, max_order=2):
    """The skeleton of the PC algorithm, order-independent (PC-stable), by
    :func:`g_test`.

    Level ``l = 0, 1, ..., max_order``: for each edge ``x - y`` still present
    and each set ``S`` of ``l`` nodes adjacent to ``x`` (other than ``y``)
    when the level began, in the order of
    ``itertools.combinations``, the edge is removed at the first ``S`` with a
    p-value above ``alpha``; then the same from ``y``'s side. A test without
    degrees of freedom (``x`` or ``y`` constant in every configuration of
    ``S`` seen) has p-value 1 and removes the edge: a constant column is
    independent of everything, and a node that a set determines (asia's
    ``either``) loses its edges to what that set separates, as faithfulness
    has it.

    Parameters
    ----------
    data : tandem.bn.Dataset
        Discrete.
    alpha : float
        The tests' level: a larger ``alpha`` keeps more edges.
    max_order : int
        The largest conditioning set.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        Symmetric: ``[a, b]`` and ``[b, a]`` where the edge ``a - b`` stays.
        It can be given to :func:`tandem.bn.score_table` as ``candidates``.

    Examples
    --------
    >>> import tandem
    >>> from tandem.bn import load_network
    >>> network = load_network("asia")
    >>> data = network.sample(5000, tandem.Philox(2))
    >>> skeleton = pc_skeleton(data)
    >>> truth = network.adjacency() | network.adjacency().T
    >>> int((skeleton & truth).sum() // 2), int(truth.sum() // 2)
    (5, 8)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if isinstance(max_order, bool) or not isinstance(max_order, int) or max_order < 0:
        raise ValueError(f"max_order must be a non-negative int, got {max_order!r}")
    n = data.n_vars
    adjacent = ~np.eye(n, dtype=bool)
    for level in range(max_order + 1):
        before = adjacent.copy()
        for a, b in itertools.combinations(range(n), 2):
            for x, y in ((a, b), (b, a)):
                if not adjacent[x, y]:
                    break
                others = [c for c in np.flatnonzero(before[x]) if c != y]
                for s in itertools.combinations(others, level):
                    if g_test(data, x, y, s)[2] > alpha:
                        adjacent[x, y] = adjacent[y, x] = False
                        break
        if not any(len(np.flatnonzero(adjacent[x])) - 1 > level for x in range(n)):
            break
    return adjacent
