"""Tandem8x32 fills on the CPU, one thread: against Philox, NumPy and the write roof.

    python benchmarks/tandem_cpu.py [--log2n 24] [--rounds 7] [--only uniform]

Each row times ``tandem.Tandem``, ``tandem.Philox`` and the fastest NumPy
bit generator filling the same preallocated array, and a compiled loop that
stores a constant into it (the one-thread write roof).  The four alternate,
round after round, and the table quotes medians: GB/s of output and the
ratios Tandem / roof, Tandem / Philox and Tandem / NumPy.
"""

import argparse
import time

import numba
import numpy as np

import tandem


@numba.njit(cache=True)
def _store(out, value):
    for i in range(out.size):
        out[i] = value


def _rows():
    t, p = tandem.Tandem(1), tandem.Philox(1)
    numpy = np.random.Generator(np.random.SFC64(1))
    return {
        "raw uint32": (np.uint32, lambda o: t.bits(out=o, threads=1),
                       lambda o: p.bits(out=o, threads=1),
                       lambda o: numpy.integers(0, 2**32, o.size, np.uint32)),
        "raw uint64": (np.uint64, lambda o: t.bits(out=o, dtype=np.uint64, threads=1),
                       lambda o: p.bits(out=o, dtype=np.uint64, threads=1),
                       lambda o: numpy.bit_generator.random_raw(o.size)),
        "uniform f32": (np.float32, lambda o: t.random(out=o, dtype=np.float32, threads=1),
                        lambda o: p.random(out=o, dtype=np.float32, threads=1),
                        lambda o: numpy.random(out=o, dtype=np.float32)),
        "uniform f64": (np.float64, lambda o: t.random(out=o, threads=1),
                        lambda o: p.random(out=o, threads=1), lambda o: numpy.random(out=o)),
        "normal f32": (np.float32, lambda o: t.normal(out=o, dtype=np.float32, threads=1),
                       lambda o: p.normal(out=o, dtype=np.float32, threads=1),
                       lambda o: numpy.standard_normal(out=o, dtype=np.float32)),
        "normal f64": (np.float64, lambda o: t.normal(out=o, threads=1),
                       lambda o: p.normal(out=o, threads=1),
                       lambda o: numpy.standard_normal(out=o)),
        "exponential f32": (np.float32,
                            lambda o: t.exponential(out=o, dtype=np.float32, threads=1),
                            lambda o: p.exponential(out=o, dtype=np.float32, threads=1),
                            lambda o: numpy.standard_exponential(out=o, dtype=np.float32)),
        "exponential f64": (np.float64, lambda o: t.exponential(out=o, threads=1),
                            lambda o: p.exponential(out=o, threads=1),
                            lambda o: numpy.standard_exponential(out=o)),
    }


def _median_seconds(runs, rounds):
    """Median seconds of each run, the runs alternating round after round."""
    times = [[] for _ in runs]
    for _ in range(rounds):
        for run, kept in zip(runs, times):
            start = time.perf_counter()
            run()
            kept.append(time.perf_counter() - start)
    return [float(np.median(kept)) for kept in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="", help="rows whose name contains this")
    args = parser.parse_args()
    n = 2**args.log2n
    print(f"n = 2**{args.log2n}, one thread, medians of {args.rounds} alternating rounds")
    print(f"{'fill':18s} {'roof GB/s':>9s} {'Tandem GB/s':>11s} {'/ roof':>7s} "
          f"{'/ Philox':>8s} {'/ NumPy':>8s}")
    for name, (dtype, ours, philox, numpy) in _rows().items():
        if args.only not in name:
            continue
        out = np.zeros(n, dtype)
        roof = (lambda o=out: _store(o, o.dtype.type(1)))
        runs = [roof, lambda: ours(out), lambda: philox(out), lambda: numpy(out)]
        for run in runs:
            run()  # compile, and touch the pages
        t_roof, t_ours, t_philox, t_numpy = _median_seconds(runs, args.rounds)
        gb = out.nbytes / 1e9
        print(f"{name:18s} {gb / t_roof:9.2f} {gb / t_ours:11.2f} {t_roof / t_ours:7.2f} "
              f"{t_philox / t_ours:8.2f} {t_numpy / t_ours:8.2f}")


if __name__ == "__main__":
    main()
