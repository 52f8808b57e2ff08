"""tandem.multivariate: the multivariate normal on tandem's normals.

The statistical checks use fixed streams; each bound is 5 standard errors,
a false-alarm rate of about 6e-7 a check.
"""

import numpy as np
import pytest

import tandem
from tandem import multivariate
from tandem.core.fmath import fma

ROOT = tandem.Philox(20261201).sub("tests.multivariate")
MEAN = np.array([0.5, -1.0, 2.0])
COV = np.array([[2.0, 0.6, 0.1], [0.6, 1.0, 0.2], [0.1, 0.2, 0.5]])


def test_cholesky_is_fixed_order_fma_and_rows_are_the_normal_fill():
    x, after = multivariate.multivariate_normal(ROOT, MEAN, COV, (2, 5), method="cholesky")
    z, z_after = ROOT.normal((2, 5, 3))
    assert x.shape == (2, 5, 3) and after == z_after
    lower = np.linalg.cholesky(COV)
    factor = multivariate._factor(COV, "cholesky", "warn", 1e-8)
    np.testing.assert_allclose(factor, lower.T, rtol=1e-15, atol=1e-15)
    # The product, as plain Python in the same order.
    expected = np.empty_like(x)
    for i in np.ndindex(2, 5):
        for r in range(3):
            acc = MEAN[r]
            for c in range(3):
                acc = fma(z[i][c], factor[c, r], acc)
            expected[i][r] = acc
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_mean_and_covariance(method):
    n = 40000
    x, _ = multivariate.multivariate_normal(ROOT.sub(method), MEAN, COV, n, method=method)
    se_mean = np.sqrt(np.diag(COV) / n)
    assert (abs(x.mean(axis=0) - MEAN) < 5 * se_mean).all()
    se_cov = np.sqrt((np.outer(np.diag(COV), np.diag(COV)) + COV**2) / n)
    assert (abs(np.cov(x.T) - COV) < 5 * se_cov).all()
    g = tandem.Generator(ROOT.sub(method))
    np.testing.assert_array_equal(g.multivariate_normal(MEAN, COV, n, method=method), x)


def test_bad_input():
    g = tandem.Generator(ROOT)
    with pytest.raises(ValueError, match="cov must be a 3 x 3"):
        g.multivariate_normal(MEAN, COV[:2, :2])
    with pytest.raises(ValueError, match="1-dimensional"):
        g.multivariate_normal([[0.0]], [[1.0]])
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], method="cholesky")
    with pytest.raises(ValueError, match="positive-semidefinite"):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], check_valid="raise")
    with pytest.raises(ValueError, match="method"):
        g.multivariate_normal(MEAN, COV, method="qr")
    with pytest.raises(ValueError, match="finite"):
        g.multivariate_normal([np.nan, 0.0], np.eye(2))
    assert g.stream == ROOT  # the refused calls drew nothing
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])


@pytest.mark.parametrize("alpha", [[1.0, 2.0, 3.0], [0.01, 0.02, 0.05]])
def test_dirichlet(alpha):
    """Gammas normalised, or (every alpha below 0.1) a stick broken by betas:
    rows sum to 1, a cut equals the whole, the means fit."""
    alpha = np.array(alpha)
    stream = ROOT.sub("dirichlet").sub(str(alpha[0]))
    whole, after = multivariate.dirichlet(stream, alpha, 10)
    head, middle = multivariate.dirichlet(stream, alpha, 4)
    np.testing.assert_array_equal(whole, np.concatenate([head, multivariate.dirichlet(
        middle, alpha, 6)[0]]))
    words = 4 * 3 if alpha.max() >= 0.1 else 8 * 2
    assert after.position == words * 10
    n = 20000
    x, _ = multivariate.dirichlet(ROOT.sub("dirichlet-fit"), alpha, n)
    assert np.isfinite(x).all() and (x >= 0).all()
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-14)
    a0 = alpha.sum()
    var = alpha * (a0 - alpha) / (a0**2 * (a0 + 1))
    assert (abs(x.mean(axis=0) - alpha / a0) < 5 * np.sqrt(var / n)).all()


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    stream = ROOT.sub("multinomial")
    whole, after = multivariate.multinomial(stream, 100, p, 10)
    head, middle = multivariate.multinomial(stream, 100, p, 4)
    np.testing.assert_array_equal(whole, np.concatenate([head, multivariate.multinomial(
        middle, 100, p, 6)[0]]))
    assert after.position == 4 * 2 * 10 and whole.dtype == np.int64
    n = 20000
    x, _ = multivariate.multinomial(ROOT.sub("multinomial-fit"), 100, p, n)
    assert (x.sum(axis=1) == 100).all()
    assert (abs(x.mean(axis=0) - 100 * p) < 5 * np.sqrt(100 * p * (1 - p) / n)).all()
    g = tandem.Generator(ROOT)
    with pytest.raises(ValueError, match="pvals"):
        g.multinomial(10, [0.7, 0.7, -0.4])
    with pytest.raises(ValueError, match="alpha"):
        g.dirichlet([1.0, -1.0])
    assert g.stream == ROOT


