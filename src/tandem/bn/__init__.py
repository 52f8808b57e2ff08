"""Bayesian network structure learning by order MCMC.

* Data: :class:`Dataset` (discrete codes with arities, or Gaussian floats),
  from a pandas DataFrame, a CSV file or arrays.
* Networks: :func:`read_bif`, :func:`load_network` (the small bnlearn networks
  shipped with tandem), :meth:`Network.sample` (forward sampling on tandem
  streams).
* Scores: BDeu, K2, BIC (discrete) and BGe (Gaussian), :func:`local_score`.
* :func:`score_table`: every parent set of at most ``max_parents`` nodes, for
  every node, indexed by the combinatorial number system
  (:mod:`tandem.bn.combinations`).
* :func:`order_mcmc`: Friedman and Koller's order MCMC on split streams.
* :func:`exact_edge_posteriors`: Koivisto and Sood's dynamic program, the
  reference for small networks.
* :func:`map_dag`: the highest-scoring DAG, exactly up to 20 nodes.
* :mod:`tandem.bn.independence`: the G² test and the PC-stable skeleton,
  candidate parents for :func:`score_table`.
* :mod:`tandem.bn.pruning`: parent sets dominated by a subset, and tables
  without the candidates only those use.
* :mod:`tandem.bn.expansion`: candidates grown from a run's MAP DAG
  (BiDAG's iterative MCMC).
* :mod:`tandem.bn.graphs`: CPDAGs, an acyclic graph of the likely edges,
  export to DOT, GraphML and networkx.
* :mod:`tandem.bn.diagnostics` (R-hat, errors, SHD, AUROC, figures) and
  :mod:`tandem.bn.report` (the pipeline and report folder of
  ``tandem bn learn``).
"""

# name -> submodule; imported on first use, so ``import tandem.bn`` stays light.
_EXPORTS = {
    "Dataset": "data",
    "Network": "network",
    "read_bif": "network",
    "load_network": "network",
    "NETWORKS": "network",
    "SCORES": "scores",
    "local_score": "scores",
    "ScoreTable": "table",
    "score_table": "table",
    "order_mcmc": "mcmc",
    "OrderMCMCResult": "mcmc",
    "exact_edge_posteriors": "exact",
    "structural_hamming_distance": "diagnostics",
    "edge_auroc": "diagnostics",
    "rhat": "diagnostics",
    "cpdag": "graphs",
    "thresholded_dag": "graphs",
    "map_dag": "search",
    "prune": "pruning",
}


_SUBMODULES = ("combinations", "data", "diagnostics", "exact", "graphs", "mcmc", "network",
               "report", "scores", "search", "table", "independence", "expansion", "pruning")


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name in _EXPORTS:
        import importlib

        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS)
