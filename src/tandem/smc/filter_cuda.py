"""One large bootstrap filter on the GPU: a step in three kernels, with no host
synchronisation until the run ends.

:func:`tandem.smc.bootstrap_filter` runs here for a built-in model on
``device="cuda"`` (see :func:`eligible`).  The draws are the array code's:
``X_0`` of particle ``i`` is element ``i`` of the initial stream's normal
fill, the noise of step ``t >= 1`` is element ``(t - 1) n + i`` of the
propagation stream's, and the ``j``-th resampling takes elements ``j``
(systematic) or ``j n .. j n + n - 1`` (stratified) of the resampling
stream's uniforms, each computed alone by the CUDA backend's element
functions.

A CUDA block of ``THREADS`` threads carries a tile of ``TILE`` particles,
``ITEMS`` a thread (striped in ``propagate``, in runs of ``ITEMS`` in
``resample``, whose scan needs them in order), in the two kernels over
particles:

``propagate``
    moves each particle (from its slot of the resampled copy after a
    resampling), adds its log-density to its log-weight, and writes its
    tile's largest log-weight and, relative to it, the tile's weight,
    weighted mean, sum of squared deviations and sum of squared weights.
``combine``
    (one block) the step's largest log-weight, total weight, moments,
    effective sample size and log-likelihood increment from the tiles'
    (Chan's pairwise formulas), the tiles' offsets in the cumulative weight,
    and whether to resample: every estimate stays on the device.
``resample``
    each tile scans its weights again between its offsets, and each particle
    writes itself into the slots of its offspring: the points ``p_k``
    (``k + U`` systematic, ``k + U_k`` stratified, in units of ``1 / n`` of
    the total weight) at or above its predecessor's scaled cumulative weight
    and below its own, which is the CPU's rule (:mod:`tandem.smc._merge`).

The cumulative weights rise through a max-scan of the sums, and neighbours
compute the boundary they share from one number, so every slot is written
exactly once whatever the rounding.  Tiles are fixed, so a run is the same
at every launch; the sums are added in another order than on the CPU, so
the two agree to rounding (an ancestor can differ where a point falls
within rounding of a cumulative weight).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from numba import cuda

from .. import arrays
from ..backends import cuda as cuda_backend
from ..kinds import resolve
from .batch_models import BUILT_IN
from .batch_rule import NORMAL, UNIFORM, words
from .warp import FULL_MASK, WARP, device_function, kernel, lower_shuffles, shuffle_up, \
    shuffle_xor

U64 = np.uint64
# Numba's CUDA simulator runs a Python thread a CUDA thread: there, small
# blocks (the sums round otherwise; the draws and the rule are the same).
THREADS = 64 if cuda_backend.SIMULATED else 256
ITEMS = 4 if cuda_backend.SIMULATED else 8
TILE = THREADS * ITEMS

# Rows of the stream record: one a stream, and its columns.
INITIAL, PROPAGATION, RESAMPLING = 0, 1, 2
LANE, START, RETRY = 4, 5, 6  # columns 0..3 are the key, 6..9 the retry key
# Slots of the run's state on the device.
TOP, TOTAL, LOG_LIKELIHOOD, CARRIED_NORM, RESAMPLINGS, UNIFORM_DRAW, FAILED_STEP = range(7)
STATE_SIZE = 7


def _larger(a, b):
    """The larger of ``a`` and ``b``, NaN if either is."""
    return a if (a >= b or a != a) else b


@functools.lru_cache(maxsize=None)
def kernels(initial, transition, log_density, generator, stratified):
    """The ``(propagate, combine, resample)`` kernels of one model, generator and
    scheme, for blocks of ``THREADS`` threads carrying ``ITEMS`` particles each."""
    lower_shuffles()
    initial, transition, log_density = map(device_function, (initial, transition, log_density))
    normal_element = cuda_backend.element_function(NORMAL.kind.name, generator)
    uniform_element = cuda_backend.element_function(UNIFORM.kind.name, generator)
    normal_words, uniform_words = words(NORMAL), words(UNIFORM)
    normal_width, uniform_width = U64(NORMAL.kind.width), U64(UNIFORM.kind.width)
    larger = device_function(_larger)
    warps = THREADS // WARP

    @device_function
    def normal(streams, row, table, i):
        s = streams[row]
        return normal_element(generator, s[0], s[1], s[2], s[3], s[LANE],
                              s[START] + normal_width * U64(i), normal_words, table,
                              s[RETRY], s[RETRY + 1], s[RETRY + 2], s[RETRY + 3])

    @device_function
    def uniform(streams, table, i):
        s = streams[RESAMPLING]
        return uniform_element(generator, s[0], s[1], s[2], s[3], s[LANE],
                               s[START] + uniform_width * U64(i), uniform_words, table,
                               s[0], s[1], s[2], s[3])

    @device_function
    def block_max(value, scratch):
        lane, warp = cuda.threadIdx.x % WARP, cuda.threadIdx.x // WARP
        offset = WARP // 2
        while offset > 0:
            value = larger(value, shuffle_xor(FULL_MASK, value, offset))
            offset //= 2
        if lane == 0:
            scratch[warp] = value
        cuda.syncthreads()
        value = scratch[0]
        for k in range(1, warps):
            value = larger(value, scratch[k])
        cuda.syncthreads()
        return value

    @device_function
    def block_sums(a, b, c, scratch):
        """The block's sums of three values, the same in every thread."""
        lane, warp = cuda.threadIdx.x % WARP, cuda.threadIdx.x // WARP
        offset = WARP // 2
        while offset > 0:
            a += shuffle_xor(FULL_MASK, a, offset)
            b += shuffle_xor(FULL_MASK, b, offset)
            c += shuffle_xor(FULL_MASK, c, offset)
            offset //= 2
        if lane == 0:
            scratch[0, warp] = a
            scratch[1, warp] = b
            scratch[2, warp] = c
        cuda.syncthreads()
        a = b = c = 0.0
        for k in range(warps):
            a += scratch[0, k]
            b += scratch[1, k]
            c += scratch[2, k]
        cuda.syncthreads()
        return a, b, c

    @device_function
    def block_scan(value, scratch):
        """``(before, through)``: the block's cumulative sum of the non-negative
        ``value`` before and through this thread, non-decreasing by thread,
        with ``before`` the previous thread's ``through`` exactly (0 in the
        first thread)."""
        lane, warp = cuda.threadIdx.x % WARP, cuda.threadIdx.x // WARP
        c = value
        d = 1
        while d < WARP:
            below = shuffle_up(FULL_MASK, c, d)
            if lane >= d:
                c += below
            d *= 2
        if lane == WARP - 1:
            scratch[0, warp] = c
        cuda.syncthreads()
        offset = 0.0
        for k in range(warp):
            offset += scratch[0, k]
        through = offset + c
        # A tree's partial sums may fall by an ulp: a max-scan (exact) makes
        # them rise.
        d = 1
        while d < WARP:
            below = shuffle_up(FULL_MASK, through, d)
            if lane >= d:
                through = max(through, below)
            d *= 2
        if lane == WARP - 1:
            scratch[1, warp] = through
        cuda.syncthreads()
        before_warp = 0.0
        for k in range(warp):
            before_warp = max(before_warp, scratch[1, k])
        through = max(through, before_warp)
        before = shuffle_up(FULL_MASK, through, 1)
        if lane == 0:
            before = before_warp
        cuda.syncthreads()
        return before, through

    @kernel(launch_bounds=THREADS)
    def propagate(t, y, params, streams, table, x, resampled_x, log_weights, resampled,
                  tiles, state):
        if state[FAILED_STEP] != 0:
            return
        n = x.size
        scratch = cuda.shared.array((3, warps), np.float64)
        xs = cuda.local.array(ITEMS, np.float64)
        ws = cuda.local.array(ITEMS, np.float64)
        fresh = t == 0 or resampled[t - 1] != 0  # equal weights before this step
        first = cuda.blockIdx.x * TILE + cuda.threadIdx.x
        top = -math.inf
        for k in range(ITEMS):
            i = first + k * THREADS  # striped: a warp reads 32 neighbours at once
            xi, li = 0.0, -math.inf
            if i < n:
                if t == 0:
                    xi = initial(normal(streams, INITIAL, table, i), params)
                else:
                    before = resampled_x[i] if fresh else x[i]
                    xi = transition(before, normal(streams, PROPAGATION, table, (t - 1) * n + i),
                                    params)
                li = log_density(xi, y[t], params)
                if not fresh:
                    li += log_weights[i]
                x[i] = xi
                log_weights[i] = li
            xs[k] = xi
            ws[k] = li
            top = larger(top, li)
        top = block_max(top, scratch[0])
        if not math.isfinite(top):
            if cuda.threadIdx.x == 0:
                tiles[cuda.blockIdx.x, 0] = top
                for j in range(1, 5):
                    tiles[cuda.blockIdx.x, j] = 0.0
            return
        total = weighted = squares = 0.0
        for k in range(ITEMS):
            w = math.exp(ws[k] - top)
            ws[k] = w
            total += w
            weighted += w * xs[k]
            squares += w * w
        total, weighted, squares = block_sums(total, weighted, squares, scratch)
        mean = weighted / total
        spread = 0.0
        for k in range(ITEMS):
            e = xs[k] - mean
            spread += ws[k] * e * e
        spread = block_sums(spread, 0.0, 0.0, scratch)[0]
        if cuda.threadIdx.x == 0:
            b = cuda.blockIdx.x
            tiles[b, 0] = top
            tiles[b, 1] = total
            tiles[b, 2] = mean
            tiles[b, 3] = spread
            tiles[b, 4] = squares

    @kernel(launch_bounds=THREADS)
    def combine(t, n, threshold, streams, table, tiles, offsets, state, means, variances, ess,
                resampled):
        # threshold: resample after a step whose ESS is below it (inf: every step)
        if state[FAILED_STEP] != 0:
            return
        n_tiles = tiles.shape[0]
        scratch = cuda.shared.array((3, warps), np.float64)
        per = (n_tiles + THREADS - 1) // THREADS
        lo = min(n_tiles, cuda.threadIdx.x * per)
        hi = min(n_tiles, lo + per)
        top = -math.inf
        for b in range(lo, hi):
            top = larger(top, tiles[b, 0])
        top = block_max(top, scratch[0])
        if not math.isfinite(top):
            if cuda.threadIdx.x == 0:
                state[FAILED_STEP] = t + 1
            return
        mine = 0.0
        for b in range(lo, hi):
            mine += tiles[b, 1] * math.exp(tiles[b, 0] - top)
        before, through = block_scan(mine, scratch)
        partial = weighted = squares = 0.0
        for b in range(lo, hi):
            offsets[b] = min(before + partial, through)
            scale = math.exp(tiles[b, 0] - top)
            partial += tiles[b, 1] * scale
            weighted += tiles[b, 1] * scale * tiles[b, 2]
            squares += tiles[b, 4] * scale * scale
        if cuda.threadIdx.x == THREADS - 1:
            offsets[n_tiles] = through
        cuda.syncthreads()
        total = offsets[n_tiles]
        weighted, squares, _ = block_sums(weighted, squares, 0.0, scratch)
        mean = weighted / total
        spread = 0.0
        for b in range(lo, hi):
            scale = math.exp(tiles[b, 0] - top)
            e = tiles[b, 2] - mean
            spread += (tiles[b, 3] + tiles[b, 1] * e * e) * scale
        spread = block_sums(spread, 0.0, 0.0, scratch)[0]
        if cuda.threadIdx.x == 0:
            state[LOG_LIKELIHOOD] += top + math.log(total) - state[CARRIED_NORM]
            means[t] = mean
            variances[t] = spread / total
            ess[t] = total * total / squares
            state[TOP] = top
            state[TOTAL] = total
            if t < means.size - 1 and ess[t] < threshold:
                resampled[t] = 1.0
                state[CARRIED_NORM] = math.log(n)
                count = state[RESAMPLINGS]
                # the draw of this resampling: its uniform, or its first uniform's index
                state[UNIFORM_DRAW] = count * n if stratified else uniform(streams, table,
                                                                           count)
                state[RESAMPLINGS] = count + 1
            else:
                state[CARRIED_NORM] = top + math.log(total)

    @device_function
    def point(streams, table, draw, k):
        """Point ``k`` in units of ``1 / n`` of the total weight."""
        if stratified:
            return k + uniform(streams, table, draw + k)
        return k + draw

    @device_function
    def points_below(streams, table, draw, n, v):
        """The number of points below ``v``, walking from a guess (the CPU's
        count, :mod:`tandem.smc._merge`)."""
        c = min(n, max(0, int(v) if stratified else int(math.ceil(v - draw))))
        while c < n and point(streams, table, draw, c) < v:
            c += 1
        while c > 0 and not point(streams, table, draw, c - 1) < v:
            c -= 1
        return c

    @kernel(launch_bounds=THREADS)
    def resample(t, streams, table, x, resampled_x, log_weights, offsets, state, resampled):
        if state[FAILED_STEP] != 0 or resampled[t] == 0:
            return
        n = x.size
        b = cuda.blockIdx.x
        scratch = cuda.shared.array((3, warps), np.float64)
        partials = cuda.local.array(ITEMS, np.float64)
        top, draw = state[TOP], state[UNIFORM_DRAW]
        scale = n / offsets[offsets.size - 1]
        first = b * TILE + cuda.threadIdx.x * ITEMS
        last = min(n, (b + 1) * TILE) - 1  # the tile's last particle
        mine = 0.0
        for k in range(ITEMS):
            if first + k <= last:
                mine += math.exp(log_weights[first + k] - top)
            partials[k] = mine
        before, through = block_scan(mine, scratch)
        start, end = offsets[b], offsets[b + 1]
        low = min(start + before, end)
        high = end if first <= last < first + ITEMS else min(start + through, end)
        slot = points_below(streams, table, draw, n, low * scale)
        for k in range(ITEMS):
            i = first + k
            if i <= last:
                c = high if (i == last or k == ITEMS - 1) else min(low + partials[k], high)
                stop = n if i == n - 1 else points_below(streams, table, draw, n, c * scale)
                value = x[i]
                for m in range(slot, stop):
                    resampled_x[m] = value
                slot = stop

    return propagate, combine, resample


