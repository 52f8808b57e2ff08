"""tandem.engine: one engine for every fill, and the backends' protocol."""

import ast
import inspect
import pathlib

import numpy as np
import pytest

import tandem
from tandem import distributions, engine

# What every backend implements, and what the reference backend (one element at
# a time, in Python) implements too.
PROTOCOL = [name for name, _ in inspect.getmembers(engine.Backend, inspect.isfunction)
            if not name.startswith("_")]
ELEMENTWISE = ["addressed", "addressed_each", "fill"]


def defined_functions(module_name):
    """The top-level functions of ``tandem.backends.<module_name>``, read from its
    source (importing the CUDA backend needs numba-cuda)."""
    path = pathlib.Path(tandem.__file__).parent / "backends" / f"{module_name}.py"
    tree = ast.parse(path.read_text())
    return {node.name: [a.arg for a in node.args.args] for node in tree.body
            if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("name,methods", [("cpu", PROTOCOL), ("cuda", PROTOCOL),
                                          ("reference", ELEMENTWISE)])
def test_backends_implement_the_protocol_with_its_arguments(name, methods):
    assert set(ELEMENTWISE) <= set(PROTOCOL)
    defined = defined_functions(name)
    for method in methods:
        wanted = inspect.signature(getattr(engine.Backend, method)).parameters
        assert defined.get(method) == [p for p in wanted if p != "self"], (name, method)


def test_backends_are_found_by_name():
    assert engine.backend_for("cpu").fill is tandem.backends.cpu.fill
    assert engine.backend_for("reference").fill is tandem.backends.reference.fill
    with pytest.raises(ValueError, match="backend must be one of"):
        engine.backend_for("tpu")


def test_a_spec_run_is_the_public_fill():
    spec = distributions.normal_spec(1.0, 2.0, np.float64, None)
    assert spec.kind.name == "normal64" and spec.dtype == np.float64
    stream = tandem.Philox(5, lane=3)
    values, after = engine.run(stream, spec, 2000)
    expected, expected_after = stream.normal(2000, loc=1.0, scale=2.0)
    np.testing.assert_array_equal(values, expected)
    assert after == expected_after
    np.testing.assert_array_equal(engine.run_at(stream, spec, [1999, 0, 7]),
                                  expected[[1999, 0, 7]])
    reference, _ = engine.run(stream, spec, 40, backend="reference")
    np.testing.assert_array_equal(reference, expected[:40])


def test_the_engine_refuses_bad_streams_and_threads_before_writing():
    spec = distributions.random_spec(np.float64, "[0,1)")
    out = np.full(8, 7.0)
    with pytest.raises(TypeError, match="tandem Stream"):
        engine.run(np.random.default_rng(1), spec, None, out=out)
    with pytest.raises(ValueError, match="threads"):
        engine.run(tandem.Philox(1), spec, None, out=out, threads=0)
    assert (out == 7.0).all()
