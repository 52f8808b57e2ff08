"""GPU benchmark: tandem against the write roof, cuRAND, torch and JAX, in one run.

    python benchmarks/gpu.py [--log2n 28] [--calls 20] [--repeats 7] [--only NAME]

f32 and other 4-byte outputs have ``2**log2n`` elements, 8-byte outputs half
as many, so every fill writes the same bytes (1 GiB at the default).  Each
figure is the median over ``repeats`` of CUDA-event time over ``calls``
back-to-back calls, so the host's launch cost overlaps the previous kernel
as it does in a real loop; every library is timed the same way, into a
preallocated buffer where it can (JAX allocates its result).  TB/s counts
bytes written.  The write roof is the faster of CuPy's ``fill`` and ``cudaMemsetAsync`` of
the same bytes, after a few seconds of warm-up so that the clocks are up.  JAX runs on streams of
its own, so it is timed by the host's clock around the calls.

A second table times a Brownian walk written in users' own kernels
(``benchmarks/walk_kernels.py``): tandem.core in Numba against cuRAND's
device API, in particle-steps per second (``--only walk`` runs it alone).
"""

import argparse
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.3")

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

import tandem  # noqa: E402

import _multivariate  # noqa: E402


def timed(run, calls, repeats):
    """Median seconds per call."""
    run()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        begin, end = cp.cuda.Event(), cp.cuda.Event()
        begin.record()
        for _ in range(calls):
            run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(begin, end) / 1e3 / calls)
    return float(np.median(times))


def timed_on_host(run, calls, repeats):
    """Median seconds per call by the host's clock, for JAX, whose streams
    CuPy's events do not see; ``run`` returns an array to wait for."""
    run().block_until_ready()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        for _ in range(calls):
            result = run()
        result.block_until_ready()
        times.append((time.perf_counter() - begin) / calls)
    return float(np.median(times))


def tandem_rows(n32, n64):
    s = tandem.Philox(2024)
    f32, f64 = cp.empty(n32, cp.float32), cp.empty(n64, cp.float64)
    u32, u64 = cp.empty(n32, cp.uint32), cp.empty(n64, cp.uint64)
    i64, idx = cp.empty(n64, cp.int64), cp.empty(n32, cp.uint32)
    flags = cp.empty(4 * n32, cp.bool_)
    weights = np.random.default_rng(1).random(2**16)
    table = tandem.AliasTable(weights)
    odd = s.at(1)  # a start in mid-block: the shifted path
    rows = {
        "raw uint32": (u32, lambda: s.bits(out=u32)),
        "raw uint64": (u64, lambda: s.bits(out=u64, dtype=np.uint64)),
        "raw bool": (flags, lambda: s.bits(out=flags, dtype=np.bool_)),
        "uniform f32": (f32, lambda: s.random(out=f32, dtype=np.float32)),
        "uniform f32, start 1": (f32, lambda: odd.random(out=f32, dtype=np.float32)),
        "uniform f64": (f64, lambda: s.random(out=f64)),
        "integers(0, 1000) int64": (i64, lambda: s.integers(0, 1000, out=i64)),
        "bernoulli(0.3)": (flags, lambda: s.bernoulli(0.3, out=flags)),
        "normal f32": (f32, lambda: s.normal(out=f32, dtype=np.float32)),
        "normal f64": (f64, lambda: s.normal(out=f64)),
        "normal f64, start 2": (f64, lambda: odd.at(2).normal(out=f64)),
        "exponential f32": (f32, lambda: s.exponential(out=f32, dtype=np.float32)),
        "exponential f64": (f64, lambda: s.exponential(out=f64)),
        "exponential f32, inv": (f32, lambda: s.exponential(out=f32, dtype=np.float32,
                                                             method="inv")),
        "choice, 2^16 table": (idx, lambda: s.choice(table, out=idx)),
    }
    return {f"tandem {name}": row for name, row in rows.items()}


