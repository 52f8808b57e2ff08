"""The oracle: the stream contract in plain NumPy, slow and obviously right.

Written apart from ``tandem.core`` on purpose: the bijections here are array
code transcribed from Random123's ``philox.h`` and ``threefry.h`` and from
the tandem specification's ``SPEC.md`` (sections 3, 4 and 6), and the
value maps and misses are transcribed from ``docs/spec.md``; only the math
functions (pinned by their accuracy tests) and the ziggurat tables (pinned
by their own checks) come from ``tandem.core``.  Each :class:`tandem.kinds.Kind`
names its oracle here; :mod:`tandem.backends.reference` runs them element by
element, and the CPU and GPU backends must agree with it bit for bit.

A value map is ``(lo, hi, params, table) -> (values, accepted)`` on arrays of
words (``hi`` is zero for one-word kinds); a pair map (Box-Muller) is
``(even, odd, params, table) -> (values of even words, values of odd words)``
on the words of aligned pairs; a miss is ``(record, d) -> value``
for the element whose draw ``d`` (an int) was rejected, with ``record`` the
:class:`tandem.kinds.FillRecord` and ``record.start`` the word of the draw.
"""

import itertools

import numpy as np

from .core import fmath, fmath32, special
from .core import ziggurat_exponential32 as ze32
from .core import ziggurat_exponential64 as ze64
from .core import ziggurat_normal32 as zn32
from .core import ziggurat_tables as zn64
from .core.inversion import COUNT_LIMIT

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


# Tandem8x32, SPEC.md sections 2 to 6.
_TANDEM = 2
_TANDEM_RC = (0xD17CC1B7, 0xA7220A94, 0xFE13ABE8, 0xFA9A6EE0,
              0xEDB14ACC, 0x9E21C820, 0xFF28B1D5, 0xEF5DE2B0)
_TANDEM_OWN_LANE = 2**64 - 1


def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & M32


def _tandem_step(o, h):
    """Step T on arrays: ``o' = mix(o, h)``, ``h' = clock(h)`` with ``o'0`` fed back."""
    p0, p1 = o[0] * (h[0] | np.uint64(1)), o[2] * (h[1] | np.uint64(1))
    lo0, lo1 = p0 & M32, p1 & M32
    mixed = [o[1] ^ (p1 >> np.uint64(32)) ^ lo1, _rotl32(lo1, 16) ^ h[2],
             o[3] ^ (p0 >> np.uint64(32)) ^ lo0, _rotl32(lo0, 16) ^ h[3]]
    q0 = h[0] ^ _rotl32(h[1], 7)
    q1 = h[1] ^ _rotl32(h[2], 13)
    q2 = h[2] ^ _rotl32(h[3], 22)
    q3 = h[3] ^ _rotl32(q0, 3)
    return mixed, [((q0 + np.uint64(0x9E3779B9)) & M32) ^ mixed[0], q1, q2, q3]


def _tandem_f(key, counter, domain, aux):
    """``F(key, counter, domain, aux)`` on arrays of counters: ``(o, h)``."""
    counter = _u64(counter)
    o = [counter & M32, counter >> np.uint64(32), np.full_like(counter, domain),
         np.full_like(counter, aux)]
    h = [np.full_like(counter, k) for k in key]
    for rc in _TANDEM_RC:
        o, h = _tandem_step(o, h)
        o[0] = o[0] ^ np.uint64(rc)
        o, h = h, o
    return o, h


def tandem_words(key, log2_k, positions):
    """Words at ``positions`` (uint64 array) of the Tandem8x32 stream of ``key``."""
    positions = _u64(positions)
    r = positions >> np.uint64(5)  # the 1024-bit row
    j = r & np.uint64((1 << log2_k) - 1)
    c = ((r >> np.uint64(log2_k)) << np.uint64(3)) | ((positions >> np.uint64(2)) & np.uint64(7))
    o, h = _tandem_f(key, c, 0x9E3779B9, 0x94D049BB)
    exposed = [np.zeros_like(positions) for _ in range(4)]
    for step in range(int(j.max(initial=0)) + 1):
        o, h = _tandem_step(o, h)
        here = j == np.uint64(step)
        for t in range(4):
            exposed[t] = np.where(here, o[t], exposed[t])
    t = (positions & np.uint64(3)).astype(np.intp)
    return np.choose(t, exposed).astype(np.uint64)


