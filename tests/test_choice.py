"""Alias tables, weighted choice, sampling, permutations and shuffles."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tandem

WEIGHTS = {
    "one": [2.5],
    "integers": [1, 2, 3, 0, 4],
    "spread": np.logspace(-12, 0, 1000)[np.random.default_rng(1).permutation(1000)],
    "one-heavy": [1e300, 1e-300, 1.0],
    "huge": [1e308, 1.5e308, 1e308],
    "zeros": [0.0] * 10 + [1.0] + [0.0] * 5,
    "uniform": np.ones(4097),
}


def _exact_implied(table):
    """The probability of each index, in exact arithmetic, columns equally likely."""
    n = table.n
    p = [Fraction(0)] * n
    for column, (keep, alias) in enumerate(zip(table.thresholds().tolist(),
                                               table.aliases().tolist())):
        p[column] += Fraction(keep, 2**32 * n)
        p[alias] += Fraction(2**32 - keep, 2**32 * n)
    return p


@pytest.mark.parametrize("name", WEIGHTS)
def test_implied_probabilities_within_2_to_minus_32(name):
    w = np.asarray(WEIGHTS[name], dtype=np.float64)
    table = tandem.AliasTable(w)
    assert table.n == len(w) and table.table.shape == (len(w),)
    assert (table.aliases() < len(w)).all()
    full = table.thresholds() == 2**32 - 1
    assert (table.aliases()[full] == np.flatnonzero(full)).all()
    total = sum(Fraction(x) for x in w.tolist())
    implied = _exact_implied(table)
    worst = max(abs(p - Fraction(x) / total) for p, x in zip(implied, w.tolist()))
    assert worst <= Fraction(1, 2**32)
    assert sum(implied) == 1
    np.testing.assert_allclose(table.probabilities(), [float(p) for p in implied], rtol=1e-12,
                               atol=1e-300)
    # categories of weight 0 are never drawn
    assert all(p == 0 for p, x in zip(implied, w.tolist()) if x == 0)


@given(st.lists(st.floats(0, 1e6) | st.integers(0, 10**9), min_size=1, max_size=60)
       .filter(lambda w: sum(w) > 0))
def test_implied_probabilities_property(w):
    table = tandem.AliasTable(w)
    total = sum(Fraction(x) for x in w)
    implied = _exact_implied(table)
    assert max(abs(p - Fraction(x) / total) for p, x in zip(implied, w)) <= Fraction(1, 2**32)


def test_choice_matches_the_lookup_rule():
    table = tandem.AliasTable([1, 2, 3, 0, 4])
    s = tandem.Philox(11)
    idx, end = s.choice(table, 1000)
    d, end_bits = s.bits(1000, dtype=np.uint64)
    assert end == end_bits
    for i, x in zip(idx.tolist(), d.tolist()):
        column, within = divmod(x * 5, 2**64)
        keep = within >> 32 < int(table.thresholds()[column])
        assert i == (column if keep else int(table.aliases()[column]))
    assert 3 not in idx.tolist()


def test_sample_forms():
    s = tandem.Philox(3)
    pop = np.arange(20.0).reshape(10, 2)
    rows, nxt = s.sample(pop, size=4)
    assert rows.shape == (4, 2) and set(rows[:, 0] // 2) <= set(range(10))
    one, _ = s.sample(pop)
    assert one.shape == (2,)
    k, _ = s.sample(10, size=(2, 3), replace=False)
    assert k.shape == (2, 3) and len(set(k.ravel().tolist())) == 6
    out = np.empty((3, 2))
    got, _ = s.sample(pop, weights=np.arange(10.0), size=3, out=out)
    assert got is out and (out[:, 0] != 0).all()  # weight 0 for row 0
    whole, _ = s.sample(5, size=5, replace=False)
    assert sorted(whole.tolist()) == list(range(5))


def test_weighted_without_replacement_skips_zero_weights():
    s = tandem.Philox(4)
    picked, _ = s.sample(6, weights=[0, 1, 0, 1, 1, 0], size=3, replace=False)
    assert sorted(picked.tolist()) == [1, 3, 4]


def test_permutation_and_shuffle_agree():
    s = tandem.Philox(5)
    p, end = s.permutation(100)
    assert sorted(p.tolist()) == list(range(100)) and p.dtype == np.int64
    x = np.arange(100) * 10
    y, end2 = s.shuffle(x)
    assert y is x and end == end2
    np.testing.assert_array_equal(x, p * 10)
    np.testing.assert_array_equal(p, fisher_yates(s, 100, 100))


def fisher_yates(stream, n, k):
    """docs/spec.md's *Sampling* rule in Python integers: the first ``k`` entries
    of the permutation of ``range(n)``, and how many draws were rejected."""
    count = min(k, max(n - 1, 0))
    draws = [int(d) for d in stream.bits(count, dtype=np.uint64)[0]]
    w0 = -(-stream.word_position // 2) * 2
    entries = {}  # position -> entry, where it is not the position itself
    fisher_yates.rejected = 0
    for i, d in enumerate(draws):
        r = n - i
        retries = iter(stream.sub("tandem.sample").split(w0 + 2 * i).bits(64, dtype=np.uint64)[0])
        while (d * r) % 2**64 < 2**64 % r:
            fisher_yates.rejected += 1
            d = int(next(retries))
        t = i + (d * r >> 64)
        entries[i], entries[t] = entries.get(t, t), entries.get(i, i)
    return np.array([entries.get(i, i) for i in range(min(k, n))], dtype=np.int64)


@pytest.mark.parametrize("make", [tandem.Philox, tandem.Threefry, tandem.Tandem])
@pytest.mark.parametrize("n, k, start", [(1, 1, 0), (2, 2, 3), (10, 10, 0), (1000, 1000, 5),
                                         (1000, 7, 1), (10**12, 20, 0), (3 * 2**61, 24, 0)])
def test_permutations_and_samples_follow_the_spec(make, n, k, start):
    """permutation(n) and sample(n, k, replace=False) against a transcription of
    the rule: Fisher–Yates from the front on 64-bit draws, the sample its first
    k entries (from a hash table below n / 16, the whole array above), and a
    population of 3 * 2**61 rejects a quarter of its draws."""
    stream = make(2026).at(start)
    want = fisher_yates(stream, n, k)
    got, after = stream.sample(n, size=k, replace=False)
    np.testing.assert_array_equal(got, want)
    draws = min(k, n - 1)
    assert after == stream.bits(draws, dtype=np.uint64)[1]
    if n == 3 * 2**61:
        assert fisher_yates.rejected > 0
    if n <= 1000:
        p, after = stream.permutation(n)
        np.testing.assert_array_equal(p[:k], want)
        assert after == stream.bits(n - 1, dtype=np.uint64)[1]


def test_samples_without_replacement_cost_their_size_not_the_population():
    """choice(2**62, 5, replace=False) reads five draws and allocates five entries
    (0.4's rule sorted 2**62 keys)."""
    s = tandem.Philox(9)
    got, after = s.sample(2**62, size=5, replace=False)
    assert len(set(got.tolist())) == 5 and after == s.bits(5, dtype=np.uint64)[1]
    with pytest.raises(ValueError, match="below 2\\*\\*63"):
        s.sample(2**63, size=1, replace=False)


def test_generator_numpy_signatures():
    g = tandem.Generator(tandem.Philox(6))
    assert type(g.standard_normal()) is float  # as NumPy's
    assert g.standard_normal(3, dtype=np.float32).dtype == np.float32
    assert g.normal(1.0, 2.0, size=(2, 2)).shape == (2, 2)
    assert g.standard_exponential(4, method="inv").shape == (4,)
    assert g.exponential(2.0, 5).min() >= 0
    assert g.choice(5, 3).shape == (3,)
    assert sorted(g.choice(5, 5, replace=False).tolist()) == list(range(5))
    a = np.arange(12).reshape(3, 4)
    cols = g.choice(a, 2, axis=1)
    assert cols.shape == (3, 2) and all(c in a.T.tolist() for c in cols.T.tolist())
    assert g.choice([10, 20, 30], p=[0, 1, 0]) == 20
    with pytest.raises(ValueError, match="sum to 1"):
        g.choice(3, p=[0.2, 0.2, 0.2])
    perm = g.permutation(a, axis=1)
    assert sorted(perm[0].tolist()) == [0, 1, 2, 3] and perm[1].tolist() == (perm[0] + 4).tolist()
    x = np.arange(10)
    assert g.shuffle(x) is None and sorted(x.tolist()) == list(range(10))
    # the Generator is the stream's fills in sequence
    s = tandem.Philox(6)
    z, s = s.normal()
    assert tandem.Generator(tandem.Philox(6)).standard_normal() == z
