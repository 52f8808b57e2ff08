"""CPU benchmark: tandem against numpy.random.Generator, in one run.

    python benchmarks/cpu.py [--log2n 24] [--repeats 5]

Prints a table of rates (M elements/s, best of ``repeats``) and ratios to the
fastest NumPy bit generator, for one thread and for all cores; then the
time per call of ``tandem.Generator``'s methods against NumPy's Generator
(size None, 1000 and 10**6), of permutations and samples without
replacement, and of small fills; then start-up times and the memory a fill
allocates.  NumPy's generators are single-threaded, so "all cores" runs one
NumPy generator per core on its own slice, in threads (NumPy releases the
GIL while it fills).
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numba
import numpy as np

import tandem
import tandem.multivariate
import tandem.parametric

import _multivariate

PEERS = {"PCG64": np.random.PCG64, "Philox": np.random.Philox, "SFC64": np.random.SFC64}
KINDS = {
    "uniform f32": (np.float32, lambda s, o, t: s.random(out=o, dtype=np.float32, threads=t),
                    lambda g, o: g.random(out=o, dtype=np.float32)),
    "uniform f64": (np.float64, lambda s, o, t: s.random(out=o, threads=t),
                    lambda g, o: g.random(out=o)),
    "raw uint32": (np.uint32, lambda s, o, t: s.bits(out=o, threads=t),
                   lambda g, o: o.__setitem__(slice(None), g.integers(0, 2**32, o.size, np.uint32))),
    "raw uint64": (np.uint64, lambda s, o, t: s.bits(out=o, dtype=np.uint64, threads=t),
                   lambda g, o: o.__setitem__(slice(None), g.bit_generator.random_raw(o.size))),
    "integers(0, 1000)": (np.int64, lambda s, o, t: s.integers(0, 1000, out=o, threads=t),
                          lambda g, o: o.__setitem__(slice(None), g.integers(0, 1000, o.size))),
    "normal f32": (np.float32, lambda s, o, t: s.normal(out=o, dtype=np.float32, threads=t),
                   lambda g, o: g.standard_normal(out=o, dtype=np.float32)),
    "normal f64": (np.float64, lambda s, o, t: s.normal(out=o, threads=t),
                   lambda g, o: g.standard_normal(out=o)),
    "exponential f32": (np.float32,
                        lambda s, o, t: s.exponential(out=o, dtype=np.float32, threads=t),
                        lambda g, o: g.standard_exponential(out=o, dtype=np.float32)),
    "exponential f64": (np.float64, lambda s, o, t: s.exponential(out=o, threads=t),
                        lambda g, o: g.standard_exponential(out=o)),
    "uniform f64, Threefry": (np.float64,
                              lambda s, o, t: tandem.Threefry(s.key[0]).random(out=o, threads=t),
                              lambda g, o: g.random(out=o)),
    "exponential f64, inv": (np.float64,
                             lambda s, o, t: s.exponential(out=o, threads=t, method="inv"),
                             lambda g, o: g.standard_exponential(out=o, method="inv")),
}
# The laws of tandem.parametric against NumPy's methods of the same names;
# both allocate their output (NumPy's methods take no out=).
LAW_PARAMETERS = {"uniform": (-2.0, 3.0), "laplace": (1.0, 2.0), "logistic": (0.0, 1.0),
                  "gumbel": (0.0, 1.0), "standard_cauchy": (), "rayleigh": (2.0,),
                  "weibull": (1.5,), "power": (2.5,), "triangular": (0.0, 1.0, 3.0),
                  "lognormal": (0.0, 1.0), "standard_gamma(2)": (2.0,),
                  "standard_gamma(0.5)": (0.5,), "standard_gamma(100)": (100.0,),
                  "chisquare(3)": (3.0,), "poisson(3)": (3.0,), "poisson(30)": (30.0,),
                  "poisson(1e6)": (1e6,), "pareto": (3.0,), "geometric": (0.2,),
                  "standard_t": (5.0,), "f": (3.0, 7.0), "negative_binomial": (4.0, 0.3),
                  "binomial(100, 0.3)": (100, 0.3), "binomial(20, 0.1)": (20, 0.1),
                  "beta(2, 3)": (2.0, 3.0), "beta(0.5, 0.5)": (0.5, 0.5), "wald": (1.0, 2.0),
                  "vonmises": (0.5, 2.0)}


def _law_rows(label, params):
    name = label.split("(")[0]

    def ours(s, o, t):
        if name in ("standard_t", "f", "negative_binomial", "beta", "wald"):  # two parts
            getattr(tandem.parametric, name)(s, *params, o.size, threads=t)
        else:
            tandem.parametric.fill(s, name, *params, size=o.size, threads=t)

    def theirs(g, o):
        getattr(g, name)(*params, size=o.size)

    return np.float64, ours, theirs


def _multivariate_rows(name, params):
    """The rate counts the laws' scalar values, ``DIMENSION`` a row."""
    dtype = np.int64 if name == "multinomial" else np.float64

    def ours(s, o, t):
        getattr(tandem.multivariate, name)(s, *params, o.size // _multivariate.DIMENSION,
                                           threads=t)

    def theirs(g, o):
        getattr(g, name)(*params, size=o.size // _multivariate.DIMENSION)

    return dtype, ours, theirs


KINDS.update({label: _law_rows(label, params) for label, params in LAW_PARAMETERS.items()})
KINDS.update({label: _multivariate_rows(*law) for label, law in _multivariate.LAWS.items()})
CHOICE_CATEGORIES = 2**16


def best_rate(run, n, repeats):
    run()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return n / best / 1e6


def numpy_rate(bitgen, dtype, fill, n, threads, repeats):
    out = np.empty(n, dtype)
    gens = [np.random.Generator(bitgen(seed)) for seed in range(threads)]
    slices = np.array_split(out, threads)
    if threads == 1:
        return best_rate(lambda: fill(gens[0], out), n, repeats)
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return best_rate(lambda: list(pool.map(fill, gens, slices)), n, repeats)


def throughput(n, repeats, kinds):
    cores = numba.config.NUMBA_NUM_THREADS
    stream = tandem.Philox(20261129)
    rows = []
    for kind in kinds:
        dtype, ours, theirs = KINDS[kind]
        for threads in sorted({1, cores}):
            out = np.empty(n, dtype)
            t = best_rate(lambda: ours(stream, out, threads), n, repeats)
            peers = {name: numpy_rate(bg, dtype, theirs, n, threads, repeats)
                     for name, bg in PEERS.items()}
            rows.append((kind, threads, t, peers))
    return rows


def choice(n, repeats):
    """ns per draw of weighted choice among ``CHOICE_CATEGORIES``: tandem's alias
    table (built once) against ``numpy.random.Generator.choice(p=...)``."""
    w = np.random.default_rng(0).random(CHOICE_CATEGORIES)
    tandem.AliasTable(w[:2])  # compile the construction first
    t0 = time.perf_counter()
    table = tandem.AliasTable(w)
    build = time.perf_counter() - t0
    stream = tandem.Philox(20261129)
    out = np.empty(n, np.uint32)
    ours = {t: 1e3 / best_rate(lambda: stream.choice(table, out=out, threads=t), n, repeats)
            for t in sorted({1, numba.config.NUMBA_NUM_THREADS})}
    p = w / w.sum()
    m = max(n >> 4, 1)
    theirs = {name: 1e3 / best_rate(lambda: np.random.Generator(bg(1)).choice(
        CHOICE_CATEGORIES, m, p=p), m, repeats) for name, bg in PEERS.items()}
    return build, ours, theirs


#: Permutations and samples without replacement: (row, call on a Generator).
SAMPLING = {
    "permutation(10**6)": lambda g: g.permutation(10**6),
    "shuffle(10**6 floats)": lambda g: g.shuffle(np.arange(10.0**6)),
    "permuted(1000 x 1000, axis=1)": lambda g: g.permuted(np.ones((1000, 1000)), axis=1),
    "choice(10**6, 10, replace=False)": lambda g: g.choice(10**6, 10, replace=False),
    "choice(10**6, 10**5, replace=False)": lambda g: g.choice(10**6, 10**5, replace=False),
    "choice(10**8, 10, replace=False)": lambda g: g.choice(10**8, 10, replace=False),
    "choice(10**12, 10, replace=False)": lambda g: g.choice(10**12, 10, replace=False),
}


def sampling(repeats):
    """ms per call of :data:`SAMPLING`: tandem's Generator and NumPy's on PCG64,
    alternated, medians of ``repeats``, on one thread."""
    ours, theirs = tandem.Generator(tandem.Philox(1)), np.random.default_rng(1)
    numba.set_num_threads(1)
    rows = []
    for name, call in SAMPLING.items():
        call(ours), call(theirs)  # compile first
        times = {"tandem": [], "numpy": []}
        for _ in range(repeats):
            for who, g in (("tandem", ours), ("numpy", theirs)):
                t0 = time.perf_counter()
                call(g)
                times[who].append((time.perf_counter() - t0) * 1e3)
        rows.append((name, float(np.median(times["tandem"])), float(np.median(times["numpy"]))))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return rows


#: The Generator's methods as a NumPy user calls them: (row, call with ``size``).
GENERATOR_CALLS = {
    "random": lambda g, n: g.random(n),
    "standard_normal": lambda g, n: g.standard_normal(n),
    "normal(1, 2)": lambda g, n: g.normal(1.0, 2.0, n),
    "standard_exponential": lambda g, n: g.standard_exponential(n),
    "exponential(2)": lambda g, n: g.exponential(2.0, n),
    "uniform(-1, 1)": lambda g, n: g.uniform(-1.0, 1.0, n),
    "integers(0, 1000)": lambda g, n: g.integers(0, 1000, n),
    "gamma(2)": lambda g, n: g.gamma(2.0, 1.0, n),
    "poisson(3)": lambda g, n: g.poisson(3.0, n),
    "binomial(10, 0.3)": lambda g, n: g.binomial(10, 0.3, n),
    "beta(2, 3)": lambda g, n: g.beta(2.0, 3.0, n),
    "choice(100, p)": lambda g, n: g.choice(100, n, p=np.full(100, 0.01)),
}
GENERATOR_SIZES = (None, 1000, 10**6)


def generator_calls(repeats):
    """µs per call of :data:`GENERATOR_CALLS` at each of :data:`GENERATOR_SIZES`:
    ``tandem.Generator(1)`` (the default, Tandem8x32) against
    ``numpy.random.default_rng(1)`` (PCG64), alternated, medians of
    ``repeats``, on one thread."""
    ours, theirs = tandem.Generator(1), np.random.default_rng(1)
    numba.set_num_threads(1)
    rows = []
    for name, call in GENERATOR_CALLS.items():
        for n in GENERATOR_SIZES:
            calls = 20 if n == 10**6 else 500
            call(ours, n), call(theirs, n)  # compile first
            times = {"tandem": [], "numpy": []}
            for _ in range(repeats):
                for who, g in (("tandem", ours), ("numpy", theirs)):
                    times[who].append(_per_call(lambda: call(g, n), calls) * 1e6)
            rows.append((name, n, float(np.median(times["tandem"])),
                         float(np.median(times["numpy"]))))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return rows


SMALL_SIZES = (10, 100, 1000)
SMALL_KINDS = ("uniform f64", "normal f64", "normal f32", "exponential f64")


def small_fills(repeats):
    """µs per call of fills below ``tandem.backends.cpu.LEAN_BELOW``: the lean
    kernels (the default there), the vectorised ones, and NumPy's PCG64, alternated."""
    from unittest import mock

    from tandem.backends import cpu

    stream = tandem.Philox(20261129)
    generator = np.random.Generator(np.random.PCG64(1))
    rows = []
    for kind in SMALL_KINDS:
        dtype, ours, theirs = KINDS[kind]
        for n in SMALL_SIZES:
            out = np.empty(n, dtype)
            with mock.patch.object(cpu, "LEAN_BELOW", 0):
                ours(stream, out, 1)  # compile the vectorised kernel first
            times = {"lean": [], "vectorised": [], "numpy": []}
            for _ in range(repeats):
                for who in times:
                    if who == "numpy":
                        seconds = _per_call(lambda: theirs(generator, out))
                    else:
                        with mock.patch.object(cpu, "LEAN_BELOW",
                                               2**63 if who == "lean" else 0):
                            seconds = _per_call(lambda: ours(stream, out, None))
                    times[who].append(seconds * 1e6)
            rows.append((kind, n, *(float(np.median(t)) for t in times.values())))
    return rows


def _per_call(run, calls=200):
    run()
    t0 = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - t0) / calls