def _tandem_lane_words(key, lane, positions):
    """Words of the generator axis's Tandem8x32 (``tandem.core.tandem8x32.lane_block_at``):
    the first key word carries ``log2(K)`` above bit 32; a lane other than the own
    one is ``split(lane)``, half ``lane & 1`` of ``F(key, lane >> 1, DOMAIN_SPLIT, 0)``."""
    log2_k = int(key[0]) >> 32
    key = (int(key[0]) & 0xFFFFFFFF,) + tuple(int(k) for k in key[1:])
    if lane != _TANDEM_OWN_LANE:
        o, h = _tandem_f(key, np.array([lane >> 1], np.uint64), 0xBB67AE85, 0)
        key = tuple(int(x[0]) for x in (h if lane & 1 else o))
    return tandem_words(key, log2_k, positions)


def words(generator, key, lane, positions):
    """Words at ``positions`` (uint64 array) of ``lane``, as uint64."""
    positions = _u64(positions)
    if generator == _TANDEM:
        return _tandem_lane_words(key, int(lane), positions)
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


# -- value maps ----------------------------------------------------------------

def _all(x):
    return np.ones(x.shape, dtype=bool)


def _joined(lo, hi):
    """The 64-bit draws of word arrays ``lo`` and ``hi``, as a flat list of ints."""
    return [int(h) << 32 | int(l) for l, h in zip(lo.ravel().tolist(), hi.ravel().tolist())]


def _as_float(bits):
    return float(np.uint64(bits).view(np.float64))


def _as_float32(bits):
    return np.float32(_as_float(bits))


def bits32(lo, hi, p, t):
    return lo, _all(lo)


def bits64(lo, hi, p, t):
    return lo | (hi << np.uint64(32)), _all(lo)


def bitsbool(lo, hi, p, t):
    return lo >> np.uint64(31) == 1, _all(lo)


def uniform32(lo, hi, p, t):
    return ((lo >> np.uint64(8)) + np.uint64(p[0])).astype(np.float32) * np.float32(2.0**-24), \
        _all(lo)


def uniform64(lo, hi, p, t):
    d = lo | (hi << np.uint64(32))
    return ((d >> np.uint64(11)) + np.uint64(p[0])).astype(np.float64) * 2.0**-53, _all(lo)


def integers64(lo, hi, params, table):
    low, span, threshold = (int(p) for p in params)
    span = span or 2**64
    d = _joined(lo, hi)
    values = np.array([(low + (x * span >> 64)) % 2**64 for x in d], dtype=np.uint64)
    accepted = np.array([(x * span) % 2**64 >= threshold for x in d], dtype=bool)
    return values.reshape(lo.shape), accepted.reshape(lo.shape)


def integers32(lo, hi, params, table):
    low, span, threshold = (np.uint64(p) for p in params)
    m = lo * span
    return low + (m >> np.uint64(32)), (m & M32) >= threshold


def bernoulli(lo, hi, p, t):
    return (np.uint64(p[1]) == 1) | ((lo | (hi << np.uint64(32))) < np.uint64(p[0])), _all(lo)


def _elementwise(fn):
    """A map of one-word or 64-bit draws from ``fn(draw, params, table) -> (value, accepted)``."""
    def value_map(lo, hi, params, table):
        pairs = [fn(d, params, table) for d in _joined(lo, hi)]
        values = np.array([v for v, _ in pairs])
        accepted = np.array([a for _, a in pairs], dtype=bool)
        return values.reshape(lo.shape), accepted.reshape(lo.shape)

    value_map.__name__ = value_map.__qualname__ = fn.__name__
    return value_map


def _minus_log(u):
    return 0.0 - float(fmath.log64(u))


def _open_uniform(d):
    """The ``(0, 1]`` uniform of a 64-bit draw."""
    return ((d >> 11) + 1) * 2.0**-53


