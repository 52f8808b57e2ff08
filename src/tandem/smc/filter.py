"""The bootstrap particle filter as array code on NumPy or CuPy."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .. import arrays, checks
from ..stream import Stream
from ._merge import SCHEME_CODES, resample_into, weigh
from .resampling import check_scheme, resample, uniforms_needed

#: The purpose of the stream that draws ``X_0``: ``root.sub(PURPOSE_INITIAL)``.
PURPOSE_INITIAL = "tandem.smc.initial"
#: The purpose of the stream that draws the transitions' noise.
PURPOSE_PROPAGATION = "tandem.smc.propagation"
#: The purpose of the stream that draws the resampling uniforms.
PURPOSE_RESAMPLING = "tandem.smc.resampling"


class FilterStreams(NamedTuple):
    """The three streams of a filter, one per purpose.

    A filter draws ``X_0`` from ``initial``, the transitions' noise from
    ``propagation`` and the resampling uniforms from ``resampling``; each
    step continues them, and no key is derived inside the loop.  A result's
    ``streams`` stand after the run's last draw: pass them back as ``root``
    to continue its draws.

    Parameters
    ----------
    initial : tandem.Stream
        The stream of the initial draws, ``root.sub("tandem.smc.initial")``.
    propagation : tandem.Stream
        The stream of the transitions, ``root.sub("tandem.smc.propagation")``.
    resampling : tandem.Stream
        The stream of the resampling uniforms,
        ``root.sub("tandem.smc.resampling")``.

    See Also
    --------
    tandem.smc.bootstrap_filter : Draws from these streams.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> root = tandem.Philox(123456)
    >>> streams = smc.FilterStreams.of(root)
    >>> streams.propagation == root.sub("tandem.smc.propagation")
    True
    """

    initial: Stream
    propagation: Stream
    resampling: Stream

    @classmethod
    def of(cls, root: Stream) -> FilterStreams:
        """The three streams of ``root``: its ``sub`` for each purpose.

        Parameters
        ----------
        root : tandem.Stream
            The root of a filter run.

        Returns
        -------
        FilterStreams
            ``root.sub(PURPOSE_INITIAL)``, ``root.sub(PURPOSE_PROPAGATION)``
            and ``root.sub(PURPOSE_RESAMPLING)``, independent of ``root``'s
            position.

        Examples
        --------
        >>> import tandem
        >>> from tandem import smc
        >>> root = tandem.Philox(123456)
        >>> smc.FilterStreams.of(root).initial == root.sub(smc.PURPOSE_INITIAL)
        True
        """
        return cls(root.sub(PURPOSE_INITIAL), root.sub(PURPOSE_PROPAGATION),
                   root.sub(PURPOSE_RESAMPLING))

    @classmethod
    def from_root(cls, root: Stream | FilterStreams) -> FilterStreams:
        """The streams a filter draws from, given its ``root`` argument.

        Parameters
        ----------
        root : tandem.Stream or FilterStreams
            A stream, or the ``streams`` of an earlier result.

        Returns
        -------
        FilterStreams
            ``root`` itself if it is a ``FilterStreams``, else
            :meth:`tandem.smc.FilterStreams.of` the stream ``root``.

        Raises
        ------
        TypeError
            If ``root`` is neither a tandem stream nor a ``FilterStreams``.

        Examples
        --------
        >>> import tandem
        >>> from tandem import smc
        >>> root = tandem.Philox(123456)
        >>> streams = smc.FilterStreams.from_root(root)
        >>> streams == smc.FilterStreams.of(root)
        True
        >>> smc.FilterStreams.from_root(streams) is streams
        True
        """
        if isinstance(root, cls):
            return root
        if not isinstance(root, Stream):
            raise TypeError(f"root must be a tandem Stream or FilterStreams, got "
                            f"{type(root).__name__}")
        return cls.of(root)


@dataclass(frozen=True)
class FilterResult:
    """The result of :func:`tandem.smc.bootstrap_filter`.

    The arrays of particles (``means``, ``variances``, ``particles`` and
    ``weights``) are NumPy arrays on the CPU and CuPy arrays with
    ``device="cuda"``; ``ess`` and ``resampled`` are NumPy arrays.

    Parameters
    ----------
    means : numpy.ndarray or cupy.ndarray, shape (T,) or (T, d)
        Weighted means of the particles at each step, before resampling
        (per coordinate for a vector state).
    variances : numpy.ndarray or cupy.ndarray, shape (T,) or (T, d)
        Weighted variances of the particles at each step, before resampling
        (per coordinate for a vector state).
    log_likelihood : float
        The estimate of ``log p(y_0 .. y_{T-1})``; its exponential is unbiased.
    ess : numpy.ndarray, shape (T,)
        The effective sample size ``1 / sum(W**2)`` at each step.
    resampled : numpy.ndarray of bool, shape (T,)
        Whether the particles were resampled after step ``t``.
    particles : numpy.ndarray or cupy.ndarray, shape (n,) or (n, d)
        The final particles, with normalised ``weights``: nothing is
        resampled after the last step.
    weights : numpy.ndarray or cupy.ndarray, shape (n,)
        The normalised weights of the final particles.
    streams : FilterStreams
        The three streams, moved on past every draw of the run: pass them
        back as ``root`` to continue.
    history : tuple or None
        With ``history=True``, ``(particles, weights)``: every step's
        particles, shape ``(T, n)`` or ``(T, n, d)``, and their normalised
        weights before resampling, shape ``(T, n)`` (what
        :func:`tandem.smc.smooth` needs); else None.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> result = smc.bootstrap_filter(tandem.Philox(123456), model, [0.1, 0.4, -0.2], 64)
    >>> result.means.shape, result.particles.shape
    ((3,), (64,))
    >>> result.resampled.tolist()
    [True, True, False]
    """

    means: object
    variances: object
    log_likelihood: float
    ess: np.ndarray
    resampled: np.ndarray
    particles: object
    weights: object
    streams: FilterStreams
    history: tuple | None = None


def _count(n, name):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {n!r}")
    if n <= 0:
        raise ValueError(f"{name} must be positive, got {n}")
    return int(n)


def _rows(x):
    """``x`` with at most two dimensions: one particle per row, or per element."""
    return x if x.ndim <= 2 else x.reshape(len(x), -1)


def _observations(observations):
    try:
        y = np.asarray(arrays.to_host(observations, "observations"), dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"observations must be real numbers, got {observations!r:.60}") from None
    if y.ndim == 0 or len(y) == 0:
        raise ValueError("observations must be a non-empty sequence")
    bad = np.flatnonzero(~np.isfinite(y.reshape(len(y), -1)).all(axis=1))
    if bad.size:
        raise ValueError(f"observations must be finite; step {bad[0]} is {y[bad[0]]}")
    return y


def _state_shape(model):
    shape = getattr(model, "state_shape", None)
    try:
        dims = tuple(checks.integer(d, "model.state_shape") for d in shape)
    except TypeError:
        raise TypeError(f"model.state_shape must be a tuple of ints, got {shape!r:.60}") from None
    if any(d <= 0 for d in dims) or math.prod(dims) > 2**31:
        raise ValueError(f"model.state_shape must hold positive sizes, got {shape!r}")
    return dims


def _model_stream(stream, method, t):
    if not isinstance(stream, Stream):
        raise TypeError(f"model.{method} must return the stream moved on, got "
                        f"{type(stream).__name__} at step {t}")
    return stream


def _log_density(value, xp, n, t):
    """The model's log-densities at step ``t`` as a C-contiguous f64 array of
    ``n``, checked before any compiled pass reads them."""
    where = f"model.observation_logpdf at step {t}"
    if type(value) is not xp.ndarray:
        raise TypeError(f"{where} must return a {xp.__name__} array (not a subclass), got "
                        f"{type(value).__name__}")
    if value.shape != (n,):
        raise ValueError(f"{where} returned shape {value.shape}, expected ({n},): one "
                         "log-density per particle")
    if value.dtype.kind not in "fiu":
        raise TypeError(f"{where} must return real numbers, got dtype {value.dtype}")
    return xp.ascontiguousarray(value, dtype=np.float64)


def _no_weight(log_weights, xp, t):
    """The ValueError for a step whose weights cannot be normalised."""
    nan = xp.isnan(log_weights)
    if bool(nan.any()):
        i = int(xp.argmax(nan))
        return ValueError(f"the observation log-density is NaN at step {t} for particle {i}")
    infinite = log_weights == np.inf
    if bool(infinite.any()):
        i = int(xp.argmax(infinite))
        return ValueError(f"the observation log-density is +inf at step {t} for particle {i}")
    return ValueError(f"all weights are zero at step {t}: every log-weight is -inf")


def bootstrap_filter(root: Stream | FilterStreams, model: object, observations: ArrayLike,
                     n_particles: int, *, resampling: str = "systematic",
                     ess_threshold: float | None = None,
                     device: str | None = None, history: bool = False) -> FilterResult:
    """Run a bootstrap particle filter.

    Every random number comes from the streams of ``root``, so one root
    reproduces a run, on any device.

    Parameters
    ----------
    root : tandem.Stream or FilterStreams
        A stream, whose ``sub`` streams for initialisation, propagation and
        resampling the filter draws from (:class:`tandem.smc.FilterStreams`),
        or the ``streams`` of an earlier result, to continue its draws.
    model : object
        The state-space model: ``sample_initial``, ``sample_transition``,
        ``observation_logpdf`` and ``state_shape``; see
        :mod:`tandem.smc.models`.
    observations : array_like, shape (T,) or (T, k)
        ``y_t`` observes ``X_t``; ``X_0`` comes from the initial distribution.
        Finite real numbers, at least one step.
    n_particles : int
        The number of particles, positive.
    resampling : {"systematic", "stratified", "residual", "multinomial"}, optional
        The resampling scheme (see :mod:`tandem.smc.resampling`).
    ess_threshold : float or None, optional
        In ``(0, 1]``: resample after a step only when its ESS is below
        ``ess_threshold * n_particles``; None resamples after every step.
        Nothing is resampled after the last step.
    device : {None, "cpu", "cuda"}, optional
        Where the particles live: NumPy arrays on the CPU (the default) or
        CuPy arrays on the GPU.  The draws are the same on both; the
        weighted sums may round differently (the devices sum in different
        orders), which can move an ancestor whose uniform falls within
        rounding of a cumulative weight.  On the GPU a built-in scalar model
        with systematic or stratified resampling from a Philox or Threefry
        root runs as three fused kernels a step, with no host
        synchronisation (:mod:`tandem.smc.filter_cuda`); anything else as
        CuPy array code.
    history : bool, optional
        Keep every step's particles and weights in ``result.history``, for
        :func:`tandem.smc.smooth` (``T`` times the particles' memory).

    Returns
    -------
    FilterResult
        The moments, likelihood estimate and effective sample sizes of every
        step, the final weighted particles, and the streams after the run's
        last draw.

    Raises
    ------
    TypeError
        If ``root`` is not a stream or ``FilterStreams``, ``n_particles`` or
        ``observations`` is of the wrong type, or a method of the model
        returns the wrong type.
    ValueError
        If an argument is out of range, or a step's weights cannot be
        normalised (a NaN or ``+inf`` log-density, or every weight zero).

    See Also
    --------
    tandem.smc.kalman : The exact filter of a linear Gaussian model.
    tandem.smc.batch_filters : Many small filters in one CUDA kernel.

    Notes
    -----
    A resampling draws a fixed number of uniforms whatever the weights (one
    for systematic resampling, ``n_particles`` otherwise), and the built-in
    models draw one normal per particle (per coordinate) to propagate.  So
    with ``ess_threshold=None`` the position of every stream after step
    ``t`` is known in advance, and the draws of step ``t`` can be computed
    alone.

    Two particle buffers alternate between propagation and resampling, so
    the loop allocates no particle arrays.  On NumPy arrays the weights,
    moments and resampling run as compiled passes over two length-``n`` f64
    scratch arrays (the weights and their cumulative sum), made once per
    run; on CuPy arrays each step allocates a few length-``n`` temporaries.
    The model may allocate its own (the built-in ones do, in their
    expressions).

    Examples
    --------
    The worked example of ``docs/smc.md``, with few particles:

    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    >>> result = smc.bootstrap_filter(tandem.Philox(123456), model, y, 256)
    >>> result.means.round(3)
    array([0.12 , 0.261, 0.021, 0.144, 0.078, 0.152])
    >>> round(result.log_likelihood, 3), round(smc.kalman(model, y).log_likelihood, 3)
    (-4.029, -4.018)

    The same root gives the same run; the result's streams continue it:

    >>> again = smc.bootstrap_filter(tandem.Philox(123456), model, y, 256)
    >>> bool((again.means == result.means).all())
    True
    >>> more = smc.bootstrap_filter(result.streams, model, y, 256)
    >>> bool((more.means == result.means).any())
    False

    Resample only when the effective sample size falls below half the
    particles:

    >>> smc.bootstrap_filter(tandem.Philox(123456), model, y, 256,
    ...                      ess_threshold=0.5).resampled.tolist()
    [False, True, False, False, False, False]
    """
    streams = FilterStreams.from_root(root)
    n = _count(n_particles, "n_particles")
    check_scheme(resampling)
    if ess_threshold is not None and not 0 < checks.real(ess_threshold, "ess_threshold") <= 1:
        raise ValueError(f"ess_threshold must be in (0, 1] or None, got {ess_threshold}")
    y = _observations(observations)
    expected = getattr(model, "observation_shape", None)
    if expected is not None and y[0].size != math.prod(expected):
        raise ValueError(f"observations: each step must have shape {tuple(expected)} for this "
                         f"model, got {y.shape[1:]}")
    device = arrays.check_device(device) or "cpu"
    if device == "cuda" and not history:
        from . import filter_cuda  # imports numba-cuda

        if filter_cuda.eligible(model, streams, resampling):
            try:
                *fields, after = filter_cuda.run(streams, model, y, n, resampling, ess_threshold)
            except filter_cuda.NoWeight as failed:
                raise _no_weight(failed.log_weights, arrays.module_of(failed.log_weights),
                                 failed.step) from None
            return FilterResult(*fields, FilterStreams(*after))
    xp = arrays.module(device)
    initial, propagation, resampling_stream = streams

    T = len(y)
    shape = (n,) + _state_shape(model)
    if 2 * 8 * math.prod(shape) > arrays.MAX_BYTES:
        raise ValueError(f"n_particles is too large for two arrays of particles, got {n}")
    try:
        buffers = (xp.empty(shape), xp.empty(shape))
    except MemoryError:
        raise MemoryError(f"n_particles {n}: cannot allocate two arrays of shape {shape}") from None
    means, variances = xp.empty((T,) + shape[1:]), xp.empty((T,) + shape[1:])
    ess, resampled = np.empty(T), np.zeros(T, dtype=bool)
    if history:  # every step's particles and normalised weights, for smoothing
        kept_particles, kept_weights = xp.empty((T,) + shape), xp.empty((T, n))
    compiled = xp is np  # weigh and resample in compiled passes (tandem.smc._merge)
    if compiled:
        w, cdf = np.empty(n), np.empty(n)
        mean_rows, variance_rows = means.reshape(T, -1), variances.reshape(T, -1)
    log_weights = None  # None: equal weights, after a resampling
    carried_norm = math.log(n)  # log sum exp(log_weights)
    log_likelihood = 0.0
    current = 0
    x = buffers[current]
    initial = _model_stream(model.sample_initial(initial, x), "sample_initial", 0)
    for t in range(T):
        if t > 0:
            current = 1 - current
            propagation = _model_stream(
                model.sample_transition(x, t, propagation, buffers[current]),
                "sample_transition", t)
            x = buffers[current]
        log_density = _log_density(model.observation_logpdf(x, y[t], t), xp, n, t)
        log_weights = log_density if log_weights is None else log_weights + log_density
        if compiled:
            top, total, squares = weigh(log_weights, _rows(x), w, cdf, mean_rows[t],
                                        variance_rows[t])
        else:
            top = float(log_weights.max())
        if not math.isfinite(top) or (not compiled and bool(xp.isnan(log_weights).any())):
            raise _no_weight(log_weights, xp, t)
        if not compiled:
            w = xp.exp(log_weights - top)
            total = float(w.sum())
            W = w / total
            squares = float((w * w).sum())
            Wx = W.reshape((n,) + (1,) * (x.ndim - 1))
            means[t] = (Wx * x).sum(axis=0)
            variances[t] = (Wx * (x - means[t]) ** 2).sum(axis=0)
        log_likelihood += top + math.log(total) - carried_norm
        ess[t] = total * total / squares
        if history:
            kept_particles[t] = x
            kept_weights[t] = w / total
        if t < T - 1 and (ess_threshold is None or ess[t] < ess_threshold * n):
            current = 1 - current
            if compiled and resampling in SCHEME_CODES:
                u, resampling_stream = resampling_stream.random(uniforms_needed(resampling, n))
                if resampling == "multinomial":
                    u.sort()
                resample_into(SCHEME_CODES[resampling], cdf, u, _rows(x),
                              _rows(buffers[current]))
            else:
                ancestors, resampling_stream = resample(
                    resampling, w / total, resampling_stream, device)
                xp.take(x, ancestors, axis=0, out=buffers[current])
            x = buffers[current]
            log_weights = None
            carried_norm = math.log(n)
            resampled[t] = True
        else:
            carried_norm = top + math.log(total)
    W = w / total
    return FilterResult(means, variances, float(log_likelihood), ess, resampled, x, W,
                        FilterStreams(initial, propagation, resampling_stream),
                        (kept_particles, kept_weights) if history else None)
