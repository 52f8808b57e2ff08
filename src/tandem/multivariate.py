"""Multivariate laws built on the fills: ``multivariate_normal``, ``dirichlet``
and ``multinomial``.

``multivariate_normal(mean, cov)`` draws the standard normals ``z`` of shape
``size + (k,)`` (the f64 normal fill, row after row) and returns
``mean + z M``, where ``cov = M^T M``.
The product runs in a fixed order of fused multiply-adds, compiled by the
backends (``transformed_rows``),
so the same ``M`` gives the same bits on any machine, and on a GPU
(``device="cuda"``, a CuPy array).  ``M`` comes from
tandem's own Cholesky factorisation (``method="cholesky"``, fixed-order
``fma`` and ``sqrt``: the same bits everywhere) or, as in NumPy, from
LAPACK's ``svd`` (the default, as NumPy's) or ``eigh`` (whose last bits
follow the machine's LAPACK).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from . import arrays, distributions, engine, parametric
from .kinds import KINDS, Real, resolve

_METHODS = ("svd", "eigh", "cholesky")
_CHECKS = ("warn", "raise", "ignore")


@functools.lru_cache(maxsize=None)
def _cholesky():
    """The compiled Cholesky factorisation (built once)."""
    from numba import njit

    from . import core
    from .core.fmath import fma

    core.register()
    digest = core.source_digest()  # in the kernel's closure: it keys its disk cache

    @njit(cache=True)
    def cholesky(a, out):
        """``out`` = the lower factor ``L`` of ``a = L L^T``; False if ``a`` is
        not positive definite."""
        k = a.shape[0] + (digest & 0)
        for r in range(k):
            for c in range(r + 1):
                acc = a[r, c]
                for j in range(c):
                    acc = fma(-out[r, j], out[c, j], acc)
                if r == c:
                    if not acc > 0.0:
                        return False
                    out[r, r] = np.sqrt(acc)
                else:
                    out[r, c] = np.divide(acc, out[c, c])
        return True

    return cholesky


def _factor(cov, method, check_valid, tol):
    """``M`` with ``cov = M^T M``, by ``method``."""
    if method == "cholesky":
        lower = np.zeros_like(cov)
        if not _cholesky()(cov, lower):
            raise np.linalg.LinAlgError("cov must be positive definite for "
                                        "method='cholesky'")
        return np.ascontiguousarray(lower.T)
    # NumPy's factors: u sqrt(s) of the svd, u sqrt(|s|) of eigh.
    if method == "svd":
        u, s, v = np.linalg.svd(cov)
        valid = np.allclose(np.dot(v.T * s, v), cov, rtol=tol, atol=tol)
        factor = (u * np.sqrt(s)).T
    else:
        s, u = np.linalg.eigh(cov)
        valid = not bool((s < -tol).any())
        factor = (u * np.sqrt(np.abs(s))).T
    if not valid and check_valid != "ignore":
        message = "covariance is not symmetric positive-semidefinite"
        if check_valid == "raise":
            raise ValueError(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)
    return np.ascontiguousarray(factor)


def multivariate_normal(stream, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                        method="svd", threads=None, device=None, backend=None):
    """Draws of the normal law of mean ``mean`` and covariance ``cov``:
    ``(values of shape size + (k,), next stream)``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    mean : array_like, shape (k,)
    cov : array_like, shape (k, k)
        Symmetric positive semi-definite (positive definite for ``cholesky``).
    size : int or tuple of int, optional
        The shape of the draws; None for one.
    check_valid : {"warn", "raise", "ignore"}
        What a ``cov`` that is not positive semi-definite does (``svd``, ``eigh``).
    tol : float
        The tolerance of that check.
    method : {"svd", "eigh", "cholesky"}
        How ``cov`` is factorised (see the module's docstring).
    threads : int, optional
        CPU threads (the values do not depend on them).
    device : {"cpu", "cuda"}, optional
        Where the draws are made: ``"cuda"`` returns a CuPy array with the
        same bits (``cov`` is factorised on the host).

    Returns
    -------
    (numpy.ndarray, tandem.Stream)
        Row ``i`` takes the ``k`` standard normals of elements ``k i`` to
        ``k i + k - 1`` of the f64 normal fill from ``stream``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import multivariate
    >>> x, _ = multivariate.multivariate_normal(tandem.Philox(1), [0.0, 1.0],
    ...                                          [[1.0, 0.5], [0.5, 2.0]], 3)
    >>> x.shape
    (3, 2)
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r:.60}")
    if check_valid not in _CHECKS:
        raise ValueError(f"check_valid must be one of {_CHECKS}, got {check_valid!r:.60}")
    for name, value in (("mean", mean), ("cov", cov)):
        arrays.refuse_masked(value, name)
    mean = np.asarray(mean, dtype=np.float64)
    cov = np.asarray(cov, dtype=np.float64)
    if mean.ndim != 1:
        raise ValueError(f"mean must be 1-dimensional, got shape {mean.shape}")
    k = mean.shape[0]
    if cov.shape != (k, k):
        raise ValueError(f"cov must be a {k} x {k} matrix, as mean has {k} entries; got "
                         f"shape {cov.shape}")
    if not (np.isfinite(mean).all() and np.isfinite(cov).all()):
        raise ValueError("mean and cov must be finite")
    shape = arrays.shape_of(size)
    shape = () if shape is None else tuple(shape)
    device = arrays.check_device(device) or "cpu"
    xp = arrays.module(device)
    factor = _factor(np.ascontiguousarray(cov), method, check_valid, tol)
    z, after = distributions.normal(stream, shape + (k,), threads=threads, device=device,
                                    backend=backend)
    rows = int(np.prod(shape, dtype=np.int64))
    out = xp.empty((rows, k))
    if rows and k:
        engine.backend_for(backend or device).transformed_rows(
            z.reshape(rows, k), xp.asarray(factor), xp.asarray(mean), out, threads)
    return out.reshape(shape + (k,)), after


