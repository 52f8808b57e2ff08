"""Structure learning end to end: data, score table, order MCMC, a report folder.

:func:`learn` runs the pipeline; :func:`write_report` writes what it found:

* ``edges.csv``: ``parent,child,probability,se,ess,rhat`` for every ordered
  pair of distinct nodes: the order-MCMC estimate of the edge's posterior,
  its Monte Carlo standard error, effective sample size and rank-normalised
  split R-hat (see :class:`tandem.bn.OrderMCMCResult`); a name that starts
  with ``=``, ``+``, ``-`` or ``@`` is written after an apostrophe, so that no
  spreadsheet runs it as a formula;
* ``run.json``: the settings, the data's shape and fingerprint, timings,
  the best order and DAG, R-hat of the order scores, the edges' largest
  R-hat and smallest ESS (:func:`convergence`), acceptance rates, and, when
  the true graph is known, SHD and edge AUROC;
* ``graph.dot``, ``graph.graphml``: the acyclic graph of the edges whose
  posterior passes 0.5 (:func:`tandem.bn.graphs.thresholded_dag`), each arc
  labelled with its probability; ``cpdag.dot``, ``cpdag.graphml``: its
  Markov equivalence class (:func:`tandem.bn.graphs.cpdag`);
* ``traces.png``, ``edges.png``, ``chains.png``: the order log-score trace
  of each chain, the edge probabilities (with the true edges marked), and
  chain against chain (needs matplotlib, the ``docs`` extra; ``chains.png``
  needs two chains or more).

Streams: the data of ``--network`` come from ``Tandem(seed).sub("data")``
and the chains from ``Tandem(seed).sub("mcmc")``.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import threading
import time
from dataclasses import dataclass

import numpy as np

from .. import files
from ..tandem8x32 import Tandem
from . import diagnostics, expansion, graphs, independence, search
from .mcmc import estimate_bytes as mcmc_bytes
from .mcmc import DEFAULT_MOVES, SE_MERGE, geometric_temperatures, order_mcmc
from .table import _duration, plan_table

PURPOSE_DATA, PURPOSE_MCMC = "data", "mcmc"
FIGURES = ("traces.png", "edges.png", "chains.png")

#: The posterior probability an edge must pass to enter the report's graphs.
GRAPH_THRESHOLD = 0.5

#: A run is flagged when an edge's R-hat passes RHAT_LIMIT or its effective
#: sample size falls below ESS_LIMIT (Vehtari et al. 2021's advice), among the
#: edges sampled in at least EDGE_FLOOR of the DAGs.
RHAT_LIMIT, ESS_LIMIT, EDGE_FLOOR = 1.01, 400.0, 0.01


def convergence(result, names):
    """The edges' convergence in a JSON-ready record, with advice when it falls short.

    Parameters
    ----------
    result : OrderMCMCResult
    names : sequence of str
        The nodes' names.

    Returns
    -------
    dict
        ``largest_rhat`` and ``smallest_ess`` over the edges with a
        probability of at least :data:`EDGE_FLOOR` (each with its edge,
        ``"parent -> child"``), the counts past :data:`RHAT_LIMIT` and
        :data:`ESS_LIMIT`, and ``advice``: None when both hold, else a
        sentence giving the iterations to run. The ESS of a run grows about
        in proportion to its kept iterations, so the advice scales the
        iterations by ``ESS_LIMIT / smallest_ess``, and at least doubles them
        when only R-hat is past its limit.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> from tandem.bn import order_mcmc, score_table, load_network
    >>> data = load_network("cancer").sample(300, tandem.Tandem(1))
    >>> table = score_table(data, max_parents=2, progress=False)
    >>> r = order_mcmc(table, tandem.Tandem(2), iterations=400, progress=False)
    >>> sorted(convergence(r, table.names))[:3]
    ['advice', 'ess_below_limit', 'largest_rhat']
    """
    p = result.edge_probabilities
    watched = np.nan_to_num(p) >= EDGE_FLOOR
    rhat = np.where(watched & ~np.isnan(result.edge_rhat), result.edge_rhat, -np.inf)
    ess = np.where(watched & ~np.isnan(result.edge_ess), result.edge_ess, np.inf)

    def edge(index):
        parent, child = np.unravel_index(index, p.shape)
        return f"{names[parent]} -> {names[child]}"

    record = {"largest_rhat": None, "largest_rhat_edge": None, "smallest_ess": None,
              "smallest_ess_edge": None,
              "rhat_above_limit": int(np.sum(rhat > RHAT_LIMIT)),
              "ess_below_limit": int(np.sum(ess < ESS_LIMIT)), "advice": None}
    if np.any(rhat > -np.inf):
        worst = int(np.argmax(rhat))
        record["largest_rhat"], record["largest_rhat_edge"] = float(rhat.flat[worst]), edge(worst)
    if np.any(ess < np.inf):
        worst = int(np.argmin(ess))
        record["smallest_ess"], record["smallest_ess_edge"] = float(ess.flat[worst]), edge(worst)
    kept = result.samples // result.dags_per_order
    no_estimate = kept == 0 or not np.any(watched)
    no_errors = not no_estimate and np.any(watched & np.isnan(result.edge_standard_errors))
    if no_estimate or no_errors or record["rhat_above_limit"] or record["ess_below_limit"]:
        factor = 2.0
        if record["smallest_ess"] is not None and record["smallest_ess"] > 0:
            factor = max(factor if record["rhat_above_limit"] else 1.0,
                         ESS_LIMIT / record["smallest_ess"])
        if no_errors:  # SE_MERGE kept orders a batch, 16 batches
            factor = max(factor, 16 * SE_MERGE / kept)
        needed = int(np.ceil(result.iterations * factor / 1000.0) * 1000)
        parts = []
        if record["rhat_above_limit"]:
            parts.append(f"{record['rhat_above_limit']} edges have an R-hat above "
                         f"{RHAT_LIMIT} (largest {record['largest_rhat']:.3f}, "
                         f"{record['largest_rhat_edge']})")
        if record["ess_below_limit"]:
            parts.append(f"{record['ess_below_limit']} edges have an effective sample size "
                         f"below {ESS_LIMIT:.0f} (smallest {record['smallest_ess']:.0f}, "
                         f"{record['smallest_ess_edge']})")
        if no_estimate:
            parts.append("no DAG was sampled")
        if no_errors:
            parts.append(f"{kept} kept orders a chain are too few for standard errors")
        record["advice"] = (f"{'; '.join(parts)}: run about {needed} iterations per chain "
                            f"({needed - result.iterations} more) before trusting the edges")
    return record


@dataclass(frozen=True, eq=False)
class Learned:
    """What :func:`learn` found, and how. Compared by identity.

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

    def graph(self, threshold=GRAPH_THRESHOLD):
        """The acyclic graph of the edges whose posterior passes ``threshold``
        (:func:`tandem.bn.graphs.thresholded_dag`), as a bool ``[parent,
        child]`` matrix; :func:`tandem.bn.graphs.cpdag` gives its class and
        :func:`tandem.bn.graphs.to_networkx` a networkx graph."""
        return graphs.thresholded_dag(self.mcmc.edge_probabilities, threshold)

    @functools.cached_property
    def map_dag(self):
        """``(dag, score, exact)`` of :func:`tandem.bn.search.map_dag` on the
        table, from the chains' best orders: the highest-scoring DAG, exactly
        up to 20 nodes."""
        return search.map_dag(self.table, self.mcmc.chain_best_orders)

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
            "edges": convergence(result, names),
            "acceptance_rates": {k: [float(x) for x in v]
                                 for k, v in result.acceptance_rates.items()},
            "swap_rates": result.swap_rates.tolist(),
            "best_order": [names[i] for i in result.best_order],
            "best_order_score": result.best_order_score,
            "best_dag_edges": edges,
            "best_dag_score": result.best_dag_score,
            "map_dag_edges": [[names[p], names[c]] for p, c in zip(*np.nonzero(self.map_dag[0]))],
            "map_dag_score": self.map_dag[1],
            "map_dag_exact": self.map_dag[2],
        }
        if self.true_adjacency is not None:
            truth, p = self.true_adjacency, result.edge_probabilities
            true_class = graphs.cpdag(truth)
            record["against_true_graph"] = {
                "true_edges": int(truth.sum()),
                "shd_best_dag": diagnostics.structural_hamming_distance(result.best_dag, truth),
                "shd_probability_above_half": diagnostics.structural_hamming_distance(
                    p > 0.5, truth),
                "shd_cpdag_best_dag": diagnostics.structural_hamming_distance(
                    graphs.cpdag(result.best_dag), true_class),
                "shd_cpdag_map_dag": diagnostics.structural_hamming_distance(
                    graphs.cpdag(self.map_dag[0]), true_class),
                "shd_cpdag_graph": diagnostics.structural_hamming_distance(
                    graphs.cpdag(self.graph()), true_class),
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


#: A run whose score table is estimated to take longer than this many seconds
#: shows its progress bars on stderr even when it is not a terminal.
PROGRESS_AFTER = 5.0

#: The inverse temperature of the hottest replica when :func:`learn` tempers.
HOTTEST = 0.3


def learn(data, *, score="bdeu", ess=1.0, max_parents=3, candidates=None, chains=4,
          iterations=20_000, seed=0, true_adjacency=None, source="data", time_limit=None,
          progress=True, log=None, expand=0, moves=None, replicas=1, hottest=HOTTEST,
          device="cpu"):
    """Score table and order MCMC for ``data``.

    Parameters
    ----------
    data : Dataset
    score, ess, max_parents, candidates
        As for :func:`tandem.bn.score_table` (``ess`` is BDeu's; the other
        scores ignore it); ``candidates="pc"`` takes each node's neighbours
        in the PC-stable skeleton of discrete data
        (:func:`tandem.bn.independence.pc_skeleton`, its defaults).
    chains, iterations
        As for :func:`tandem.bn.order_mcmc`.
    seed : int
        The chains draw from ``Tandem(seed).sub("mcmc")``.
    true_adjacency : array_like of bool, optional
        The true graph ``[parent, child]``, for SHD and AUROC.
    source : str
        A description of the data, for the report.
    time_limit : float, optional
        Seconds the score table may take, estimated before it starts
        (:func:`tandem.bn.table.plan_table`); past it
        :class:`~tandem.bn.table.ScoreTableTimeError`. Default no limit.
        The memory limit (:func:`tandem.bn.table.default_memory_limit`, half
        the machine's total memory) covers the table and
        what order MCMC builds from it (:func:`tandem.bn.mcmc.estimate_bytes`).
    progress : bool or "always"
        True shows the bars on a terminal, and on any stderr when the score
        table is estimated at more than :data:`PROGRESS_AFTER` seconds.
    log : callable, optional
        Called with a line of text: the time estimate of a long score table,
        and each expansion round's count.
    moves : sequence or mapping, optional
        As for :func:`tandem.bn.order_mcmc` (default its own).
    replicas, hottest
        Parallel tempering: each chain runs ``replicas`` replicas at the
        inverse temperatures :func:`tandem.bn.mcmc.geometric_temperatures`
        ``(replicas, hottest)``; 1 replica runs plain order MCMC. Each
        replica costs as much as a chain.
    device : {"cpu", "cuda"}
        Where the score table is computed and the chains run (the values are
        the same on both: :func:`tandem.bn.score_table`,
        :func:`tandem.bn.order_mcmc`).
    expand : int
        Rounds of candidate expansion (:mod:`tandem.bn.expansion`, BiDAG's
        iterative MCMC): after a run, the candidates grow by the nodes that
        would improve a parent set of the MAP DAG
        (:func:`tandem.bn.search.map_dag`), and the table and chains are
        made again; the rounds stop early when nothing is added.
        ``settings["expansion_rounds"]`` records each; the timings add up
        over the rounds.

    Returns
    -------
    Learned
    """
    settings = {"score": score, "max_parents": max_parents, "candidates": candidates,
                "chains": chains, "iterations": iterations, "seed": seed}
    if device != "cpu":
        settings["device"] = device
    table_settings = {}
    if score == "bdeu":
        settings["ess"] = table_settings["ess"] = ess
    if expand:
        settings["expand"] = expand
    temperatures = geometric_temperatures(replicas, hottest)
    if replicas > 1:
        settings["temperatures"] = temperatures.tolist()
    moves = DEFAULT_MOVES if moves is None else moves
    if moves != DEFAULT_MOVES:
        settings["moves"] = moves if isinstance(moves, (dict, str)) else list(moves)
    seconds = {"score_table": 0.0, "order_mcmc": 0.0}

    def run(candidates):
        nonlocal progress
        t0 = time.perf_counter()
        plan = plan_table(data, score=score, max_parents=max_parents, candidates=candidates,
                          time_limit=time_limit, extra_bytes=lambda k, m: mcmc_bytes(
                              data.n_vars, m, k, chains=chains * replicas,
                              iterations=iterations),
                          device=device, **table_settings)
        if plan.seconds > PROGRESS_AFTER:
            if log is not None:
                log(f"score table: {plan.n_nodes} nodes x {plan.n_sets} parent sets, about "
                    f"{_duration(plan.seconds)} (estimated)")
            progress = "always" if progress is True else progress
        table = plan.compute(progress)
        t1 = time.perf_counter()
        result = order_mcmc(table, Tandem(seed).sub(PURPOSE_MCMC), chains=chains,
                            iterations=iterations, moves=moves, temperatures=temperatures,
                            progress=progress, device=device)
        seconds["score_table"] += t1 - t0
        seconds["order_mcmc"] += time.perf_counter() - t1
        return table, result

    if isinstance(candidates, str) and candidates == "pc":
        candidates = independence.pc_skeleton(data)
    table, result = run(candidates)
    rounds = []
    for _ in range(expand):
        dag = search.map_dag(table, result.chain_best_orders)[0]
        grown, added = expansion.expand_candidates(data, table, dag)
        rounds.append({"candidates_added": added,
                       "candidates_per_node_before": int(table.candidates.shape[1])})
        if log is not None:
            log(f"candidate expansion: {added} candidate parents added")
        if not added:
            break
        table, result = run(grown)
    if expand:
        settings["expansion_rounds"] = rounds
    truth = None if true_adjacency is None else np.asarray(true_adjacency, dtype=bool)
    return Learned(data, table, result, settings, seconds, truth, source)


#: The files of a report (figures only with matplotlib).
GRAPH_FILES = ("graph.dot", "graph.graphml", "cpdag.dot", "cpdag.graphml")
REPORT_FILES = ("edges.csv", "run.json") + GRAPH_FILES + FIGURES

_STAGING = ".tandem-report-"


def check_out(out):
    """Check, before a run, that the report can be written to the folder ``out``.

    ``out`` may exist (a folder: its report files are replaced, other files
    are kept) or not (its nearest existing ancestor must be a folder we can
    write in). Removes what earlier runs, killed while staging, left there.
    Returns ``out`` as a :class:`pathlib.Path`; raises ``ValueError`` naming
    ``out`` otherwise, writing nothing.
    """
    out = pathlib.Path(out)
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise ValueError(f"out must be a folder, got the file {str(out)!r}")
        for name in REPORT_FILES:
            if (out / name).is_dir():
                raise ValueError(f"out: {str(out / name)!r} is a folder; the report writes a "
                                 f"file there")
        _sweep(out)
        _probe(out)
    else:
        ancestor = out.parent
        while not (ancestor.exists() or ancestor == ancestor.parent):
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise ValueError(f"out: {str(ancestor)!r} is not a folder, so {str(out)!r} "
                             f"cannot be made")
        if ancestor == out.parent:
            _sweep(ancestor)
        _probe(ancestor)
    return out


def _probe(folder):
    """Make and remove a staging folder in ``folder``; ``ValueError`` if we cannot."""
    try:
        _make_staging(folder).rmdir()
    except OSError as error:
        raise ValueError(f"out: cannot write in {str(folder)!r} ({error.strerror})") from None


def _host():
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _make_staging(folder):
    """A new empty folder ``.tandem-report-HOST-PID-RANDOM`` in ``folder``, with the
    permissions of any new folder (so that renamed into place it is one)."""
    while True:
        path = pathlib.Path(folder) / f"{_STAGING}{_host()}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path


def _alive(pid):
    if os.name != "posix":
        return True  # no safe test: keep it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _sweep(folder):
    """Remove the staging folders in ``folder`` that a dead process of this host left."""
    for path in pathlib.Path(folder).glob(f"{_STAGING}{_host()}-*-*"):
        pid = path.name[len(_STAGING):].split("-")[1]
        if pid.isdigit() and path.is_dir() and not path.is_symlink() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


class _Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_raise():
    """While inside, SIGTERM, SIGHUP and SIGINT raise :class:`_Signalled` (in the main
    thread), so that ``finally`` clauses run; afterwards the signal is raised again for
    the handler that was there before."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT")
              if hasattr(signal, name)]
    wanted = [sig for sig in wanted if signal.getsignal(sig) not in (signal.SIG_IGN, None)]

    def handler(signum, frame):
        raise _Signalled(signum)

    previous = {sig: signal.signal(sig, handler) for sig in wanted}
    try:
        yield
    except _Signalled as caught:
        for sig, old in previous.items():
            signal.signal(sig, old)
        previous = {}
        signal.raise_signal(caught.signum)  # the handler of before: may end the process
        raise InterruptedError(f"interrupted by signal {caught.signum} while writing the "
                               f"report; nothing was written") from None
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def write_report(learned, out):
    """Write the report of ``learned`` into the folder ``out``; returns its path.

    All or nothing: every file is made in a staging folder (next to ``out``,
    or inside it when it exists) and every destination is checked before
    anything moves into ``out``; a new ``out`` is then one rename, an
    existing one has its report files replaced one by one, and put back if
    a move fails. Files of an earlier report in ``out`` are replaced (or
    removed, a figure that this report lacks); other files are kept.
    SIGTERM, SIGHUP and SIGINT remove the staging folder, and one that a
    killed process left is removed by the next report written there.
    """
    out = check_out(out)
    created = []
    with _signals_raise():
        try:
            _make_parents(out.parent, created)
            staging = _make_staging(out if out.is_dir() else out.parent)
            try:
                record = learned.summary()
                record["figures"] = _figures(learned, staging)
                _edges_csv(learned, staging / "edges.csv")
                _graph_files(learned, staging)
                files.write_text(staging / "run.json", json.dumps(record, indent=2) + "\n")
                _commit(staging, out)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            for folder in reversed(created):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise
    return out


def _make_parents(folder, created):
    """Make ``folder`` and its missing ancestors, outermost first, appending each to
    ``created``."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        created.append(path)


def _commit(staging, out):
    """Move the staged report into ``out``: all of it or, on a failure, none of it."""
    if not out.exists():
        try:
            staging.rename(out)  # one step
            return
        except OSError:
            if not out.is_dir():
                raise
    check_out(out)
    new = sorted(p.name for p in staging.iterdir())
    backup = staging / ".previous"
    backup.mkdir()
    moved_old, moved_new = [], []
    try:
        for name in REPORT_FILES:
            if os.path.lexists(out / name):
                os.replace(out / name, backup / name)
                moved_old.append(name)
        for name in new:
            os.replace(staging / name, out / name)
            moved_new.append(name)
    except BaseException:
        for name in reversed(moved_new):
            with contextlib.suppress(OSError):
                os.replace(out / name, staging / name)
        for name in reversed(moved_old):
            with contextlib.suppress(OSError):
                os.replace(backup / name, out / name)
        raise


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"):
#: a name cell that starts so is written after an apostrophe, which shows the
#: name as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(name):
    """``name`` as an ``edges.csv`` cell that no spreadsheet runs as a formula."""
    return "'" + name if name.startswith(_FORMULA_STARTS) else name


def _edges_csv(learned, path):
    names, result = [_cell(name) for name in learned.table.names], learned.mcmc
    columns = (result.edge_probabilities, result.edge_standard_errors, result.edge_ess,
               result.edge_rhat)
    with files.replacing(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["parent", "child", "probability", "se", "ess", "rhat"])
        for i, parent in enumerate(names):
            for j, child in enumerate(names):
                if i != j:
                    writer.writerow([parent, child, *(repr(float(c[i, j])) for c in columns)])


def _graph_files(learned, folder):
    names, p = learned.table.names, learned.mcmc.edge_probabilities
    dag = learned.graph()
    for stem, g in (("graph", dag), ("cpdag", graphs.cpdag(dag))):
        files.write_text(folder / f"{stem}.dot", graphs.to_dot(g, names, p) + "\n")
        graphs.write_graphml(g, folder / f"{stem}.graphml", names, p)


def _figures(learned, folder):
    """Write the PNG figures; returns their names, or why there are none."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "none: matplotlib is not installed (pip install 'tandem-streams[docs]')"
    result = learned.mcmc
    figures = {
        "traces.png": diagnostics.plot_traces(result.traces, burn_in=result.burn_in),
        "edges.png": diagnostics.plot_edge_probabilities(
            result.edge_probabilities, names=learned.table.names,
            true_adjacency=learned.true_adjacency),
    }
    if result.chain_edge_probabilities.shape[0] >= 2:  # chain against chain
        figures["chains.png"] = diagnostics.plot_chain_scatter(result.chain_edge_probabilities,
                                                               names=learned.table.names)
    for name, figure in figures.items():
        with files.replacing(folder / name, "wb") as f:
            figure.savefig(f, format="png", dpi=120, bbox_inches="tight")
        plt.close(figure)
    return list(figures)
