"""tandem.Generator takes and refuses bad arguments as NumPy's Generator does.

Every method of NumPy's Generator that tandem writes itself is called with
each parameter in turn bad (and pairs of bad parameters, and bad sizes), on
tandem and on NumPy; each call must pass on both or raise the same kind of
exception (``TypeError``, ``ValueError`` or ``OverflowError``, subclasses
counted as their base: NumPy's ``UFuncTypeError`` is a ``TypeError``).  So
NumPy's checks come in NumPy's order too, where two parameters are bad.

Left out by design: infinite parameters, which tandem refuses (the
Generator's docstring); and the few cases in :data:`KNOWN`, each with why.
"""

import itertools
import math
import warnings

import numpy as np
import pytest

import tandem

BAD = (-1.0, 0.0, math.nan, "x", np.array([1.0, -1.0]), 2**70, -5, 1.5,
       np.array([[1.0], [2.0], [3.0]]), 10**6)
PAIRED = (-1.0, 0.0, math.nan, "x")
SIZES = (None, -1, "a", 2.5, (2, -1), (3,), 0)
GOOD = {"integers": (0, 10), "multinomial": (5, [0.2, 0.8]), "dirichlet": ([1.0, 2.0],),
        "hypergeometric": (5, 5, 3), "triangular": (0.0, 0.5, 1.0), "f": (2.0, 3.0),
        "wald": (1.0, 1.0), "logseries": (0.5,), "binomial": (5, 0.5),
        "negative_binomial": (5, 0.5), "geometric": (0.5,), "vonmises": (0.0, 1.0),
        "noncentral_f": (2.0, 3.0, 1.0), "noncentral_chisquare": (2.0, 1.0), "zipf": (2.0,)}
_OTHERS = ("self", "size", "dtype", "out", "method", "endpoint", "check_valid", "tol", "axis")

#: Calls where tandem's exception differs from NumPy's, and why.
KNOWN = {
    # tandem truncates an array of integral floats as it does a float (NumPy
    # refuses the array, takes the float)
    ("binomial", "array([ 1., -1.]), 0.5", "None"),
    ("binomial", "array([[1.], [2.], [3.]]), 0.5", "None"),
    # the count is checked against tandem's bound before NumPy's cast to int64
    ("binomial", "1180591620717411303424, 0.5", "None"),
    ("multinomial", "1180591620717411303424, [0.2, 0.8]", "None"),
    # vonmises' mu beyond the bound that keeps its arithmetic exact
    ("vonmises", "1180591620717411303424, 1.0", "None"),
    # multinomial checks n before size; NumPy's size first
    ("multinomial", "-1.0, [0.2, 0.8]", "'a'"),
    ("multinomial", "-1.0, [0.2, 0.8]", "2.5"),
    # NumPy converts the string of a NaN pair through its own path
    ("uniform", "nan, 'x'", "None"),
}


def _methods():
    for name in sorted(vars(tandem.Generator)):
        if name.startswith("_") or name in ("bytes", "shuffle", "permuted", "permutation",
                                             "choice", "spawn", "bit_generator"):
            continue
        if callable(getattr(np.random.Generator, name, None)):
            yield name


def _kind(error):
    for base in (OverflowError, TypeError, ValueError):
        if isinstance(error, base):
            return base.__name__
    return type(error).__name__


def _outcome(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as error:  # noqa: BLE001 - the kind is what is compared
        return _kind(error)
    return "passes"


def _cases(name):
    import inspect
    params = [p for p in inspect.signature(getattr(tandem.Generator, name)).parameters
              if p not in _OTHERS]
    good = list(GOOD.get(name, (1.0,) * len(params)))[:len(params)]
    good += [1.0] * (len(params) - len(good))
    for i in range(len(params)):
        for bad in BAD:
            yield good[:i] + [bad] + good[i + 1:], None
    for i, j in itertools.combinations(range(len(params)), 2):
        for first, second in itertools.product(PAIRED, PAIRED):
            args = list(good)
            args[i], args[j] = first, second
            yield args, None
    for size in SIZES:
        for bad in (None, -1.0, math.nan, "x"):
            args = list(good)
            if bad is not None and args:
                args[0] = bad
            yield args, size


def _text(args):
    return ", ".join(" ".join(repr(a).split()) for a in args)


@pytest.mark.parametrize("name", list(_methods()))
def test_bad_arguments_raise_numpys_exceptions(name):
    theirs, ours = np.random.default_rng(1), tandem.Generator(1)
    differ = []
    for args, size in _cases(name):
        keywords = {} if size is None else {"size": size}
        numpy = _outcome(lambda: getattr(theirs, name)(*args, **keywords))
        mine = _outcome(lambda: getattr(ours, name)(*args, **keywords))
        if numpy != mine and (name, _text(args), repr(size)) not in KNOWN:
            differ.append(f"{name}({_text(args)}, size={size!r}): NumPy {numpy}, tandem {mine}")
    assert not differ, "\n".join(differ)


def test_infinite_parameters_are_refused_by_design():
    g = tandem.Generator(1)
    for call in (lambda: g.normal(math.inf), lambda: g.beta(math.inf, 1.0),
                 lambda: g.gamma(1.0, math.inf), lambda: g.vonmises(math.inf, 1.0)):
        with pytest.raises(ValueError, match="finite"):
            call()