def dirichlet(stream, alpha, size=None, *, threads=None, device=None, backend=None):
    """Dirichlet draws, NumPy's two ways: ``(values of shape size + (k,), next stream)``.

    Where the largest ``alpha`` is at least 0.1, row ``i`` is the
    standard_gamma(``alpha[j]``) elements at blocks ``k i + j`` (``4 k`` words a
    row), divided by their sum in order.  Below, it breaks a stick: ``v_j``
    the beta(``alpha[j]``, ``alpha[j+1] + ... + alpha[k-1]``) element
    ``(k - 1) i + j`` of :func:`tandem.parametric.beta`, ``x_j = r v_j`` with
    ``r`` the rest, ``r`` times ``1 - v_j`` after (``8 (k - 1)`` words a row),
    and ``x_{k-1}`` the last rest; ``v_j`` is 0 where ``alpha[j]`` is 0 and 1
    where every later alpha is.  Zero alphas give zero components.
    ``device="cuda"`` returns a CuPy array with the same bits.

    Examples
    --------
    >>> import tandem
    >>> from tandem import multivariate
    >>> x, _ = multivariate.dirichlet(tandem.Philox(1), [1.0, 2.0, 3.0], 4)
    >>> x.shape
    (4, 3)
    """
    arrays.refuse_masked(alpha, "alpha")
    alpha = np.asarray(alpha)
    if alpha.ndim == 0:
        raise TypeError(f"alpha must be a sequence, got {alpha!r:.60}")
    if alpha.ndim != 1 or alpha.size < 1:
        raise ValueError(f"alpha must be a non-empty 1-dimensional array, got shape "
                         f"{alpha.shape}")
    alpha = Real("alpha", nonnegative=True, bound=1.0).check_array(alpha, np.dtype(np.float64))
    k = alpha.size
    device = arrays.check_device(device) or "cpu"
    xp = arrays.module(device)
    if alpha.max() >= 0.1:
        shape, rows, base = parametric.block_layout(stream, size, (), "", 4 * k)
        values = xp.empty((rows, k))
        module = engine.backend_for(backend or device)
        if rows and hasattr(module, "dirichlet_rows"):  # a GPU: a row a thread, in one kernel
            kind, words = parametric.parameter_words("standard_gamma", alpha)
            module.dirichlet_rows(resolve(base, kind), xp.asarray(words), values, threads)
        elif rows:  # a CPU: a column at a time, whose scalar shape takes its fastest fill
            columns = xp.empty((k, rows))
            blocks = xp.arange(rows, dtype=np.uint64) * np.uint64(k)
            for j in range(k):
                record = parametric.scalar_record(base, "standard_gamma", alpha[j])
                module.addressed(record, blocks, columns[j], threads)
                blocks += np.uint64(1)
            module.normalised_rows(columns.T, values, threads)
        words = 4 * k * rows
    else:
        shape, rows, base = parametric.block_layout(stream, size, (), "", 8 * (k - 1))
        tail = np.cumsum(alpha[::-1])[::-1]  # tail[j] = alpha[j] + ... + alpha[k-1]
        values = xp.empty((rows, k))
        rest = xp.ones(rows)
        for j in range(k - 1):
            elements = xp.arange(rows, dtype=np.uint64) * np.uint64(k - 1) + np.uint64(j)
            if alpha[j] == 0 or tail[j + 1] == 0:  # nothing drawn: the stick's end
                v = xp.full(rows, 0.0 if alpha[j] == 0 else 1.0)
            else:
                v = parametric.beta_at(base, elements, np.asarray(alpha[j]),
                                       np.asarray(tail[j + 1]), device, threads, backend)
            values[:, j] = rest * v
            rest = rest * (1.0 - v)
        values[:, k - 1] = rest
        if tail[0] == 0:  # every alpha 0: every component 0, as NumPy's
            values[:] = 0.0
        words = 8 * (k - 1) * rows
    return values.reshape(shape + (k,)), stream.at_word(base.word_position + words)


