"""tandem.bn on a GPU against the CPU, in one run: score tables (and, with --mcmc, order MCMC).

    python benchmarks/bn_gpu.py [--networks DIR] [--rows 1000 10000] [--k 3 4]
                                [--cpu-entries 4000000] [--only alarm,hepar2]

For each network, k and number of rows (BDeu, ess 1, every parent set of at
most k of the other nodes; data sampled from the network with
``Philox(2024).sub(name)``):

* the GPU computes the whole table into host memory (``score_table(...,
  device="cuda")``; the kernels compiled beforehand on a small table), timed
  from the start to the last entry on the host; then, apart, the kernels
  alone over the whole table into one device slice (no copies);
* the CPU (Numba's parallel kernels, every core of this machine) computes the
  last ``--cpu-entries`` entries of the same table (the largest parent sets:
  the slowest entries), which are checked equal to the GPU's bit for bit.

``andes139`` is andes's first 139 nodes (the size the thesis planned a grid
of machines for: 2.07e9 scores at k = 4).  The networks not shipped with
tandem are read from ``--networks`` (default ``../shared/data/networks``).
"""

import argparse
import os
import platform
import time

import numba
import numpy as np

import tandem
from tandem import bn
from tandem.bn import table as table_module

NETWORKS = ("alarm", "hepar2", "win95pts", "pathfinder", "andes139")


def dataset(name, rows, folder):
    base = "andes" if name == "andes139" else name
    if base in bn.NETWORKS:
        network = bn.load_network(base)
    else:
        network = bn.read_bif(os.path.join(folder, f"{base}.bif.gz"))
    data = network.sample(rows, tandem.Philox(2024).sub(base))
    if name == "andes139":
        data = bn.Dataset.from_codes(data.values[:, :139], data.arities[:139], data.names[:139])
    return data


def gpu_name():
    from numba import cuda

    if not hasattr(cuda, "get_current_device"):
        return "the CUDA simulator"
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def kernels_alone(plan):
    """Seconds of the kernels over the whole table into one device slice, no copies."""
    from numba import cuda

    from tandem.bn import cuda_table

    fill = plan._device_fill
    size = cuda_table.slice_entries(fill.total)
    out = cuda.device_array(size)
    cuda.synchronize()
    t0 = time.perf_counter()
    for start in range(0, fill.total, size):
        fill.launch(start, min(start + size, fill.total), out)
    cuda.synchronize()
    return time.perf_counter() - t0


def table_row(name, k, rows, folder, cpu_entries):
    data = dataset(name, rows, folder)
    inf = float("inf")
    # compile the kernels of this k and largest arity first, on a table of k candidates
    small = bn.Dataset.from_codes(data.values[:64], data.arities, data.names)
    bn.score_table(small, max_parents=k, candidates=k, progress=False, device="cuda")
    t0 = time.perf_counter()
    plan = table_module.plan_table(data, max_parents=k, memory_limit=inf, device="cuda")
    t_plan = time.perf_counter() - t0
    t0 = time.perf_counter()
    table = plan.compute(progress=False)
    t_gpu = time.perf_counter() - t0
    t_kernels = kernels_alone(plan)
    total = table.scores.size
    cpu_plan = table_module.plan_table(data, max_parents=k, memory_limit=inf)
    n = min(total, cpu_entries)
    out = np.empty(n)
    cpu_plan._fill(total - min(n, 1024), total, out)  # compiled already by the plan
    t0 = time.perf_counter()
    cpu_plan._fill(total - n, total, out)
    t_cpu = time.perf_counter() - t0
    equal = bool(np.array_equal(out, table.scores.reshape(-1)[total - n:]))
    del table
    return {"network": name, "nodes": data.n_vars, "k": k, "rows": rows, "scores": total,
            "plan": t_plan, "gpu": t_gpu, "kernels": t_kernels, "gpu_rate": total / t_gpu,
            "kernel_rate": total / t_kernels, "cpu_entries": n, "cpu_rate": n / t_cpu,
            "equal": equal}


def mcmc_row(name, k, gpu_chains, gpu_iterations, cpu_chains, cpu_iterations, folder, thin,
             repeats):
    data = dataset(name, 1000, folder)
    table = bn.score_table(data, max_parents=k, progress=False, device="cuda",
                           memory_limit=float("inf"))
    root = tandem.Philox(1)
    run = dict(progress=False, thin=thin)
    bn.order_mcmc(table, root, chains=2, iterations=2, device="cuda", **run)  # compiles

    def timed(**kwargs):
        t0 = time.perf_counter()
        result = bn.order_mcmc(table, root, **run, **kwargs)
        return result, time.perf_counter() - t0

    # GPU and CPU in turn, each with its set-up alone (the weights, the device's copies,
    # the first scoring, the result: no iterations); medians over the repeats
    times = {key: [] for key in ("setup_gpu", "gpu", "setup_cpu", "cpu")}
    for _ in range(repeats):
        times["setup_gpu"].append(timed(chains=gpu_chains, iterations=0, device="cuda")[1])
        gpu, t = timed(chains=gpu_chains, iterations=gpu_iterations, device="cuda")
        times["gpu"].append(t)
        times["setup_cpu"].append(timed(chains=cpu_chains, iterations=0)[1])
        cpu, t = timed(chains=cpu_chains, iterations=cpu_iterations)
        times["cpu"].append(t)
    setup_gpu, t_gpu, setup_cpu, t_cpu = (float(np.median(times[key])) for key in times)
    shown = min(gpu_chains, cpu_chains)
    same = min(gpu_iterations, cpu_iterations)
    equal = bool(np.array_equal(gpu.traces[:shown, :same], cpu.traces[:shown, :same]))
    return {"network": name, "nodes": data.n_vars, "k": k, "sets": table.n_sets,
            "gpu_chains": gpu_chains, "gpu_iterations": gpu_iterations,
            "gpu_rate": gpu_chains * gpu_iterations / t_gpu, "gpu_s": t_gpu,
            "gpu_net": gpu_chains * gpu_iterations / max(t_gpu - setup_gpu, 1e-9),
            "setup_gpu": setup_gpu,
            "cpu_chains": cpu_chains, "cpu_iterations": cpu_iterations,
            "cpu_rate": cpu_chains * cpu_iterations / t_cpu, "cpu_s": t_cpu,
            "cpu_net": cpu_chains * cpu_iterations / max(t_cpu - setup_cpu, 1e-9),
            "setup_cpu": setup_cpu, "equal": equal}


