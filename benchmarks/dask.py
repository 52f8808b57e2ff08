"""tandem.dask on a LocalCluster of this machine: 1 worker against 2, and the local fill.

    python benchmarks/dask.py [--elements 100000000] [--chunk 5000000] [--repeats 3]

Each worker is a process with one thread, and every fill runs with ``threads=1``, so
that a worker is one core.  Timed, as medians of ``--repeats`` runs taken in turn:

* ``normal``: ``tandem.dask.normal(...).sum()`` (the chunks stay on the workers),
  against one local ``stream.normal(n, threads=1)`` and its sum;
* the overhead a task: 2,000 tasks of 1,000 elements, less their compute time;
* ``bn.score_table(hepar2, k=3, client=...)`` against the local table on one thread.

The scaling efficiency is ``t(1 worker) / (2 t(2 workers))``.
"""

import argparse
import logging
import os
import platform
import sys
import time

import numpy as np

# this file's name is the package's: import the package, not this file
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=100_000_000)
    parser.add_argument("--chunk", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--networks", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                           "shared", "data", "networks"))
    args = parser.parse_args()
    os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba loads, here and in the workers
    import distributed
    import numba

    logging.getLogger("distributed").setLevel(logging.ERROR)

    import tandem
    import tandem.dask
    from tandem import bn

    sys.path.append(HERE)
    from bn_gpu import dataset

    root = tandem.Philox(2026)
    n, chunk = args.elements, args.chunk
    data = dataset("hepar2", 1000, args.networks)
    rows = []

    def local_normal():
        values, _ = root.normal(n, threads=1)
        return float(values.sum())

    def local_table():
        return bn.score_table(data, max_parents=3, progress=False)

    local_normal()
    local_table()
    t_local = median_time(local_normal, args.repeats)
    t_table_local = median_time(local_table, args.repeats)
    expected_table = local_table().scores
    clusters = {}
    for workers in (1, 2):
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, host="127.0.0.1",
                                           dashboard_address=None, silence_logs=40)
        clusters[workers] = (cluster, distributed.Client(cluster))
    times = {1: {}, 2: {}}
    x, _ = tandem.dask.normal(root, size=(n,), chunks=chunk, threads=1)
    small, _ = tandem.dask.normal(root, size=(2_000_000,), chunks=1_000, threads=1)
    for workers in (1, 2):  # warm: the workers compile or load the kernels
        client = clusters[workers][1]
        client.compute(small.sum()).result()
        bn.score_table(data, max_parents=1, progress=False, client=client)
    for _ in range(args.repeats):
        for workers in (1, 2):
            client = clusters[workers][1]
            for key, fn in (("normal", lambda: client.compute(x.sum()).result()),
                            ("small", lambda: client.compute(small.sum()).result()),
                            ("table", lambda: bn.score_table(data, max_parents=3, progress=False,
                                                             client=client))):
                t0 = time.perf_counter()
                result = fn()
                times[workers].setdefault(key, []).append(time.perf_counter() - t0)
                if key == "table":
                    assert np.array_equal(result.scores, expected_table)
    for workers in (1, 2):
        clusters[workers][1].close()
        clusters[workers][0].close()
    med = {w: {k: float(np.median(v)) for k, v in times[w].items()} for w in times}
    per_element = t_local / n
    print(f"{time.strftime('%Y-%m-%d')}; {platform.machine()} ({os.cpu_count()} cores); "
          f"tandem {tandem.__version__}, numba {numba.__version__}, distributed "
          f"{distributed.__version__}; one thread a worker; medians of {args.repeats}")
    print()
    print("| work | local (1 thread) s | 1 worker s | 2 workers s | 1 worker / local | "
          "scaling efficiency |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| normal, {n:,} elements, chunks of {chunk:,}, summed | {t_local:.2f} | "
          f"{med[1]['normal']:.2f} | {med[2]['normal']:.2f} | "
          f"{med[1]['normal'] / t_local:.2f} | {med[1]['normal'] / (2 * med[2]['normal']):.0%} |")
    print(f"| bn.score_table, hepar2, k = 3, 1,000 rows | {t_table_local:.2f} | "
          f"{med[1]['table']:.2f} | {med[2]['table']:.2f} | "
          f"{med[1]['table'] / t_table_local:.2f} | "
          f"{med[1]['table'] / (2 * med[2]['table']):.0%} |")
    tasks = 2_000_000 // 1_000
    print()
    for workers in (1, 2):
        overhead = (med[workers]["small"] - 2_000_000 * per_element / workers) / tasks
        print(f"overhead a task, {workers} worker(s), {tasks:,} tasks of 1,000 elements: "
              f"{overhead * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
