"""tandem.bn.order_mcmc: the target, reproducibility, checkpoint and resume."""

import dataclasses
import math

import numpy as np
import pytest
from test_bn_exact import SyntheticTable, brute_force, synthetic_table, table_rows

import tandem
from tandem.bn import combinations
from tandem.bn import chain_state, node_sums
from tandem.bn.table import per_edge
from tandem.bn.exact import exact_edge_posteriors
from tandem.bn.mcmc import DEFAULT_MOVES, MOVES, geometric_temperatures, order_mcmc


def order_log_score(table, order):
    """Plain-Python order score: sum over nodes of log-sum-exp of the allowed rows."""
    position = {v: p for p, v in enumerate(order)}
    total = 0.0
    for v in range(table.scores.shape[0]):
        allowed = [s for (u, pa, s) in table_rows(table)
                   if u == v and all(position[p] < position[v] for p in pa)]
        top = max(allowed)
        total += top + math.log(sum(math.exp(s - top) for s in allowed))
    return total


@pytest.fixture(scope="module")
def five():
    return synthetic_table(5, 2, 11)


@pytest.fixture(scope="module")
def long_run(five):
    return order_mcmc(five, tandem.Philox(2024), chains=4, iterations=30_000, burn_in=2_000,
                      thin=2, progress=False)


def order_visits_distance(five, run):
    """Total variation between the visits of the orders' score levels after
    burn-in and the exact posterior of those levels."""
    _, orders, log_w, _ = brute_force(five)
    posterior = np.exp(log_w - log_w.max())
    posterior /= posterior.sum()
    levels = np.unique(np.round(log_w, 9))
    exact = np.array([posterior[np.isclose(log_w, x, rtol=0, atol=1e-9)].sum()
                      for x in levels])
    visited = run.traces[:, run.burn_in:].ravel()
    index = np.searchsorted(levels, np.round(visited, 9))
    assert np.allclose(levels[index], visited, atol=1e-9)  # every visited score is an order's
    empirical = np.bincount(index, minlength=len(levels)) / visited.size
    return 0.5 * np.abs(empirical - exact).sum()


def test_order_posterior_matches_enumeration(five, long_run):
    # The chain's stationary law is P(order) ∝ exp(order score). Group the 120
    # orders by score (equal scores are indistinguishable in the trace) and
    # compare the visit frequencies after burn-in with the exact posterior.
    # 4 chains x 28 000 iterations with acceptance ~0.5: thousands of effective
    # draws, so each frequency is within ~0.01; total variation well below 0.05.
    assert order_visits_distance(five, long_run) < 0.05


def test_edges_match_exact(five, long_run):
    exact = exact_edge_posteriors(table=five)
    # given-order estimates average exact conditional probabilities: the only
    # error is the order sampling, sd about 0.01 here; the sampled DAGs add
    # Bernoulli noise over 4 x 14 000 draws (sd <= 0.005 more).
    assert np.abs(long_run.edge_probabilities_given_orders - exact).max() < 0.02
    assert np.abs(long_run.edge_probabilities - exact).max() < 0.03
    for c in range(4):
        assert np.abs(long_run.chain_edge_probabilities_given_orders[c] - exact).max() < 0.08
    assert np.all(np.diag(long_run.edge_probabilities) == 0)


def test_result_contents(five, long_run):
    r = long_run
    assert r.traces.shape == (4, 30_000) and np.all(np.isfinite(r.traces))
    assert r.samples == (30_000 - 2_000 + 1) // 2
    assert r.proposed.sum(axis=1).tolist() == [30_000] * 4
    for name in MOVES:
        rate = r.acceptance_rates[name]
        assert np.all((rate > 0.05) & (rate <= 1)) if name in DEFAULT_MOVES else \
            np.all(np.isnan(rate))
    _, orders, log_w, _ = brute_force(five)
    assert r.best_order_score == pytest.approx(log_w.max(), abs=1e-9)
    assert r.best_order_score == pytest.approx(order_log_score(five, r.best_order), abs=1e-9)
    assert r.traces.max() == r.best_order_score
    # best DAG: each node's best allowed row under the best order
    position = np.argsort(r.best_order)
    expected = np.zeros((5, 5), dtype=bool)
    total = 0.0
    for v in range(5):
        best = max(((s, pa) for (u, pa, s) in table_rows(five)
                    if u == v and all(position[p] < position[v] for p in pa)),
                   key=lambda x: x[0])
        total += best[0]
        expected[list(best[1]), v] = True
    assert np.array_equal(r.best_dag, expected)
    assert r.best_dag_score == pytest.approx(total, abs=1e-12)
    assert r.names == five.names
    assert r.streams["moves"] == tandem.Philox(2024).sub("tandem.bn.order_mcmc.moves")


