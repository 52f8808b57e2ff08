"""The laws of tandem.parametric: the contract's properties, broadcasting, and
goodness of fit against SciPy.

The statistical tests are deterministic (fixed streams); each states its
false-alarm rate, the chance that it fails for a correct sampler on a
random stream: ``ALPHA`` for every p-value, and about ``2 * norm.sf(5)`` =
6e-7 for every 5-sigma moment check.
"""

from unittest import mock

import numpy as np
import pytest
from scipy import stats

import tandem
from tandem import Generator, engine, laws, parametric
from tandem.backends import cpu
from tandem.kinds import KINDS

ALPHA = 1e-6
N = 1 << 16
ROOT = tandem.Philox(20261201).sub("tests.parametric")

# name -> (parameters, the SciPy distribution with those parameters)
LAWS = {
    "uniform": ((-2.0, 3.0), stats.uniform(-2.0, 5.0)),
    "laplace": ((1.0, 2.0), stats.laplace(1.0, 2.0)),
    "logistic": ((-1.0, 0.5), stats.logistic(-1.0, 0.5)),
    "gumbel": ((0.5, 2.0), stats.gumbel_r(0.5, 2.0)),
    "standard_cauchy": ((), stats.cauchy()),
    "rayleigh": ((3.0,), stats.rayleigh(scale=3.0)),
    "weibull": ((1.7,), stats.weibull_min(1.7)),
    "power": ((2.5,), stats.powerlaw(2.5)),
    "triangular": ((-1.0, 0.5, 3.0), stats.triang(0.375, -1.0, 4.0)),
    "lognormal": ((0.3, 0.8), stats.lognorm(0.8, scale=np.exp(0.3))),
    "standard_gamma": ((2.5,), stats.gamma(2.5)),
    "gamma": ((0.4, 3.0), stats.gamma(0.4, scale=3.0)),
    "chisquare": ((3.0,), stats.chi2(3.0)),
    "poisson": ((35.0,), stats.poisson(35.0)),
    "pareto": ((5.5,), stats.lomax(5.5)),
    "geometric": ((0.2,), stats.geom(0.2)),
    "normal": ((1.0, 2.0), stats.norm(1.0, 2.0)),
    "binomial": ((100, 0.3), stats.binom(100, 0.3)),
    "vonmises": ((0.0, 4.0), stats.vonmises(4.0)),
}
# Laws of two parts (tandem.parametric._composed): 8 words an element.
COMPOSED = {
    "standard_t": ((5.0,), stats.t(5.0)),
    "f": ((3.0, 7.0), stats.f(3.0, 7.0)),
    "negative_binomial": ((4.0, 0.3), stats.nbinom(4.0, 0.3)),
    "wald": ((1.5, 2.0), stats.invgauss(1.5 / 2.0, scale=2.0)),
    "beta": ((0.5, 0.7), stats.beta(0.5, 0.7)),
}


def width(name):
    """Words per element of the law ``name``."""
    return KINDS[laws.LAWS[name].kind].width


def law_fill(stream, name, n, params=None, **kw):
    params = LAWS[name][0] if params is None else params
    return parametric.fill(stream, name, *params, size=n, **kw)[0]


def chisquare_pvalue(counts, law):
    """Pearson's chi-square of integer ``counts`` against the discrete ``law``,
    over the values whose expected count is at least 5 and the two tails."""
    n = counts.size
    values = np.arange(int(law.ppf(1e-12)), int(law.isf(1e-12)) + 1)
    keep = values[law.pmf(values) * n >= 5]
    observed = [np.sum(counts < keep[0])] + [np.sum(counts == k) for k in keep] + [
        np.sum(counts > keep[-1])]
    expected = [law.cdf(keep[0] - 1) * n] + list(law.pmf(keep) * n) + [law.sf(keep[-1]) * n]
    observed, expected = np.array(observed, float), np.array(expected)
    used = expected > 0
    return stats.chisquare(observed[used], expected[used] * observed[used].sum()
                           / expected[used].sum()).pvalue


def test_every_law_is_a_generator_method_and_has_a_test():
    assert set(LAWS) == set(laws.LAWS)
    for name in LAWS:
        assert callable(getattr(Generator, name))  # normal's is NumPy's own signature