@numba.njit(parallel=True)
def _store_ones(out):
    for i in numba.prange(out.size):
        out[i] = 1.0


def write_roof(n, repeats):
    """GB/s of the plainest parallel store, per thread count: the memory ceiling."""
    out = np.empty(n)
    roof = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        roof[threads] = best_rate(lambda: _store_ones(out), n, repeats) * 8e6 / 1e9
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return roof


def run_python(code, env=None):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env={**os.environ, **(env or {})}, check=True)
    return result.stdout.strip().splitlines()[-1]


GENERATOR_METHODS = """
    import time; t = time.perf_counter(); import numpy as np, tandem
    g = tandem.Generator(tandem.Philox(1))
    g.random(10); g.integers(0, 10, 10); g.bytes(10); g.standard_normal(10); g.normal(0, 1, 10)
    g.standard_exponential(10); g.exponential(1.0, 10); g.choice(10, 3, p=np.full(10, 0.1))
    g.permutation(10); g.shuffle(np.arange(10))
    print(time.perf_counter() - t)"""


def startup():
    """Seconds: import; the first fill of ``random`` and of ``normal`` with an
    empty and a warm compile cache; every Generator method once and ``tandem
    compile``, each with an empty cache."""
    imp = min(float(run_python(
        "import time; t = time.perf_counter(); import tandem; print(time.perf_counter() - t)"))
        for _ in range(3))
    first = """
        import time; t = time.perf_counter(); import tandem
        tandem.Philox(1).{}(1000); print(time.perf_counter() - t)"""
    times = {"import tandem": imp}
    for method in ("random", "normal"):
        with tempfile.TemporaryDirectory() as cache:
            env = {"NUMBA_CACHE_DIR": cache}
            times[f"first {method}(1000), empty compile cache"] = float(
                run_python(first.format(method), env))
            times[f"first {method}(1000), warm compile cache"] = min(
                float(run_python(first.format(method), env)) for _ in range(3))
    with tempfile.TemporaryDirectory() as cache:
        times["every Generator method once, empty cache"] = float(
            run_python(GENERATOR_METHODS, {"NUMBA_CACHE_DIR": cache}))
    with tempfile.TemporaryDirectory() as cache:
        times["tandem compile, empty cache"] = float(run_python(
            "import tandem.warmup; print(tandem.warmup.compile_all(progress=False))",
            {"NUMBA_CACHE_DIR": cache}))
    return times


