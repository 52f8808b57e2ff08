"""Particle marginal Metropolis–Hastings (Andrieu, Doucet and Holenstein 2010).

Each chain proposes ``theta' = theta + exp(lambda) L z`` (a random walk), and
accepts it with probability ``min(1, p(theta') p_hat(y | theta') / p(theta)
p_hat(y | theta))``, where ``p_hat`` is a bootstrap filter's unbiased
likelihood estimate: the chain's stationary law is the exact posterior.  The
filters of every chain's proposal run as one :func:`tandem.smc.batch_filters`
call an iteration, on the CPU or the GPU.

Draws are addressed by chain and iteration, never carried: chain ``c`` takes

* its proposal's ``d`` normals at iteration ``i`` from draws ``i d .. i d +
  d - 1`` of ``root.sub("tandem.smc.pmmh.proposal").split(c)``,
* its acceptance uniform from draw ``i`` of
  ``root.sub("tandem.smc.pmmh.accept").split(c)``,
* its filter from lane ``c`` of ``FilterStreams.of(root.sub(
  "tandem.smc.pmmh.filter").split(i))`` (iteration 0: the starting point),

so a chain's random numbers do not depend on how many chains run beside it,
nor on a checkpoint and resume in between.  (While adapting, the chains
share the proposal's covariance; after it, and with ``adapt=0``, a chain's
path is its own.)

Adaptation, during the first ``adapt`` iterations only (they are the burn-in,
and are not kept): ``lambda`` moves by ``(1 + i / 10)**-0.6 (alpha -
target)`` (Robbins–Monro on the chains' mean acceptance probability
``alpha``: one scale for all, as a chain stuck on a lucky likelihood
estimate would shrink its own until it never moved again),
and in the second half of the burn-in, every ``ADAPT_EVERY`` iterations,
``L`` becomes the Cholesky factor of ``2.38**2 / d`` times the pooled
covariance of the chains' states since its middle (Haario, Saksman and
Tamminen 2001).  After it, the kernel is fixed.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .. import _progress, distributions, files
from ..bn.diagnostics import pooled_ess, rhat
from ..stream import Stream
from .batch import BatchModel, batch_filters, linear_gaussian
from .filter import FilterStreams, _count, _observations
from .models import LinearGaussian

#: The purposes of the proposals', the acceptances' and the filters' streams.
PURPOSE_PROPOSAL = "tandem.smc.pmmh.proposal"
PURPOSE_ACCEPT = "tandem.smc.pmmh.accept"
PURPOSE_FILTER = "tandem.smc.pmmh.filter"
#: Iterations between two updates of the proposal's covariance while adapting.
ADAPT_EVERY = 50
#: Iterations whose proposals are drawn in one call a chain.
BLOCK = 256
#: The layout of a checkpoint; another version is refused.
VERSION = 1


class ModelFamily(NamedTuple):
    """A family of batch models indexed by a parameter vector ``theta``.

    Parameters
    ----------
    model : BatchModel
        The model's device functions (its ``params`` are not used).
    params : callable
        ``params(theta)`` maps a ``(m, d)`` array of parameter vectors to the
        ``(m, P)`` array of the model's ``params``, one row each.
    names : tuple of str
        The names of ``theta``'s ``d`` coordinates.

    Examples
    --------
    >>> from tandem import smc
    >>> family = smc.linear_gaussian_family()
    >>> family.names
    ('transition', 'process_sd', 'observation_sd')
    >>> family.params([[0.9, 0.3, 0.5]]).tolist()
    [[0.9, 0.3, 0.5, 0.0, 1.0]]
    """

    model: BatchModel
    params: Callable
    names: tuple


def linear_gaussian_family(initial_mean: float = 0.0, initial_sd: float = 1.0) -> ModelFamily:
    """The scalar linear Gaussian models of a known initial law, by ``(transition,
    process_sd, observation_sd)``.

    Parameters
    ----------
    initial_mean, initial_sd : float, optional
        ``X_0 ~ N(initial_mean, initial_sd**2)``.

    Returns
    -------
    ModelFamily
        Its ``params(theta)`` appends the initial law to each row of ``theta``.

    Examples
    --------
    >>> from tandem import smc
    >>> smc.linear_gaussian_family(1.0, 2.0).params([[0.5, 1.0, 1.0]]).tolist()
    [[0.5, 1.0, 1.0, 1.0, 2.0]]
    """
    start = LinearGaussian(0.0, 1.0, 1.0, initial_mean=initial_mean, initial_sd=initial_sd)
    tail = np.array([start.initial_mean, start.initial_sd])

    def params(theta):
        theta = np.asarray(theta, dtype=np.float64)
        return np.hstack([theta, np.broadcast_to(tail, (len(theta), 2))])

    return ModelFamily(linear_gaussian(start), params,
                       ("transition", "process_sd", "observation_sd"))


@dataclass(frozen=True)
class PMMHResult:
    """The kept draws of :func:`tandem.smc.pmmh` (NumPy arrays).

    Parameters
    ----------
    samples : numpy.ndarray, shape (chains, kept, d)
        Each chain's parameter vectors after the burn-in.
    log_likelihood : numpy.ndarray, shape (chains, kept)
        The filter's log-likelihood estimate at each kept draw.
    acceptance : numpy.ndarray, shape (chains,)
        Each chain's share of accepted proposals after the burn-in.
    scale : numpy.ndarray, shape (chains,)
        The final ``exp(lambda)``, one a chain (the chains share it).
    names : tuple of str
        The coordinates' names.
    burn_in : int
        The adaptation iterations left out.

    Examples
    --------
    Four chains of independent draws, as a well-mixed run would give:

    >>> import numpy as np
    >>> from tandem import smc
    >>> draws = np.random.default_rng(0).normal(size=(4, 400, 1))
    >>> result = smc.PMMHResult(draws, draws[..., 0], np.full(4, 0.2), np.ones(4), ("mu",), 0)
    >>> result.samples.shape
    (4, 400, 1)
    """

    samples: np.ndarray
    log_likelihood: np.ndarray
    acceptance: np.ndarray
    scale: np.ndarray
    names: tuple
    burn_in: int

    @property
    def rhat(self) -> np.ndarray:
        """Split R-hat of each coordinate (:func:`tandem.bn.rhat`), shape ``(d,)``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> draws = np.random.default_rng(0).normal(size=(4, 400, 1))
        >>> result = smc.PMMHResult(draws, draws[..., 0], np.full(4, 0.2), np.ones(4), ("mu",), 0)
        >>> bool(result.rhat[0] < 1.01)
        True
        """
        return np.array([rhat(self.samples[:, :, j]) for j in range(self.samples.shape[2])])

    @property
    def ess(self) -> np.ndarray:
        """Effective sample size of each coordinate's pooled mean
        (:func:`tandem.bn.pooled_ess`), shape ``(d,)``.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> draws = np.random.default_rng(0).normal(size=(4, 400, 1))
        >>> result = smc.PMMHResult(draws, draws[..., 0], np.full(4, 0.2), np.ones(4), ("mu",), 0)
        >>> bool(1000 < result.ess[0] <= 1600)
        True
        """
        return np.array([pooled_ess(self.samples[:, :, j])
                         for j in range(self.samples.shape[2])])

    def summary(self) -> str:
        """A Markdown table: each coordinate's posterior mean, sd, Monte Carlo
        standard error, R-hat and ESS.

        Returns
        -------
        str
            One row a coordinate.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> draws = np.random.default_rng(0).normal(size=(4, 400, 1))
        >>> result = smc.PMMHResult(draws, draws[..., 0], np.full(4, 0.2), np.ones(4), ("mu",), 0)
        >>> print(result.summary().splitlines()[0])
        | parameter | mean | sd | se | R-hat | ESS |
        """
        flat = self.samples.reshape(-1, self.samples.shape[2])
        mean, sd = flat.mean(axis=0), flat.std(axis=0, ddof=1)
        rhat, ess = self.rhat, self.ess  # each computed for every coordinate: once
        lines = ["| parameter | mean | sd | se | R-hat | ESS |", "| --- | --- | --- | --- | --- | --- |"]
        for j, name in enumerate(self.names):
            lines.append(f"| {name} | {mean[j]:.4f} | {sd[j]:.4f} | "
                         f"{sd[j] / math.sqrt(ess[j]):.4f} | {rhat[j]:.3f} | {ess[j]:.0f} |")
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike | None = None):
        """Each coordinate's traces (chain by chain) and pooled histogram.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Where to save the figure (through a temporary file moved into place).

        Returns
        -------
        matplotlib.figure.Figure
            One row a coordinate: the traces, then the histogram.

        Examples
        --------
        >>> import numpy as np
        >>> from tandem import smc
        >>> draws = np.random.default_rng(0).normal(size=(4, 400, 1))
        >>> result = smc.PMMHResult(draws, draws[..., 0], np.full(4, 0.2), np.ones(4), ("mu",), 0)
        >>> figure = result.plot()  # doctest: +SKIP
        """
        import matplotlib

        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        d = self.samples.shape[2]
        figure, axes = plt.subplots(d, 2, figsize=(10, 2.4 * d), squeeze=False,
                                    gridspec_kw={"width_ratios": [3, 1]})
        for j, name in enumerate(self.names):
            for chain in self.samples[:, :, j]:
                axes[j, 0].plot(chain, linewidth=0.5)
            axes[j, 0].set_ylabel(name)
            axes[j, 1].hist(self.samples[:, :, j].ravel(), bins=50, orientation="horizontal")
        axes[-1, 0].set_xlabel("iteration after burn-in")
        figure.tight_layout()
        if path is not None:
            with files.replacing(path, "wb") as f:
                figure.savefig(f, format=os.path.splitext(os.fspath(path))[1][1:] or "png")
        return figure


class _Chains(NamedTuple):
    """The chains' state after ``done`` iterations, as a checkpoint holds it."""

    done: np.ndarray  # () int64
    theta: np.ndarray  # (C, d)
    log_likelihood: np.ndarray  # (C,)
    log_prior: np.ndarray  # (C,)
    log_scale: np.ndarray  # (C,)
    factor: np.ndarray  # (d, d): the proposal's Cholesky factor L
    moments: np.ndarray  # (1 + d + d * d,): count, sums and sums of products of the states
    accepted: np.ndarray  # (C,) int64, after the burn-in
    samples: np.ndarray  # (C, kept so far, d)
    traces: np.ndarray  # (C, kept so far)