@pytest.mark.parametrize("name", sorted(LAWS))
def test_cut_anywhere_equals_whole_and_the_reference(name):
    stream = ROOT.sub(name).at(3)
    whole = law_fill(stream, name, 1100)  # the vectorised kernels
    assert np.array_equal(whole, law_fill(stream, name, 1100, backend="reference"))
    head, after = parametric.fill(stream, name, *LAWS[name][0], size=37)
    tail = law_fill(after, name, 1100 - 37)  # the lean kernels
    assert np.array_equal(whole, np.concatenate([head, tail]))
    assert after.position == 4 + width(name) * 37


@pytest.mark.parametrize("name", sorted(set(LAWS) - {"standard_cauchy"}))
def test_array_parameters_equal_scalar_ones(name):
    params = LAWS[name][0]
    stream = ROOT.sub("arrays").sub(name)
    scalar = law_fill(stream, name, (4, 3))
    # The vectorised kernels of two laws (each kernel costs a compile).
    for which in ("lean", "vectorised") if name in ("laplace", "lognormal") else ("lean",):
        # Each parameter broadcast along another axis.
        shaped = [np.full((4, 1) if i % 2 else (3,), p) for i, p in enumerate(params)]
        with mock.patch.object(cpu, "LEAN_BELOW", 2**63 if which == "lean" else 0):
            each, after = parametric.fill(stream, name, *shaped, size=(4, 3))
        assert np.array_equal(each, scalar)
        assert after.position == width(name) * 12
    # Without size the parameters give the shape; element i uses its own.
    varied = [np.array([p, p + (1 if isinstance(p, int) else 0.5)]) if p else p for p in params]
    if name == "triangular":
        varied = [np.array([-1.0, -2.0]), 0.5, 3.0]
    values, _ = parametric.fill(stream, name, *varied)
    assert values.shape == (2,)
    second = [v[1] if np.ndim(v) else v for v in varied]
    assert values[1] == parametric.fill(stream, name, *second, size=2)[0][1]


def test_the_threefry_kernels_too():
    stream = tandem.Threefry(5).sub("laplace")
    whole = law_fill(stream, "laplace", 1100)
    assert np.array_equal(whole, law_fill(stream, "laplace", 1100, backend="reference"))


@pytest.mark.parametrize("name", sorted(LAWS))
def test_fits_scipy(name):
    params, law = LAWS[name]
    x = law_fill(ROOT.sub("fit").sub(name), name, N)
    if hasattr(law, "pmf"):
        assert x.dtype == np.int64
        assert chisquare_pvalue(x, law) > ALPHA
    else:
        assert x.dtype == np.float64 and np.isfinite(x).all()
        assert stats.kstest(x, law.cdf).pvalue > ALPHA
    mean, var = law.stats()
    if np.isfinite(var):
        assert abs(x.mean() - mean) < 5 * np.sqrt(var / N)
        # The variance's standard error, from the fourth central moment.
        m4 = law.moment(4) - 4 * mean * law.moment(3) + 6 * mean**2 * law.moment(2) - 3 * mean**4
        assert abs(x.var() - var) < 5 * np.sqrt((m4 - var**2) / N)


def test_lognormal_is_exp_of_the_normal():
    stream = ROOT.sub("lognormal")
    x = law_fill(stream, "lognormal", 30000)  # elements 29254 ... miss into the tail
    z, _ = stream.normal(30000, loc=0.3, scale=0.8)
    np.testing.assert_allclose(x, np.exp(z), rtol=4e-16)


def test_extreme_parameters_stay_in_the_support():
    g = Generator(ROOT.sub("extremes"))
    assert (g.weibull(0.0, 10) == 0).all() and np.isinf(g.weibull(1e-3, 1000)).any()
    assert ((g.power(1e-3, 1000) >= 0) & (g.power(1e3, 1000) <= 1)).all()
    assert (g.laplace(2.0, 0.0, 5) == 2.0).all() and (g.lognormal(0.0, 0.0, 5) == 1.0).all()
    x = g.uniform(5.0, 5.0, 5)
    assert (x == 5.0).all()
    assert np.isfinite(g.standard_cauchy(N)).all()
    assert (g.triangular(0.0, 0.0, 1.0, 1000) >= 0).all()
    assert (g.gumbel(0.0, 1.0, N) < 40).all()


