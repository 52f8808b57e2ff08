"""tandem.bn local scores against pgmpy (BDeu, K2, BIC) and against the BGe marginal likelihood."""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_t

import tandem
from tandem import core
from tandem.bn import SCORES, Dataset, load_network, local_score, terms

RTOL = 1e-10


@pytest.fixture(scope="module", params=[("asia", 400), ("sachs", 300), ("child", 500)],
                ids=lambda p: p[0])
def sampled(request):
    name, n = request.param
    data = load_network(name).sample(n, tandem.Philox(11).sub(name))
    frame = data.to_dataframe()
    state_names = {v: list(s) for v, s in zip(data.names, data.states)}
    return data, frame, state_names


def families(data, count, seed):
    """``count`` (node, parents) pairs: every size from 0 to 3, parents in random order."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(count):
        i = int(rng.integers(data.n_vars))
        others = [j for j in range(data.n_vars) if j != i]
        size = t % 4
        out.append((i, tuple(int(p) for p in rng.choice(others, size, replace=False))))
    return out


def pgmpy_score(cls, frame, state_names, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(frame, state_names=state_names, **kw)


@pytest.mark.parametrize("ess", [1.0, 10.0])
def test_bdeu_equals_pgmpy(sampled, ess):
    from pgmpy.structure_score import BDeu

    data, frame, state_names = sampled
    ref = pgmpy_score(BDeu, frame, state_names, equivalent_sample_size=ess)
    for i, parents in families(data, 40, int(ess)):
        ours = local_score(data, data.names[i], [data.names[p] for p in parents], "bdeu", ess=ess)
        theirs = ref.local_score(data.names[i], tuple(data.names[p] for p in parents))
        assert ours == pytest.approx(theirs, rel=RTOL, abs=0), (i, parents)


def test_bic_equals_pgmpy(sampled):
    from pgmpy.structure_score import BIC

    data, frame, state_names = sampled
    ref = pgmpy_score(BIC, frame, state_names)
    for i, parents in families(data, 40, 2):
        ours = local_score(data, i, parents, "bic")
        theirs = ref.local_score(data.names[i], tuple(data.names[p] for p in parents))
        assert ours == pytest.approx(theirs, rel=RTOL, abs=0), (i, parents)


def test_k2_equals_pgmpy_up_to_unobserved_configurations(sampled):
    # pgmpy adds lgamma(r) for every parent configuration, observed or not,
    # but subtracts lgamma(N_j + r) only for the observed ones; Cooper and
    # Herskovits' K2 gives an unobserved configuration the factor
    # Gamma(r) / Gamma(0 + r) = 1. So pgmpy = ours + (q - q_observed) lgamma(r).
    from pgmpy.structure_score import K2

    data, frame, state_names = sampled
    ref = pgmpy_score(K2, frame, state_names)
    exact = 0
    for i, parents in families(data, 40, 3):
        ours = local_score(data, i, parents, "k2")
        theirs = ref.local_score(data.names[i], tuple(data.names[p] for p in parents))
        r = data.arities[i]
        q = math.prod(data.arities[p] for p in parents)
        q_observed = len({tuple(row) for row in data.values[:, list(parents)]})
        offset = (q - q_observed) * math.lgamma(r)
        assert ours + offset == pytest.approx(theirs, rel=RTOL, abs=0), (i, parents)
        if offset == 0:
            exact += 1
            assert ours == pytest.approx(theirs, rel=RTOL, abs=0)
    assert exact >= 10


def test_discrete_scores_by_hand():
    # Two binary columns: x = (0, 0, 1, 1), y = (0, 1, 1, 1).
    d = Dataset.from_codes([[0, 0], [0, 1], [1, 1], [1, 1]], [2, 2], names=["x", "y"])
    lg = math.lgamma
    # BDeu(y | x), ess 2: q = 2, a_j = 1, a_jk = 1/2
    bdeu = (lg(1) - lg(3) + 2 * (lg(1.5) - lg(0.5))) + (lg(1) - lg(3) + lg(2.5) - lg(0.5))
    assert local_score(d, "y", ["x"], "bdeu", ess=2) == pytest.approx(bdeu, rel=1e-14)
    k2 = (lg(2) - lg(4) + lg(2) + lg(2)) + (lg(2) - lg(4) + lg(3))
    assert local_score(d, "y", ["x"], "k2") == pytest.approx(k2, rel=1e-14)
    bic = 2 * math.log(0.5) - 0.5 * math.log(4) * 2
    assert local_score(d, "y", ["x"], "bic") == pytest.approx(bic, rel=1e-14)


def plain_python_score(data, child, parents, score, ess=1.0):
    """The local score straight from :mod:`tandem.bn.terms`, uncompiled: the counts by
    NumPy, every lgamma and log computed (no memo tables)."""
    codes = data.columns()
    arities = data.arities
    r = arities[child]
    config = np.zeros(data.n_rows, dtype=np.int64)
    radix = 1
    for p in parents:  # the first parent the least significant digit
        config += codes[p].astype(np.int64) * radix
        radix *= arities[p]
    q = radix
    counts = np.zeros(q * r, dtype=np.int64)
    np.add.at(counts, config * r + codes[child], 1)
    score_id = {"bdeu": terms.BDEU, "k2": terms.K2, "bic": terms.BIC}[score]
    a_j, a_jk = terms.dirichlet(score_id, ess, q, r)
    no_ratios, no_logs = np.zeros((0, 0)), np.zeros(0)
    total = 0.0
    for j in range(q):
        n_j = int(counts[j * r:(j + 1) * r].sum())
        if n_j > 0:
            total += terms.config_term(score_id, counts, j * r, r, n_j, a_j, a_jk, -1, -1,
                                       no_ratios, no_logs)
    if score_id == terms.BIC:
        total -= terms.bic_penalty(core.log64(np.float64(data.n_rows)), q, r)
    return total


@pytest.mark.parametrize("score", ["bdeu", "k2", "bic"])
def test_compiled_scores_are_the_plain_python_definition(sampled, score):
    """The compiled kernels (memo tables of lgamma ratios and logs included) give the
    bits of bn.terms run as plain Python: the definition that the GPU shares."""
    data = sampled[0]
    for child, parents in families(data, 12, 5):
        parents = tuple(sorted(parents))
        expected = plain_python_score(data, child, parents, score)
        assert local_score(data, child, parents, score) == expected, (child, parents)


def test_parent_order_does_not_matter(sampled):
    data = sampled[0]
    for score in ("bdeu", "k2", "bic"):
        a = local_score(data, 0, (3, 1, 2), score)
        assert a == local_score(data, 0, (1, 2, 3), score) == local_score(data, 0, (2, 3, 1), score)


# -- BGe ------------------------------------------------------------------------------------


def gaussian_data(n=40):
    x = np.random.default_rng(8).normal(size=(n, 5))
    x[:, 1] += 0.8 * x[:, 0]
    x[:, 2] += x[:, 1] - x[:, 3]
    x[:, 4] += 0.5 * x[:, 2] + 1.0
    return x


def log_marginal(x, subset, alpha_mu, alpha_w):
    """log p(x[:, subset]) under the normal-Wishart prior, row by row.

    The prior of the subset's marginal has mean 0, precision alpha_mu, alpha_w - n + l
    degrees of freedom and T = t I (Kuipers et al. 2014); each row's predictive density
    is a multivariate t, after which the posterior is updated. An independent route to
    the BGe score: BGe(i | P) = log p(x_{P + i}) - log p(x_P).
    """
    n_vars, size = x.shape[1], len(subset)
    if size == 0:
        return 0.0
    t = alpha_mu * (alpha_w - n_vars - 1) / (alpha_mu + 1)
    big_t, nu, dof, a = t * np.eye(size), np.zeros(size), alpha_w - n_vars + size, alpha_mu
    total = 0.0
    for row in x[:, subset]:
        df = dof - size + 1
        total += multivariate_t.logpdf(row, loc=nu, shape=big_t * (a + 1) / (a * df), df=df)
        big_t = big_t + a / (a + 1) * np.outer(row - nu, row - nu)
        nu = (a * nu + row) / (a + 1)
        a, dof = a + 1, dof + 1
    return total


@pytest.mark.parametrize("settings", [{}, {"alpha_mu": 2.5, "alpha_w": 9.0}])
def test_bge_is_the_marginal_likelihood_ratio(settings):
    x = gaussian_data()
    d = Dataset.gaussian(x)
    alpha_mu = settings.get("alpha_mu", 1.0)
    alpha_w = settings.get("alpha_w", 5 + alpha_mu + 1)
    for i, parents in [(0, ()), (1, (0,)), (2, (1, 3)), (4, (3, 0, 2)), (3, (0, 1, 2))]:
        family = sorted(parents + (i,))
        ref = (log_marginal(x, family, alpha_mu, alpha_w)
               - log_marginal(x, sorted(parents), alpha_mu, alpha_w))
        assert local_score(d, i, parents, "bge", **settings) == pytest.approx(ref, rel=1e-10)


def test_bge_is_score_equivalent():
    d = Dataset.gaussian(gaussian_data())

    def s(i, parents):
        return local_score(d, i, parents, "bge")

    for a, b, c in [(0, 1, 2), (2, 4, 3)]:
        # a -> b -> c, c -> b -> a and b -> a, b -> c: one equivalence class
        chain = s(a, ()) + s(b, (a,)) + s(c, (b,))
        assert s(c, ()) + s(b, (c,)) + s(a, (b,)) == pytest.approx(chain, rel=1e-12)
        assert s(b, ()) + s(a, (b,)) + s(c, (b,)) == pytest.approx(chain, rel=1e-12)


# -- errors ---------------------------------------------------------------------------------


def test_score_errors():
    discrete = Dataset.from_codes([[0, 1, 0], [1, 0, 1]], [2, 2, 2], names=["a", "b", "c"])
    gauss = Dataset.gaussian(gaussian_data())
    assert SCORES == ("bdeu", "k2", "bic", "bge")
    cases = [
        (discrete, "a", (), {"score": "bge"}, ValueError, "'bge' is for Gaussian data"),
        (gauss, 0, (), {"score": "bdeu"}, ValueError, "'bdeu' is for discrete data"),
        (discrete, "a", (), {"score": "aic"}, ValueError, "score must be one of"),
        (discrete, "a", (), {"score": "bdeu", "alpha": 1}, TypeError, "unknown setting 'alpha'"),
        (discrete, "a", (), {"score": "k2", "ess": 1}, TypeError, "unknown setting 'ess'"),
        (discrete, "a", (), {"score": "bdeu", "ess": -1}, ValueError, "ess must be positive"),
        (discrete, "a", (), {"score": "bdeu", "ess": "1"}, TypeError, "ess must be a real"),
        (gauss, 0, (), {"score": "bge", "alpha_w": 3.0}, ValueError, "alpha_w must exceed"),
        (discrete, "a", ("a",), {}, ValueError, "'a' cannot be its own parent"),
        (discrete, "a", ("b", "b"), {}, ValueError, "repeated"),
        (discrete, "z", (), {}, ValueError, "node: no column named 'z'"),
        (discrete, "a", ("q",), {}, ValueError, "parents: no column named 'q'"),
        (discrete, 5, (), {}, ValueError, r"outside range\(3\)"),
        (discrete, "a", "b", {}, TypeError, "parents must be an iterable"),
    ]
    for data, node, parents, kw, error, match in cases:
        with pytest.raises(error, match=match):
            local_score(data, node, parents, **kw)
    with pytest.raises(TypeError, match="data must be a tandem.bn.Dataset"):
        local_score(np.zeros((3, 3)), 0)
