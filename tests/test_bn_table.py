"""tandem.bn score tables: layout in the combinatorial number system, candidates, memory."""

import math
import sys

import numba
import numpy as np
import pytest

import tandem
from tandem.bn import Dataset, ScoreTable, load_network, local_score, score_table
from tandem.bn import combinations as comb
from tandem.bn import table as table_module
from tandem.bn.table import ScoreTableMemoryError, estimate_bytes, pairwise_gains


@pytest.fixture(scope="module")
def asia():
    return load_network("asia").sample(300, tandem.Philox(3))


@pytest.fixture(scope="module")
def sachs():
    return load_network("sachs").sample(200, tandem.Philox(4))


def test_layout_and_every_entry(asia):
    table = score_table(asia, max_parents=3, progress=False, ess=2.0)
    n, m, k = 8, 7, 3
    assert isinstance(table, ScoreTable)
    assert table.scores.shape == (n, comb.n_sets(m, k)) == (n, 1 + 7 + 21 + 35)
    assert table.scores.dtype == np.float64 and table.candidates.dtype == np.int32
    assert table.candidates.shape == (n, m)
    for i in range(n):
        assert table.candidates[i].tolist() == [j for j in range(n) if j != i]
    assert table.max_parents == 3 and table.names == asia.names
    assert table.score == "bdeu" and table.settings == {"ess": 2.0}
    assert table.excluded == {} and table.n_rows == 300
    for i in range(n):
        for r in range(table.n_sets):
            positions = comb.unrank(r, m, k)
            parents = [int(table.candidates[i, p]) for p in positions]
            assert table.parent_set(i, r) == tuple(parents)
            assert table.rank(i, parents[::-1]) == r
            # bit for bit the local score of the unranked set
            assert table.scores[i, r] == local_score(asia, i, parents, "bdeu", ess=2.0)
    # ranks: empty set, singletons, then pairs in colex order
    assert table.parent_set(0, 0) == () and table.parent_set(0, 1) == (1,)
    assert table.parent_set(0, 8) == (1, 2) and table.parent_set(0, 9) == (1, 3)
    assert table.parent_set(0, 10) == (2, 3)


@pytest.mark.parametrize("score", ["k2", "bic"])
def test_other_scores_and_k(sachs, score):
    table = score_table(sachs, score=score, max_parents=2, progress=False)
    assert table.scores.shape == (11, 1 + 10 + 45)
    rng = np.random.default_rng(0)
    for _ in range(60):
        i, r = int(rng.integers(11)), int(rng.integers(table.n_sets))
        assert table.scores[i, r] == local_score(sachs, i, table.parent_set(i, r), score)
    zero = score_table(sachs, score=score, max_parents=0, progress=False)
    assert zero.scores.shape == (11, 1)
    np.testing.assert_array_equal(zero.scores[:, 0], table.scores[:, 0])


@pytest.mark.parametrize("score", ["bdeu", "k2", "bic"])
def test_few_rows_many_cells(score):
    # 30 rows and up to 3**4 = 81 cells per family: the kernels then visit the
    # observed configurations row by row instead of cell by cell.
    data = load_network("sachs").sample(30, tandem.Philox(12))
    table = score_table(data, score=score, max_parents=3, progress=False)
    for i in range(11):
        for r in range(table.n_sets):
            assert table.scores[i, r] == local_score(data, i, table.parent_set(i, r), score)


def test_bge_table():
    x = np.random.default_rng(6).normal(size=(50, 6))
    x[:, 1] += x[:, 0]
    x[:, 5] -= x[:, 2] + x[:, 1]
    data = Dataset.gaussian(x)
    table = score_table(data, score="bge", max_parents=3, progress=False, alpha_mu=2.0)
    assert table.settings == {"alpha_mu": 2.0, "alpha_w": 9.0}
    for i in range(6):
        for r in range(table.n_sets):
            ref = local_score(data, i, table.parent_set(i, r), "bge", alpha_mu=2.0)
            assert table.scores[i, r] == ref
    with pytest.raises(ValueError, match="'bdeu' is for discrete data"):
        score_table(data, progress=False)