@pytest.mark.parametrize("call,error,match", [
    (lambda g: g.laplace(0.0, -1.0), ValueError, "scale must be non-negative"),
    (lambda g: g.poisson([1.0, np.nan]), ValueError, "lam must be finite"),  # NumPy raises too
    (lambda g: g.uniform(-1e308, 1e308), OverflowError, "high - low overflows"),
    (lambda g: g.uniform(0.0, np.inf), OverflowError, "high must be finite"),
    (lambda g: g.weibull([1.0, -1.0]), ValueError, "a must be non-negative"),
    (lambda g: g.power(0.0), ValueError, "a must be positive"),
    (lambda g: g.triangular(1.0, 0.0, 2.0), ValueError, "left must be at most mode"),
    (lambda g: g.triangular(0.0, 3.0, 2.0), ValueError, "mode must be at most right"),
    (lambda g: g.triangular(1.0, 1.0, 1.0), ValueError, "left must be below right"),
    (lambda g: g.laplace([0.0, 1.0], 1.0, size=3), ValueError, "do not broadcast"),
    (lambda g: g.rayleigh(np.ma.masked_array([1.0])), TypeError, "masked"),
    (lambda g: g.gumbel("a"), ValueError, "loc"),  # NumPy's type for a string
    (lambda g: g.standard_gamma(-1.0), ValueError, "shape must be non-negative"),
    (lambda g: g.gamma(1.0, -0.0), ValueError, "scale must be non-negative"),
    (lambda g: g.chisquare(0.0), ValueError, "df must be positive"),
    (lambda g: g.poisson(-1.0), ValueError, "lam must be non-negative"),
    (lambda g: g.poisson(2.0**60), ValueError, "lam must be at most"),
    (lambda g: g.binomial(10, 1.5), ValueError, "p must be at most 1"),
    (lambda g: g.binomial(-1, 0.5), ValueError, "n must be non-negative"),
])
def test_bad_parameters_raise_before_any_draw(call, error, match):
    g = Generator(ROOT)
    with pytest.raises(error, match=match):
        call(g)
    assert g.stream == ROOT


@pytest.mark.parametrize("zero", [0.0, np.array(0.0), np.float64(0.0)])
def test_remembered_parameters_keep_their_sign_and_type(zero):
    """Scalar parameters are prepared once a value (``parametric._PREPARED``):
    -0.0 after 0.0 is still NumPy's refusal of a negative scale, and an
    integer after a float of the same value is still its own call."""
    stream = tandem.Philox(1)
    assert parametric.fill(stream, "laplace", 0.0, zero, size=2)[0].tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="non-negative"):
        parametric.fill(stream, "laplace", 0.0, -zero, size=2)
    assert (parametric.fill(stream, "laplace", 0, 1, size=3)[0].tolist()
            == parametric.fill(stream, "laplace", 0.0, 1.0, size=3)[0].tolist())
    assert ("laplace", ((int, "0"), (int, "1"))) in parametric._PREPARED


def test_unknown_law():
    with pytest.raises(ValueError, match="no law named"):
        parametric.fill(ROOT, "zeta", 2.0)


#: Scalar parameters of each kind that parametric.Law.faster chooses, at the ends
#: of its range: (law, parameters, kind).
FASTER = [
    ("poisson", (0.0,), "poisson_table64"), ("poisson", (1e-300,), "poisson_table64"),
    ("poisson", (3.0,), "poisson_table64"), ("poisson", (9.999,), "poisson_table64"),
    ("poisson", (10.0,), "poisson_ptrs_fixed64"), ("poisson", (1e9,), "poisson_ptrs_fixed64"),
    ("binomial", (0, 0.5), "binomial_table64"), ("binomial", (20, 0.1), "binomial_table64"),
    ("binomial", (7, 0.93), "binomial_table64"), ("binomial", (19, 0.5), "binomial_table64"),
    ("binomial", (20, 0.5), "binomial_btrs_fixed64"),
    ("binomial", (1000, 0.7), "binomial_btrs_fixed64"),
    ("binomial", (2**40, 1e-11), "binomial_btrs_fixed64"),
    ("standard_gamma", (1.0,), "gamma_large64"), ("gamma", (1e6, 2.0), "gamma_large64"),
    ("chisquare", (0.5,), "gamma_small64"), ("standard_gamma", (0.0,), "gamma_small64"),
    ("gamma", (1e-3, 2.0), "gamma_small64"), ("standard_gamma", (0.999,), "gamma_small64"),
    ("vonmises", (0.0, 1e-8), "vonmises_rejection64"),
    ("vonmises", (0.5, 4.0), "vonmises_rejection64"),
    ("vonmises", (-1.0, 1e6), "vonmises_rejection64"), ("vonmises", (3.0, 0.99e-8), "vonmises64"),
]