def _streams(root):
    if not isinstance(root, Stream) or root.generator not in (0, 1):
        raise TypeError(f"root must be a Philox or Threefry stream (the filters draw its "
                        f"lanes), got {type(root).__name__}")
    return root.sub(PURPOSE_PROPOSAL), root.sub(PURPOSE_ACCEPT), root.sub(PURPOSE_FILTER)


def _block_draws(proposal, accept, chains, first, last, d):
    """The normals ``(last - first, C, d)`` and uniforms ``(last - first, C)`` of
    iterations ``first .. last - 1``."""
    z = np.empty((last - first, chains, d))
    u = np.empty((last - first, chains))
    for c in range(chains):
        z[:, c, :] = distributions.normal_at(
            proposal.split(c), np.arange(first * d, last * d, dtype=np.uint64)).reshape(-1, d)
        u[:, c] = distributions.random_at(accept.split(c),
                                          np.arange(first, last, dtype=np.uint64))
    return z, u


def _log_prior(prior, theta):
    values = np.asarray(prior(theta), dtype=np.float64)
    if values.shape != (len(theta),):
        raise ValueError(f"prior must return one log density a row, shape ({len(theta)},), "
                         f"got {values.shape}")
    if np.isnan(values).any() or (values == np.inf).any():
        raise ValueError("prior returned NaN or +inf")
    return values


