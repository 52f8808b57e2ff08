"""The law records (tandem.laws): each law owns its kinds, and the Generator's
and Stream's methods, the tandem.<law>_at functions, tandem.dask's functions
and tandem compile are made from them."""

import inspect

import numpy as np
import pytest

import tandem
from tandem import kinds, laws, parametric


EVERY_LAW = sorted({*laws.LAWS, *laws.TWO_PARTS})


def _unannotated(signature):
    """The signature without its type hints: NumPy's Cython methods carry none."""
    return signature.replace(
        parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
        return_annotation=signature.empty)


@pytest.mark.parametrize("name", EVERY_LAW)
def test_generator_methods_have_numpys_signatures(name):
    """NumPy's own signature (inspected from numpy.random.Generator) is the one
    made from the record: the parameters, their defaults, then size."""
    ours = _unannotated(inspect.signature(getattr(tandem.Generator, name)))
    numpys = _unannotated(inspect.signature(getattr(np.random.Generator, name)))
    if name in ("normal", "standard_gamma"):  # written out: they take more
        assert list(numpys.parameters) == list(ours.parameters)[:len(numpys.parameters)]
        return
    assert ours == numpys
    assert getattr(tandem.Generator, name).__qualname__ == f"Generator.{name}"
    assert "Parameters\n----------" in getattr(tandem.Generator, name).__doc__


@pytest.mark.parametrize("name", EVERY_LAW)
def test_a_made_method_draws_the_laws_fill_and_takes_keywords(name):
    law = laws.LAWS.get(name) or laws.TWO_PARTS[name]
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


STREAM_LAWS = sorted(set(EVERY_LAW) - {"normal"})  # Stream.normal is the fill's own


@pytest.mark.parametrize("name", STREAM_LAWS)
def test_stream_methods_are_made_from_the_records(name):
    """``Stream.<law>``: the law's parameters with NumPy's defaults, then size and
    the fills' keywords; the values and the next stream of parametric.fill, on
    every generator, and out= filled in place."""
    law = laws.LAWS.get(name) or laws.TWO_PARTS[name]
    head = len(law.parameters) + 2  # self, the law's parameters, size
    numpys = list(_unannotated(inspect.signature(getattr(np.random.Generator, name)))
                  .parameters.values())
    ours = list(_unannotated(inspect.signature(getattr(tandem.Stream, name))).parameters.values())
    assert ours[1:head] == numpys[1:head]
    assert [(p.name, p.kind) for p in ours[head:]] == [
        (k, inspect.Parameter.KEYWORD_ONLY) for k in ("out", "threads", "device")]
    assert "Returns\n-------" in getattr(tandem.Stream, name).__doc__
    params = law.parameter_sets[-1]
    for stream in (tandem.Philox(4), tandem.Threefry(4), tandem.Tandem(4)):
        values, after = getattr(stream, name)(*params, size=5)
        expected, expected_after = parametric.fill(stream, name, *params, size=5)
        assert np.array_equal(values, expected) and after == expected_after
    out = np.empty(5, dtype=np.int64 if law.counts else np.float64)
    assert getattr(tandem.Philox(4), name)(*params, out=out)[0] is out
    assert np.array_equal(out, parametric.fill(tandem.Philox(4), name, *params, size=5)[0])


@pytest.mark.parametrize("name", STREAM_LAWS)
def test_at_functions_are_made_from_the_records(name):
    """``tandem.<law>_at(stream, index, *params)``: the fill's elements at ``index``,
    each alone; array parameters broadcast to ``index``; listed in ``tandem.__all__``."""
    law = laws.LAWS.get(name) or laws.TWO_PARTS[name]
    at = getattr(tandem, f"{name}_at")
    assert f"{name}_at" in tandem.__all__
    params = law.parameter_sets[-1]
    stream = tandem.Philox(6).at(3)
    whole, _ = parametric.fill(stream, name, *params, size=9)
    index = np.array([8, 0, 5, 5])
    assert np.array_equal(at(stream, index, *params), whole[index])
    # an array parameter: element j takes the parameters at j
    first = np.full(index.shape, params[0]) if params else None
    if first is not None:
        assert np.array_equal(at(stream, index, first, *params[1:]), whole[index])
    keywords = {p.name: v for p, v in zip(law.parameters, params)}
    assert np.array_equal(at(stream, index, **keywords), whole[index])


def test_two_part_laws_are_addressed_from_the_block_their_fill_starts_at():
    """A stream mid-block: the fill and the ``*_at`` elements both start at the
    next block (8 words an element), and beta's rule is chosen element by element."""
    stream = tandem.Threefry(8).at(6)
    a, b = np.array([0.5, 2.0, 0.3]), np.array([0.5, 3.0, 0.9])
    whole, after = parametric.fill(stream, "beta", a, b)
    assert after.word_position == 8 + 8 * 3
    assert np.array_equal(tandem.beta_at(stream, [2, 0, 1], a[[2, 0, 1]], b[[2, 0, 1]]),
                          whole[[2, 0, 1]])
    with pytest.raises(ValueError, match="p must be at most 1"):
        tandem.negative_binomial_at(stream, [0], 3.0, 1.5)
    with pytest.raises(ValueError, match="end of the lane"):
        tandem.wald_at(tandem.Philox(1).at(2**64 - 16), [2], 1.0, 1.0)  # [1] ends at 2**64
