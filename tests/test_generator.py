"""tandem.Generator behaves like numpy.random.Generator for what it has."""

import numpy as np
import pytest

import tandem


def numpy_style_code(rng):
    """Code written against numpy.random.Generator."""
    a = rng.random()
    b = rng.random(5)
    c = rng.random((2, 3), dtype=np.float32)
    d = rng.integers(10)
    e = rng.integers(-3, 3, size=4, dtype=np.int32)
    f = rng.integers(0, 6, size=(2, 2), endpoint=True)
    g = rng.bytes(10)
    out = np.empty(4)
    rng.random(out=out)
    return a, b, c, d, e, f, g, out


def test_numpy_code_runs_unchanged():
    ours = numpy_style_code(tandem.Generator(tandem.Philox(1)))
    theirs = numpy_style_code(np.random.default_rng(1))
    for x, y in zip(ours, theirs):
        assert type(x) is type(y) or np.asarray(x).dtype == np.asarray(y).dtype
        assert np.shape(x) == np.shape(y)
    assert 0 <= ours[3] < 10 and np.all((ours[5] >= 0) & (ours[5] <= 6))
    assert len(ours[6]) == 10


def test_generator_follows_the_stream():
    s = tandem.Philox(4)
    g = tandem.Generator(s)
    x = g.random(3)
    k = g.integers(0, 100, size=5)
    x2, s2 = s.random(3)
    k2, s3 = s2.integers(0, 100, 5)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(k, k2)
    assert g.stream == s3


def test_generator_bad_input():
    g = tandem.Generator(tandem.Philox(4))
    with pytest.raises(ValueError, match="length"):
        g.bytes(-1)
    with pytest.raises(ValueError, match="low"):
        g.integers(3, 3)


