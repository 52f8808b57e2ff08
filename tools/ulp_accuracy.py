#!/usr/bin/env python3
"""Measure the accuracy of ``tandem.core``'s fmath, fmath32 and special in ulps, on big input sets.

For each function and input set it prints one row of a markdown table: the
maximum and mean error in ulps of the exact result, and the share of
results equal to the reference rounded to the function's precision
(correctly rounded, up to the reference's own error); ulps are float64 ulps
for fmath and special and float32 ulps for fmath32.  ``tests/test_fmath.py`` and
``tests/test_special.py`` pin the same bounds on smaller sets.

The reference is NumPy's ``longdouble`` where that is x87 extended precision
(64-bit mantissa): ``np.log``, ``np.exp``, ``np.sin`` and ``np.cos`` on
longdouble arrays, with the argument of sin and cos reduced exactly in
u-space first, and ``np.log1p``, ``np.expm1`` and ``np.arccos``.  The script first measures
that reference against mpmath at 40 digits on a sample and prints its error
in float64 ulps.  NumPy has no lgamma: its reference is mpmath's ``loggamma``
at 30 digits, carried into a longdouble as two doubles, on fewer inputs
(2**18 a set, about 40 us each).

Usage::

    python tools/ulp_accuracy.py                 # the table (a few minutes)
    python tools/ulp_accuracy.py --quick         # 16x fewer inputs
    python tools/ulp_accuracy.py --only lgamma64 # the sets of some functions
    python tools/ulp_accuracy.py --throughput    # M evaluations/s, one thread
    python tools/ulp_accuracy.py --coefficients  # re-derive the polynomials

``--coefficients`` recomputes the polynomial coefficients of
``tandem/core/fmath.py`` and ``special.py`` (Chebyshev interpolation with
mpmath at 60 digits, rounded to float64) and ``fmath32.py`` (50 digits,
rounded to float32), and the other constants of ``special.py``, prints them
and says whether they equal the constants in the modules.
"""

import argparse
import sys
import time

import mpmath as mp
import numba
import numpy as np

from tandem import core
from tandem.core import fmath, fmath32, special

LD = np.longdouble
CHUNK = 2**22


def _loops():
    core.register()
    log64, exp64, sincos2pi64 = fmath.log64, fmath.exp64, fmath.sincos2pi64

    @numba.njit
    def log_loop(x, out):
        for i in range(x.size):
            out[i] = log64(x[i])

    @numba.njit
    def exp_loop(x, out):
        for i in range(x.size):
            out[i] = exp64(x[i])

    @numba.njit
    def sincos_loop(u, s, c):
        for i in range(u.size):
            s[i], c[i] = sincos2pi64(u[i])

    log_word32, sincos2pi_word32 = fmath32.log_word32, fmath32.sincos2pi_word32

    @numba.njit
    def log32_loop(w, out):
        for i in range(w.size):
            out[i] = log_word32(w[i])

    @numba.njit
    def sincos32_loop(w, s, c):
        for i in range(w.size):
            s[i], c[i] = sincos2pi_word32(w[i])

    return log_loop, exp_loop, sincos_loop, log32_loop, sincos32_loop


LOG_LOOP, EXP_LOOP, SINCOS_LOOP, LOG32_LOOP, SINCOS32_LOOP = _loops()


def _special_loops():
    core.register()

    def make(fn):
        @numba.njit
        def loop(x, out):
            for i in range(x.size):
                out[i] = fn(x[i])
        return loop

    return {name: make(getattr(special, name))
            for name in ("log1p64", "expm1_64", "lgamma64", "acos64")}


SPECIAL_LOOPS = _special_loops()


def ours(name, x):
    """Our function over the array ``x``: a dict name -> float64 array."""
    if name in SPECIAL_LOOPS:
        out = np.empty_like(x)
        SPECIAL_LOOPS[name](x, out)
        return {name: out}
    if name == "log64":
        out = np.empty_like(x)
        LOG_LOOP(x, out)
        return {"log64": out}
    if name == "exp64":
        out = np.empty_like(x)
        EXP_LOOP(x, out)
        return {"exp64": out}
    if name == "log_word32":
        out = np.empty(x.size, np.float32)
        LOG32_LOOP(x, out)
        return {"log_word32": out}
    s, c = np.empty_like(x), np.empty_like(x)
    if name == "sincos2pi_word32":
        s, c = np.empty(x.size, np.float32), np.empty(x.size, np.float32)
        SINCOS32_LOOP(x, s, c)
        return {"sin32": s, "cos32": c}
    SINCOS_LOOP(x, s, c)
    return {"sin": s, "cos": c}


