"""Mixing of order MCMC on andes: plain chains against parallel tempering and
the Gibbs draw of a node's position.

The table: andes, 1,000 rows sampled on Philox(7), BDeu ess 1, top-20
candidates, k = 3. Four chains from Philox(1), keeping one order in
``iterations // 20,000``. Printed per run: the chains' best order scores, the largest
edge R-hat and the edges above 1.05 (over the edges sampled in at least
1 % of the DAGs), the largest difference of an edge's probability between
chains, the swap rates, and the seconds.

``python3 benchmarks/bn_tempering.py --iterations 420000 --replicas 8
--hottest 0.3 --gibbs 0.25 --burn-in 0.2`` (a plain run: ``--replicas 1
--gibbs 0``).
"""

import argparse
import pathlib
import time

import numpy as np

import tandem
from tandem.bn import order_mcmc, read_bif, score_table
from tandem.bn.mcmc import DEFAULT_MOVES, geometric_temperatures

NETWORKS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "networks"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="andes")
    parser.add_argument("--iterations", type=int, default=420_000)
    parser.add_argument("--replicas", type=int, default=8)
    parser.add_argument("--hottest", type=float, default=0.3)
    parser.add_argument("--gibbs", type=float, default=0.25,
                        help="the weight of gibbs_position against 1 for each plain move")
    parser.add_argument("--burn-in", type=float, default=0.2, help="a fraction of iterations")
    parser.add_argument("--swap-every", type=int, default=10)
    args = parser.parse_args()
    network = read_bif(NETWORKS / f"{args.network}.bif.gz")
    table = score_table(network.sample(1000, tandem.Philox(7)), max_parents=3, candidates=20,
                        progress=False)
    moves = {name: 1.0 for name in DEFAULT_MOVES}
    if args.gibbs:
        moves["gibbs_position"] = args.gibbs
    burn_in = int(args.burn_in * args.iterations)
    start = time.perf_counter()
    result = order_mcmc(table, tandem.Philox(1), chains=4, iterations=args.iterations,
                        burn_in=burn_in, thin=max(1, args.iterations // 20_000),
                        temperatures=geometric_temperatures(args.replicas, args.hottest),
                        swap_every=args.swap_every, moves=moves, progress=False)
    seconds = time.perf_counter() - start
    sampled = result.edge_probabilities > 0.01
    rhat = result.edge_rhat[sampled]
    per_chain = result.chain_edge_probabilities
    print(f"tandem {tandem.__version__}; {args.network}, 1000 rows (Philox(7)), top-20 "
          f"candidates, k = 3; 4 chains; moves {moves}; swap rates per pair "
          f"{np.nanmean(result.swap_rates, axis=0).round(2).tolist()}")
    print("| replicas (hottest) | moves | iterations (burn-in) | seconds | best order score per "
          "chain | largest edge R-hat | edges above 1.05 | largest difference between chains |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    best = ", ".join(f"{x:.0f}" for x in result.traces.max(axis=1))
    print(f"| {args.replicas} ({args.hottest:g}) | {'with Gibbs' if args.gibbs else 'plain'} | "
          f"{args.iterations:,} ({burn_in:,}) | {seconds:.0f} | {best} | {rhat.max():.3g} | "
          f"{int((rhat > 1.05).sum())} of {rhat.size} | "
          f"{np.nanmax(per_chain.max(axis=0) - per_chain.min(axis=0)):.2f} |")


if __name__ == "__main__":
    main()