#: The resampling schemes run here; the others run as array code.
SCHEMES = ("systematic", "stratified")


def eligible(model, streams, resampling: str) -> bool:
    """Whether :func:`tandem.smc.bootstrap_filter` runs here: a built-in scalar
    model, a scheme of :data:`SCHEMES` and a Philox or Threefry stream."""
    return (type(model) in BUILT_IN and resampling in SCHEMES
            and streams.initial.generator in (0, 1))


@functools.lru_cache(maxsize=64)
def _launchers(kernel_set, n_tiles):
    """The three kernels configured for ``n_tiles`` tiles, made once: a launch
    then skips the configuration, and numba-cuda's warning of a grid under
    128 blocks (``combine`` is one block by design) is not shown."""
    propagate, combine, resample = kernel_set
    with warnings.catch_warnings():
        # numba-cuda's own warning class; its message starts with a terminal escape
        warnings.filterwarnings("ignore", message=r".*Grid size \d+ will likely")
        return propagate[n_tiles, THREADS], combine[1, THREADS], resample[n_tiles, THREADS]


def _array(device_array):
    """A device array as the filter returns it: CuPy's on a GPU, NumPy's under
    the simulator (which has no device memory)."""
    if cuda_backend.SIMULATED:
        return device_array.copy_to_host()
    import cupy

    return cupy.asarray(device_array)