def reference(name, x):
    """The longdouble reference, same keys as :func:`ours`."""
    if name == "log_word32":
        return {name: reference("log64", (x + np.uint64(1)).astype(LD) * LD(2.0**-32))["log64"]}
    if name == "sincos2pi_word32":
        ref = reference("sincos2pi64", x.astype(np.float64) * 2.0**-32)
        return {"sin32": ref["sin"], "cos32": ref["cos"]}
    if name == "lgamma64":
        return {name: _mp_to_ld([mp_reference(name, v)[name] for v in x])}
    xl = x.astype(LD)
    if name == "log64":
        return {"log64": np.log(xl)}
    if name == "log1p64":
        return {name: np.log1p(xl)}
    if name == "expm1_64":
        return {name: np.expm1(xl)}
    if name == "acos64":
        return {name: np.arccos(xl)}
    if name == "exp64":
        return {"exp64": np.exp(xl)}
    n = np.rint(4 * xl)
    t = xl - n / 4  # exact
    a = (8 * np.arctan(LD(1))) * t  # |a| <= pi/4
    s, c = np.sin(a), np.cos(a)
    q = n.astype(np.int64) % 4
    quadrant = [q == 0, q == 1, q == 2, q == 3]
    sin = np.select(quadrant, [s, c, -s, -c])
    cos = np.select(quadrant, [c, -s, -c, s])
    return {"sin": sin, "cos": cos}


def mp_reference(name, v):
    """mpmath (40 digits; lgamma 30), same keys as :func:`ours`."""
    v = mp.mpf(float(v))
    if name == "lgamma64":
        with mp.workdps(30):
            return {name: +mp.loggamma(v)}
    if name == "log1p64":
        return {name: mp.log1p(v)}
    if name == "expm1_64":
        return {name: mp.expm1(v)}
    if name == "acos64":
        return {name: mp.acos(v)}
    if name == "log64":
        return {"log64": mp.log(v)}
    if name == "exp64":
        return {"exp64": mp.exp(v)}
    return {"sin": mp.sinpi(2 * v), "cos": mp.cospi(2 * v)}


def ulp_errors(y, ref):
    """|y - ref| in ulps of ref (ulps of y's precision; ref as longdouble)."""
    _, e = np.frexp(ref)
    ulp = np.ldexp(LD(1), e - (np.finfo(y.dtype).nmant + 1))
    err = np.abs((y.astype(LD) - ref) / np.where(ref == 0, 1, ulp))
    return np.where(ref == 0, np.where(y == 0, 0.0, np.inf), err).astype(np.float64)


def _mp_to_ld(values):
    """mpf values as longdouble, each the sum of its two leading doubles (64 bits kept)."""
    hi = np.array([float(v) for v in values])
    lo = np.array([float(v - mp.mpf(h)) if np.isfinite(h) else 0.0 for v, h in zip(values, hi)])
    return hi.astype(LD) + lo.astype(LD)


def _ld_to_mpf(v):
    """A longdouble as an mpf, exactly (its mantissa as two doubles)."""
    m, e = np.frexp(v)
    hi = float(m)
    return mp.ldexp(mp.mpf(hi) + mp.mpf(float(m - LD(hi))), int(e))


