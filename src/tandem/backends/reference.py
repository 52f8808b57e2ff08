"""The reference backend: each element from its own position, by the kinds' oracles.

No blocks, chunks or tiles: the draws come from :func:`tandem.oracle.words`
and each kind's :attr:`~tandem.kinds.Kind.oracle` maps them.  The CPU and
GPU backends must agree with it bit for bit.
"""

import dataclasses

import numpy as np

from .. import oracle
from ..kinds import KINDS

_REDRAWS = 1 << 20


def _draws(record, key, lane, positions):
    """The words of the draws at ``positions``: ``(lo, hi)`` words, or for a
    four-word kind the block's two 64-bit draws."""
    width = KINDS[record.kind].width
    lo = oracle.words(record.generator, key, lane, positions)
    if width == 1:
        return lo, np.zeros_like(lo)
    hi = oracle.words(record.generator, key, lane, positions + np.uint64(1))
    if width == 2:
        return lo, hi
    more = [oracle.words(record.generator, key, lane, positions + np.uint64(j)) for j in (2, 3)]
    return lo | hi << np.uint64(32), more[0] | more[1] << np.uint64(32)


def _retry(record, position, d):
    """The value of the element whose draw at word ``position`` was rejected."""
    kind = KINDS[record.kind]
    record = record.at(position)
    if kind.oracle_retry is not None:
        return kind.oracle_retry(record, d)
    for attempt in range(_REDRAWS):
        at = np.array([attempt * kind.width], dtype=np.uint64)
        lo, hi = _draws(record, record.retry_key, position, at)
        value, accepted = kind.oracle(lo, hi, record.params, record.table)
        if accepted[0]:
            return value[0]
    raise RuntimeError("no draw accepted")  # probability below 2**-(2**20)


def _paired(record, positions):
    """Elements of a pair map: each takes its aligned pair's even or odd value."""
    even = positions & ~np.uint64(1)
    lo = oracle.words(record.generator, record.key, record.lane, even)
    hi = oracle.words(record.generator, record.key, record.lane, even + np.uint64(1))
    v0, v1 = KINDS[record.kind].oracle(lo, hi, record.params, record.table)
    return np.where(positions & np.uint64(1), v1, v0)


def _elements(record, element_index, out):
    kind = KINDS[record.kind]
    positions = np.uint64(record.start) + np.uint64(kind.width) * np.asarray(
        element_index, dtype=np.uint64)
    if kind.pair_map is not None:
        out[...] = _paired(record, positions)
        return
    lo, hi = _draws(record, record.key, record.lane, positions)
    values, accepted = kind.oracle(lo, hi, record.params, record.table)
    values = np.array(values)
    for i in np.flatnonzero(~accepted):
        d = (int(lo[i]), int(hi[i])) if kind.width == 4 else int(hi[i]) << 32 | int(lo[i])
        values[i] = _retry(record, int(positions[i]), d)
    if kind.counts and out.dtype == np.int64:
        values = oracle.count64(values)
    out[...] = values.astype(out.dtype, casting="unsafe")


def fill(record, out, threads=None):
    """Write ``out.size`` elements of ``record``'s fill into flat ``out``."""
    _elements(record, np.arange(out.size, dtype=np.uint64), out)


def addressed(record, index, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``."""
    _elements(record, index, out)


def addressed_each(record, index, each, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``, with the
    parameter words ``each[:, i]``."""
    for i in range(out.size):
        params = tuple(int(p) for p in each[:, i])
        _elements(dataclasses.replace(record, params=params), index[i:i + 1], out[i:i + 1])
