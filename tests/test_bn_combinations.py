"""The combinatorial number system of tandem.bn.combinations."""

import itertools
import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tandem.bn import combinations as cb


def expected_order(m, k):
    """Size first, then colex: itertools.combinations sorted by reversed tuple."""
    out = []
    for s in range(min(k, m) + 1):
        out.extend(sorted(itertools.combinations(range(m), s), key=lambda c: c[::-1]))
    return out


@pytest.mark.parametrize("m,k", [(0, 0), (0, 3), (1, 1), (4, 2), (5, 5), (7, 3), (9, 4), (6, 9)])
def test_order_matches_itertools(m, k):
    order = expected_order(m, k)
    assert cb.n_sets(m, k) == len(order)
    sizes, positions = cb.subset_table(m, k)
    assert positions.shape == (len(order), k)
    for r, subset in enumerate(order):
        assert cb.rank(np.array(subset, dtype=np.int64), m) == r
        assert tuple(cb.unrank(r, m, k)) == subset
        assert sizes[r] == len(subset)
        assert tuple(positions[r, :len(subset)]) == subset
        assert np.all(positions[r, len(subset):] == -1)


def test_colex_formula_and_offsets():
    m, k = 8, 3
    off = cb.offsets(m, k)
    assert off.dtype == np.int64 and off.shape == (k + 2,)
    assert list(off) == [0, 1, 1 + 8, 1 + 8 + 28, 1 + 8 + 28 + 56]
    for s in range(k + 1):
        for c in itertools.combinations(range(m), s):
            colex = sum(math.comb(cj, j + 1) for j, cj in enumerate(c))
            assert cb.colex_rank(np.array(c, dtype=np.int64)) == colex
            assert cb.rank(np.array(c, dtype=np.int64), m) == off[s] + colex


def test_rank_stable_when_k_grows():
    # a subset's rank depends on m and its size, never on k
    for k in range(3, 7):
        assert tuple(cb.unrank(40, 7, k)) == tuple(cb.unrank(40, 7, 3))


def test_binomial_table():
    t = cb.binomial_table(10, 4)
    assert t.shape == (11, 5) and t.dtype == np.int64
    for a in range(11):
        for b in range(5):
            assert t[a, b] == math.comb(a, b)


def test_subset_masks():
    m, k = 10, 3
    masks = cb.subset_masks(m, k)
    assert masks.dtype == np.uint64
    for r, subset in enumerate(expected_order(m, k)):
        assert int(masks[r]) == sum(1 << p for p in subset)
    full = cb.subset_masks(64, 1)
    assert int(full[-1]) == 1 << 63


def test_errors():
    with pytest.raises(ValueError):
        cb.n_sets(-1, 2)
    with pytest.raises(ValueError):
        cb.n_sets(3, -1)
    with pytest.raises(ValueError):
        cb.unrank(cb.n_sets(5, 2), 5, 2)
    with pytest.raises(ValueError):
        cb.unrank(-1, 5, 2)
    with pytest.raises(ValueError):
        cb.rank(np.array([2, 1]), 5)
    with pytest.raises(ValueError):
        cb.rank(np.array([1, 5]), 5)
    with pytest.raises(ValueError):
        cb.subset_masks(65, 1)
    with pytest.raises(ValueError):
        cb.n_sets(200, 100)  # overflows int64


def test_callable_inside_njit():
    @numba.njit
    def roundtrip(m, k):
        buf = np.empty(k, dtype=np.int64)
        total = cb.n_sets(m, k)
        ok = True
        for r in range(total):
            s = cb.unrank_into(r, m, k, buf)
            ok &= cb.rank(buf[:s], m) == r
        return ok, total

    ok, total = roundtrip(12, 4)
    assert ok and total == sum(math.comb(12, s) for s in range(5))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60).flatmap(
    lambda m: st.tuples(st.just(m), st.sets(st.integers(0, max(m - 1, 0)), max_size=min(m, 6)))))
def test_roundtrip_subsets(case):
    m, subset = case
    if m == 0:
        subset = set()
    positions = np.array(sorted(subset), dtype=np.int64)
    k = 6
    r = cb.rank(positions, m)
    assert 0 <= r < cb.n_sets(m, k)
    assert np.array_equal(cb.unrank(r, m, k), positions)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.integers(0, 5), st.data())
def test_roundtrip_ranks(m, k, data):
    r = data.draw(st.integers(0, cb.n_sets(m, k) - 1))
    positions = cb.unrank(r, m, k)
    assert len(positions) <= k
    assert np.all(np.diff(positions) > 0)
    assert cb.rank(positions, m) == r


def test_set_members_maps_positions_through_candidates():
    _, positions = cb.subset_table(4, 2)
    out = np.empty(2, dtype=np.int64)
    candidates = np.array([5, 7, 9, -1])
    r = cb.rank(np.array([0, 2]), 4)
    assert cb.set_members(positions, candidates, r, out) == 2
    assert list(out) == [5, 9]
    assert cb.set_members(positions, candidates, 0, out) == 0
    assert cb.set_members(positions, candidates, cb.rank(np.array([1, 3]), 4),
                                    out) == -1
