"""A/B of tandem's CPU fills: two source trees, alternated, medians.

    python benchmarks/ab.py OLD_TREE NEW_TREE [--kinds ...] [--log2n 22] [--rounds 5]

Each round runs one process a tree, old then new, that times ``benchmarks/cpu.py``'s
rows of that tree (its ``KINDS``: tandem's side only) at one thread and at every
core, best of 3 fills each.  After a warm-up round (which compiles, or loads
from the trees' own caches), the table gives the median over the rounds of
each tree's rate and the ratio new / old.  The machines are noisy: the rounds
alternate so that a slow spell hits both.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import numba, numpy as np, tandem
import cpu
n, kinds = int(sys.argv[2]), sys.argv[3:]
stream = tandem.Philox(20261129)
rates = {}
for kind in kinds:
    dtype, ours, _ = cpu.KINDS[kind]
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        out = np.empty(n, dtype)
        rates[f"{kind}|{threads}"] = cpu.best_rate(lambda: ours(stream, out, threads), n, 3)
print(json.dumps(rates))
"""


def rates(tree, n, kinds):
    """``{"kind|threads": M/s}`` of one process on ``tree``."""
    env = {**os.environ, "PYTHONPATH": os.path.join(tree, "src")}
    done = subprocess.run([sys.executable, "-c", _CHILD, tree, str(n), *kinds],
                          capture_output=True, text=True, env=env, cwd=tree)
    if done.returncode:
        raise RuntimeError(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--kinds", nargs="+", required=True)
    parser.add_argument("--log2n", type=int, default=22)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = 1 << args.log2n
    for tree in (args.old, args.new):  # warm-up: compiles or loads the kernels
        rates(tree, 1 << 12, args.kinds)
    runs = {args.old: [], args.new: []}
    for _ in range(args.rounds):
        for tree in (args.old, args.new):
            runs[tree].append(rates(tree, n, args.kinds))
    print(f"n = 2**{args.log2n}, medians of {args.rounds} alternated rounds, M/s\n")
    print("| kind | threads | old | new | new / old |")
    print("| --- | --- | --- | --- | --- |")
    for key in runs[args.old][0]:
        old = statistics.median(r[key] for r in runs[args.old])
        new = statistics.median(r[key] for r in runs[args.new])
        kind, threads = key.split("|")
        print(f"| {kind} | {threads} | {old:.0f} | {new:.0f} | {new / old:.2f} |")


if __name__ == "__main__":
    main()