def multinomial(stream, n, pvals, size=None, *, threads=None, device=None, backend=None):
    """Multinomial counts, NumPy's sequence of binomials: ``(int64 values of shape
    size + (k,), next stream)``.

    Row ``i``'s count ``j < k - 1`` is the binomial element at block
    ``(k - 1) i + j`` with the trials left and ``min(1, pvals[j] / rest)``,
    ``rest`` being 1 less ``pvals[0] + ... + pvals[j - 1]`` (in order); the
    last count is the trials left.  ``4 (k - 1)`` words a row.
    ``device="cuda"`` returns a CuPy array with the same counts.

    Examples
    --------
    >>> import tandem
    >>> from tandem import multivariate
    >>> x, _ = multivariate.multinomial(tandem.Philox(1), 10, [0.2, 0.3, 0.5], 2)
    >>> x.sum(axis=1).tolist()
    [10, 10]
    """
    arrays.refuse_masked(pvals, "pvals")
    pvals = np.asarray(pvals, dtype=np.float64)
    if pvals.ndim != 1 or pvals.size < 1:
        raise ValueError(f"pvals must be a non-empty 1-dimensional array, got shape "
                         f"{pvals.shape}")
    if not ((pvals >= 0) & (pvals <= 1)).all():
        raise ValueError("pvals must be in [0, 1]")
    if pvals[:-1].sum() > 1.0 + 1e-12:
        raise ValueError("the sum of pvals[:-1] must be at most 1")
    n = int(Real("n", nonnegative=True, bound=2.0**52 / float(np.finfo(np.float64).max))
            .check(n, np.dtype(np.float64)))
    k = pvals.size
    device = arrays.check_device(device) or "cpu"
    xp = arrays.module(device)
    shape, rows, base = parametric.block_layout(stream, size, (), "", 4 * (k - 1))
    p, rest = np.empty(k), 1.0
    for j in range(k - 1):
        p[j] = min(1.0, pvals[j] / rest) if rest > 0 else 1.0
        rest -= pvals[j]
    counts = xp.empty((rows, k), dtype=np.int64)
    if rows:
        engine.backend_for(backend or device).multinomial_rows(
            resolve(base, KINDS["binomial64"]), n, xp.asarray(p), counts, threads)
    return counts.reshape(shape + (k,)), stream.at_word(base.word_position + 4 * (k - 1) * rows)
