"""Every SciPy distribution draws from a tandem.Generator, reproducibly.

The univariate distributions and their parameters are SciPy's own test
cases (``scipy.stats._distr_params``: ``distcont`` and ``distdiscrete``,
the lists SciPy's tests run over), frozen; the multivariate ones are listed
here with small parameters (all of SciPy's that draw: ``dirichlet_multinomial``
has no ``rvs``).  Each must draw through ``random_state=`` a
tandem Generator, give the same values from the same stream, and (for the
frozen univariate laws, where NumPy's Generator is the reference) the same
shape and dtype as from NumPy's Generator.
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.stats._distr_params import distcont, distdiscrete

import tandem

MULTIVARIATE = {
    "multivariate_normal": lambda: stats.multivariate_normal([0, 1], [[2, 0.5], [0.5, 1]]),
    "multivariate_t": lambda: stats.multivariate_t([0, 1], [[2, 0.5], [0.5, 1]], df=3),
    "matrix_normal": lambda: stats.matrix_normal(np.zeros((2, 3))),
    "dirichlet": lambda: stats.dirichlet([1.0, 2.0, 3.0]),
    "wishart": lambda: stats.wishart(df=4, scale=np.eye(2)),
    "invwishart": lambda: stats.invwishart(df=4, scale=np.eye(2)),
    "multinomial": lambda: stats.multinomial(10, [0.2, 0.8]),
    "multivariate_hypergeom": lambda: stats.multivariate_hypergeom([3, 4, 5], 6),
    "random_correlation": lambda: stats.random_correlation([0.5, 1.5]),
    "special_ortho_group": lambda: stats.special_ortho_group(3),
    "ortho_group": lambda: stats.ortho_group(3),
    "unitary_group": lambda: stats.unitary_group(3),
    "uniform_direction": lambda: stats.uniform_direction(3),
    "vonmises_fisher": lambda: stats.vonmises_fisher([0, 0, 1], 2.0),
    "random_table": lambda: stats.random_table([2, 3], [1, 4]),
}
UNIVARIATE = [(name, params) for name, params in distcont + distdiscrete]


def draw(dist, seed):
    """Four draws (one matrix for ``random_correlation``, whose ``rvs`` has no size)."""
    size = {} if isinstance(dist, type(stats.random_correlation([1.0, 1.0]))) else {"size": 4}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy's own warnings for some laws' parameters
        return np.asarray(dist.rvs(random_state=seed, **size))


@pytest.mark.parametrize("name, params", UNIVARIATE,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(UNIVARIATE)])
def test_every_univariate_distribution(name, params):
    dist = getattr(stats, name)(*params)
    ours = draw(dist, tandem.Generator(tandem.Philox(3)))
    np.testing.assert_array_equal(ours, draw(dist, tandem.Generator(tandem.Philox(3))))
    theirs = draw(dist, np.random.default_rng(3))
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype


@pytest.mark.parametrize("name", sorted(MULTIVARIATE))
def test_every_multivariate_distribution(name):
    dist = MULTIVARIATE[name]()
    ours = draw(dist, tandem.Generator(tandem.Philox(4)))
    np.testing.assert_array_equal(ours, draw(dist, tandem.Generator(tandem.Philox(4))))
    assert ours.shape == draw(dist, np.random.default_rng(4)).shape
