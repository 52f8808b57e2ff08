"""Particle-filter benchmark: tandem.smc against the `particles` library, in one run.

    python benchmarks/smc.py [--n 100000] [--steps 100] [--repeats 3]
    python benchmarks/smc.py --gpu [--filters 65536] [--batch-particles 256]
    python benchmarks/smc.py --pmmh [--iterations 1000] [--particles 128] [--chains 1 8 64]
                                    [--device cpu]

Both run a bootstrap filter with systematic resampling at every step and
filtering means on the linear Gaussian model x_t = 0.9 x_(t-1) + 0.3 e_t,
y_t = x_t + 0.5 n_t, on the same simulated observations.  `particles`
needs NumPy < 2, so it runs in a virtual environment of its own, made on
first use in ``.venv-particles`` (``--venv``) with pip.  Prints particle-
steps per second (best of ``repeats``) and the ratio.

With ``--pmmh`` it runs particle marginal Metropolis–Hastings of the three
parameters (transition, process sd, observation sd; uniform priors on
(-1, 1) x (0, 3) x (0, 3)) on the same data: ``tandem.smc.pmmh`` with 1 and
more chains against ``particles.mcmc.PMMH`` (adaptive, one chain), the two
alternated ``repeats`` times.  Prints the medians of chain-iterations per
second and of effective samples per second (the smallest over the three
parameters, by pooled batch means after the burn-in of a quarter), and the
ratios to `particles`.

With ``--gpu`` it times, on the GPU instead, ``bootstrap_filter`` of one
large filter (``--sizes`` particles) on the fused kernels and, for a copy of
the model that it treats as any user model, on CuPy arrays (the same
draws), for the linear Gaussian and the stochastic-volatility models, and
the fused batch kernel (``--filters`` filters of ``--batch-particles``
particles).  It prints particle-steps per second (the median of
``repeats`` alternated calls, synchronised, after one call that compiles)
and each filter's largest error in the means against the Kalman filter.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

import tandem
from tandem import smc

PEER = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import particles
    from particles import distributions as dists
    from particles import state_space_models as ssm
    from particles.collectors import Moments

    class LinearGaussian(ssm.StateSpaceModel):
        def PX0(self):
            return dists.Normal(loc=0.0, scale=1.0)
        def PX(self, t, xp):
            return dists.Normal(loc=0.9 * xp, scale=0.3)
        def PY(self, t, xp, x):
            return dists.Normal(loc=x, scale=0.5)

    y = json.loads(sys.argv[1]); n = int(sys.argv[2]); repeats = int(sys.argv[3])
    model = LinearGaussian()
    best = float("inf")
    for r in range(repeats):
        np.random.seed(r)
        alg = particles.SMC(fk=ssm.Bootstrap(ssm=model, data=np.array(y)), N=n,
                            resampling="systematic", ESSrmin=1.0, collect=[Moments()])
        t0 = time.perf_counter(); alg.run(); best = min(best, time.perf_counter() - t0)
    means = [m["mean"] for m in alg.summaries.moments]
    print(json.dumps({"seconds": best, "log_likelihood": float(alg.logLt),
                      "means": [float(m) for m in means]}))
""")


PEER_PMMH = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from particles import distributions as dists
    from particles import mcmc
    from particles import state_space_models as ssm

    class LinearGaussian(ssm.StateSpaceModel):
        default_params = {"rho": 0.9, "sigx": 0.3, "sigy": 0.5}
        def PX0(self):
            return dists.Normal(loc=0.0, scale=1.0)
        def PX(self, t, xp):
            return dists.Normal(loc=self.rho * xp, scale=self.sigx)
        def PY(self, t, xp, x):
            return dists.Normal(loc=x, scale=self.sigy)

    y = json.loads(sys.argv[1]); n = int(sys.argv[2]); iterations = int(sys.argv[3])
    seed = int(sys.argv[4])
    prior = dists.StructDist({"rho": dists.Uniform(-1.0, 1.0), "sigx": dists.Uniform(0.0, 3.0),
                              "sigy": dists.Uniform(0.0, 3.0)})
    theta0 = np.zeros(1, dtype=prior.dtype)
    theta0["rho"], theta0["sigx"], theta0["sigy"] = 0.5, 1.0, 1.0
    np.random.seed(seed)
    run = mcmc.PMMH(ssm_cls=LinearGaussian, prior=prior, data=np.array(y), Nx=n,
                    niter=iterations, theta0=theta0, adaptive=True)
    t0 = time.perf_counter(); run.run(); seconds = time.perf_counter() - t0
    theta = run.chain.theta
    print(json.dumps({"seconds": seconds, "acceptance": float(run.acc_rate),
                      "samples": [theta[name].tolist() for name in ("rho", "sigx", "sigy")]}))
