"""The oracle: plain NumPy, slow and obviously right.

Written apart from ``tandem.core`` on purpose: the bijections here are array
code transcribed from Random123's ``philox.h`` and ``threefry.h`` and each
element is computed from its own position, with no blocks, chunks or tiles.
The distributions are transcribed from ``docs/spec.md``; only the math
functions (pinned by their accuracy tests) and the ziggurat tables (pinned
by their own checks) come from ``tandem.core``.  The CPU and GPU backends
must agree with it bit for bit.
"""

import itertools

import numpy as np

from ..core import fmath, fmath32
from ..core import ziggurat_tables as zt

M32 = np.uint64(0xFFFFFFFF)
_PHILOX_M = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_PHILOX_W = (np.uint64(0x9E3779B9), np.uint64(0xBB67AE85))
_THREEFRY_ROT = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_SKEIN_KS_PARITY32 = 0x1BD11BDA


def _u64(x):
    return np.asarray(x, dtype=np.uint64)


def philox4x32(counter, key, rounds=10):
    """Philox4x32-``rounds`` of uint32 arrays: counter (..., 4), key (..., 2) -> (..., 4)."""
    counter, key = np.broadcast_arrays(_u64(counter)[..., :, None], _u64(key)[..., None, :])
    c = [counter[..., i, 0] for i in range(4)]
    k = [key[..., 0, j] for j in range(2)]
    for r in range(rounds):
        if r:
            k = [(k[j] + _PHILOX_W[j]) & M32 for j in range(2)]
        p0 = _PHILOX_M[0] * c[0]
        p1 = _PHILOX_M[1] * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k[0], p1 & M32,
             (p0 >> np.uint64(32)) ^ c[3] ^ k[1], p0 & M32]
    return np.stack(c, axis=-1).astype(np.uint32)


def threefry4x32(counter, key, rounds=20):
    """Threefry4x32-``rounds`` of uint32 arrays: counter (..., 4), key (..., 4) -> (..., 4)."""
    counter, key = np.broadcast_arrays(_u64(counter)[..., :, None], _u64(key)[..., None, :])
    k = [key[..., 0, j] for j in range(4)]
    ks = k + [np.uint64(_SKEIN_KS_PARITY32) ^ k[0] ^ k[1] ^ k[2] ^ k[3]]
    x = [(counter[..., i, 0] + k[i]) & M32 for i in range(4)]

    def rotl(v, s):
        return ((v << np.uint64(s)) | (v >> np.uint64(32 - s))) & M32

    for r in range(rounds):
        ra, rb = _THREEFRY_ROT[r % 8]
        a, b, c, d = (0, 1, 2, 3) if r % 2 == 0 else (0, 3, 2, 1)
        x[a] = (x[a] + x[b]) & M32
        x[b] = rotl(x[b], ra) ^ x[a]
        x[c] = (x[c] + x[d]) & M32
        x[d] = rotl(x[d], rb) ^ x[c]
        if r % 4 == 3:
            s = (r + 1) // 4
            for i in range(4):
                x[i] = (x[i] + ks[(s + i) % 5]) & M32
            x[3] = (x[3] + np.uint64(s)) & M32
    return np.stack(x, axis=-1).astype(np.uint32)


def words(generator, key, lane, positions):
    """Words at ``positions`` (uint64 array) of ``lane``, as uint64."""
    positions = _u64(positions)
    b = positions >> np.uint64(2)
    lane = np.uint64(lane)
    counter = np.stack([b & M32, b >> np.uint64(32),
                        np.full_like(b, lane & M32), np.full_like(b, lane >> np.uint64(32))], -1)
    if generator == 0:
        blocks = philox4x32(counter, np.array(key[:2], dtype=np.uint64))
    else:
        blocks = threefry4x32(counter, np.array(key, dtype=np.uint64))
    j = (positions & np.uint64(3)).astype(np.intp)
    return np.take_along_axis(blocks, j[..., None], -1)[..., 0].astype(np.uint64)


# -- value maps: (lo, hi, params, table) -> (values, accepted) ----------------

def _all(x):
    return np.ones(x.shape, dtype=bool)


