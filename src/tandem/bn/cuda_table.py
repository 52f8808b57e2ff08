"""Score tables on an NVIDIA GPU: the entries of :func:`tandem.bn.score_table` by CUDA kernels.

One thread scores one (node, parent set) entry.  It unranks its set from the
entry's index in the combinatorial number system (a binary search a size in
the table of binomials), so no list of sets ever crosses the bus, and it
computes the score with the functions of :mod:`tandem.bn.terms`, the same
definition as the CPU's: the tables are equal bit for bit.

Discrete data are bit-sliced: each state of each column is a bitset of the
rows, 64 rows a word, and ``N_jk`` is the popcount of the AND of the
parents' state words with the child's.  When every column is binary, one
pass over the words keeps the counts of all ``2 ** (k + 1)`` cells in
registers.  Otherwise a family's configurations are visited in ascending
order, depth first from the last parent (the most significant digit), a
partial configuration that holds no row ending its subtree, so that the
work follows the observed configurations, not the product of the arities.
BGe takes a Cholesky factorisation of ``k + 1`` columns or fewer a thread.

A table is computed in slices of at most :data:`SLICE_ENTRIES` entries,
two in flight: while one slice is computed, the other is copied to pinned
host memory and from there into the destination (host memory or a memory-
mapped ``.npy`` file), so a table larger than the device's memory streams
through it.

Needs numba-cuda and a GPU, or Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``), which is how CI runs these kernels.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import cuda

from .. import _twin
from . import set_walks, terms

#: Threads per block of the table kernels.
THREADS = 128

#: The most entries of a slice (512 MiB of float64 on the device, as much pinned on the host).
SLICE_ENTRIES = 1 << 26

#: A slice takes at most this share of the device's free memory (two are in flight).
FREE_SHARE = 0.25

_ALL_ROWS = np.uint64(0xFFFFFFFFFFFFFFFF)


def popcount(x):
    """The number of set bits of the uint64 ``x`` (on a GPU, one ``popc.b64``)."""
    return np.int64(bin(int(x)).count("1"))


def _lower_popcount():
    from numba.cuda.extending import overload

    @overload(popcount, target="cuda")
    def _popcount_cuda(x):
        return lambda x: np.int64(cuda.popc(x))


def bitsets(columns, arities):
    """``(bits, state_base)``: ``bits[state_base[v] + x, w]`` holds bit ``t % 64`` set for
    each row ``t`` in ``64 w .. 64 w + 63`` where column ``v`` is in state ``x``; the bits
    past the last row are zero."""
    n_vars, n_rows = columns.shape
    n_words = max(1, -(-n_rows // 64))
    state_base = np.zeros(n_vars, dtype=np.int64)
    state_base[1:] = np.cumsum(arities)[:-1]
    bits = np.zeros((int(np.sum(arities)), n_words), dtype=np.uint64)
    for v in range(n_vars):
        for x in range(int(arities[v])):
            packed = np.packbits(columns[v] == x, bitorder="little")
            words = np.zeros(8 * n_words, dtype=np.uint8)
            words[:packed.size] = packed
            bits[state_base[v] + x] = words.view("<u8")
    return bits, state_base


def unrank(rank, m, k, binom, offsets, out):
    """The positions of ``rank`` (:func:`tandem.bn.combinations.unrank`) into ``out``;
    returns their number.  ``binom`` is ``binomial_table(m, k)`` and ``offsets`` is
    ``offsets(m, k)``; each position is a binary search in a column of ``binom``."""
    size = 0
    while size < k and offsets[size + 1] <= rank:
        size += 1
    set_walks.colex_unrank(rank - offsets[size], size, m, binom, out)
    return size


def entry_parents(candidates, node, positions, size, parents):
    """``parents[:size]`` from the candidate positions; False when one is padding."""
    for j in range(size):
        p = candidates[node, positions[j]]
        if p < 0:
            return False
        parents[j] = p
    return True


def device_module():
    """This module as :mod:`tandem._twin` loads it for numba-cuda (its ``terms`` the copy
    registered with numba-cuda alone)."""
    return _twin.module("bn.cuda_table")


#: The binary kernel keeps the counts of every configuration of up to this many parents
#: in registers (2 ** (k + 1) of them).
BINARY_MAX_PARENTS = 5

#: The general kernel keeps a configuration's child counts in registers up to this arity.
UNROLLED_STATES = 8


@functools.lru_cache(maxsize=None)
def kernels(max_parents, max_arity):
    """``(discrete, bge)``: the table kernels for sets of at most ``max_parents`` and
    columns of at most ``max_arity`` states (the sizes of their per-thread arrays).

    ``discrete`` is the binary kernel when every column has two states and
    ``max_parents <= BINARY_MAX_PARENTS``, else the general one.  Loops over a
    family's parents and states run to these sizes, with the real ones as
    conditions, so that the compiler unrolls them and keeps their arrays in
    registers.  Call it on the copy of this module that numba-cuda alone
    compiles, :func:`device_module`.
    """
    from numba import config

    terms.register_cuda()
    set_walks.register_cuda()
    if not config.ENABLE_CUDASIM:
        from numba.cuda.extending import register_jitable

        _lower_popcount()
        for fn in (unrank, entry_parents):
            register_jitable(fn)
    k = max_parents
    slots = max(k, 1)
    sides = slots + 1
    states = max(max_arity, 1)
    # a constant number of child states (unrolled), or 0: the child's own
    child_states = states if states <= UNROLLED_STATES else 0
    configs = 1 << k
    cells = 2 * configs

    @cuda.jit
    def general(bits, n_words, state_base, arities, candidates, binom, offsets, n_sets, start,
                stop, out, score_id, params, alphas, ratios, logs):
        """Configurations depth first in ascending order, a subtree without rows pruned;
        at a configuration, its child counts by popcounts over the words."""
        positions = cuda.local.array(slots, np.int64)
        parents = cuda.local.array(slots, np.int64)
        digits = cuda.local.array(slots, np.int64)
        rows = cuda.local.array(slots, np.int64)  # where parent j's state digits[j] starts
        fixed = cuda.local.array(slots, np.int64)  # rows, read with constant indices
        counts = cuda.local.array(states, np.int64)
        cell = cuda.local.array(states, np.int64)
        item = start + cuda.grid(1)
        if item >= stop:
            return
        node = item // n_sets
        size = unrank(item - node * n_sets, candidates.shape[1], k, binom, offsets, positions)
        if not entry_parents(candidates, node, positions, size, parents):
            out[item - start] = -math.inf
            return
        q = 1
        for j in range(size):
            q *= arities[parents[j]]
            digits[j] = 0
            rows[j] = state_base[parents[j]] * n_words
        r = arities[node]
        n_x = child_states if child_states else r
        child = state_base[node] * n_words
        a_j, a_jk = terms.dirichlet(score_id, params[0], q, r)
        row_j = terms.alpha_row(alphas, a_j)
        row_jk = terms.alpha_row(alphas, a_jk)
        total = 0.0
        level = size - 1  # the digit being set: the parents above it are fixed
        while True:
            for j in range(slots):
                fixed[j] = rows[j]
            if level > 0:
                held = False  # does a row have parents level .. size - 1 in these states?
                for w in range(n_words):
                    word = _ALL_ROWS
                    for j in range(slots):
                        if level <= j and j < size:
                            word &= bits[fixed[j] + w]
                    if word != 0:
                        held = True
                        break
                if held:
                    level -= 1  # descend: the lower digits are 0
                    continue
            else:
                for x in range(n_x):
                    counts[x] = 0
                for w in range(n_words):
                    word = _ALL_ROWS
                    for j in range(slots):
                        if j < size:
                            word &= bits[fixed[j] + w]
                    if word != 0:
                        for x in range(n_x):
                            if x < r:
                                counts[x] += popcount(word & bits[child + x * n_words + w])
                n_j = 0
                for x in range(n_x):
                    if x < r:
                        n_j += counts[x]
                        cell[x] = counts[x]
                if n_j > 0:
                    total += terms.config_term(score_id, cell, 0, r, n_j, a_j, a_jk, row_j,
                                               row_jk, ratios, logs)
                if size == 0:
                    break
                level = 0
            digits[level] += 1  # the next configuration: carry into the higher digits
            rows[level] += n_words
            while digits[level] == arities[parents[level]]:
                rows[level] -= digits[level] * n_words
                digits[level] = 0
                level += 1
                if level == size:
                    break
                digits[level] += 1
                rows[level] += n_words
            if level == size:
                break
        if score_id == terms.BIC:
            total -= terms.bic_penalty(params[1], q, r)
        out[item - start] = total

    @cuda.jit
    def binary(bits, n_words, state_base, arities, candidates, binom, offsets, n_sets, start,
               stop, out, score_id, params, alphas, ratios, logs):
        """Every column binary: per word, the AND of each configuration's parent words and
        both child counts, all in registers."""
        positions = cuda.local.array(slots, np.int64)
        parents = cuda.local.array(slots, np.int64)
        base = cuda.local.array(slots, np.int64)
        zeros = cuda.local.array(slots, np.uint64)
        ones = cuda.local.array(slots, np.uint64)
        counts = cuda.local.array(cells, np.int64)
        cell = cuda.local.array(2, np.int64)
        item = start + cuda.grid(1)
        if item >= stop:
            return
        node = item // n_sets
        size = unrank(item - node * n_sets, candidates.shape[1], k, binom, offsets, positions)
        if not entry_parents(candidates, node, positions, size, parents):
            out[item - start] = -math.inf
            return
        q = 1 << size
        for j in range(slots):
            if j < size:
                base[j] = state_base[parents[j]] * n_words
        child = state_base[node] * n_words
        for c in range(cells):
            counts[c] = 0
        for w in range(n_words):
            child0 = bits[child + w]
            child1 = bits[child + n_words + w]
            for j in range(slots):
                if j < size:
                    zeros[j] = bits[base[j] + w]
                    ones[j] = bits[base[j] + n_words + w]
            for c in range(configs):
                if c < q:
                    word = _ALL_ROWS
                    for j in range(slots):
                        if j < size:
                            if (c >> j) & 1:
                                word &= ones[j]
                            else:
                                word &= zeros[j]
                    counts[2 * c] += popcount(word & child0)
                    counts[2 * c + 1] += popcount(word & child1)
        a_j, a_jk = terms.dirichlet(score_id, params[0], q, 2)
        row_j = terms.alpha_row(alphas, a_j)
        row_jk = terms.alpha_row(alphas, a_jk)
        total = 0.0
        for c in range(configs):
            if c < q:
                n_j = counts[2 * c] + counts[2 * c + 1]
                if n_j > 0:
                    cell[0] = counts[2 * c]
                    cell[1] = counts[2 * c + 1]
                    total += terms.config_term(score_id, cell, 0, 2, n_j, a_j, a_jk, row_j,
                                               row_jk, ratios, logs)
        if score_id == terms.BIC:
            total -= terms.bic_penalty(params[1], q, 2)
        out[item - start] = total

    @cuda.jit
    def bge(rmat, consts, candidates, binom, offsets, n_sets, start, stop, out):
        positions = cuda.local.array(slots, np.int64)
        parents = cuda.local.array(slots, np.int64)
        family = cuda.local.array(sides, np.int64)
        work = cuda.local.array((sides, sides), np.float64)
        item = start + cuda.grid(1)
        if item >= stop:
            return
        node = item // n_sets
        size = unrank(item - node * n_sets, candidates.shape[1], k, binom, offsets, positions)
        if not entry_parents(candidates, node, positions, size, parents):
            out[item - start] = -math.inf
            return
        out[item - start] = terms.bge_score(consts, rmat, node, parents, size, family, work)

    return general, binary, bge


# -- the host side ---------------------------------------------------------------

class TableFill:
    """One table's inputs on the device and its kernel: :meth:`launch` computes a slice.

    Parameters
    ----------
    scorer : tandem.bn.scores.Scorer
    candidates : numpy.ndarray of int32, shape (n_nodes, m)
    max_parents, n_sets : int

    Attributes
    ----------
    total : int
        The entries of the table (``n_nodes * n_sets``).
    input_bytes : int
        The device memory its inputs take.
    """

    def __init__(self, scorer, candidates, max_parents, n_sets):
        from .combinations import binomial_table, offsets

        score_id, columns, arities, rmat, params, consts = scorer.args
        m = candidates.shape[1]
        k = int(max_parents)
        self.n_sets = int(n_sets)
        self.total = candidates.shape[0] * self.n_sets
        max_arity = int(arities.max()) if arities.size else 1
        general, binary, bge = device_module().kernels(k, max_arity)
        common = [np.ascontiguousarray(candidates, dtype=np.int64), binomial_table(m, k),
                  offsets(m, k)]
        if score_id == terms.BGE:
            self._kernel = bge
            inputs, after = [rmat, consts] + common, []
        else:
            bits, state_base = bitsets(columns, arities)
            self._kernel = (binary if k <= BINARY_MAX_PARENTS and np.all(arities == 2)
                            else general)
            n_words = np.int64(bits.shape[1])
            inputs = [bits.reshape(-1), n_words, state_base, arities] + common
            after = [params, *scorer.tables(min(k, m))]
        self.input_bytes = sum(a.nbytes for a in inputs + after)
        self._before = [a if a.ndim == 0 else cuda.to_device(a) for a in inputs] + [
            np.int64(self.n_sets)]
        self._after = [np.int64(score_id)] + [cuda.to_device(a) for a in after] if after else []

    def launch(self, start, stop, out, stream=0):
        """Entries ``start .. stop - 1`` into the device array ``out[:stop - start]``."""
        blocks = -(-(stop - start) // THREADS)
        if blocks:
            self._kernel[blocks, THREADS, stream](*self._before, np.int64(start), np.int64(stop),
                                                  out, *self._after)


def slice_entries(total, free_bytes=None):
    """The entries of one slice: all of a small table, else :data:`SLICE_ENTRIES` or what
    :data:`FREE_SHARE` of the free device memory holds, whichever is less."""
    if free_bytes is None:
        free_bytes, _ = cuda.current_context().get_memory_info()
    return int(max(1, min(total, SLICE_ENTRIES, FREE_SHARE * free_bytes // 8)))


def device_bytes(total, input_bytes, free_bytes):
    """The device memory a table of ``total`` entries takes: its inputs and two slices."""
    return input_bytes + 2 * 8 * slice_entries(total, free_bytes)


def compute(fill, dest, bar, size=None):
    """Every entry of ``fill`` into the flat float64 host array ``dest``, slice by slice.

    Two slices are in flight on two CUDA streams: a slice's kernel and its copy
    to pinned host memory run on one stream while the other slice lands in
    ``dest`` on the host.  ``bar.update`` is called as slices land.
    """
    total = fill.total
    size = slice_entries(total) if size is None else int(size)
    streams = [cuda.stream(), cuda.stream()]
    device = [cuda.device_array(size, np.float64, stream=s) for s in streams]
    pinned = [cuda.pinned_array(size, np.float64) for _ in streams]
    pending = [None, None]

    def land(b):
        if pending[b] is not None:
            streams[b].synchronize()
            lo, hi = pending[b]
            dest[lo:hi] = pinned[b][:hi - lo]
            bar.update(hi - lo)
            pending[b] = None

    last = 0
    for i, start in enumerate(range(0, total, size)):
        b = last = i % 2
        land(b)
        stop = min(start + size, total)
        fill.launch(start, stop, device[b], streams[b])
        if stop - start == size:
            device[b].copy_to_host(pinned[b], stream=streams[b])
        else:
            device[b][:stop - start].copy_to_host(pinned[b][:stop - start], stream=streams[b])
        pending[b] = (start, stop)
    land(1 - last)
    land(last)
