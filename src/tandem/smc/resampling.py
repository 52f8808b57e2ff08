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
from ..stream import Stream

#: The resampling schemes, by name.
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


def resample(scheme: str, weights: np.ndarray, stream: Stream,
             device: str | None = None) -> tuple:
    """Draw the ancestors of ``n`` particles from their normalised weights.

    Each scheme draws a fixed number of f64 uniforms whatever the weights
    (one for ``"systematic"``, ``n`` otherwise; see
    :mod:`tandem.smc.resampling`), so the stream's position afterwards never
    depends on them.

    Parameters
    ----------
    scheme : {"multinomial", "systematic", "stratified", "residual"}
        The resampling scheme.
    weights : numpy.ndarray or cupy.ndarray, shape (n,)
        Non-negative, summing to 1.
    stream : tandem.Stream
        The stream to draw the uniforms from.
    device : {None, "cpu", "cuda"}, optional
        Where the uniforms are made, as for :meth:`tandem.Stream.random`
        (None: on the CPU); ``"cuda"`` for CuPy ``weights``.

    Returns
    -------
    tuple of (numpy.ndarray or cupy.ndarray, tandem.Stream)
        The ancestor indices (int64, sorted, shape ``(n,)``, on the device of
        ``weights``) and ``stream`` moved on past the uniforms.

    Notes
    -----
    The inverse CDF is ``searchsorted`` on the cumulative sum on CuPy arrays
    and one merge pass on NumPy arrays; the two may sum in different orders,
    so an ancestor can differ where a uniform falls within rounding of a
    cumulative weight.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> weights = np.array([0.5, 0.0, 0.25, 0.25])
    >>> ancestors, after = smc.resample("systematic", weights, tandem.Philox(5))
    >>> ancestors
    array([0, 0, 2, 3])
    >>> after == tandem.Philox(5).random(1)[1]
    True
    """
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
