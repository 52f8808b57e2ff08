"""Convergence and accuracy diagnostics for structure learning, and their plots.

* :func:`rhat`: split R-hat of the order log-score traces (Gelman–Rubin).
* :func:`ranked_rhat`, :func:`batch_means_errors`, :func:`pooled_ess`:
  rank-normalised split R-hat (Vehtari et al. 2021), and the Monte Carlo
  standard error and effective sample size of a mean by batch means, for
  many quantities at once (the edges) or for one trace (the order scores).
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

import statistics

import numpy as np

from .._types import ArrayLike

__all__ = ["rhat", "ranked_rhat", "batch_means_errors", "pooled_ess", "chain_differences",
           "edge_standard_errors",
           "structural_hamming_distance", "edge_auroc", "plot_traces",
           "plot_edge_probabilities", "plot_chain_scatter"]


def _traces(traces, burn_in):
    x = np.asarray(traces, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"traces must be a 2-D array (chains, draws), got shape {x.shape}")
    if isinstance(burn_in, bool) or not isinstance(burn_in, (int, np.integer)) or burn_in < 0:
        raise ValueError(f"burn_in must be a non-negative integer, got {burn_in!r}")
    return x[:, burn_in:]


def rhat(traces: ArrayLike, *, burn_in: int = 0) -> float:
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

    Examples
    --------
    >>> import numpy as np
    >>> import tandem
    >>> from tandem import bn
    >>> draws, _ = tandem.Philox(3).random(400)
    >>> round(bn.rhat(draws.reshape(4, 100)), 3)       # four chains of the same law
    0.994
    >>> round(bn.rhat(np.vstack([draws[:100], draws[100:200] + 1])), 3)   # two that differ
    2.088
    >>> bn.rhat(np.ones((2, 10)))
    1.0
    """
    x = _traces(traces, burn_in)
    half = x.shape[1] // 2
    if half < 2:
        return float("nan")
    halves = np.concatenate([x[:, :half], x[:, x.shape[1] - half:]])
    return float(_gelman_rubin(halves[:, :, None])[0])


