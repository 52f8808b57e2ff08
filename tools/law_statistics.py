"""The statistics behind tests/test_parametric.py, printed as a table: for each
law and parameter set of those tests, the goodness-of-fit p-value against
SciPy's law (Kolmogorov-Smirnov for continuous laws, Pearson's chi-square for
counts) and the z-scores of the sample mean and variance.

The streams, sizes and cases are the tests' own (imported from the test
module), so the table shows the numbers that the tests hold to their
thresholds: a p-value above 1e-6 and |z| below 5.

``python3 tools/law_statistics.py``
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
from scipy import stats

from tandem import parametric

_TESTS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "test_parametric.py"


def _tests():
    spec = importlib.util.spec_from_file_location("test_parametric", _TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def moment_z(x, law):
    """z-scores of the sample mean and variance of ``x`` under ``law``, the
    variance's standard error from the law's kurtosis (NaN where the law has
    no finite fourth moment)."""
    mean, var, kurtosis = (float(v) for v in law.stats(moments="mvk"))
    if not np.isfinite(var) or var == 0:
        return np.nan, np.nan
    n = x.size
    z_mean = (x.mean() - mean) / np.sqrt(var / n)
    z_var = (x.var() - var) / np.sqrt((kurtosis + 2) * var**2 / n)
    return z_mean, z_var


def fit_pvalue(t, x, law):
    if hasattr(law, "pmf"):
        return "chi-square", t.chisquare_pvalue(x, law)
    return "KS", stats.kstest(x, law.cdf).pvalue


def rows():
    """``(law, parameters, n, test, p-value, z mean, z variance)`` for each case."""
    t = _tests()
    for name, (params, law) in sorted(t.LAWS.items()):
        x = t.law_fill(t.ROOT.sub("fit").sub(name), name, t.N)
        yield (name, params, x.size, *fit_pvalue(t, x, law), *moment_z(x, law))
    for name, (params, law) in sorted(t.COMPOSED.items()):
        x, _ = getattr(parametric, name)(t.ROOT.sub("fit").sub(name), *params, t.N)
        yield (name, params, x.size, *fit_pvalue(t, x, law), *moment_z(x, law))
    for shape in (0.3, 0.999, 1.0, 1e6):
        x = t.law_fill(t.ROOT.sub("gamma-shape"), "standard_gamma", 1 << 15, params=(shape,))
        yield ("standard_gamma", (shape,), x.size, *fit_pvalue(t, x, stats.gamma(shape)),
               *moment_z(x, stats.gamma(shape)))
    for lam in (3.0, 9.99, 10.0, 1e4, 1e12):
        x = t.law_fill(t.ROOT.sub("poisson").sub(str(lam)), "poisson", t.N, params=(lam,))
        test = fit_pvalue(t, x, stats.poisson(lam)) if lam <= 1e4 else ("-", np.nan)
        yield ("poisson", (lam,), x.size, *test, *moment_z(x, stats.poisson(lam)))
    for n, p in ((1000, 0.001), (30, 0.3), (1000, 0.5), (1000, 0.97), (10**12, 1e-6),
                 (10**9, 0.4)):
        x = t.law_fill(t.ROOT.sub("binomial").sub(f"{n}-{p}"), "binomial", t.N, params=(n, p))
        law = stats.binom(n, p)
        test = fit_pvalue(t, x, law) if n <= 1000 else ("-", np.nan)
        yield ("binomial", (n, p), x.size, *test, *moment_z(x, law))
    for a, b in ((2.0, 3.0), (0.5, 3.0), (1.0, 1.0), (1e3, 0.2)):
        x, _ = parametric.beta(t.ROOT.sub("beta").sub(f"{a}-{b}"), a, b, t.N)
        law = stats.beta(a, b)
        yield ("beta", (a, b), x.size, *fit_pvalue(t, x, law), *moment_z(x, law))
    for mu, kappa in ((3.0, 0.5), (-2.5, 4.0)):
        x = t.law_fill(t.ROOT.sub("vonmises").sub(str(kappa)), "vonmises", t.N,
                       params=(mu, kappa))
        d = np.mod(x - mu + np.pi, 2 * np.pi) - np.pi
        law = stats.vonmises(kappa)
        yield ("vonmises", (mu, kappa), x.size, *fit_pvalue(t, d, law), *moment_z(d, law))


def main():
    print("| law | parameters | n | test | p-value | z mean | z variance |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, params, n, test, p, z_mean, z_var in rows():
        print(f"| {name} | {', '.join(f'{v:g}' for v in params)} | {n} | {test} | "
              f"{p:.3g} | {z_mean:+.2f} | {z_var:+.2f} |")


if __name__ == "__main__":
    main()