def own_kind_fill(stream, name, n, params):
    """The fill of the law's own kind (:attr:`tandem.parametric.Law.kind`), which
    no fill takes when the law has faster kinds: the rule they are held to."""
    kind, words, _ = parametric._prepare(name, params)
    spec = engine.spec(kind.name, tuple(int(w) for w in words), np.dtype(np.float64))
    return engine.run(stream, spec, n, None, None, None, None)[0]


@pytest.mark.parametrize("name,params,kind", FASTER)
def test_faster_kinds_equal_the_laws_own(name, params, kind):
    """Scalar parameters take a kind whose fill the CPU vectorises; its values
    equal those of the law's own kind, of the kinds that array parameters
    take, of the reference, and of its elements computed alone."""
    assert parametric._scalar_spec(name, KINDS[laws.LAWS[name].kind],
                                   parametric._prepare(name, params)[1])[0].name == kind
    stream = ROOT.sub("faster").sub(name).at(2)
    n = 3000
    scalar = law_fill(stream, name, n, params=params)
    # lean kernels (which compile in seconds) of the law's own kind and of the
    # kinds of array parameters (the next test compiles their vectorised ones)
    lean = cpu.LEAN_BELOW - 1
    assert np.array_equal(scalar[:lean], own_kind_fill(stream, name, lean, params))
    each, _ = parametric.fill(stream, name, *(np.full(lean, p) for p in params))
    assert np.array_equal(scalar[:lean], each)
    assert np.array_equal(scalar, law_fill(stream, name, n, params=params, backend="reference"))
    index = np.array([0, 5, n - 1, 1234])
    assert np.array_equal(parametric.at(stream, name, index, *params), scalar[index])


@pytest.mark.parametrize("name,params", [
    ("poisson", ([0.0, 3.0, 9.999, 10.0, 35.0, 1e9],)),
    ("standard_gamma", ([1e-3, 0.5, 0.999, 1.0, 3.0, 1e6],)),
    ("binomial", ([20, 19, 100, 5, 2**40], [0.1, 0.5, 0.3, 0.99, 1e-11]))])
def test_array_parameters_across_regimes_equal_scalar_fills(name, params):
    """Array parameters take, element by element, the kind of their regime
    (``Law.regimes``): each element equals the fill of its parameters as
    scalars, misses included (poisson_steps64's search past 16 counts at a mean
    near 10)."""
    stream = ROOT.sub("regimes").sub(name)
    columns = len(params[0])
    rows = 600
    mixed, _ = parametric.fill(stream, name, *params, size=(rows, columns))
    for j in range(columns):
        scalar = law_fill(stream, name, rows * columns, params=[p[j] for p in params])
        assert np.array_equal(mixed[:, j], scalar.reshape(rows, columns)[:, j])
    if name == "poisson":
        assert (mixed[:, 2] > 16).any()  # poisson_steps64's misses


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
@pytest.mark.parametrize("name,params", [("poisson", (3.0,)), ("binomial", (7, 0.93))])
def test_cuda_kernels_of_the_inversion_tables_equal_the_cpu(name, params):
    stream = ROOT.sub("cuda-tables").at(1)
    on_cuda, _ = parametric.fill(stream, name, *params, size=70, threads=32, backend="cuda")
    assert on_cuda.dtype == np.int64  # stored as counts by the kernel itself
    assert np.array_equal(on_cuda, law_fill(stream, name, 70, params=params))
    into = np.full(70, -1, dtype=np.int64)
    parametric.fill(stream, name, *params, out=into, threads=32, backend="cuda")
    assert np.array_equal(into, on_cuda)


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
@pytest.mark.parametrize("name,params", [
    ("standard_t", (3.0,)), ("f", (2.0, [3.0, 9.0])), ("wald", (1.0, 2.0)),
    ("beta", ([0.5, 2.0], 0.7)), ("beta", (2.0, 3.0)), ("negative_binomial", (4.0, 0.3)),
    ("negative_binomial", (0.5, 0.05))])
