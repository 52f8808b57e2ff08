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

from .. import checks
from ..arrays import module_of

_LOG_2PI = math.log(2 * math.pi)


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
    """``X_0 ~ N(initial_mean, initial_sd**2)``,
    ``X_t = transition X_{t-1} + process_sd e_t``,
    ``Y_t = X_t + observation_sd n_t``, with ``e_t, n_t ~ N(0, 1)``.

    Draws: ``normal(loc=initial_mean, scale=initial_sd)`` for ``X_0`` and one
    standard normal per particle and step for ``e_t`` (f64).
    """

    state_shape = ()
    observation_shape = ()

    def __init__(self, transition, process_sd, observation_sd, initial_mean=0.0,
                 initial_sd=1.0):
        self.transition = checks.finite(transition, "transition")
        self.process_sd = _sd(process_sd, "process_sd")
        self.observation_sd = _sd(observation_sd, "observation_sd")
        self.initial_mean = checks.finite(initial_mean, "initial_mean")
        self.initial_sd = _sd(initial_sd, "initial_sd")

    def sample_initial(self, stream, out):
        return stream.normal(out=out, loc=self.initial_mean, scale=self.initial_sd)[1]

    def sample_transition(self, x, t, stream, out):
        stream = stream.normal(out=out, scale=self.process_sd)[1]
        out += self.transition * x
        return stream

    def observation_logpdf(self, x, y, t):
        # In place on one temporary: a temporary of 10**5 particles costs
        # about as much as the arithmetic, in page faults.
        log_density = x - y
        log_density *= log_density
        log_density *= -0.5 / self.observation_sd**2
        log_density -= math.log(self.observation_sd) + 0.5 * _LOG_2PI
        return log_density

    def as_multivariate(self):
        """The same model as a :class:`MultivariateLinearGaussian` of dimension 1."""
        return MultivariateLinearGaussian(
            [[self.transition]], [[self.process_sd**2]], [[1.0]], [[self.observation_sd**2]],
            [self.initial_mean], [[self.initial_sd**2]])


class MultivariateLinearGaussian:
    """``X_0 ~ N(m0, P0)``, ``X_t = A X_{t-1} + e_t`` with ``e_t ~ N(0, Q)``,
    ``Y_t = H X_t + v_t`` with ``v_t ~ N(0, R)``.

    Parameters
    ----------
    A, Q : array_like, shape (d, d)
    H : array_like, shape (k, d)
    R : array_like, shape (k, k)
    m0 : array_like, shape (d,)
    P0 : array_like, shape (d, d)
        ``Q``, ``R`` and ``P0`` symmetric positive definite.

    Draws: ``d`` standard normals per particle and step (f64), mapped
    through the lower Cholesky factor.
    """

    def __init__(self, A, Q, H, R, m0, P0):
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

    def sample_initial(self, stream, out):
        xp = module_of(out)
        stream = stream.normal(out=out)[1]
        out[...] = out @ self._on(xp, self._chol_P0).T + self._on(xp, self.m0)
        return stream

    def sample_transition(self, x, t, stream, out):
        xp = module_of(out)
        stream = stream.normal(out=out)[1]
        out[...] = out @ self._on(xp, self._chol_Q).T + x @ self._on(xp, self.A).T
        return stream

    def observation_logpdf(self, x, y, t):
        xp = module_of(x)
        r = self._on(xp, np.atleast_1d(y)) - x @ self._on(xp, self.H).T
        return self._log_norm - 0.5 * xp.einsum("ni,ij,nj->n", r, self._on(xp, self._R_inv), r)


class StochasticVolatility:
    """``X_0 ~ N(mu, sigma**2 / (1 - phi**2))``,
    ``X_t = mu + phi (X_{t-1} - mu) + sigma e_t``, ``Y_t ~ N(0, exp(X_t))``.

    ``|phi| < 1``.  Draws: one standard normal per particle and step (f64).
    """

    state_shape = ()
    observation_shape = ()

    def __init__(self, mu=0.0, phi=0.95, sigma=0.2):
        self.mu = checks.finite(mu, "mu")
        self.phi = checks.finite(phi, "phi")
        if not abs(self.phi) < 1:
            raise ValueError(f"phi must be in (-1, 1), got {self.phi}")
        self.sigma = _sd(sigma, "sigma")

    def sample_initial(self, stream, out):
        scale = self.sigma / math.sqrt(1 - self.phi**2)
        return stream.normal(out=out, loc=self.mu, scale=scale)[1]

    def sample_transition(self, x, t, stream, out):
        stream = stream.normal(out=out)[1]
        out *= self.sigma
        out += self.mu + self.phi * (x - self.mu)
        return stream

    def observation_logpdf(self, x, y, t):
        xp = module_of(x)
        return -0.5 * (_LOG_2PI + x + y * y * xp.exp(-x))
