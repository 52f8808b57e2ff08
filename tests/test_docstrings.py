"""The reference as NumPy's users read it: numpydoc's checks, and examples that run.

Every public method and property of ``tandem.Generator``,
``tandem.StreamBitGenerator`` and ``tandem.Stream`` has a numpydoc docstring
with a summary, every parameter documented in order, a described Returns
section and Examples; and the examples of their modules run as doctests.  More of
the public API joins these lists as its docstrings are written (issue 42).
"""

import doctest

import numpydoc.validate
import pytest

import tandem
from tandem import bitgen, generator, stream

#: numpydoc's checks held: summary (SS01, SS03), parameters (PR01-PR04,
#: PR06, PR07), returns (RT01, RT03), examples (EX01), a docstring (GL08).
CHECKS = {"SS01", "SS03", "PR01", "PR02", "PR03", "PR04", "PR06", "PR07", "RT01", "RT03",
          "EX01", "GL08"}
MEMBERS = [f"{cls.__module__}.{cls.__name__}.{name}"
           for cls in (tandem.Generator, tandem.StreamBitGenerator, tandem.Stream)
           for name, member in vars(cls).items()
           if not name.startswith("_") and (callable(member) or isinstance(member, property))]


@pytest.mark.parametrize("name", MEMBERS)
def test_numpydoc_checks(name):
    errors = [(code, message) for code, message in numpydoc.validate.validate(name)["errors"]
              if code in CHECKS]
    assert not errors


@pytest.mark.parametrize("module", [generator, bitgen, stream])
def test_the_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 20 and result.failed == 0
