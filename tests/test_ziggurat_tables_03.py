"""The tables of contract 0.3's ziggurats (normal f32, exponential f64 and f32).

Each is checked against a fresh, independent mpmath solution of its edges,
and its tail start and layer area against the published 256-layer values
(Marsaglia and Tsang's, as NumPy's ``ziggurat_constants.h`` and Julia's
``Random`` carry them).
"""

import pathlib
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from tandem.core import ziggurat_exponential32, ziggurat_exponential64, ziggurat_normal32


def _normal(x):
    return mpmath.exp(-x * x / 2)


def _normal_tail(r):
    return mpmath.sqrt(mpmath.mp.pi / 2) * mpmath.erfc(r / mpmath.sqrt(2))


def _exponential(x):
    return mpmath.exp(-x)


# module, density, tail integral, inverse density, float type, mantissa bits,
# published R, published V and the digits they carry.
CASES = {
    "normal32": (ziggurat_normal32, _normal, _normal_tail,
                 lambda y: mpmath.sqrt(-2 * mpmath.log(y)), np.float32, 23,
                 "3.6541528853610088", "0.00492867323399", 11),
    "exponential64": (ziggurat_exponential64, _exponential, _exponential,
                      lambda y: -mpmath.log(y), np.float64, 53,
                      "7.69711747013104971404462804811408952334296818528283253278834867283",
                      "0.0039496598225815571993", 19),
    "exponential32": (ziggurat_exponential32, _exponential, _exponential,
                      lambda y: -mpmath.log(y), np.float32, 24,
                      "7.69711747013104971404462804811408952334296818528283253278834867283",
                      "0.0039496598225815571993", 19),
}


def _nearest(value, dtype):
    """The ``dtype`` float nearest to the mpf ``value``, decided exactly."""
    guess = dtype(float(value))
    options = (guess, np.nextafter(guess, dtype(np.inf)), np.nextafter(guess, dtype(-np.inf)))
    return min(options, key=lambda c: abs(mpmath.mpf(float(c)) - value))


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    """The case, with x_0 .. x_N, f(x_0) .. f(x_N), R and V solved afresh."""
    table, f, tail, f_inv, dtype, bits, r_published, v_published, digits = CASES[request.param]
    n = table.LAYERS
    with mpmath.workdps(60):
        def chain(r):
            v = r * f(r) + tail(r)
            xs = [v / f(r), r]
            for _ in range(n - 2):
                xs.append(f_inv(f(xs[-1]) + v / xs[-1]))
            return xs, v, f(xs[-1]) + v / xs[-1] - 1

        r0 = mpmath.mpf(table.R)
        r = mpmath.findroot(lambda r: chain(r)[2], (r0, r0 * (1 + 1e-12)))
        xs, v, residual = chain(r)
        assert abs(residual) < mpmath.mpf(10) ** -50
        xs.append(mpmath.mpf(0))
        fs = [f(x) for x in xs]
    return dict(table=table, dtype=dtype, bits=bits, r=r, v=v, xs=xs, fs=fs,
                published=(mpmath.mpf(r_published), mpmath.mpf(v_published), digits))


def test_shapes_dtypes_and_layout(case):
    t, dtype = case["table"], case["dtype"]
    n = t.LAYERS
    assert n == 256 and t.MANTISSA_BITS == case["bits"]
    for name, size in (("X", n + 1), ("F", n + 1), ("W", n)):
        table = getattr(t, name)
        assert table.shape == (size,) and table.dtype == dtype and not table.flags.writeable
    assert t.K.shape == (n,) and t.K.dtype == np.uint64 and not t.K.flags.writeable
    assert t.X[1] == dtype(t.R) and t.X[n] == 0 and t.F[n] == 1
    assert np.all(np.diff(t.X) < 0) and np.all(np.diff(t.F) > 0)
    np.testing.assert_array_equal(t.W, t.X[:n] * dtype(2.0**-case["bits"]))


def test_tail_start_and_area_match_the_published_ziggurats(case):
    r_published, v_published, digits = case["published"]
    assert abs(case["r"] / r_published - 1) < mpmath.mpf(10) ** -(digits - 2)
    assert abs(case["v"] / v_published - 1) < mpmath.mpf(10) ** -(digits - 4)
    assert case["table"].R == float(case["r"]) and case["table"].V == float(case["v"])


def test_tables_are_the_nearest_floats_of_the_exact_edges(case):
    t, dtype = case["table"], case["dtype"]
    assert t.X.tolist() == [float(_nearest(x, dtype)) for x in case["xs"]]
    assert t.F.tolist() == [float(_nearest(y, dtype)) for y in case["fs"]]


def test_fast_path_bounds_are_exact_in_the_float_type(case):
    # K[i] is the least m with fl(m W[i]) >= x_(i+1) as reals, fl rounding to
    # the ziggurat's float type, so every m < K[i] lands strictly below x_(i+1).
    t, dtype, xs = case["table"], case["dtype"], case["xs"]
    mantissa = 2**case["bits"]
    for i in range(t.LAYERS):
        k, w = int(t.K[i]), t.W[i]
        assert k <= mantissa
        assert mpmath.mpf(float(dtype(k) * w)) >= xs[i + 1]
        if k > 0:
            assert mpmath.mpf(float(dtype(k - 1) * w)) < xs[i + 1]
    assert t.K[t.LAYERS - 1] == 0


def test_miss_rate_is_the_sum_of_the_layers_misses(case):
    t = case["table"]
    mantissa = 2**case["bits"]
    misses = sum(mantissa - int(k) for k in t.K)
    assert t.MISS_RATE == misses / (mantissa * t.LAYERS)
    assert 0.01 < t.MISS_RATE < 0.03


def test_the_generator_reproduces_every_committed_table():
    tool = pathlib.Path(__file__).resolve().parents[1] / "tools" / "ziggurat_tables.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("up to date") == 4