def test_thread_count_and_chunks_change_nothing(sachs, monkeypatch):
    full = score_table(sachs, max_parents=3, progress=False).scores
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single = score_table(sachs, max_parents=3, progress=False).scores
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(full, single)
    # Chunks and blocks that start anywhere in a node's ranks (mid-size, padded or not)
    monkeypatch.setattr(table_module, "MIN_CHUNK", 7)
    chopped = score_table(sachs, max_parents=3, progress=False).scores
    assert np.array_equal(full, chopped)
    mapping = {name: [n for n in sachs.names[: 2 + i % 6] if n != name]
               for i, name in enumerate(sachs.names)}
    padded = score_table(sachs, max_parents=3, candidates=mapping, progress=False)
    monkeypatch.setattr(table_module, "MIN_CHUNK", 1 << 14)
    whole = score_table(sachs, max_parents=3, candidates=mapping, progress=False)
    assert np.array_equal(padded.scores, whole.scores)
    for i in range(11):
        for r in range(whole.n_sets):
            if np.isfinite(whole.scores[i, r]):
                assert whole.scores[i, r] == local_score(sachs, i, whole.parent_set(i, r))


def test_top_k_candidates(sachs):
    gains = pairwise_gains(sachs)  # [parent, child]
    assert np.all(np.diag(gains) == 0)
    empty = [local_score(sachs, i, ()) for i in range(11)]
    assert gains[3, 5] == local_score(sachs, 5, (3,)) - empty[5]
    table = score_table(sachs, max_parents=2, candidates=4, progress=False)
    assert table.candidates.shape == (11, 4)
    for i in range(11):
        others = sorted((j for j in range(11) if j != i), key=lambda j: (-gains[j, i], j))
        assert table.candidates[i].tolist() == sorted(others[:4])
        assert sorted(table.excluded[sachs.names[i]]) == sorted(sachs.names[j]
                                                                for j in others[4:])
    assert table.scores.shape == (11, 1 + 4 + 6)
    for i in range(11):
        for r in range(table.n_sets):
            assert table.scores[i, r] == local_score(sachs, i, table.parent_set(i, r))
    unrestricted = score_table(sachs, max_parents=1, candidates=10, progress=False)
    assert unrestricted.excluded == {} and unrestricted.candidates.shape == (11, 10)


def test_mapping_and_matrix_candidates(asia):
    names = asia.names
    mapping = {name: [] for name in names}
    mapping["either"] = ["lung", "tub"]
    mapping["dysp"] = ["bronc", "either", "smoke"]
    table = score_table(asia, max_parents=2, candidates=mapping, progress=False)
    assert table.candidates.shape == (8, 3)
    dysp, either = names.index("dysp"), names.index("either")
    assert table.candidates[dysp].tolist() == sorted(names.index(v) for v in mapping["dysp"])
    assert table.candidates[either].tolist() == [names.index("tub"), names.index("lung"), -1]
    assert table.candidates[0].tolist() == [-1, -1, -1]
    assert len(table.excluded["asia"]) == 7 and len(table.excluded["dysp"]) == 4
    # sets through a padded slot score -inf; the others are finite
    for r in range(table.n_sets):
        positions = comb.unrank(r, 3, 2)
        padded = any(table.candidates[either, p] < 0 for p in positions)
        assert np.isneginf(table.scores[either, r]) == padded
        if padded:
            with pytest.raises(ValueError, match="padded"):
                table.parent_set(either, r)
    assert np.isfinite(table.scores[:, 0]).all()
    matrix = np.zeros((8, 8), dtype=bool)
    for child, parents in mapping.items():
        for p in parents:
            matrix[names.index(p), names.index(child)] = True
    again = score_table(asia, max_parents=2, candidates=matrix, progress=False)
    assert np.array_equal(again.scores, table.scores)
    assert np.array_equal(again.candidates, table.candidates)
    assert again.fingerprint == table.fingerprint
    with pytest.raises(ValueError, match="lists the node itself"):
        score_table(asia, candidates={**mapping, "asia": ["asia"]}, progress=False)
    with pytest.raises(ValueError, match="must give every node; missing"):
        score_table(asia, candidates={"asia": []}, progress=False)
    np.fill_diagonal(matrix, True)
    with pytest.raises(ValueError, match="its own candidate"):
        score_table(asia, candidates=matrix, progress=False)
    with pytest.raises(ValueError, match=r"shape \(8, 8\)"):
        score_table(asia, candidates=np.zeros((3, 3), dtype=bool), progress=False)
    with pytest.raises(TypeError, match="candidates must be"):
        score_table(asia, candidates="all", progress=False)
    with pytest.raises(ValueError, match="no column named 'nobody'"):
        score_table(asia, candidates={**mapping, "dysp": ["nobody"]}, progress=False)