@_elementwise
def exponential64(d, params, table):
    return _minus_log(_open_uniform(d)) * _as_float(params[0]), True


@_elementwise
def exponential32(w, params, table):
    minus_log = np.float32(0.0) - fmath32.log_word32(np.uint64(w))
    return minus_log * _as_float32(params[0]), True


@_elementwise
def choice(d, params, table):
    n = int(params[0])
    column, within = divmod(d * n, 2**64)
    entry = int(table[column])
    return (column if within >> 32 < entry >> 32 else entry & 0xFFFFFFFF), True


# -- by inversion of the open uniform -------------------------------------------------

def _v(d):
    """The open uniform ``(2 (d >> 12) + 1) / 2**53`` of a 64-bit draw."""
    return ((d >> 12) * 2 + 1) * 2.0**-53


def _log(x):
    return float(fmath.log64(x))


def _exp(x):
    """``e**x``: exp64 on [-708, 709], exp64(x / 2) squared (one fma) outside."""
    if -708.0 <= x <= 709.0:
        return float(fmath.exp64(x))
    if x > 709.782712893384:
        return np.inf
    if x < -745.2:
        return 0.0
    half = fmath.exp64(x * 0.5)
    return float(fmath.fma(half, half, 0.0))


@_elementwise
def uniform_range64(d, params, table):
    return _scaled_normal((d >> 11) * 2.0**-53, params), True


@_elementwise
def laplace64(d, params, table):
    v = _v(d)
    x = _log(2.0 * v) if v < 0.5 else 0.0 - _log(2.0 * (1.0 - v))
    return _scaled_normal(x, params), True


@_elementwise
def logistic64(d, params, table):
    v = _v(d)
    return _scaled_normal(_log(v) - _log(1.0 - v), params), True


@_elementwise
def gumbel64(d, params, table):
    return _scaled_normal(0.0 - _log(0.0 - _log(_v(d))), params), True


@_elementwise
def cauchy64(d, params, table):
    s, c = fmath.sincos2pi64(_v(d) / 2)
    return float(c) / float(s), True


@_elementwise
def rayleigh64(d, params, table):
    return float(np.sqrt(-2.0 * _log(_v(d)))) * _as_float(params[0]), True


@_elementwise
def weibull64(d, params, table):
    a = _as_float(params[0])
    return (0.0 if a == 0.0 else _exp(_log(0.0 - _log(_v(d))) / a)), True


@_elementwise
def power64(d, params, table):
    return _exp(_log(_v(d)) / _as_float(params[0])), True


@_elementwise
def triangular64(d, params, table):
    left, mode, right = (_as_float(p) for p in params)
    v = _v(d)
    if v * (right - left) <= mode - left:
        return left + float(np.sqrt(v * (mode - left) * (right - left))), True
    return right - float(np.sqrt((1.0 - v) * (right - mode) * (right - left))), True


@_elementwise
def pareto64(d, params, table):
    return float(special.expm1_64(float(np.divide(0.0 - _log(_v(d)), _as_float(params[0]))))), True


def count64(values, xp=np):
    """``tandem.core.inversion.count64`` of each f64 count of ``values`` (an array
    of the array module ``xp``): int64, those from ``2**63`` on the largest
    int64, as NumPy's geometric."""
    big = values >= COUNT_LIMIT
    return xp.where(big, np.iinfo(np.int64).max, xp.where(big, 0.0, values).astype(np.int64))


@_elementwise
def geometric64(d, params, table):
    p = _as_float(params[0])
    if p == 1.0:
        return 1.0, True
    return float(np.ceil(_log(_v(d)) / float(special.log1p64(0.0 - p)))), True


@_elementwise
def lognormal64(d, params, table):
    x, accepted = _normal64_fast(d)
    return _exp(_scaled_normal(x, params)), accepted


def lognormal64_miss(record, d):
    return _exp(normal64_miss(record, d))


# -- gamma: a block an element ------------------------------------------------------

