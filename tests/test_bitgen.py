"""tandem.StreamBitGenerator: a tandem stream under numpy.random.Generator,
and the libraries that take a NumPy Generator as their random state."""

import importlib.util
import pathlib
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import tandem
from tandem import StreamBitGenerator

STREAMS = [tandem.Philox(7), tandem.Philox(7).at(3), tandem.Threefry(3, lane=5).at(1)]


def numpy_on(stream):
    return np.random.Generator(StreamBitGenerator(stream))


@pytest.mark.parametrize("stream", STREAMS, ids=repr)
def test_numpy_draws_are_the_streams_words(stream):
    g = numpy_on(stream)
    assert isinstance(g, np.random.Generator)
    # next_double: tandem's uniform64 rule on the draw at the next even position
    values, after = stream.random(1001)
    np.testing.assert_array_equal(g.random(1001), values)
    assert g.bit_generator.stream == after
    # next_uint32: one word; next_uint64: the next aligned 64-bit draw
    words, after = after.words(5)
    np.testing.assert_array_equal(g.integers(0, 2**32, 5, dtype=np.uint32), words)
    draws, after = after.bits(4, dtype=np.uint64)
    np.testing.assert_array_equal(g.integers(0, 2**64, 4, dtype=np.uint64), draws)
    assert g.bit_generator.stream == after


def test_every_numpy_method_runs_and_is_reproducible():
    def draws(g):
        return [g.standard_gamma(0.5, 50), g.poisson(3.0, 50), g.binomial(10, 0.3, 50),
                g.beta(2.0, 3.0, 50), g.multivariate_normal([0, 1], np.eye(2), 5),
                g.dirichlet([1, 2, 3], 4), g.permuted(np.arange(20))]

    first, second = (draws(numpy_on(tandem.Philox(1))) for _ in range(2))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    other = draws(numpy_on(tandem.Philox(2)))
    assert not np.array_equal(first[0], other[0])


def test_state_round_trips_as_a_stream_and_pickles():
    bits = StreamBitGenerator(tandem.Philox(9))
    np.random.Generator(bits).random(3)
    assert bits.state == {"bit_generator": "StreamBitGenerator",
                          "stream": tandem.Philox(9).at(6)}
    copy = pickle.loads(pickle.dumps(bits))
    np.testing.assert_array_equal(np.random.Generator(copy).random(4),
                                  np.random.Generator(bits).random(4))
    bits.state = tandem.Threefry(2).at(4)
    assert bits.stream == tandem.Threefry(2).at(4)
    bits.state = {"stream": tandem.Philox(9)}
    np.testing.assert_array_equal(np.random.Generator(bits).random(2),
                                  tandem.Philox(9).random(2)[0])
    with pytest.raises(TypeError, match="tandem Stream"):
        bits.state = 5
    with pytest.raises(TypeError, match="tandem Stream"):
        StreamBitGenerator(np.random.PCG64(1))


