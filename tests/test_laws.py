"""The law records (tandem.laws): each law owns its kinds, and the Generator's
methods, tandem.dask's functions and tandem compile are made from them."""

import inspect

import numpy as np
import pytest

import tandem
from tandem import kinds, laws, parametric


@pytest.mark.parametrize("name", sorted(laws.LAWS))
def test_generator_methods_have_numpys_signatures(name):
    """NumPy's own signature (inspected from numpy.random.Generator) is the one
    made from the record: the parameters, their defaults, then size."""
    ours = inspect.signature(getattr(tandem.Generator, name))
    numpys = inspect.signature(getattr(np.random.Generator, name))
    if name in ("normal", "standard_gamma"):  # written out: they take more
        assert list(numpys.parameters) == list(ours.parameters)[:len(numpys.parameters)]
        return
    assert ours == numpys
    assert getattr(tandem.Generator, name).__qualname__ == f"Generator.{name}"
    assert "Parameters\n----------" in getattr(tandem.Generator, name).__doc__


@pytest.mark.parametrize("name", sorted(laws.LAWS))
def test_a_made_method_draws_the_laws_fill_and_takes_keywords(name):
    law = laws.LAWS[name]
    params = law.parameter_sets[-1]
    g = tandem.Generator(tandem.Philox(5))
    keywords = {p.name: v for p, v in zip(law.parameters, params)}
    values = getattr(g, name)(**keywords, size=4)
    expected, after = parametric.fill(tandem.Philox(5), name, *params, size=4)
    assert np.array_equal(values, expected)
    assert g.stream == after


def test_the_defaults_are_numpys():
    g = tandem.Generator(tandem.Philox(3))
    assert np.array_equal(g.laplace(size=3), parametric.fill(tandem.Philox(3), "laplace",
                                                              0.0, 1.0, size=3)[0])
    with pytest.raises(TypeError):
        g.weibull()  # a is required, as NumPy's


def test_each_law_owns_the_kinds_its_strategy_chooses():
    for law in (*laws.LAWS.values(), *laws.PARTS.values()):
        own = {kind.name for kind in law.kinds}
        for params in law.parameter_sets:
            words = [np.atleast_1d(w).astype(np.float64)
                     for w in np.broadcast_arrays(*law.words(*map(np.float64, params)))]
            if law.faster is not None:  # None: the law's own kind
                chosen = law.faster(*(float(w[0]) for w in words))
                assert chosen is None or chosen[0] in own
            if law.regimes is not None:
                assert {name for name, _ in law.regimes(*words)} <= own
        assert all(kinds.KINDS[name] is kind for name, kind in
                   ((k.name, k) for k in law.kinds))


def test_the_registry_holds_every_laws_kinds_once():
    law_kinds = laws.kinds()
    assert set(law_kinds) <= set(kinds.KINDS)
    # the laws that share kinds share the very records
    assert laws.LAWS["gamma"].kinds is laws.LAWS["chisquare"].kinds
    assert len(kinds.KINDS) == len(set(kinds.KINDS))
