"""Particle marginal Metropolis–Hastings (tandem.smc.pmmh) on the linear
Gaussian model, whose exact likelihood the Kalman filter gives: its
posterior against an exact-likelihood Metropolis chain, and its draws'
bookkeeping (lanes, checkpoints, errors)."""

import numpy as np
import pytest

import tandem
from tandem import smc
from tandem.bn.diagnostics import pooled_ess

TRUE = smc.LinearGaussian(0.8, 0.5, 0.7)
# 40 observations of TRUE, simulated by NumPy (not by tandem)
_rng = np.random.default_rng(5)
_x = _rng.normal()
Y = []
for _ in range(40):
    Y.append(_x + 0.7 * _rng.normal())
    _x = 0.8 * _x + 0.5 * _rng.normal()
Y = np.array(Y)


def prior(theta):
    """Uniform on (-1, 1) x (0, 3) x (0, 3)."""
    inside = (np.abs(theta[:, 0]) < 1) & (theta[:, 1:] > 0).all(1) & (theta[:, 1:] < 3).all(1)
    return np.where(inside, 0.0, -np.inf)


def kalman_log_likelihood(theta, y):
    """The exact log-likelihood of each row of ``theta`` (transition, process_sd,
    observation_sd; X_0 ~ N(0, 1)): the scalar Kalman recursions, vectorised."""
    a, q, r = theta[:, 0], theta[:, 1] ** 2, theta[:, 2] ** 2
    mean, var, total = np.zeros(len(theta)), np.ones(len(theta)), np.zeros(len(theta))
    for t, obs in enumerate(y):
        if t:
            mean, var = a * mean, a * a * var + q
        s = var + r
        total += -0.5 * (np.log(2 * np.pi * s) + (obs - mean) ** 2 / s)
        gain = var / s
        mean, var = mean + gain * (obs - mean), (1 - gain) * var
    return total


def test_the_vectorised_kalman_is_tandems():
    theta = np.array([[0.8, 0.5, 0.7], [-0.3, 1.2, 0.2], [0.95, 0.1, 2.0]])
    exact = [smc.kalman(smc.LinearGaussian(*row), Y).log_likelihood for row in theta]
    np.testing.assert_allclose(kalman_log_likelihood(theta, Y), exact, rtol=1e-12)


def exact_metropolis(chains=32, iterations=4000, burn_in=1000):
    """Random-walk Metropolis on the exact likelihood (NumPy's PCG64), tuned by hand."""
    rng = np.random.default_rng(11)
    theta = np.tile([0.8, 0.5, 0.7], (chains, 1))
    target = kalman_log_likelihood(theta, Y) + prior(theta)
    kept = []
    for i in range(iterations):
        proposed = theta + rng.normal(size=theta.shape) * [0.12, 0.15, 0.15]
        with np.errstate(invalid="ignore"):
            new = np.where(np.isfinite(prior(proposed)),
                           kalman_log_likelihood(np.abs(proposed), Y) + prior(proposed), -np.inf)
        accept = np.log(rng.random(chains)) < new - target
        theta = np.where(accept[:, None], proposed, theta)
        target = np.where(accept, new, target)
        if i >= burn_in:
            kept.append(theta)
    return np.stack(kept, axis=1)


def test_pmmh_posterior_matches_the_exact_likelihood_chain():
    """8 chains x 3000 iterations (750 adapting) of 128 particles against 32 x 3000
    exact-likelihood Metropolis draws: each coordinate's posterior mean within
    4.5 combined standard errors, a false alarm of about 2e-5 for three
    coordinates were the errors exact (a PMMH mean's se is the larger of the
    batch-means se, sd / sqrt(pooled ESS), and the chains' spread, sd of the
    chain means / sqrt(8): sticky chains make the first too small); the
    posterior sds within 20 %.  Fixed streams: the outcome is deterministic
    (|z| at most 2.05 over the roots 2024, 7 and 8)."""
    result = smc.pmmh(tandem.Philox(2024), smc.linear_gaussian_family(), prior, Y, 128,
                      initial=[0.5, 1.0, 1.0], proposal_sd=[0.1, 0.1, 0.1], chains=8,
                      iterations=3000, progress=False)
    exact = exact_metropolis()
    assert result.samples.shape == (8, 2250, 3)
    assert (result.rhat < 1.05).all(), result.rhat
    assert ((0.05 < result.acceptance) & (result.acceptance < 0.4)).all(), result.acceptance
    for j in range(3):
        ours, theirs = result.samples[:, :, j], exact[:, :, j]
        ours_se = max(ours.std() / np.sqrt(pooled_ess(ours)),
                      ours.mean(axis=1).std(ddof=1) / np.sqrt(len(ours)))
        se = np.hypot(ours_se, theirs.std() / np.sqrt(pooled_ess(theirs)))
        assert abs(ours.mean() - theirs.mean()) < 4.5 * se, (j, ours.mean(), theirs.mean(), se)
        assert abs(ours.std() / theirs.std() - 1) < 0.2, (j, ours.std(), theirs.std())


