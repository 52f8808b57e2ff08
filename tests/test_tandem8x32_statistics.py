"""Goodness of fit of tandem.Tandem's draws, on fixed streams.

Each test compares 2**16 draws with their law by SciPy's Kolmogorov–Smirnov
or chi-square test and fails below p = 1e-4: a false alarm once in 10,000
runs per test (with fixed streams the outcome never changes; a new stream
rule has that chance of failing a correct law).  Eleven tests of the
specification's draws, and 24 of tandem's other laws on Tandem streams (the
generator axis): about 3.5e-3 in all.
"""

import numpy as np
import pytest
from scipy import stats

import tandem
from tandem import parametric

from test_parametric import COMPOSED, LAWS, chisquare_pvalue

ALPHA = 1e-4
N = 2**16


def _stream(i):
    return tandem.Tandem(20261206).split(i)


@pytest.mark.parametrize("i, draw, law", [
    (0, lambda g: g.random(N)[0], stats.uniform.cdf),
    (1, lambda g: g.random(N, dtype=np.float32)[0].astype(np.float64), stats.uniform.cdf),
    (2, lambda g: g.normal(N)[0], stats.norm.cdf),
    (3, lambda g: g.normal(N, dtype=np.float32)[0].astype(np.float64), stats.norm.cdf),
    (4, lambda g: g.exponential(N)[0], stats.expon.cdf),
    (5, lambda g: g.exponential(N, dtype=np.float32)[0].astype(np.float64), stats.expon.cdf),
    # the tail beyond R = 4.04 and the wedges of the ziggurat: |z| given a miss's layers
    (6, lambda g: np.abs(g.normal(2**20)[0]), stats.halfnorm.cdf),
])
def test_continuous_laws(i, draw, law):
    assert stats.kstest(draw(_stream(i)), law).pvalue > ALPHA


def test_normal_tail_frequency():
    """P(|z| > R) = 1.23e-4 (the ziggurat's tail start R): the count in 2**22 draws
    against its binomial law."""
    z, _ = _stream(7).normal(2**22)
    r = 4.038849846109504
    count = int(np.sum(np.abs(z) > r))
    p = 2 * stats.norm.sf(r)
    assert stats.binomtest(count, z.size, p).pvalue > ALPHA


@pytest.mark.parametrize("bound", [6, 2**31 + 1])
def test_below_is_uniform(bound):
    """Bounded draws in 6 (or 2**31 + 1, which rejects almost half) cells."""
    x, _ = _stream(8).below(bound, N)
    cells = np.minimum(x.astype(np.int64) * 6 // bound, 5)
    counts = np.bincount(cells, minlength=6)
    expected = np.array([len(range(c * bound // 6 + (c * bound % 6 > 0),
                                   (c + 1) * bound // 6 + ((c + 1) * bound % 6 > 0)))
                         for c in range(6)]) / bound * N
    assert stats.chisquare(counts, expected).pvalue > ALPHA


def test_choice_frequencies():
    weights = np.array([5.0, 1.0, 0.0, 3.0, 0.5, 2.5])
    x, _ = _stream(9).choice(tandem.ChoiceTable(weights), N)
    counts = np.bincount(x, minlength=weights.size)
    assert counts[2] == 0
    keep = weights > 0
    assert stats.chisquare(counts[keep], N * weights[keep] / weights.sum()).pvalue > ALPHA


@pytest.mark.parametrize("name", sorted(LAWS) + sorted(COMPOSED))
def test_every_other_law_fits_on_tandem_streams(name):
    """tandem's own laws (gamma, Poisson, binomial, the laws by inversion, the
    laws of two parts) on Tandem words, against SciPy's law."""
    params, law = {**LAWS, **COMPOSED}[name]
    stream = tandem.Tandem(20261206).sub(name)
    if name in COMPOSED:
        x, _ = getattr(parametric, name)(stream, *params, N)
    else:
        x, _ = parametric.fill(stream, name, *params, size=N)
    if hasattr(law, "pmf"):
        assert chisquare_pvalue(x, law) > ALPHA
    else:
        assert stats.kstest(x, law.cdf).pvalue > ALPHA