def _blockwise(fn):
    """A map of blocks from ``fn(d0, d1, params) -> (value, accepted)`` on the
    block's two 64-bit draws."""
    def value_map(d0, d1, params, table):
        pairs = [fn(int(a), int(b), params) for a, b in zip(d0.ravel().tolist(),
                                                             d1.ravel().tolist())]
        values = np.array([v for v, _ in pairs], dtype=np.float64)
        accepted = np.array([a for _, a in pairs], dtype=bool)
        return values.reshape(d0.shape), accepted.reshape(d0.shape)

    value_map.__name__ = value_map.__qualname__ = fn.__name__
    return value_map


def _marsaglia_tsang(z, u, d, c):
    t = float(fmath.fma(c, z, 1.0))
    if t <= 0.0:
        return False, 0.0
    v = float(fmath.fma(t * t, t, 0.0))
    if u < fmath.fma((z * z) * (z * z), -0.0331, 1.0):
        return True, v
    bound = fmath.fma(d, (1.0 - v) + _log(v), fmath.fma(z * 0.5, z, 0.0))
    return _log(u) < bound, v


def _weibull_envelope(u, e, a, inv):
    if u <= 1.0 - a:
        x = _exp(_log(u) * inv)
        return x <= e, x
    y = 0.0 - _log(float(np.divide(1.0 - u, a)))
    x = _exp(_log(float(fmath.fma(a, y, 1.0 - a))) * inv)
    return x <= e + y, x


@_blockwise
def gamma64(d0, d1, params):
    p, c, m = (_as_float(w) for w in params)
    if c > 0.0:
        z, fast = _normal64_fast(d0)
        accepted, v = _marsaglia_tsang(z, _v(d1), p, c)
        return m * v, fast and accepted
    accepted, x = _weibull_envelope(_v(d0), 0.0 - _log(_v(d1)), p, -c)
    return x * m, accepted


def _draw64(record, g, w):
    lo, hi = (words(record.generator, record.retry_key, g, np.array([w + j], np.uint64))[0]
              for j in (0, 1))
    return int(hi) << 32 | int(lo)


def gamma64_miss(record, d):
    d0, d1 = d
    p, c, m = (_as_float(w) for w in record.params)
    g = record.start
    if c > 0.0:
        z, fast = _normal64_fast(d0)
        if not fast:
            z = _normal_miss(zn64, _normal64_fast, 1024, 10, 11, True, continuation(record, g),
                             d0)
            accepted, v = _marsaglia_tsang(z, _v(d1), p, c)
            if accepted:
                return m * v
    for r in itertools.count():
        w = 2**62 + 8 * r  # blocks 2**60 + 2 r and 2**60 + 2 r + 1
        if c > 0.0:
            u1, u2 = _v(_draw64(record, g, w)), (_draw64(record, g, w + 2) >> 11) * 2.0**-53
            s, co = fmath.sincos2pi64(u2)
            z = float(np.sqrt(-2.0 * _log(u1))) * float(co)
            accepted, v = _marsaglia_tsang(z, _v(_draw64(record, g, w + 4)), p, c)
            if accepted:
                return m * v
        else:
            e = 0.0 - _log(_v(_draw64(record, g, w + 6)))
            accepted, x = _weibull_envelope(_v(_draw64(record, g, w + 4)), e, p, -c)
            if accepted:
                return x * m


# -- Poisson: a block an element --------------------------------------------------

def _poisson_inversion(u, lam):
    p = float(fmath.exp64(0.0 - lam))
    total, k = p, 0.0
    while u > total:
        k += 1.0
        p = p * lam / k
        if total + p == total:
            break
        total += p
    return k


def _ptrs(u, v, lam):
    b = float(fmath.fma(2.53, float(np.sqrt(lam)), 0.931))
    a = float(fmath.fma(0.02483, b, -0.059))
    us = 0.5 - abs(u - 0.5)
    k = float(np.floor(float(fmath.fma(2.0 * a / us + b, u - 0.5, lam)) + 0.43))
    if us >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2.0):
        return True, k
    if k < 0.0 or (us < 0.013 and v > us):
        return False, k
    lhs = (_log(v) + _log(1.1239 + 1.1328 / (b - 3.4))) - _log(a / (us * us) + b)
    rhs = float(fmath.fma(k, _log(lam), 0.0 - lam)) - float(special.lgamma64(k + 1.0))
    return lhs <= rhs, k


