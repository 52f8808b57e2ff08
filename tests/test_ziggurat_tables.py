"""The normal f64 ziggurat tables: layer geometry, float64 roundings and K.

The float64 checks need only numpy and scipy.  The exact checks recompute the
edges in mpmath, independently of ``tools/ziggurat_tables.py``.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy.special import erf, erfc

from tandem.core import ziggurat_tables as zt

N = zt.LAYERS
MANTISSA = 2**53
HALF_NORMAL_MASS = math.sqrt(math.pi / 2)
U64 = 2.0**-53  # unit roundoff of float64
# exp in the working type of _f: a few units of its roundoff
EXP_ERROR = 4 * float(np.finfo(np.longdouble).eps)


def _f(x):
    """exp(-x**2 / 2) in long double (80-bit on x86, float64 elsewhere)."""
    x = np.asarray(x, dtype=np.longdouble)
    return np.exp(-x * x / 2)


def test_shapes_and_dtypes():
    assert N == 1024
    for name in ("X", "F"):
        table = getattr(zt, name)
        assert table.shape == (N + 1,) and table.dtype == np.float64
    assert zt.W.shape == (N,) and zt.W.dtype == np.float64
    assert zt.K.shape == (N,) and zt.K.dtype == np.uint64
    for name in ("R", "V", "MISS_RATE"):
        assert type(getattr(zt, name)) is float
    for table in (zt.X, zt.F, zt.W, zt.K):
        assert not table.flags.writeable


def test_edges_and_heights():
    X, F = zt.X, zt.F
    assert X[1] == zt.R and X[N] == 0.0 and F[N] == 1.0
    assert np.all(np.diff(X) < 0) and np.all(np.diff(F) > 0)
    np.testing.assert_array_equal(zt.W, X[:N] * 2.0**-53)  # a power of two: exact
    # F[i] is the float64 nearest to f(x_i); x_i's own rounding moves f(X[i]) by
    # x_i**2 f(x_i) u relative, so allow that plus one rounding of F.
    f = _f(X).astype(np.float64)
    tol = (X * X + 2) * U64 + EXP_ERROR
    assert np.all(np.abs(F / f - 1) <= tol)


def test_layer_areas():
    # Layer i >= 1 is [0, x_i] x [f(x_i), f(x_(i+1))].  With x_i rounded to
    # X[i] (relative error u), f(X[i+1]) - f(X[i]) moves by up to
    # u (x_i**2 f(x_i) + x_(i+1)**2 f(x_(i+1))) against a height of only V / x_i,
    # which bounds the check at about 1.6e-13 (layer 256); the tolerance is
    # that first-order bound, per layer, doubled.  One ulp on a single X[i]
    # is caught by the exact tests below, not here.
    X, V = zt.X, zt.V
    x, x_up = X[1:N], X[2:]
    f, f_up = _f(x), _f(x_up)
    area = x * (f_up - f)
    height = V / x
    bound = U64 + (U64 * (x * x * f + x_up * x_up * f_up) + EXP_ERROR * (f + f_up)) / height
    assert np.all(np.abs(area / V - 1) <= 2 * bound.astype(np.float64))
    # The base strip [0, x_0] x [0, f(R)].
    assert abs(X[0] * _f(zt.R) / V - 1) <= 1e-14
    assert abs(X[0] / (V / math.exp(-zt.R**2 / 2)) - 1) <= 1e-14


def test_tail_start():
    R, V = zt.R, zt.V
    tail = HALF_NORMAL_MASS * erfc(R / math.sqrt(2))
    assert abs((R * math.exp(-R * R / 2) + tail) / V - 1) <= 1e-14


def test_total_area():
    # The N layers cover the half-normal's mass sqrt(pi / 2) plus, in layers
    # 1 .. N-1, the part of each rectangle above the curve:
    # (x_i - x_(i+1)) (f(x_(i+1)) - f(x_i)) minus the integral of f - f(x_i)
    # over [x_(i+1), x_i].  N V is larger than the mass by about 0.195 %.
    X, V = zt.X, zt.V
    x, x_up = X[1:N], X[2:]
    f, f_up = np.exp(-x * x / 2), np.exp(-x_up * x_up / 2)
    integral = HALF_NORMAL_MASS * (erf(x / math.sqrt(2)) - erf(x_up / math.sqrt(2)))
    above = math.fsum((x - x_up) * (f_up - f) - (integral - f * (x - x_up)))
    assert abs((HALF_NORMAL_MASS + above) / (N * V) - 1) <= 1e-13
    assert 0.0019 < 1 - HALF_NORMAL_MASS / (N * V) < 0.0020


def test_fast_path_bounds_against_float_edges():
    # float64 products bracket X[i+1], the float64 nearest x_(i+1): with
    # lo = fl((K-1) W) and hi = fl(K W), lo <= X[i+1] <= hi and lo < hi.  That
    # pins K to one of two values; which of them is right depends on the side
    # x_(i+1) is rounded from, checked exactly in test_fast_path_bounds_exact.
    K, W, bound = zt.K[:N - 1], zt.W[:N - 1], zt.X[1:N]
    assert np.all(K >= 1) and np.all(K < MANTISSA)
    lo = (K - 1).astype(np.float64) * W
    hi = K.astype(np.float64) * W
    assert np.all(lo <= bound) and np.all(bound <= hi) and np.all(lo < hi)
    # The top layer has x_N = 0: no m gives a point below it, all is wedge.
    assert zt.K[N - 1] == 0
    # The base strip's bound is R: K[0] < 2**53 since X[0] > R.
    assert 0.94 * MANTISSA < zt.K[0] < MANTISSA


def test_miss_rate():
    misses = sum(MANTISSA - int(k) for k in zt.K)
    assert zt.MISS_RATE == misses / (MANTISSA * N)
    assert 0.003 < zt.MISS_RATE < 0.005


@pytest.fixture(scope="module")
def exact_edges():
    """x_0 .. x_N and f(x_0) .. f(x_N) in mpmath, from R solved afresh."""
    mp = mpmath.mp
    with mpmath.workdps(60):
        def f(x):
            return mpmath.exp(-x * x / 2)

        def chain(r):
            v = r * f(r) + mpmath.sqrt(mp.pi / 2) * mpmath.erfc(r / mpmath.sqrt(2))
            xs = [v / f(r), r]
            for _ in range(N - 2):
                xs.append(mpmath.sqrt(-2 * mpmath.log(f(xs[-1]) + v / xs[-1])))
            return xs, v, f(xs[-1]) + v / xs[-1] - 1

        # Secant steps from the float64 R; the chain stays well defined there.
        r0 = mpmath.mpf(zt.R)
        r = mpmath.findroot(lambda r: chain(r)[2], (r0, r0 * (1 + 1e-12)))
        xs, v, residual = chain(r)
        assert abs(residual) < mpmath.mpf(10) ** -50
        xs.append(mpmath.mpf(0))
        return r, v, xs, [f(x) for x in xs]


def test_tables_are_nearest_floats(exact_edges):
    r, v, xs, fs = exact_edges
    assert zt.R == float(r) and zt.V == float(v)
    assert zt.X.tolist() == [float(x) for x in xs]
    assert zt.F.tolist() == [float(y) for y in fs]


def test_fast_path_bounds_exact(exact_edges):
    # The contract: K[i] is the least m with fl(m W[i]) >= x_(i+1) as reals, so
    # every m < K[i] lands strictly below x_(i+1) and K[i] is maximal.
    xs = exact_edges[2]
    for i in range(N):
        k, w, bound = int(zt.K[i]), float(zt.W[i]), xs[i + 1]
        assert mpmath.mpf(float(k) * w) >= bound
        if k > 0:
            assert mpmath.mpf(float(k - 1) * w) < bound
