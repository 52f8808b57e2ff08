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

ROWS = (("random(16), one thread (µs per call)", "small", "{:.1f}"),
        ("random(2**16) (µs per call)", "mid", "{:.0f}"),
        ("normal f64, 2**23 (M/s)", "big", "{:.0f}"),
        ("4 threads x normal f64 2**20 at once (M/s)", "concurrent", "{:.0f}"),
        ("bootstrap filter, n = 10**5, T = 50 (s)", "pf", "{:.3f}"))


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
    print("| what | " + " | ".join(LAYERS) + " |")
    print("| --- |" + " --- |" * len(LAYERS))
    for name, field, form in ROWS:
        cells = []
        for layer in LAYERS:
            runs = [x for x in results[layer] if "error" not in x]
            cells.append(form.format(statistics.median(x[field] for x in runs)) if runs
                         else results[layer][0]["error"])
        print(f"| {name} | " + " | ".join(cells) + " |")
    cells = []
    for layer in LAYERS:
        runs = results[layer]
        ok = sum(1 for x in runs if x.get("fork"))
        cells.append(f"{ok} of {len(runs)}")
    print("| fork pool after a fill works | " + " | ".join(cells) + " |")
    base = [x for x in results["omp"] if "error" not in x]
    if base:
        print("\nratios to omp (median): " + ", ".join(
            f"{layer} {field} "
            f"{statistics.median(x[field] for x in results[layer] if 'error' not in x) / statistics.median(y[field] for y in base):.2f}"
            for layer in ("tbb", "workqueue") for _, field, _ in ROWS
            if any("error" not in x for x in results[layer])))


if __name__ == "__main__":
    main()