def test_reproducible_and_independent_of_chain_count(five):
    root = tandem.Philox(5)
    a = order_mcmc(five, root, chains=3, iterations=500, burn_in=100, progress=False)
    b = order_mcmc(five, root, chains=3, iterations=500, burn_in=100, progress=False)
    one = order_mcmc(five, root, chains=2, iterations=500, burn_in=100, progress=False)
    for x, y in [(a.traces, b.traces), (a.chain_edge_probabilities, b.chain_edge_probabilities),
                 (a.traces[:2], one.traces),
                 (a.chain_edge_probabilities[:2], one.chain_edge_probabilities),
                 (a.chain_edge_probabilities_given_orders[:2],
                  one.chain_edge_probabilities_given_orders)]:
        assert np.array_equal(x, y)
    other = order_mcmc(five, tandem.Philox(6), chains=3, iterations=500, progress=False)
    assert not np.array_equal(a.traces, other.traces)


def test_checkpoint_resume_bit_for_bit(tmp_path):
    table = synthetic_table(7, 2, 3)
    root = tandem.Philox(99)
    kwargs = dict(chains=2, burn_in=150, thin=3, dags_per_order=2, progress=False)
    whole = order_mcmc(table, root, iterations=700, **kwargs)
    path = tmp_path / "run.npz"
    first = order_mcmc(table, root, iterations=250, checkpoint=path, **kwargs)
    assert np.array_equal(first.traces, whole.traces[:, :250])
    second = order_mcmc(table, root, iterations=500, resume=path, checkpoint=path, **kwargs)
    third = order_mcmc(table, root, iterations=700, resume=path, **kwargs)
    assert np.array_equal(second.traces, whole.traces[:, :500])
    for name in ("traces", "chain_edge_probabilities", "chain_edge_probabilities_given_orders",
                 "edge_probabilities", "best_order", "best_dag", "proposed", "accepted"):
        assert np.array_equal(getattr(third, name), getattr(whole, name)), name
    assert third.best_order_score == whole.best_order_score
    # the default burn-in is the checkpoint's, not half of the new total
    path2 = tmp_path / "default.npz"
    order_mcmc(table, root, iterations=200, chains=1, checkpoint=path2, progress=False)
    resumed = order_mcmc(table, root, iterations=400, chains=1, resume=path2, progress=False)
    assert resumed.burn_in == 100
    assert np.array_equal(
        resumed.traces, order_mcmc(table, root, iterations=400, chains=1, burn_in=100,
                                   progress=False).traces)


def test_a_tandem_root_resumes_bit_for_bit_and_names_its_position(tmp_path):
    table = synthetic_table(6, 2, 8)
    root = tandem.Tandem(99).at(4096)
    kwargs = dict(chains=2, burn_in=50, progress=False)
    whole = order_mcmc(table, root, iterations=300, **kwargs)
    path = tmp_path / "run.npz"
    order_mcmc(table, root, iterations=120, checkpoint=path, **kwargs)
    resumed = order_mcmc(table, root, iterations=300, resume=path, **kwargs)
    assert np.array_equal(resumed.traces, whole.traces)
    assert not np.array_equal(
        order_mcmc(table, tandem.Tandem(99), iterations=300, **kwargs).traces, whole.traces)
    for other in (tandem.Tandem(99), tandem.Tandem.from_key(root.key, position=4096, K=8)):
        with pytest.raises(ValueError, match="root"):
            order_mcmc(table, other, iterations=300, resume=path, **kwargs)