@_blockwise
def poisson64(d0, d1, params):
    lam = _as_float(params[0])
    if lam < 10.0:
        return _poisson_inversion(_v(d0), lam), True
    accepted, k = _ptrs(_v(d0), _v(d1), lam)
    return k, accepted


def poisson64_miss(record, d):
    lam = _as_float(record.params[0])
    for r in itertools.count():
        accepted, k = _ptrs(_v(_draw64(record, record.start, 4 * r)),
                            _v(_draw64(record, record.start, 4 * r + 2)), lam)
        if accepted:
            return k


# -- binomial: a block an element ------------------------------------------------

def _binomial_inversion(u, n, p):
    ratio = p / (1.0 - p)
    f = float(fmath.exp64(float(fmath.fma(n, float(special.log1p64(0.0 - p)), 0.0))))
    total, k = f, 0.0
    while u > total and k < n:
        k += 1.0
        f = float(fmath.fma(f * ((n - k + 1.0) / k), ratio, 0.0))
        if total + f == total:
            break
        total += f
    return k


def _btrs(u, v, n, p):
    q = 1.0 - p
    spq = float(np.sqrt(n * p * q))
    b = float(fmath.fma(2.53, spq, 1.15))
    a = float(fmath.fma(0.0248, b, float(fmath.fma(0.01, p, -0.0873))))
    us = 0.5 - abs(u - 0.5)
    k = float(np.floor(float(fmath.fma(2.0 * a / us + b, u - 0.5, float(fmath.fma(n, p, 0.5))))))
    if k < 0.0 or k > n:
        return False, k
    if us >= 0.07 and v <= 0.92 - 4.2 / b:
        return True, k
    alpha = (2.83 + 5.1 / b) * spq
    m = float(np.floor(float(fmath.fma(n, p, p))))
    lg = special.lgamma64
    h = float(lg(m + 1.0)) + float(lg((n - m) + 1.0))
    rest = h - (float(lg(k + 1.0)) + float(lg((n - k) + 1.0)))
    return _log(v * alpha / (a / (us * us) + b)) <= float(fmath.fma(k - m, _log(p / q), rest)), k


@_blockwise
def binomial64(d0, d1, params):
    n, p = _as_float(params[0]), _as_float(params[1])
    small = 1.0 - p if p > 0.5 else p
    if n * small < 10.0:
        k, accepted = _binomial_inversion(_v(d0), n, small), True
    else:
        accepted, k = _btrs(_v(d0), _v(d1), n, small)
    return (n - k if p > 0.5 else k), accepted


def binomial64_miss(record, d):
    n, p = _as_float(record.params[0]), _as_float(record.params[1])
    small = 1.0 - p if p > 0.5 else p
    for r in itertools.count():
        accepted, k = _btrs(_v(_draw64(record, record.start, 4 * r)),
                            _v(_draw64(record, record.start, 4 * r + 2)), n, small)
        if accepted:
            return n - k if p > 0.5 else k


# -- Jöhnk's beta: a block an element -------------------------------------------------

def _johnk(u, v, a, b):
    lx, ly = float(np.divide(_log(u), a)), float(np.divide(_log(v), b))
    x, y = _exp(lx), _exp(ly)
    if not x + y <= 1.0:
        return False, 0.0
    if x + y > 0.0:
        return True, x / (x + y)
    m = max(lx, ly)
    return True, _exp((lx - m) - _log(_exp(lx - m) + _exp(ly - m)))


@_blockwise
def beta_johnk64(d0, d1, params):
    accepted, value = _johnk(_v(d0), _v(d1), _as_float(params[0]), _as_float(params[1]))
    return value, accepted


def beta_johnk64_miss(record, d):
    a, b = _as_float(record.params[0]), _as_float(record.params[1])
    for r in itertools.count():
        accepted, value = _johnk(_v(_draw64(record, record.start, 4 * r)),
                                 _v(_draw64(record, record.start, 4 * r + 2)), a, b)
        if accepted:
            return value