def tandem8x32_rows(n32, n64):
    """tandem.Tandem's fills, the rows that ``tandem8x32_table`` sets against the peers."""
    t = tandem.Tandem(2024)
    f32, f64 = cp.empty(n32, cp.float32), cp.empty(n64, cp.float64)
    u32, u64 = cp.empty(n32, cp.uint32), cp.empty(n64, cp.uint64)
    rows = {
        "raw uint32": (u32, lambda: t.bits(out=u32)),
        "raw uint64": (u64, lambda: t.bits(out=u64, dtype=np.uint64)),
        "uniform f32": (f32, lambda: t.random(out=f32, dtype=np.float32)),
        "uniform f32, start 1": (f32, lambda: t.at(32).random(out=f32, dtype=np.float32)),
        "uniform f32, start 2**40 + 7": (f32, lambda: t.at(32 * (2**40 + 7)).random(
            out=f32, dtype=np.float32)),
        "uniform f64": (f64, lambda: t.random(out=f64)),
        "normal f32": (f32, lambda: t.normal(out=f32, dtype=np.float32)),
        "normal f64": (f64, lambda: t.normal(out=f64)),
        "exponential f32": (f32, lambda: t.exponential(out=f32, dtype=np.float32)),
        "exponential f64": (f64, lambda: t.exponential(out=f64)),
    }
    return {f"Tandem8x32 {name}": row for name, row in rows.items()}


#: Tandem8x32's rows against their peers, and issue 41's goals (ratio to the
#: first peer named).
TANDEM8X32_PEERS = (
    ("raw uint32", ("tandem raw uint32",), None),
    ("raw uint64", ("tandem raw uint64",), None),
    ("uniform f32", ("cuRAND Philox uniform f32", "tandem uniform f32", "torch uniform_ f32"),
     1.0),
    ("uniform f32, start 1", ("Tandem8x32 uniform f32",), 0.95),
    ("uniform f32, start 2**40 + 7", ("Tandem8x32 uniform f32",), 0.95),
    ("uniform f64", ("tandem uniform f64",), None),
    ("normal f32", ("cuRAND Philox normal f32", "tandem normal f32", "torch normal_ f32"), 1.5),
    ("normal f64", ("cuRAND Philox normal f64", "tandem normal f64", "torch normal_ f64"), 1.9),
    ("exponential f32", ("torch exponential_ f32", "tandem exponential f32"), 1.3),
    ("exponential f64", ("torch exponential_ f64", "tandem exponential f64"), 1.3),
)


def tandem8x32_table(results, roof_rate):
    """Each Tandem8x32 row: TB/s, share of the roof, and its ratio to each peer."""
    lines = ["\n| Tandem8x32 fill | TB/s | of roof | against (ratio) | goal |",
             "| --- | --- | --- | --- | --- |"]
    for row, peers, goal in TANDEM8X32_PEERS:
        ours = results.get(f"Tandem8x32 {row}")
        if ours is None:
            continue
        ratios = [f"{peer} {ours / results[peer]:.2f}x" for peer in peers if peer in results]
        first = results.get(peers[0])
        verdict = "-" if goal is None or first is None else (
            f">= {goal}x {peers[0]}: {'met' if ours / first >= goal else 'NOT met'}")
        lines.append(f"| {row} | {ours:.2f} | {ours / roof_rate:.0%} | {'; '.join(ratios)} "
                     f"| {verdict} |")
    return "\n".join(lines)


def choice_rows(n32):
    """Peers of ``choice`` from a 2^16 table (their outputs differ in size, so
    these compare in draws/s)."""
    import torch

    weights = np.random.default_rng(1).random(2**16)
    on_torch = torch.tensor(weights, device="cuda")
    p = cp.asarray(weights / weights.sum())
    n_torch = 2**24  # multinomial caps its samples below 2**24 per row
    torch_out = torch.empty(n_torch, dtype=torch.int64, device="cuda")
    return {
        "torch multinomial(replacement=True), 2^16": (
            n_torch * 8, lambda: torch.multinomial(on_torch, n_torch, replacement=True,
                                                   out=torch_out), n_torch),
        "CuPy choice(p=), 2^16": (
            n32 * 8, lambda: cp.random.choice(2**16, size=n32, p=p), n32),
    }