@pytest.mark.parametrize("n,pvals,rows", [
    (100, [0.2, 0.3, 0.5], 3000), (10**6, [0.1, 0.0, 0.6, 0.3], 300), (7, [0.5, 0.5, 0.0], 300),
    (0, [1.0, 0.0], 30), (50, [0.0, 1.0, 0.0], 30), (9, [1.0], 30)])
def test_multinomial_counts_are_the_rules_binomial_elements(n, pvals, rows):
    """Count ``j`` of row ``i`` (one kernel a row) is the binomial law's element
    at block ``(k - 1) i + j``, computed alone, with the trials left and
    ``min(1, pvals[j] / rest)``; the last count is the trials left."""
    stream = ROOT.sub("multinomial-rule").sub(str(n))
    x, _ = multivariate.multinomial(stream, n, pvals, rows)
    k = len(pvals)
    left, rest = np.full(rows, n), 1.0
    for j in range(k - 1):
        p = min(1.0, pvals[j] / rest) if rest > 0 else 1.0
        blocks = np.arange(rows, dtype=np.uint64) * np.uint64(k - 1) + np.uint64(j)
        expected = tandem.parametric.at(stream, "binomial", blocks, left.astype(np.float64),
                                        np.full(rows, p))
        np.testing.assert_array_equal(x[:, j], expected)
        left, rest = left - expected, rest - pvals[j]
    np.testing.assert_array_equal(x[:, k - 1], left)


@pytest.mark.parametrize("alpha", [[1e-308, 3e-308], [1e-320, 3e-320], [1e-300, 3e-300, 0.0]])
def test_dirichlet_of_tiny_alphas_gives_vertices_of_the_simplex(alpha):
    """Issue 39: ``[1e-320] * 2`` gave all NaN (Jöhnk's logarithms both overflowed
    to -inf).  For alphas this small each row is a vertex, component ``j`` with
    probability ``alpha[j] / sum(alpha)`` (so 1/4 for the first): 4,000 rows put it
    within 5 standard deviations but for a chance of 6e-7."""
    n = 4000
    x, _ = multivariate.dirichlet(ROOT.sub("dirichlet-tiny").sub(str(alpha[0])), alpha, n)
    assert np.isfinite(x).all() and ((x == 0.0) | (x == 1.0)).all()
    np.testing.assert_array_equal(x.sum(axis=1), 1.0)
    assert abs(x[:, 0].mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / n)
    assert not x[:, 2:].any()  # a zero alpha gives zeros


def test_dirichlet_divides_by_the_sum_in_order():
    """Gammas normalised by ((g0 + g1) + g2) + ..., the spec's order, for
    more components than NumPy's pairwise sum keeps in order."""
    alpha = np.linspace(0.5, 3.0, 11)
    stream = ROOT.sub("dirichlet-order")
    x, _ = multivariate.dirichlet(stream, alpha, 50)
    g = tandem.parametric.at(stream, "standard_gamma",
                             np.arange(50 * 11, dtype=np.uint64).reshape(50, 11), alpha)
    for i in range(50):
        total = 0.0
        for value in g[i]:
            total += value
        assert np.array_equal(x[i], g[i] / total)


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
@pytest.mark.parametrize("law,args", [
    ("multivariate_normal", (MEAN, COV, (3, 4))), ("dirichlet", ([1.0, 2.0, 3.0], 5)),
    ("dirichlet", ([0.5, 0.0, 1e-3, 4.0], 6)), ("dirichlet", ([0.01, 0.02, 0.05], 5)),
    ("dirichlet", ([1e-320, 3e-320], 12)), ("multinomial", (100, [0.2, 0.3, 0.5], 5))])
def test_cuda_kernels_equal_the_cpu(law, args):
    """The CUDA backend's kernels (the rows' fixed-order product and sum) and
    parts, in Numba's CUDA simulator (tests/conftest.py): the CPU's bits."""
    stream = ROOT.sub("cuda").sub(law)
    on_cuda, after = getattr(multivariate, law)(stream, *args, threads=32, backend="cuda")
    on_cpu, cpu_after = getattr(multivariate, law)(stream, *args)
    assert after == cpu_after and on_cuda.dtype == on_cpu.dtype
    np.testing.assert_array_equal(on_cuda, on_cpu)
