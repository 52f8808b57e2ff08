"""The values of the laws of two parts of ``docs/spec.md`` from their parts' values.

An element of such a law is made of one element of each of two other laws
(the parts, at words ``8 i`` and ``8 i + 4``); these functions make the
value from the two.  Every product that a later sum reads is
:func:`tandem.core.fmath.product`, so that no compiler fuses them.

Guaranteed across versions: each function's output for each input.
"""

import math

import numpy as np

from ._marks import inline
from .fmath import product


@inline
def student_t(z, c, df):
    """Student's t from a standard normal ``z`` and ``c``, chisquare(``df``):
    ``z / sqrt(c / df)``.

    Examples
    --------
    >>> float(student_t(1.0, 4.0, 4.0))
    1.0
    """
    return np.divide(z, math.sqrt(np.divide(c, df)))


@inline
def fisher_f(a, b, dfnum, dfden):
    """Fisher's F from ``a``, chisquare(``dfnum``), and ``b``, chisquare(``dfden``):
    ``(a / dfnum) / (b / dfden)``.

    Examples
    --------
    >>> float(fisher_f(2.0, 3.0, 2.0, 3.0))
    1.0
    """
    return np.divide(np.divide(a, dfnum), np.divide(b, dfden))


@inline
def gamma_ratio(x, y):
    """Beta from ``x``, standard_gamma(a), and ``y``, standard_gamma(b): ``x / (x + y)``.

    Examples
    --------
    >>> float(gamma_ratio(1.0, 3.0))
    0.25
    """
    return np.divide(x, x + y)


@inline
def wald(z, u, mean, scale):
    """The Wald variate of Michael, Schucany and Haas from a standard normal
    ``z`` and a uniform ``u``: with ``y = (mean z) z`` and ``x = mean (1 - 2 /
    (1 + sqrt(1 + (4 scale) / y)))``, ``x`` if ``u <= mean / (mean + x)``,
    else ``(mean mean) / x``.

    Examples
    --------
    >>> round(float(wald(1.0, 0.5, 1.0, 1.0)), 6)
    0.381966
    """
    y = (mean * z) * z
    x = product(mean, 1.0 - np.divide(2.0, 1.0 + math.sqrt(1.0 + np.divide(4.0 * scale, y))))
    wide = np.divide(mean * mean, x)
    return x if u <= np.divide(mean, mean + x) else wide