def allocations():
    code = """
        import numpy as np, tandem, resource
        from numba.core.runtime import rtsys
        s = tandem.Philox(1)
        out = np.ones(1 << 26)
        s.random(out=out[:1000])
        before = rtsys.get_allocation_stats()
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        s.random(out=out)
        after = rtsys.get_allocation_stats()
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(after.alloc - before.alloc, (rss1 - rss0) / 1024)"""
    nrt, rss = run_python(code, {"NUMBA_NRT_STATS": "1"}).split()
    return int(nrt), float(rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log2n", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS),
                        metavar="KIND", help="which rows (default: all)")
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["choice", "generator", "sampling", "small", "startup"],
                        help="sections to leave out")
    args = parser.parse_args()
    n = 1 << args.log2n
    print(f"tandem {tandem.__version__}, numpy {np.__version__}, numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} cores, n = 2**{args.log2n}, best of {args.repeats}")
    print(f"{time.strftime('%Y-%m-%d')}, {platform_name()}\n")
    print("| kind | threads | tandem M/s | PCG64 | Philox | SFC64 | tandem / fastest NumPy |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = throughput(n, args.repeats, args.kinds)
    roof = write_roof(n, args.repeats)
    for kind, threads, t, peers in rows:
        print(f"| {kind} | {threads} | {t:.0f} | {peers['PCG64']:.0f} | {peers['Philox']:.0f} | "
              f"{peers['SFC64']:.0f} | {t / max(peers.values()):.2f} |")
    print("\nWrite roof (a parallel loop storing 1.0 into f64): "
          + ", ".join(f"{t} threads {r:.1f} GB/s" for t, r in roof.items()))
    print("\n| kind | tandem 2 threads / 1 thread |")
    print("| --- | --- |")
    by = {(k, th): t for k, th, t, _ in rows}
    for kind in args.kinds:
        if (kind, 2) in by:
            print(f"| {kind} | {by[kind, 2] / by[kind, 1]:.2f} |")
    if "choice" not in args.skip:
        build, ours, theirs = choice(n, args.repeats)
        best = min(theirs.values())
        print("\n| choice among 2**16 weights | threads | ns per draw | NumPy PCG64 | "
              "NumPy Philox | NumPy SFC64 | fastest NumPy / tandem |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for threads, ns in ours.items():
            print(f"| tandem AliasTable | {threads} | {ns:.2f} | {theirs['PCG64']:.1f} | "
                  f"{theirs['Philox']:.1f} | {theirs['SFC64']:.1f} | {best / ns:.0f} |")
        print(f"\nBuilding the AliasTable of 2**16 weights took {build * 1e3:.1f} ms.")
    if "generator" not in args.skip:
        print("\n| Generator method (one thread) | size | tandem µs | NumPy PCG64 µs | "
              "tandem / NumPy |")
        print("| --- | --- | --- | --- | --- |")
        for name, size, ours, theirs in generator_calls(args.repeats):
            print(f"| {name} | {size} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} |")
    if "sampling" not in args.skip:
        print("\n| sampling (one thread) | tandem ms | NumPy PCG64 ms | tandem / NumPy |")
        print("| --- | --- | --- | --- |")
        for name, ours, theirs in sampling(args.repeats):
            print(f"| {name} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |")
    if "small" not in args.skip:
        print("\n| small fill | n | tandem lean µs | tandem vectorised µs | NumPy PCG64 µs | "
              "lean / vectorised | lean / NumPy |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for kind, n, lean, vectorised, numpy in small_fills(args.repeats):
            print(f"| {kind} | {n} | {lean:.1f} | {vectorised:.1f} | {numpy:.1f} | "
                  f"{lean / vectorised:.2f} | {lean / numpy:.2f} |")
    if "startup" in args.skip:
        return
    times = startup()
    nrt, rss = allocations()
    goals = {"import tandem": 0.3, "every Generator method once, empty cache": 60,
             "tandem compile, empty cache": None}
    print("\n| start-up | seconds | goal |")
    print("| --- | --- | --- |")
    for what, seconds in times.items():
        goal = goals[what] if what in goals else 5 if "empty" in what else 1
        print(f"| {what} | {seconds:.2f} | " + (f"< {goal} |" if goal else "- |"))
    print(f"\nA fill of 2**26 f64 into out=: {nrt} Numba runtime allocations (a constant), "
          f"peak RSS grew by {rss:.1f} MiB (the 512 MiB output was allocated and touched before).")


def platform_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


if __name__ == "__main__":
    main()