def _gelman_rubin(x):
    """Gelman and Rubin's R-hat over axis 1 of ``x`` (sequences, draws,
    quantities), each quantity alone (BDA3, eq. 11.4): 1.0 where every draw
    is equal, ``inf`` where the sequences are constant but differ."""
    n = x.shape[1]
    between = n * np.var(x.mean(axis=1), axis=0, ddof=1)
    within = np.mean(np.var(x, axis=1, ddof=1), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(((n - 1) / n * within + between / n) / within)
    return np.where(within > 0, r, np.where(between > 0, np.inf, 1.0))


def _average_ranks(x):
    """Ranks 1 .. S down axis 0 of the 2-D ``x``, tied values sharing their
    average rank (whole or half)."""
    s = x.shape[0]
    order = np.argsort(x, axis=0, kind="stable")
    ordered = np.take_along_axis(x, order, axis=0)
    position = np.broadcast_to(np.arange(s)[:, None], x.shape)
    starts = np.ones(x.shape, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    ends = np.ones(x.shape, dtype=bool)
    ends[:-1] = starts[1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    last = np.minimum.accumulate(np.where(ends, position, s - 1)[::-1], axis=0)[::-1]
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=0)
    return ranks


def _normal_scores(x):
    """Blom's normal scores ``Phi^-1((r - 3/8) / (S + 1/4))`` of the average
    ranks ``r`` down axis 0 of the 2-D ``x`` (``S`` rows)."""
    s = x.shape[0]
    inverse = statistics.NormalDist().inv_cdf
    scores = np.array([inverse((h / 2 - 0.375) / (s + 0.25)) for h in range(2, 2 * s + 1)])
    return scores[(2 * _average_ranks(x)).astype(np.int64) - 2]


def ranked_rhat(draws):
    """Rank-normalised split R-hat (Vehtari, Gelman, Simpson, Carpenter and
    Bürkner 2021) of each quantity traced by several chains.

    All draws of a quantity (every half-chain pooled) are replaced by the
    normal scores of their ranks, ties by their average rank, and split
    R-hat (:func:`rhat`) is computed on those ("bulk") and on the scores of
    the draws folded about their median (``|x - median|``, "tail"); the
    result is the larger of the two.

    Parameters
    ----------
    draws : array_like, shape (chains, draws, ...)
        Each quantity's draws (or batch means) per chain, in order.

    Returns
    -------
    numpy.ndarray, shape ``draws.shape[2:]``
        Near 1 where the chains agree (Vehtari et al. advise more draws above
        1.01); 1.0 where every draw is equal; ``inf`` where the half-chains
        are each constant but differ; NaN with fewer than 4 draws a chain.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(1).normal(size=(4, 200, 2))
    >>> x[3, :, 1] += 2.0  # chain 3 stuck elsewhere for the second quantity
    >>> r = ranked_rhat(x)
    >>> bool(r[0] < 1.02), bool(r[1] > 1.1)
    (True, True)
    """
    x = np.asarray(draws, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"draws must have shape (chains, draws, ...), got {x.shape}")
    shape = x.shape[2:]
    chains, n = x.shape[:2]
    half = n // 2
    if half < 2:
        return np.full(shape, np.nan)
    x = x.reshape(chains, n, -1)
    halves = np.concatenate([x[:, :half], x[:, n - half:]]).reshape(2 * chains * half, -1)
    bulk = _normal_scores(halves)
    tail = _normal_scores(np.abs(halves - np.median(halves, axis=0)))
    each = [_gelman_rubin(z.reshape(2 * chains, half, -1)) for z in (bulk, tail)]
    return np.maximum(*each).reshape(shape)


def batch_means_errors(batch_means, batch_size, samples, variance):
    """Monte Carlo standard error and effective sample size of the pooled mean
    of equally long chains, by batch means.

    Chain ``c``'s asymptotic variance is estimated as ``batch_size`` times the
    variance (``ddof=1``) of its ``a`` batch means; its mean's squared error
    is that over ``samples``; the pooled mean (the chains' average) has the
    average of those over the number of chains. The batches must be long
    against the chains' autocorrelation, for which :func:`ranked_rhat` of the
    same batch means is a check.

    Parameters
    ----------
    batch_means : array_like, shape (chains, a, ...)
        Means of ``a`` consecutive, non-overlapping batches of ``batch_size``
        samples each, per chain and quantity.
    batch_size : int
    samples : int
        Samples per chain that the pooled mean averages (at least
        ``a * batch_size``).
    variance : array_like, shape ``batch_means.shape[2:]``
        Each quantity's variance under the target (for an edge indicator of
        probability ``p``, ``p (1 - p)``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The standard errors, NaN with fewer than 2 batches; and the effective
        sample sizes ``variance / se**2`` (NaN where the variance is 0, inf
        where only the standard error is).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(2).normal(size=(4, 3200))  # independent draws
    >>> means = x.reshape(4, 32, 100).mean(axis=2)
    >>> se, ess = batch_means_errors(means, 100, 3200, 1.0)
    >>> bool(0.8 < ess / 12800 < 1.25)
    True
    """
    y = np.asarray(batch_means, dtype=np.float64)
    variance = np.asarray(variance, dtype=np.float64)
    chains, a = y.shape[:2]
    if a < 2:
        se = np.full(y.shape[2:], np.nan)
    else:
        per_chain = batch_size * np.var(y, axis=1, ddof=1) / samples
        se = np.sqrt(per_chain.sum(axis=0)) / chains
    with np.errstate(divide="ignore", invalid="ignore"):
        ess = np.where(variance > 0, variance / se**2, np.nan)
    return se, ess


def pooled_ess(traces: ArrayLike) -> float:
    """Effective sample size of the pooled mean of a quantity traced by several
    chains, by batch means of ``floor(sqrt(n))`` draws (:func:`batch_means_errors`).

    Parameters
    ----------
    traces : array_like, shape (chains, n)
        The quantity's draws per chain, in order (for order MCMC, the kept
        orders' log scores).

    Returns
    -------
    float
        Between 0 and ``chains * n``: the independent draws the chains are
        worth for this quantity (at most their number); ``chains * n`` where
        every draw is equal, NaN with fewer than 2 batches a chain or a
        non-finite draw.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(3).normal(size=(4, 2500))
    >>> bool(0.8 < pooled_ess(x) / 10_000 <= 1.0)
    True
    >>> for t in range(1, 2500):  # AR(1) of coefficient 0.9: worth about 10_000 / 19 draws
    ...     x[:, t] += 0.9 * x[:, t - 1]
    >>> bool(350 < pooled_ess(x) < 800)
    True
    """
    x = np.asarray(traces, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"traces must have shape (chains, n), got {x.shape}")
    chains, n = x.shape
    size = max(int(np.sqrt(n)), 1)
    batches = n // size
    if batches < 2 or not np.all(np.isfinite(x)):
        return float("nan")
    variance = float(x.var(ddof=1))
    if variance == 0.0:
        return float(chains * n)
    means = x[:, :batches * size].reshape(chains, batches, size).mean(axis=2)
    _, ess = batch_means_errors(means, size, n, variance)
    return float(min(ess, chains * n))


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


def structural_hamming_distance(estimated: ArrayLike, true: ArrayLike) -> int:
    """Structural Hamming distance between two directed graphs (DAGs, not CPDAGs).

    The number of unordered node pairs ``{u, v}`` whose edges differ: an edge
    missing, an edge extra, or an edge reversed each count once. The graphs
    are compared as DAGs: two Markov-equivalent DAGs that orient an edge
    differently are at a positive distance.

    Parameters
    ----------
    estimated : array_like of bool or 0/1, shape (n, n)
        Adjacency ``[parent, child]``. To score edge probabilities, threshold
        them first (for example ``probabilities > 0.5``).
    true : array_like of bool or 0/1, shape (n, n)
        The adjacency ``[parent, child]`` to compare with, of the same shape.

    Returns
    -------
    int
        The number of node pairs whose edges differ, from 0 to
        ``n (n - 1) / 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from tandem import bn
    >>> true = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)       # 0 -> 1 -> 2
    >>> estimated = np.array([[0, 0, 1], [1, 0, 1], [0, 0, 0]], dtype=bool)  # 1 -> 0, extra 0 -> 2
    >>> bn.structural_hamming_distance(estimated, true)
    2
    >>> bn.structural_hamming_distance(true.T, true)      # every edge reversed: Markov equivalent
    2
    """
    t = _adjacency(true, "true")
    e = _adjacency(estimated, "estimated", t.shape[0])
    upper = np.triu(np.ones_like(t), k=1)
    differ = ((e != t) | (e.T != t.T)) & upper
    return int(differ.sum())


def edge_auroc(probabilities: ArrayLike, true_adjacency: ArrayLike, *,
               directed: bool = True) -> float:
    """Area under the ROC curve of edge probabilities against the true edges.

    Parameters
    ----------
    probabilities : array_like, shape (n, n)
        Scores ``[parent, child]``, for example
        :attr:`OrderMCMCResult.edge_probabilities`.
    true_adjacency : array_like of bool or 0/1, shape (n, n)
        The true graph, ``[parent, child]``.
    directed : bool, default True
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

    Examples
    --------
    >>> import numpy as np
    >>> from tandem import bn
    >>> true = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    >>> p = np.array([[0, .9, .2], [.3, 0, .3], [.1, .4, 0]])
    >>> bn.edge_auroc(p, true)     # 1 -> 2 (0.3) ties 1 -> 0 and loses to 2 -> 1
    0.8125
    >>> bn.edge_auroc(p, true, directed=False)
    1.0
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
        raise ImportError("plots need matplotlib: pip install 'tandem-streams[docs]'") from e
    return Figure(**kwargs)


def plot_traces(traces, *, burn_in=None, title="order log score"):
    """One line per chain of a traced scalar against the iteration; with a
    burn-in, a second panel shows the draws after it alone, on their own
    scale, where mixing can be judged.

    Parameters
    ----------
    traces : array_like, shape (chains, iterations)
    burn_in : int, optional
        Drawn as a vertical line; the R-hat after it goes into the title.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    x = _traces(traces, 0)
    after = burn_in is not None and 0 < burn_in < x.shape[1] - 1
    fig = _figure(figsize=(7.0, 6.0 if after else 3.5), layout="constrained")
    axes = fig.subplots(2 if after else 1, 1, squeeze=False)[:, 0]
    if burn_in is not None:
        title = f"{title} (split R-hat after burn-in {rhat(x, burn_in=burn_in):.3f})"
    spans = [(0, x.shape[1], "all iterations")] + ([(burn_in, x.shape[1], "after burn-in")]
                                                   if after else [])
    for ax, (start, stop, what) in zip(axes, spans):
        t = np.arange(start, stop)
        for c in range(x.shape[0]):
            ax.plot(t, x[c, start:stop], lw=0.6, label=f"chain {c}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("log score")
        ax.set_title(f"{title}: {what}" if after else title, fontsize="medium")
    if burn_in is not None:
        axes[0].axvline(burn_in, color="k", ls="--", lw=0.8)
    if x.shape[0] <= 8:
        axes[-1].legend(fontsize="small", ncol=min(x.shape[0], 4))
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
        The true edges, marked by what became of them: found (probability
        above 0.5), found reversed, or missed; and the edges found that are
        not true in either direction. The legend counts each.
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
    image = ax.imshow(p, vmin=0.0, vmax=1.0, cmap="Greys")
    fig.colorbar(image, ax=ax, label="probability")
    if true_adjacency is not None:
        t = _adjacency(true_adjacency, "true_adjacency", n)
        found = p > 0.5
        cell = 0.8 * 72.0 * side / max(n, 1)  # points a cell, roughly
        size = max(6.0, (0.6 * cell) ** 2)
        kinds = (
            (t & found, "o", "tab:green", "true edge, found (p > 0.5)"),
            (t & ~found & found.T, "s", "tab:orange", "true edge, found reversed"),
            (t & ~found & ~found.T, "o", "tab:red", "true edge, missed"),
            (found & ~t & ~t.T, "x", "tab:blue", "found, not a true edge"),
        )
        for where, marker, colour, label in kinds:
            rows, cols = np.nonzero(where)
            if rows.size:
                colours = ({"c": colour} if marker == "x"  # a line marker: no faces
                           else {"facecolors": "none", "edgecolors": colour})
                ax.scatter(cols, rows, s=size, marker=marker, linewidths=1.0,
                           label=f"{label} ({rows.size})", **colours)
        fig.legend(loc="outside lower center", ncol=2, fontsize="small")
    if names is not None and len(names) == n and n <= 60:
        ax.set_xticks(range(n), names, rotation=90, fontsize="x-small")
        ax.set_yticks(range(n), names, fontsize="x-small")
    ax.set_xlabel("child")
    ax.set_ylabel("parent")
    ax.set_title(title)
    return fig


def plot_chain_scatter(chain_probabilities, *, names=None, label=5,
                       title="edge probabilities, chain against chain"):
    """Each chain's edge probabilities against the mean of the other chains.

    Points on the diagonal mean the chains agree; the ``label`` edges on
    which the chains disagree most (the largest spread between chains) are
    named next to their points.

    Parameters
    ----------
    chain_probabilities : array_like, shape (chains, n, n)
        At least two chains.
    names : sequence of str, optional
        Node names, for the labels (``parent -> child``); indices otherwise.
    label : int
        How many of the most disputed edges to name.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    p = _chain_probabilities(chain_probabilities)
    chains, n = p.shape[0], p.shape[1]
    if chains < 2:
        raise ValueError("plot_chain_scatter needs at least two chains")
    names = [str(i) for i in range(n)] if names is None else [str(x) for x in names]
    off = ~np.eye(n, dtype=bool)
    fig = _figure(figsize=(5.5, 5.5), layout="constrained")
    ax = fig.subplots()
    total = p.sum(axis=0)
    for c in range(chains):
        others = (total - p[c]) / (chains - 1)
        ax.scatter(others[off], p[c][off], s=8, alpha=0.6, label=f"chain {c}")
    spread = np.where(off, p.max(axis=0) - p.min(axis=0), -1.0)
    disputed = []
    for index in np.argsort(spread, axis=None, kind="stable")[::-1][:label]:
        a, b = np.unravel_index(index, (n, n))
        if spread[a, b] <= 0:
            break
        disputed.append(f"{len(disputed) + 1}: {names[a]} -> {names[b]} "
                        f"(chains {p[:, a, b].min():.2f} to {p[:, a, b].max():.2f})")
        c = int(np.argmax(np.abs(p[:, a, b] - p[:, a, b].mean())))
        x = (total[a, b] - p[c, a, b]) / (chains - 1)
        ax.annotate(str(len(disputed)), (x, p[c, a, b]), fontsize="small", weight="bold",
                    xytext=(3, 3), textcoords="offset points")
    if disputed:
        ax.text(0.02, 0.98, "most disputed edges\n" + "\n".join(disputed),
                transform=ax.transAxes, va="top", fontsize="x-small",
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "0.8"})
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("mean of the other chains")
    ax.set_ylabel("chain")
    ax.set_title(title)
    if chains <= 8:
        ax.legend(fontsize="small", loc="lower right")
    return fig
