"""Small calls of a Generator are served from a reserve (tandem.reserve), and
give exactly the values and positions of the calls made one by one."""

import threading

import numpy as np
import pytest

import tandem
from tandem.stream import POSITION_LIMIT

# Each served method, with the parameters of one call.
CALLS = [
    ("random", ()), ("standard_normal", ()), ("normal", (1.0, 2.0)),
    ("standard_exponential", ()), ("exponential", (3.0,)), ("integers", (-5, 17)),
    ("gamma", (2.5,)), ("standard_gamma", (0.7,)), ("poisson", (3.0,)),
    ("binomial", (10, 0.3)), ("beta", (2.0, 3.0)),
    ("standard_t", (4.0,)), ("f", (3.0, 5.0)), ("negative_binomial", (3, 0.4)),
    ("wald", (1.0, 2.0)), ("uniform", (-1.0, 1.0)), ("lognormal", (0.0, 0.5)),
]


def one_by_one(monkeypatch):
    """Make every Generator call fill as it is (no reserve), until undone."""
    monkeypatch.setattr(tandem.Generator, "_made",
                        lambda self, key, size, fill, *a, **kw:
                        self._draw(fill, *a, size=size, **kw))


def outcomes(g, script):
    """The values (or the error's type) and the state after each call of ``script``."""
    seen = []
    for name, params, size in script:
        try:
            value = getattr(g, name)(*params, size=size)
        except (OverflowError, ValueError) as e:  # past the lane's end
            value = type(e).__name__
        seen.append((name, np.asarray(value).tolist(), g.bit_generator.state["stream"]))
    return seen


@pytest.mark.parametrize("name,params", CALLS)
def test_repeated_small_calls_are_one_fill(name, params):
    """300 calls of size None equal one fill of 300 (cut invariance), position included."""
    g, h = tandem.Generator(11), tandem.Generator(11)
    one = [getattr(g, name)(*params) for _ in range(300)]
    whole = getattr(h, name)(*params, size=300)
    np.testing.assert_array_equal(np.array(one), whole)
    # NumPy's type: a Python float or int, but a NumPy integer from integers
    assert type(one[0]) is type(getattr(np.random.default_rng(0), name)(*params))
    assert g.bit_generator.state == h.bit_generator.state


@pytest.mark.parametrize("dtype", [np.int64, int, bool, "bool", np.uint8, np.dtype(np.int32)])
def test_repeated_integers_keep_numpys_types(dtype):
    """A repeated call is served before the bounds and dtype are converted: its
    values and types are still those of the call made alone, as NumPy's."""
    g, h = tandem.Generator(4), tandem.Generator(4)
    one = [g.integers(0, 2, dtype=dtype) for _ in range(40)]
    ones = [g.integers(0, 2, size=1, dtype=dtype) for _ in range(40)]
    whole = h.integers(0, 2, size=80, dtype=dtype)
    np.testing.assert_array_equal(np.concatenate([np.array(one), *ones]), whole)
    numpy_one = np.random.default_rng(0).integers(0, 2, dtype=dtype)
    assert {type(v) for v in one} == {type(numpy_one)}
    assert {v.dtype for v in ones} == {whole.dtype}
    assert g.bit_generator.state == h.bit_generator.state


def test_calls_of_a_few_elements_are_one_fill():
    g, h = tandem.Generator(3), tandem.Generator(3)
    parts = [g.gamma(0.7, 2.0, size=k) for k in (1, 5, 2, 200, 3, 7)]
    np.testing.assert_array_equal(np.concatenate(parts), h.gamma(0.7, 2.0, size=218))
    assert g.bit_generator.state == h.bit_generator.state


def mixed_script():
    """Laws interleaved, parameters of other types and signs, NumPy's own
    algorithms and array parameters between calls."""
    rng = np.random.default_rng(0)  # only to pick the order
    script = []
    for i in rng.integers(0, len(CALLS), size=120):
        name, params = CALLS[i]
        script.append((name, params, [None, 1, 3][i % 3]))
    script[10:10] = [("normal", (0.0, 1.0), None), ("normal", (-0.0, 1.0), None),
                     ("normal", (np.float32(0.5), 1.0), None), ("normal", (0.5, 1.0), None)]
    script[40:40] = [("zipf", (2.0,), None), ("random", (), None), ("hypergeometric", (5, 5, 3), 2)]
    script[70:70] = [("normal", (np.array([0.0, 1.0]), 1.0), None), ("normal", (0.0, 1.0), None)]
    return script


def test_interleaved_calls_equal_the_calls_made_one_by_one(monkeypatch):
    script = mixed_script()
    with monkeypatch.context() as m:
        one_by_one(m)
        expected = outcomes(tandem.Generator(5), script)
    assert outcomes(tandem.Generator(5), script) == expected


def test_a_new_state_is_honoured(monkeypatch):
    """Setting the state (or taking it from another generator) between calls of
    one law gives the values from the new state, not the reserve's."""
    def run():
        g = tandem.Generator(8)
        first = [g.normal() for _ in range(6)]
        saved = g.bit_generator.state
        more = [g.normal() for _ in range(6)]
        g.bit_generator.state = saved
        again = [g.normal() for _ in range(6)]
        h = tandem.Generator(9)  # another key at the same position
        h.normal(size=12)
        g.bit_generator.state = h.bit_generator.state
        other = [g.normal() for _ in range(6)]
        return first, more, again, other

    with monkeypatch.context() as m:
        one_by_one(m)
        expected = run()
    got = run()
    assert got == expected
    assert got[1] == got[2]
    assert got[3] == tandem.Generator(9).normal(size=18)[12:].tolist()


@pytest.mark.parametrize("name,params", [("random", ()), ("normal", (0.0, 1.0)),
                                         ("integers", (0, 7)), ("gamma", (0.3,))])
def test_the_end_of_the_lane_is_met_as_by_single_calls(monkeypatch, name, params):
    """Near position 2**64 a reserve never reads past the lane: calls succeed
    where single calls succeed and raise OverflowError where they raise it."""
    script = [(name, params, None)] * 40 + [(name, params, 3)] * 5

    def run():
        return outcomes(tandem.Generator(tandem.Philox(2).at(POSITION_LIMIT - 48)), script)

    with monkeypatch.context() as m:
        one_by_one(m)
        expected = run()
    got = run()
    assert got == expected
    assert expected[0][1] not in ("OverflowError", "ValueError")
    assert expected[-1][1] in ("OverflowError", "ValueError")


def test_threads_sharing_a_generator_draw_distinct_values():
    """Four threads, 500 calls each, on one Generator: together exactly the
    values of one fill of 2,000, each once."""
    g = tandem.Generator(21)
    drawn = [[] for _ in range(4)]
    start = threading.Barrier(4)

    def work(mine):
        start.wait()
        for _ in range(500):
            mine.append(g.random())

    threads = [threading.Thread(target=work, args=(d,)) for d in drawn]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    whole = tandem.Generator(21).random(2000)
    np.testing.assert_array_equal(np.sort(np.concatenate(drawn)), np.sort(whole))
