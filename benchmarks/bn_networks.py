"""``tandem bn learn`` end to end on networks of hundreds of nodes, per device.

    python benchmarks/bn_networks.py [--networks pathfinder munin1 link]
        [--rows 1000] [--candidates 10] [--iterations 20000] [--devices cpu cuda]

For each network (a BIF in ``--folder``, default ``../shared/data/networks``)
and device: the rows sampled as ``tandem bn learn --network`` samples them,
then :func:`tandem.bn.report.learn` (BDeu, ess 1, k = 3, the ``--candidates``
of largest pairwise gain, 4 chains), in a process of its own.  That process
first learns a 300-row cancer on the same device (the warm-up), then the
network twice: the first run compiles the kernels of its table's shape, and
the table gives its seconds, then the second run's seconds of the score
table, of the chains and in all, the process's
peak resident memory, the largest edge R-hat and the CPDAG SHDs against the
network (of the graph of edges above 0.5 and of the MAP DAG).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

CHILD = """
    import json, resource, sys, time
    import tandem
    from tandem.bn import load_network, read_bif, report

    path, rows, candidates, iterations, device = sys.argv[1:6]
    t0 = time.perf_counter()
    warm = load_network("cancer")
    report.learn(warm.sample(300, tandem.Tandem(0)), candidates=None, iterations=400,
                 device=device, progress=False)
    warm_up = time.perf_counter() - t0
    network = read_bif(path)
    data = network.sample(int(rows), tandem.Tandem(0).sub(report.PURPOSE_DATA))
    times = []
    for _ in range(2):  # the first compiles the kernels of this table's shape
        t0 = time.perf_counter()
        learned = report.learn(data, candidates=int(candidates), iterations=int(iterations),
                               device=device, true_adjacency=network.adjacency(),
                               progress=False)
        times.append(time.perf_counter() - t0)
    record = learned.summary()
    print(json.dumps({"nodes": data.n_vars, "warm_up": warm_up, "first": times[0],
                      "total": times[1],
                      "seconds": record["seconds"], "edges": record["edges"],
                      "truth": record["against_true_graph"],
                      "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default=str(Path(__file__).resolve().parents[2] / "shared"
                                                / "data" / "networks"))
    parser.add_argument("--networks", nargs="*", default=["pathfinder", "munin1", "link"])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--candidates", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--devices", nargs="*", default=["cpu", "cuda"])
    args = parser.parse_args()
    print(f"{platform.node()}: {args.rows} rows, BDeu (ess 1), k = 3, {args.candidates} "
          f"candidates, 4 chains x {args.iterations} iterations")
    print("| network | nodes | device | warm-up s | first run s | score table s | order MCMC s | "
          "total s | "
          "peak RSS GiB | largest edge R-hat | CPDAG SHD (p > 0.5) | CPDAG SHD (MAP DAG) | "
          "true edges |")
    print("| --- |" + " --- |" * 12)
    for name in args.networks:
        path = Path(args.folder) / f"{name}.bif.gz"
        for device in args.devices:
            done = subprocess.run(
                [sys.executable, "-c", textwrap.dedent(CHILD), str(path), str(args.rows),
                 str(args.candidates), str(args.iterations), device],
                capture_output=True, text=True)
            if done.returncode:
                tail = (done.stderr.strip().splitlines() or ["?"])[-1]
                print(f"| {name} | | {device} | failed: {tail[:150]} |", flush=True)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            rhat = r["edges"]["largest_rhat"]
            print(f"| {name} | {r['nodes']} | {device} | {r['warm_up']:.1f} | {r['first']:.1f} | "
                  f"{r['seconds']['score_table']:.1f} | {r['seconds']['order_mcmc']:.1f} | "
                  f"{r['total']:.1f} | {r['rss_gib']:.2f} | "
                  f"{'n/a' if rhat is None else f'{rhat:.3g}'} | "
                  f"{r['truth']['shd_cpdag_graph']} | {r['truth']['shd_cpdag_map_dag']} | "
                  f"{r['truth']['true_edges']} |", flush=True)


if __name__ == "__main__":
    main()
