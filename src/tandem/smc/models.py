"""State-space models for the bootstrap filter, as array code.

A model is any object with these methods over particle arrays (NumPy or
CuPy; a particle is one row of ``x``, or one element when the state is a
scalar):

``sample_initial(stream, out) -> stream``
    Write draws of ``X_0`` into ``out``; return the stream moved on.
``sample_transition(x, t, stream, out) -> stream``
    Write draws of ``X_t | X_{t-1} = x`` into ``out``.
``observation_logpdf(x, y, t) -> array``
    ``log g(y_t | x)`` for every particle.

A model may also say ``observation_shape``, the shape of one ``y_t``; the
filter then checks the observations against it before the first step.

The names follow the mathematics: ``X_0 ~ p_0``, ``X_t | X_{t-1} ~ f``,
``Y_t | X_t ~ g``.  Draws come from the stream handed in, so the same root
reproduces a run on any device.  ``state_shape`` is the shape of one
particle (``()`` for a scalar state).

A user model is a few lines; for example a random walk observed in
Student-t noise::

    class RandomWalk:
        state_shape = ()
        def sample_initial(self, stream, out):
            return stream.normal(out=out)[1]
        def sample_transition(self, x, t, stream, out):
            stream = stream.normal(out=out)[1]
            out += x
            return stream
        def observation_logpdf(self, x, y, t):
            return -2.5 * np.log1p((y - x) ** 2 / 4)   # up to a constant
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .. import checks
from ..arrays import module_of
from ..stream import Stream

_LOG_2PI = math.log(2 * math.pi)


def _normal_logpdf(x, mean, sd: float):
    """``log N(x; mean, sd**2)`` elementwise (``x`` and ``mean`` broadcast)."""
    r = (x - mean) / sd
    return -0.5 * (_LOG_2PI + r * r) - math.log(sd)


def _sd(value, name):
    """A standard deviation whose square and its inverse are finite and non-zero
    floats, as the densities and the Kalman filter need them."""
    value = checks.positive(value, name)
    if not (0 < value * value < math.inf and 1 / (value * value) < math.inf):
        raise ValueError(f"{name} must be such that its square and the inverse of its "
                         f"square are finite and non-zero, got {value}")
    return value


def _real_array(value, name):
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of real numbers, got {value!r:.60}") from None
    if array.ndim > 2:
        raise ValueError(f"{name} must have at most two dimensions, got shape {array.shape}")
    return array


class LinearGaussian:
    """A linear Gaussian model of a scalar state.

    ``X_0 ~ N(initial_mean, initial_sd**2)``,
    ``X_t = transition X_{t-1} + process_sd e_t``,
    ``Y_t = X_t + observation_sd n_t``, with ``e_t, n_t ~ N(0, 1)``.

    Draws: ``normal(loc=initial_mean, scale=initial_sd)`` for ``X_0`` and one
    standard normal per particle and step for ``e_t`` (f64).

    Parameters
    ----------
    transition : float
        The coefficient of ``X_{t-1}``; finite.
    process_sd : float
        The standard deviation of the transition's noise; positive.
    observation_sd : float
        The standard deviation of the observation noise; positive.
    initial_mean : float, optional
        The mean of ``X_0``; finite.
    initial_sd : float, optional
        The standard deviation of ``X_0``; positive.

    Attributes
    ----------
    state_shape : tuple
        ``()``: one particle is one element of an array.
    observation_shape : tuple
        ``()``: each ``y_t`` is a number.

    Raises
    ------
    ValueError
        If a parameter is not finite, or a standard deviation is not
        positive or its square or the inverse of its square is not a finite
        non-zero float.

    See Also
    --------
    tandem.smc.kalman : The exact filter of this model.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    >>> y = [0.1, 0.4, -0.2]
    >>> result = smc.bootstrap_filter(tandem.Philox(1), model, y, 64)
    >>> exact = smc.kalman(model, y)
    >>> bool(abs(result.means - exact.means).max() < 0.1)
    True
    """

    state_shape = ()
    observation_shape = ()

    def __init__(self, transition: float, process_sd: float, observation_sd: float,
                 initial_mean: float = 0.0, initial_sd: float = 1.0) -> None:
        self.transition = checks.finite(transition, "transition")
        self.process_sd = _sd(process_sd, "process_sd")
        self.observation_sd = _sd(observation_sd, "observation_sd")
        self.initial_mean = checks.finite(initial_mean, "initial_mean")
        self.initial_sd = _sd(initial_sd, "initial_sd")

    def sample_initial(self, stream: Stream, out: np.ndarray) -> Stream:
        """Write draws of ``X_0`` into ``out``.

        ``stream.normal(out=out, loc=initial_mean, scale=initial_sd)``: one
        f64 normal per particle.

        Parameters
        ----------
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles to write, f64.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.LinearGaussian(0.9, 0.3, 0.5, initial_mean=1.0)
        >>> x = np.empty(4)
        >>> after = model.sample_initial(tandem.Philox(7), x)
        >>> values, moved = tandem.Philox(7).normal(4, loc=1.0)
        >>> bool((x == values).all()), after == moved
        (True, True)
        """
        return stream.normal(out=out, loc=self.initial_mean, scale=self.initial_sd)[1]

    def sample_transition(self, x: np.ndarray, t: int, stream: Stream,
                          out: np.ndarray) -> Stream:
        """Write draws of ``X_t`` given ``X_{t-1} = x`` into ``out``.

        ``transition x + process_sd e_t``, with one f64 standard normal
        ``e_t`` per particle from ``stream``.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles at step ``t - 1``.
        t : int
            The step; the model is the same at every step.
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles to write, f64, on the device of ``x``; not ``x``.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.LinearGaussian(0.9, 0.3, 0.5)
        >>> x, out = np.array([0.0, 1.0]), np.empty(2)
        >>> after = model.sample_transition(x, 1, tandem.Philox(7), out)
        >>> noise, moved = tandem.Philox(7).normal(2, scale=0.3)
        >>> bool(np.allclose(out, 0.9 * x + noise)), after == moved
        (True, True)
        """
        stream = stream.normal(out=out, scale=self.process_sd)[1]
        out += self.transition * x
        return stream

    def transition_logpdf(self, x_before: np.ndarray, x: np.ndarray, t: int) -> np.ndarray:
        """The log-density of each particle ``x[j]`` at step ``t`` given each
        ``x_before[i]`` at step ``t - 1`` (for smoothing).

        Parameters
        ----------
        x_before : numpy.ndarray or cupy.ndarray, shape (m,)
            The particles at step ``t - 1``.
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles at step ``t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (m, n)
            ``log N(x[j]; transition x_before[i], process_sd**2)`` at ``[i, j]``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.LinearGaussian(0.9, 0.3, 0.5)
        >>> model.transition_logpdf(np.array([0.0, 1.0]), np.array([0.0]), 1).shape
        (2, 1)
        """
        return _normal_logpdf(x[None, :], self.transition * x_before[:, None], self.process_sd)

    def observation_logpdf(self, x: np.ndarray, y: float, t: int) -> np.ndarray:
        """The log-density of the observation ``y`` given each particle.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles at step ``t``.
        y : float
            The observation ``y_t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (n,)
            ``log N(y; x, observation_sd**2)`` for every particle, on the
            device of ``x``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.LinearGaussian(0.9, 0.3, observation_sd=0.5)
        >>> model.observation_logpdf(np.array([0.0, 1.0]), 0.0, 0).round(6)
        array([-0.225791, -2.225791])
        """
        # In place on one temporary: a temporary of 10**5 particles costs
        # about as much as the arithmetic, in page faults.
        log_density = x - y
        log_density *= log_density
        log_density *= -0.5 / self.observation_sd**2
        log_density -= math.log(self.observation_sd) + 0.5 * _LOG_2PI
        return log_density

    def as_multivariate(self) -> MultivariateLinearGaussian:
        """The same model as a multivariate model of dimension 1.

        Returns
        -------
        MultivariateLinearGaussian
            ``A = [[transition]]``, ``Q = [[process_sd**2]]``, ``H = [[1]]``,
            ``R = [[observation_sd**2]]``, ``m0 = [initial_mean]`` and
            ``P0 = [[initial_sd**2]]``.

        Examples
        --------
        >>> from tandem import smc
        >>> model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
        >>> model.as_multivariate().Q
        array([[0.09]])
        """
        return MultivariateLinearGaussian(
            [[self.transition]], [[self.process_sd**2]], [[1.0]], [[self.observation_sd**2]],
            [self.initial_mean], [[self.initial_sd**2]])


class MultivariateLinearGaussian:
    """A linear Gaussian model of a vector state.

    ``X_0 ~ N(m0, P0)``, ``X_t = A X_{t-1} + e_t`` with ``e_t ~ N(0, Q)``,
    ``Y_t = H X_t + v_t`` with ``v_t ~ N(0, R)``.

    Draws: ``d`` standard normals per particle and step (f64), mapped
    through the lower Cholesky factor.

    Parameters
    ----------
    A : array_like, shape (d, d)
        The transition matrix.
    Q : array_like, shape (d, d)
        The covariance of the transition's noise; symmetric positive definite.
    H : array_like, shape (k, d)
        The observation matrix.
    R : array_like, shape (k, k)
        The covariance of the observation noise; symmetric positive definite.
    m0 : array_like, shape (d,)
        The mean of ``X_0``.
    P0 : array_like, shape (d, d)
        The covariance of ``X_0``; symmetric positive definite.

    Attributes
    ----------
    state_shape : tuple
        ``(d,)``: one particle is one row of an array.
    observation_shape : tuple
        ``(k,)``: the shape of each ``y_t``.

    Raises
    ------
    ValueError
        If a matrix has the wrong shape or is not finite, or ``Q``, ``R`` or
        ``P0`` is not positive definite.

    See Also
    --------
    tandem.smc.kalman : The exact filter of this model.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> model = smc.MultivariateLinearGaussian(
    ...     A=[[0.9, 0.1], [0.0, 0.8]], Q=0.09 * np.eye(2), H=[[1.0, 0.0]], R=[[0.25]],
    ...     m0=[0.0, 0.0], P0=np.eye(2))
    >>> model.state_shape, model.observation_shape
    ((2,), (1,))
    >>> result = smc.bootstrap_filter(tandem.Philox(1), model, [[0.3], [0.1], [0.5]], 64)
    >>> result.means.shape
    (3, 2)
    """

    def __init__(self, A: ArrayLike, Q: ArrayLike, H: ArrayLike,
                 R: ArrayLike, m0: ArrayLike, P0: ArrayLike) -> None:
        self.A, self.Q, self.H, self.R, self.P0 = (
            np.atleast_2d(_real_array(M, name))
            for M, name in ((A, "A"), (Q, "Q"), (H, "H"), (R, "R"), (P0, "P0")))
        self.m0 = np.atleast_1d(_real_array(m0, "m0"))
        d, k = self.A.shape[0], self.H.shape[0]
        for name, M, shape in (("A", self.A, (d, d)), ("Q", self.Q, (d, d)),
                               ("H", self.H, (k, d)), ("R", self.R, (k, k)),
                               ("P0", self.P0, (d, d)), ("m0", self.m0, (d,))):
            if M.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {M.shape}")
            if not np.isfinite(M).all():
                raise ValueError(f"{name} must be finite")
        for name in ("Q", "R", "P0"):
            try:
                np.linalg.cholesky(getattr(self, name))
            except np.linalg.LinAlgError:
                raise ValueError(f"{name} must be symmetric positive definite") from None
        self.state_shape = (d,)
        self.observation_shape = (k,)
        self._chol_Q = np.linalg.cholesky(self.Q)
        self._chol_P0 = np.linalg.cholesky(self.P0)
        self._R_inv = np.linalg.inv(self.R)
        self._log_norm = -0.5 * (k * _LOG_2PI + np.linalg.slogdet(self.R)[1])

    def _on(self, xp, M):
        return M if xp is np else xp.asarray(M)

    def sample_initial(self, stream: Stream, out: np.ndarray) -> Stream:
        """Write draws of ``X_0`` into ``out``.

        ``d`` f64 standard normals per particle, ``z`` (a row of ``out``),
        mapped to ``m0 + L z`` with ``L`` the lower Cholesky factor of ``P0``.

        Parameters
        ----------
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n, d)
            The particles to write, f64, C-contiguous.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.MultivariateLinearGaussian(
        ...     A=np.eye(2), Q=np.eye(2), H=np.eye(2), R=np.eye(2), m0=[5.0, 0.0], P0=np.eye(2))
        >>> x = np.empty((3, 2))
        >>> after = model.sample_initial(tandem.Philox(7), x)
        >>> z, moved = tandem.Philox(7).normal((3, 2))
        >>> bool(np.allclose(x, z + [5.0, 0.0])), after == moved
        (True, True)
        """
        xp = module_of(out)
        stream = stream.normal(out=out)[1]
        out[...] = out @ self._on(xp, self._chol_P0).T + self._on(xp, self.m0)
        return stream

    def sample_transition(self, x: np.ndarray, t: int, stream: Stream,
                          out: np.ndarray) -> Stream:
        """Write draws of ``X_t`` given ``X_{t-1} = x`` into ``out``.

        ``d`` f64 standard normals per particle, ``z``, mapped to
        ``A x + L z`` with ``L`` the lower Cholesky factor of ``Q``.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n, d)
            The particles at step ``t - 1``.
        t : int
            The step; the model is the same at every step.
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n, d)
            The particles to write, f64, C-contiguous, on the device of
            ``x``; not ``x``.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.MultivariateLinearGaussian(
        ...     A=2 * np.eye(2), Q=np.eye(2), H=np.eye(2), R=np.eye(2), m0=[0.0, 0.0],
        ...     P0=np.eye(2))
        >>> x, out = np.ones((3, 2)), np.empty((3, 2))
        >>> after = model.sample_transition(x, 1, tandem.Philox(7), out)
        >>> z, moved = tandem.Philox(7).normal((3, 2))
        >>> bool(np.allclose(out, 2 * x + z)), after == moved
        (True, True)
        """
        xp = module_of(out)
        stream = stream.normal(out=out)[1]
        out[...] = out @ self._on(xp, self._chol_Q).T + x @ self._on(xp, self.A).T
        return stream

    def transition_logpdf(self, x_before: np.ndarray, x: np.ndarray, t: int) -> np.ndarray:
        """The log-density of each particle ``x[j]`` at step ``t`` given each
        ``x_before[i]`` at step ``t - 1`` (for smoothing).

        Parameters
        ----------
        x_before : numpy.ndarray or cupy.ndarray, shape (m, d)
            The particles at step ``t - 1``.
        x : numpy.ndarray or cupy.ndarray, shape (n, d)
            The particles at step ``t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (m, n)
            ``log N(x[j]; A x_before[i], Q)`` at ``[i, j]``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.MultivariateLinearGaussian(
        ...     A=np.eye(2), Q=np.eye(2), H=[[1.0, 0.0]], R=[[0.25]], m0=[0.0, 0.0],
        ...     P0=np.eye(2))
        >>> model.transition_logpdf(np.zeros((1, 2)), np.array([[0.0, 0.0], [1.0, 1.0]]), 1).round(6)
        array([[-1.837877, -2.837877]])
        """
        xp = module_of(x)
        L = self._on(xp, self._chol_Q)
        # whitened: L^-1 x_j - L^-1 A x_i, with Q = L L'
        white = xp.linalg.solve(L, x.T).T
        before = xp.linalg.solve(L, (x_before @ self._on(xp, self.A).T).T).T
        squares = ((white * white).sum(axis=1)[None, :] + (before * before).sum(axis=1)[:, None]
                   - 2.0 * before @ white.T)
        d = x.shape[1]
        log_det = float(np.log(np.diag(self._chol_Q)).sum())
        return -0.5 * (d * _LOG_2PI + xp.maximum(squares, 0.0)) - log_det

    def observation_logpdf(self, x: np.ndarray, y: ArrayLike, t: int) -> np.ndarray:
        """The log-density of the observation ``y`` given each particle.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n, d)
            The particles at step ``t``.
        y : array_like, shape (k,)
            The observation ``y_t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (n,)
            ``log N(y; H x, R)`` for every particle, on the device of ``x``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.MultivariateLinearGaussian(
        ...     A=np.eye(2), Q=np.eye(2), H=[[1.0, 0.0]], R=[[0.25]], m0=[0.0, 0.0],
        ...     P0=np.eye(2))
        >>> model.observation_logpdf(np.array([[0.0, 5.0], [1.0, 0.0]]), [0.0], 0).round(6)
        array([-0.225791, -2.225791])
        """
        xp = module_of(x)
        r = self._on(xp, np.atleast_1d(y)) - x @ self._on(xp, self.H).T
        return self._log_norm - 0.5 * xp.einsum("ni,ij,nj->n", r, self._on(xp, self._R_inv), r)


class StochasticVolatility:
    """The stochastic volatility model: a log-variance that follows an AR(1).

    ``X_0 ~ N(mu, sigma**2 / (1 - phi**2))``,
    ``X_t = mu + phi (X_{t-1} - mu) + sigma e_t``, ``Y_t ~ N(0, exp(X_t))``.

    ``|phi| < 1``.  Draws: one standard normal per particle and step (f64).

    Parameters
    ----------
    mu : float, optional
        The mean of the log-variance ``X_t``; finite.
    phi : float, optional
        The autoregression coefficient, in ``(-1, 1)``.
    sigma : float, optional
        The standard deviation of the transition's noise; positive.

    Attributes
    ----------
    state_shape : tuple
        ``()``: one particle is one element of an array.
    observation_shape : tuple
        ``()``: each ``y_t`` is a number.

    Raises
    ------
    ValueError
        If ``mu`` or ``phi`` is not finite, ``phi`` is not in ``(-1, 1)``, or
        ``sigma`` is not positive or its square or the inverse of its square
        is not a finite non-zero float.

    Examples
    --------
    >>> import tandem
    >>> from tandem import smc
    >>> model = smc.StochasticVolatility(mu=0.0, phi=0.95, sigma=0.2)
    >>> result = smc.bootstrap_filter(tandem.Philox(1), model, [0.3, -1.2, 0.5], 64)
    >>> result.means.round(3)
    array([-0.062,  0.106, -0.013])
    """

    state_shape = ()
    observation_shape = ()

    def __init__(self, mu: float = 0.0, phi: float = 0.95, sigma: float = 0.2) -> None:
        self.mu = checks.finite(mu, "mu")
        self.phi = checks.finite(phi, "phi")
        if not abs(self.phi) < 1:
            raise ValueError(f"phi must be in (-1, 1), got {self.phi}")
        self.sigma = _sd(sigma, "sigma")

    def sample_initial(self, stream: Stream, out: np.ndarray) -> Stream:
        """Write draws of ``X_0`` into ``out``.

        ``stream.normal(out=out, loc=mu, scale=sigma / sqrt(1 - phi**2))``:
        one f64 normal per particle, from the stationary law.

        Parameters
        ----------
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles to write, f64.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.StochasticVolatility(mu=-1.0, phi=0.6, sigma=0.4)
        >>> x = np.empty(3)
        >>> after = model.sample_initial(tandem.Philox(7), x)
        >>> values, moved = tandem.Philox(7).normal(3, loc=-1.0, scale=0.5)
        >>> bool(np.allclose(x, values)), after == moved
        (True, True)
        """
        scale = self.sigma / math.sqrt(1 - self.phi**2)
        return stream.normal(out=out, loc=self.mu, scale=scale)[1]

    def sample_transition(self, x: np.ndarray, t: int, stream: Stream,
                          out: np.ndarray) -> Stream:
        """Write draws of ``X_t`` given ``X_{t-1} = x`` into ``out``.

        ``mu + phi (x - mu) + sigma e_t``, with one f64 standard normal
        ``e_t`` per particle from ``stream``.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles at step ``t - 1``.
        t : int
            The step; the model is the same at every step.
        stream : tandem.Stream
            The stream to draw from.
        out : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles to write, f64, on the device of ``x``; not ``x``.

        Returns
        -------
        tandem.Stream
            ``stream`` moved on past the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> from tandem import smc
        >>> model = smc.StochasticVolatility(mu=-1.0, phi=0.6, sigma=0.4)
        >>> x, out = np.array([0.0, -2.0]), np.empty(2)
        >>> after = model.sample_transition(x, 1, tandem.Philox(7), out)
        >>> e, moved = tandem.Philox(7).normal(2)
        >>> bool(np.allclose(out, -1.0 + 0.6 * (x + 1.0) + 0.4 * e)), after == moved
        (True, True)
        """
        stream = stream.normal(out=out)[1]
        out *= self.sigma
        out += self.mu + self.phi * (x - self.mu)
        return stream

    def transition_logpdf(self, x_before: np.ndarray, x: np.ndarray, t: int) -> np.ndarray:
        """The log-density of each particle ``x[j]`` at step ``t`` given each
        ``x_before[i]`` at step ``t - 1`` (for smoothing).

        Parameters
        ----------
        x_before : numpy.ndarray or cupy.ndarray, shape (m,)
            The particles at step ``t - 1``.
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles at step ``t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (m, n)
            ``log N(x[j]; mu + phi (x_before[i] - mu), sigma**2)`` at ``[i, j]``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.StochasticVolatility()
        >>> model.transition_logpdf(np.array([0.0, 1.0]), np.array([0.0]), 1).shape
        (2, 1)
        """
        return _normal_logpdf(x[None, :], self.mu + self.phi * (x_before[:, None] - self.mu),
                              self.sigma)

    def observation_logpdf(self, x: np.ndarray, y: float, t: int) -> np.ndarray:
        """The log-density of the observation ``y`` given each particle.

        Parameters
        ----------
        x : numpy.ndarray or cupy.ndarray, shape (n,)
            The particles (log-variances) at step ``t``.
        y : float
            The observation ``y_t``.
        t : int
            The step; the model is the same at every step.

        Returns
        -------
        numpy.ndarray or cupy.ndarray, shape (n,)
            ``log N(y; 0, exp(x))`` for every particle, on the device of
            ``x``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> model = smc.StochasticVolatility()
        >>> model.observation_logpdf(np.array([0.0, 1.0]), 0.5, 0).round(6)
        array([-1.043939, -1.464923])
        """
        xp = module_of(x)
        return -0.5 * (_LOG_2PI + x + y * y * xp.exp(-x))