def pmmh(root: Stream, family: ModelFamily, prior: Callable, observations: ArrayLike,
         n_particles: int, *, initial: ArrayLike, proposal_sd: ArrayLike, chains: int = 4,
         iterations: int = 2000, adapt: int | None = None, target_acceptance: float = 0.15,
         resampling: str = "systematic", device: str = "cpu",
         checkpoint: str | os.PathLike | None = None, checkpoint_every: int = 500,
         resume: str | os.PathLike | None = None, progress: bool | str = True) -> PMMHResult:
    """Particle marginal Metropolis–Hastings of a model family's parameters.

    Parameters
    ----------
    root : tandem.Stream
        A Philox or Threefry stream; every number of the run comes from its
        ``sub`` streams (see :mod:`tandem.smc.particle_mcmc`).
    family : ModelFamily
        The models, by their parameter vector ``theta`` of ``d`` coordinates;
        for example :func:`tandem.smc.linear_gaussian_family`.
    prior : callable
        ``prior(theta)``: the log prior density of each row of a ``(m, d)``
        array, ``-inf`` outside its support (those proposals are rejected
        without a filter's estimate mattering).
    observations : array_like, shape (T,)
        The data, finite.
    n_particles : int
        Particles a filter (on the GPU a power of two from 2 to 1024).
    initial : array_like, shape (d,) or (chains, d)
        Where the chains start; each inside the prior's support.
    proposal_sd : array_like, shape (d,)
        The random walk's first scales, one a coordinate (positive).
    chains : int, optional
        Independent chains, each on its own lanes.
    iterations : int, optional
        Iterations a chain, the burn-in included.
    adapt : int, optional
        The burn-in, during which the proposal adapts (by default a quarter
        of ``iterations``).
    target_acceptance : float, optional
        The acceptance rate the scales aim at (0.15: PMMH's optimum lies near
        0.07–0.2, Sherlock, Thiery, Roberts and Rosenthal 2015).
    resampling : {"systematic", "multinomial"}, optional
        The filters' resampling.
    device : {"cpu", "cuda"}, optional
        Where the filters run (:func:`tandem.smc.batch_filters`).
    checkpoint : str or os.PathLike, optional
        A ``.npz`` file to write the state to every ``checkpoint_every``
        iterations and at the end.
    checkpoint_every : int, optional
        Iterations between checkpoints.
    resume : str or os.PathLike, optional
        A checkpoint of the same run to continue from: the result equals the
        uninterrupted run's bit for bit.
    progress : bool or "always", optional
        A progress bar on stderr (True: when it is a terminal).

    Returns
    -------
    PMMHResult
        The kept draws, their log-likelihood estimates, acceptance rates,
        R-hat and ESS; ``summary()`` and ``plot()``.

    Raises
    ------
    TypeError
        If ``root`` is not a Philox or Threefry stream, or ``family`` is no
        :class:`ModelFamily`.
    ValueError
        If a count is out of range, ``initial`` or ``proposal_sd`` has the
        wrong shape or values, a starting point lies outside the prior's
        support, the prior returns NaN, or ``resume`` is another run's or
        damaged.

    Examples
    --------
    The transition coefficient and noise scales of a linear Gaussian model,
    from 50 simulated observations:

    >>> import numpy as np, tandem
    >>> from tandem import smc
    >>> y = np.sin(np.arange(50) / 5.0)
    >>> def prior(theta):  # uniform on (-1, 1) x (0, 2) x (0, 2)
    ...     inside = (np.abs(theta[:, 0]) < 1) & (theta[:, 1:] > 0).all(1) & (theta[:, 1:] < 2).all(1)
    ...     return np.where(inside, 0.0, -np.inf)
    >>> result = smc.pmmh(tandem.Philox(1), smc.linear_gaussian_family(), prior, y, 32,
    ...                   initial=[0.5, 0.5, 0.5], proposal_sd=[0.1, 0.1, 0.1],
    ...                   chains=2, iterations=200, progress=False)
    >>> result.samples.shape
    (2, 150, 3)
    """
    proposal, accept, filters = _streams(root)
    if not isinstance(family, ModelFamily):
        raise TypeError(f"family must be a ModelFamily, got {type(family).__name__}")
    d = len(family.names)
    chains = _count(chains, "chains")
    iterations = _count(iterations, "iterations")
    adapt = iterations // 4 if adapt is None else int(adapt)
    if not 0 <= adapt < iterations:
        raise ValueError(f"adapt must be in [0, iterations), got {adapt}")
    if not 0.0 < target_acceptance < 1.0:
        raise ValueError(f"target_acceptance must be in (0, 1), got {target_acceptance}")
    n = _count(n_particles, "n_particles")
    checkpoint_every = _count(checkpoint_every, "checkpoint_every")
    if checkpoint is not None:  # before the run: a checkpoint that cannot be written fails now
        checkpoint = files.target(checkpoint, "checkpoint", "an .npz file")
    y = _observations(observations)
    if y.ndim != 1:
        raise ValueError(f"observations must have shape (T,), got {y.shape}")
    scales = np.asarray(proposal_sd, dtype=np.float64)
    if scales.shape != (d,) or not (np.isfinite(scales) & (scales > 0)).all():
        raise ValueError(f"proposal_sd must hold {d} positive finite scales, got {scales!r:.80}")
    theta = np.array(np.broadcast_to(np.asarray(initial, dtype=np.float64), (chains, d)))
    if not np.isfinite(theta).all():
        raise ValueError("initial must be finite")
    settings = {"version": VERSION, "key": repr(root), "names": list(family.names),
                "chains": chains, "iterations": iterations, "adapt": adapt,
                "target_acceptance": target_acceptance, "n_particles": n,
                "resampling": resampling, "device": device, "proposal_sd": scales.tolist(),
                "initial": theta.tolist(), "observations": y.tolist()}

    def estimate(i, rows):
        """The log-likelihood estimates of the parameter rows at iteration ``i``."""
        streams = FilterStreams.of(filters.split(i))
        return batch_filters(streams, family.model, y, n, params=family.params(rows),
                             resampling=resampling, device=device).log_likelihood

    if resume is not None:
        state = _load(resume, settings, chains, d, adapt)
    else:
        log_prior = _log_prior(prior, theta)
        if not np.isfinite(log_prior).all():
            raise ValueError("initial: every starting point must lie inside the prior's support")
        state = _Chains(np.array(0), theta, estimate(0, theta), log_prior,
                        np.zeros(chains), np.diag(scales), np.zeros(1 + d + d * d),
                        np.zeros(chains, dtype=np.int64), np.empty((chains, 0, d)),
                        np.empty((chains, 0)))
    done = int(state.done)
    kept_samples = [state.samples]
    kept_traces = [state.traces]
    with _progress.bar(iterations - done, "PMMH", progress) as bar:
        first = done + 1
        while first <= iterations:
            # to the end of the draws' block, of the checkpoint's span, or of the run
            last = min((first // BLOCK + 1) * BLOCK, -(-first // checkpoint_every)
                       * checkpoint_every + 1, iterations + 1)
            z, u = _block_draws(proposal, accept, chains, first, last, d)
            for k in range(last - first):
                state, kept = _iterate(state, first + k, z[k], u[k], prior, estimate, adapt,
                                       target_acceptance)
                if kept:
                    kept_samples.append(state.theta[:, None, :])
                    kept_traces.append(state.log_likelihood[:, None])
            bar.update(last - first)
            first = last
            if checkpoint is not None and ((last - 1) % checkpoint_every == 0
                                           or last > iterations):
                state = state._replace(samples=np.concatenate(kept_samples, axis=1),
                                       traces=np.concatenate(kept_traces, axis=1))
                kept_samples, kept_traces = [state.samples], [state.traces]
                _save(checkpoint, state, settings)
    samples = np.concatenate(kept_samples, axis=1)
    traces = np.concatenate(kept_traces, axis=1)
    return PMMHResult(samples, traces, state.accepted / max(iterations - adapt, 1),
                      np.exp(state.log_scale), tuple(family.names), adapt)


def _iterate(state, i, z, u, prior, estimate, adapt, target):
    """Iteration ``i`` of every chain: ``(state after it, whether it is kept)``."""
    scale = np.exp(state.log_scale)[:, None]
    proposed = state.theta + scale * (z @ state.factor.T)
    log_prior = _log_prior(prior, proposed)
    inside = np.isfinite(log_prior)
    rows = np.where(inside[:, None], proposed, state.theta)  # outside: any valid model
    log_likelihood = estimate(i, rows)
    with np.errstate(invalid="ignore"):
        log_alpha = np.where(inside, log_likelihood + log_prior - state.log_likelihood
                             - state.log_prior, -np.inf)
    log_alpha = np.where(np.isnan(log_alpha), -np.inf, log_alpha)
    accepted = np.log(u) < log_alpha
    theta = np.where(accepted[:, None], proposed, state.theta)
    state = state._replace(
        done=np.array(i), theta=theta,
        log_likelihood=np.where(accepted, log_likelihood, state.log_likelihood),
        log_prior=np.where(accepted, log_prior, state.log_prior))
    if i > adapt:
        return state._replace(accepted=state.accepted + accepted), True
    return _adapted(state, i, np.exp(np.minimum(log_alpha, 0.0)), target, adapt), False


def _adapted(state, i, alpha, target, adapt):
    """The proposal after adapting to iteration ``i``'s acceptance probabilities."""
    d = state.theta.shape[1]
    # one scale for all chains: a chain stuck on a lucky estimate would shrink its own
    log_scale = state.log_scale + (1 + i / 10) ** -0.6 * (alpha.mean() - target)
    moments, factor = state.moments, state.factor
    if i <= adapt // 2:  # the way from the starting points would inflate the covariance
        return state._replace(log_scale=log_scale)
    moments = moments + np.concatenate(
        [[len(state.theta)], state.theta.sum(axis=0),
         np.einsum("ci,cj->ij", state.theta, state.theta).ravel()])
    if i % ADAPT_EVERY == 0 and moments[0] >= ADAPT_EVERY:
        count, mean = moments[0], moments[1:1 + d] / moments[0]
        covariance = moments[1 + d:].reshape(d, d) / count - np.outer(mean, mean)
        covariance = covariance * (2.38 ** 2 / d) + 1e-10 * np.eye(d)
        try:
            factor = np.linalg.cholesky(covariance)
        except np.linalg.LinAlgError:  # the chains have not moved yet: keep the old
            pass
    return state._replace(log_scale=log_scale, moments=moments, factor=factor)


def _save(path, state, settings):
    with files.replacing(path, "wb") as f:
        np.savez(f, settings=json.dumps(settings, sort_keys=True), **state._asdict())


def _load(path, settings, chains, d, adapt):
    """The state of the checkpoint ``path`` of this run, every field checked."""
    where = os.fspath(path)

    def refuse(why):
        raise ValueError(f"resume: {where}: {why}")

    try:
        with np.load(where, allow_pickle=False) as data:
            fields = {name: data[name] for name in data.files}
    except Exception as error:  # any failure to read: damaged, empty, not npz
        refuse(f"cannot be read as a PMMH checkpoint ({type(error).__name__}: {error})")
    wanted = set(_Chains._fields) | {"settings"}
    if set(fields) != wanted:
        refuse(f"is not a PMMH checkpoint of version {VERSION}: fields {sorted(fields)}")
    if fields["settings"].shape != () or json.loads(str(fields["settings"])) != json.loads(
            json.dumps(settings, sort_keys=True)):
        refuse("was written by another run (its settings differ)")
    done = fields["done"]
    if done.shape != () or done.dtype.kind not in "iu" or not 0 < int(done):
        refuse("field 'done' must be a positive count")
    kept = max(0, int(done) - adapt)
    shapes = {"theta": (chains, d), "log_likelihood": (chains,), "log_prior": (chains,),
              "log_scale": (chains,), "factor": (d, d), "moments": (1 + d + d * d,),
              "accepted": (chains,), "samples": (chains, kept, d), "traces": (chains, kept)}
    for name, shape in shapes.items():
        a = fields[name]
        if a.shape != shape or a.dtype.kind not in ("iu" if name == "accepted" else "f"):
            refuse(f"field {name!r} must have shape {shape}, got {a.dtype} {a.shape}")
    return _Chains(**{name: np.array(fields[name]) for name in _Chains._fields})