def test_cuda_kernels_of_the_laws_of_two_parts_equal_the_cpu(name, params):
    """The parts (array parameters among them: the addressed kernel of each
    element's words) and the values made of them (tandem.core.two_parts);
    with scalar parameters, the one kernel that computes both parts and the value
    (for negative_binomial, Poisson means on both sides of PTRS's 10, from
    gamma shapes above and below 1)."""
    stream = ROOT.sub("cuda-two-parts").at(1)
    law = getattr(parametric, name)
    on_cuda, after = law(stream, *params, size=(12, 2), threads=32, backend="cuda")
    on_cpu, cpu_after = law(stream, *params, size=(12, 2))
    assert after == cpu_after
    assert on_cuda.dtype == on_cpu.dtype and np.array_equal(on_cuda, on_cpu)


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
def test_cuda_kernels_store_counts_past_int64_as_numpy():
    """geometric's counts from 2**63 on are the largest int64, stored by the
    kernel itself (core.inversion.count64) as the CPU converts them."""
    stream = ROOT.sub("cuda-counts")
    on_cuda, _ = parametric.fill(stream, "geometric", 1e-300, size=40, threads=32,
                                 backend="cuda")
    on_cpu, _ = parametric.fill(stream, "geometric", 1e-300, size=40)
    assert on_cuda.dtype == np.int64 and np.array_equal(on_cuda, on_cpu)
    assert (on_cpu == np.iinfo(np.int64).max).all()
    small, _ = parametric.fill(stream, "geometric", 0.3, size=40, threads=32, backend="cuda")
    assert np.array_equal(small, parametric.fill(stream, "geometric", 0.3, size=40)[0])


