"""Candidate parents on large networks: the top K by pairwise gain, the PC
skeleton, and each grown by rounds of expansion (tandem.bn.expansion), with
the true parents kept, the CPDAG SHD of the graph of edges above 0.5 and of
the MAP DAG, and the time.

``python3 benchmarks/bn_candidates.py [--networks hepar2 win95pts andes]
[--rows 1000] [--iterations 20000]`` (the networks from ../shared/data/networks).
"""

import argparse
import pathlib
import time
import warnings

import numpy as np

import tandem
from tandem.bn import diagnostics, graphs, read_bif, report
from tandem.bn.expansion import candidate_matrix

NETWORKS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "networks"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="*", default=["hepar2", "win95pts", "andes"])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--expand", type=int, default=4)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"tandem {tandem.__version__}; {args.rows} rows (Philox(7)), BDeu ess 1, k = 3, "
          f"4 chains x {args.iterations} iterations; expansion up to {args.expand} rounds")
    print("| network | candidates | true parents kept | candidates per node | CPDAG SHD, "
          "edges above 0.5 | CPDAG SHD, MAP DAG | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in args.networks:
        network = read_bif(NETWORKS / f"{name}.bif.gz")
        data = network.sample(args.rows, tandem.Philox(7))
        truth = network.adjacency()
        true_class = graphs.cpdag(truth)
        for label, candidates, expand in (("top 20", 20, 0), ("top 20, expanded", 20, args.expand),
                                          ("PC skeleton", "pc", 0),
                                          ("PC skeleton, expanded", "pc", args.expand)):
            start = time.perf_counter()
            learned = report.learn(data, candidates=candidates, max_parents=3,
                                   iterations=args.iterations, expand=expand, progress=False,
                                   time_limit=3600)
            seconds = time.perf_counter() - start
            kept = int((candidate_matrix(learned.table) & truth).sum())
            shd_graph = diagnostics.structural_hamming_distance(
                graphs.cpdag(learned.graph()), true_class)
            shd_map = diagnostics.structural_hamming_distance(
                graphs.cpdag(learned.map_dag[0]), true_class)
            rounds = learned.settings.get("expansion_rounds", [])
            added = "+".join(str(r["candidates_added"]) for r in rounds)
            print(f"| {name} | {label}{f' ({added} added)' if added else ''} | {kept} of "
                  f"{int(truth.sum())} | {learned.table.candidates.shape[1]} | {shd_graph} | "
                  f"{shd_map} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
