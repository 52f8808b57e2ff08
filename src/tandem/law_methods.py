"""Functions made from a :class:`tandem.laws.Law` record: the law's ``Stream``
method, its ``*_at`` function and its ``Generator`` method share its parameter
names, NumPy's defaults and one numpydoc text of its parameters.

Each is made from source, as :mod:`dataclasses` makes ``__init__``: a call
binds its arguments as a written function's would, with no ``*args`` to
unpack on the way.
"""

from __future__ import annotations

from typing import Callable

from .laws import Law


def signature(law: Law) -> str:
    """The law's parameters with NumPy's defaults, each followed by ``", "``."""
    return "".join(f"{p.name}, " if p.default is None else f"{p.name}={p.default!r}, "
                   for p in law.parameters)


def arguments(law: Law) -> str:
    """The law's parameter names, each followed by ``", "``: a call passing them on."""
    return "".join(f"{p.name}, " for p in law.parameters)


def parameters_doc(law: Law) -> str:
    """The numpydoc entry of the law's parameters (empty for a law without)."""
    if not law.parameters:
        return ""
    defaults = [f"{p.name} {p.default!r}" for p in law.parameters if p.default is not None]
    return (f"{', '.join(p.name for p in law.parameters)} : float or array_like of floats\n"
            f"    The law's parameters{' (defaults: ' + ', '.join(defaults) + ')' if defaults else ''};"
            " arrays broadcast as NumPy's.\n")


def returns_doc(law: Law) -> str:
    """The numpydoc type of the law's values."""
    return "int or numpy.ndarray of int64" if law.counts else "float or numpy.ndarray"


def example(law: Law) -> str:
    """The law's first example parameters, each followed by ``", "``."""
    return "".join(f"{p!r}, " for p in law.parameter_sets[0])


def make(name: str, source: str, namespace: dict, doc: str, module: str,
         qualname: str) -> Callable:
    """The function ``name`` that ``source`` defines with the globals ``namespace``."""
    namespace = dict(namespace)
    exec(source, namespace)  # noqa: S102 - every source here is made from a law's names
    function = namespace[name]
    function.__doc__, function.__module__, function.__qualname__ = doc, module, qualname
    return function
