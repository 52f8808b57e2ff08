"""Structure learning against its peers on the alarm network (37 nodes): the
CPDAG structural Hamming distance to the true graph, and the seconds, of
tandem's order MCMC, pgmpy's hill climbing and PC, and causal-learn's GES and
PC, on the same data.

The data come from pgmpy, not tandem: ``BIFReader`` reads the network and
``BayesianModelSampling(model).forward_sample(size=rows, seed=seed)`` draws
each data set. Every method gets those rows: tandem as a Dataset whose
categories are the network's states, pgmpy as the sampled DataFrame,
causal-learn as the state codes.

* ``tandem, edges > 0.5`` and ``tandem, MAP DAG``: ``report.learn`` (BDeu ess
  1, at most 3 parents, its default 4 chains of 20,000 iterations, the chains'
  seed the data's), then the graph of the edges whose posterior passes 0.5
  and the MAP DAG, one run for both rows.
* ``pgmpy HC``: ``HillClimbSearch`` with the BDeu score (pgmpy's default score
  is BIC; its BDeu has equivalent sample size 10), other settings default.
* ``pgmpy PC``: ``estimators.PC`` (parallel PC-stable, chi-square test,
  significance 0.01, at most 5 conditioning variables), ``return_type="dag"``
  (the PDAG's consistent extension).
* ``causal-learn GES``: ``ges`` with ``local_score_BDeu`` (sample prior 1),
  its CPDAG as returned.
* ``causal-learn PC``: ``pc`` with the ``chisq`` test, alpha 0.01, its graph
  as returned (a bidirected edge counts as undirected).

Each DAG becomes its CPDAG (``tandem.bn.graphs.cpdag``); the distance is
``tandem.bn.diagnostics.structural_hamming_distance`` between CPDAG matrices
(an undirected edge sets both directions), so a missing, extra or
differently oriented edge counts once.

pgmpy's HC and PC break ties in the order of Python sets of node names, so
their results move with ``PYTHONHASHSEED``: fix it to repeat a run.

causal-learn stays out of the main environment; install it apart with
``python3 -m pip install --no-deps --target /tmp/causallearn causal-learn
pydot graphviz momentchi2`` (the rest of what it imports is already here).

``PYTHONHASHSEED=0 PYTHONPATH=src python3 benchmarks/bn_peers.py [--rows 1000 5000]
[--seeds 0 1 2] [--methods tandem hc pc ges cl-pc]
[--causal-learn-path /tmp/causallearn]``: progress on stderr, the markdown
table on stdout.
"""

import argparse
import datetime
import gzip
import importlib.metadata
import os
import pathlib
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd

import tandem
from tandem.bn import Dataset, diagnostics, graphs, read_bif, report

NETWORKS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "networks"
METHODS = ("tandem", "hc", "pc", "ges", "cl-pc")


def load(path):
    """The network as pgmpy's model and as tandem's :class:`Network`."""
    from pgmpy.readwrite import BIFReader

    with gzip.open(path, "rt", encoding="utf-8") as f:
        model = BIFReader(string=f.read()).get_model()
    return model, read_bif(path)


def sample(model, network, rows, seed):
    """``rows`` rows forward-sampled by pgmpy, columns in the network's order, each
    a Categorical whose categories are the node's states."""
    from pgmpy.sampling import BayesianModelSampling

    frame = BayesianModelSampling(model).forward_sample(size=rows, seed=seed,
                                                         show_progress=False)
    return pd.DataFrame({name: pd.Categorical(frame[name].astype(str), categories=states)
                         for name, states in zip(network.names, network.states)})


def matrix(edges, names):
    """The bool ``[parent, child]`` matrix of ``(parent, child)`` name pairs."""
    index = {name: i for i, name in enumerate(names)}
    a = np.zeros((len(names), len(names)), dtype=bool)
    for parent, child in edges:
        a[index[parent], index[child]] = True
    return a


def endpoints(graph):
    """A causal-learn graph matrix as a CPDAG matrix: ``graph[i, j] == -1`` (a tail
    at ``i``) or ``graph[j, i] == 1`` (an arrow at ``j``) sets ``[i, j]``."""
    g = np.asarray(graph)
    return (g == -1) | (g.T == 1)


def run_tandem(frame, names, seed):
    learned = report.learn(Dataset.from_dataframe(frame), max_parents=3, seed=seed,
                           progress=False)
    return {"tandem, edges > 0.5": graphs.cpdag(learned.graph()),
            "tandem, MAP DAG": graphs.cpdag(learned.map_dag[0])}


def run_hc(frame, names, seed):
    from pgmpy.estimators import HillClimbSearch

    dag = HillClimbSearch(frame.astype(str)).estimate(scoring_method="bdeu",
                                                      show_progress=False)
    return {"pgmpy HC (BDeu)": graphs.cpdag(matrix(dag.edges(), names))}


