"""Sphinx configuration of tandem's API reference (``docs/reference``).

Build it with ``python -m sphinx -W -b html docs/reference build/reference``
after ``pip install '.[docs]'``; ``tests/test_reference.py`` builds it so in CI.
"""

import tandem

project = "tandem"
author = "the tandem developers"
release = version = tandem.__version__
extensions = ["sphinx.ext.autodoc", "numpydoc"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc sections carry the types
numpydoc_show_class_members = False
numpydoc_validation_checks = set()  # tests/test_docstrings.py holds the checks
