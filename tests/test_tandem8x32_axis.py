"""Every law of tandem on Tandem8x32 streams (the generator axis), against the oracle.

The oracle reads Tandem8x32 words from its own NumPy transcription of the
specification (``tandem.oracle.tandem_words``), pinned here to the words of
``tandem.Tandem``, which ``test_tandem8x32.py`` pins to the specification's
vectors and fixtures.  The laws are tandem's own rules (``docs/spec.md``);
a rejected draw at word ``g`` continues on ``split(g)`` of the law's purpose.
KS checks of the laws on Tandem streams are in ``test_tandem8x32_statistics.py``.
"""

import numpy as np
import pytest

import tandem
from tandem import distributions as D
from tandem import oracle, parametric

from test_invariance import FILLS, IDS
from test_parametric import COMPOSED, LAWS

# A start inside a word (rounded up to it), inside a row and a chunk group.
STARTS = [0, 32 * 1061 + 7]
KS = [32, 4]


def _stream(seed, k, start):
    return tandem.Tandem(seed, K=k).at(start)


@pytest.mark.parametrize("k", KS)
def test_the_oracle_reads_the_streams_words(k):
    stream = tandem.Tandem(11, K=k)
    positions = np.arange(3 * 32 * k + 40, dtype=np.uint64)
    want = stream.words(positions.size)[0]
    assert np.array_equal(oracle.tandem_words(stream.key, k.bit_length() - 1, positions), want)


def test_a_fill_reads_the_words_of_the_stream_itself():
    """Raw words and uniforms by tandem's rules are the specification's draws."""
    stream = tandem.Tandem(5).at(96)
    assert np.array_equal(D.bits(stream, 300)[0], stream.bits(300)[0])
    assert np.array_equal(D.random(stream, 300)[0], stream.random(300)[0])
    assert np.array_equal(D.random(stream, 300, dtype=np.float32)[0],
                          stream.random(300, dtype=np.float32)[0])


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("name,args,kwargs", FILLS, ids=IDS)
def test_every_fill_equals_the_oracle_cut_anywhere(name, args, kwargs, start, k):
    stream = _stream(2026, k, start)
    n, cut = 150, 61
    whole, end = getattr(D, name)(stream, *args, n, **kwargs)
    want, want_end = getattr(D, name)(stream, *args, n, **kwargs, backend="reference")
    np.testing.assert_array_equal(whole, want)
    assert end == want_end and isinstance(end, tandem.Tandem) and end.K == k
    first, middle = getattr(D, name)(stream, *args, cut, **kwargs)
    second, end2 = getattr(D, name)(middle, *args, n - cut, **kwargs)
    np.testing.assert_array_equal(np.concatenate([first, second]), whole)
    assert end2 == end
    index = np.array([n - 1, 0, 77, 5])
    np.testing.assert_array_equal(getattr(D, name + "_at")(stream, index, *args, **kwargs),
                                  whole[index])


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("name", sorted(LAWS))
def test_every_parametric_law_equals_the_oracle(name, start):
    params = LAWS[name][0]
    stream = _stream(7, 32, start)
    got, end = parametric.fill(stream, name, *params, size=120)
    want, want_end = parametric.fill(stream, name, *params, size=120, backend="reference")
    np.testing.assert_array_equal(got, want)
    assert end == want_end
    index = np.array([119, 3, 64])
    np.testing.assert_array_equal(parametric.at(stream, name, index, *params), got[index])


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_every_composed_law_is_cut_invariant_and_equals_the_oracle(name):
    """Cut anywhere equals the whole; the laws the reference backend composes
    (beta, negative binomial) equal it."""
    params = COMPOSED[name][0]
    draw = getattr(parametric, name)
    stream = _stream(8, 32, 32 * 3)
    got, end = draw(stream, *params, 90)
    assert end == stream.at(32 * (4 + 8 * 90))
    first, middle = draw(stream, *params, 37)
    np.testing.assert_array_equal(np.concatenate([first, draw(middle, *params, 53)[0]]), got)
    if name in ("beta", "negative_binomial"):
        np.testing.assert_array_equal(draw(stream, *params, 90, backend="reference")[0], got)


def test_misses_continue_on_split_children_of_the_purpose():
    """A rejected bounded integer at word g takes split(g) of
    sub("tandem.integers"): its value is below the bound, and not the word's."""
    stream = tandem.Tandem(3)
    bound = 2**31 + 1  # rejects almost half the draws
    values, _ = D.integers(stream, 0, bound, 64, dtype=np.int64)
    words = stream.words(64)[0].astype(np.uint64)
    products = words * np.uint64(bound)
    threshold = (2**32 - bound) % bound
    rejected = (products & np.uint64(0xFFFFFFFF)) < threshold
    assert rejected.any() and (values < bound).all()
    np.testing.assert_array_equal(values[~rejected], (products >> np.uint64(32))[~rejected])


def test_a_generator_on_a_tandem_stream_draws_the_specifications_laws():
    g = tandem.Generator(tandem.Tandem(42))
    t = tandem.Tandem(42)
    np.testing.assert_array_equal(g.random(5), t.random(5)[0])
    t = t.at(5 * 64)
    np.testing.assert_array_equal(g.normal(size=7), t.normal(7)[0])
    t = t.at(12 * 64)
    np.testing.assert_array_equal(g.standard_exponential(3, dtype=np.float32),
                                  t.exponential(3, dtype=np.float32)[0])
    t = t.at(12 * 64 + 3 * 32)
    np.testing.assert_array_equal(g.integers(0, 10, 6), t.integers(0, 10, 6)[0])
    assert g.stream == t.at(t.position + 6 * 32)
    # scalar calls (from the Generator's reserve) equal one fill
    g = tandem.Generator(tandem.Tandem(9))
    np.testing.assert_array_equal([g.normal() for _ in range(5)],
                                  tandem.Tandem(9).normal(5)[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_array_parameters_give_each_element_the_scalar_fills_value(dtype):
    t = tandem.Tandem(21)
    locs, scales = np.array([0.0, -1.5, 2.0]), np.array([[0.5], [3.0]])
    values, after = t.normal((2, 3), loc=locs, scale=scales, dtype=dtype)
    for (i, j), value in np.ndenumerate(values):
        expected = t.normal((2, 3), loc=locs[j], scale=scales[i, 0], dtype=dtype)
        assert value == expected[0][i, j] and after == expected[1]
    values, after = t.exponential(None, scale=scales, dtype=dtype)
    for (i, j), value in np.ndenumerate(values):
        assert value == t.exponential((2, 1), scale=scales[i, 0], dtype=dtype)[0][i, j]
    with pytest.raises(ValueError, match="broadcast"):
        t.normal(3, loc=np.zeros(4))
    with pytest.raises(ValueError, match="scale"):
        t.exponential(2, scale=np.array([1.0, -1.0]))


def test_numpy_draws_through_the_bit_generator_read_the_streams_words():
    g = tandem.Generator(tandem.Tandem(4))
    raw = g.bit_generator.random_raw(3)
    words = tandem.Tandem(4).words(6)[0].astype(np.uint64)
    np.testing.assert_array_equal(raw, words[0::2] | words[1::2] << np.uint64(32))
    assert g.stream == tandem.Tandem(4).at(6 * 32)