def test_inversion_tables_end_in_infinity():
    """The binary search of tandem.core.inversion.count_below64 needs a last +inf."""
    from tandem.core import binomial, poisson
    for table in (poisson.inversion_table(9.999999), binomial.inversion_table(2.0**40, 9e-12)):
        sums = table.view(np.float64)
        assert np.isinf(sums[-1]) and (np.diff(sums[np.isfinite(sums)]) > 0).all()


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
@pytest.mark.parametrize("name", sorted(LAWS))
def test_cuda_kernels_equal_the_cpu(name):
    """In Numba's CUDA simulator (tests/conftest.py), or on a GPU with TANDEM_GPU=1."""
    stream = ROOT.sub("cuda").at(1)
    on_cuda, after = parametric.fill(stream, name, *LAWS[name][0], size=70, threads=32,
                                     backend="cuda")
    assert np.array_equal(on_cuda, law_fill(stream, name, 70))
    start = -(-1 // width(name)) * width(name)  # position 1, rounded up to the width
    assert after.position == start + width(name) * 70


@pytest.mark.parametrize("name", ["laplace", "triangular", "lognormal"])
def test_elements_alone_equal_the_fill(name):
    params = LAWS[name][0]
    stream = ROOT.sub("at").at(5)
    whole = law_fill(stream, name, 1200)
    index = np.array([[1199, 0], [7, 600]])
    assert np.array_equal(parametric.at(stream, name, index, *params), whole[index])
    shaped = [np.full((2, 1), p) for p in params]
    for which in ("lean", "vectorised"):
        with mock.patch.object(cpu, "LEAN_BELOW", 2**63 if which == "lean" else 0):
            assert np.array_equal(parametric.at(stream, name, index, *shaped), whole[index])
    assert np.array_equal(parametric.at(stream, name, index, *shaped, backend="reference"),
                          whole[index])
    with pytest.raises(ValueError, match="do not broadcast"):
        parametric.at(stream, name, [1, 2, 3], *[np.full(2, p) for p in params])


@pytest.mark.parametrize("shape", [1e-3, 0.3, 0.999, 1.0, 1e6])
def test_gamma_at_extreme_and_boundary_shapes(shape):
    """Each branch (the Weibull envelope below 1, Marsaglia and Tsang from 1 on)
    and its rejections; at shape 1e-3 most values underflow to 0, so the
    distribution function is checked at points: each a binomial count within
    5 standard errors (false alarms about 6e-7 a point)."""
    x = law_fill(ROOT.sub("gamma-shape"), "standard_gamma", 1 << 15, params=(shape,))
    law = stats.gamma(shape)
    for p in (0.1, 0.3, 0.5, 0.7, 0.9):
        t = law.ppf(p)
        if t > 1e-300:  # below, the values have underflowed (to 0 at shape 1e-3)
            assert abs(np.mean(x <= t) - p) < 5 * np.sqrt(p * (1 - p) / x.size)
    if shape >= 0.3:
        assert stats.kstest(x, law.cdf).pvalue > ALPHA


def test_gamma_of_shape_zero_is_zero_and_chisquare_is_twice_gamma():
    assert (law_fill(ROOT, "standard_gamma", 100, params=(0.0,)) == 0).all()
    stream = ROOT.sub("chisquare")
    np.testing.assert_array_equal(law_fill(stream, "chisquare", 1100, params=(5.0,)),
                                  2 * law_fill(stream, "standard_gamma", 1100, params=(2.5,)))


@pytest.mark.parametrize("lam", [0.0, 1e-300, 3.0, 9.99, 10.0, 1e4, 1e12])
def test_poisson_across_means(lam):
    """Inversion below 10, PTRS from 10 on (and its rejections), to 1e12:
    chi-square where the counts spread, and the first two moments within 5
    standard errors (the variance's from the fourth central moment, 3 lam**2
    + lam)."""
    x = law_fill(ROOT.sub("poisson").sub(str(lam)), "poisson", N, params=(lam,))
    assert x.dtype == np.int64 and (x >= 0).all()
    if lam < 1e-200:
        assert (x == 0).all()
        return
    assert abs(x.mean() - lam) < 5 * np.sqrt(lam / N)
    assert abs(x.var() - lam) < 5 * np.sqrt((3 * lam**2 + lam - lam**2) / N)
    if lam <= 1e4:
        assert chisquare_pvalue(x, stats.poisson(lam)) > ALPHA


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_laws(name):
    """Cut anywhere equals the whole, array parameters equal scalar ones, and
    the values fit SciPy's law (KS or chi-square, ALPHA)."""
    params, law = COMPOSED[name]
    draw = getattr(parametric, name)
    stream = ROOT.sub(name).at(1)
    whole, after = draw(stream, *params, 300)
    assert after.position == 4 + 8 * 300
    head, middle = draw(stream, *params, 111)
    assert np.array_equal(whole, np.concatenate([head, draw(middle, *params, 189)[0]]))
    shaped = [np.full((3, 1), p) for p in params]
    assert np.array_equal(draw(stream, *shaped, (3, 100))[0].ravel(), whole)
    x, _ = draw(ROOT.sub("fit").sub(name), *params, N)
    if hasattr(law, "pmf"):
        assert x.dtype == np.int64 and chisquare_pvalue(x, law) > ALPHA
    else:
        assert stats.kstest(x, law.cdf).pvalue > ALPHA
    assert callable(getattr(Generator, name))


@pytest.mark.parametrize("generator,name,params", [  # kernels test_composed_laws compiles,
    (tandem.Philox, "standard_t", (5.0,)), (tandem.Philox, "f", (3.0, 7.0)),
    (tandem.Philox, "wald", (1.5, 2.0)),
    # and gamma's shapes below 1 (Threefry's blocks: beta(1, 1) below)
    (tandem.Philox, "beta", (0.7, 3.0)),
    # the Poisson mixture's, with means on both sides of PTRS's 10,
    (tandem.Philox, "negative_binomial", (4.0, 0.3)),
    (tandem.Philox, "negative_binomial", (0.5, 0.05)),
    # and Jöhnk's beta, its retries in rounds: misses of 21 % and 50 %, and
    # attempts whose X + Y underflows
    (tandem.Philox, "beta", (0.5, 0.5)), (tandem.Threefry, "beta", (1.0, 1.0)),
    (tandem.Philox, "beta", (1e-3, 1e-3))])
def test_one_kernel_of_two_parts_equals_its_parts(generator, name, params):
    """Scalar parameters and 1,024 elements or more take the CPU's one kernel of
    both parts and the value (of Jöhnk's beta, of its one part); parameters
    as arrays take the parts, each an addressed fill, and a pass for the
    value: the same bits, whichever regime each part's kind takes, and cut
    anywhere."""
    draw = getattr(parametric, name)
    stream = generator(20261202).sub("one-kernel").at(3)
    whole, after = draw(stream, *params, 2500)
    parts, parts_after = draw(stream, *[np.array([p]) for p in params], 2500)
    assert after == parts_after and np.array_equal(whole, parts)
    head, middle = draw(stream, *params, 1100)
    assert np.array_equal(whole, np.concatenate([head, draw(middle, *params, 1400)[0]]))


@pytest.mark.parametrize("n,p", [(0, 0.5), (20, 0.0), (20, 1.0), (1000, 0.001), (30, 0.3),
                                 (1000, 0.5), (1000, 0.97), (10**12, 1e-6), (10**9, 0.4)])
def test_binomial_across_trials_and_probabilities(n, p):
    """Inversion while n min(p, 1 - p) < 10, BTRS above (and its rejections), p
    near 0 and 1 by the flip: chi-square where the counts spread, the first
    two moments within 5 standard errors."""
    x = law_fill(ROOT.sub("binomial").sub(f"{n}-{p}"), "binomial", N, params=(n, p))
    assert x.dtype == np.int64 and (x >= 0).all() and (x <= n).all()
    law = stats.binom(n, p)
    mean, var = law.stats()
    if var == 0:
        assert (x == mean).all()
        return
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / N)
    kurtosis = float(law.stats(moments="k"))
    assert abs(x.var() - var) < 5 * np.sqrt(var**2 * (kurtosis + 2) / N)
    if n <= 1000:
        assert chisquare_pvalue(x, law) > ALPHA


