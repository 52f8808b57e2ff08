"""Which SciPy, pandas and scikit-learn calls take a ``tandem.Generator`` as
their random state: each call runs twice from the same seed, on tandem and on
NumPy's own Generator, and the table says whether it ran and whether it gave
the same result twice.

``python3 tools/ecosystem.py`` prints the table; ``tests/test_bitgen.py``
asserts every row.
"""

from __future__ import annotations

import warnings

import numpy as np

import tandem

_X = np.linspace(-1.0, 2.0, 30)
_Y = np.sin(np.arange(30.0))


def _scipy_calls():
    import scipy.optimize as optimize
    import scipy.sparse as sparse
    from scipy import stats
    from scipy.stats import qmc, sampling

    def bowl(x):
        return float(np.sum((np.asarray(x) - 0.3) ** 2))

    return {
        "scipy.stats.norm.rvs(random_state=)": lambda g: stats.norm.rvs(size=50, random_state=g),
        "scipy.stats.gamma(2).rvs(random_state=)": lambda g: stats.gamma(2.0).rvs(
            50, random_state=g),
        "scipy.stats.poisson(4).rvs(random_state=)": lambda g: stats.poisson(4.0).rvs(
            50, random_state=g),
        "scipy.stats.multivariate_normal.rvs(random_state=)": lambda g: stats.multivariate_normal.rvs(
            [0.0, 1.0], [[1.0, 0.3], [0.3, 2.0]], size=20, random_state=g),
        "scipy.stats.dirichlet.rvs(random_state=)": lambda g: stats.dirichlet.rvs(
            [1.0, 2.0, 3.0], size=20, random_state=g),
        "scipy.stats.bootstrap(rng=)": lambda g: stats.bootstrap(
            (_X,), np.mean, n_resamples=99, rng=g).standard_error,
        "scipy.stats.permutation_test(rng=)": lambda g: stats.permutation_test(
            (_X, _Y), lambda a, b: np.mean(a) - np.mean(b), n_resamples=99, rng=g).pvalue,
        "scipy.stats.monte_carlo_test(rvs=g.normal)": lambda g: stats.monte_carlo_test(
            _X, g.normal, np.mean, n_resamples=99).pvalue,
        "scipy.stats.gaussian_kde.resample(seed=)": lambda g: stats.gaussian_kde(_X).resample(
            20, seed=g),
        "scipy.stats.qmc.Sobol(rng=)": lambda g: qmc.Sobol(2, rng=g).random(8),
        "scipy.stats.qmc.Halton(rng=)": lambda g: qmc.Halton(2, rng=g).random(8),
        "scipy.stats.qmc.LatinHypercube(rng=)": lambda g: qmc.LatinHypercube(2, rng=g).random(8),
        "scipy.stats.sampling.NumericalInversePolynomial(random_state=)": lambda g: (
            sampling.NumericalInversePolynomial(stats.norm(), random_state=g).rvs(20)),
        "scipy.sparse.random_array(rng=)": lambda g: sparse.random_array(
            (10, 10), density=0.2, rng=g).toarray(),
        "scipy.optimize.differential_evolution(rng=)": lambda g: optimize.differential_evolution(
            bowl, [(-1, 1)] * 2, maxiter=5, popsize=5, rng=g, polish=False).x,
        "scipy.optimize.dual_annealing(rng=)": lambda g: optimize.dual_annealing(
            bowl, [(-1, 1)] * 2, maxiter=5, rng=g, no_local_search=True).x,
        "scipy.optimize.basinhopping(rng=)": lambda g: optimize.basinhopping(
            bowl, [0.5, 0.5], niter=3, rng=g).x,
    }


def _pandas_calls():
    import pandas as pd

    frame = pd.DataFrame({"x": range(100), "y": np.arange(100.0) ** 2})
    return {
        "pandas.DataFrame.sample(random_state=)": lambda g: frame.sample(
            10, random_state=g).to_numpy(),
        "pandas.Series.sample(frac=, random_state=)": lambda g: frame["y"].sample(
            frac=0.1, random_state=g).to_numpy(),
    }


def _sklearn_calls():
    # scikit-learn takes an int or a RandomState, so a Generator's bit
    # generator goes in through numpy.random.RandomState.
    from sklearn.cluster import KMeans
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import KFold, train_test_split
    from sklearn.utils import resample

    data = np.column_stack([np.arange(40.0) % 7, np.arange(40.0) % 5])
    labels = (np.arange(40) % 3 == 0).astype(int)

    def state(g):
        return np.random.RandomState(g.bit_generator)

    return {
        "sklearn train_test_split(random_state=RandomState(g.bit_generator))": lambda g: (
            train_test_split(np.arange(40), random_state=state(g))[0]),
        "sklearn KFold(shuffle=True, random_state=RandomState(...))": lambda g: np.concatenate(
            [test for _, test in KFold(4, shuffle=True, random_state=state(g)).split(data)]),
        "sklearn KMeans(random_state=RandomState(...))": lambda g: KMeans(
            3, n_init=2, random_state=state(g)).fit(data).cluster_centers_,
        "sklearn RandomForestClassifier(random_state=RandomState(...))": lambda g: (
            RandomForestClassifier(5, random_state=state(g)).fit(data, labels)
            .predict_proba(data)),
        "sklearn utils.resample(random_state=RandomState(...))": lambda g: resample(
            np.arange(40), random_state=state(g)),
    }


def calls():
    """``name -> call(generator)``: every call of the table."""
    return {**_scipy_calls(), **_pandas_calls(), **_sklearn_calls()}


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def check(call, make):
    """``(ran, reproducible)`` of ``call`` with two generators from ``make()``;
    ``ran`` is the error's text where it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            first, second = call(make()), call(make())
    except Exception as error:  # a refusal is a row of the table
        return f"{type(error).__name__}: {error}"[:80], False
    return True, _same(first, second)


def main():
    peers = {"tandem.Generator": lambda: tandem.Generator(tandem.Philox(2026)),
             "numpy PCG64": lambda: np.random.Generator(np.random.PCG64(2026))}
    import pandas
    import scipy
    import sklearn
    print(f"tandem {tandem.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"pandas {pandas.__version__}, scikit-learn {sklearn.__version__}")
    print("| call | " + " | ".join(peers) + " |")
    print("| --- |" + " --- |" * len(peers))
    totals = dict.fromkeys(peers, 0)
    table = calls()
    for name, call in table.items():
        cells = []
        for peer, make in peers.items():
            ran, reproducible = check(call, make)
            ok = ran is True and reproducible
            totals[peer] += ok
            cells.append("yes, reproducible" if ok else
                         "ran, not reproducible" if ran is True else f"no ({ran})")
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    print("| accepted | " + " | ".join(f"{totals[p]} of {len(table)}" for p in peers) + " |")


if __name__ == "__main__":
    main()
