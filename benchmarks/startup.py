"""How fast tandem answers (issue 40): first calls with an empty and a warm compile
cache, and the cost of a small call, against NumPy in the same run.

    python benchmarks/startup.py [--methods random gamma ...] [--sizes 10 1000000]
                                 [--repeats 5] [--compile] [--suite]

* First calls: ``import tandem``, ``tandem.Generator(1)`` and one call of a
  Generator method, in a new process whose ``NUMBA_CACHE_DIR`` is an empty
  folder (cold), then again with the folder the first run filled (warm).
  Small and large sizes: a fill of fewer than ``LEAN_BELOW`` elements takes
  the lean kernels, a larger one the vectorised ones.
* Small calls: µs a call for size None, 1, 10 and 100, tandem and NumPy's PCG64
  alternated, the median of ``repeats`` rounds of 1,000 calls.
* ``--compile``: ``tandem compile`` with an empty cache.  ``--suite``: the
  README's test command with an empty cache (tens of minutes on 2 cores).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

import tandem

#: Generator methods and their arguments before ``size``.
METHODS = {
    "random": (), "standard_normal": (), "normal": (0.0, 1.0), "integers": (0, 10),
    "standard_exponential": (), "exponential": (2.0,), "uniform": (0.0, 2.0),
    "gamma": (2.0,), "poisson": (3.0,), "binomial": (10, 0.3), "beta": (2.0, 3.0),
    "standard_t": (5.0,), "laplace": (), "lognormal": (), "vonmises": (0.0, 1.0),
    "geometric": (0.3,), "chisquare": (3.0,), "negative_binomial": (4, 0.3),
    "choice": (10,), "permutation": (), "zipf": (2.0,), "hypergeometric": (5, 5, 3),
}
SMALL_CALLS = ("random", "standard_normal", "normal", "integers", "gamma", "poisson",
               "exponential")


def _source(method, size):
    """The call of ``method`` on a Generator ``g``, as source."""
    if method == "permutation":
        return f"g.permutation({10 if size is None else size})"
    args = "".join(f"{a!r}, " for a in METHODS[method])
    return f"g.{method}({args}size={size!r})"


def _caller(method, size):
    """The function ``g -> the call``."""
    return eval(f"lambda g: {_source(method, size)}")


FIRST = """
    import time
    t0 = time.perf_counter()
    import tandem
    t1 = time.perf_counter()
    g = tandem.Generator(1)
    t2 = time.perf_counter()
    {call}
    t3 = time.perf_counter()
    print(t1 - t0, t2 - t1, t3 - t2)"""


def first_call(method, size, cache):
    """Seconds ``(import, Generator(1), the call)`` in a new process with ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FIRST.format(
        call=_source(method, size)))], capture_output=True, text=True, env=env, check=True)
    return tuple(float(x) for x in done.stdout.split())


def first_calls(methods, sizes):
    rows = []
    for method in methods:
        for size in sizes:
            with tempfile.TemporaryDirectory() as cache:
                cold = first_call(method, size, cache)
                warm = min((first_call(method, size, cache) for _ in range(2)),
                           key=sum)
            rows.append((method, size, cold, warm))
    return rows


def per_call_us(run, calls=1000):
    run()
    t0 = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - t0) / calls * 1e6


def small_calls(repeats):
    g, numpy = tandem.Generator(1), np.random.default_rng(1)
    rows = []
    for method in SMALL_CALLS:
        for size in (None, 1, 10, 100):
            ours, theirs = [], []
            call = _caller(method, size)
            for _ in range(repeats):  # alternated: the machine's noise hits both
                ours.append(per_call_us(lambda: call(g)))
                theirs.append(per_call_us(lambda: call(numpy)))
            rows.append((method, size, float(np.median(ours)), float(np.median(theirs))))
    return rows


def timed_command(command, cache):
    t0 = time.perf_counter()
    subprocess.run(command, env={**os.environ, "NUMBA_CACHE_DIR": cache}, check=True,
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", nargs="*", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--sizes", nargs="*", type=int, default=[10, 10**6])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="time `tandem compile` cold")
    parser.add_argument("--suite", action="store_true", help="time the test suite cold")
    args = parser.parse_args()
    print(f"tandem {tandem.__version__}, numpy {np.__version__}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')}\n")
    print("| method | size | cold: import s | Generator() s | call s | total s | "
          "warm: total s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for method, size, cold, warm in first_calls(args.methods, args.sizes):
        print(f"| {method} | {size} | {cold[0]:.2f} | {cold[1]:.2f} | {cold[2]:.2f} | "
              f"{sum(cold):.2f} | {sum(warm):.2f} |")
    print("\n| method | size | tandem µs | NumPy PCG64 µs | tandem / NumPy |")
    print("| --- | --- | --- | --- | --- |")
    for method, size, ours, theirs in small_calls(args.repeats):
        print(f"| {method} | {size} | {ours:.1f} | {theirs:.2f} | {ours / theirs:.1f} |")
    if args.compile:
        with tempfile.TemporaryDirectory() as cache:
            seconds = timed_command([sys.executable, "-m", "tandem", "compile"], cache)
        print(f"\n`tandem compile`, empty cache: {seconds:.0f} s")
    if args.suite:
        with tempfile.TemporaryDirectory() as cache:
            seconds = timed_command([sys.executable, "-m", "pytest", "-q"], cache)
        print(f"\nThe test suite, empty cache: {seconds:.0f} s")


if __name__ == "__main__":
    main()
