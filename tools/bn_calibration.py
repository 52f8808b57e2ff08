"""Are order MCMC's edge standard errors honest, on data nobody here made?

For each network and row count: data forward-sampled by pgmpy
(``BayesianModelSampling.forward_sample``, seed 7) from the network's BIF in
``../shared/data/networks``, its BDeu table (ess 1, k = 3: ``tandem bn
learn``'s defaults), and the exact edge posteriors (Koivisto and Sood's
dynamic program; for networks above :data:`tandem.bn.exact.MAX_NODES`
nodes, such as alarm, a reference run ``--reference`` times as long, whose
own error enters each z).  Then ``--runs`` runs of order MCMC at the CLI's
default settings (4 chains x 20,000 iterations) from the lanes of one
stream, and for every edge the table allows

    z = (p - exact) / se      (or / sqrt(se**2 + se_reference**2)).

Honest errors make ``|z| > 2`` about 4.6 % of the edges or fewer, and no
``|z|`` far beyond 4.  The table gives that share over all edges, over the
edges whose exact posterior lies in (0.05, 0.95) (where the slow features
are), and the largest ``|z|``.

``python3 tools/bn_calibration.py [--runs 6] [--networks asia sachs child alarm]``
"""

from __future__ import annotations

import argparse
import gzip
import time
import warnings
from pathlib import Path

import numpy as np

import tandem
from tandem.bn import Dataset, order_mcmc, score_table
from tandem.bn.exact import MAX_NODES, exact_edge_posteriors

NETWORKS = Path(__file__).resolve().parents[2] / "shared" / "data" / "networks"


def pgmpy_data(name, rows):
    """``rows`` rows forward-sampled by pgmpy from the network ``name``."""
    with warnings.catch_warnings():  # pgmpy's own FutureWarnings on import
        warnings.simplefilter("ignore")
        from pgmpy.readwrite import BIFReader
        from pgmpy.sampling import BayesianModelSampling

    with gzip.open(NETWORKS / f"{name}.bif.gz", "rt") as f:
        model = BIFReader(string=f.read()).get_model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = BayesianModelSampling(model).forward_sample(size=rows, seed=7,
                                                            show_progress=False)
    return Dataset.from_dataframe(frame[sorted(frame.columns)].astype(str))


def reference(table, iterations, chains):
    """``(edge posteriors, their standard errors)``: the exact DP where it fits,
    else one long run."""
    if table.scores.shape[0] <= MAX_NODES:
        exact = exact_edge_posteriors(table=table)
        return exact, np.zeros_like(exact)
    run = order_mcmc(table, tandem.Philox(7).sub("reference"), chains=chains,
                     iterations=iterations, progress=False)
    return run.edge_probabilities, run.edge_standard_errors


def z_scores(table, exact, exact_se, runs, iterations, chains):
    """The z of every allowed edge in each run, and each run's largest edge R-hat."""
    allowed = ~np.eye(table.scores.shape[0], dtype=bool)
    z, middle, rhat = [], [], []
    for r in range(runs):
        result = order_mcmc(table, tandem.Philox(7).sub("calibration").split(r),
                            chains=chains, iterations=iterations, progress=False)
        se = np.sqrt(result.edge_standard_errors ** 2 + exact_se ** 2)
        with np.errstate(invalid="ignore"):  # the diagonal's 0 / 0, left out below
            each = (result.edge_probabilities - exact) / se
        z.append(each[allowed])
        middle.append(each[allowed & (exact > 0.05) & (exact < 0.95)])
        rhat.append(np.nanmax(result.edge_rhat))
    return np.concatenate(z), np.concatenate(middle), np.array(rhat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--reference", type=int, default=20,
                        help="the reference run's length in runs, where the DP does not fit")
    parser.add_argument("--networks", nargs="*", default=["asia", "sachs", "child", "alarm"])
    parser.add_argument("--rows", nargs="*", type=int, default=[500, 2000])
    args = parser.parse_args()
    print(f"tandem {tandem.__version__}; data sampled by pgmpy; BDeu (ess 1), k = 3; "
          f"{args.runs} runs x {args.chains} chains x {args.iterations} iterations per case")
    print("| network | rows | reference | edges x runs | P(abs z > 2) | largest abs z | "
          "exact in (0.05, 0.95): edges x runs | P(abs z > 2) | largest abs z | "
          "median largest R-hat | seconds |")
    print("| --- |" + " --- |" * 10)
    for name in args.networks:
        for rows in args.rows:
            start = time.perf_counter()
            table = score_table(pgmpy_data(name, rows), score="bdeu", ess=1.0, max_parents=3,
                                progress=False)
            exact, exact_se = reference(table, args.reference * args.iterations, args.chains)
            source = ("exact DP" if not exact_se.any()
                      else f"{args.chains} x {args.reference * args.iterations} run")
            z, middle, rhat = z_scores(table, exact, exact_se, args.runs, args.iterations,
                                       args.chains)
            print(f"| {name} | {rows} | {source} | {z.size} | {np.mean(np.abs(z) > 2):.3f} | "
                  f"{np.abs(z).max():.2f} | {middle.size} | "
                  f"{np.mean(np.abs(middle) > 2) if middle.size else float('nan'):.3f} | "
                  f"{np.abs(middle).max(initial=0.0):.2f} | {np.median(rhat):.3f} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