def run_pc(frame, names, seed):
    from pgmpy.estimators import PC

    dag = PC(frame.astype(str)).estimate(ci_test="chi_square", significance_level=0.01,
                                         return_type="dag", show_progress=False)
    return {"pgmpy PC": graphs.cpdag(matrix(dag.edges(), names))}


def codes(frame):
    """The Categorical columns' state codes, an int64 ``(rows, nodes)`` array."""
    return np.column_stack([frame[c].cat.codes.to_numpy(np.int64) for c in frame.columns])


def run_ges(frame, names, seed):
    from causallearn.search.ScoreBased.GES import ges

    record = ges(codes(frame), score_func="local_score_BDeu", node_names=list(names))
    return {"causal-learn GES (BDeu)": endpoints(record["G"].graph)}


def run_cl_pc(frame, names, seed):
    from causallearn.search.ConstraintBased.PC import pc

    result = pc(codes(frame), alpha=0.01, indep_test="chisq", show_progress=False,
                node_names=list(names))
    return {"causal-learn PC": endpoints(result.G.graph)}


RUNNERS = {"tandem": run_tandem, "hc": run_hc, "pc": run_pc, "ges": run_ges,
           "cl-pc": run_cl_pc}


def causal_learn_version(path):
    """Put ``path`` on ``sys.path`` and return causal-learn's version, or None
    (with a note on stderr) when it cannot be imported."""
    if os.path.isdir(path) and path not in sys.path:
        sys.path.append(path)
    try:
        import causallearn.search.ScoreBased.GES  # noqa: F401
    except ImportError as error:
        print(f"causal-learn cannot be imported from {path} ({error}): its methods are "
              f"skipped", file=sys.stderr)
        return None
    return importlib.metadata.version("causal-learn")


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def measure(args, model, network, methods):
    """``{(row label, rows): [(seed, shd, seconds), ...]}`` over every data set."""
    truth = graphs.cpdag(network.adjacency())
    results = {}
    for rows in args.rows:
        for seed in args.seeds:
            frame = sample(model, network, rows, seed)
            for method in methods:
                start = time.perf_counter()
                try:
                    found = RUNNERS[method](frame, network.names, seed)
                except Exception as error:  # a peer's failure is a result to report
                    print(f"N={rows} seed={seed} {method}: failed, {type(error).__name__}: "
                          f"{error}", file=sys.stderr, flush=True)
                    continue
                seconds = time.perf_counter() - start
                for label, cpdag in found.items():
                    shd = diagnostics.structural_hamming_distance(cpdag, truth)
                    results.setdefault((label, rows), []).append((seed, shd, seconds))
                    print(f"N={rows} seed={seed} {label}: SHD {shd}, {seconds:.1f} s",
                          file=sys.stderr, flush=True)
    return results


def table(results, rows):
    """The markdown table: a row a method, mean SHD, SHD per seed and mean seconds
    for each sample size."""
    labels = list(dict.fromkeys(label for label, _ in results))
    head = ([f"mean CPDAG SHD, N = {n:,}" for n in rows]
            + [f"SHD per seed, N = {n:,}" for n in rows]
            + [f"mean seconds, N = {n:,}" for n in rows])
    lines = ["| method | " + " | ".join(head) + " |", "| --- |" + " --- |" * len(head)]
    for label in labels:
        runs = [results.get((label, n), []) for n in rows]
        cells = ([f"{np.mean([r[1] for r in run]):.1f}" if run else "failed" for run in runs]
                 + [", ".join(f"{r[1]} (seed {r[0]})" for r in run) or "-" for run in runs]
                 + [f"{np.mean([r[2] for r in run]):.1f}" if run else "-" for run in runs])
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--causal-learn-path", default="/tmp/causallearn")
    parser.add_argument("--network", type=pathlib.Path, default=NETWORKS / "alarm.bif.gz")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    os.environ["PYTHONWARNINGS"] = "ignore"  # pgmpy's PC workers' deprecation warnings
    import pgmpy

    methods = args.methods
    cl_version = None
    if {"ges", "cl-pc"} & set(methods):
        cl_version = causal_learn_version(args.causal_learn_path)
        if cl_version is None:
            methods = [m for m in methods if m not in ("ges", "cl-pc")]
    model, network = load(args.network)
    start = time.perf_counter()
    results = measure(args, model, network, methods)
    print(f"{datetime.date.today()}; {os.cpu_count()} CPUs (nproc "
          f"{len(os.sched_getaffinity(0))}), {cpu_model()}; PYTHONHASHSEED "
          f"{os.environ.get('PYTHONHASHSEED', 'random')}; tandem {tandem.__version__}, "
          f"pgmpy {pgmpy.__version__}, causal-learn {cl_version or 'not used'}; "
          f"{network.name if network.name != 'unknown' else args.network.name}: "
          f"{len(network.names)} nodes, {int(network.adjacency().sum())} arcs; data from "
          f"pgmpy forward_sample, seeds {' '.join(map(str, args.seeds))}; "
          f"{time.perf_counter() - start:.0f} s in all\n")
    print(table(results, args.rows))


if __name__ == "__main__":
    main()
