"""Structure-learning benchmark: tandem.bn's score table against pgmpy, order MCMC, AUROC.

    python benchmarks/bn.py [--rows 1000] [--pgmpy-scores 300] [--iterations 20000]

In one run, on this machine:

* score-table throughput (BDeu, ess 1, every parent set of at most 3 of the
  other nodes, all cores) against pgmpy's ``BDeu.local_score`` on the same
  data, timed over ``--pgmpy-scores`` random families of sizes 0 to 3;
* order-MCMC iterations per second (4 chains, all cores) on alarm (37 nodes)
  and hepar2 (70 nodes), k = 3;
* edge AUROC on alarm with ``--rows`` sampled rows, against the true graph.

The data are sampled from the networks with ``Philox(2024).sub(name)``.
hepar2 is not shipped with tandem; it is read from ``--networks``
(default ``../shared/data/networks``) when there.
"""

import argparse
import os
import time
import warnings

import numpy as np

import tandem
from tandem import bn
from tandem.bn import diagnostics


def sampled(name, rows, networks):
    if name in bn.NETWORKS:
        network = bn.load_network(name)
    else:
        network = bn.read_bif(os.path.join(networks, f"{name}.bif.gz"))
    return network, network.sample(rows, tandem.Philox(2024).sub(name))


def timed(run):
    t0 = time.perf_counter()
    value = run()
    return value, time.perf_counter() - t0


def pgmpy_seconds_per_score(data, count):
    from pgmpy.structure_score import BDeu

    frame = data.to_dataframe()
    states = {v: list(s) for v, s in zip(data.names, data.states)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = BDeu(frame, state_names=states, equivalent_sample_size=1.0)
    rng = np.random.default_rng(0)
    families = []
    for t in range(count):
        child = int(rng.integers(data.n_vars))
        others = [j for j in range(data.n_vars) if j != child]
        parents = rng.choice(others, t % 4, replace=False)
        families.append((data.names[child], tuple(data.names[p] for p in parents)))
    score.local_score(*families[0])
    _, seconds = timed(lambda: [score.local_score(c, p) for c, p in families])
    return seconds / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--pgmpy-scores", type=int, default=300)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--networks", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "data", "networks"))
    args = parser.parse_args()

    network, data = sampled("alarm", args.rows, args.networks)
    small = bn.load_network("cancer").sample(100, tandem.Philox(1))
    bn.score_table(small, max_parents=3, progress=False)  # compile
    table, table_seconds = timed(lambda: bn.score_table(data, max_parents=3, progress=False))
    scores = table.scores.size
    per_pgmpy = pgmpy_seconds_per_score(data, args.pgmpy_scores)

    print(f"alarm ({data.n_vars} nodes), {args.rows} rows, BDeu ess 1, k = 3; "
          f"{os.cpu_count()} cores\n")
    print("| score table | scores | seconds | scores/s | µs per score |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| tandem.bn.score_table | {scores} | {table_seconds:.3f} | "
          f"{scores / table_seconds:.3g} | {table_seconds / scores * 1e6:.3f} |")
    print(f"| pgmpy 1.1 BDeu.local_score ({args.pgmpy_scores} families) | | | "
          f"{1 / per_pgmpy:.3g} | {per_pgmpy * 1e6:.0f} |")
    print(f"\ntandem / pgmpy, per score: {per_pgmpy * scores / table_seconds:.0f}x\n")

    bn.order_mcmc(bn.score_table(small, max_parents=3, progress=False), tandem.Philox(1),
                  chains=2, iterations=100, progress=False)  # compile
    print("| order MCMC, 4 chains, k = 3 | nodes | parent sets per node | table seconds | "
          "iterations | seconds | iterations/s (all chains) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    runs = {"alarm": (table, table_seconds)}
    if os.path.exists(os.path.join(args.networks, "hepar2.bif.gz")):
        _, hepar = sampled("hepar2", args.rows, args.networks)
        runs["hepar2"] = timed(lambda: bn.score_table(hepar, max_parents=3, progress=False))
    results = {}
    for name, (t, t_seconds) in runs.items():
        result, seconds = timed(lambda: bn.order_mcmc(
            t, tandem.Philox(7), chains=4, iterations=args.iterations, progress=False))
        results[name] = result
        total = 4 * args.iterations
        print(f"| {name} | {t.n_nodes} | {t.scores.shape[1]} | {t_seconds:.2f} | {total} | "
              f"{seconds:.2f} | {total / seconds:.3g} |")

    truth = network.adjacency()
    result = results["alarm"]
    print(f"\nalarm, {args.rows} rows, 4 chains x {args.iterations} iterations: edge AUROC "
          f"{diagnostics.edge_auroc(result.edge_probabilities, truth):.3f} (directed), "
          f"{diagnostics.edge_auroc(result.edge_probabilities, truth, directed=False):.3f} "
          f"(skeleton); SHD of the best DAG "
          f"{diagnostics.structural_hamming_distance(result.best_dag, truth)} "
          f"({int(truth.sum())} true edges); split R-hat of the order score "
          f"{diagnostics.rhat(result.traces, burn_in=result.burn_in):.3f}")


if __name__ == "__main__":
    main()
