"""Checkpoints of order MCMC: the chains' state in one ``.npz`` file, and its
checks on resume.

:func:`save_state` writes the state after ``done`` iterations (through a temporary
file moved into place); :func:`load_state` reads it back for the same table and
settings, checking every field (its dtype and shape, the counters against
the iterations, the orders against their recorded scores) so that a damaged
or foreign file is refused with a ``ValueError`` that names the field, and a
resumed run equals the uninterrupted one bit for bit.
"""

from __future__ import annotations

import json
import os

import numpy as np

from .. import files
from . import node_sums, order_moves
from .order_moves import BATCHES, MOVES
from .table import candidate_matrix, per_edge

#: The layout of the file; a checkpoint of another version is refused.
VERSION = 4


def save_state(path, state, settings, fingerprint):
    with files.replacing(path, "wb") as f:
        np.savez(f, version=VERSION, fingerprint=fingerprint,
                 settings=json.dumps(settings, sort_keys=True), **state)


def array_fields(chains, n, m, done, replicas=1):
    """The arrays of a checkpoint: ``{name: (dtype, shape)}`` for ``chains`` chains of
    ``replicas`` replicas of ``n`` nodes with ``m`` candidate slots that ran ``done``
    iterations."""
    i8, f8 = np.dtype(np.int64), np.dtype(np.float64)
    return {
        "orders": (i8, (chains, replicas, n)), "best_order": (i8, (chains, n)),
        "swaps_proposed": (i8, (chains, replicas - 1)),
        "swaps_accepted": (i8, (chains, replicas - 1)),
        "best_score": (f8, (chains,)), "trace": (f8, (chains, done)),
        "proposed": (i8, (chains, len(MOVES))), "accepted": (i8, (chains, len(MOVES))),
        "edge_counts": (i8, (chains, n, n)), "edge_given_order": (f8, (chains, n, n)),
        "n_kept": (i8, (chains,)), "batch_counts": (np.dtype(np.int32), (chains, 2 * BATCHES, n, m)),
    }


_HEADER_FIELDS = ("version", "fingerprint", "settings", "done")