LAW_PARAMETERS = {"uniform": (-2.0, 3.0), "laplace": (1.0, 2.0), "logistic": (0.0, 1.0),
                  "gumbel": (0.0, 1.0), "standard_cauchy": (), "rayleigh": (2.0,),
                  "weibull": (1.5,), "power": (2.5,), "triangular": (0.0, 1.0, 3.0),
                  "lognormal": (0.0, 1.0), "pareto": (3.0,), "geometric": (0.2,),
                  "standard_gamma(2)": (2.0,), "standard_gamma(0.5)": (0.5,),
                  "chisquare(3)": (3.0,), "poisson(3)": (3.0,), "poisson(30)": (30.0,),
                  "binomial(20, 0.1)": (20, 0.1), "binomial(100, 0.3)": (100, 0.3),
                  "vonmises": (0.5, 2.0)}


# The laws of two parts, which allocate their output as CuPy's do.
TWO_PART_PARAMETERS = {"standard_t": (5.0,), "f": (3.0, 7.0), "wald": (1.0, 2.0),
                       "beta(2, 3)": (2.0, 3.0), "beta(0.5, 0.5)": (0.5, 0.5),
                       "negative_binomial": (4.0, 0.3)}


def law_rows(n64):
    """tandem.parametric's laws against CuPy's methods of the same names
    (which allocate their output) and torch's in-place ones where it has them."""
    from tandem import laws, parametric

    s = tandem.Philox(2024)
    f64, i64 = cp.empty(n64, cp.float64), cp.empty(n64, cp.int64)
    rows = {}
    for label, params in LAW_PARAMETERS.items():
        name = label.split("(")[0]
        out = i64 if laws.LAWS[name].counts else f64
        rows[f"law {label}: tandem"] = (out, lambda name=name, params=params, out=out:
                                        parametric.fill(s, name, *params, out=out))
        rows[f"law {label}: CuPy"] = (out, lambda name=name, params=params: getattr(
            cp.random, name)(*params, size=n64))
    for label, params in TWO_PART_PARAMETERS.items():
        name = label.split("(")[0]
        out = i64 if name == "negative_binomial" else f64
        rows[f"law {label}: tandem"] = (out, lambda name=name, params=params: getattr(
            parametric, name)(s, *params, size=n64, device="cuda"))
        rows[f"law {label}: CuPy"] = (out, lambda name=name, params=params: getattr(
            cp.random, name)(*params, size=n64))
    try:
        import torch

        t64 = torch.empty(n64, dtype=torch.float64, device="cuda")
        rows["law uniform: torch"] = (f64, lambda: t64.uniform_(-2.0, 3.0))
        rows["law standard_cauchy: torch"] = (f64, lambda: t64.cauchy_())
        rows["law lognormal: torch"] = (f64, lambda: t64.log_normal_(0.0, 1.0))
    except ImportError as error:
        print(f"torch laws: skipped ({error})")
    return rows


def multivariate_rows(n64):
    """tandem.multivariate's laws against CuPy's, ``n64`` scalar values each."""
    from tandem import multivariate

    s = tandem.Philox(2024)
    rows = {}
    for label, (name, params) in _multivariate.LAWS.items():
        out = cp.empty(n64, cp.int64 if name == "multinomial" else cp.float64)
        m = n64 // _multivariate.DIMENSION
        rows[f"multivariate {label}: tandem"] = (out, lambda name=name, params=params, m=m:
                                                     getattr(multivariate, name)(
                                                         s, *params, m, device="cuda"))
        rows[f"multivariate {label}: CuPy"] = (out, lambda name=name, params=params, m=m: getattr(
            cp.random, name)(*params, size=m))
    return rows


def curand_rows(n32, n64):
    from cupy.cuda import curand

    generator = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    curand.setPseudoRandomGeneratorSeed(generator, 2024)
    f32, f64 = cp.empty(n32, cp.float32), cp.empty(n64, cp.float64)
    p32, p64 = f32.data.ptr, f64.data.ptr
    return {
        "cuRAND Philox uniform f32": (f32, lambda: curand.generateUniform(generator, p32, n32)),
        "cuRAND Philox normal f32": (
            f32, lambda: curand.generateNormal(generator, p32, n32, 0.0, 1.0)),
        "cuRAND Philox normal f64": (
            f64, lambda: curand.generateNormalDouble(generator, p64, n64, 0.0, 1.0)),
    }


