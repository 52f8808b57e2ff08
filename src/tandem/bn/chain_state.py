"""The typed records of an order-MCMC chain, as its kernels take them.

A call of the chains' kernel runs a :class:`Schedule` of iterations on each
chain's :class:`Draws`, carrying its :class:`Chain` (the checkpoint's
arrays); within the call each replica is a :class:`Replica`, and a rejected
move puts back what :class:`Saved` holds.  Plain ``NamedTuple`` records of
scalars and arrays, so that Numba types them by field.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Schedule", "Draws", "Chain", "Replica", "Saved"]


class Schedule(NamedTuple):
    """What one call of the chains' kernel runs: iterations ``t0 .. t1 - 1``, the
    orders kept (from ``burn_in``, every ``thin``-th, ``dags`` DAGs sampled from
    each), the moves' cumulative probabilities ``cum``, the replicas' inverse
    temperatures ``betas`` and the swap interval."""

    t0: int
    t1: int
    burn_in: int
    thin: int
    dags: int
    swap_every: int
    cum: np.ndarray
    betas: np.ndarray


class Draws(NamedTuple):
    """The uniforms of these iterations (with a leading chain axis in :func:`_advance`):
    four a replica and iteration, one a swap, ``n`` a sampled DAG."""

    moves: np.ndarray
    swaps: np.ndarray
    dags: np.ndarray


class Chain(NamedTuple):
    """What a chain carries from call to call: the checkpoint's arrays
    (:func:`tandem.bn.checkpoint.array_fields`), one chain's slice of each."""

    orders: np.ndarray
    best_score: np.ndarray
    best_order: np.ndarray
    trace: np.ndarray
    proposed: np.ndarray
    accepted: np.ndarray
    swaps_proposed: np.ndarray
    swaps_accepted: np.ndarray
    edge_counts: np.ndarray
    edge_given_order: np.ndarray
    n_kept: np.ndarray
    batch_counts: np.ndarray


class Replica(NamedTuple):
    """A replica's order, the nodes' positions in it, their node scores and the
    scores' exact sums (:func:`tandem.bn.node_sums.node_score`)."""

    order: np.ndarray
    pos: np.ndarray
    node_scores: np.ndarray
    sums: np.ndarray


class Saved(NamedTuple):
    """What a rejected move puts back: the order, node scores and sums it changed."""

    order: np.ndarray
    scores: np.ndarray
    sums: np.ndarray
