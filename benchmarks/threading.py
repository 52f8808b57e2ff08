"""Threading-layer benchmark: Numba's tbb, omp and workqueue under tandem, in one run.

    python benchmarks/threading.py [--rounds 5]

Each round starts one process per layer (``NUMBA_THREADING_LAYER``), in a
rotating order, and each process times the same calls; the table gives the
median over rounds.  Rows: the host cost of a small fill (16 elements, one
thread), a mid-sized parallel fill (2**16 uniforms), a large normal fill,
four Python threads filling at once (tandem takes its lock under
workqueue), a bootstrap particle filter (many small parallel calls), and
whether a fork pool still works after a fill in the parent.  ``tbb`` needs
the ``tbb`` package (``pip install tbb``); a layer that cannot load is
reported as such.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

LAYERS = ("tbb", "omp", "workqueue")

CHILD = textwrap.dedent("""
    import json, multiprocessing, threading, time
    import numba, numpy as np
    import tandem
    from tandem import smc

    def per_call(run, calls):
        run()
        t0 = time.perf_counter()
        for _ in range(calls):
            run()
        return (time.perf_counter() - t0) / calls

    def fork_child(i):
        return float(tandem.Philox(i).random(1000)[0].sum())

    s = tandem.Philox(1)
    small = per_call(lambda: s.random(16), 2000) * 1e6
    mid = per_call(lambda: s.random(2**16), 300) * 1e6
    out = np.empty(2**23)
    big = 2**23 / per_call(lambda: s.normal(out=out), 10) / 1e6

    outs = [np.empty(2**20) for _ in range(4)]
    def work(i):
        for _ in range(10):
            tandem.Philox(i).normal(out=outs[i])
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    work(0)
    t0 = time.perf_counter()
    [t.start() for t in threads]
    [t.join() for t in threads]
    concurrent = 40 * 2**20 / (time.perf_counter() - t0) / 1e6

    model = smc.LinearGaussian(0.9, 0.3, 0.5)
    y = list(np.sin(np.arange(50) / 5.0))
    smc.bootstrap_filter(tandem.Philox(1), model, y[:2], 1000)
    pf = min(per_call(lambda: smc.bootstrap_filter(tandem.Philox(2), model, y, 10**5), 1)
             for _ in range(3))

    print(json.dumps({"layer": numba.threading_layer(), "small": small, "mid": mid,
                      "big": big, "concurrent": concurrent, "pf": pf}), flush=True)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        forked = pool.map_async(fork_child, range(4)).get(timeout=20)
    print(json.dumps({"fork": len(forked) == 4}))
""")

# (row, field, format, whether the figure is a rate: higher is better)
ROWS = (("random(16), one thread (µs per call)", "small", "{:.1f}", False),
        ("random(2**16) (µs per call)", "mid", "{:.0f}", False),
        ("normal f64, 2**23 (M/s)", "big", "{:.0f}", True),
        ("4 threads x normal f64 2**20 at once (M/s)", "concurrent", "{:.0f}", True),
        ("bootstrap filter, n = 10**5, T = 50 (s)", "pf", "{:.3f}", False))


def run_layer(layer):
    env = dict(os.environ, NUMBA_THREADING_LAYER=layer)
    try:
        done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                              text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"error": "timed out (hang)"}
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {done.returncode}: {last[:80]}"}
    return {k: v for line in lines for k, v in line.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results = {layer: [] for layer in LAYERS}
    for r in range(args.rounds):
        for layer in LAYERS[r % 3:] + LAYERS[:r % 3]:
            results[layer].append(run_layer(layer))
    print(f"threading layers, {os.cpu_count()} cores; median of {args.rounds} rounds\n")
    medians = {layer: {} for layer in LAYERS}
    for layer in LAYERS:
        runs = [x for x in results[layer] if "error" not in x]
        for _, field, _, _ in ROWS:
            if runs:
                medians[layer][field] = statistics.median(x[field] for x in runs)
    print("| what | " + " | ".join(LAYERS) + " | tbb cost / omp | workqueue cost / omp |")
    print("| --- |" + " --- |" * (len(LAYERS) + 2))
    for name, field, form, rate in ROWS:
        cells = [form.format(medians[layer][field]) if field in medians[layer]
                 else results[layer][0]["error"] for layer in LAYERS]
        for layer in ("tbb", "workqueue"):
            if field in medians[layer] and field in medians["omp"]:
                ratio = medians[layer][field] / medians["omp"][field]
                cells.append(f"{1 / ratio if rate else ratio:.2f}")
            else:
                cells.append("-")
        print(f"| {name} | " + " | ".join(cells) + " |")
    forks = [f"{sum(1 for x in results[layer] if x.get('fork'))} of {args.rounds}"
             for layer in LAYERS]
    print("| fork pool after a fill works | " + " | ".join(forks) + " | | |")

if __name__ == "__main__":
    main()