def mcmc_rows(args):
    """Order-MCMC iterations per second (every chain's together), GPU and CPU in turn."""
    from tandem.bn import cuda_mcmc

    if args.max_registers is not None:
        cuda_mcmc.MAX_REGISTERS = args.max_registers or None
    print(f"order MCMC, 1,000 rows, BDeu ess 1, default moves, thin {args.thin}, Philox(1); "
          f"chain c the same on both devices (traces compared over the chains and iterations "
          f"both ran); medians of {args.repeats} runs a device, in turn; GPU registers a "
          f"thread: {cuda_mcmc.MAX_REGISTERS or 'as compiled'}")
    print()
    small = bn.score_table(bn.load_network("asia").sample(100, tandem.Philox(1)), max_parents=2,
                           progress=False)
    bn.order_mcmc(small, tandem.Philox(1), chains=1, iterations=30, progress=False)  # compiles
    header = ("| network | nodes | k | sets a node | GPU chains x iterations | GPU s | "
              "GPU set-up s | GPU iterations/s | net of set-up | CPU chains x iterations | "
              "CPU s | CPU set-up s | CPU iterations/s | net of set-up | GPU / CPU | "
              "net GPU / CPU | equal |")
    print(header)
    print("| " + " | ".join(["---"] * (header.count("|") - 1)) + " |")
    for spec in args.mcmc.split(","):
        name, k, gc, gi, cc, ci = spec.split(":")
        r = mcmc_row(name, int(k), int(gc), int(gi), int(cc), int(ci), args.networks,
                     args.thin, args.repeats)
        print(f"| {r['network']} | {r['nodes']} | {r['k']} | {r['sets']:,} | "
              f"{r['gpu_chains']} x {r['gpu_iterations']:,} | {r['gpu_s']:.1f} | "
              f"{r['setup_gpu']:.1f} | {r['gpu_rate']:,.3g} | {r['gpu_net']:,.3g} | "
              f"{r['cpu_chains']} x {r['cpu_iterations']:,} | {r['cpu_s']:.1f} | "
              f"{r['setup_cpu']:.1f} | {r['cpu_rate']:,.3g} | {r['cpu_net']:,.3g} | "
              f"{r['gpu_rate'] / r['cpu_rate']:.2g}x | {r['gpu_net'] / r['cpu_net']:.2g}x | "
              f"{r['equal']} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                           "shared", "data", "networks"))
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--k", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--cpu-entries", type=int, default=4_000_000)
    parser.add_argument("--only", default=",".join(NETWORKS))
    parser.add_argument("--mcmc", default="",
                        help="order MCMC instead of tables: NAME:K:GPU_CHAINS:GPU_ITERATIONS:"
                             "CPU_CHAINS:CPU_ITERATIONS,...")
    parser.add_argument("--thin", type=int, default=10, help="order MCMC: keep every THIN-th "
                        "order (its DAGs sampled)")
    parser.add_argument("--repeats", type=int, default=3, help="order MCMC: runs a device")
    parser.add_argument("--max-registers", type=int, default=None,
                        help="order MCMC: the GPU kernel's registers a thread (0: the "
                             "compiler's choice; default: tandem.bn.cuda_mcmc.MAX_REGISTERS)")
    parser.add_argument("--cpu-threads", type=int, default=0,
                        help="the CPU's Numba threads (default: every core)")
    args = parser.parse_args()
    if args.cpu_threads:
        numba.set_num_threads(args.cpu_threads)
    print(f"{time.strftime('%Y-%m-%d')}; GPU {gpu_name()}; CPU {platform.processor() or '?'} "
          f"({os.cpu_count()} cores, {numba.get_num_threads()} Numba threads); tandem "
          f"{tandem.__version__}, numba {numba.__version__}")
    if args.mcmc:
        return mcmc_rows(args)
    print("BDeu ess 1; GPU: the whole table into host memory; CPU: its last entries (largest "
          "sets), checked equal to the GPU's")
    print()
    header = ("| network | nodes | k | rows | scores | GPU s (to host) | GPU scores/s | "
              "kernels alone s | CPU entries timed | CPU scores/s | GPU / CPU | equal |")
    print(header)
    print("| " + " | ".join(["---"] * (header.count("|") - 1)) + " |")
    for name in args.only.split(","):
        for k in args.k:
            for rows in args.rows:
                r = table_row(name, k, rows, args.networks, args.cpu_entries)
                print(f"| {r['network']} | {r['nodes']} | {r['k']} | {r['rows']:,} | "
                      f"{r['scores']:.3g} | {r['gpu']:.2f} | {r['gpu_rate']:.3g} | "
                      f"{r['kernels']:.2f} | {r['cpu_entries']:.3g} | {r['cpu_rate']:.3g} | "
                      f"{r['gpu_rate'] / r['cpu_rate']:.0f}x | {r['equal']} |", flush=True)


if __name__ == "__main__":
    main()