def test_permuted_shuffles_each_slice_by_the_permutation_rule():
    x = np.arange(24).reshape(2, 3, 4)
    g = Generator(ROOT.sub("permuted"))
    y = g.permuted(x, axis=1)
    assert (np.sort(y, axis=1) == x).all() and not (y == x).all()
    stream, orders = ROOT.sub("permuted"), []
    for _ in range(8):  # the 2 * 4 slices of 3 in turn
        p, stream = stream.permutation(3)
        orders.append(p)
    after, order = stream, np.array(orders)
    slices = np.moveaxis(x, 1, -1).reshape(8, 3)
    expected = np.moveaxis(np.take_along_axis(slices, order, -1).reshape(2, 4, 3), -1, 1)
    assert (y == expected).all() and g.stream == after
    assert (Generator(tandem.Philox(4)).permuted(np.arange(9))
            == Generator(tandem.Philox(4)).permutation(9)).all()
    out = np.empty_like(x)
    assert Generator(tandem.Philox(4)).permuted(x, out=out) is out
    with pytest.raises(np.exceptions.AxisError):
        g.permuted(x, axis=3)


@pytest.mark.parametrize("a,b", [(2.0, 3.0), (0.5, 3.0), (1.0, 1.0), (1e-3, 1e-3), (1e3, 0.2)])
def test_beta_by_both_rules(a, b):
    """Jöhnk's rule when both shapes are at most 1 (its log path where both
    powers underflow), two gammas otherwise: KS against SciPy (ALPHA); at
    shapes 1e-3 the values pile at 0 and 1 in the proportions b / (a + b)."""
    x, _ = parametric.beta(ROOT.sub("beta").sub(f"{a}-{b}"), a, b, N)
    assert ((x >= 0) & (x <= 1)).all() and np.isfinite(x).all()
    if a < 0.01:
        near_zero = np.mean(x < 0.5)
        assert abs(near_zero - 0.5) < 5 * np.sqrt(0.25 / N)
    else:
        assert stats.kstest(x, stats.beta(a, b).cdf).pvalue > ALPHA
    mixed, _ = parametric.beta(ROOT.sub("beta"), [0.5, 2.0], [0.5, 3.0], (3, 2))
    assert mixed[0, 0] == parametric.beta(ROOT.sub("beta"), 0.5, 0.5, 1)[0][0]
    assert mixed[0, 1] == parametric.beta(ROOT.sub("beta"), 2.0, 3.0, 2)[0][1]


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the simulator's uint64 wraps
def test_cuda_kernels_of_johnks_beta_equal_the_cpu():
    stream = ROOT.sub("cuda-johnk")
    on_cuda, _ = parametric.fill(stream, "beta_johnk", 0.4, 0.7, size=70, threads=32,
                                 backend="cuda")
    assert np.array_equal(on_cuda, parametric.fill(stream, "beta_johnk", 0.4, 0.7, size=70)[0])


