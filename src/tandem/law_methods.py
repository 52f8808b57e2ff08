"""Functions made from a :class:`tandem.laws.Law` record: the law's ``Stream``
method, its ``*_at`` function and its ``Generator`` method share its parameter
names, NumPy's defaults and one numpydoc text of its parameters.

Each is made from source, as :mod:`dataclasses` makes ``__init__``: a call
binds its arguments as a written function's would, with no ``*args`` to
unpack on the way.
"""

from __future__ import annotations

from typing import Callable

from . import _types
from .laws import Law


def signature(law: Law) -> str:
    """The law's parameters, typed, with NumPy's defaults, each followed by ``", "``."""
    return "".join(f"{p.name}: ArrayLike, " if p.default is None
                   else f"{p.name}: ArrayLike = {p.default!r}, " for p in law.parameters)


#: The fills' keywords after ``size``, typed (:mod:`tandem._types`).
FILL_KEYWORDS = ("size: Size = None, *, out: Array = None, threads: Optional[int] = None, "
                 "device: Device = None")


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


_AT_DOC = """Elements ``index`` of ``Stream.{name}``'s fill, each computed alone.

Parameters
----------
stream : tandem.Stream
    Where the fill starts.
index : int or array_like of int
    The elements (non-negative; a CuPy array keeps them on the GPU).
{parameters}threads : int, optional
    CPU threads, or threads per CUDA block; never changes a bit.
device : {{None, "cpu", "cuda"}}, optional
    Where the values are made (None: where ``index`` is).
{backend}
Returns
-------
numpy.ndarray or cupy.ndarray
    ``index``'s shape; element ``j`` is element ``index[j]`` of
    ``stream.{name}(...)`` (array parameters broadcast to ``index``'s shape,
    element ``j`` taking the parameters at ``j``).  {returns}.

Examples
--------
>>> import tandem
>>> s = tandem.Philox(1)
>>> bool(tandem.{name}_at(s, [2], {example})[0] == s.{name}({example}size=3)[0][2])
True
"""

_BACKEND_DOC = """backend : {None, "cpu", "cuda", "reference"}, optional
    The backend by name, None for the output's device's; ``"reference"``
    computes in Python integers (:mod:`tandem.backends.reference`).
"""


def at_doc(name: str, parameters: str, returns: str, example: str, backend: bool = False) -> str:
    """The numpydoc text of ``tandem.<name>_at``.

    ``parameters`` is the numpydoc entry of the law's own parameters,
    ``returns`` the values' description and ``example`` the arguments of a
    call that both the function and the fill take, each followed by ``", "``;
    ``backend``: whether the function takes ``backend=``.
    """
    return _AT_DOC.format(name=name, parameters=parameters, returns=returns, example=example,
                          backend=_BACKEND_DOC if backend else "")


def make(name: str, source: str, namespace: dict, doc: str, module: str,
         qualname: str) -> Callable:
    """The function ``name`` that ``source`` defines with the globals ``namespace``."""
    namespace = {**vars(_types), **namespace}
    exec(source, namespace)  # noqa: S102 - every source here is made from a law's names
    function = namespace[name]
    function.__doc__, function.__module__, function.__qualname__ = doc, module, qualname
    return function