def _joined(lo, hi):
    """The 64-bit draws of word arrays ``lo`` and ``hi``, as a flat list of ints."""
    return [int(h) << 32 | int(l) for l, h in zip(lo.ravel().tolist(), hi.ravel().tolist())]


def _integers64(lo, hi, params, table):
    low, span, threshold = (int(p) for p in params)
    span = span or 2**64
    d = _joined(lo, hi)
    values = np.array([(low + (x * span >> 64)) % 2**64 for x in d], dtype=np.uint64)
    accepted = np.array([(x * span) % 2**64 >= threshold for x in d], dtype=bool)
    return values.reshape(lo.shape), accepted.reshape(lo.shape)


def _integers32(lo, hi, params, table):
    low, span, threshold = (np.uint64(p) for p in params)
    m = lo * span
    return low + (m >> np.uint64(32)), (m & M32) >= threshold


_MAPS = {
    "bits32": lambda lo, hi, p, t: (lo, _all(lo)),
    "bits64": lambda lo, hi, p, t: (lo | (hi << np.uint64(32)), _all(lo)),
    "bitsbool": lambda lo, hi, p, t: (lo >> np.uint64(31) == 1, _all(lo)),
    "uniform32": lambda lo, hi, p, t: (
        ((lo >> np.uint64(8)) + np.uint64(p[0])).astype(np.float32) * np.float32(2.0**-24),
        _all(lo)),
    "uniform64": lambda lo, hi, p, t: (
        (((lo | (hi << np.uint64(32))) >> np.uint64(11)) + np.uint64(p[0])).astype(np.float64)
        * 2.0**-53, _all(lo)),
    "integers32": _integers32,
    "integers64": _integers64,
    "bernoulli": lambda lo, hi, p, t: (
        (np.uint64(p[1]) == 1) | ((lo | (hi << np.uint64(32))) < np.uint64(p[0])), _all(lo)),
}


# -- normal, exponential, choice: element by element, with core's math ----------

def _as_float(bits):
    return float(np.uint64(bits).view(np.float64))


def _elementwise(fn):
    """A map of one-word or 64-bit draws from ``fn(draw, params, table) -> value``."""
    def value_map(lo, hi, params, table):
        draws = _joined(lo, hi)
        values = np.array([fn(d, params, table) for d in draws])
        return values.reshape(lo.shape), _all(lo)

    return value_map


def _minus_log(u):
    return 0.0 - float(fmath.log64(u))


def _exponential64(d, params, table):
    return _minus_log(((d >> 11) + 1) * 2.0**-53) * _as_float(params[0])


def _exponential32(w, params, table):
    minus_log = np.float32(0.0) - fmath32.log_word32(np.uint64(w))
    return minus_log * np.float32(_as_float(params[0]))


def _choice(d, params, table):
    n = int(params[0])
    column, within = divmod(d * n, 2**64)
    entry = int(table[column])
    return column if within >> 32 < entry >> 32 else entry & 0xFFFFFFFF


def _normal64_fast(d):
    """(value, accepted) of the ziggurat's fast path."""
    layer, m = d & 1023, d >> 11
    x = float(m) * float(zt.W[layer])
    return (-x if d >> 10 & 1 else x), m < int(zt.K[layer])


def _normal64(lo, hi, params, table):
    d = _joined(lo, hi)
    values, accepted = zip(*(_normal64_fast(x) for x in d))
    scale, loc = _as_float(params[0]), _as_float(params[1])
    values = [float(fmath.fma(v, scale, loc)) for v in values]
    return np.array(values).reshape(lo.shape), np.array(accepted).reshape(lo.shape)


def _normal64_miss(spec, generator, g, d):
    """A ziggurat miss, resolved on draws 0, 1, ... of lane ``g`` of the retry key."""
    draws = _continuation(spec, generator, g)
    r, f = float(zt.R), zt.F
    while True:
        layer, negative, m = d & 1023, d >> 10 & 1, d >> 11
        if layer == 0:
            while True:
                a = _minus_log(((next(draws) >> 11) + 1) * 2.0**-53) / r
                b = _minus_log(((next(draws) >> 11) + 1) * 2.0**-53)
                if b + b > a * a:
                    x = r + a
                    break
            break
        x = float(m) * float(zt.W[layer])
        u = (next(draws) >> 11) * 2.0**-53
        y = fmath.fma(u, float(f[layer + 1]) - float(f[layer]), float(f[layer]))
        if y < fmath.exp64(fmath.fma(x, x * -0.5, 0.0)):
            break
        d = next(draws)
        x, accepted = _normal64_fast(d)
        if accepted:
            return _scaled(spec, x)
    return _scaled(spec, -x if negative else x)


