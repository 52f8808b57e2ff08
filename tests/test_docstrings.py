"""The reference as NumPy's users read it: numpydoc's checks, and examples that run.

Every public definition (the functions and classes of the ``__all__`` of
``tandem``, ``tandem.smc``, ``tandem.bn`` and ``tandem.dask``, and every
public method and property of those classes) has a numpydoc docstring with a
summary, every parameter documented in order, a described Returns section
and Examples; and every example runs, as a doctest, with what it prints.
"""

import doctest
import inspect
import pathlib
import typing

import numpydoc.validate
import pytest

import tandem
import tandem.bn
import tandem.dask
import tandem.smc

#: numpydoc's checks held: summary (SS01, SS03), parameters (PR01-PR04,
#: PR06, PR07), returns (RT01, RT03), examples (EX01), a docstring (GL08).
CHECKS = {"SS01", "SS03", "PR01", "PR02", "PR03", "PR04", "PR06", "PR07", "RT01", "RT03",
          "EX01", "GL08"}
MODULES = (tandem, tandem.smc, tandem.bn, tandem.dask)
#: Definitions whose examples need a GPU: they are marked +SKIP and checked
#: by the GPU tests instead.
GPU_ONLY = {"tandem.dask.batch_filters"}


def _members(cls):
    return [(name, getattr(cls, name)) for name, member in vars(cls).items()
            if not name.startswith("_")
            and (callable(member) or isinstance(member, (property, classmethod, staticmethod)))]


def _public():
    """``{qualified name: object}`` of the public API, each object once, under
    the first module that exports it."""
    found, seen = {}, set()
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            found[f"{module.__name__}.{name}"] = obj
            if inspect.isclass(obj):
                for member_name, member in _members(obj):
                    found[f"{module.__name__}.{name}.{member_name}"] = member
    return found


PUBLIC = _public()


def test_the_public_api_is_all_here():
    # a guard on the lists above: the classes and laws people use are in them
    for name in ("tandem.Generator", "tandem.Tandem.random", "tandem.gamma_at",
                 "tandem.smc.bootstrap_filter", "tandem.bn.order_mcmc", "tandem.dask.normal"):
        assert name in PUBLIC
    assert len(PUBLIC) > 250


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_numpydoc_checks(name):
    # by object, not by name: ``tandem.smc.kalman`` names a module and a function
    doc = numpydoc.validate.get_doc_object(PUBLIC[name])
    errors = [(code, message) for code, message in numpydoc.validate.validate(doc)["errors"]
              if code in CHECKS]
    assert not errors


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_parameter_has_a_type_hint(name):
    obj = PUBLIC[name]
    function = obj.fget if isinstance(obj, property) else obj
    function = vars(function).get("__init__") if inspect.isclass(function) else function
    if function is None:  # a class whose constructor is its base's
        return
    bare = [p for p in inspect.signature(function).parameters.values()
            if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    assert not bare
    typing.get_type_hints(function)  # every hint names something that exists


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_examples_run(name):
    obj = PUBLIC[name]
    target = obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
    tests = doctest.DocTestFinder(recurse=False).find(target, name, globs={})
    result, report = _run(tests)
    assert result.failed == 0, report
    assert result.attempted > 0 or name in GPU_ONLY


@pytest.mark.parametrize("module", MODULES + (tandem.stream, tandem.generator),
                         ids=lambda m: m.__name__)
def test_the_module_examples_run(module):
    result, report = _run(doctest.DocTestFinder(recurse=False).find(module, module.__name__,
                                                                    globs={}))
    assert result.failed == 0, report


def _run(tests):
    """``(doctest's TestResults, its report of the failures)`` of ``tests``."""
    runner, report = doctest.DocTestRunner(), []
    for test in tests:
        runner.run(test, out=report.append)
    return runner.summarize(verbose=False), "".join(report)


def test_the_reference_builds_without_warnings(tmp_path):
    # Sphinx (the docs extra) over docs/reference: any warning fails the build
    from sphinx.cmd.build import build_main

    source = pathlib.Path(__file__).parents[1] / "docs" / "reference"
    status = build_main(["-W", "--keep-going", "-q", "-b", "html", "-d", str(tmp_path / "doctrees"),
                         str(source), str(tmp_path / "html")])
    assert status == 0
    html = "".join(page.read_text() for page in (tmp_path / "html").glob("*.html"))
    missing = [name for name in PUBLIC if f'id="{name}"' not in html]
    assert not missing
