"""Streams as values: construction, equality, hashing, pickling, positions."""

import pickle

import numpy as np
import pytest

import tandem


def test_streams_are_immutable_hashable_values():
    a, b = tandem.Philox(7), tandem.Philox(7)
    assert a == b and hash(a) == hash(b)
    assert a != tandem.Threefry(7)
    assert len({a, b, a.skip(1)}) == 2
    with pytest.raises(AttributeError):
        a.position = 3
    assert pickle.loads(pickle.dumps(a.split(3).skip(5))) == a.split(3).skip(5)


def test_fills_do_not_change_the_stream():
    s = tandem.Philox(1)
    x, nxt = s.random(10)
    y, _ = s.random(10)
    np.testing.assert_array_equal(x, y)
    assert s.position == 0 and nxt.position == 20


def test_positions_skip_and_at():
    s = tandem.Philox(1)
    assert s.skip(5).position == 5 and s.skip(5).skip(-2).position == 3
    assert s.at(2**64).position == 2**64
    np.testing.assert_array_equal(s.skip(6).words(2)[0], s.words(8)[0][6:])
    # a 64-bit draw from an odd position starts at the next even one
    _, after = s.at(3).random(2)
    assert after.position == 8


def test_seed_round_trip_and_repr():
    s = tandem.Threefry(2**100 + 5)
    assert s.seed == 2**100 + 5 and len(s.key) == 4
    assert "Threefry(key=(" in repr(s)
    assert tandem.Philox(key=(1, 2)).seed == 1 + 2 * 2**32


def test_scalar_draws():
    s = tandem.Philox(1)
    x, nxt = s.random()
    assert isinstance(x, np.float64) and x == s.random(1)[0][0] and nxt.position == 2
    k, _ = s.integers(5, 6)
    assert k == 5


def test_size_tuple_and_out():
    s = tandem.Philox(2)
    x, _ = s.random((3, 4))
    assert x.shape == (3, 4)
    out = np.empty((3, 4))
    y, _ = s.random(out=out)
    assert y is out
    np.testing.assert_array_equal(out, x)


def test_end_of_lane():
    s = tandem.Philox(1).at(2**64 - 4)
    words, end = s.words(4)
    assert end.position == 2**64 and len(words) == 4
    with pytest.raises(ValueError, match="past the end"):
        s.words(5)