def test_resume_refuses_other_table_or_settings(tmp_path):
    table = synthetic_table(6, 2, 4)
    root = tandem.Philox(1)
    path = tmp_path / "c.npz"
    order_mcmc(table, root, chains=2, iterations=100, checkpoint=path, progress=False)
    other = synthetic_table(6, 2, 5)
    with pytest.raises(ValueError, match="another score table"):
        order_mcmc(other, root, chains=2, iterations=200, resume=path, progress=False)
    with pytest.raises(ValueError, match="chains"):
        order_mcmc(table, root, chains=3, iterations=200, resume=path, progress=False)
    with pytest.raises(ValueError, match="thin"):
        order_mcmc(table, root, chains=2, thin=5, iterations=200, resume=path, progress=False)
    with pytest.raises(ValueError, match="root"):
        order_mcmc(table, tandem.Philox(2), chains=2, iterations=200, resume=path,
                   progress=False)
    with pytest.raises(ValueError, match="burn_in"):
        order_mcmc(table, root, chains=2, burn_in=7, iterations=200, resume=path,
                   progress=False)
    with pytest.raises(ValueError, match="moves"):
        order_mcmc(table, root, chains=2, moves=("adjacent",), iterations=200, resume=path,
                   progress=False)
    with pytest.raises(ValueError, match="resume: .*ran 100 iterations, more than "
                                         "iterations=50"):
        order_mcmc(table, root, chains=2, iterations=50, resume=path, progress=False)