""")


def peer_python(venv):
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "numpy<2", "particles"],
                       check=True)
    return python


class ArrayCode(smc.LinearGaussian):
    """The linear Gaussian model as any user model: the CuPy-array filter."""


class ArrayCodeSV(smc.StochasticVolatility):
    """The stochastic-volatility model as any user model."""


def gpu_rows(args, model, y):
    import cupy as cp

    def timed(run):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        result = run()
        cp.cuda.Device().synchronize()
        return time.perf_counter() - t0, result

    sv = (-1.0, 0.95, 0.25)
    models = (  # name, built-in model, the same as any user model, observations
        ("linear Gaussian", model,
         ArrayCode(model.transition, model.process_sd, model.observation_sd), y),
        ("stochastic volatility", smc.StochasticVolatility(*sv), ArrayCodeSV(*sv),
         np.asarray(y) * 0.5))
    runs = {}  # name: (particle-steps, run)
    for n in args.sizes:
        for name, m, as_array, data in models:
            runs[f"bootstrap_filter, fused kernels, {name}, n = {n:.0e}"] = (
                n * len(y), lambda n=n, m=m, d=data: smc.bootstrap_filter(
                    tandem.Philox(1), m, d, n, device="cuda"))
            if n <= args.array_up_to:
                runs[f"bootstrap_filter, CuPy arrays, {name}, n = {n:.0e}"] = (
                    n * len(y), lambda n=n, m=as_array, d=data: smc.bootstrap_filter(
                        tandem.Philox(1), m, d, n, device="cuda"))
    batch_y = np.repeat(np.asarray(y)[:, None], args.filters, axis=1)
    runs[f"batch_filters, {args.filters} filters x {args.batch_particles} particles"] = (
        args.filters * args.batch_particles * len(y),
        lambda: smc.batch_filters(tandem.Philox(1), model, batch_y, args.batch_particles))
    first = {name: timed(run) for name, (_, run) in runs.items()}  # compiles
    seconds = {name: [] for name in runs}
    for _ in range(args.repeats):  # alternated
        for name, (_, run) in runs.items():
            seconds[name].append(timed(run)[0])
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"{device}; T = {len(y)}; median of {args.repeats} alternated runs after one that "
          "compiles\n")
    print("| filter | first call s | seconds | particle-steps/s |\n| --- | --- | --- | --- |")
    for name, (steps, _) in runs.items():
        median = float(np.median(seconds[name]))
        print(f"| {name} | {first[name][0]:.2f} | {median:.4f} | {steps / median:.3g} |")
    exact = smc.kalman(model, y)
    print("\n| n | fused: largest mean error vs Kalman | arrays: same | fused - arrays, "
          "largest mean difference |\n| --- | --- | --- | --- |")
    for n in args.sizes:
        if n > args.array_up_to:
            continue
        fused = first[f"bootstrap_filter, fused kernels, linear Gaussian, n = {n:.0e}"][1]
        array = first[f"bootstrap_filter, CuPy arrays, linear Gaussian, n = {n:.0e}"][1]
        f_means, a_means = cp.asnumpy(fused.means), cp.asnumpy(array.means)
        print(f"| {n:.0e} | {np.abs(f_means - exact.means).max():.2e} | "
              f"{np.abs(a_means - exact.means).max():.2e} | "
              f"{np.abs(f_means - a_means).max():.2e} |")


def pmmh_rows(args, y):
    from tandem.bn.diagnostics import pooled_ess

    def prior(theta):
        inside = ((np.abs(theta[:, 0]) < 1) & (theta[:, 1:] > 0).all(1)
                  & (theta[:, 1:] < 3).all(1))
        return np.where(inside, 0.0, -np.inf)

    def ess(samples):  # (chains, kept, 3): the smallest over the parameters
        return min(pooled_ess(samples[:, :, j]) for j in range(3))

    burn_in = args.iterations // 4
    family = smc.linear_gaussian_family()

    def ours(chains, seed):
        t0 = time.perf_counter()
        result = smc.pmmh(tandem.Philox(seed), family, prior, y, args.particles,
                          initial=[0.5, 1.0, 1.0], proposal_sd=[0.1, 0.1, 0.1], chains=chains,
                          iterations=args.iterations, adapt=burn_in, device=args.device,
                          progress=False)
        seconds = time.perf_counter() - t0
        return seconds, chains * args.iterations, ess(result.samples), float(
            result.acceptance.mean()), result.samples.reshape(-1, 3).mean(axis=0)

    def theirs(seed):
        peer = subprocess.run([peer_python(args.venv), "-c", PEER_PMMH, json.dumps(y),
                               str(args.particles), str(args.iterations), str(seed)],
                              capture_output=True, text=True)
        if peer.returncode:
            sys.exit(f"particles failed:\n{peer.stderr}")
        out = json.loads(peer.stdout.strip().splitlines()[-1])
        samples = np.array(out["samples"]).T[None, burn_in:, :]
        return (out["seconds"], args.iterations, ess(samples), out["acceptance"],
                samples[0].mean(axis=0))

    ours(1, 99)  # compile
    runs = {f"tandem.smc.pmmh, {c} chain{'s' if c > 1 else ''} ({args.device})": []
            for c in args.chains}
    runs["particles.mcmc.PMMH, 1 chain"] = []
    for r in range(args.repeats):  # alternated
        for c in args.chains:
            runs[f"tandem.smc.pmmh, {c} chain{'s' if c > 1 else ''} ({args.device})"].append(
                ours(c, r))
        if not args.skip_peer:
            runs["particles.mcmc.PMMH, 1 chain"].append(theirs(r))
    print(f"PMMH, linear Gaussian, T = {len(y)}, {args.particles} particles, "
          f"{args.iterations} iterations a chain ({burn_in} burn-in); medians of "
          f"{args.repeats}; {os.cpu_count()} cores\n")
    print("| sampler | seconds | chain-iterations/s | ESS/s (smallest) | acceptance | "
          "posterior means | iterations/s vs particles | ESS/s vs particles |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    peer = runs["particles.mcmc.PMMH, 1 chain"] or [(1.0, np.nan, np.nan)]
    peer_speed = np.median([n / s for s, n, *_ in peer])
    peer_ess = np.median([e / s for s, _, e, *_ in peer])
    for name, rows in runs.items():
        if not rows:
            continue
        seconds = np.median([row[0] for row in rows])
        speed = np.median([n / s for s, n, *_ in rows])
        ess_rate = np.median([e / s for s, _, e, *_ in rows])
        acceptance = np.median([row[3] for row in rows])
        means = np.median([row[4] for row in rows], axis=0)
        print(f"| {name} | {seconds:.2f} | {speed:.4g} | {ess_rate:.4g} | {acceptance:.3f} | "
              f"{', '.join(f'{m:.3f}' for m in means)} | {speed / peer_speed:.2f} | "
              f"{ess_rate / peer_ess:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--venv", default=".venv-particles")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--filters", type=int, default=65536)
    parser.add_argument("--batch-particles", type=int, default=256)
    parser.add_argument("--sizes", type=lambda v: int(float(v)), nargs="+",
                        default=[10**5, 10**6, 10**7])
    parser.add_argument("--array-up-to", type=float, default=10**7,
                        help="the largest n of the CuPy-array filter (--gpu)")
    parser.add_argument("--pmmh", action="store_true")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--particles", type=int, default=128)
    parser.add_argument("--chains", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--skip-peer", action="store_true", help="no particles (no pip)")
    args = parser.parse_args()

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    noise, _ = tandem.Philox(7).normal(2 * args.steps)
    x, y = 0.0, []
    for t in range(args.steps):
        x = noise[2 * t] if t == 0 else 0.9 * x + 0.3 * noise[2 * t]
        y.append(float(x + 0.5 * noise[2 * t + 1]))
    exact = smc.kalman(model, y)
    if args.pmmh:
        pmmh_rows(args, y)
        return
    if args.gpu:
        gpu_rows(args, model, y)
        return

    smc.bootstrap_filter(tandem.Philox(1), model, y[:2], 1000)  # compile
    best = float("inf")
    for r in range(args.repeats):
        t0 = time.perf_counter()
        ours = smc.bootstrap_filter(tandem.Philox(r), model, y, args.n)
        best = min(best, time.perf_counter() - t0)

    peer = subprocess.run([peer_python(args.venv), "-c", PEER, json.dumps(y), str(args.n),
                           str(args.repeats)], capture_output=True, text=True)
    if peer.returncode:
        sys.exit(f"particles failed:\n{peer.stderr}")
    theirs = json.loads(peer.stdout.strip().splitlines()[-1])

    steps = args.n * args.steps
    print(f"bootstrap filter, linear Gaussian, n = {args.n}, T = {args.steps}, "
          f"best of {args.repeats}; {os.cpu_count()} cores\n")
    print("| filter | seconds | particle-steps/s | largest mean error vs Kalman | "
          "log-likelihood (Kalman {:.3f}) |".format(exact.log_likelihood))
    print("| --- | --- | --- | --- | --- |")
    for name, seconds, means, ll in (
            ("tandem.smc (NumPy arrays)", best, ours.means, ours.log_likelihood),
            ("particles 0.3 (NumPy 1.26)", theirs["seconds"], np.array(theirs["means"]),
             theirs["log_likelihood"])):
        error = np.abs(np.asarray(means) - exact.means).max()
        print(f"| {name} | {seconds:.3f} | {steps / seconds:.3g} | {error:.4f} | {ll:.3f} |")
    print(f"\ntandem / particles: {theirs['seconds'] / best:.2f}x")


if __name__ == "__main__":
    main()
