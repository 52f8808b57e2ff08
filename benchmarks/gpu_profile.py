"""What bounds each GPU fill: Nsight Compute's counters for tandem's fill kernels.

    python benchmarks/gpu_profile.py [--log2n 26]

runs ``ncu`` on itself (``--child``), which makes every fill of
``benchmarks/gpu.py``'s tandem rows and laws twice (the first compiles), and
then the Brownian walks of ``benchmarks/walk_kernels.py`` (``--only NAME``:
the rows whose name contains NAME).  It prints, for the second
launch of each row's kernels, the kernel time, the warp instructions per
16 bytes written (or per particle-step), how busy the schedulers' issue
slots were, DRAM throughput, registers, and how busy the FP64 pipe was.  A fill whose issue slots are
near 100 % while DRAM is far from it is bound by its instruction count: at
the H200's 132 x 4 warp instructions a clock, that count sets its roof.
"""

import argparse
import csv
import io
import os
import subprocess
import sys

METRICS = {
    "gpu__time_duration.sum": "time",
    "smsp__inst_executed.sum": "warp instructions",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue active %",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM %",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy %",
    "launch__registers_per_thread": "registers",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active": "FP64 pipe %",
}


def child(log2n, particles, steps, only):
    """Run each row (of those whose name contains ``only``) twice, marking the
    second run with an NVTX range."""
    import cupy as cp
    import numpy as np
    from numba import cuda

    sys.path.insert(0, os.path.dirname(__file__))
    import gpu
    import walk_kernels

    import tandem

    n32, n64 = 2**log2n, 2**(log2n - 1)
    rows = gpu.tandem_rows(n32, n64)
    rows.update((name, row) for name, row in gpu.law_rows(n64).items()
                if name.endswith(": tandem"))
    for name, (buffer, run) in rows.items():
        if only not in name:
            continue
        run()
        cp.cuda.runtime.deviceSynchronize()
        with _range(cp, f"{name}|{buffer.nbytes}"):
            run()
            cp.cuda.runtime.deviceSynchronize()
    walkers = tandem.Philox(2024).sub("walk")
    k0, k1, word, domain = walk_kernels.launch_args(walkers)
    walk32, walk64 = walk_kernels.tandem_kernels(steps)
    module = cp.RawModule(code=walk_kernels.CURAND)
    table = cuda.to_device(np.array(tandem.core.normal.FAST_TABLE))
    out32, out64 = cp.empty(particles, cp.float32), cp.empty(particles, cp.float64)
    blocks, threads = -(-particles // 256), 256
    seed, n, t = np.uint64(2024), np.int32(particles), np.int32(steps)
    walks = {
        "walk f32, tandem": lambda: walk32[blocks, threads](out32, k0, k1),
        "walk f32, cuRAND": lambda: module.get_function("walk32")((blocks,), (threads,),
                                                                  (out32, seed, n, t)),
        "walk f64, tandem": lambda: walk64[blocks, threads](out64, k0, k1, word, domain, table),
        "walk f64, cuRAND": lambda: module.get_function("walk64")((blocks,), (threads,),
                                                                  (out64, seed, n, t)),
    }
    for name, run in walks.items():
        if only not in name:
            continue
        run()
        cp.cuda.runtime.deviceSynchronize()
        with _range(cp, f"{name}|steps {particles * steps}"):
            run()
            cp.cuda.runtime.deviceSynchronize()


class _range:
    def __init__(self, cp, label):
        self.nvtx, self.label = cp.cuda.nvtx, label

    def __enter__(self):
        self.nvtx.RangePush(self.label)

    def __exit__(self, *exc):
        self.nvtx.RangePop()


def _number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return float("nan")


def parse(text):
    """``(row label, kernel name, {metric: value})`` of each profiled kernel
    launched inside one of :func:`child`'s ranges."""
    rows = list(csv.reader(io.StringIO(text[text.index('"ID"'):])))
    header = rows[0]
    out = []
    for row in rows[2:]:  # the second row holds the units
        record = dict(zip(header, row))
        # The NVTX column reads 'PID  "<default domain>:LABEL:none:...'.
        ranges = [v for k, v in record.items() if "Range" in k and "|" in v]
        if ranges:
            label = ranges[0].split('"')[1].split(":", 1)[1].rsplit(":none", 6)[0]
            out.append((label, record.get("Kernel Name", ""),
                        {m: _number(record.get(m, "")) for m in METRICS}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=26)
    parser.add_argument("--particles", type=int, default=2**18)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--raw", help="also write ncu's CSV to this file")
    parser.add_argument("--only", default="", help="profile rows whose name contains this")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.log2n, args.particles, args.steps, args.only)
        return
    command = ["ncu", "--clock-control", "none", "--nvtx", "--print-units", "base",
               "--metrics", ",".join(METRICS), "--csv", "--page", "raw", sys.executable,
               __file__, "--child", "--log2n", str(args.log2n), "--particles",
               str(args.particles), "--steps", str(args.steps), "--only", args.only]
    result = subprocess.run(command, capture_output=True, text=True)
    if args.raw:
        with open(args.raw, "w") as f:
            f.write(result.stdout)
    if result.returncode:
        sys.exit(result.stdout[-3000:] + result.stderr[-3000:])
    print(f"ncu, 2**{args.log2n} 4-byte elements per fill; walks of {args.particles} "
          f"particles x {args.steps} steps\n")
    print_table(parse(result.stdout))


def print_table(rows):
    print("| row | kernel | µs | instructions per 16 B written (walks: per step) | "
          "issue active % | DRAM % | occupancy % | registers | FP64 pipe % |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, kernel, m in rows:
        name, _, amount = label.rpartition("|")
        units = _number(amount.split()[-1]) / (1 if amount.startswith("steps") else 16)
        issue, dram, occupancy, registers, fp64 = (m[key] for key in list(METRICS)[2:])
        # ncu counts warp instructions: 32 threads' worth each.
        kernel = next((k for k in ("mend", "fill", "walk32", "walk64") if k in kernel),
                      kernel[:30])
        print(f"| {name} | {kernel} | "
              f"{m['gpu__time_duration.sum'] / 1e3:.0f} | "
              f"{m['smsp__inst_executed.sum'] * 32 / units:.1f} | {issue:.1f} | {dram:.1f} | "
              f"{occupancy:.1f} | {registers:.0f} | {fp64:.1f} |")


if __name__ == "__main__":
    main()