def test_fingerprint(asia, sachs):
    a = score_table(asia, max_parents=1, progress=False)
    assert a.fingerprint == score_table(asia, max_parents=1, progress=False).fingerprint
    others = [score_table(asia, max_parents=1, progress=False, ess=3.0),
              score_table(asia, max_parents=1, progress=False, score="k2"),
              score_table(asia, max_parents=2, progress=False),
              score_table(asia, max_parents=1, candidates=3, progress=False),
              score_table(load_network("asia").sample(300, tandem.Philox(4)), max_parents=1,
                          progress=False)]
    assert len({a.fingerprint} | {t.fingerprint for t in others}) == 6


def test_memory_limit(sachs):
    need = estimate_bytes(sachs, max_parents=3)
    assert need >= 8 * 11 * comb.n_sets(10, 3)
    with pytest.raises(ScoreTableMemoryError, match=r"max_parents=3 .* max_parents=2 would fit"):
        score_table(sachs, max_parents=3, memory_limit=estimate_bytes(sachs, max_parents=2),
                    progress=False)
    error = ScoreTableMemoryError("x")
    assert isinstance(error, MemoryError) and isinstance(error, ValueError)
    # a request far beyond the memory of any machine fails up front, not while allocating
    wide = Dataset.from_codes(np.zeros((2, 200), dtype=int) + np.arange(2)[:, None],
                              [2] * 200)
    with pytest.raises(MemoryError, match="max_parents=6"):
        score_table(wide, max_parents=6, progress=False)
    with pytest.raises(ValueError, match="max_parents must be non-negative"):
        score_table(sachs, max_parents=-1, progress=False)
    with pytest.raises(TypeError, match="max_parents must be an integer"):
        score_table(sachs, max_parents=2.0, progress=False)
    with pytest.raises(ValueError, match="memory_limit must be positive"):
        score_table(sachs, memory_limit=0, progress=False)
    with pytest.raises(ValueError, match="progress must be"):
        score_table(sachs, progress="yes")


def test_progress_bar(sachs, capsys, monkeypatch):
    score_table(sachs, max_parents=1, progress="always")
    assert "score table" in capsys.readouterr().err
    score_table(sachs, max_parents=1, progress=True)  # stderr is not a terminal here
    assert capsys.readouterr().err == ""
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain bar, without tqdm
    score_table(sachs, max_parents=1, progress="always")
    err = capsys.readouterr().err
    assert "score table (bdeu, k=1): [" in err and err.endswith("/121\n")


def test_k_beyond_candidates(asia):
    table = score_table(asia, max_parents=9, progress=False)
    assert table.scores.shape == (8, 2**7)
    assert table.scores.shape[1] == sum(math.comb(7, s) for s in range(8))
    assert np.isfinite(table.scores).all()