def check_reference(samples):
    """Max error of the longdouble reference vs mpmath, in float64 ulps."""
    mp.mp.dps = 40
    rng = np.random.default_rng(7)
    sets = {
        "log64": (rng.integers(1, 2**53, samples) * 2.0**-53),
        "exp64": rng.uniform(-708, 709, samples),
        "sincos2pi64": rng.integers(0, 2**53, samples) * 2.0**-53,
        "log1p64": np.concatenate([rng.uniform(-1, 1, samples // 2),
                                   2.0 ** rng.uniform(-60, 1023, samples // 2)]),
        "expm1_64": np.concatenate([rng.uniform(-0.35, 0.35, samples // 2),
                                    rng.uniform(-38, 709.78, samples // 2)]),
        "acos64": np.concatenate([rng.uniform(-1, 1, samples // 2),
                                  (1 - 2.0 ** rng.uniform(-53, -1, samples // 2))
                                  * rng.choice([-1.0, 1.0], samples // 2)]),
    }
    worst = {}
    for name, x in sets.items():
        ref = reference(name, x)
        for key in ref:
            exact = [mp_reference(name, v)[key] for v in x]
            errs = []
            for r, ex in zip(ref[key], exact):
                if ex == 0:
                    continue
                ulp = mp.mpf(2) ** (mp.floor(mp.log(abs(ex), 2)) - 52)
                errs.append(float(abs(_ld_to_mpf(r) - ex) / ulp))
            worst[key] = max(errs)
    return worst


def input_sets(scale):
    """(function, description, generator of input chunks, count)."""
    rng = np.random.default_rng(20240601)
    n24 = 2**24 // scale
    n22 = 2**22 // scale
    n18 = 2**18 // scale  # lgamma: mpmath reference

    def all24():
        step = scale
        for start in range(0, 2**24, CHUNK):
            w = np.arange(start, min(start + CHUNK, 2**24), step, dtype=np.float64)
            yield (w + 1) * 2.0**-24

    def sub32():
        w = np.sort(rng.choice(2**32, n24, replace=False)).astype(np.float64)
        w[:2] = 0, 2**32 - 1
        for i in range(0, w.size, CHUNK):
            yield (w[i:i + CHUNK] + 1) * 2.0**-32

    def rand53(lo):
        def gen():
            for i in range(0, n24, CHUNK):
                m = rng.integers(0, 2**53, min(CHUNK, n24 - i), dtype=np.uint64)
                m[:2] = 0, 2**53 - 1
                yield (m + lo).astype(np.float64) * 2.0**-53
        return gen

    def normals():
        for i in range(0, n22, CHUNK):
            k = min(CHUNK, n22 - i)
            bits = rng.integers(0x0010000000000000, 0x7FF0000000000000, k, dtype=np.uint64)
            yield bits.view(np.float64)

    def uniform(a, b):
        def gen():
            for i in range(0, n22, CHUNK):
                x = rng.uniform(a, b, min(CHUNK, n22 - i))
                x[:2] = a, b
                yield x
        return gen

    def all24_from0():
        for start in range(0, 2**24, CHUNK):
            yield np.arange(start, min(start + CHUNK, 2**24), scale, dtype=np.float64) * 2.0**-24

    def words(first):
        def gen():
            for start in range(first, first + 2**24, CHUNK):
                yield np.arange(start, min(start + CHUNK, first + 2**24), scale, dtype=np.uint64)
        return gen

    def drawn(draw, n):
        def gen():
            for i in range(0, n, CHUNK):
                yield draw(min(CHUNK, n - i))
        return gen

    def log_uniform(lo, hi, sign=False):
        """2**u, u uniform in [lo, hi] (random signs if sign)."""
        def draw(k):
            x = 2.0 ** rng.uniform(lo, hi, k)
            return x * rng.choice([-1.0, 1.0], k) if sign else x
        return draw

    def uniform_open(a, b):
        return lambda k: rng.uniform(a, b, k)

    def near(centres, lo, hi):
        """c + d, c from centres, |d| log-uniform in [2**lo, 2**hi], random signs."""
        def draw(k):
            d = 2.0 ** rng.uniform(lo, hi, k) * rng.choice([-1.0, 1.0], k)
            return rng.choice(centres, k) + d
        return draw

    def log_factorials(k):
        """k + 1 for integers k log-uniform below 1e13 (k = 0 ... 20 first)."""
        m = np.floor(10.0 ** rng.uniform(0, 13, k))
        m[:21] = np.arange(21)
        return m + 1

    def top(k):
        x = 2.0 ** rng.uniform(60, np.log2(special._LGAMMA_MAX), k)
        x[0] = special._LGAMMA_MAX
        return x

    def near_one(sign):
        """sign (1 - 2**u), u uniform in [-53, -1] (rounded to a double: 1 - 2**-53 is 1)."""
        return lambda k: sign * (1.0 - 2.0 ** rng.uniform(-53, -1, k))

    def random_words():
        for i in range(0, n24, CHUNK):
            w = rng.integers(0, 2**32, min(CHUNK, n24 - i), dtype=np.uint64)
            w[:2] = 0, 2**32 - 1
            yield w

    return [
        ("log64", "all (w+1) 2^-24", all24, n24),
        ("log64", "(w+1) 2^-32, random w", sub32, n24),
        ("log64", "(m+1) 2^-53, random m", rand53(1), n24),
        ("log64", "positive normals, random bits", normals, n22),
        ("exp64", "uniform [-40, 0]", uniform(-40.0, 0.0), n22),
        ("exp64", "uniform [-708, 709]", uniform(-708.0, 709.0), n22),
        ("sincos2pi64", "all k 2^-24", all24_from0, n24),
        ("sincos2pi64", "m 2^-53, random m", rand53(0), n24),
        ("log_word32", "all w < 2^24", words(0), n24),
        ("log_word32", "all w >= 2^32 - 2^24", words(2**32 - 2**24), n24),
        ("log_word32", "random w", random_words, n24),
        ("sincos2pi_word32", "all w < 2^24", words(0), n24),
        ("sincos2pi_word32", "random w", random_words, n24),
        ("log1p64", "uniform [-0.29, 0.41] (k = 0)", drawn(uniform_open(-0.29, 0.41), n22), n22),
        ("log1p64", "uniform (-1, -0.29]", drawn(uniform_open(-1 + 2.0**-53, -0.29), n22), n22),
        ("log1p64", "+-2^[-60, 0], log-uniform", drawn(log_uniform(-60, -2.0**-53, True), n22),
         n22),
        ("log1p64", "positive normals, random bits", normals, n22),
        ("expm1_64", "uniform [-0.35, 0.35] (k = 0)", drawn(uniform_open(-0.35, 0.35), n22), n22),
        ("expm1_64", "+-2^[-60, 0], log-uniform", drawn(log_uniform(-60, 0, True), n22), n22),
        ("expm1_64", "uniform [-40, 0]", uniform(-40.0, 0.0), n22),
        ("expm1_64", "uniform [-38, 709.78]", uniform(-38.0, 709.78), n22),
        ("lgamma64", "uniform (0, 8)", drawn(uniform_open(2.0**-60, 8), n18), n18),
        ("lgamma64", "1 + d, 2 + d, |d| in 2^[-52, -2]",
         drawn(near([1.0, 2.0], -52, -2), n18), n18),
        ("lgamma64", "2^[-1074, -1], log-uniform", drawn(log_uniform(-1074, -1), n18), n18),
        ("lgamma64", "uniform [8, 1000]", drawn(uniform_open(8, 1000), n18), n18),
        ("lgamma64", "2^[3, 60], log-uniform", drawn(log_uniform(3, 60), n18), n18),
        ("lgamma64", "k + 1, k < 1e13 log-uniform", drawn(log_factorials, n18), n18),
        ("lgamma64", "2^60 to the largest finite", drawn(top, n18), n18),
        ("acos64", "uniform [-1, 1]", uniform(-1.0, 1.0), n22),
        ("acos64", "1 - 2^[-53, -1], log-uniform", drawn(near_one(1.0), n22), n22),
        ("acos64", "-1 + 2^[-53, -1], log-uniform", drawn(near_one(-1.0), n22), n22),
        ("acos64", "+-2^[-60, -1], log-uniform", drawn(log_uniform(-60, -1, True), n22), n22),
        ("acos64", "+-1/2 + d, d in +-2^[-53, -3]", drawn(near([0.5, -0.5], -53, -3), n22),
         n22),
    ]


def measure(scale, only=None):
    rows = []
    for name, description, chunks, count in input_sets(scale):
        if only and name not in only:
            for _ in chunks():  # drawn all the same, so each set sees the inputs of a full run
                pass
            continue
        stats = {}
        for x in chunks():
            got, ref = ours(name, x), reference(name, x)
            for key in got:
                err = ulp_errors(got[key], ref[key])
                exact = got[key] == ref[key].astype(got[key].dtype)
                m, s, c, n = stats.get(key, (0.0, 0.0, 0, 0))
                stats[key] = (max(m, err.max()), s + err.sum(), c + int(exact.sum()), n + x.size)
        for key, (m, s, c, n) in stats.items():
            rows.append((key, description, n, m, s / n, c / n))
    return rows


def throughput():
    rng = np.random.default_rng(1)
    n = 2**22
    u = (rng.integers(0, 2**53, n) + 1) * 2.0**-53
    x = rng.uniform(-40, 0, n)
    out, out2 = np.empty(n), np.empty(n)

    def rate(fn, *args):
        fn(*args)
        best = min(_timed(fn, *args) for _ in range(7))
        return n / best / 1e6

    rows = [
        ("log64", rate(LOG_LOOP, u, out), "np.log", rate(np.log, u, out)),
        ("exp64", rate(EXP_LOOP, x, out), "np.exp", rate(np.exp, x, out)),
        ("sincos2pi64", rate(SINCOS_LOOP, u, out, out2), "np.sin",
         rate(np.sin, u * (2 * np.pi), out)),
        ("", None, "np.sin + np.cos", rate(lambda v, a, b: (np.sin(v, a), np.cos(v, b)),
                                           u * (2 * np.pi), out, out2)),
        ("log1p64", rate(SPECIAL_LOOPS["log1p64"], x / 40, out), "np.log1p",
         rate(np.log1p, x / 40, out)),
        ("expm1_64", rate(SPECIAL_LOOPS["expm1_64"], x, out), "np.expm1", rate(np.expm1, x, out)),
        ("acos64", rate(SPECIAL_LOOPS["acos64"], x / 40, out), "np.arccos",
         rate(np.arccos, x / 40, out)),
    ]
    g = rng.uniform(0, 100, n)
    try:
        from scipy.special import gammaln
    except ImportError:
        rows.append(("lgamma64", rate(SPECIAL_LOOPS["lgamma64"], g, out), "", None))
    else:
        rows.append(("lgamma64", rate(SPECIAL_LOOPS["lgamma64"], g, out),
                     "scipy.special.gammaln", rate(gammaln, g, out)))
    print(f"n = {n} float64, one thread, best of 7 (log1p and acos on [-1, 0], expm1 on "
          "[-40, 0], lgamma on [0, 100])\n")
    print("| function | M/s | NumPy | M/s |")
    print("| --- | --- | --- | --- |")
    for a, ra, b, rb in rows:
        print(f"| {a} | {'' if ra is None else f'{ra:.0f}'} | {b} | "
              f"{'' if rb is None else f'{rb:.0f}'} |")


def _timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def derive_coefficients(unrounded=None):
    """The polynomial coefficients of fmath, lowest degree first, as float64.

    A dict passed as ``unrounded`` receives them at 60 digits, too.
    """
    mp.mp.dps = 60
    s_max = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
    margin = 1 + mp.mpf(2) ** -40
    a, b = mp.pi / 2, -mp.pi**2 / 8

    def log_q(z):  # atanh(s) = s + s**3 Q(s**2)
        s = mp.sqrt(z)
        return (mp.atanh(s) - s) / s**3 if z else mp.mpf(1) / 3

    def exp_q(r):  # exp(r) = 1 + r + r**2 Q(r)
        return (mp.expm1(r) - r) / r**2 if r else mp.mpf(1) / 2

    p0 = -a**3 / 6

    def sin_p1(z):  # sin(pi/2 w) = A w + P0 w**3 + w**5 P1(w**2)
        w = mp.sqrt(z)
        return (mp.sin(a * w) / w - a - p0 * z) / z**2 if z else a**5 / 120

    def cos_r(z):  # cos(pi/2 w) = 1 + B w**2 + w**4 R(w**2)
        w = mp.sqrt(z)
        return (mp.cos(a * w) - 1 - b * z) / z**2 if z else a**4 / 24

    half_ln2 = mp.log(2) / 2 * margin
    specs = {
        "_LOG_Q": (log_q, (0, s_max**2 * margin), 7),
        "_EXP_Q": (exp_q, (-half_ln2, half_ln2), 10),
        "_SIN_P1": (sin_p1, (0, mp.mpf(1) / 4), 5),
        "_COS_R": (cos_r, (0, mp.mpf(1) / 4), 6),
    }
    result = {}
    for name, (f, interval, degree) in specs.items():
        c = mp.chebyfit(f, list(interval), degree + 1)  # highest degree first
        coefficients = tuple(float(v) for v in reversed(c))
        if unrounded is not None:
            unrounded[name] = list(reversed(c))
        grid = [interval[0] + (interval[1] - interval[0]) * i / 1000 for i in range(1001)]
        error = max(abs(mp.polyval(list(reversed(coefficients)), x) - f(x)) for x in grid)
        result[name] = (coefficients, float(mp.log(error, 2)))
    return result


def derive_coefficients32():
    """The polynomial coefficients of fmath32, lowest degree first, as float32."""
    mp.mp.dps = 50
    margin = 1 + mp.mpf(2) ** -20
    a = mp.pi / 2

    def log_q(f):  # log(1 + f) = f + f**2 Q(f)
        return (mp.log1p(f) - f) / f**2 if f else -mp.mpf(1) / 2

    def sin_s(x):  # sin(pi/2 v) = v (A + x S(x)), x = v**2
        v = mp.sqrt(x)
        return (mp.sin(a * v) / v - a) / x if x else -a**3 / 6

    def cos_c(x):  # cos(pi/2 v) = 1 + x C(x)
        v = mp.sqrt(x)
        return (mp.cos(a * v) - 1) / x if x else -a**2 / 2

    specs = {
        "_LOG_Q": (log_q, ((mp.sqrt(mp.mpf(1) / 2) - 1) * margin, (mp.sqrt(2) - 1) * margin), 8),
        "_SIN_S": (sin_s, (0, margin / 4), 3),
        "_COS_C": (cos_c, (0, margin / 4), 3),
    }
    result = {}
    for name, (f, interval, degree) in specs.items():
        c = mp.chebyfit(f, list(interval), degree + 1)  # highest degree first
        coefficients = tuple(np.float32(float(v)) for v in reversed(c))
        grid = [interval[0] + (interval[1] - interval[0]) * i / 2000 for i in range(2001)]
        polynomial = [float(v) for v in reversed(coefficients)]
        error = max(abs(mp.polyval(polynomial, x) - f(x)) / abs(f(x)) for x in grid)
        result[name] = (coefficients, float(mp.log(error, 2)))
    return result


def _lgamma_p(t):  # lgamma(2 + t) = t P(t)
    if not t:
        return 1 - mp.euler
    with mp.workdps(90):
        return mp.loggamma(2 + t) / t


def _stirling_r(w):  # lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + R(1/x**2) / x
    if not w:
        return mp.mpf(1) / 12
    with mp.workdps(90):
        x = 1 / mp.sqrt(w)
        return x * (mp.loggamma(x) - (x - mp.mpf(1) / 2) * mp.log(x) + x - mp.log(2 * mp.pi) / 2)


def _acos_p(z):  # asin(u) = u + u**3 P(u**2), z = u**2
    if not z:
        return mp.mpf(1) / 6
    u = mp.sqrt(z)
    return (mp.asin(u) - u) / (z * u)


def derive_coefficients_special():
    """The polynomial coefficients of special, lowest degree first, as float64.

    ``_LGAMMA_P_LO`` and ``_ACOS_P_LO`` hold the rounding errors of the first
    three coefficients of ``_LGAMMA_P`` and the first of ``_ACOS_P``
    (double-doubles in the module); the errors reported are relative, of the
    polynomials as the module uses them.
    """
    mp.mp.dps = 60
    specs = {"_LGAMMA_P": (_lgamma_p, (-mp.mpf(1) / 2, mp.mpf(1) / 2), 19, 3),
             "_STIRLING_R": (_stirling_r, (0, mp.mpf(1) / 64), 6, 0),
             "_ACOS_P": (_acos_p, (0, mp.mpf(1) / 4), 13, 1)}
    result = {}
    for name, (f, interval, degree, n_double) in specs.items():
        c = list(reversed(mp.chebyfit(f, list(interval), degree + 1)))
        coefficients = tuple(float(v) for v in c)
        low = tuple(float(c[i] - coefficients[i]) for i in range(n_double))
        used = [mp.mpf(v) + (mp.mpf(low[i]) if i < n_double else 0)
                for i, v in enumerate(coefficients)]
        grid = [interval[0] + (interval[1] - interval[0]) * i / 2000 for i in range(2001)]
        error = max(abs(mp.polyval(used[::-1], x) - f(x)) / abs(f(x)) for x in grid)
        result[name] = (coefficients, float(mp.log(error, 2)))
        if n_double:
            result[name + "_LO"] = (low, float(mp.log(error, 2)))
    return result


def _largest_double_below(f, bound, lo, hi):
    """The largest positive double x in [lo, hi) with f(x) < bound (f increasing), by bisection."""
    a, b = (int(np.float64(v).view(np.uint64)) for v in (lo, hi))
    while b - a > 1:
        m = (a + b) // 2
        if f(mp.mpf(float(np.uint64(m).view(np.float64)))) < bound:
            a = m
        else:
            b = m
    return float(np.uint64(a).view(np.float64))


def derive_constants_special():
    """The other constants of special: double-doubles and overflow thresholds."""
    fmath_fits = {}
    derive_coefficients(fmath_fits)  # the low parts of two fmath coefficients
    mp.mp.dps = 60
    half_log_2pi = mp.log(2 * mp.pi) / 2
    half_pi = mp.pi / 2
    # values from 2**1024 - 2**970 (half an ulp above the largest double) round to inf
    overflow = mp.mpf(2)**1024 - mp.mpf(2)**970
    return {
        "_LOG_Q0_LO": float(fmath_fits["_LOG_Q"][0] - fmath._LOG_Q[0]),
        "_EXP_Q1_LO": float(fmath_fits["_EXP_Q"][1] - fmath._EXP_Q[1]),
        "_HALF_LOG_2PI_HI": float(half_log_2pi),
        "_HALF_LOG_2PI_LO": float(half_log_2pi - float(half_log_2pi)),
        "_PI_2_HI": float(half_pi),
        "_PI_2_LO": float(half_pi - float(half_pi)),
        "_LGAMMA_MAX": _largest_double_below(mp.loggamma, overflow, 1e305, 1e306),
        "_EXPM1_MAX": _largest_double_below(mp.expm1, overflow, 709.0, 710.0),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="16x fewer inputs")
    parser.add_argument("--throughput", action="store_true", help="only the throughput table")
    parser.add_argument("--coefficients", action="store_true",
                        help="only re-derive the polynomial coefficients")
    parser.add_argument("--only", metavar="NAMES",
                        help="only these functions, comma-separated (e.g. lgamma64,log1p64)")
    args = parser.parse_args(argv)
    if args.coefficients:
        same = True
        for module, derived, kind in ((fmath, derive_coefficients(), "absolute"),
                                      (fmath32, derive_coefficients32(), "relative"),
                                      (special, derive_coefficients_special(), "relative")):
            for name, (coefficients, log2_error) in derived.items():
                match = coefficients == getattr(module, name)
                same &= match
                print(f"{name} = {coefficients!r}\n    # max {kind} error 2**{log2_error:.1f}; "
                      f"{'equals' if match else 'DIFFERS FROM'} {module.__name__}.{name}")
        for name, value in derive_constants_special().items():
            match = value == getattr(special, name)
            same &= match
            print(f"{name} = {value!r}  # {'equals' if match else 'DIFFERS FROM'} "
                  f"{special.__name__}.{name}")
        return 0 if same else 1
    if args.throughput:
        throughput()
        return 0
    if np.finfo(LD).nmant < 63:
        print("numpy.longdouble is not x87 extended precision here: no reference", file=sys.stderr)
        return 1
    worst = check_reference(500 if args.quick else 2000)
    print("Reference (longdouble) vs mpmath, 40 digits, max error in float64 ulps: "
          + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()) + "\n")
    print("| function | input set | inputs | max ulp | mean ulp | correctly rounded |")
    print("| --- | --- | --- | --- | --- | --- |")
    only = set(args.only.split(",")) if args.only else None
    for key, description, n, worst_ulp, mean, share in measure(16 if args.quick else 1, only):
        print(f"| {key} | {description} | {n} | {worst_ulp:.3f} | {mean:.3f} "
              f"| {100 * share:.3f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