def _continuation(spec, generator, g):
    """The 64-bit draws 0, 1, ... of lane ``g`` of the retry key, as ints."""
    for start in itertools.count(0, 32):
        positions = np.arange(start, start + 32, 2, dtype=np.uint64)
        lo, hi = _draws(generator, spec.retry_key, g, positions, 2)
        yield from _joined(lo, hi)


def _scaled(spec, z):
    return float(fmath.fma(z, _as_float(spec.params[0]), _as_float(spec.params[1])))


def _normal32_pair(even, odd, params):
    r = fmath32.sqrt32(fmath32.log_word32(np.uint64(even)) * np.float32(-2.0))
    s, c = fmath32.sincos2pi_word32(np.uint64(odd))
    scale, loc = (np.float32(_as_float(p)) for p in params[:2])
    return fmath32.fma32(r * c, scale, loc), fmath32.fma32(r * s, scale, loc)


_MAPS.update({
    "normal64": _normal64,
    "exponential64": _elementwise(_exponential64),
    "exponential32": _elementwise(_exponential32),
    "choice": _elementwise(_choice),
})
_PAIR_MAPS = {"normal32": _normal32_pair}
_MISSES = {"normal64": _normal64_miss}


def _draws(generator, key, lane, positions, width):
    lo = words(generator, key, lane, positions)
    hi = words(generator, key, lane, positions + np.uint64(1)) if width == 2 else np.zeros_like(lo)
    return lo, hi


def _retry(spec, generator, g, d):
    """The value of a rejected element: draws 0, 1, ... of lane ``g`` of the retry key."""
    if spec.kind in _MISSES:
        return _MISSES[spec.kind](spec, generator, g, d)
    width, value_map = spec.width, _MAPS[spec.kind]
    for attempt in range(1 << 20):
        position = np.array([attempt * width], dtype=np.uint64)
        lo, hi = _draws(generator, spec.retry_key, g, position, width)
        value, accepted = value_map(lo, hi, spec.params, spec.table)
        if accepted[0]:
            return value[0]
    raise RuntimeError("no draw accepted")  # probability below 2**-(2**20)


def _paired(spec, stream, positions):
    """Elements of a map of aligned word pairs: each takes its pair's even or odd value."""
    even = positions & ~np.uint64(1)
    lo = words(stream.generator, stream.key, stream.lane, even)
    hi = words(stream.generator, stream.key, stream.lane, even + np.uint64(1))
    pairs = [_PAIR_MAPS[spec.kind](int(a), int(b), spec.params)
             for a, b in zip(lo.ravel().tolist(), hi.ravel().tolist())]
    odd = (positions & np.uint64(1)).ravel().tolist()
    return np.array([p[o] for p, o in zip(pairs, odd)]).reshape(positions.shape)


def _elements(spec, stream, element_index, out):
    width = spec.width
    positions = np.uint64(stream.position) + np.uint64(width) * _u64(element_index)
    if spec.kind in _PAIR_MAPS:
        out[...] = _paired(spec, stream, positions).astype(out.dtype)
        return
    lo, hi = _draws(stream.generator, stream.key, stream.lane, positions, width)
    values, accepted = _MAPS[spec.kind](lo, hi, spec.params, spec.table)
    for i in np.flatnonzero(~accepted):
        d = int(hi[i]) << 32 | int(lo[i])
        values[i] = _retry(spec, stream.generator, int(positions[i]), d)
    out[...] = values.astype(out.dtype, casting="unsafe")


def fill(spec, stream, out, threads=None):
    """Write ``out.size`` elements of ``spec`` from ``stream.position`` into flat ``out``."""
    _elements(spec, stream, np.arange(out.size, dtype=np.uint64), out)


def addressed(spec, stream, index, out, threads=None):
    """Write element ``index[i]`` of the fill from ``stream`` into ``out[i]``."""
    _elements(spec, stream, index, out)