class NoWeight(Exception):
    """Every weight of step ``step`` is zero, or one is NaN or ``+inf``:
    ``log_weights`` are that step's (the filter says which)."""

    def __init__(self, step, log_weights):
        super().__init__(step)
        self.step, self.log_weights = step, log_weights


def run(streams, model, y: np.ndarray, n: int, resampling: str,
        ess_threshold: float | None) -> tuple:
    """:func:`tandem.smc.bootstrap_filter` of an :func:`eligible` model on the
    GPU, from checked arguments (``streams`` the three streams, ``y`` of shape
    ``(T,)``, ``n`` particles): ``(means, variances, log_likelihood, ess,
    resampled, particles, weights, streams after)``, the fields of a
    ``FilterResult``; :class:`NoWeight` if a step cannot be weighed."""
    steps = len(y)
    stratified = resampling == "stratified"
    uniforms = n if stratified else 1  # a resampling's
    specs = (NORMAL, NORMAL, UNIFORM)
    records = [resolve(s, spec.kind, spec.params) for s, spec in zip(streams, specs)]
    draws = (n, (steps - 1) * n, (steps - 1) * uniforms)  # at most
    for stream, record, count in zip(streams, records, draws):
        if record.start + record.width * count > stream.word_limit:
            raise ValueError(f"the run's draws reach past the end of a stream's lane "
                             f"(2**64 words): {steps} steps of {n} particles")
    batch_model = BUILT_IN[type(model)](model)
    n_tiles = -(-n // TILE)
    propagate, combine, resample = _launchers(
        kernels(*batch_model[:3], streams.initial.generator, stratified), n_tiles)
    rows = np.array([(*r.key, r.lane, r.start, *r.retry_key) for r in records], dtype=U64)
    state = np.zeros(STATE_SIZE)
    state[CARRIED_NORM] = math.log(n)
    state = cuda.to_device(state)
    y, params, rows, table = (cuda.to_device(np.ascontiguousarray(a)) for a in
                              (y, np.asarray(batch_model.params, dtype=np.float64), rows,
                               np.asarray(NORMAL.kind.table)))
    x, resampled_x, log_weights = (cuda.device_array(n) for _ in range(3))
    tiles, offsets = cuda.device_array((n_tiles, 5)), cuda.device_array(n_tiles + 1)
    means, variances, ess, resampled = (cuda.to_device(np.zeros(steps)) for _ in range(4))
    threshold = math.inf if ess_threshold is None else ess_threshold * n
    for t in range(steps):
        propagate(t, y, params, rows, table, x, resampled_x, log_weights, resampled, tiles,
                  state)
        combine(t, n, threshold, rows, table, tiles, offsets, state, means, variances, ess,
                resampled)
        if t < steps - 1:
            resample(t, rows, table, x, resampled_x, log_weights, offsets, state, resampled)
    state = state.copy_to_host()  # the run's one synchronisation
    if state[FAILED_STEP]:
        raise NoWeight(int(state[FAILED_STEP]) - 1, _array(log_weights))
    xp_log_weights = _array(log_weights)
    xp = arrays.module_of(xp_log_weights)
    weights = xp.exp(xp_log_weights - state[TOP]) / state[TOTAL]
    drawn = (n, (steps - 1) * n, int(state[RESAMPLINGS]) * uniforms)
    initial, propagation, resampling_stream = (
        stream.at_word(record.start + record.width * count) if count else stream
        for stream, record, count in zip(streams, records, drawn))
    return (_array(means), _array(variances), float(state[LOG_LIKELIHOOD]), ess.copy_to_host(),
            resampled.copy_to_host() != 0, _array(x), weights,
            (initial, propagation, resampling_stream))