def test_threads_sharing_it_get_distinct_words():
    """NumPy's Generator holds ``lock`` while it draws: two threads, 20 draws
    each, take the 40 draws of one thread in some order."""
    g = numpy_on(tandem.Philox(4))
    got = []

    def draw():
        for _ in range(20):
            got.append(g.random(20_000))

    threads = [threading.Thread(target=draw) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = numpy_on(tandem.Philox(4))
    expected = [alone.random(20_000) for _ in range(40)]
    assert sorted(a.tobytes() for a in got) == sorted(a.tobytes() for a in expected)


def test_end_of_the_lane_is_an_error_not_a_wrap():
    stream = tandem.Philox(1).at(2**64 - 3)
    bits = StreamBitGenerator(stream)
    g = np.random.Generator(bits)
    assert g.integers(0, 2**32, dtype=np.uint32) == stream.words(1)[0][0]
    assert g.random() == stream.at(2**64 - 2).random(1)[0][0]
    assert bits.stream.position == 2**64
    g.random()  # NumPy cannot be told; the bit generator says so after
    with pytest.raises(OverflowError, match="end of the stream's lane"):
        bits.stream
    assert StreamBitGenerator(stream.at(2**64)).stream.position == 2**64


def _ecosystem():
    """tools/ecosystem.py: the table of calls that take a random state."""
    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "ecosystem.py"
    spec = importlib.util.spec_from_file_location("ecosystem", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ECOSYSTEM = _ecosystem()


def test_scipy_draws_are_the_generators_own():
    from scipy import stats

    np.testing.assert_array_equal(stats.norm.rvs(size=5, random_state=numpy_on(
        tandem.Philox(2026))), numpy_on(tandem.Philox(2026)).standard_normal(5))


@pytest.mark.parametrize("name", list(ECOSYSTEM.calls()))
def test_scipy_pandas_and_scikit_learn_take_it(name):
    """Each call of tools/ecosystem.py's table runs on a tandem.Generator and
    gives the same result from the same stream."""
    call = ECOSYSTEM.calls()[name]
    ran, reproducible = ECOSYSTEM.check(call, lambda: tandem.Generator(tandem.Philox(2026)))
    assert ran is True and reproducible
    other = call(tandem.Generator(tandem.Philox(2027)))
    assert not np.array_equal(np.asarray(other), np.asarray(call(tandem.Generator(
        tandem.Philox(2026))))), "the stream does not reach the call"


def test_spawned_children_are_the_spec_lanes_and_scipy_spawns_them():
    from scipy.stats import qmc

    g = tandem.Generator(tandem.Philox(11))
    children = g.spawn(2) + g.spawn(1)
    spawn = tandem.Philox(11).sub("tandem.spawn")
    assert [c.stream for c in children] == [spawn.split(k) for k in range(3)]
    assert all(type(c) is tandem.Generator for c in children)
    grandchild = children[0].spawn(1)[0]
    assert grandchild.stream == spawn.split(0).sub("tandem.spawn").split(0)
    # The spawn count travels with pickles and deep copies.
    again = pickle.loads(pickle.dumps(g))
    assert again.spawn(1)[0].stream == spawn.split(3)
    with pytest.raises(ValueError, match="non-negative"):
        g.spawn(-1)
    # SciPy's QMC engines spawn from the bit generator's seed sequence, and
    # a NumPy bit generator can be seeded from it.
    for engine in (qmc.Sobol(2, rng=g), qmc.LatinHypercube(2, rng=g), qmc.Halton(2, rng=g)):
        assert engine.random(4).shape == (4, 2)
    seq = tandem.StreamSeedSequence(tandem.Philox(11))
    np.testing.assert_array_equal(seq.generate_state(3),
                                  tandem.Philox(11).sub("tandem.seed_state").bits(3)[0])
    assert np.random.PCG64(seq).random_raw() == np.random.PCG64(
        tandem.StreamSeedSequence(tandem.Philox(11))).random_raw()


def test_random_raw_is_the_streams_64_bit_draws():
    bits = StreamBitGenerator(tandem.Philox(3).at(1))
    first = bits.random_raw()
    rest = bits.random_raw(3)
    expected = tandem.Philox(3).at(2).bits(4, dtype=np.uint64)[0]
    assert [first, *rest.tolist()] == expected.tolist()
    assert bits.random_raw(2, output=False) is None and bits.stream.position == 14


def test_numba_takes_the_generator_through_numpys_ctypes_interface():
    """Issue 39: Numba's unboxing read a ctypes interface the bit generator lacked,
    and the interpreter died (SIGSEGV)."""
    numba = pytest.importorskip("numba")
    draw = numba.njit(lambda rng: rng.random())
    g = tandem.Generator(tandem.Philox(7))
    assert draw(g) == tandem.Philox(7).random(1)[0][0]
    assert g.stream.position == 2
    fields = g.bit_generator.ctypes
    assert fields._fields == np.random.PCG64().ctypes._fields
    assert fields.state_address == fields.state.value
    assert fields.next_uint32(fields.state) == tandem.Philox(7).at(2).words(1)[0][0]
    assert fields.next_double(fields.state) == tandem.Philox(7).at(4).random(1)[0][0]
    assert g.stream.position == 6
    through_cffi = g.bit_generator.cffi
    assert through_cffi.next_uint64(through_cffi.state) == tandem.Philox(7).at(6).bits(
        1, dtype=np.uint64)[0][0]
    assert g.stream.position == 8
    # Compiled code that draws past the end is not told; the Generator says so after.
    end = tandem.Generator(tandem.Philox(7).at(2**64 - 1))
    draw(end)
    with pytest.raises(OverflowError, match="end of the stream's lane"):
        end.stream
    for method in (end.random, lambda: end.zipf(2.0)):
        with pytest.raises(OverflowError, match="end of the stream's lane"):
            method()
    with pytest.raises(NotImplementedError):
        g.bit_generator._benchmark(10)


def test_seeds_follow_the_spec():
    seq = np.random.SeedSequence(5)
    assert tandem.Philox(seq).key == tuple(int(w) for w in seq.generate_state(2, np.uint32))
    assert tandem.Threefry([5]).key == tuple(
        int(w) for w in np.random.SeedSequence([5]).generate_state(4, np.uint32))
    assert tandem.Philox(np.int64(5)) == tandem.Philox(5) == tandem.Philox(np.array(5))
    assert tandem.Philox() != tandem.Philox()  # fresh entropy, never a fixed seed
    assert tandem.Generator(7).stream == tandem.Tandem(7)  # the default generator


def test_the_capsules_cfuncs_are_built_when_numpy_first_reads_it():
    """A tandem.Generator that calls only tandem's rules never compiles the bit
    generator's cfuncs (5.6 s with an empty cache on the 2-core machine); NumPy's first
    read of the capsule builds them, and every draw is the stream's word."""
    code = """
import numpy as np, tandem
from tandem import bitgen
g = tandem.Generator(tandem.Threefry(3))
g.random(3); g.normal(size=2)
assert not bitgen._built()
bits = tandem.StreamBitGenerator(tandem.Threefry(3))
words = np.random.Generator(bits).integers(0, 2**32, 6, dtype=np.uint32)
assert words.tolist() == tandem.Threefry(3).words(6)[0].tolist(), words
assert bitgen._built()
assert bits.stream.position == 6
# NumPy copies the capsule's functions when it makes a Generator: tandem.Generator
# copies them again before its first NumPy algorithm; one set serves every generator.
first = g.hypergeometric(5, 5, 3, size=20)
assert first.tolist() == tandem.Generator(tandem.Threefry(3).at(10)).hypergeometric(
    5, 5, 3, size=20).tolist()
g.bit_generator.state = tandem.Philox(3)
assert g.hypergeometric(5, 5, 3, size=20).tolist() == tandem.Generator(
    tandem.Philox(3)).hypergeometric(5, 5, 3, size=20).tolist()
plain = np.random.Generator(tandem.StreamBitGenerator(tandem.Threefry(3)))
plain.bit_generator.state = tandem.Philox(3)  # the copy NumPy holds stays right
assert plain.random(4).tolist() == tandem.Philox(3).random(4)[0].tolist()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.stdout.strip() == "ok", done.stderr[-3000:]


def test_seeds_of_any_size_as_numpy_takes_them():
    """An integer beyond the key's range is SeedSequence(seed) (docs/spec.md,
    Seeds); a negative one is NumPy's ValueError."""
    for make, words in ((tandem.Philox, 2), (tandem.Threefry, 4), (tandem.Tandem, 4)):
        big = 2**200 + 3
        want = tuple(int(w) for w in np.random.SeedSequence(big).generate_state(words,
                                                                                np.uint32))
        assert make(big).key == want
        with pytest.raises(ValueError, match="non-negative"):
            make(-1)
    assert tandem.Tandem(np.array(5)) == tandem.Tandem(5)


def test_advance_and_jumped_as_numpys():
    """advance(delta): 2 * delta words on, in place; jumped(j): a new bit generator
    j * 2**48 words on, jumped(2) == jumped(1).jumped(1); both refuse to leave
    the lane, and a bad state is NumPy's ValueError."""
    for stream in (tandem.Philox(1).at(3), tandem.Tandem(1).at(96)):
        bits = StreamBitGenerator(stream)
        assert bits.advance(5) is bits and bits.stream == stream.at_word(stream.word_position
                                                                          + 10)
        assert bits.advance(-5).stream == stream
        jumped = bits.jumped(2)
        assert jumped is not bits and bits.stream == stream
        assert jumped.stream == bits.jumped(1).jumped(1).stream == stream.at_word(
            stream.word_position + 2 * tandem.bitgen.JUMP_WORDS)
        assert jumped.seed_seq is bits.seed_seq
        with pytest.raises(ValueError, match="leave the stream's lane"):
            bits.advance(-10)
        with pytest.raises(ValueError, match="leave the stream's lane"):
            bits.jumped(2**16 + 1)
        with pytest.raises(ValueError, match="non-negative"):
            bits.jumped(-1)
    # the draws after an advance are the stream's from there
    g = tandem.Generator(tandem.Philox(4))
    g.bit_generator.advance(3)
    assert g.random() == tandem.Philox(4).at(6).random()[0]
    with pytest.raises(ValueError, match="'stream'"):
        g.bit_generator.state = {"bit_generator": "StreamBitGenerator"}
    with pytest.raises(ValueError, match="PCG64"):
        g.bit_generator.state = np.random.PCG64(1).state


def test_seed_seq_is_a_numpy_seed_sequence():
    g = tandem.Generator(tandem.Philox(9))
    seq = g.bit_generator.seed_seq
    assert isinstance(seq, np.random.SeedSequence)
    assert seq.entropy == 9 and seq.spawn_key == () and seq.pool_size == 4
    assert seq.pool.dtype == np.uint32 and seq.n_children_spawned == 0
    g.spawn(3)
    assert seq.n_children_spawned == 3 and seq.state["n_children_spawned"] == 3
    again = pickle.loads(pickle.dumps(seq))
    assert again.n_children_spawned == 3 and again.stream == seq.stream
