"""The stream contract as properties: cuts, threads, addressing, backends."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tandem
from tandem import distributions as D
from tandem.backends import cpu

# (name, positional args, keyword args) of every fill of the CPU backend.
FILLS = [
    ("bits", (), {"dtype": np.uint32}),
    ("bits", (), {"dtype": np.uint64}),
    ("bits", (), {"dtype": np.bool_}),
    ("random", (), {"dtype": np.float32}),
    ("random", (), {"dtype": np.float64}),
    ("random", (), {"dtype": np.float64, "interval": "(0,1]"}),
    ("integers", (0, 1000), {"dtype": np.int64}),
    # span 2**31 + 1 rejects almost half of all draws: the retry path runs often
    ("integers", (-(2**30), 2**30 + 1), {"dtype": np.int32}),
    ("integers", (0, 3 * 2**62 + 1), {"dtype": np.uint64}),
    ("integers", (-(2**63), 2**63), {"dtype": np.int64}),
    ("bernoulli", (0.3,), {}),
    ("normal", (), {"dtype": np.float64}),
    ("normal", (), {"dtype": np.float32}),
    ("normal", (), {"dtype": np.float64, "loc": -1.5, "scale": 3.0}),
    ("normal", (), {"dtype": np.float32, "loc": 2.0, "scale": 0.1}),
    ("exponential", (), {"dtype": np.float64}),
    ("exponential", (), {"dtype": np.float32, "scale": 7.0}),
    ("choice", (tandem.AliasTable([0.5, 0.0, 2.0, 1e-9, 3.0]),), {}),
    ("exponential", (), {"dtype": np.float64, "method": "zig"}),
    ("exponential", (), {"dtype": np.float32, "method": "zig", "scale": 0.5}),
    ("normal", (), {"dtype": np.float32, "method": "zig", "loc": 1.0}),
]
IDS = [f"{n}-{i}-{k.get('dtype', np.int64).__name__}" for i, (n, a, k) in enumerate(FILLS)]
# Threefry runs through the same kernels with another block function: a
# one-word, a two-word and a rejecting fill cover it (each kernel costs a compile).
THREEFRY_TOO = {"bits-0-uint32", "random-4-float64", "integers-7-int32", "normal-11-float64"}

positions = st.integers(0, 40) | st.integers(2**64 - 2000, 2**64 - 1300)
sizes = st.integers(0, 300)
# The CPU backend's small fills take its lean kernels; either kind may run any size.
kernels = st.sampled_from(["lean", "vectorised"])


def cpu_kernels(which):
    """Make the CPU backend use its ``which`` kernels for every size."""
    return mock.patch.object(cpu, "LEAN_BELOW", 2**63 if which == "lean" else 0)


def fill(name, args, kwargs, stream, n, **extra):
    return getattr(D, name)(stream, *args, n, **kwargs, **extra)


def addressed(name, args, kwargs, stream, index):
    return getattr(D, name + "_at")(stream, index, *args, **kwargs)


CASES = [pytest.param(kind, *fill, id=f"{kind.__name__}-{i}")
         for fill, i in zip(FILLS, IDS) for kind in (tandem.Philox, tandem.Threefry)
         if kind is tandem.Philox or i in THREEFRY_TOO]


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
@given(position=positions, n=sizes, cut=st.integers(0, 300), seed=st.integers(0, 2**64 - 1),
       whole_by=kernels, parts_by=kernels)
def test_cut_anywhere_equals_whole(kind, name, args, kwargs, position, n, cut, seed, whole_by,
                                   parts_by):
    stream = kind(seed).at(position)
    cut = min(cut, n)
    with cpu_kernels(whole_by):
        whole, end = fill(name, args, kwargs, stream, n)
    with cpu_kernels(parts_by):
        first, mid = fill(name, args, kwargs, stream, cut)
        second, end2 = fill(name, args, kwargs, mid, n - cut)
    np.testing.assert_array_equal(np.concatenate([first, second]), whole)
    assert end == end2


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
@given(position=positions, n=sizes, seed=st.integers(0, 2**64 - 1), by=kernels)
def test_reference_equals_numba_and_addressed(kind, name, args, kwargs, position, n, seed, by):
    stream = kind(seed, lane=seed % 977).at(position)
    with cpu_kernels(by):
        ours, end = fill(name, args, kwargs, stream, n)
        oracle, end_ref = fill(name, args, kwargs, stream, n, backend="reference")
        np.testing.assert_array_equal(ours, oracle)
        assert ours.dtype == oracle.dtype and end == end_ref
        index = np.arange(n)[::-1]
        np.testing.assert_array_equal(addressed(name, args, kwargs, stream, index), ours[::-1])


@pytest.mark.parametrize("name,args,kwargs", FILLS, ids=IDS)
def test_threads_and_chunks_do_not_matter(name, args, kwargs):
    # Large enough for several parallel chunks, with a ragged head and tail.
    stream = tandem.Philox(5).at(3)
    n = 3 * 2**14 + 7
    one, _ = fill(name, args, kwargs, stream, n, threads=1)
    two, _ = fill(name, args, kwargs, stream, n, threads=2)
    np.testing.assert_array_equal(one, two)
    # The reference runs in plain Python: only the last 500 elements, from
    # where the fill stands there (cuts are tested above).
    _, tail = fill(name, args, kwargs, stream, n - 500)
    np.testing.assert_array_equal(one[-500:], fill(name, args, kwargs, tail, 500,
                                                   backend="reference")[0])


def test_rejections_really_happen_and_match():
    # With span 2**31 + 1 about half of the draws are rejected.
    stream = tandem.Philox(3)
    values, _ = stream.integers(0, 2**31 + 1, 4000, threads=2)
    words, _ = stream.words(4000)
    span = 2**31 + 1
    direct = (words.astype(np.uint64) * np.uint64(span)) >> np.uint64(32)
    rejected = ((words.astype(np.uint64) * np.uint64(span)) & np.uint64(0xFFFFFFFF)) < 2**32 % span
    assert 1500 < rejected.sum() < 2500
    np.testing.assert_array_equal(values[~rejected], direct[~rejected])
    assert np.all((values >= 0) & (values < span))


@given(seed=st.integers(0, 2**64 - 1), purposes=st.lists(st.integers(0, 2**64 - 1) | st.text(),
                                                         min_size=1, max_size=8))
def test_sub_and_split_streams_never_reproduce_parent_words(seed, purposes):
    parent = tandem.Philox(seed)
    parent_words = set(parent.words(4096)[0].tolist())
    children = [parent.sub(p) for p in purposes] + [parent.split(g) for g in range(8)]
    for child in children:
        block = tuple(child.words(4)[0].tolist())
        assert child.key != parent.key or child.lane != parent.lane
        # a 4-word block of a child is never a block of the parent's first 1024
        assert not all(w in parent_words for w in block)


def test_many_sub_and_split_keys_are_distinct():
    root = tandem.Threefry(1)
    subs = {root.sub(p).key for p in range(2000)}
    subs |= {root.sub(str(p)).key for p in range(2000)}
    assert len(subs) == 4000
    philox = tandem.Philox(1)
    keys = {philox.sub(p).key for p in range(4000)} | {philox.split(0).key, philox.key}
    assert len(keys) == 4002
    # lanes of one split key are disjoint sequences of one key
    lanes = [philox.split(g) for g in range(64)]
    assert len({s.key for s in lanes}) == 1
    firsts = {tuple(s.words(4)[0].tolist()) for s in lanes}
    assert len(firsts) == 64


def test_sub_depends_on_lane_not_position():
    s = tandem.Philox(9)
    assert s.sub(1) == s.at(1000).sub(1)
    assert s.sub(1) != s.split(1).sub(1)
    assert s.split(3).sub(1) != s.split(4).sub(1)
