"""Goodness of fit against SciPy's distributions, on fixed streams.

Every test here is deterministic: the streams are fixed, so a test either
always passes or always fails.  Each states its false-alarm rate: the
probability that it would fail for a correct sampler on a random stream.
All use the threshold ``ALPHA`` on a p-value.
"""

from dataclasses import dataclass

import numpy as np
import pytest
from scipy import special, stats

import tandem
from tandem.core import ziggurat_exponential32, ziggurat_exponential64, ziggurat_normal32
from tandem.core import ziggurat_tables as zt

ALPHA = 1e-6  # false-alarm rate of each test below
N_KS = 2**20  # draws per KS test (issue: at least 10**6)
ROOT = tandem.Philox(20261129).sub("tests.statistics")


@pytest.mark.parametrize("dtype,method", [(np.float64, None), (np.float32, None),
                                          (np.float32, "zig")])
def test_normal_ks(dtype, method):
    x, _ = ROOT.sub("normal").normal(N_KS, dtype=dtype, method=method)
    assert x.dtype == dtype
    assert stats.kstest(x.astype(np.float64), stats.norm.cdf).pvalue > ALPHA


@pytest.mark.parametrize("method", ["inv", "zig"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exponential_ks(dtype, method):
    x, _ = ROOT.sub("exponential").exponential(N_KS, dtype=dtype, method=method)
    assert x.dtype == dtype and x.min() >= 0
    assert stats.kstest(x.astype(np.float64), stats.expon.cdf).pvalue > ALPHA


def test_normal_loc_scale_is_fma_of_standard():
    s = ROOT.sub("loc-scale")
    z, _ = s.normal(1000)
    x, _ = s.normal(1000, loc=3.0, scale=0.5)
    np.testing.assert_array_equal(x, z * 0.5 + 3.0)  # exact: scale is a power of two
    e, _ = s.exponential(1000)
    np.testing.assert_array_equal(s.exponential(1000, scale=4.0)[0], e * 4.0)


# -- the ziggurats' slow paths, checked apart ---------------------------------

@dataclass(frozen=True)
class Ziggurat:
    """How a ziggurat reads its draw, and its density for the conditional tests."""

    method: str
    dtype: type
    tables: object
    width: int  # words per draw
    mantissa_shift: int
    density: object  # f(x) of the unnormalised density
    integral: object  # integral of f over [a, b]
    cdf: object  # CDF of |X| (the half-normal's, the exponential's)
    tail_cdf: object  # CDF of |X| given |X| > R

    def draws(self, n):
        """The main stream's draws and their layer, mantissa and fast-path verdict."""
        stream = ROOT.sub(f"ziggurat {self.method} {np.dtype(self.dtype).name}")
        dtype = np.uint64 if self.width == 2 else np.uint32
        d = stream.bits(n, dtype=dtype)[0].astype(np.uint64)
        layer = (d % np.uint64(self.tables.LAYERS)).astype(np.intp)
        miss = (d >> np.uint64(self.mantissa_shift)) >= self.tables.K[layer]
        return stream, layer, miss

    def values(self, stream, index):
        return np.abs(getattr(tandem, f"{self.method}_at")(stream, index, dtype=self.dtype,
                                                           method="zig"))


def _normal_integral(a, b):
    return np.sqrt(np.pi / 2) * (special.erf(b / np.sqrt(2)) - special.erf(a / np.sqrt(2)))


def _normal(dtype, tables, width, shift):
    r = float(tables.R)
    return Ziggurat("normal", dtype, tables, width, shift, lambda x: np.exp(-x * x / 2),
                    _normal_integral, lambda t: 2 * stats.norm.cdf(t) - 1,
                    lambda t: 1.0 - stats.norm.sf(t) / stats.norm.sf(r))


def _exponential(dtype, tables, width, shift):
    r = float(tables.R)
    return Ziggurat("exponential", dtype, tables, width, shift, lambda x: np.exp(-x),
                    lambda a, b: np.exp(-a) - np.exp(-b), stats.expon.cdf,
                    lambda t: stats.expon.cdf(t - r))


ZIGGURATS = {
    "normal64": _normal(np.float64, zt, 2, 11),
    "normal32": _normal(np.float32, ziggurat_normal32, 1, 9),
    "exponential64": _exponential(np.float64, ziggurat_exponential64, 2, 11),
    "exponential32": _exponential(np.float32, ziggurat_exponential32, 1, 8),
}
#: The exact miss rates of docs/spec.md.
MISS_RATES = {"normal64": 0.00427657, "normal32": 0.01491899, "exponential64": 0.02222034,
              "exponential32": 0.02222031}


@pytest.mark.parametrize("name", ZIGGURATS)
def test_fast_path_miss_rate(name):
    z = ZIGGURATS[name]
    n = 2**22
    _, _, miss = z.draws(n)
    assert abs(z.tables.MISS_RATE - MISS_RATES[name]) < 1e-8
    # two-sided binomial test of the tables' exact miss rate
    assert stats.binomtest(int(miss.sum()), n, z.tables.MISS_RATE).pvalue > ALPHA


@pytest.mark.parametrize("name", ZIGGURATS)
def test_tail_beyond_r_conditional_ks(name):
    z = ZIGGURATS[name]
    stream, layer, miss = z.draws(2**23)
    index = np.flatnonzero(miss & (layer == 0))
    assert index.size > 400
    x = z.values(stream, index).astype(np.float64)
    assert x.min() >= np.float32(z.tables.R) * (1 - 2**-23)
    assert stats.kstest(x, z.tail_cdf).pvalue > ALPHA


def _wedge_miss_cdf(z, t):
    """CDF of |value| for draws that missed in a layer i >= 1.

    Layer i's miss is x uniform on [x_{i+1}, x_i); the wedge keeps x with
    probability (f(x) - f_i) / (f_{i+1} - f_i), else a whole new ziggurat
    draw gives a value of the whole distribution.
    """
    x, f = z.tables.X.astype(np.float64), z.tables.F.astype(np.float64)
    i = np.arange(1, z.tables.LAYERS)
    lo, hi, f_lo, f_hi = x[i + 1], x[i], f[i], f[i + 1]
    weight = (hi - lo) / hi  # miss probability of layer i, times LAYERS
    weight = weight / weight.sum()

    def kept(a, b):
        """∫_a^b (f(x) - f_i) dx / ((f_{i+1} - f_i) (x_i - x_{i+1})) per layer."""
        return (z.integral(a, b) - f_lo * (b - a)) / ((f_hi - f_lo) * (hi - lo))

    rejected = (weight * (1.0 - kept(lo, hi))).sum()
    t = np.atleast_1d(t)
    upper = np.minimum(t[:, None], hi[None, :])
    part = kept(lo[None, :], np.maximum(upper, lo[None, :]))
    return (part * weight).sum(axis=1) + rejected * z.cdf(t)


@pytest.mark.parametrize("name", ZIGGURATS)
def test_wedge_misses_conditional_ks(name):
    z = ZIGGURATS[name]
    stream, layer, miss = z.draws(2**23 if name == "normal64" else 2**21)
    index = np.flatnonzero(miss & (layer > 0))
    assert index.size > 15000
    x = z.values(stream, index).astype(np.float64)
    assert stats.kstest(x, lambda t: _wedge_miss_cdf(z, t)).pvalue > ALPHA
    assert abs(_wedge_miss_cdf(z, np.array([60.0]))[0] - 1.0) < 1e-12


# -- choice and sampling -------------------------------------------------------

def _pooled_chisquare(counts, expected, minimum=5.0):
    """Chi-square p-value after pooling categories (in order of expectation)
    until each pooled cell expects at least ``minimum``."""
    order = np.argsort(expected, kind="stable")
    e, c = expected[order], counts[order]
    cells = np.cumsum(e) // minimum
    cells = np.minimum(cells, cells[-1] - 1).astype(np.intp)  # last cell full too
    e_pool = np.bincount(cells, weights=e)
    c_pool = np.bincount(cells, weights=c)
    keep = e_pool > 0
    return stats.chisquare(c_pool[keep], e_pool[keep] * c_pool.sum() / e_pool[keep].sum()).pvalue


def _spread_weights(n):
    """Weights spanning 1e-12 to 1, log-uniformly, in a shuffled order."""
    w = np.logspace(-12, 0, n)
    return w[np.random.default_rng(7).permutation(n)]


def test_choice_chisquare_wide_weights():
    n, draws = 10**5, 2**23
    w = _spread_weights(n)
    table = tandem.AliasTable(w)
    idx, _ = ROOT.sub("choice").choice(table, draws)
    assert idx.dtype == np.uint32
    counts = np.bincount(idx, minlength=n)
    assert _pooled_chisquare(counts, draws * w / w.sum()) > ALPHA


def test_sampling_offspring_counts():
    n, draws = 1000, 2**20
    w = _spread_weights(n) + 1e-3
    children, _ = ROOT.sub("offspring").sample(n, weights=w, size=draws)
    counts = np.bincount(children, minlength=n)
    assert _pooled_chisquare(counts, draws * w / w.sum()) > ALPHA


def test_sampling_without_replacement_inclusion():
    # Uniform weights: every member is in a sample of k from n with probability k/n.
    n, k, trials = 50, 10, 4000
    s = ROOT.sub("without")
    counts = np.zeros(n)
    for _ in range(trials):
        picked, s = s.sample(n, size=k, replace=False)
        assert len(set(picked.tolist())) == k
        counts[picked] += 1
    assert stats.chisquare(counts, np.full(n, trials * k / n)).pvalue > ALPHA


def test_permutation_positions_uniform():
    n, trials = 8, 20000
    s = ROOT.sub("permutation")
    where = np.zeros((n, n))
    for _ in range(trials):
        p, s = s.permutation(n)
        where[p, np.arange(n)] += 1
    assert sorted(p.tolist()) == list(range(n))
    expected = np.full(n * n, trials / n)
    # the rows are dependent (each permutation fills every row once), so this
    # chi-square is conservative
    assert stats.chisquare(where.ravel(), expected).pvalue > ALPHA
