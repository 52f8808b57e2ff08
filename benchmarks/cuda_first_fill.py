"""The first CUDA fill of a law, per generator (issue 40): seconds of each first
call in a new process, so that the kernels' compile is in them.

    python benchmarks/cuda_first_fill.py [--laws normal gamma ...] [--trees A B]
                                         [--rounds 2]

Each law runs in its own process: ``import tandem``, then one fill of 2**20
elements on the GPU from a Philox, a Threefry and a Tandem stream, in that
order, each timed to its end (``cuda.synchronize``).  A generator after the
first pays only what its kernels do not share with the first's.  ``--trees``
runs two source trees (their ``src`` folders) alternately, ``rounds`` times,
and prints the medians.
"""

import argparse
import os
import statistics
import subprocess
import sys
import textwrap

#: Laws of :mod:`tandem.parametric` and their parameters.
LAWS = {"normal": (0.0, 1.0), "uniform": (0.0, 1.0), "gamma": (2.0, 1.0),
        "poisson": (3.0,), "laplace": (0.0, 1.0), "binomial": (10, 0.3)}

PROGRAM = """
    import time
    t0 = time.perf_counter()
    import tandem
    from numba import cuda
    from tandem import parametric
    t1 = time.perf_counter()
    times = [t1 - t0]
    for stream in (tandem.Philox(1), tandem.Threefry(1), tandem.Tandem(1)):
        t = time.perf_counter()
        parametric.fill(stream, {law!r}, *{params!r}, size=2**20, device="cuda")
        cuda.synchronize()
        times.append(time.perf_counter() - t)
    print(*times)
"""


def first_fills(law, tree):
    """``[import, Philox, Threefry, Tandem]`` seconds of one new process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(tree, "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    source = textwrap.dedent(PROGRAM.format(law=law, params=LAWS[law]))
    result = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True,
                            text=True, check=True)
    return [float(x) for x in result.stdout.split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--laws", nargs="*", default=list(LAWS), choices=list(LAWS))
    parser.add_argument("--trees", nargs="*", default=["."])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print("| law | tree | import s | Philox s | Threefry s | Tandem s | all three s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for law in args.laws:
        runs = {tree: [] for tree in args.trees}
        for _ in range(args.rounds):
            for tree in args.trees:  # alternated
                runs[tree].append(first_fills(law, tree))
        for tree, times in runs.items():
            medians = [statistics.median(column) for column in zip(*times)]
            print(f"| {law} | {tree} | " + " | ".join(f"{t:.2f}" for t in medians)
                  + f" | {sum(medians[1:]):.2f} |", flush=True)


if __name__ == "__main__":
    main()
