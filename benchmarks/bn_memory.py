"""Score-table sizes before and after pruning dominated parent sets, and what
order MCMC keeps beside the table.

For each network: the table (1,000 rows sampled on Philox(7), BDeu, k = 3),
the parent sets that a proper subset beats (by any margin: never a MAP
choice; by ``PRUNE_GAP`` nats: lost in rounding), the table that
:func:`tandem.bn.pruning.prune` keeps, and the peak of NumPy allocations
during a short :func:`tandem.bn.order_mcmc` run of 2 chains (tracemalloc,
which sees Numba's allocations too), with the share of its one table-sized
array (the weights), against the table-sized arrays of the earlier layout
(sorted scores, sorted ranks, set masks and weights).

``python3 benchmarks/bn_memory.py [--networks hepar2 win95pts pathfinder andes]``
"""

import argparse
import pathlib
import time
import tracemalloc

import numpy as np

import tandem
from tandem.bn import order_mcmc, pruning, read_bif, score_table

NETWORKS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "networks"
#: candidates per node: None for every other node; andes's full table (3.3 GB) takes
#: the best part of an hour to score on two cores
CANDIDATES = {"hepar2": None, "win95pts": None, "pathfinder": None, "andes": 40}


def mib(n):
    return f"{n / 2**20:,.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    print(f"tandem {tandem.__version__}; {args.rows} rows (Philox(7)), BDeu ess 1, k = 3; "
          f"gap {pruning.PRUNE_GAP:g} nats")
    print("| network | candidates | sets | table MiB | undominated, gap 0 | undominated, "
          f"gap {pruning.PRUNE_GAP:g} | candidates after pruning, gap 0 / gap "
          f"{pruning.PRUNE_GAP:g} | pruned table MiB, gap 0 / gap {pruning.PRUNE_GAP:g} | order MCMC "
          "peak beside the table MiB (weights) | earlier table-sized arrays MiB | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.networks:
        start = time.perf_counter()
        network = read_bif(NETWORKS / f"{name}.bif.gz")
        data = network.sample(args.rows, tandem.Philox(7))
        table = score_table(data, max_parents=3, candidates=CANDIDATES.get(name),
                            progress=False)
        entries = table.scores.size
        kept = [int((~pruning.dominated(table, gap)).sum()) for gap in (0.0, pruning.PRUNE_GAP)]
        share = [f"{count:,} ({count / entries:.2%})" for count in kept]
        pruned = [pruning.prune(table, gap) for gap in (0.0, pruning.PRUNE_GAP)]
        tracemalloc.start()
        order_mcmc(table, tandem.Philox(1), chains=2, iterations=200, progress=False)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        words = -(-table.m // 64)
        earlier = 8 * entries * (3 + words)
        print(f"| {name} | {table.m} | {entries:,} | {mib(table.scores.nbytes)} | {share[0]} | "
              f"{share[1]} | {pruned[0].m} / {pruned[1].m} | {mib(pruned[0].scores.nbytes)} / "
              f"{mib(pruned[1].scores.nbytes)} | {mib(peak)} "
              f"({mib(table.scores.nbytes)}) | "
              f"{mib(earlier)} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