@pytest.mark.parametrize("mu,kappa", [(0.0, 1e-9), (3.0, 0.5), (-2.5, 4.0), (1.0, 1e7)])
def test_vonmises_by_each_rule(mu, kappa):
    """Uniform below kappa 1e-8, Best and Fisher's rejection, a wrapped normal
    above 1e6; angles in [-pi, pi]; KS against SciPy (ALPHA)."""
    x = law_fill(ROOT.sub("vonmises").sub(str(kappa)), "vonmises", N, params=(mu, kappa))
    assert ((x >= -np.pi) & (x <= np.pi)).all()
    # SciPy's law at loc 0, on the angles from mu wrapped back into [-pi, pi].
    d = np.mod(x - mu + np.pi, 2 * np.pi) - np.pi
    if kappa > 1e6:
        law = stats.norm(0.0, 1 / np.sqrt(kappa))
    elif kappa > 1e-8:
        law = stats.vonmises(kappa)
    else:
        law = stats.uniform(-np.pi, 2 * np.pi)
    assert stats.kstest(d, law.cdf).pvalue > ALPHA


#: Parameters of each kind marked ``attempts`` at which a fifth to a tenth of
#: first attempts miss, and the table its fills bring.
ATTEMPTS = {"poisson64": ((30.0,), None), "poisson_ptrs64": ((1e6,), None),
            "poisson_ptrs_fixed64": ((30.0,), "ptrs"), "binomial64": ((100.0, 0.3), None),
            "binomial_btrs64": ((100.0, 0.7), None),
            "binomial_btrs_fixed64": ((1000.0, 0.7), "btrs")}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_a_kinds_retry_is_its_maps_attempts_where_it_says_so(name):
    """``Kind.attempts``, on which the GPU's one-attempt-a-pass fill rests: the
    retry of a missed first attempt equals the first attempt that the value
    map accepts on blocks 0, 1, ... of the element's lane of the continuation
    key (plain Python: the core functions themselves)."""
    from tandem.core import binomial, poisson
    from tandem.core.addressing import block_at, join64

    kind = KINDS[name]
    assert kind.attempts and kind.width == 4 and {k.name for k in KINDS.values()
                                                  if k.attempts} == set(ATTEMPTS)
    params, table = ATTEMPTS[name]
    table = {"ptrs": lambda: poisson.ptrs_table(*params),
             "btrs": lambda: binomial.btrs_table(*params), None: lambda: None}[table]()
    words = tuple(int(w) for w in np.array(params + (0.0,) * (3 - len(params))).view(np.uint64))
    key = (11, 22, 33, 44)
    draws = np.random.default_rng(5).integers(0, 2**64, size=(400, 2), dtype=np.uint64)
    missed = 0
    for lo, hi in draws:
        if kind.value_map(lo, hi, words, table)[1]:
            continue
        missed += 1
        g = np.uint64(4 * missed)
        r = np.uint64(0)
        while True:
            x0, x1, x2, x3 = block_at(0, *(np.uint64(k) for k in key), g, r)
            value, accepted = kind.value_map(join64(x0, x1), join64(x2, x3), words, table)
            if accepted:
                break
            r += np.uint64(1)
        assert kind.retry(0, *(np.uint64(k) for k in key), g, lo, hi, words, table) == value
    assert missed >= 20