def torch_rows(n32, n64):
    import torch

    f32 = torch.empty(n32, dtype=torch.float32, device="cuda")
    f64 = torch.empty(n64, dtype=torch.float64, device="cuda")
    return {
        "torch uniform_ f32": (f32, lambda: f32.uniform_()),
        "torch normal_ f32": (f32, lambda: f32.normal_()),
        "torch normal_ f64": (f64, lambda: f64.normal_()),
        "torch exponential_ f32": (f32, lambda: f32.exponential_()),
        "torch exponential_ f64": (f64, lambda: f64.exponential_()),
    }


def jax_rows(n32):
    import jax

    key = jax.random.key(2024)
    uniform = jax.jit(lambda k: jax.random.uniform(k, (n32,), dtype="float32"))
    normal = jax.jit(lambda k: jax.random.normal(k, (n32,), dtype="float32"))
    nbytes = 4 * n32
    return {
        "JAX uniform f32": (nbytes, lambda: uniform(key)),
        "JAX normal f32": (nbytes, lambda: normal(key)),
    }


def walk_table(particles, steps, calls, repeats):
    """The Brownian walk of ``benchmarks/walk_kernels.py``: tandem.core in a
    Numba kernel against cuRAND's device API in a CuPy RawKernel, in
    particle-steps per second, each end point checked against the CPU."""
    from numba import cuda

    import walk_kernels

    philox = tandem.Philox(2024).sub("walk")
    k0, k1, word, domain = walk_kernels.launch_args(philox)
    walk32, walk64 = walk_kernels.philox_kernels(steps)
    rows = tandem.Tandem(2024).sub("walk")
    key = walk_kernels.tandem_launch_args(rows)
    tandem32, tandem64 = walk_kernels.tandem_kernels(steps)
    module = cp.RawModule(code=walk_kernels.CURAND)
    curand32, curand64 = module.get_function("walk32"), module.get_function("walk64")
    table = cuda.to_device(np.array(tandem.core.normal.FAST_TABLE))
    tandem_table = cuda.to_device(np.array(tandem.core.tandem_draws.ZIGGURAT_TABLE))
    out32, out64 = cp.empty(particles, cp.float32), cp.empty(particles, cp.float64)
    threads = 128  # the f64 Tandem walk: 0.36x cuRAND at 128, 0.31x at 256 (H200)
    blocks = -(-particles // threads)
    grid = (blocks,), (threads,)
    seed = np.uint64(2024)
    curand = {
        "f32": lambda: curand32(*grid, (out32, seed, np.int32(particles), np.int32(steps))),
        "f64": lambda: curand64(*grid, (out64, seed, np.int32(particles), np.int32(steps))),
    }
    runs = {  # (walkers, dtype, out, tandem's kernel, cuRAND's)
        "Philox f32": (philox, np.float32, out32,
                       lambda: walk32[blocks, threads](out32, k0, k1), curand["f32"]),
        "Philox f64": (philox, np.float64, out64,
                       lambda: walk64[blocks, threads](out64, k0, k1, word, domain, table),
                       curand["f64"]),
        "Tandem8x32 f32": (rows, np.float32, out32,
                           lambda: tandem32[blocks, threads](out32, *key), curand["f32"]),
        "Tandem8x32 f64": (rows, np.float64, out64,
                           lambda: tandem64[blocks, threads](out64, *key, tandem_table),
                           curand["f64"]),
    }
    lines = [f"\nBrownian walk, {particles} particles x {steps} steps, one thread a particle; "
             f"median of {repeats} x {calls} calls\n",
             "| walk | tandem.core, steps/s | cuRAND device API, steps/s | tandem / cuRAND |",
             "| --- | --- | --- | --- |"]
    for name, (walkers, dtype, out, ours, theirs) in runs.items():
        seconds = {}
        for _ in range(2):  # alternate the two, and keep the faster of each
            for who, run in (("tandem", ours), ("curand", theirs)):
                seconds[who] = min(seconds.get(who, np.inf), timed(run, calls, repeats))
        ours()
        ends = cp.asnumpy(out)
        for p in (0, 1, particles - 1):
            assert ends[p] == walk_kernels.expected_end(walkers, p, steps, dtype), (name, p)
        rate = {who: particles * steps / t for who, t in seconds.items()}
        lines.append(f"| {name} | {rate['tandem']:.3g} | {rate['curand']:.3g} | "
                     f"{rate['tandem'] / rate['curand']:.2f}x |")
    return "\n".join(lines)


#: tandem's row, its peers, and the goals (fraction of the roof, ratio to the best peer).
GOALS = [
    ("raw uint32", ["cuRAND Philox uniform f32"], 0.90, 1.0),
    ("uniform f32", ["cuRAND Philox uniform f32", "torch uniform_ f32", "JAX uniform f32"],
     0.90, 1.0),
    ("uniform f32, start 1", ["cuRAND Philox uniform f32"], 0.90, 1.0),
    ("uniform f64", [], 0.90, None),
    ("normal f32", ["cuRAND Philox normal f32", "torch normal_ f32", "JAX normal f32"],
     0.70, 1.5),
    ("normal f64", ["cuRAND Philox normal f64", "torch normal_ f64"], 0.60, 1.5),
    ("normal f64, start 2", ["cuRAND Philox normal f64"], 0.60, 1.5),
    ("exponential f32", ["torch exponential_ f32"], 0.70, 1.3),
    ("exponential f64", ["torch exponential_ f64"], 0.70, 1.3),
]


def goals_table(results, draws, roof_rate):
    """tandem against the best peer of each row, and the issue's goals."""
    lines = ["\n| fill | tandem TB/s | of roof | best peer | peer TB/s | tandem / peer | goal |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row, peers, roof_goal, ratio_goal in GOALS:
        ours = results.get(f"tandem {row}")
        if ours is None:
            continue
        timed_peers = {p: results[p] for p in peers if p in results}
        best = max(timed_peers, key=timed_peers.get) if timed_peers else None
        ratio = ours / timed_peers[best] if best else None
        goal = f">= {roof_goal:.0%} of roof" + (f", >= {ratio_goal}x" if ratio_goal else "")
        met = ours >= roof_goal * roof_rate and (ratio is None or ratio_goal is None
                                                 or ratio >= ratio_goal)
        lines.append(f"| {row} | {ours:.2f} | {ours / roof_rate:.0%} | {best or '-'} | "
                     + (f"{timed_peers[best]:.2f} | {ratio:.2f}x" if best else "- | -")
                     + f" | {goal}: {'met' if met else 'NOT met'} |")
    choice = {name: rate for name, rate in draws.items()
              if "choice" in name or "multinomial" in name}
    if "tandem choice, 2^16 table" in choice:
        ours = choice.pop("tandem choice, 2^16 table")
        tb = results["tandem choice, 2^16 table"]
        lines += ["\n| choice from 2^16 weights | draws/s | tandem / it |", "| --- | --- | --- |",
                  f"| tandem choice ({tb:.2f} TB/s, {tb / roof_rate:.0%} of roof; goal 35 %) "
                  f"| {ours:.3g} | 1.00x |"]
        lines += [f"| {name} | {rate:.3g} | {ours / rate:.2f}x |" for name, rate in choice.items()]
    return "\n".join(lines)


def law_table(results):
    """Each law's tandem row against its peers' rows of the same law."""
    lines = ["\n| law | tandem TB/s | CuPy TB/s | tandem / CuPy | torch TB/s | tandem / torch |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, ours in results.items():
        if not (name.startswith(("law ", "multivariate ")) and name.endswith(": tandem")):
            continue
        prefix, law = name[:-len(": tandem")].split(" ", 1)
        cells = []
        for peer in ("CuPy", "torch"):
            theirs = results.get(f"{prefix} {law}: {peer}")
            cells += [f"{theirs:.3f}", f"{ours / theirs:.2f}"] if theirs else ["-", "-"]
        lines.append(f"| {law} | {ours:.3f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", default="",
                        help="run rows whose name contains this (or one of these, comma-separated)")
    parser.add_argument("--walk-particles", type=int, default=2**20)
    parser.add_argument("--walk-steps", type=int, default=1000)
    parser.add_argument("--persistent", action="store_true",
                        help="time tandem's fills again with every kind on a persistent grid")
    parser.add_argument("--registers", type=int, default=None,
                        help="the register cap of deferred fills (0: none), in place of "
                             "tandem.backends.cuda.DEFERRED_FILL_REGISTERS")
    args = parser.parse_args()
    if args.registers is not None:
        from tandem.backends import cuda as cuda_backend

        cuda_backend.DEFERRED_FILL_REGISTERS = args.registers
    n32, n64 = 2**args.log2n, 2**(args.log2n - 1)

    roof = cp.empty(n32, cp.float32)
    rows = {"write roof (CuPy fill)": (roof, lambda: roof.fill(1.0)),
            "write roof (memset)": (roof, lambda: cp.cuda.runtime.memsetAsync(
                roof.data.ptr, 1, roof.nbytes, 0))}
    for name, make in (("cuRAND", lambda: curand_rows(n32, n64)),
                       ("torch", lambda: torch_rows(n32, n64)),
                       ("JAX", lambda: jax_rows(n32)),
                       ("choice peers", lambda: choice_rows(n32))):
        try:
            rows.update(make())
        except Exception as error:  # a missing peer is reported, not fatal
            print(f"{name}: skipped ({type(error).__name__}: {error})")
    rows.update(tandem_rows(n32, n64))
    rows.update(tandem8x32_rows(n32, n64))
    rows.update(law_rows(n64))
    rows.update(multivariate_rows(n64))

    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {device}; {4 * n32 / 2**30:.2f} GiB per fill; "
          f"median of {args.repeats} x {args.calls} calls"
          + ("" if args.registers is None else f"; deferred fills' register cap "
             f"{args.registers or 'none'}"))
    warm_up = time.perf_counter() + 3  # clocks rise from idle
    while time.perf_counter() < warm_up:
        timed(rows["write roof (CuPy fill)"][1], 10, 1)
    results, draws = {}, {}
    for name, (buffer, run, *count) in rows.items():
        if args.only and not any(o in name for o in args.only.split(",")) \
                and "roof" not in name:
            continue
        nbytes = buffer if isinstance(buffer, int) else buffer.nbytes
        clock = timed_on_host if name.startswith("JAX") else timed
        seconds = clock(run, args.calls, args.repeats)
        results[name] = nbytes / seconds / 1e12
        if count or name.startswith("tandem"):
            draws[name] = (count[0] if count else buffer.size) / seconds
    roof_rate = max(rate for name, rate in results.items() if name.startswith("write roof"))
    persistent = {}
    if args.persistent:
        import dataclasses

        from tandem.backends import cuda as cuda_backend

        registry = cuda_backend.kinds.KINDS
        for kind_name, kind in list(registry.items()):
            registry[kind_name] = dataclasses.replace(kind, persistent=True)
        for name in results:
            if name.startswith("tandem"):
                buffer, run = rows[name]
                persistent[name] = buffer.nbytes / timed(run, args.calls, args.repeats) / 1e12
    extra = " | persistent grid, TB/s" if persistent else ""
    print(f"\n| what | TB/s | of roof{extra} |\n| --- | --- | ---{' | ---' if extra else ''} |")
    for name, rate in results.items():
        more = f" | {persistent[name]:.2f}" if name in persistent else (" |" if extra else "")
        print(f"| {name} | {rate:.2f} | {rate / roof_rate:.0%}{more} |")
    print(goals_table(results, draws, roof_rate))
    print(tandem8x32_table(results, roof_rate))
    print(law_table(results))
    if not args.only or "walk" in args.only:
        print(walk_table(args.walk_particles, args.walk_steps, max(args.calls // 4, 2),
                         args.repeats))


if __name__ == "__main__":
    main()