# -- von Mises: a block an element ------------------------------------------------

def _wrap(x):
    a = abs(x) + np.pi
    r = float(fmath.fma(-float(np.floor(a / (2 * np.pi))), 2 * np.pi, a))
    r = r + 2 * np.pi if r < 0.0 else r
    r = (r - 2 * np.pi if r >= 2 * np.pi else r) - np.pi
    return -r if x < 0.0 else r


def _best_fisher(u, v, kappa, s):
    z = float(fmath.sincos2pi64(u * 0.5)[1])
    w = float(fmath.fma(s, z, 1.0)) / (s + z)
    y = float(fmath.fma(kappa, s - w, 0.0))
    return (fmath.fma(y, 2.0 - y, -v) >= 0.0) or ((_log(y / v) + 1.0) - y >= 0.0), w


def _vonmises_angle(w, d0):
    angle = float(special.acos64(w))
    return -angle if d0 & 1 else angle


@_blockwise
def vonmises64(d0, d1, params):
    mu, kappa, s = (_as_float(p) for p in params)
    u = _v(d0)
    if kappa < 1e-8:
        return _wrap(float(fmath.fma(np.pi, float(fmath.fma(u, 2.0, -1.0)), 0.0)) + mu), True
    if kappa > 1e6:
        c = float(fmath.sincos2pi64((d1 >> 11) * 2.0**-53)[1])
        z = float(np.sqrt(-2.0 * _log(u))) * c
        return _wrap(z / float(np.sqrt(kappa)) + mu), True
    accepted, w = _best_fisher(u, _v(d1), kappa, s)
    return _wrap(_vonmises_angle(w, d0) + mu), accepted


def vonmises64_miss(record, d):
    mu, kappa, s = (_as_float(p) for p in record.params)
    for r in itertools.count():
        d0 = _draw64(record, record.start, 4 * r)
        accepted, w = _best_fisher(_v(d0), _v(_draw64(record, record.start, 4 * r + 2)),
                                   kappa, s)
        if accepted:
            return _wrap(_vonmises_angle(w, d0) + mu)


# -- the ziggurats ------------------------------------------------------------------
# Each: (draw -> (layer, negative, m)), the fast value m * W[layer] in the
# output's precision, and m < K[layer].

def _normal64_fast(d):
    layer, m = d & 1023, d >> 11
    x = float(m) * float(zn64.W[layer])
    return (-x if d >> 10 & 1 else x), m < int(zn64.K[layer])


def _normal32_fast(w):
    layer, m = w & 255, w >> 9
    x = np.float32(m) * zn32.W[layer]
    return (-x if w >> 8 & 1 else x), m < int(zn32.K[layer])


def _exponential64_fast(d):
    layer, m = d & 255, d >> 11
    return float(m) * float(ze64.W[layer]), m < int(ze64.K[layer])


def _exponential32_fast(w):
    layer, m = w & 255, w >> 8
    return np.float32(m) * ze32.W[layer], m < int(ze32.K[layer])


def _scaled_normal(z, params):
    if isinstance(z, np.float32):
        return fmath32.fma32(z, _as_float32(params[0]), _as_float32(params[1]))
    return float(fmath.fma(z, _as_float(params[0]), _as_float(params[1])))


def _scaled(e, params):
    return e * (_as_float32(params[0]) if isinstance(e, np.float32) else _as_float(params[0]))


def _ziggurat(name, fast, scaled):
    """The value map of a ziggurat: its fast path, scaled, or a miss."""
    def value(d, params, table):
        x, accepted = fast(d)
        return scaled(x, params), accepted

    value.__name__ = name
    return _elementwise(value)


normal64 = _ziggurat("normal64", _normal64_fast, _scaled_normal)
normal32_zig = _ziggurat("normal32_zig", _normal32_fast, _scaled_normal)
exponential64_zig = _ziggurat("exponential64_zig", _exponential64_fast, _scaled)
exponential32_zig = _ziggurat("exponential32_zig", _exponential32_fast, _scaled)


