"""Resampling schemes: normalised weights and uniforms -> ancestor indices.

Each scheme takes ``weights`` (non-negative, summing to 1, shape ``(n,)``)
and draws a fixed number of f64 uniforms from its stream, whatever the
weights, so that the stream's position after a step never depends on them:

========================  =====================================================
scheme                    uniforms per call, and the rule
========================  =====================================================
``"multinomial"``         ``n``: ancestors are the inverse CDF of ``n`` i.i.d.
                          uniforms (with replacement).
``"systematic"``          ``1``: ``u_k = (k + U) / n``.
``"stratified"``          ``n``: ``u_k = (k + U_k) / n``.
``"residual"``            ``n``: ``floor(n w_i)`` copies of each ``i``, then the
                          ``R`` left over by multinomial resampling of the
                          residual weights from the first ``R`` uniforms.
========================  =====================================================

Ancestors come out sorted.  The inverse CDF is ``searchsorted`` on the
cumulative sum, so the same code runs on NumPy and CuPy arrays; the two may
sum in different orders, so an ancestor can differ where a uniform falls
within rounding of a cumulative weight.
"""

from __future__ import annotations

import numpy as np

from ..arrays import module_of

SCHEMES = ("multinomial", "systematic", "stratified", "residual")


def uniforms_needed(scheme, n):
    """How many uniforms ``scheme`` draws for ``n`` particles."""
    check_scheme(scheme)
    return 1 if scheme == "systematic" else n


def check_scheme(scheme):
    if scheme not in SCHEMES:
        raise ValueError(f"resampling must be one of {SCHEMES}, got {scheme!r}")
    return scheme


def _inverse_cdf(weights, points):
    """Indices ``i`` with ``cumsum(weights)[i - 1] <= point < cumsum(weights)[i]``
    for sorted ``points``; the last index for a point above the rounded total."""
    xp = module_of(weights)
    cdf = xp.cumsum(weights)
    if xp is np:  # one merge pass; searchsorted is O(n log n) here
        from ._merge import inverse_cdf_sorted

        return inverse_cdf_sorted(cdf, points)
    return xp.minimum(xp.searchsorted(cdf, points, side="right"), weights.size - 1)


def resample(scheme, weights, stream, device=None):
    """Ancestor indices (int64, sorted, shape ``(n,)``) and the stream moved on."""
    xp = module_of(weights)
    n = weights.size
    u, stream = stream.random(uniforms_needed(scheme, n), device=device)
    if scheme == "multinomial":
        return _inverse_cdf(weights, xp.sort(u)), stream
    if scheme == "systematic":
        return _inverse_cdf(weights, (xp.arange(n) + u[0]) / n), stream
    if scheme == "stratified":
        return _inverse_cdf(weights, (xp.arange(n) + u) / n), stream
    copies = xp.floor(n * weights).astype(np.int64)
    rest = n - int(copies.sum())
    ends = xp.cumsum(copies)
    deterministic = xp.searchsorted(ends, xp.arange(n - rest), side="right")
    if rest == 0:
        return deterministic, stream
    residual = n * weights - copies
    residual /= residual.sum()
    drawn = _inverse_cdf(residual, xp.sort(u[:rest]))
    return xp.sort(xp.concatenate([deterministic, drawn])), stream