def short_run(**options):
    settings = dict(initial=[0.5, 1.0, 1.0], proposal_sd=[0.1, 0.1, 0.1], chains=3,
                    iterations=300, adapt=100, progress=False)
    settings.update(options)
    return smc.pmmh(tandem.Philox(9), smc.linear_gaussian_family(), prior, Y[:20], 16,
                    **settings)


def test_a_chain_is_its_lanes_alone_without_adaptation():
    three = short_run(adapt=0)
    one = short_run(adapt=0, chains=1)
    np.testing.assert_array_equal(one.samples[0], three.samples[0])
    np.testing.assert_array_equal(one.log_likelihood[0], three.log_likelihood[0])


def test_a_resumed_run_equals_the_uninterrupted_one(tmp_path, monkeypatch):
    whole = short_run()
    path = tmp_path / "run.npz"
    from tandem.smc import particle_mcmc

    real = particle_mcmc._iterate

    def interrupted(state, i, *args):
        if i == 260:
            raise KeyboardInterrupt
        return real(state, i, *args)

    with monkeypatch.context() as m:
        m.setattr(particle_mcmc, "_iterate", interrupted)
        with pytest.raises(KeyboardInterrupt):
            short_run(checkpoint=path, checkpoint_every=50)
    resumed = short_run(checkpoint=path, checkpoint_every=50, resume=path)
    for name in ("samples", "log_likelihood", "acceptance", "scale"):
        np.testing.assert_array_equal(getattr(resumed, name), getattr(whole, name))
    with pytest.raises(ValueError, match="another run"):
        short_run(resume=path, chains=2)
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="cannot be read"):
        short_run(resume=path)


def test_summary_and_plot(tmp_path):
    result = short_run()
    table = result.summary()
    assert table.count("\n") == 4 and "observation_sd" in table
    pytest.importorskip("matplotlib")
    result.plot(tmp_path / "pmmh.png")
    assert (tmp_path / "pmmh.png").stat().st_size > 1000


@pytest.mark.parametrize("options,error,match", [
    (dict(initial=[0.5, 1.0, 5.0]), ValueError, "support"),
    (dict(proposal_sd=[0.1, 0.1]), ValueError, "proposal_sd"),
    (dict(proposal_sd=[0.1, 0.0, 0.1]), ValueError, "proposal_sd"),
    (dict(adapt=300), ValueError, "adapt"),
    (dict(chains=0), ValueError, "chains"),
    (dict(target_acceptance=1.0), ValueError, "target_acceptance"),
    (dict(initial=[np.nan, 1.0, 1.0]), ValueError, "finite"),
    (dict(checkpoint="/no/such/folder/run.npz"), ValueError, "does not exist"),
])
def test_bad_input(options, error, match):
    with pytest.raises(error, match=match):
        short_run(**options)


def test_bad_root_and_family():
    with pytest.raises(TypeError, match="Philox or Threefry"):
        smc.pmmh(tandem.Tandem(1), smc.linear_gaussian_family(), prior, Y, 8,
                 initial=[0.5, 1, 1], proposal_sd=[0.1] * 3)
    with pytest.raises(TypeError, match="ModelFamily"):
        smc.pmmh(tandem.Philox(1), TRUE, prior, Y, 8, initial=[0.5, 1, 1],
                 proposal_sd=[0.1] * 3)
    with pytest.raises(ValueError, match="prior must return"):
        smc.pmmh(tandem.Philox(1), smc.linear_gaussian_family(), lambda t: 0.0, Y, 8,
                 initial=[0.5, 1, 1], proposal_sd=[0.1] * 3)
