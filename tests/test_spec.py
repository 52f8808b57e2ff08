"""The test vectors of docs/spec.md, read from the document itself."""

import pathlib
import re

import numpy as np  # noqa: F401  (used by the expressions)
import pytest

import tandem  # noqa: F401

SPEC = pathlib.Path(__file__).parents[1] / "docs" / "spec.md"
BLOCK = re.search(r"```vectors\n(.*?)```", SPEC.read_text(), re.S).group(1)
LINES = [line for line in BLOCK.splitlines() if line.strip()]


def test_spec_has_vectors():
    assert len(LINES) >= 20


@pytest.mark.parametrize("line", LINES)
def test_vector(line):
    expression, expected = line.split(" == ", 1)
    assert eval(expression) == eval(expected)
