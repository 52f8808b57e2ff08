"""Sampling from a population, permutations and shuffles, built on the fills.

Each is a fixed number of draws and a deterministic rule on them, so the
results are the same on every backend:

* with replacement: ``integers(0, n)`` (no weights) or ``choice`` from an
  :class:`~tandem.AliasTable` (weights), one draw per item;
* ``permutation(n)``: Fisher–Yates from the front, swap ``i`` exchanging
  position ``i`` with ``t_i = i + integers(0, n - i)`` of 64-bit draw ``i``
  (:mod:`tandem.backends.swaps`), ``n - 1`` draws;
* without replacement, no weights: the first ``size`` members of that
  permutation, from ``size`` draws (``min(size, n - 1)``), in O(size) time
  and memory whatever ``n``;
* without replacement, with weights: one key per member,
  ``exponential / weight`` (Efraimidis and Spirakis); the sample is the
  members with the ``size`` smallest keys, in increasing key order (a
  stable sort, so ties go to the lower index).

On a GPU (``device="cuda"``, or a population, weights, ``out`` or ``x`` on
the GPU) the weighted keys, their divisions and the stable sort run there
(CuPy's ``argsort`` is stable); Fisher–Yates's draws and swaps run on the
host and the result is copied.  Either way the sample is the CPU's, element
for element.

Guaranteed across versions: these rules.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import arrays, distributions, engine
from .alias import AliasTable, check_weights
from .backends import swaps
from .stream import register_fills

#: The purpose whose lanes continue a rejected swap draw.
SWAP_PURPOSE = "tandem.sample"
#: Above this share of the population, the first members of a permutation
#: come from the whole array of swaps rather than a hash table.
_DENSE_SHARE = 1 / 16


def _is_count(population):
    return isinstance(population, (numbers.Integral, np.integer)) and not isinstance(
        population, (bool, np.bool_))


def _device(device, *arrays_given):
    """``device``, else that of the first array given, else the CPU."""
    if arrays.check_device(device):
        return device
    for x in arrays_given:
        if x is not None and not _is_count(x) and arrays.device_of(x) == "cuda":
            return "cuda"
    return "cpu"


def _population(population, device="cpu"):
    if _is_count(population):
        n = int(population)
        if n < 0:
            raise ValueError(f"population must be non-negative, got {n}")
        return None, n
    arrays.refuse_masked(population, "population")
    values = arrays.module(device).asarray(population)
    if values.ndim == 0:
        raise ValueError("population must be an int or an array with at least one dimension")
    return values, values.shape[0]


def _weighted_order(stream, n, weights, threads, device):
    """Indices of the population sorted by their keys, and the next stream."""
    e, nxt = distributions.exponential(stream, n, threads=threads, device=device)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = e / arrays.module(device).asarray(weights)
    if device == "cuda":
        return arrays.cupy().argsort(keys), nxt  # always stable
    return np.argsort(keys, kind="stable"), nxt


def _targets(stream, n, count, per, threads):
    """The swap targets of ``count`` runs of ``per`` swaps on a population of ``n``,
    shape ``(count, per)``, and the stream after their draws."""
    if n >= 2**63:
        raise ValueError(f"population must be below 2**63 without replacement, got {n}")
    draws, nxt = distributions.bits(stream, count * per, dtype=np.uint64, threads=threads)
    w0 = -(-stream.word_position // 2) * 2  # a 64-bit draw starts at an even word
    found = swaps.targets(draws, n, per, stream.generator,
                          stream.continuation(SWAP_PURPOSE).kernel_key, w0)
    return found.reshape(count, per), nxt


def _first(stream, n, k, threads):
    """The first ``k`` entries of the permutation of ``range(n)`` (int64, on the
    host), and the stream after its ``min(k, n - 1)`` draws."""
    targets, nxt = _targets(stream, n, 1, min(k, max(n - 1, 0)), threads)
    if k >= n * _DENSE_SHARE:
        return swaps.permute(targets, n)[0, :k], nxt
    return swaps.first(targets[0]), nxt


def _on(device, x):
    return arrays.cupy().asarray(x) if device == "cuda" else x


def permutation(stream, n, *, threads=None, device=None):
    """A random permutation of ``range(n)`` (int64): ``(permutation, next stream)``."""
    engine.check_stream(stream)
    _, n = _population(n)
    targets, nxt = _targets(stream, n, 1, max(n - 1, 0), threads)
    return _on(arrays.check_device(device) or "cpu", swaps.permute(targets, n)[0]), nxt


def shuffle(stream, x, *, threads=None):
    """Shuffle ``x`` (NumPy or CuPy) in place along its first axis: ``(x, next stream)``."""
    engine.check_stream(stream)
    device = arrays.device_of(x)
    if not (isinstance(x, np.ndarray) or (device == "cuda" and hasattr(x, "ndim"))):
        raise TypeError(f"x must be a NumPy or CuPy array, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension")
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        raise ValueError("x must be writeable, got a read-only array")
    n = x.shape[0]
    targets, nxt = _targets(stream, n, 1, max(n - 1, 0), threads)
    if device == "cuda" or x.ndim > 1 or not swaps.apply(x[np.newaxis], targets):
        x[...] = x[_on(device, swaps.permute(targets, n)[0])]  # a gather, where no swaps
    return x, nxt


def permuted(stream, rows, *, threads=None):
    """Each row of the 2-d NumPy ``rows`` permuted on its own, row ``r`` by the
    permutation rule on the ``n - 1`` draws after row ``r - 1``'s: ``(a new
    array, next stream)``."""
    engine.check_stream(stream)
    count, n = rows.shape
    targets, nxt = _targets(stream, n, count, max(n - 1, 0), threads)
    out = np.array(rows, order="C")
    if not swaps.apply(out, targets):
        out = np.take_along_axis(rows, swaps.permute(targets, n), axis=-1)
    return out, nxt


def _check_weights(weights, n):
    w, _ = check_weights(weights)
    if w.size != n:
        raise ValueError(f"weights must have one entry per member ({n}), got {w.size}")
    return w


def sample(stream, population, weights=None, size=None, *, replace=True, out=None,
           threads=None, device=None):
    """Members of ``population`` drawn with or without replacement.

    See :meth:`tandem.Stream.sample`.
    """
    engine.check_stream(stream)
    device = _device(device, population, weights, out)
    xp = arrays.module(device)
    values, n = _population(population, device)
    w = None if weights is None else _check_weights(weights, n)
    shape = arrays.shape_of(size)
    k = 1 if shape is None else int(np.prod(shape, dtype=np.int64))
    item_shape = () if values is None else values.shape[1:]
    dtype = np.int64 if values is None else values.dtype
    if out is not None:
        arrays.output(None if size is None else shape + item_shape, out, dtype, device)
        if size is None:
            if (out.ndim < len(item_shape)
                    or out.shape[out.ndim - len(item_shape):] != item_shape):
                raise ValueError(f"out.shape {out.shape} must end with the shape of one "
                                 f"member of population, {item_shape}")
            shape = out.shape[:out.ndim - len(item_shape)]
            k = int(np.prod(shape, dtype=np.int64))
        for name, other in (("population", values), ("weights", weights)):
            if (other is not None and arrays.device_of(other) == device
                    and xp.shares_memory(out, other)):
                raise ValueError(f"out must not share memory with {name}")
    if n == 0 and k > 0:
        raise ValueError("cannot sample from an empty population")
    if replace:
        if w is None:
            index, nxt = distributions.integers(stream, 0, max(n, 1), k, threads=threads,
                                                device=device)
        else:
            index, nxt = distributions.choice(stream, AliasTable(w), k, threads=threads,
                                              device=device)
    else:
        available = n if w is None else int(np.count_nonzero(w))
        if k > available:
            what = "members" if w is None else "members with non-zero weight"
            raise ValueError(f"cannot take {k} without replacement from {available} {what}")
        if w is None:
            index, nxt = _first(stream, n, k, threads)
            index = _on(device, index)
        else:
            order, nxt = _weighted_order(stream, n, w, threads, device)
            index = order[:k]
    chosen = index.astype(np.int64) if values is None else values[index]
    chosen = chosen.reshape((shape or ()) + item_shape) if shape is not None else chosen[0]
    if out is not None:
        out[...] = chosen
        return out, nxt
    return chosen, nxt


register_fills(sample=sample, permutation=permutation, shuffle=shuffle)
