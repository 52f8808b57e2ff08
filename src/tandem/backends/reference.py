"""The oracle: plain NumPy, slow and obviously right.

Written apart from ``tandem.core`` on purpose: the bijections here are array
code transcribed from Random123's ``philox.h`` and ``threefry.h`` and each
element is computed from its own position, with no blocks, chunks or tiles.
The CPU and GPU backends must agree with it bit for bit.
"""

import numpy as np

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


# -- value maps: (lo, hi, params) -> (values, accepted) ----------------------

def _all(x):
    return np.ones(x.shape, dtype=bool)


def _integers64(lo, hi, params):
    low, span, threshold = (int(p) for p in params)
    span = span or 2**64
    d = [int(h) << 32 | int(l) for l, h in zip(lo.tolist(), hi.tolist())]
    values = np.array([(low + (x * span >> 64)) % 2**64 for x in d], dtype=np.uint64)
    accepted = np.array([(x * span) % 2**64 >= threshold for x in d], dtype=bool)
    return values.reshape(lo.shape), accepted.reshape(lo.shape)


def _integers32(lo, hi, params):
    low, span, threshold = (np.uint64(p) for p in params)
    m = lo * span
    return low + (m >> np.uint64(32)), (m & M32) >= threshold


_MAPS = {
    "bits32": lambda lo, hi, p: (lo, _all(lo)),
    "bits64": lambda lo, hi, p: (lo | (hi << np.uint64(32)), _all(lo)),
    "bitsbool": lambda lo, hi, p: (lo >> np.uint64(31) == 1, _all(lo)),
    "uniform32": lambda lo, hi, p: (
        ((lo >> np.uint64(8)) + np.uint64(p[0])).astype(np.float32) * np.float32(2.0**-24),
        _all(lo)),
    "uniform64": lambda lo, hi, p: (
        (((lo | (hi << np.uint64(32))) >> np.uint64(11)) + np.uint64(p[0])).astype(np.float64)
        * 2.0**-53, _all(lo)),
    "integers32": _integers32,
    "integers64": _integers64,
    "bernoulli": lambda lo, hi, p: (
        (np.uint64(p[1]) == 1) | ((lo | (hi << np.uint64(32))) < np.uint64(p[0])), _all(lo)),
}


def _draws(generator, key, lane, positions, width):
    lo = words(generator, key, lane, positions)
    hi = words(generator, key, lane, positions + np.uint64(1)) if width == 2 else np.zeros_like(lo)
    return lo, hi


def _retry(spec, generator, g):
    """The value of a rejected element: draws 0, 1, ... of lane ``g`` of the retry key."""
    width, value_map = spec.width, _MAPS[spec.kind]
    for attempt in range(1 << 20):
        position = np.array([attempt * width], dtype=np.uint64)
        lo, hi = _draws(generator, spec.retry_key, g, position, width)
        value, accepted = value_map(lo, hi, spec.params)
        if accepted[0]:
            return value[0]
    raise RuntimeError("no draw accepted")  # probability below 2**-(2**20)


def _elements(spec, stream, element_index, out):
    width, value_map = spec.width, _MAPS[spec.kind]
    positions = np.uint64(stream.position) + np.uint64(width) * _u64(element_index)
    lo, hi = _draws(stream.generator, stream.key, stream.lane, positions, width)
    values, accepted = value_map(lo, hi, spec.params)
    for i in np.flatnonzero(~accepted):
        values[i] = _retry(spec, stream.generator, int(positions[i]))
    out[...] = values.astype(out.dtype, casting="unsafe")


def fill(spec, stream, out, threads=None):
    """Write ``out.size`` elements of ``spec`` from ``stream.position`` into flat ``out``."""
    _elements(spec, stream, np.arange(out.size, dtype=np.uint64), out)


def addressed(spec, stream, index, out, threads=None):
    """Write element ``index[i]`` of the fill from ``stream`` into ``out[i]``."""
    _elements(spec, stream, index, out)