def test_argument_errors():
    table = synthetic_table(4, 2, 0)
    root = tandem.Philox(0)
    with pytest.raises(TypeError, match="root"):
        order_mcmc(table, 3, progress=False)
    with pytest.raises(ValueError, match="unknown move"):
        order_mcmc(table, root, moves=("swap",), progress=False)
    with pytest.raises(ValueError, match="weights"):
        order_mcmc(table, root, moves={"adjacent": -1.0}, progress=False)
    with pytest.raises(ValueError, match="chains"):
        order_mcmc(table, root, chains=0, progress=False)
    with pytest.raises(TypeError, match="thin"):
        order_mcmc(table, root, thin=1.5, progress=False)
    bad = dataclasses.replace(table, scores=table.scores[:, :-1])
    with pytest.raises(ValueError, match="columns"):
        order_mcmc(bad, root, progress=False)
    nan = table.scores.copy()
    nan[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        order_mcmc(dataclasses.replace(table, scores=nan), root, progress=False)


def test_move_weights():
    table = synthetic_table(6, 2, 8)
    r = order_mcmc(table, tandem.Philox(3), chains=1, iterations=2000,
                   moves={"adjacent": 3, "relocate": 1}, progress=False)
    assert r.proposed[0, 1] == 0
    assert 0.7 < r.proposed[0, 0] / 2000 < 0.8
    assert np.isnan(r.acceptance_rates["transposition"][0])


def test_many_candidates():
    # 70 nodes, 69 candidates each: positions past 63 (two 64-bit words of flags)
    n = 70
    rng = np.random.default_rng(0)
    candidates = np.array([[j for j in range(n) if j != i] for i in range(n)], dtype=np.int32)
    width = combinations.n_sets(n - 1, 1)
    scores = rng.normal(size=(n, width)) * 2
    table = SyntheticTable(scores, candidates, 1, tuple(map(str, range(n))), fingerprint="x")
    r = order_mcmc(table, tandem.Philox(1), chains=1, iterations=300, progress=False)
    # recompute the best order's score in plain Python, parents past position 63 included
    order = r.best_order
    position = np.argsort(order)
    total = 0.0
    for v in range(n):
        allowed = [scores[v, 0]] + [scores[v, 1 + q] for q in range(n - 1)
                                    if position[candidates[v, q]] < position[v]]
        total += np.logaddexp.reduce(allowed)
    assert r.best_order_score == pytest.approx(total, rel=1e-12)


def test_single_node_and_no_kept_samples():
    table = SyntheticTable(np.array([[0.5]]), np.zeros((1, 0), dtype=np.int32), 0, ("a",))
    r = order_mcmc(table, tandem.Philox(0), chains=2, iterations=10, progress=False)
    assert np.all(r.traces == 0.5) and r.edge_probabilities.shape == (1, 1)
    r = order_mcmc(synthetic_table(4, 1, 0), tandem.Philox(0), chains=1, iterations=10,
                   burn_in=10, progress=False)
    assert r.samples == 0 and np.all(np.isnan(r.edge_probabilities))


@pytest.mark.parametrize("name", ["cancer", "earthquake", "asia", "survey", "sachs"])
def test_agrees_with_exact_posteriors_on_networks(name):
    # 1000 rows forward-sampled from the network on a fixed stream, BDeu (ess 1),
    # k = 3. Everything is on fixed streams, so the test is deterministic; the
    # tolerance is what Monte Carlo error allows: 4 chains x 40 000 iterations,
    # thin 4, give between-chain standard errors of at most about 0.025 per edge
    # (sachs, the least well mixed; the others below 0.01), and the observed
    # largest differences are 0.003 (cancer) to 0.013 (sachs).
    from tandem.bn import load_network, score_table

    data = load_network(name).sample(1000, tandem.Philox(7))
    exact = exact_edge_posteriors(data, score="bdeu", ess=1.0, max_parents=3)
    table = score_table(data, score="bdeu", ess=1.0, max_parents=3, progress=False)
    np.testing.assert_array_equal(exact_edge_posteriors(table=table), exact)
    r = order_mcmc(table, tandem.Philox(11), chains=4, iterations=40_000, thin=4,
                   progress=False)
    assert np.abs(r.edge_probabilities_given_orders - exact).max() < 0.04
    assert np.abs(r.edge_probabilities - exact).max() < 0.05


def calibration_z(table, exact, runs, **settings):
    """``(p - exact) / se`` of every edge whose exact posterior lies in (0.05,
    0.95), over ``runs`` runs from the lanes of one stream."""
    inside = (exact > 0.05) & (exact < 0.95)
    z = []
    for r in range(runs):
        result = order_mcmc(table, tandem.Philox(7).sub("calibration").split(r), chains=4,
                            progress=False, **settings)
        z.append((result.edge_probabilities - exact)[inside]
                 / result.edge_standard_errors[inside])
    return np.concatenate(z)


@pytest.mark.parametrize("name", ["five", "asia"])
def test_edge_standard_errors_are_calibrated_against_exact(five, name):
    """Over repeated runs, the z-scores of the edges against the exact DP have
    mean 0 and an sd of at most 1: the errors hold.  The z of one run's edges
    are correlated, so the 264 (five) and 336 (asia) values weigh as fewer:
    the bands, |mean| < 0.3 and sd below 1.3, are about 2.5 of their sampling
    sds (false alarms near 1 %, on the fixed streams here).  The floor of
    the order scores' ESS makes the errors wider than the edges' own spread
    where the order scores mix more slowly than the edges (sd 0.54 on five,
    0.71 on asia; 0.8-1.0 on the pgmpy-sampled networks of
    tools/bn_calibration.py), so the lower band, 0.45, only says that they
    are not more than about twice too wide.  A between-chain error alone
    (4 chains) gave sds of z near 1.5-2 on such tests."""
    if name == "five":
        table = five
        z = calibration_z(table, exact_edge_posteriors(table=table), 24, iterations=4000,
                          burn_in=1000, thin=1)
    else:
        from tandem.bn import load_network, score_table

        data = load_network(name).sample(500, tandem.Philox(7))
        table = score_table(data, score="bdeu", ess=1.0, max_parents=3, progress=False)
        z = calibration_z(table, exact_edge_posteriors(table=table), 12, iterations=8000,
                          thin=2)
    assert np.all(np.isfinite(z))
    assert abs(z.mean()) < 0.3 and 0.45 < z.std() < 1.3
    assert np.mean(np.abs(z) > 3) < 0.03


def test_edge_errors_come_from_the_batches(five):
    """Kept orders 0 .. 2 BATCHES - 1 fill a batch each; then pairs merge, the
    batch size doubling each time the 2 BATCHES batches are full. The errors
    are zero where the table allows no edge, positive where the edge was
    sampled sometimes, and the ESS is p (1 - p) / se**2.  No allowed edge,
    even one never sampled, has an error below the rarer-state floor, that
    of (c + 1) / (N + 2) over N independent draws, nor an ESS above the
    number of sampled DAGs."""
    from tandem.bn import mcmc

    twice = 2 * mcmc.BATCHES
    assert [mcmc.order_moves.batch_size(i) for i in (0, twice - 1, twice, 2 * twice - 1, 2 * twice,
                                           4 * twice)] == [1, 1, 2, 2, 4, 8]
    r = order_mcmc(five, tandem.Philox(3), chains=2, iterations=150, burn_in=50, thin=1,
                   progress=False)
    assert r.samples == 100
    assert np.all(r.edge_standard_errors[~five_allowed(five)] == 0)
    assert np.all(np.isnan(r.edge_rhat[~five_allowed(five)]))
    inside = (r.edge_probabilities > 0) & (r.edge_probabilities < 1)
    assert np.all(r.edge_standard_errors[inside] > 0)
    np.testing.assert_allclose(r.edge_ess[inside], (r.edge_probabilities * (
        1 - r.edge_probabilities))[inside] / r.edge_standard_errors[inside] ** 2)
    allowed = five_allowed(five)
    n = 2 * r.samples
    rarer = np.rint(np.minimum(r.edge_probabilities, 1 - r.edge_probabilities) * n)
    q = (rarer + 1) / (n + 2)
    assert np.all(r.edge_standard_errors[allowed] >= np.sqrt(q * (1 - q) / n)[allowed])
    assert np.all(r.edge_ess[inside] <= n)


def five_allowed(table):
    n = table.candidates.shape[0]
    allowed = np.zeros((n, n), dtype=bool)
    for v in range(n):
        parents = table.candidates[v]
        allowed[parents[parents >= 0], v] = True
    return allowed


def exact_terms(weights, factor):
    """rint(w factor) of each weight, as Python ints (the order sums' terms)."""
    return [int(np.rint(w * factor)) for w in weights]


def random_weights(rng, m, k):
    """A row of weights of every set of at most ``k`` of ``m`` slots (over 60 binades),
    with the rank tables and a walk's index scratch."""
    width = combinations.n_sets(m, k)
    row = rng.random(width) * 0.5 ** rng.integers(0, 60, width)
    _, subsets = combinations.subset_table(m, k)
    return (width, row, combinations.offsets(m, k), combinations.binomial_table(m, k),
            subsets, np.empty(max(k, 1), dtype=np.int64))


def test_block_walks_sum_exactly():
    # the walks' limbs hold the exact integer sum of rint(w 2**E) over the allowed
    # subsets, and the largest allowed weight; the shares per position are those
    # of the sets holding it
    from tandem.bn import order_sums

    rng = np.random.default_rng(4)
    for m, k in [(9, 4), (12, 3), (6, 2), (5, 1), (7, 0)]:
        width, row, offsets, binom, subsets, idx = random_weights(rng, m, k)
        for _ in range(20):
            flags = (rng.random(m) < 0.6).astype(np.float64)
            members = np.flatnonzero(flags).astype(np.int64)
            inside = [r for r in range(width)
                      if all(flags[p] for p in subsets[r] if p >= 0)]
            e = int(np.floor(np.log2(row[inside].max())))
            factor = order_sums.scale(e)
            state, best = np.zeros(5, dtype=np.int64), np.zeros(1)
            shares = np.zeros((2, m), dtype=np.int64)
            node_sums.blocks(node_sums.WALK_SUM, row, offsets, binom, flags, members, members.size,
                             k, idx, factor, state, best, shares)
            terms = exact_terms(row[inside], factor)
            assert int(state[0]) * 2**order_sums.LIMB + int(state[1]) == sum(terms)
            assert state[2] == order_sums.weight_bits(row[inside].max())
            assert max(terms) >= 2**51 and max(terms) <= 2**52
            state[:] = 0
            node_sums.blocks(node_sums.WALK_SHARES, row, offsets, binom, flags, members,
                             members.size, k, idx, factor, state, best, shares)
            assert int(state[0]) * 2**order_sums.LIMB + int(state[1]) == sum(terms)
            for p in range(m):
                holding = sum(t for r, t in zip(inside, terms) if p in subsets[r])
                assert int(shares[0, p]) * 2**order_sums.LIMB + int(shares[1, p]) == holding


def test_holding_sums_are_the_incremental_rule():
    # the terms of the sets that hold slot w, the others allowed: exactly the change of
    # the full sum when w joins the allowed slots, and its largest weight
    from tandem.bn import order_sums

    rng = np.random.default_rng(6)
    for m, k in [(9, 4), (12, 3), (6, 2), (5, 1), (8, 5), (4, 0)]:
        width, row, offsets, binom, subsets, idx = random_weights(rng, m, k)
        for _ in range(20):
            flags = rng.random(m) < 0.6
            w = int(rng.integers(m))
            flags[w] = False
            members = np.flatnonzero(flags).astype(np.int64)
            holding = [r for r in range(width) if w in subsets[r]
                       and all(flags[p] or p == w for p in subsets[r] if p >= 0)]
            # the scale of a node whose largest allowed weight is at least these terms'
            top = row[holding].max() if holding else 1.0
            factor = order_sums.scale(min(int(np.floor(np.log2(top))) + int(rng.integers(0, 3)), 0))
            hi, lo, largest = node_sums.holding_sum(row, offsets, binom, members, members.size, w,
                                                k, idx, factor)
            assert int(hi) * 2**order_sums.LIMB + int(lo) == sum(exact_terms(row[holding],
                                                                            factor))
            assert largest == (order_sums.weight_bits(row[holding].max()) if holding else 0)


@pytest.mark.parametrize("n,k,strength", [(8, 3, 3.0), (7, 4, 3.0), (6, 2, 1000.0)],
                         ids=["k3", "k4", "own-scale"])
def test_incremental_rule_keeps_the_fresh_sums(n, k, strength):
    # after every move, taken or not, each node's score and exact sum equal those of a
    # fresh scoring of the order: the incremental rule changes no bit
    from tandem.bn import mcmc

    table = synthetic_table(n, k, 21, strength=strength, noise=30.0 if strength > 10 else 1.0)
    kt = mcmc._Prepared(table).kernel
    rng = np.random.default_rng(8)
    order = rng.permutation(n).astype(np.int64)
    node_scores = np.empty(n)
    sums = np.empty((n, 3), dtype=np.int64)
    pos = node_sums.order_node_sums(order, kt, node_scores, sums)
    total = node_sums.total(node_scores)
    scratch = node_sums.node_scratch(kt)
    saved = chain_state.Saved(np.empty(n, dtype=np.int64), np.empty(n),
                       np.empty((n, 3), dtype=np.int64))
    replica = chain_state.Replica(order, pos, node_scores, sums)
    cum = np.cumsum([0.3, 0.2, 0.3, 0.2])
    taken = 0
    for _ in range(300):
        kind, i, j = mcmc.order_moves.proposal(cum, *rng.random(3), n)
        u = rng.random()
        if kind == 3:
            total, took = mcmc._gibbs_position(i, u, 1.0, replica, total, kt, scratch, saved,
                                               np.empty(n))
        else:
            total, took = mcmc._move(kind, i, j, np.log(u), 1.0, replica, total, kt, scratch,
                                     saved)
        taken += took
        fresh_scores = np.empty(n)
        fresh_sums = np.empty((n, 3), dtype=np.int64)
        node_sums.order_node_sums(order, kt, fresh_scores, fresh_sums)
        np.testing.assert_array_equal(node_scores, fresh_scores)
        np.testing.assert_array_equal(sums, fresh_sums)
        assert total == node_sums.total(fresh_scores)
    assert 30 < taken < 300


def run_sample_dags(kt, pos, uniforms, m, width):
    from tandem.bn import mcmc

    n = pos.shape[0]
    edges = np.zeros((n, n))
    counts = np.zeros((n, n), dtype=np.int64)
    batch = np.zeros((n, m), dtype=np.int64)
    scratch = node_sums.node_scratch(kt)
    assert scratch[3].shape == (width,)
    mcmc._sample_dags(uniforms, 1, pos, kt, scratch, counts, edges, batch)
    np.testing.assert_array_equal(per_edge(batch, kt.candidates), counts)
    return edges, counts


def test_kernels_exact_for_every_order():
    # every order of a 5-node table: the order score, P(edge | order) and the
    # parent sets drawn for given uniforms, against plain Python
    from tandem.bn import mcmc

    table = synthetic_table(5, 3, 13)
    from tandem.bn import order_sums

    _, orders, log_w, given = brute_force(table)
    kt = mcmc._Prepared(table).kernel
    m, width = table.candidates.shape[1], table.scores.shape[1]
    for order, expected, expected_given in zip(orders, log_w, given):
        node_scores = np.empty(5)
        pos = node_sums.order_node_scores(np.array(order), kt, node_scores)
        assert node_scores.sum() == pytest.approx(expected, rel=1e-13)
        for u in (0.013, 0.5, 0.987):
            edges, counts = run_sample_dags(kt, pos, np.full(5, u), m, width)
            np.testing.assert_allclose(edges, expected_given, rtol=0, atol=1e-12)
            for v in range(5):
                # the contract's rule, in exact integers: the first allowed set (rank
                # order) whose running sum of rint(w 2**E) passes floor(u T)
                allowed = []
                for r in range(width):
                    pa = [int(kt.candidates[v, p]) for p in combinations.unrank(r, m, 3)]
                    if all(p >= 0 and pos[p] < pos[v] for p in pa):
                        allowed.append((pa, kt.weights[v, r]))
                e = int(np.floor(np.log2(max(x for _, x in allowed))))
                terms = exact_terms([x for _, x in allowed], order_sums.scale(e))
                total = float(sum(terms))
                target = math.floor(u * total)
                running = 0
                for (pa, _), t in zip(allowed, terms):
                    running += t
                    if running > target:
                        break
                assert sorted(np.flatnonzero(counts[:, v])) == sorted(pa)


def test_far_below_top_falls_back_to_own_scale():
    # parents worth 1000 nats: an order that puts a node before its good parents
    # leaves it only sets ~1000 nats below its top, where the weights underflow;
    # those nodes are summed in their own scale. Check every order's score and
    # P(edge | order) against plain Python, through the kernels themselves.
    from tandem.bn import mcmc

    table = synthetic_table(5, 2, 12, strength=1000.0, noise=30.0)
    _, orders, log_w, given = brute_force(table)
    kt = mcmc._Prepared(table).kernel
    m, width = table.candidates.shape[1], table.scores.shape[1]
    fallbacks = 0
    for order, expected, expected_given in zip(orders, log_w, given):
        node_scores = np.empty(5)
        pos = node_sums.order_node_scores(np.array(order), kt, node_scores)
        assert node_scores.sum() == pytest.approx(expected, rel=1e-13)
        edges, _ = run_sample_dags(kt, pos, np.full(5, 0.5), m, width)
        np.testing.assert_allclose(edges, expected_given, rtol=0, atol=1e-12)
        fallbacks += np.any(node_scores < kt.top - 700)
    assert fallbacks > 10
    r = order_mcmc(table, tandem.Philox(8), chains=2, iterations=2000, progress=False)
    assert np.all(np.isfinite(r.traces))


def test_the_own_scale_leaves_the_sets_above_it_at_zero():
    # in its own scale a node's row holds sets far above the best allowed one
    # (its good parents, not allowed): exp64 is defined up to 709 only, and
    # its value past that (NaN at 710) times a flag of 0 must not reach a sum

    scores = np.array([-3000.0, -2290.0, -2200.0, -52.0, -3000.5, -4000.0, -np.inf])
    out = np.full(scores.shape, np.nan)
    node_sums.scale_row(scores, -3000.0, out)
    np.testing.assert_array_equal(out, [1.0, 0.0, 0.0, 0.0, math.exp(-0.5), 0.0, 0.0])


# -- parallel tempering ---------------------------------------------------------

TEMPERED = dict(temperatures=(1.0, 0.6, 0.35), swap_every=3)


def test_tempered_chains_sample_the_posterior(five):
    # replica 0 of a tempered chain has the same stationary law as a plain
    # chain: the same bounds as the plain run above (fixed stream, so
    # deterministic; each bound is several standard deviations wide)
    r = order_mcmc(five, tandem.Philox(31), chains=4, iterations=30_000, burn_in=2_000,
                   thin=2, progress=False, **TEMPERED)
    assert order_visits_distance(five, r) < 0.05
    exact = exact_edge_posteriors(table=five)
    assert np.abs(r.edge_probabilities_given_orders - exact).max() < 0.02
    assert np.abs(r.edge_probabilities - exact).max() < 0.03
    assert r.swap_rates.shape == (4, 2)
    assert np.all((r.swap_rates > 0.2) & (r.swap_rates <= 1.0))
    assert r.proposed.sum(axis=1).tolist() == [30_000] * 4  # replica 0's only


def test_tempered_runs_resume_and_do_not_depend_on_chain_count(tmp_path, five):
    root = tandem.Philox(77)
    kwargs = dict(burn_in=50, thin=3, progress=False, **TEMPERED)
    whole = order_mcmc(five, root, chains=2, iterations=400, **kwargs)
    path = tmp_path / "tempered.npz"
    order_mcmc(five, root, chains=2, iterations=131, checkpoint=path, **kwargs)
    assert order_mcmc(five, root, chains=2, iterations=400, resume=path, **kwargs) == whole
    one = order_mcmc(five, root, chains=1, iterations=400, **kwargs)
    assert np.array_equal(one.traces, whole.traces[:1])
    assert np.array_equal(one.swap_rates, whole.swap_rates[:1])
    with np.load(path) as f:
        # 43 rounds after 131 iterations: pair 0 offered at rounds 0, 2, .., 42
        assert f["swaps_proposed"].tolist() == [[22, 21]] * 2
        assert f["orders"].shape == (2, 3, 5)
    with pytest.raises(ValueError, match="temperatures"):
        order_mcmc(five, root, chains=2, iterations=400, resume=path,
                   **{**kwargs, "temperatures": (1.0, 0.5, 0.35)})
    # one temperature is plain order MCMC, bit for bit
    plain = order_mcmc(five, root, chains=2, iterations=400, burn_in=50, thin=3,
                       progress=False)
    assert order_mcmc(five, root, chains=2, iterations=400, burn_in=50, thin=3,
                      temperatures=[1.0], swap_every=7, progress=False) == plain
    assert np.array_equal(plain.swap_rates, np.empty((2, 0)))
    assert not np.array_equal(plain.traces, whole.traces)


def test_crafted_tempered_checkpoint_is_refused(tmp_path, five):
    root = tandem.Philox(78)
    kwargs = dict(chains=2, burn_in=20, progress=False, **TEMPERED)
    path = tmp_path / "tempered.npz"
    order_mcmc(five, root, iterations=60, checkpoint=path, **kwargs)
    with np.load(path) as f:
        fields = {name: f[name] for name in f.files}
    hot = fields["orders"].copy()
    hot[:, 2, 0] = hot[:, 2, 1]
    for name, value, message in [("swaps_proposed", fields["swaps_proposed"] + 1, "must be"),
                                 ("swaps_accepted", fields["swaps_proposed"] + 1, "between"),
                                 ("orders", hot, "one permutation")]:
        np.savez(path, **{**fields, name: value})
        with pytest.raises(ValueError, match=f"field '{name}': .*{message}"):
            order_mcmc(five, root, iterations=100, resume=path, **kwargs)


@pytest.mark.parametrize("temperatures", [(0.5,), (1.0, 1.0), (1.0, 0.5, 0.7), (1.0, 0.0),
                                          (1.0, np.nan), [[1.0]], ()])
def test_bad_temperatures_are_refused(five, temperatures):
    with pytest.raises(ValueError, match="temperatures"):
        order_mcmc(five, tandem.Philox(1), iterations=10, temperatures=temperatures,
                   progress=False)


def test_geometric_temperatures():
    assert geometric_temperatures(3, 0.25).tolist() == [1.0, 0.5, 0.25]
    assert geometric_temperatures(1, 0.1).tolist() == [1.0]
    with pytest.raises(ValueError, match="hottest"):
        geometric_temperatures(4, 0.0)
    with pytest.raises(ValueError, match="swap_every"):
        order_mcmc(synthetic_table(4, 1, 0), tandem.Philox(1), iterations=10, swap_every=0,
                   temperatures=(1.0, 0.5), progress=False)


# -- the Gibbs draw of a node's position ----------------------------------------

def test_gibbs_position_draws_from_the_conditional_law(five):
    # for every node of one order, the positions drawn at u = (q + 1/2) / Q
    # against P(j) ∝ exp(S_j) over the orders with the node moved to j
    from tandem.bn import mcmc

    kt = mcmc._Prepared(five).kernel
    start = np.array([3, 0, 4, 1, 2])
    scratch = node_sums.node_scratch(kt)
    grid = 2000
    for i in range(5):
        v = start[i]
        rest = [w for w in start if w != v]
        scores = np.array([order_log_score(five, rest[:j] + [v] + rest[j:]) for j in range(5)])
        law = np.exp(scores - scores.max())
        law /= law.sum()
        drawn = np.zeros(5)
        for q in range(grid):
            order = start.copy()
            node_scores = np.empty(5)
            sums = np.empty((5, 3), dtype=np.int64)
            pos = node_sums.order_node_sums(order, kt, node_scores, sums)
            total, moved = mcmc._gibbs_position(
                i, (q + 0.5) / grid, 1.0, chain_state.Replica(order, pos, node_scores, sums),
                node_sums.total(node_scores), kt, scratch,
                chain_state.Saved(np.empty(5, dtype=np.int64), np.empty(5),
                           np.empty((5, 3), dtype=np.int64)), np.empty(5))
            j = int(np.flatnonzero(order == v)[0])
            assert moved == (j != i)
            assert [w for w in order if w != v] == rest
            assert total == node_sums.order_score(order, kt)  # a pure function of the order
            assert np.array_equal(pos, np.argsort(order))
            drawn[j] += 1
        np.testing.assert_allclose(drawn / grid, law, atol=1.0 / grid)


def test_gibbs_position_alone_samples_the_posterior(five):
    r = order_mcmc(five, tandem.Philox(41), chains=4, iterations=20_000, burn_in=1_000,
                   moves=("gibbs_position",), progress=False)
    # a Gibbs step is always taken; the bound as for the plain moves above
    assert order_visits_distance(five, r) < 0.05
    assert np.abs(r.edge_probabilities_given_orders - exact_edge_posteriors(table=five)
                  ).max() < 0.02
    assert r.proposed[:, 3].tolist() == [20_000] * 4
    assert np.all(r.acceptance_rates["gibbs_position"] > 0.3)
