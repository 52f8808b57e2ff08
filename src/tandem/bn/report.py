"""Structure learning end to end: data, score table, order MCMC, a report folder.

:func:`learn` runs the pipeline; :func:`write_report` writes what it found:

* ``edges.csv``: ``parent,child,probability`` for every ordered pair of
  distinct nodes, the order-MCMC estimate of the edge's posterior;
* ``run.json``: the settings, the data's shape and fingerprint, timings,
  the best order and DAG, R-hat of the order scores, acceptance rates, and,
  when the true graph is known, SHD and edge AUROC;
* ``traces.png``, ``edges.png``, ``chains.png``: the order log-score trace
  of each chain, the edge probabilities (with the true edges marked), and
  chain against chain (needs matplotlib, the ``docs`` extra).

Streams: the data of ``--network`` come from ``Philox(seed).sub("data")``
and the chains from ``Philox(seed).sub("mcmc")``.
"""

from __future__ import annotations

import csv
import json
import os
import pathlib
import shutil
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from ..stream import Philox
from . import diagnostics
from .mcmc import order_mcmc
from .table import score_table

PURPOSE_DATA, PURPOSE_MCMC = "data", "mcmc"
FIGURES = ("traces.png", "edges.png", "chains.png")


@dataclass(frozen=True)
class Learned:
    """What :func:`learn` found, and how.

    Attributes
    ----------
    data : Dataset
    table : ScoreTable
    mcmc : OrderMCMCResult
    settings : dict
        The arguments of :func:`learn`.
    seconds : dict
        Wall time of the score table and of the chains.
    true_adjacency : numpy.ndarray of bool or None
        The graph the data came from, when known.
    source : str
        Where the data came from (a path, or a network and a sample size).
    """

    data: object
    table: object
    mcmc: object
    settings: dict
    seconds: dict
    true_adjacency: np.ndarray | None
    source: str

    def summary(self):
        """The JSON-ready record of the run that ``run.json`` holds."""
        import tandem

        result, names = self.mcmc, self.table.names
        edges = [[names[p], names[c]] for p, c in zip(*np.nonzero(result.best_dag))]
        record = {
            "tandem": tandem.__version__,
            "source": self.source,
            "data": {"rows": self.data.n_rows, "columns": list(self.data.names),
                     "kind": self.data.kind, "dropped_rows": self.data.n_dropped,
                     "fingerprint": self.data.fingerprint},
            "settings": self.settings,
            "table": {"parent_sets_per_node": int(self.table.scores.shape[1]),
                      "candidates_per_node": int(self.table.candidates.shape[1]),
                      "excluded": {k: list(v) for k, v in self.table.excluded.items()},
                      "fingerprint": self.table.fingerprint},
            "seconds": self.seconds,
            "samples_per_chain": result.samples,
            "rhat_order_score": diagnostics.rhat(result.traces, burn_in=result.burn_in),
            "acceptance_rates": {k: [float(x) for x in v]
                                 for k, v in result.acceptance_rates.items()},
            "best_order": [names[i] for i in result.best_order],
            "best_order_score": result.best_order_score,
            "best_dag_edges": edges,
            "best_dag_score": result.best_dag_score,
        }
        if self.true_adjacency is not None:
            truth, p = self.true_adjacency, result.edge_probabilities
            record["against_true_graph"] = {
                "true_edges": int(truth.sum()),
                "shd_best_dag": diagnostics.structural_hamming_distance(result.best_dag, truth),
                "shd_probability_above_half": diagnostics.structural_hamming_distance(
                    p > 0.5, truth),
                "auroc_directed": diagnostics.edge_auroc(p, truth),
                "auroc_skeleton": diagnostics.edge_auroc(p, truth, directed=False),
            }
        return _plain(record)


def _plain(value):
    """``value`` with NumPy scalars as Python numbers and NaN as None (JSON)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        return None if not np.isfinite(value) else float(value)
    return value


def learn(data, *, score="bdeu", ess=1.0, max_parents=3, candidates=None, chains=4,
          iterations=20_000, seed=0, true_adjacency=None, source="data", progress=True):
    """Score table and order MCMC for ``data``.

    Parameters
    ----------
    data : Dataset
    score, ess, max_parents, candidates
        As for :func:`tandem.bn.score_table` (``ess`` is BDeu's; the other
        scores ignore it).
    chains, iterations
        As for :func:`tandem.bn.order_mcmc`.
    seed : int
        The chains draw from ``Philox(seed).sub("mcmc")``.
    true_adjacency : array_like of bool, optional
        The true graph ``[parent, child]``, for SHD and AUROC.
    source : str
        A description of the data, for the report.
    progress : bool or "always"

    Returns
    -------
    Learned
    """
    settings = {"score": score, "max_parents": max_parents, "candidates": candidates,
                "chains": chains, "iterations": iterations, "seed": seed}
    table_settings = {}
    if score == "bdeu":
        settings["ess"] = table_settings["ess"] = ess
    t0 = time.perf_counter()
    table = score_table(data, score=score, max_parents=max_parents, candidates=candidates,
                        progress=progress, **table_settings)
    t1 = time.perf_counter()
    result = order_mcmc(table, Philox(seed).sub(PURPOSE_MCMC), chains=chains,
                        iterations=iterations, progress=progress)
    t2 = time.perf_counter()
    truth = None if true_adjacency is None else np.asarray(true_adjacency, dtype=bool)
    return Learned(data, table, result, settings, {"score_table": t1 - t0, "order_mcmc": t2 - t1},
                   truth, source)


def write_report(learned, out):
    """Write the report of ``learned`` into the folder ``out``; returns its path.

    Everything is made in a temporary folder first and moved in at the end,
    so a failure leaves no partial report.  Files of an earlier report in
    ``out`` are replaced.
    """
    out = pathlib.Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, got the file {str(out)!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=".tandem-report-", dir=out.parent))
    try:
        record = learned.summary()
        record["figures"] = _figures(learned, staging)
        _edges_csv(learned, staging / "edges.csv")
        (staging / "run.json").write_text(json.dumps(record, indent=2) + "\n")
        out.mkdir(exist_ok=True)
        for path in staging.iterdir():
            os.replace(path, out / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _edges_csv(learned, path):
    names, p = learned.table.names, learned.mcmc.edge_probabilities
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["parent", "child", "probability"])
        for i, parent in enumerate(names):
            for j, child in enumerate(names):
                if i != j:
                    writer.writerow([parent, child, repr(float(p[i, j]))])


def _figures(learned, folder):
    """Write the PNG figures; returns their names, or why there are none."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "none: matplotlib is not installed (pip install 'tandem-rng[docs]')"
    result = learned.mcmc
    figures = {
        "traces.png": diagnostics.plot_traces(result.traces, burn_in=result.burn_in),
        "edges.png": diagnostics.plot_edge_probabilities(
            result.edge_probabilities, names=learned.table.names,
            true_adjacency=learned.true_adjacency),
        "chains.png": diagnostics.plot_chain_scatter(result.chain_edge_probabilities),
    }
    for name, figure in figures.items():
        figure.savefig(folder / name, dpi=120, bbox_inches="tight")
        plt.close(figure)
    return list(figures)
