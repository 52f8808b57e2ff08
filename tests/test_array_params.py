"""Array parameters: loc and scale broadcast against the output, and element
``i`` of a fill with array parameters equals the fill with element ``i``'s
parameters as scalars, bit for bit."""

import numpy as np
import pytest

import tandem
from tandem import distributions as D

STREAM = tandem.Philox(77).at(3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normal_loc_and_scale_arrays_equal_the_scalar_fills(dtype):
    loc = np.array([[0.0], [10.0], [-3.5]])
    scale = np.array([1.0, 0.25, 7.0, 1e-3])
    x, end = STREAM.normal(loc=loc, scale=scale, dtype=dtype)
    assert x.shape == (3, 4) and x.dtype == dtype
    assert end == STREAM.normal(12, dtype=dtype)[1]
    flat = x.reshape(-1)
    for i, (l, s) in enumerate(np.broadcast(loc, scale)):
        one = STREAM.normal(12, loc=float(l), scale=float(s), dtype=dtype)[0][i]
        assert flat[i] == one, i


@pytest.mark.parametrize("method", ["zig", "inv"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exponential_scale_array_equals_the_scalar_fills(dtype, method):
    scale = np.array([1.0, 3.0, 0.5, 1e5, 2.0])
    x = STREAM.exponential(size=(2, 5), scale=scale, dtype=dtype, method=method)[0]
    for i, s in enumerate(np.broadcast_to(scale, (2, 5)).reshape(-1)):
        one = STREAM.exponential(10, scale=float(s), dtype=dtype, method=method)[0][i]
        assert x.reshape(-1)[i] == one, i


def test_signed_zeros_and_loc_minus_zero_match_the_scalar_fill():
    # loc = -0.0 keeps the sign of a zero product: the array path must too.
    loc = np.array([-0.0, 0.0])
    x = STREAM.normal(size=(1000, 2), loc=loc, scale=np.array([1e-300, 1e-300]))[0]
    for j, l in enumerate(loc):
        one = STREAM.normal(2000, loc=float(l), scale=1e-300)[0].reshape(1000, 2)[:, j]
        np.testing.assert_array_equal(x[:, j].view(np.uint64), one.view(np.uint64))


def test_at_functions_take_array_parameters():
    index = np.array([[5, 0], [7, 100]])
    loc = np.array([1.0, -1.0])
    got = tandem.normal_at(STREAM, index, loc=loc, scale=2.0)
    assert got.shape == (2, 2)
    # element (r, c) has loc[c]: compare with scalar fills element by element
    for (r, c), i in np.ndenumerate(index):
        assert got[r, c] == STREAM.normal(101, loc=float(loc[c]), scale=2.0)[0][i]


def test_out_and_size_take_array_parameters_and_reference_agrees():
    out = np.empty((4, 3), order="F")
    scale = np.array([1.0, 2.0, 3.0])
    got, _ = STREAM.exponential(scale=scale, out=out)
    assert got is out
    ref = D.exponential(STREAM, (4, 3), scale=scale, backend="reference")[0]
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"scale": np.array([1.0, -1.0])}, ValueError, "scale must be non-negative"),
    ({"scale": np.array([1.0, np.inf])}, ValueError, "scale must be finite"),
    ({"loc": np.array([np.nan])}, ValueError, "loc must be finite"),
    ({"loc": np.array(["a"])}, TypeError, "loc must hold real numbers"),
    ({"loc": np.ma.array([1.0], mask=[True])}, TypeError, "masked"),
    ({"loc": np.zeros(3), "size": 4}, ValueError, "do not broadcast"),
    ({"loc": np.zeros((2, 1)), "size": (3, 2)}, ValueError, "do not broadcast"),
])
def test_bad_array_parameters_are_refused_before_any_write(kwargs, error, match):
    out = np.full(4, 7.0)
    with pytest.raises(error, match=match):
        if "size" in kwargs:
            STREAM.normal(**kwargs)
        else:
            STREAM.normal(out=out, **kwargs)
    assert (out == 7.0).all()


def test_generator_normal_broadcasts_like_numpy():
    g = tandem.Generator(tandem.Philox(3))
    x = g.normal(loc=[0, 10], scale=1.0)
    assert x.shape == (2,) and abs(x[1] - 10) < 10
    y = g.exponential(scale=np.ones((2, 2)))
    assert y.shape == (2, 2)