def normal32(even, odd, params, table):
    """Box-Muller in f32 on arrays of aligned word pairs: ``(cosine values, sine values)``."""
    pairs = [_normal32_pair(int(a), int(b), params)
             for a, b in zip(even.ravel().tolist(), odd.ravel().tolist())]
    cos = np.array([c for c, _ in pairs], dtype=np.float32).reshape(even.shape)
    sin = np.array([s for _, s in pairs], dtype=np.float32).reshape(even.shape)
    return cos, sin


def _normal32_pair(even, odd, params):
    r = fmath32.sqrt32(fmath32.log_word32(np.uint64(even)) * np.float32(-2.0))
    s, c = fmath32.sincos2pi_word32(np.uint64(odd))
    scale, loc = _as_float32(params[0]), _as_float32(params[1])
    return fmath32.fma32(r * c, scale, loc), fmath32.fma32(r * s, scale, loc)


def continuation(record, g):
    """The 64-bit draws 0, 1, ... of lane ``g`` of ``record``'s retry key, as ints."""
    for start in itertools.count(0, 32):
        positions = np.arange(start, start + 32, 2, dtype=np.uint64)
        lo = words(record.generator, record.retry_key, g, positions)
        hi = words(record.generator, record.retry_key, g, positions + np.uint64(1))
        yield from _joined(lo, hi)


def _normal_miss(tables, fast, layers, sign_bit, shift, wide, draws, d):
    """A normal ziggurat's miss of the draw ``d`` on the continuation ``draws``."""
    r, f, w = float(tables.R), tables.F, tables.W
    while True:
        layer, negative, m = d % layers, d >> sign_bit & 1, d >> shift
        if layer == 0:
            while True:
                a = _minus_log(_open_uniform(next(draws))) / r
                b = _minus_log(_open_uniform(next(draws)))
                if b + b > a * a:
                    x = r + a if wide else np.float32(r + a)
                    return -x if negative else x
        x = float(m) * float(w[layer]) if wide else np.float32(m) * w[layer]
        v = (next(draws) >> 11) * 2.0**-53
        y = fmath.fma(v, float(f[layer + 1]) - float(f[layer]), float(f[layer]))
        if y < fmath.exp64(fmath.fma(float(x), float(x) * -0.5, 0.0)):
            return -x if negative else x
        d = next(draws) if wide else next(draws) & 0xFFFFFFFF
        x, accepted = fast(d)
        if accepted:
            return x


def _exponential_miss(tables, fast, shift, wide, draws, d):
    """An exponential ziggurat's miss of the draw ``d`` on the continuation ``draws``."""
    offset, f, w = 0.0, tables.F, tables.W
    while True:
        layer, m = d & 255, d >> shift
        if layer == 0:
            offset += float(tables.R)
        else:
            x = float(m) * float(w[layer]) if wide else float(np.float32(m) * w[layer])
            v = (next(draws) >> 11) * 2.0**-53
            y = fmath.fma(v, float(f[layer + 1]) - float(f[layer]), float(f[layer]))
            if y < fmath.exp64(0.0 - x):
                return offset + x if wide else np.float32(offset + x)
        d = next(draws) if wide else next(draws) & 0xFFFFFFFF
        x, accepted = fast(d)
        if accepted:
            return offset + x if wide else np.float32(offset + float(x))


def normal64_miss(record, d):
    draws = continuation(record, record.start)
    return _scaled_normal(_normal_miss(zn64, _normal64_fast, 1024, 10, 11, True, draws, d),
                          record.params)


def normal32_zig_miss(record, d):
    draws = continuation(record, record.start)
    return _scaled_normal(_normal_miss(zn32, _normal32_fast, 256, 8, 9, False, draws, d),
                          record.params)


def exponential64_zig_miss(record, d):
    return _scaled(_exponential_miss(ze64, _exponential64_fast, 11, True,
                                     continuation(record, record.start), d), record.params)


def exponential32_zig_miss(record, d):
    return _scaled(_exponential_miss(ze32, _exponential32_fast, 8, False,
                                     continuation(record, record.start), d), record.params)
