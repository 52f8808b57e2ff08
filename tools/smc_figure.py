"""The figure of docs/smc.md: the worked example's filter means, with Monte
Carlo bands, against the exact Kalman means.

    python tools/smc_figure.py [--out docs/figures/smc_worked_example.png]

Needs matplotlib (``pip install '.[docs]'``).  The band is +-2 Monte Carlo
sds of the 65,536-particle estimate, each sd estimated from 40 filters of
4,096 particles on lanes of Philox(2718) and scaled by sqrt(4096 / 65536),
as in tests/test_smc.py.
"""

import argparse
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import tandem  # noqa: E402
from tandem import smc  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures/smc_worked_example.png")
    args = parser.parse_args()
    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = np.array([0.1, 0.4, -0.2, 0.3, 0.0, 0.2])
    t = np.arange(len(y))
    exact = smc.kalman(model, y)
    result = smc.bootstrap_filter(tandem.Philox(123456), model, y, 65536)
    small = [smc.bootstrap_filter(tandem.Philox(2718).split(r), model, y, 4096).means
             for r in range(40)]
    sd = np.std(small, axis=0, ddof=1) * math.sqrt(4096 / 65536)

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    left.fill_between(t, result.means - 2 * sd, result.means + 2 * sd, alpha=0.3,
                      label="filter mean +- 2 MC sd")
    left.plot(t, result.means, "o-", label="filter mean (65,536 particles)")
    left.plot(t, exact.means, "k+", markersize=12, label="Kalman mean")
    left.plot(t, y, "x", color="gray", label="observation")
    posterior = np.sqrt(exact.variances)
    left.plot(t, exact.means + posterior, "k:", linewidth=0.8, label="Kalman mean +- sd")
    left.plot(t, exact.means - posterior, "k:", linewidth=0.8)
    left.set(xlabel="t", ylabel="x", title="Worked example: filtering means")
    left.legend(fontsize=8)
    right.axhline(0, color="k", linewidth=0.8)
    for means in small:
        right.plot(t, means - exact.means, color="C0", alpha=0.2, linewidth=0.8)
    right.plot(t, result.means - exact.means, "o-", color="C1", label="65,536 particles")
    right.fill_between(t, -2 * sd * 4, 2 * sd * 4, alpha=0.15, color="C0",
                       label="+- 2 MC sd at 4,096 particles (40 filters, thin lines)")
    right.fill_between(t, -2 * sd, 2 * sd, alpha=0.3, color="C1",
                       label="+- 2 MC sd at 65,536 particles")
    right.set(xlabel="t", ylabel="filter mean - Kalman mean", title="Errors against Kalman")
    right.legend(fontsize=8)
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}; largest |difference| {np.abs(result.means - exact.means).max():.4f}")


if __name__ == "__main__":
    main()
