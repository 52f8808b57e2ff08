"""Are order MCMC's edge standard errors honest? Repeated runs against the
exact posteriors (Koivisto and Sood's dynamic program).

For each network and row count: data forward-sampled from the network
(``Philox(7)``), its BDeu table (ess 1, k = 3), the exact edge posteriors,
then ``--runs`` runs of order MCMC from the lanes of one stream. Each edge
whose exact posterior lies in (0.05, 0.95) gives ``z = (p - exact) / se``
per run; honest errors make the z standard normal. The table also gives
the between-chain standard error's z (the spread of 4 chains), which is
what the report offered before.

``python3 tools/bn_calibration.py [--runs 20] [--iterations 20000]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tandem
from tandem.bn import diagnostics, load_network, order_mcmc, score_table
from tandem.bn.exact import exact_edge_posteriors


def z_scores(table, exact, runs, iterations, thin):
    inside = (exact > 0.05) & (exact < 0.95)
    batch, between, rhat = [], [], []
    for r in range(runs):
        result = order_mcmc(table, tandem.Philox(7).sub("calibration").split(r), chains=4,
                            iterations=iterations, thin=thin, progress=False)
        error = (result.edge_probabilities - exact)[inside]
        batch.append(error / result.edge_standard_errors[inside])
        spread = diagnostics.edge_standard_errors(result.chain_edge_probabilities)
        with np.errstate(divide="ignore", invalid="ignore"):
            between.append(error / spread[inside])
        rhat.append(np.nanmax(result.edge_rhat[inside]))
    return np.concatenate(batch), np.concatenate(between), np.array(rhat)


def describe(z):
    z = z[np.isfinite(z)]
    return (f"{z.mean():+.2f} | {z.std():.2f} | {np.mean(np.abs(z) > 1.96):.3f} | "
            f"{np.mean(np.abs(z) > 3):.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--thin", type=int, default=10)
    parser.add_argument("--networks", nargs="*", default=["asia", "survey", "sachs", "child"])
    parser.add_argument("--rows", nargs="*", type=int, default=[500, 2000])
    args = parser.parse_args()
    print(f"tandem {tandem.__version__}; {args.runs} runs x 4 chains x {args.iterations} "
          f"iterations (thin {args.thin}) per case; edges with exact posterior in (0.05, 0.95)")
    print("| network | rows | edges x runs | batch-means z: mean | sd | P(abs z > 1.96) | "
          "P(abs z > 3) | between-chain z: mean | sd | P(abs z > 1.96) | P(abs z > 3) | "
          "median largest R-hat | seconds |")
    print("| --- |" + " --- |" * 12)
    for name in args.networks:
        for rows in args.rows:
            start = time.perf_counter()
            data = load_network(name).sample(rows, tandem.Philox(7))
            table = score_table(data, score="bdeu", ess=1.0, max_parents=3, progress=False)
            exact = exact_edge_posteriors(table=table)
            batch, between, rhat = z_scores(table, exact, args.runs, args.iterations, args.thin)
            print(f"| {name} | {rows} | {batch.size} | {describe(batch)} | {describe(between)} "
                  f"| {np.median(rhat):.3f} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