class _Refusal:
    """Raises the ``ValueError`` of a checkpoint that cannot be resumed, naming ``resume``."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __call__(self, field, why):
        where = f"field {field!r}: " if field else ""
        raise ValueError(f"resume: {self.path}: {where}{why}")


def resume_path(resume):
    """``resume`` as a path (a ``TypeError`` naming ``resume`` otherwise)."""
    try:
        return os.fspath(resume)
    except TypeError:
        raise TypeError(f"resume must be the path of a checkpoint (a str or os.PathLike), "
                        f"got {type(resume).__name__}") from None


def _read_checkpoint(path, refuse, most_bytes):
    """The arrays of the ``.npz`` file ``path``, checked to be exactly the fields of a
    checkpoint and to hold at most ``most_bytes`` (before anything is read)."""
    try:
        f = np.load(path, allow_pickle=False)
    except Exception as error:  # any failure to open or parse: damaged, empty, not npz
        refuse(None, f"cannot be read as an order-MCMC checkpoint "
                     f"({type(error).__name__}: {error})")
    if not isinstance(f, np.lib.npyio.NpzFile):
        refuse(None, "is not an order-MCMC checkpoint (an .npz file)")
    with f:
        names = set(f.files)
        wanted = set(_HEADER_FIELDS) | set(array_fields(0, 0, 0, 0, 0))
        if names - wanted or wanted - names:
            refuse(None, f"is not an order-MCMC checkpoint of version {VERSION}: "
                         f"missing fields {sorted(wanted - names)}, unknown fields "
                         f"{sorted(names - wanted)}")
        size = sum(info.file_size for info in f.zip.infolist())
        if size > most_bytes:
            refuse(None, f"holds {size} bytes, more than the {most_bytes} that a checkpoint "
                         f"of these chains and iterations can")
        data = {}
        for name in sorted(names):
            try:
                data[name] = f[name]
            except Exception as error:  # a damaged member: CRC, truncation, pickled data
                refuse(name, f"cannot be read ({type(error).__name__}: {error})")
    return data


def _scalar(data, name, kind, refuse):
    """The 0-d field ``name`` as a Python value; ``kind`` is "int" or "str"."""
    a = data[name]
    good = a.shape == () and (a.dtype.kind in "iu" if kind == "int" else a.dtype.kind == "U")
    if not good:
        refuse(name, f"must be a single {kind}, got {a.dtype} with shape {a.shape}")
    return int(a) if kind == "int" else str(a)


def _checked_settings(data, settings, burn_in_given, refuse):
    """Compare the checkpoint's settings with ``settings`` (taking its burn-in when none
    was given)."""
    try:
        theirs = json.loads(_scalar(data, "settings", "str", refuse))
    except json.JSONDecodeError as error:
        refuse("settings", f"is not JSON ({error})")
    if not isinstance(theirs, dict):
        refuse("settings", f"must be a JSON object, got {type(theirs).__name__}")
    if not burn_in_given and "burn_in" in theirs:
        b = theirs["burn_in"]
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            refuse("settings", f"burn_in must be a non-negative integer, got {b!r}")
        settings["burn_in"] = b
    differ = sorted(key for key in set(settings) | set(theirs)
                    if settings.get(key) != theirs.get(key))
    if differ:
        details = "; ".join(f"{key}: checkpoint {theirs.get(key)!r}, now {settings.get(key)!r}"
                            for key in differ)
        refuse(None, f"was written with other settings ({details})")


def _checked_arrays(data, chains, n, m, done, replicas, refuse):
    """The state arrays, each of its dtype and shape, as fresh writable copies."""
    state = {}
    for name, (dtype, shape) in array_fields(chains, n, m, done, replicas).items():
        a = data[name]
        if a.dtype != dtype or a.shape != shape:
            refuse(name, f"must be {dtype} with shape {shape}, got {a.dtype} with shape "
                         f"{a.shape}")
        state[name] = np.array(a)
    return state


def _n_kept(done, burn_in, thin):
    """Orders kept in iterations ``0 .. done - 1``."""
    return max(0, -(-(done - burn_in) // thin))


def _check_counts(state, n, done, settings, allowed, refuse, candidates):
    """The counters: proposals, acceptances, kept orders, edge counts and their batches."""
    proposed, accepted = state["proposed"], state["accepted"]
    per_chain = done if n >= 2 else 0
    if np.any(proposed < 0) or np.any(proposed.sum(axis=1) != per_chain):
        refuse("proposed", f"must be non-negative and sum to {per_chain} proposals per chain")
    if np.any(accepted < 0) or np.any(accepted > proposed):
        refuse("accepted", "must lie between 0 and the proposals of each move")
    rounds = done // settings["swap_every"] if n >= 2 else 0
    pairs = np.arange(len(settings["temperatures"]) - 1)
    offered = (rounds - pairs % 2 + 1) // 2  # the rounds of pair r's parity
    if not np.array_equal(state["swaps_proposed"], np.broadcast_to(
            offered, state["swaps_proposed"].shape)):
        refuse("swaps_proposed", f"must be {offered.tolist()} for {done} iterations")
    if np.any(state["swaps_accepted"] < 0) or np.any(state["swaps_accepted"] > offered):
        refuse("swaps_accepted", "must lie between 0 and the swaps offered")
    kept = _n_kept(done, settings["burn_in"], settings["thin"])
    if np.any(state["n_kept"] != kept):
        refuse("n_kept", f"must be {kept} for {done} iterations, got "
                         f"{state['n_kept'].tolist()}")
    most = kept * settings["dags_per_order"]
    counts = state["edge_counts"]
    if np.any(counts < 0) or np.any(counts > most) or np.any(counts[:, ~allowed]):
        refuse("edge_counts", f"must lie in 0 .. {most}, zero where the table allows no edge")
    batches = state["batch_counts"]
    used = -(-kept // order_moves.batch_size(max(kept - 1, 0)))
    if np.any(batches < 0) or np.any(batches[:, used:]) or np.any(
            batches[:, :, candidates < 0]) or not np.array_equal(
            per_edge(batches.sum(axis=1), candidates, 0), counts):
        refuse("batch_counts", f"must be non-negative, zero past batch {used} and on "
                               f"padding, and sum to edge_counts")
    given = state["edge_given_order"]
    if not (np.all(np.isfinite(given)) and np.all(given >= 0)
            and np.all(given <= kept * (1 + 1e-9)) and not np.any(given[:, ~allowed])):
        refuse("edge_given_order", f"must lie in [0, {kept}], zero where the table allows "
                                   f"no edge")


def _check_orders(state, n, done, kernel, refuse):
    """Orders are permutations, and the scores agree with them (scores are pure functions
    of the order, so exactly)."""
    for name in ("orders", "best_order"):
        if not np.array_equal(np.sort(state[name], axis=-1),
                              np.broadcast_to(np.arange(n), state[name].shape)):
            refuse(name, f"must hold one permutation of the {n} nodes per chain and replica")
    trace, best = state["trace"], state["best_score"]
    if not np.all(np.isfinite(trace)):
        refuse("trace", "must be finite")
    for c in range(state["orders"].shape[0]):
        now = trace[c, done - 1] if done else best[c]
        if node_sums.order_score(state["orders"][c, 0], kernel) != now:
            refuse("orders", f"chain {c}'s order does not have the score the checkpoint "
                             f"records for it")
        if node_sums.order_score(state["best_order"][c], kernel) != best[c] or (
                done and best[c] < trace[c].max()):
            refuse("best_score", f"chain {c}'s best score is not that of its best order, "
                                 f"or lies below its trace")


def load_state(path, settings, fingerprint, burn_in_given, iterations, prepared):
    """Read and check the checkpoint ``path`` field by field; returns ``(state, done)``.

    ``settings`` gets the checkpoint's burn-in when none was given. Every
    refusal is a ``ValueError`` naming ``resume`` and the field.
    """
    refuse = _Refusal(path)
    chains, n = settings["chains"], prepared.n
    m = prepared.m
    replicas = len(settings["temperatures"])
    most = 8 * chains * (iterations + (3 + replicas) * n + 2 * n * n + BATCHES * n * m
                         + 2 * replicas + 16) + (1 << 20)
    data = _read_checkpoint(path, refuse, most)
    if _scalar(data, "version", "int", refuse) != VERSION:
        refuse("version", f"must be {VERSION}, got {data['version']}")
    theirs = _scalar(data, "fingerprint", "str", refuse)
    if theirs != fingerprint:
        refuse("fingerprint", f"was written for another score table (fingerprint "
                              f"{theirs!r}, this table's is {fingerprint!r})")
    _checked_settings(data, settings, burn_in_given, refuse)
    done = _scalar(data, "done", "int", refuse)
    if done < 0:
        refuse("done", f"must be non-negative, got {done}")
    if iterations < done:
        refuse(None, f"ran {done} iterations, more than iterations={iterations}")
    state = _checked_arrays(data, chains, n, m, done, replicas, refuse)
    _check_counts(state, n, done, settings, candidate_matrix(prepared), refuse,
                  prepared.candidates)
    _check_orders(state, n, done, prepared.kernel, refuse)
    trace = np.full((chains, iterations), np.nan)
    trace[:, :done] = state["trace"]
    state["trace"] = trace
    return state, done
