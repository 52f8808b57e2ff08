"""Particle-filter benchmark: tandem.smc against the `particles` library, in one run.

    python benchmarks/smc.py [--n 100000] [--steps 100] [--repeats 3]
    python benchmarks/smc.py --gpu [--filters 65536] [--batch-particles 256]

Both run a bootstrap filter with systematic resampling at every step and
filtering means on the linear Gaussian model x_t = 0.9 x_(t-1) + 0.3 e_t,
y_t = x_t + 0.5 n_t, on the same simulated observations.  `particles`
needs NumPy < 2, so it runs in a virtual environment of its own, made on
first use in ``.venv-particles`` (``--venv``) with pip.  Prints particle-
steps per second (best of ``repeats``) and the ratio.

With ``--gpu`` it times, on the GPU instead, the CuPy-array filter (n
particles) and the fused batch kernel (``--filters`` filters of
``--batch-particles`` particles), both on the same model, and prints
particle-steps per second; each figure is the best of ``repeats`` calls,
synchronised, after one call that compiles.
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


def peer_python(venv):
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "numpy<2", "particles"],
                       check=True)
    return python


def gpu_rows(args, model, y):
    import cupy as cp

    def best_of(run):
        run()
        cp.cuda.Device().synchronize()
        best = float("inf")
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            run()
            cp.cuda.Device().synchronize()
            best = min(best, time.perf_counter() - t0)
        return best

    batch_y = np.repeat(np.asarray(y)[:, None], args.filters, axis=1)
    rows = [
        (f"bootstrap_filter, CuPy arrays, n = {args.n}", args.n * len(y),
         best_of(lambda: smc.bootstrap_filter(tandem.Philox(1), model, y, args.n,
                                              device="cuda"))),
        (f"batch_filters, {args.filters} filters x {args.batch_particles} particles",
         args.filters * args.batch_particles * len(y),
         best_of(lambda: smc.batch_filters(tandem.Philox(1), model, batch_y,
                                           args.batch_particles))),
    ]
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"{device}; linear Gaussian, T = {len(y)}; best of {args.repeats}\n")
    print("| filter | seconds | particle-steps/s |\n| --- | --- | --- |")
    for name, steps, seconds in rows:
        print(f"| {name} | {seconds:.4f} | {steps / seconds:.3g} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--venv", default=".venv-particles")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--filters", type=int, default=65536)
    parser.add_argument("--batch-particles", type=int, default=256)
    args = parser.parse_args()

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    noise, _ = tandem.Philox(7).normal(2 * args.steps)
    x, y = 0.0, []
    for t in range(args.steps):
        x = noise[2 * t] if t == 0 else 0.9 * x + 0.3 * noise[2 * t]
        y.append(float(x + 0.5 * noise[2 * t + 1]))
    exact = smc.kalman(model, y)
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
