"""Convergence and accuracy diagnostics for structure learning, and their plots.

* :func:`rhat`: split R-hat of the order log-score traces (Gelman–Rubin).
* :func:`chain_differences`, :func:`edge_standard_errors`: edge probabilities
  of chain against chain.
* :func:`structural_hamming_distance`, :func:`edge_auroc`: an estimate
  against a known true graph.
* :func:`plot_traces`, :func:`plot_edge_probabilities`,
  :func:`plot_chain_scatter`: matplotlib figures (matplotlib is imported when
  a plot is asked for; it comes with the ``docs`` extra).

Adjacency and probability matrices are indexed ``[parent, child]``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rhat", "chain_differences", "edge_standard_errors",
           "structural_hamming_distance", "edge_auroc", "plot_traces",
           "plot_edge_probabilities", "plot_chain_scatter"]


def _traces(traces, burn_in):
    x = np.asarray(traces, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"traces must be a 2-D array (chains, draws), got shape {x.shape}")
    if isinstance(burn_in, bool) or not isinstance(burn_in, (int, np.integer)) or burn_in < 0:
        raise ValueError(f"burn_in must be a non-negative integer, got {burn_in!r}")
    return x[:, burn_in:]


def rhat(traces, *, burn_in=0):
    """Split R-hat (potential scale reduction) of one scalar traced by several chains.

    Each chain, after ``burn_in``, is cut into two halves (the middle draw of
    an odd length is dropped), and the ``2C`` half-chains of ``N`` draws go
    into Gelman and Rubin's formula (BDA3, eq. 11.4):
    ``B = N var(half-chain means)``, ``W = mean(half-chain variances)`` (both
    with ``ddof=1``), ``R = sqrt(((N - 1) / N W + B / N) / W)``.

    Parameters
    ----------
    traces : array_like, shape (chains, draws)
        For example :attr:`OrderMCMCResult.traces`.
    burn_in : int
        Leading draws of each chain to leave out.

    Returns
    -------
    float
        Near 1 when the chains agree; above about 1.01–1.1 they have not mixed.
        ``nan`` with fewer than 4 draws left per chain; ``inf`` when every
        half-chain is constant but they differ; 1.0 when all draws are equal.
    """
    x = _traces(traces, burn_in)
    half = x.shape[1] // 2
    if half < 2:
        return float("nan")
    halves = np.concatenate([x[:, :half], x[:, x.shape[1] - half:]])
    n = half
    between = n * np.var(halves.mean(axis=1), ddof=1)
    within = np.mean(np.var(halves, axis=1, ddof=1))
    if within == 0.0:
        return 1.0 if between == 0.0 else float("inf")
    return float(np.sqrt(((n - 1) / n * within + between / n) / within))


def _chain_probabilities(chain_probabilities):
    p = np.asarray(chain_probabilities, dtype=np.float64)
    if p.ndim != 3 or p.shape[1] != p.shape[2]:
        raise ValueError(f"chain_probabilities must have shape (chains, n, n), got {p.shape}")
    return p


def chain_differences(chain_probabilities):
    """Largest edge-probability difference between each pair of chains.

    Parameters
    ----------
    chain_probabilities : array_like, shape (chains, n, n)
        For example :attr:`OrderMCMCResult.chain_edge_probabilities`.

    Returns
    -------
    numpy.ndarray, shape (chains, chains)
        ``out[a, b] = max_edges |p_a - p_b|``; zero on the diagonal.
    """
    p = _chain_probabilities(chain_probabilities)
    flat = p.reshape(p.shape[0], -1)
    return np.abs(flat[:, None, :] - flat[None, :, :]).max(axis=2, initial=0.0)


def edge_standard_errors(chain_probabilities):
    """Monte Carlo standard error of each pooled edge probability, from the spread of the chains.

    ``sd(chain estimates, ddof=1) / sqrt(chains)``: valid when the chains are
    independent and of equal length; needs at least two chains.

    Returns
    -------
    numpy.ndarray, shape (n, n)
    """
    p = _chain_probabilities(chain_probabilities)
    if p.shape[0] < 2:
        raise ValueError("edge_standard_errors needs at least two chains")
    return p.std(axis=0, ddof=1) / np.sqrt(p.shape[0])


def _square(a, name, n=None):
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or (n is not None and a.shape[0] != n):
        want = "a square matrix" if n is None else f"a {n} x {n} matrix"
        raise ValueError(f"{name} must be {want}, got shape {a.shape}")
    return a


def _adjacency(a, name, n=None):
    a = _square(a, name, n)
    if a.dtype != np.bool_:
        if not np.all((a == 0) | (a == 1)):
            raise ValueError(f"{name} must hold only 0 and 1 (threshold probabilities first)")
        a = a.astype(bool)
    if np.any(np.diag(a)):
        raise ValueError(f"{name} has a self-loop on its diagonal")
    return a


def structural_hamming_distance(estimated, true):
    """Structural Hamming distance between two directed graphs (DAGs, not CPDAGs).

    The number of unordered node pairs ``{u, v}`` whose edges differ: an edge
    missing, an edge extra, or an edge reversed each count once. The graphs
    are compared as DAGs: two Markov-equivalent DAGs that orient an edge
    differently are at a positive distance.

    Parameters
    ----------
    estimated, true : array_like of bool or 0/1, shape (n, n)
        Adjacency ``[parent, child]``. To score edge probabilities, threshold
        them first (for example ``probabilities > 0.5``).

    Returns
    -------
    int
    """
    t = _adjacency(true, "true")
    e = _adjacency(estimated, "estimated", t.shape[0])
    upper = np.triu(np.ones_like(t), k=1)
    differ = ((e != t) | (e.T != t.T)) & upper
    return int(differ.sum())


def edge_auroc(probabilities, true_adjacency, *, directed=True):
    """Area under the ROC curve of edge probabilities against the true edges.

    Parameters
    ----------
    probabilities : array_like, shape (n, n)
        Scores ``[parent, child]``, for example
        :attr:`OrderMCMCResult.edge_probabilities`.
    true_adjacency : array_like of bool or 0/1, shape (n, n)
    directed : bool
        True: the ``n (n - 1)`` ordered pairs, an edge ``u -> v`` positive
        when the true graph holds ``u -> v``. False: the ``n (n - 1) / 2``
        unordered pairs scored by ``p[u, v] + p[v, u]``, positive when the
        true graph joins them either way (skeleton recovery).

    Returns
    -------
    float
        The probability that a random true edge outscores a random non-edge,
        ties counting one half (the Mann–Whitney statistic; equal to
        scikit-learn's ``roc_auc_score``). ``nan`` when there are no true
        edges or no non-edges.
    """
    t = _adjacency(true_adjacency, "true_adjacency")
    p = _square(probabilities, "probabilities", t.shape[0]).astype(np.float64)
    if np.isnan(p[~np.eye(t.shape[0], dtype=bool)]).any():
        raise ValueError("probabilities holds NaN off the diagonal")
    if directed:
        off = ~np.eye(t.shape[0], dtype=bool)
        scores, labels = p[off], t[off]
    else:
        iu = np.triu_indices(t.shape[0], k=1)
        scores, labels = (p + p.T)[iu], (t | t.T)[iu]
    positives = int(labels.sum())
    negatives = labels.size - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    # midranks of the scores: ties share the mean of their ranks
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    ranks = np.empty(scores.size)
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    ends = np.r_[starts[1:], scores.size]
    for s, e in zip(starts, ends):
        ranks[order[s:e]] = 0.5 * (s + e - 1) + 1.0
    u = ranks[labels].sum() - positives * (positives + 1) / 2.0
    return float(u / (positives * negatives))


# -- plots --------------------------------------------------------------------

def _figure(**kwargs):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError("plots need matplotlib: pip install 'tandem-rng[docs]'") from e
    return Figure(**kwargs)


def plot_traces(traces, *, burn_in=None, title="order log score"):
    """One line per chain of a traced scalar against the iteration.

    Parameters
    ----------
    traces : array_like, shape (chains, iterations)
    burn_in : int, optional
        Drawn as a vertical line, and the R-hat after it goes into the title.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    x = _traces(traces, 0)
    fig = _figure(figsize=(7.0, 3.5), layout="constrained")
    ax = fig.subplots()
    for c in range(x.shape[0]):
        ax.plot(np.arange(x.shape[1]), x[c], lw=0.6, label=f"chain {c}")
    if burn_in is not None:
        ax.axvline(burn_in, color="k", ls="--", lw=0.8)
        title = f"{title} (split R-hat after burn-in {rhat(x, burn_in=burn_in):.3f})"
    ax.set_xlabel("iteration")
    ax.set_ylabel("log score")
    ax.set_title(title)
    if x.shape[0] <= 8:
        ax.legend(fontsize="small", ncol=min(x.shape[0], 4))
    return fig


def plot_edge_probabilities(probabilities, *, names=None, true_adjacency=None,
                            title="edge posterior probabilities"):
    """Heatmap of edge probabilities, parents in rows and children in columns.

    Parameters
    ----------
    probabilities : array_like, shape (n, n)
    names : sequence of str, optional
        Node names for the ticks.
    true_adjacency : array_like, shape (n, n), optional
        True edges are outlined.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    p = _square(probabilities, "probabilities").astype(np.float64)
    n = p.shape[0]
    side = min(12.0, 3.0 + 0.25 * n)
    fig = _figure(figsize=(side + 1.0, side), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(p, vmin=0.0, vmax=1.0, cmap="viridis")
    fig.colorbar(image, ax=ax, label="probability")
    if true_adjacency is not None:
        t = _adjacency(true_adjacency, "true_adjacency", n)
        rows, cols = np.nonzero(t)
        ax.scatter(cols, rows, s=max(4.0, 120.0 / max(n, 1)), facecolors="none",
                   edgecolors="r", linewidths=0.8, label="true edge")
        ax.legend(loc="upper right", fontsize="small")
    if names is not None and len(names) == n and n <= 60:
        ax.set_xticks(range(n), names, rotation=90, fontsize="x-small")
        ax.set_yticks(range(n), names, fontsize="x-small")
    ax.set_xlabel("child")
    ax.set_ylabel("parent")
    ax.set_title(title)
    return fig


def plot_chain_scatter(chain_probabilities, *, title="edge probabilities, chain against chain"):
    """Each chain's edge probabilities against the mean of the other chains.

    Points on the diagonal mean the chains agree.

    Parameters
    ----------
    chain_probabilities : array_like, shape (chains, n, n)
        At least two chains.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    p = _chain_probabilities(chain_probabilities)
    chains = p.shape[0]
    if chains < 2:
        raise ValueError("plot_chain_scatter needs at least two chains")
    off = ~np.eye(p.shape[1], dtype=bool)
    fig = _figure(figsize=(4.5, 4.5), layout="constrained")
    ax = fig.subplots()
    total = p.sum(axis=0)
    for c in range(chains):
        others = (total - p[c]) / (chains - 1)
        ax.scatter(others[off], p[c][off], s=8, alpha=0.6, label=f"chain {c}")
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("mean of the other chains")
    ax.set_ylabel("chain")
    ax.set_title(title)
    if chains <= 8:
        ax.legend(fontsize="small")
    return fig