def test_threads_sharing_a_generator_get_distinct_draws():
    """Two threads, 20 draws each from one Generator: together they take the
    40 draws of one thread in some order, and the stream ends where 40 end."""
    import threading

    n = 20_000  # large enough for the two threads' fills to overlap in time
    shared = tandem.Generator(tandem.Philox(11))
    got = []

    def draw():
        for _ in range(20):
            got.append(shared.random(n))

    threads = [threading.Thread(target=draw) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = tandem.Generator(tandem.Philox(11))
    expected = [alone.random(n) for _ in range(40)]
    assert sorted(a.tobytes() for a in got) == sorted(a.tobytes() for a in expected)
    assert shared.stream == alone.stream


def test_generator_pickles_with_its_position():
    import pickle

    g = tandem.Generator(tandem.Philox(3))
    g.random(5)
    h = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(h.random(4), g.random(4))
    assert h.stream == g.stream


def test_generator_is_numpys_and_libraries_take_it():
    from scipy import stats

    g = tandem.Generator(tandem.Philox(8))
    assert isinstance(g, np.random.Generator)
    assert isinstance(g.bit_generator, tandem.StreamBitGenerator)
    # NumPy's own methods draw the stream's words and move it on ...
    gamma = g.gamma(2.0, size=10)
    assert gamma.shape == (10,) and np.all(gamma > 0)
    moved = g.stream
    assert moved.position > 0
    # ... and tandem's methods continue from there with tandem's rules.
    np.testing.assert_array_equal(g.random(5), moved.random(5)[0])
    x = stats.norm.rvs(size=4, random_state=tandem.Generator(tandem.Philox(8)))
    np.testing.assert_array_equal(x, tandem.Generator(tandem.Philox(8)).standard_normal(4))
    assert repr(g) == f"Generator({g.stream!r})"


def test_numpy_behaviours_of_integers_and_shuffle():
    g = tandem.Generator(tandem.Philox(8))
    flags = g.integers(0, 2, 50, dtype=bool)
    assert flags.dtype == np.bool_ and flags.any() and not flags.all()
    assert g.integers(0, 0, size=0).shape == (0,) and g.integers(3, size=(2, 0)).shape == (2, 0)
    # Array bounds broadcast; equal bounds give the scalar bounds' values.
    s = g.stream
    k = g.integers(np.full((2, 1), 3), [17, 17, 17])
    assert k.shape == (2, 3)
    np.testing.assert_array_equal(k.ravel(), tandem.Generator(s).integers(3, 17, 6))
    wide = g.integers([0, -2**63], [10, 2**63], endpoint=False)
    assert 0 <= wide[0] < 10
    listed, array = list(range(9)), np.arange(9)
    tandem.Generator(tandem.Philox(2)).shuffle(listed)
    tandem.Generator(tandem.Philox(2)).shuffle(array)
    assert listed == array.tolist() != list(range(9))
    with pytest.raises(ValueError, match="bool range"):
        g.integers(0, 3, dtype=bool)
    with pytest.raises(TypeError, match="mutable sequence"):
        g.shuffle((1, 2))


def test_numpys_argument_rules():
    """0-d arrays, NumPy scalars and floats where NumPy's Generator takes them, and
    NaN parameters giving NaN where NumPy gives NaN (the draws still taken, so
    the stream moves as for any parameters)."""
    from scipy import stats

    g = tandem.Generator(tandem.Philox(3))
    assert g.integers(np.array(0), np.array(10)) < 10
    assert np.isfinite(g.normal(np.array(0.0), np.array(1.0)))
    assert g.multinomial(np.array(10), [0.2, 0.8]).sum() == 10
    assert 0 <= g.choice(np.array(5)) < 5 and len(g.bytes(np.array(4))) == 4
    assert len(g.bytes(4.5)) == 4 and 0 <= g.integers(0.5, 3.7) < 3  # NumPy truncates
    assert stats.multinomial(10, [0.2, 0.8]).rvs(random_state=g).sum() == 10
    assert 0 <= stats.randint(0, 10).rvs(random_state=g) < 10
    with pytest.raises(ValueError, match="NaN"):
        g.integers(0, np.nan)
    for call in (lambda h: h.normal(np.nan), lambda h: h.gamma(np.nan),
                 lambda h: h.beta(np.nan, 1.0), lambda h: h.vonmises(0.0, np.nan),
                 lambda h: h.exponential(np.nan), lambda h: h.triangular(0.0, np.nan, 1.0)):
        h, k = tandem.Generator(tandem.Philox(5)), tandem.Generator(tandem.Philox(5))
        assert np.isnan(call(h)) and type(call(k)) is float
        assert h.stream == k.stream
    x = g.normal([0.0, np.nan, 2.0], 1.0, size=(2, 3))
    assert np.isnan(x[:, 1]).all() and np.isfinite(x[:, [0, 2]]).all()
    assert np.isnan(g.dirichlet([np.nan, 1.0])).all()
    with pytest.raises(ValueError):
        g.poisson(np.nan)  # NumPy raises here too


def test_one_value_is_numpys_type():
    """Size None gives a Python float or int as NumPy's methods do (json takes it),
    and integers NumPy's scalar of its dtype."""
    import json

    g, n = tandem.Generator(tandem.Philox(2)), np.random.default_rng(2)
    calls = ["random()", "random(dtype=np.float32)", "standard_normal()", "normal(1.0)",
             "exponential()", "standard_exponential(dtype=np.float32)", "integers(5)",
             "integers(5, dtype=np.int32)", "poisson(3.0)", "binomial(5, 0.5)", "gamma(2.0)",
             "standard_gamma(2.0, dtype=np.float32)", "beta(1.0, 2.0)", "choice(5)",
             "geometric(0.5)", "negative_binomial(1, 0.5)", "hypergeometric(5, 5, 3)",
             "standard_t(3.0)", "wald(1.0, 1.0)", "triangular(0.0, 1.0, 2.0)"]
    for call in calls:
        assert type(eval("g." + call)) is type(eval("n." + call)), call
    assert json.dumps([g.poisson(3.0), g.random()])
